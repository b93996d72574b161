package toolcallmodel.conformance;

import java.util.Map;

/**
 * What the runner does on Spring AI 1.1.2: the same methods as the 2.0.0
 * class of this name (src/v2.0.0). As in 2.0.0, its
 * {@code DefaultToolCallingManager.Builder} has no tool call limits and no
 * {@code resolutionFallbackEnabled}, and the fix library is not on this
 * classpath: a vector that asks for any of these is a fault, as the Rust
 * reader refuses it; that much is {@link Unfixed}'s (src/unfixed). There is
 * no {@code ToolCallingAdvisor}: the tool loop runs inside each chat model
 * ({@code GoogleGenAiChatModel#internalCall}), which {@link ChatModelLoop}
 * drives against a loopback Gemini API stub. Gemini's conversion is the real
 * 1.1.2 code on Jackson 2 ({@code ModelOptionsUtils.OBJECT_MAPPER}).
 */
final class Upstream extends Unfixed {

	/** The Spring AI version this runner is built against. */
	static final String VERSION = "1.1.2";

	private static final String NAME = "Spring AI " + VERSION;

	private Upstream() {
	}

	/** Refuses what 1.1.2 cannot express: fixes, limits, resolution fallback. */
	static void check(Map<String, Object> vector) {
		check(vector, VERSION);
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
