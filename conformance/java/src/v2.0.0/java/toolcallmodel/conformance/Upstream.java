package toolcallmodel.conformance;

import java.util.List;
import java.util.Map;

import org.springframework.ai.chat.client.advisor.ToolCallingAdvisor;
import org.springframework.ai.chat.client.advisor.api.Advisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.InMemoryChatMemoryRepository;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.google.genai.GeminiBridge;
import org.springframework.ai.model.tool.DefaultToolCallingManager;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.tool.execution.DefaultToolExecutionExceptionProcessor;
import org.springframework.ai.tool.execution.ToolExecutionExceptionProcessor;
import org.springframework.ai.tool.resolution.ToolCallbackResolver;

/**
 * What the runner does on Spring AI 2.0.0: the same methods as the 2.0.1
 * class of this name (src/v2.0.1), without what 2.0.0 does not have. Its
 * {@code DefaultToolCallingManager.Builder} has no tool call limits and no
 * {@code resolutionFallbackEnabled} (the manager always asks its resolver for
 * a tool not among the request's), there is no
 * {@code ToolCallLimitExceededException}, and the fix library, written
 * against 2.0.1, is not on this classpath: a vector that asks for any of
 * these is a fault, as the Rust reader refuses it.
 */
final class Upstream {

	/** The Spring AI version this runner is built against. */
	static final String VERSION = "2.0.0";

	private static final List<String> SINCE_2_0_1 = List.of("max_calls_per_tool", "max_calls_per_tool_overrides",
			"exclude_from_limit", "max_total_tool_calls", "on_limit_exceeded", "builder", "resolution_fallback");

	private Upstream() {
	}

	/** Refuses what 2.0.0 cannot express: fixes, limits, resolution fallback. */
	static void check(Map<String, Object> vector) {
		if (Fixes.of(vector.get("fixes")).any()) {
			throw new Json.Fault("/fixes: the fixes are written for Spring AI 2.0.1; a 2.0.0 vector is upstream");
		}
		Map<String, Object> m = Json.obj(vector.get("manager"), "/manager");
		for (String k : SINCE_2_0_1) {
			if (m.get(k) != null) {
				throw new Json.Fault("/manager/" + k
						+ ": Spring AI 2.0.0's DefaultToolCallingManager.Builder has no such method");
			}
		}
	}

	/** Nothing to configure: {@link #check} refused every key this would read. */
	static void limits(DefaultToolCallingManager.Builder b, Map<String, Object> m) {
	}

	static ToolCallbackResolver resolver(ToolCallbackResolver resolver, Fixes f) {
		return resolver;
	}

	static ToolCallingManager manager(DefaultToolCallingManager manager, ToolExecutionExceptionProcessor processor,
			Fixes f) {
		return manager;
	}

	/** The model's failure mark is read only by a fix: upstream ignores it. */
	/**
	 * The seed's JSON-error processor, written here: the fix library is for
	 * 2.0.1. Spring's decisions, the text as {"error": MESSAGE}.
	 */
	static ToolExecutionExceptionProcessor jsonErrorProcessor(DefaultToolExecutionExceptionProcessor decisions) {
		tools.jackson.databind.json.JsonMapper json = tools.jackson.databind.json.JsonMapper.builder().build();
		return e -> json.writeValueAsString(Map.of("error", decisions.process(e)));
	}

	static ToolResponseMessage marked(ToolResponseMessage tool, List<Boolean> errors) {
		return tool;
	}

	/** No limit breach exists in 2.0.0. */
	static void breach(Throwable t, Map<String, Object> out) {
	}

	/** No limit breach exists in 2.0.0. */
	static String limitFinishReason() {
		return null;
	}

	static ChatMemory memory(InMemoryChatMemoryRepository repository, Integer maxMessages, Fixes f) {
		var b = MessageWindowChatMemory.builder().chatMemoryRepository(repository);
		if (maxMessages != null) {
			b.maxMessages(maxMessages);
		}
		return b.build();
	}

	static ToolCallingAdvisor.Builder<?> toolAdvisor(Fixes f) {
		return ToolCallingAdvisor.builder();
	}

	static Advisor geminiAdvisor(Fixes f) {
		return null;
	}

	static Map<String, Object> sent(Fixes f, List<Message> instructions) {
		return GeminiBridge.request(instructions);
	}

	static Map<String, Object> request(Fixes f, List<Message> messages) {
		return GeminiBridge.request(messages);
	}

	static Object convert(Fixes f, String text, boolean error) {
		return GeminiBridge.convert(text);
	}

	/** tool_loop: ChatClient with ToolCallingAdvisor ({@link LoopOp}). */
	static Map<String, Object> toolLoop(Scenario s, Map<String, Object> input, boolean geminiToolText,
			boolean feedback) {
		return LoopOp.run(s, input, geminiToolText, feedback);
	}

}
