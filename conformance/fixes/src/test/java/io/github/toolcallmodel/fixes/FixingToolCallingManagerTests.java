package io.github.toolcallmodel.fixes;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import org.junit.jupiter.api.Test;
import reactor.util.context.Context;

import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.DefaultToolCallingManager;
import org.springframework.ai.model.tool.ToolCallLimitBehavior;
import org.springframework.ai.model.tool.ToolCallLimitExceededException;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionResult;
import org.springframework.ai.model.tool.internal.ToolCallReactiveContextHolder;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.DefaultToolDefinition;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.ai.tool.execution.DefaultToolExecutionExceptionProcessor;
import org.springframework.ai.tool.execution.ToolExecutionException;
import org.springframework.ai.tool.execution.ToolExecutionExceptionProcessor;
import org.springframework.ai.tool.metadata.ToolMetadata;
import org.springframework.ai.tool.resolution.StaticToolCallbackResolver;
import org.springframework.ai.tool.resolution.ToolCallbackResolver;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The manager's fixes on Spring's real {@code DefaultToolCallingManager}: the
 * processor's rethrows, the hand-off to the loop after a failing batch and a
 * {@code returnDirect} batch, and tools that invoke other tools or nested calls
 * while they run.
 */
class FixingToolCallingManagerTests {

	static final String BREACH = "Tool call limit (1) exceeded for tool 'x'. No further calls to this tool are allowed in this turn.";

	static ToolCallback tool(String name, boolean returnDirect, Function<String, String> body) {
		ToolDefinition definition = DefaultToolDefinition.builder().name(name).description(name).inputSchema("{}").build();
		ToolMetadata metadata = ToolMetadata.builder().returnDirect(returnDirect).build();
		return new ToolCallback() {

			@Override
			public ToolDefinition getToolDefinition() {
				return definition;
			}

			@Override
			public ToolMetadata getToolMetadata() {
				return metadata;
			}

			@Override
			public String call(String toolInput) {
				return body.apply(toolInput);
			}

		};
	}

	static ToolCallback tool(String name, Function<String, String> body) {
		return tool(name, false, body);
	}

	/** A model reply calling each {@code name:id} given. */
	static ChatResponse reply(String... calls) {
		List<AssistantMessage.ToolCall> out = new ArrayList<>();
		for (String c : calls) {
			String[] nameId = c.split(":");
			out.add(new AssistantMessage.ToolCall(nameId[1], "function", nameId[0], "{}"));
		}
		return new ChatResponse(List.of(new Generation(AssistantMessage.builder().content("").toolCalls(out).build())));
	}

	static Prompt prompt(ToolCallback... tools) {
		return new Prompt(List.<Message>of(new UserMessage("q")),
				ToolCallingChatOptions.builder().toolCallbacks(List.of(tools)).build());
	}

	static DefaultToolCallingManager spring(ToolExecutionExceptionProcessor processor, ToolCallLimitBehavior behavior) {
		return DefaultToolCallingManager.builder()
			.toolExecutionExceptionProcessor(processor)
			.maxCallsPerTool("x", 1)
			.onLimitExceeded(behavior)
			.build();
	}

	static final ToolExecutionExceptionProcessor SPRING = DefaultToolExecutionExceptionProcessor.builder().build();

	static final ToolCallback X = tool("x", in -> "{\"weather\":\"sunny\"}");

	static ToolResponseMessage last(ToolExecutionResult result) {
		List<Message> h = result.conversationHistory();
		return assertInstanceOf(ToolResponseMessage.class, h.get(h.size() - 1));
	}

	/** Runs {@code body} inside a loop's hand-off slot and returns what was handed off. */
	static ToolResponseMessage handedOff(Runnable body) {
		LoopHandoff.Slot previous = LoopHandoff.open();
		try {
			body.run();
			return LoopHandoff.take();
		}
		finally {
			LoopHandoff.close(previous);
		}
	}

	/**
	 * What a batch run as {@code ToolCallingAdvisor.adviseStream} runs it (on a
	 * {@code boundedElastic} thread, the stream's Reactor context in
	 * {@code ToolCallReactiveContextHolder}) hands off into the slot the context
	 * holds; nothing is left on the thread.
	 */
	static ToolResponseMessage streamedHandedOff(Runnable body) {
		LoopHandoff.Slot slot = new LoopHandoff.Slot();
		ToolCallReactiveContextHolder.setContext(Context.of(LoopHandoff.CONTEXT_KEY, slot));
		try {
			body.run();
		}
		finally {
			ToolCallReactiveContextHolder.clearContext();
		}
		assertNull(LoopHandoff.take(), "a streamed loop's slot never sits on the thread");
		return slot.closing;
	}

	// ------------------------------------------------- breach-through-processor

	@Test
	void aProcessorThatRethrowsTheBreachFailsTheBatchBeforeTheNextToolRuns() {
		ToolExecutionExceptionProcessor rethrowing = DefaultToolExecutionExceptionProcessor.builder()
			.rethrowExceptions(List.of(ToolCallLimitExceededException.class))
			.build();
		List<String> ran = new ArrayList<>();
		ToolCallback y = tool("y", in -> {
			ran.add("y");
			return "{}";
		});
		var manager = new FixingToolCallingManager(spring(rethrowing, ToolCallLimitBehavior.RETURN_ERROR_RESPONSE),
				FixSet.of("breach-through-processor", "close-dangling-calls"));
		ToolResponseMessage closing = handedOff(() -> {
			ToolCallLimitBreach e = assertThrows(ToolCallLimitBreach.class,
					() -> manager.executeToolCalls(prompt(X, y), reply("x:c1", "x:c2", "y:c3")));
			assertEquals(BREACH, e.getMessage());
			// ToolCallingAdvisor ends the turn with the breach text and no partial responses.
			assertEquals(BREACH, e.buildGeneration().getOutput().getText());
		});
		assertEquals(List.of(), ran, "the call after the breach never runs");
		assertEquals(List.of("c1", "c2", "c3"), closing.getResponses().stream().map(r -> r.id()).toList());
		assertTrue(closing.getResponses()
			.stream()
			.allMatch(r -> FixingToolCallingManager.NOT_EXECUTED_FAILED.equals(r.responseData())));
		assertEquals(List.of(true, true, true), ToolResponseMarks.marks(closing));
	}

	@Test
	void whatTheProcessorThrowsOnABreachIsNotTakenForTheNextToolsFailure() {
		// spring.ai.tools.throw-exception-on-error=true: the processor throws the
		// ToolExecutionException it is given. Processed once, it fails the batch.
		ToolExecutionExceptionProcessor always = DefaultToolExecutionExceptionProcessor.builder().alwaysThrow(true).build();
		List<ToolExecutionException> seen = new ArrayList<>();
		ToolExecutionExceptionProcessor counting = e -> {
			seen.add(e);
			return always.process(e);
		};
		List<String> ran = new ArrayList<>();
		ToolCallback y = tool("y", in -> {
			ran.add("y");
			return "{}";
		});
		var manager = new FixingToolCallingManager(spring(counting, ToolCallLimitBehavior.RETURN_ERROR_RESPONSE),
				FixSet.of("breach-through-processor"));
		ToolExecutionException e = assertThrows(ToolExecutionException.class,
				() -> manager.executeToolCalls(prompt(X, y), reply("x:c1", "x:c2", "y:c3")));
		assertInstanceOf(ToolCallLimitBreach.class, e.getCause());
		assertEquals(1, seen.size(), "the breach is processed once");
		assertEquals(List.of(), ran);
		// A processor that answers the breach with an exception of its own: that
		// exception fails the batch; it is not the running tool's failure to process.
		ToolExecutionExceptionProcessor wrapping = ex -> {
			if (ex.getCause() instanceof ToolCallLimitExceededException) {
				throw new ToolExecutionException(ex.getToolDefinition(), new IllegalStateException("limit"));
			}
			return "{\"error\":\"" + ex.getCause().getMessage() + "\"}";
		};
		var manager2 = new FixingToolCallingManager(spring(wrapping, ToolCallLimitBehavior.RETURN_ERROR_RESPONSE),
				FixSet.of("breach-through-processor"));
		ToolExecutionException e2 = assertThrows(ToolExecutionException.class,
				() -> manager2.executeToolCalls(prompt(X, y), reply("x:c1", "x:c2", "y:c3")));
		assertEquals("limit", e2.getCause().getMessage());
		assertEquals(List.of(), ran, "y never runs");
	}

	@Test
	void underThrowAProcessorThatThrowsOnTheBreachFailsTheBatch() {
		ToolExecutionExceptionProcessor always = DefaultToolExecutionExceptionProcessor.builder().alwaysThrow(true).build();
		var manager = new FixingToolCallingManager(spring(always, ToolCallLimitBehavior.THROW),
				FixSet.of("breach-through-processor", "close-dangling-calls"));
		ToolResponseMessage closing = handedOff(() -> {
			ToolExecutionException e = assertThrows(ToolExecutionException.class,
					() -> manager.executeToolCalls(prompt(X), reply("x:c1", "x:c2", "x:c3")));
			assertInstanceOf(ToolCallLimitBreach.class, e.getCause());
			assertEquals("x", e.getToolDefinition().name());
		});
		assertEquals(3, closing.getResponses().size());
		assertEquals(FixingToolCallingManager.NOT_EXECUTED_FAILED, closing.getResponses().get(0).responseData());
	}

	@Test
	void underThrowTheProcessedBreachIsTheTurnsTextAndTheClosedCallsFollowIt() {
		ToolExecutionExceptionProcessor json = e -> "{\"error\":\"" + e.getCause().getMessage() + "\"}";
		var manager = new FixingToolCallingManager(spring(json, ToolCallLimitBehavior.THROW),
				FixSet.of("breach-through-processor", "close-dangling-calls"));
		ToolResponseMessage closing = handedOff(() -> {
			ClosedBatchLimitExceededException e = assertThrows(ClosedBatchLimitExceededException.class,
					() -> manager.executeToolCalls(prompt(X), reply("x:c1", "x:c2", "x:c3")));
			assertEquals("{\"error\":\"" + BREACH + "\"}", e.buildGeneration().getOutput().getText());
		});
		assertEquals(List.of("{\"weather\":\"sunny\"}", "{\"error\":\"" + BREACH + "\"}",
				"{\"error\":\"" + FixingToolCallingManager.NOT_EXECUTED + "\"}"),
				closing.getResponses().stream().map(r -> r.responseData()).toList());
		assertEquals(List.of(false, true, true), ToolResponseMarks.marks(closing));
	}

	// ------------------------------------------------- close-dangling-calls

	@Test
	void aBatchThatFailsOnAnUncheckedExceptionHandsEveryCallOffAndStillThrows() {
		ToolCallback boom = tool("boom", in -> {
			throw new IllegalStateException("boom");
		});
		var manager = new FixingToolCallingManager(spring(SPRING, ToolCallLimitBehavior.THROW),
				FixSet.of("close-dangling-calls"));
		ToolResponseMessage closing = handedOff(() -> assertThrows(IllegalStateException.class,
				() -> manager.executeToolCalls(prompt(X, boom), reply("x:c1", "boom:c2"))));
		assertEquals(List.of("c1", "c2"), closing.getResponses().stream().map(r -> r.id()).toList());
		assertEquals(List.of(true, true), ToolResponseMarks.marks(closing));
	}

	@Test
	void aCheckedExceptionAToolThrowsUndeclaredStillReachesTheCaller() {
		ToolCallback sneaky = tool("sneaky", in -> {
			throw FixingToolCallingManagerTests.<RuntimeException>sneaky(new java.io.IOException("disk"));
		});
		var manager = new FixingToolCallingManager(spring(SPRING, ToolCallLimitBehavior.THROW),
				FixSet.of("close-dangling-calls"));
		ToolResponseMessage closing = handedOff(() -> {
			Throwable t = assertThrows(Throwable.class, () -> manager.executeToolCalls(prompt(sneaky), reply("sneaky:c1")));
			assertInstanceOf(java.io.IOException.class, t);
		});
		assertEquals(FixingToolCallingManager.NOT_EXECUTED_FAILED, closing.getResponses().get(0).responseData());
	}

	@SuppressWarnings("unchecked")
	static <E extends Throwable> E sneaky(Throwable t) throws E {
		throw (E) t;
	}

	@Test
	void aReturnDirectBatchHandsItsToolMessageOff() {
		ToolCallback direct = tool("direct", true, in -> "done");
		var manager = new FixingToolCallingManager(spring(SPRING, ToolCallLimitBehavior.THROW),
				FixSet.of("close-dangling-calls"));
		ToolExecutionResult[] result = new ToolExecutionResult[1];
		ToolResponseMessage closing = handedOff(
				() -> result[0] = manager.executeToolCalls(prompt(direct), reply("direct:c1")));
		assertTrue(result[0].returnDirect());
		assertNotNull(closing);
		assertEquals("done", closing.getResponses().get(0).responseData());
		assertEquals(List.of(false), ToolResponseMarks.marks(closing));
		// A batch the loop continues from hands nothing off.
		assertNull(handedOff(() -> manager.executeToolCalls(prompt(X), reply("x:c1"))));
	}

	/**
	 * A tool that itself runs a batch through {@code manager} (a chat model's own
	 * tool execution, say) and copes with its failure.
	 */
	static ToolCallback runsAFailingBatch(ToolCallingManager manager) {
		return tool("outer", in -> {
			try {
				manager.executeToolCalls(prompt(X), reply("missing:n1"));
				return "{\"nested\":\"ok\"}";
			}
			catch (IllegalStateException e) {
				return "{\"nested\":\"failed\"}";
			}
		});
	}

	@Test
	void onAStreamedLoopABatchThatFailsHandsEveryCallOffThroughTheContext() {
		ToolCallback boom = tool("boom", in -> {
			throw new IllegalStateException("boom");
		});
		var manager = new FixingToolCallingManager(spring(SPRING, ToolCallLimitBehavior.THROW),
				FixSet.of("close-dangling-calls"));
		ToolResponseMessage closing = streamedHandedOff(() -> assertThrows(IllegalStateException.class,
				() -> manager.executeToolCalls(prompt(X, boom), reply("x:c1", "boom:c2"))));
		assertNotNull(closing);
		assertEquals(List.of("c1", "c2"), closing.getResponses().stream().map(r -> r.id()).toList());
	}

	@Test
	void aNestedCallWhoseBatchFailsInsideAToolOfAStreamedLoopDoesNotHandOffIntoIt() {
		var manager = new FixingToolCallingManager(spring(SPRING, ToolCallLimitBehavior.THROW),
				FixSet.of("close-dangling-calls"));
		// The nested batch runs on the same thread, with the same Reactor context.
		ToolCallback outer = runsAFailingBatch(manager);
		ToolExecutionResult[] result = new ToolExecutionResult[1];
		ToolResponseMessage closing = streamedHandedOff(
				() -> result[0] = manager.executeToolCalls(prompt(outer), reply("outer:c1")));
		assertEquals("{\"nested\":\"failed\"}", last(result[0]).getResponses().get(0).responseData());
		assertNull(closing, "the outer batch continues the loop: nothing to hand off, least of all n1's answer");
		// The next batch of the streamed loop hands off again.
		assertNotNull(streamedHandedOff(() -> assertThrows(IllegalStateException.class,
				() -> manager.executeToolCalls(prompt(X), reply("missing:c2")))));
	}

	@Test
	void aNestedCallWhoseBatchFailsInsideAToolDoesNotHandOffIntoTheOuterLoop() {
		var manager = new FixingToolCallingManager(spring(SPRING, ToolCallLimitBehavior.THROW),
				FixSet.of("close-dangling-calls"));
		ToolCallback outer = runsAFailingBatch(manager);
		ToolExecutionResult[] result = new ToolExecutionResult[1];
		ToolResponseMessage closing = handedOff(
				() -> result[0] = manager.executeToolCalls(prompt(outer), reply("outer:c1")));
		assertEquals("{\"nested\":\"failed\"}", last(result[0]).getResponses().get(0).responseData());
		assertNull(closing, "the outer batch continues the loop: nothing to hand off, least of all n1's answer");
	}

	// ------------------------------------------------- marks

	@Test
	void aToolThatInvokesAnotherRecordingToolDoesNotShiftTheBatchsMarks() {
		ToolCallback inner = tool("inner", in -> "{}");
		ToolCallbackResolver resolver = FixingToolCallingManager
			.recordingResolver(new StaticToolCallbackResolver(List.of(inner)));
		// A composite tool: it runs another tool it resolves by name, then fails.
		ToolCallback composite = tool("composite", in -> {
			resolver.resolve("inner").call("{}");
			throw new ToolExecutionException(inner.getToolDefinition(), new IllegalArgumentException("bad input"));
		});
		ToolCallback plain = tool("plain", in -> "{\"ok\":true}");
		var manager = new FixingToolCallingManager(spring(SPRING, ToolCallLimitBehavior.THROW), FixSet.none());
		ToolResponseMessage m = last(manager.executeToolCalls(prompt(composite, plain), reply("composite:c1", "plain:c2")));
		assertEquals("bad input", m.getResponses().get(0).responseData());
		assertEquals(List.of(true, false), ToolResponseMarks.marks(m));
	}

	@Test
	void errorMarksSurviveTheMessageWindowMemory() {
		var manager = new FixingToolCallingManager(spring(SPRING, ToolCallLimitBehavior.RETURN_ERROR_RESPONSE),
				FixSet.none());
		ToolResponseMessage m = last(manager.executeToolCalls(prompt(X), reply("x:c1", "x:c2")));
		assertEquals(List.of(false, true), ToolResponseMarks.marks(m));
		var memory = MessageWindowChatMemory.builder().build();
		memory.add("c", List.of(new UserMessage("q"), m));
		ToolResponseMessage stored = assertInstanceOf(ToolResponseMessage.class, memory.get("c").get(1));
		assertEquals(List.of(false, true), ToolResponseMarks.marks(stored));
		// The marked breach that is no JSON object goes under "error", the tool's own under nothing.
		var sent = (ToolResponseMessage) new GeminiSafeToolResponseAdvisor(FixSet.of("error-key")).rewrite(List.<Message>of(stored))
			.get(0);
		assertEquals("{\"weather\":\"sunny\"}", sent.getResponses().get(0).responseData());
		assertEquals("{\"error\":\"" + BREACH + "\"}", sent.getResponses().get(1).responseData());
	}

	@Test
	void theManagerProcessesWithTheProcessorItsDelegateWasBuiltWith() {
		ToolExecutionExceptionProcessor json = e -> "{\"error\":\"" + e.getCause().getMessage() + "\"}";
		ToolCallingManager delegate = spring(json, ToolCallLimitBehavior.RETURN_ERROR_RESPONSE);
		var manager = new FixingToolCallingManager(delegate, FixSet.of("breach-through-processor"));
		ToolResponseMessage m = last(manager.executeToolCalls(prompt(X), reply("x:c1", "x:c2")));
		assertEquals("{\"error\":\"" + BREACH + "\"}", m.getResponses().get(1).responseData());
		assertSame(delegate, manager.getDelegate());
		assertFalse(ToolResponseMarks.isError(m, 0));
	}

}
