package toolcallmodel.conformance;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.toolcallmodel.fixes.AnsweredGenerationChatMemory;
import io.github.toolcallmodel.fixes.FixingToolCallingAdvisor;
import io.github.toolcallmodel.fixes.FixingToolCallingManager;
import io.github.toolcallmodel.fixes.GeminiSafeToolResponseAdvisor;
import io.github.toolcallmodel.fixes.ToolCallLimitBreach;
import io.github.toolcallmodel.fixes.ToolResponseMarks;
import io.github.toolcallmodel.fixes.TurnKeepingWindowChatMemory;

import org.springframework.ai.chat.client.advisor.ToolCallingAdvisor;
import org.springframework.ai.chat.client.advisor.api.Advisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.InMemoryChatMemoryRepository;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.google.genai.GeminiBridge;
import org.springframework.ai.model.tool.DefaultToolCallingManager;
import org.springframework.ai.model.tool.ToolCallLimitBehavior;
import org.springframework.ai.model.tool.ToolCallLimitExceededException;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.tool.execution.DefaultToolExecutionExceptionProcessor;
import org.springframework.ai.tool.execution.ToolExecutionExceptionProcessor;
import org.springframework.ai.tool.resolution.ToolCallbackResolver;

/**
 * What the runner does on Spring AI 2.0.1 that it cannot do on another
 * version: the manager's tool call limits and resolution fallback (new in
 * 2.0.1), {@code ToolCallLimitExceededException}, and the fix library, which is
 * written against 2.0.1. The other version's class of the same name
 * (src/v2.0.0) has the same methods; the Maven profile picks one.
 */
final class Upstream {

	/** The Spring AI version this runner is built against. */
	static final String VERSION = "2.0.1";

	private Upstream() {
	}

	/** Nothing this version cannot express: every vector key is known here. */
	static void check(Map<String, Object> vector) {
	}

	/** The limits and the resolution fallback, through the builder, in the vector's call order. */
	static void limits(DefaultToolCallingManager.Builder b, Map<String, Object> m) {
		if (m.get("max_calls_per_tool") != null) {
			perTool(b, m.get("max_calls_per_tool"), "/manager/max_calls_per_tool");
		}
		if (m.get("max_calls_per_tool_overrides") != null) {
			for (var e : Json.obj(m.get("max_calls_per_tool_overrides"), "/manager/max_calls_per_tool_overrides")
				.entrySet()) {
				b.maxCallsPerTool(e.getKey(),
						Json.javaInt(e.getValue(), "/manager/max_calls_per_tool_overrides/" + e.getKey()));
			}
		}
		if (m.get("exclude_from_limit") != null) {
			for (String name : names(m.get("exclude_from_limit"), "/manager/exclude_from_limit")) {
				b.excludeToolFromLimit(name);
			}
		}
		if (m.get("max_total_tool_calls") != null) {
			total(b, m.get("max_total_tool_calls"), "/manager/max_total_tool_calls");
		}
		if (m.get("on_limit_exceeded") != null) {
			String v = Json.str(m.get("on_limit_exceeded"), "/manager/on_limit_exceeded");
			b.onLimitExceeded(ToolCallLimitBehavior.valueOf(v));
		}
		List<Object> calls = Json.arr(m.get("builder"), "/manager/builder");
		for (int i = 0; i < calls.size(); i++) {
			String at = "/manager/builder/" + i;
			Map<String, Object> c = Json.obj(calls.get(i), at);
			if (c.size() != 1) {
				throw new Json.Fault(at + ": each builder call is an object with exactly one key");
			}
			var e = c.entrySet().iterator().next();
			switch (e.getKey()) {
				case "max_calls_per_tool" -> {
					if (e.getValue() instanceof Map<?, ?>) {
						for (var o : Json.obj(e.getValue(), at).entrySet()) {
							b.maxCallsPerTool(o.getKey(), Json.javaInt(o.getValue(), at));
						}
					}
					else {
						perTool(b, e.getValue(), at);
					}
				}
				case "max_total_tool_calls" -> total(b, e.getValue(), at);
				case "exclude_from_limit" -> {
					for (String name : names(e.getValue(), at)) {
						b.excludeToolFromLimit(name);
					}
				}
				case "unlimited_calls_per_tool" -> b.unlimitedCallsPerTool();
				case "unlimited_total_tool_calls" -> b.unlimitedTotalToolCalls();
				default -> throw new Json.Fault(at + ": unknown builder call '" + e.getKey() + "'");
			}
		}
		b.resolutionFallbackEnabled(Json.bool(m.get("resolution_fallback"), false, "/manager/resolution_fallback"));
	}

	private static void perTool(DefaultToolCallingManager.Builder b, Object v, String at) {
		if ("unlimited".equals(v)) {
			b.unlimitedCallsPerTool();
		}
		else {
			b.maxCallsPerTool(Json.javaInt(v, at));
		}
	}

	private static void total(DefaultToolCallingManager.Builder b, Object v, String at) {
		if ("unlimited".equals(v)) {
			b.unlimitedTotalToolCalls();
		}
		else {
			b.maxTotalToolCalls(Json.javaInt(v, at));
		}
	}

	private static List<String> names(Object v, String at) {
		if (v instanceof String s) {
			return List.of(s);
		}
		List<String> out = new ArrayList<>();
		for (Object o : Json.arr(v, at)) {
			out.add(Json.str(o, at));
		}
		return out;
	}

	/** The resolver, recording its lookups when the fix library wraps the manager. */
	static ToolCallbackResolver resolver(ToolCallbackResolver resolver, Fixes f) {
		return f.wrapsManager() ? FixingToolCallingManager.recordingResolver(resolver) : resolver;
	}

	/** The manager, wrapped in the fix library's {@code FixingToolCallingManager} when the fixes change it. */
	static ToolCallingManager manager(DefaultToolCallingManager manager, ToolExecutionExceptionProcessor processor,
			Fixes f) {
		if (!f.wrapsManager()) {
			return manager;
		}
		return new FixingToolCallingManager(manager, processor, f.on());
	}

	/** A tool message with the model's failure marks, as the fix library's marks. */
	/** The seed's JSON-error processor: the fix library's. */
	static ToolExecutionExceptionProcessor jsonErrorProcessor(DefaultToolExecutionExceptionProcessor decisions) {
		return new io.github.toolcallmodel.fixes.JsonErrorToolExecutionExceptionProcessor(decisions);
	}

	static ToolResponseMessage marked(ToolResponseMessage tool, List<Boolean> errors) {
		return errors.contains(true) ? ToolResponseMarks.withMarks(tool, errors) : tool;
	}

	/**
	 * What a limit breach adds to an error ({@code tool_name}, {@code limit},
	 * {@code partial}, {@code generation}); {@link ToolCallLimitBreach}, the
	 * cause the processor saw and rethrew, is a plain exception.
	 */
	static void breach(Throwable t, Map<String, Object> out) {
		if (t instanceof ToolCallLimitExceededException ex && !(t instanceof ToolCallLimitBreach)) {
			out.put("tool_name", ex.getToolName());
			out.put("limit", ex.getLimit());
			out.put("partial", Scenario.printResult(ex.getPartialToolExecutionResult()));
			out.put("generation", Scenario.printGeneration(ex.buildGeneration()));
		}
	}

	/** {@code ToolCallLimitExceededException.FINISH_REASON}. */
	static String limitFinishReason() {
		return ToolCallLimitExceededException.FINISH_REASON;
	}

	/** The chat memory: the real window, or the fix library's under the memory fixes. */
	static ChatMemory memory(InMemoryChatMemoryRepository repository, Integer maxMessages, Fixes f) {
		ChatMemory chatMemory;
		if (f.window()) {
			chatMemory = new TurnKeepingWindowChatMemory(repository,
					maxMessages == null ? TurnKeepingWindowChatMemory.DEFAULT_MAX_MESSAGES : maxMessages,
					f.on());
		}
		else {
			var b = MessageWindowChatMemory.builder().chatMemoryRepository(repository);
			if (maxMessages != null) {
				b.maxMessages(maxMessages);
			}
			chatMemory = b.build();
		}
		return f.storesAnswered() ? new AnsweredGenerationChatMemory(chatMemory) : chatMemory;
	}

	/** The tool advisor's builder: the fix library's under {@code close-dangling-calls}. */
	static ToolCallingAdvisor.Builder<?> toolAdvisor(Fixes f) {
		return f.toolAdvisor() ? FixingToolCallingAdvisor.builder() : ToolCallingAdvisor.builder();
	}

	/** The fix library's Gemini advisor under the Gemini fixes, else null. */
	static Advisor geminiAdvisor(Fixes f) {
		return f.geminiConversion() ? FixedGemini.advisor(f) : null;
	}

	/** The request the chat model builds of what reached it (rewritten by the Gemini advisor under the fixes). */
	static Map<String, Object> sent(Fixes f, List<Message> instructions) {
		return f.geminiConversion() ? FixedGemini.sent(f, instructions) : GeminiBridge.request(instructions);
	}

	/** The Gemini request of {@code messages}, with the vector's fixed conversion if any. */
	static Map<String, Object> request(Fixes f, List<Message> messages) {
		return f.geminiConversion() ? FixedGemini.request(f, messages) : GeminiBridge.request(messages);
	}

	/** One tool response's payload. */
	static Object convert(Fixes f, String text, boolean error) {
		return f.geminiConversion() ? FixedGemini.convert(f, text, error) : GeminiBridge.convert(text);
	}

	/** tool_loop: ChatClient with ToolCallingAdvisor ({@link LoopOp}). */
	static Map<String, Object> toolLoop(Scenario s, Map<String, Object> input, boolean geminiToolText,
			boolean feedback) {
		return LoopOp.run(s, input, geminiToolText, feedback);
	}

}
