package toolcallmodel.conformance;

import java.util.Map;

import org.springframework.ai.chat.client.advisor.ToolCallingAdvisor;

/**
 * What the runner does on Spring AI 2.0.0: the same methods as the 2.0.1
 * class of this name (src/v2.0.1), without what 2.0.0 does not have. Its
 * {@code DefaultToolCallingManager.Builder} has no tool call limits and no
 * {@code resolutionFallbackEnabled} (the manager always asks its resolver for
 * a tool not among the request's), there is no
 * {@code ToolCallLimitExceededException}, and the fix library, written
 * against 2.0.1, is not on this classpath: a vector that asks for any of
 * these is a fault, as the Rust reader refuses it. What 2.0.0 shares with
 * 1.1.2 is {@link Unfixed}'s (src/unfixed); what is its own is here.
 */
final class Upstream extends Unfixed {

	/** The Spring AI version this runner is built against. */
	static final String VERSION = "2.0.0";

	private Upstream() {
	}

	/** Refuses what 2.0.0 cannot express: fixes, limits, resolution fallback. */
	static void check(Map<String, Object> vector) {
		check(vector, VERSION);
	}

	static ToolCallingAdvisor.Builder<?> toolAdvisor(Fixes f) {
		return ToolCallingAdvisor.builder();
	}

	/** tool_loop: ChatClient with ToolCallingAdvisor ({@link LoopOp}). */
	static Map<String, Object> toolLoop(Scenario s, Map<String, Object> input, boolean geminiToolText,
			boolean feedback) {
		return LoopOp.run(s, input, geminiToolText, feedback);
	}

}
