package toolcallmodel.conformance;

import java.util.List;
import java.util.Map;

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
 * What the runner does on Spring AI 1.1.2: the same methods as the 2.0.0
 * class of this name (src/v2.0.0). As in 2.0.0, its
 * {@code DefaultToolCallingManager.Builder} has no tool call limits and no
 * {@code resolutionFallbackEnabled}, and the fix library is not on this
 * classpath: a vector that asks for any of these is a fault, as the Rust
 * reader refuses it. There is no {@code ToolCallingAdvisor}: the tool loop
 * runs inside each chat model ({@code GoogleGenAiChatModel#internalCall}),
 * which {@link ChatModelLoop} drives against a loopback Gemini API stub. Gemini's conversion is the real 1.1.2 code on Jackson 2
 * ({@code ModelOptionsUtils.OBJECT_MAPPER}).
 */
final class Upstream {

	/** The Spring AI version this runner is built against. */
	static final String VERSION = "1.1.2";

	private static final List<String> SINCE_2_0_1 = List.of("max_calls_per_tool", "max_calls_per_tool_overrides",
			"exclude_from_limit", "max_total_tool_calls", "on_limit_exceeded", "builder", "resolution_fallback");

	private static final String NAME = "Spring AI " + VERSION;

	private Upstream() {
	}

	/** Refuses what 1.1.2 cannot express: fixes, limits, resolution fallback. */
	static void check(Map<String, Object> vector) {
		if (Fixes.of(vector.get("fixes")).any()) {
			throw new Json.Fault("/fixes: the fixes are written for Spring AI 2.0.1; a " + VERSION + " vector is upstream");
		}
		Map<String, Object> m = Json.obj(vector.get("manager"), "/manager");
		for (String k : SINCE_2_0_1) {
			if (m.get(k) != null) {
				throw new Json.Fault("/manager/" + k
						+ ": " + NAME + "'s DefaultToolCallingManager.Builder has no such method");
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

	/** No limit breach exists before 2.0.1. */
	static void breach(Throwable t, Map<String, Object> out) {
	}

	/** No limit breach exists before 2.0.1. */
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

	/**
	 * No ToolCallingAdvisor in 1.1: the loop is the chat model's own, or 1.1's
	 * ToolCallAdvisor's ({@code "loop": "tool-call-advisor"}), both run by
	 * {@link ChatModelLoop}; an advisor of this project inside it is not
	 * applicable.
	 */
	static Map<String, Object> toolLoop(Scenario s, Map<String, Object> input, boolean geminiToolText,
			boolean feedback) {
		if (geminiToolText || feedback) {
			throw new Json.Fault("/advisors: an advisor inside the tool loop: " + NAME
					+ " has no ToolCallingAdvisor (its tool loop runs inside the chat model): not applicable");
		}
		return ChatModelLoop.run(s, input);
	}

}
