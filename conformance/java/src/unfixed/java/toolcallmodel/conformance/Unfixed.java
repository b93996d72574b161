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
 * What the runner does on a Spring AI without the fix library (1.1.2 and
 * 2.0.0: the library is written against 2.0.1): the methods of
 * {@code Upstream} that are the same on both, upstream's behaviour throughout.
 * This folder is compiled into those two builds only; each one's
 * {@code Upstream} (src/vVERSION) extends this class with what differs, its
 * version and its tool loop, and its callers name these methods through it
 * ({@code Upstream.memory}), as on 2.0.1.
 */
class Unfixed {

	private static final List<String> SINCE_2_0_1 = List.of("max_calls_per_tool", "max_calls_per_tool_overrides",
			"exclude_from_limit", "max_total_tool_calls", "on_limit_exceeded", "builder", "resolution_fallback");

	Unfixed() {
	}

	/** Refuses what Spring AI {@code version} cannot express: fixes, limits, resolution fallback. */
	static void check(Map<String, Object> vector, String version) {
		if (Fixes.of(vector.get("fixes")).any()) {
			throw new Json.Fault("/fixes: the fixes are written for Spring AI 2.0.1; a " + version + " vector is upstream");
		}
		Map<String, Object> m = Json.obj(vector.get("manager"), "/manager");
		for (String k : SINCE_2_0_1) {
			if (m.get(k) != null) {
				throw new Json.Fault("/manager/" + k + ": Spring AI " + version
						+ "'s DefaultToolCallingManager.Builder has no such method");
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

	/**
	 * The seed's JSON-error processor, written here: the fix library is for
	 * 2.0.1. Spring's decisions, the text as {"error": MESSAGE}.
	 */
	static ToolExecutionExceptionProcessor jsonErrorProcessor(DefaultToolExecutionExceptionProcessor decisions) {
		tools.jackson.databind.json.JsonMapper json = tools.jackson.databind.json.JsonMapper.builder().build();
		return e -> json.writeValueAsString(Map.of("error", decisions.process(e)));
	}

	/** The model's failure mark is read only by a fix: upstream ignores it. */
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

}
