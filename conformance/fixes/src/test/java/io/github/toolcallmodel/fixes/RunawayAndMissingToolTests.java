package io.github.toolcallmodel.fixes;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.DefaultToolCallingManager;
import org.springframework.ai.model.tool.ToolCallLimitBehavior;
import org.springframework.ai.model.tool.ToolCallLimitExceededException;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolExecutionResult;
import org.springframework.ai.tool.execution.DefaultToolExecutionExceptionProcessor;
import org.springframework.ai.tool.execution.ToolExecutionException;

import static io.github.toolcallmodel.fixes.FixingToolCallingManagerTests.BREACH;
import static io.github.toolcallmodel.fixes.FixingToolCallingManagerTests.SPRING;
import static io.github.toolcallmodel.fixes.FixingToolCallingManagerTests.X;
import static io.github.toolcallmodel.fixes.FixingToolCallingManagerTests.last;
import static io.github.toolcallmodel.fixes.FixingToolCallingManagerTests.prompt;
import static io.github.toolcallmodel.fixes.FixingToolCallingManagerTests.reply;
import static io.github.toolcallmodel.fixes.FixingToolCallingManagerTests.spring;
import static io.github.toolcallmodel.fixes.FixingToolCallingManagerTests.tool;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@code end-turn-after-breach} and {@code unknown-tool-to-processor} on
 * Spring's real {@code DefaultToolCallingManager}.
 */
class RunawayAndMissingToolTests {

	static FixingToolCallingManager fixes(DefaultToolCallingManager spring, boolean endTurn, boolean missing) {
		Set<String> on = new HashSet<>();
		if (endTurn) {
			on.add("end-turn-after-breach");
		}
		if (missing) {
			on.add("unknown-tool-to-processor");
		}
		return new FixingToolCallingManager(spring, SPRING, FixSet.of(on));
	}

	/** The turn after a batch that breached: the question, the call, its breach response. */
	static Prompt afterBreach() {
		List<Message> history = new ArrayList<>();
		history.add(new UserMessage("q"));
		history.add(AssistantMessage.builder()
			.content("")
			.toolCalls(List.of(new AssistantMessage.ToolCall("c1", "function", "x", "{}"),
					new AssistantMessage.ToolCall("c2", "function", "x", "{}")))
			.build());
		history.add(ToolResponseMessage.builder()
			.responses(List.of(new ToolResponseMessage.ToolResponse("c1", "x", "{}"),
					new ToolResponseMessage.ToolResponse("c2", "x", BREACH)))
			.build());
		return new Prompt(history, ToolCallingChatOptions.builder().toolCallbacks(List.of(X)).build());
	}

	@Test
	void theFirstBreachOfATurnIsAnsweredAndTheTurnGoesOn() {
		var m = fixes(spring(SPRING, ToolCallLimitBehavior.RETURN_ERROR_RESPONSE), true, false);
		ToolExecutionResult r = m.executeToolCalls(prompt(X), reply("x:c1", "x:c2"));
		assertEquals(BREACH, last(r).getResponses().get(1).responseData());
	}

	@Test
	void aSecondBreachEndsTheTurnWithTheWholeBatchAnswered() {
		var m = fixes(spring(SPRING, ToolCallLimitBehavior.RETURN_ERROR_RESPONSE), true, false);
		var y = tool("y", in -> "{\"y\":1}");
		Prompt p = afterBreach();
		p = new Prompt(p.getInstructions(), ToolCallingChatOptions.builder().toolCallbacks(List.of(X, y)).build());
		Prompt finalPrompt = p;
		var e = assertThrows(ToolCallLimitExceededException.class,
				() -> m.executeToolCalls(finalPrompt, reply("y:c3", "x:c4")));
		ToolResponseMessage answered = last(e.getPartialToolExecutionResult());
		assertEquals(2, answered.getResponses().size());
		assertEquals("{\"y\":1}", answered.getResponses().get(0).responseData());
		Generation g = e.buildGeneration();
		assertEquals(BREACH, g.getOutput().getText());
		assertEquals(List.of(answered.getResponses().get(0)),
				g.getMetadata().get(ToolCallLimitExceededException.METADATA_PARTIAL_TOOL_RESPONSES));
	}

	@Test
	void withoutTheFixASecondBreachIsAnsweredToo() {
		var m = fixes(spring(SPRING, ToolCallLimitBehavior.RETURN_ERROR_RESPONSE), false, false);
		ToolExecutionResult r = m.executeToolCalls(afterBreach(), reply("x:c3"));
		assertEquals(BREACH, last(r).getResponses().get(0).responseData());
	}

	@Test
	void aMissingToolIsAnsweredByTheProcessorAndTheBatchGoesOn() {
		var m = fixes(spring(SPRING, ToolCallLimitBehavior.THROW), false, true);
		ToolExecutionResult r = m.executeToolCalls(prompt(X), reply("nope:c1", "x:c2"));
		List<ToolResponseMessage.ToolResponse> responses = last(r).getResponses();
		assertEquals("No ToolCallback found for tool name: nope", responses.get(0).responseData());
		assertEquals("{\"weather\":\"sunny\"}", responses.get(1).responseData());
		assertFalse(r.returnDirect());
		assertEquals(List.of(true, false), ToolResponseMarks.marks(last(r)));
	}

	@Test
	void aProcessorThatThrowsFailsTheBatchWithTheMissingToolsException() {
		var always = DefaultToolExecutionExceptionProcessor.builder().alwaysThrow(true).build();
		var spring = DefaultToolCallingManager.builder().toolExecutionExceptionProcessor(always).build();
		var m = new FixingToolCallingManager(spring, always, FixSet.of("unknown-tool-to-processor"));
		var e = assertThrows(ToolExecutionException.class, () -> m.executeToolCalls(prompt(X), reply("nope:c1")));
		assertEquals("No ToolCallback found for tool name: nope", e.getMessage());
		assertInstanceOf(IllegalStateException.class, e.getCause());
	}

	@Test
	void withoutTheFixAMissingToolEndsTheCall() {
		var m = fixes(spring(SPRING, ToolCallLimitBehavior.THROW), false, false);
		var e = assertThrows(IllegalStateException.class, () -> m.executeToolCalls(prompt(X), reply("nope:c1")));
		assertEquals("No ToolCallback found for tool name: nope", e.getMessage());
	}

}
