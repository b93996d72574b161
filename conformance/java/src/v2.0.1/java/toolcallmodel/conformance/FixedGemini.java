package toolcallmodel.conformance;

import java.util.List;
import java.util.Map;

import io.github.toolcallmodel.fixes.GeminiSafeToolResponseAdvisor;
import io.github.toolcallmodel.fixes.GeminiToolResponses;
import io.github.toolcallmodel.fixes.ToolResponseMarks;

import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.google.genai.GeminiBridge;

/**
 * Gemini's conversion with the fixes {@code strict-json-or-wrap} and
 * {@code error-key} (and the upstream pull requests 6049 and 6907, whose
 * payload is Spring's own conversion of what the advisor sends): the fix library's {@link GeminiSafeToolResponseAdvisor}
 * rewrites what is sent, Spring's own request building converts it, and each
 * tool response's payload is then the exact one of
 * {@link GeminiToolResponses#payload} (numbers as written), which stands in for
 * {@code parseJsonToMap}: no code outside the jar can keep a decimal exact. The
 * real conversion of the rewritten data must agree with it but for decimals a
 * double rounds, except where the advisor had to send the text (over Jackson's
 * limits).
 */
final class FixedGemini {

	private FixedGemini() {
	}

	/** The request of {@code messages} as the advisor sends them. */
	static Map<String, Object> request(Fixes f, List<Message> messages) {
		return sent(f, advisor(f).rewrite(messages));
	}

	/** The fix library's advisor with the vector's switches. */
	static GeminiSafeToolResponseAdvisor advisor(Fixes f) {
		return new GeminiSafeToolResponseAdvisor(f.on());
	}

	/** The request of messages the advisor already rewrote. */
	static Map<String, Object> sent(Fixes f, List<Message> sent) {
		return GeminiBridge.request(sent, (tool, j) -> payload(f, tool, j));
	}

	private static GeminiBridge.Payload payload(Fixes f, ToolResponseMessage tool, int j) {
		String data = GeminiSafeToolResponseAdvisor.originalData(tool, j);
		boolean error = ToolResponseMarks.isError(tool, j);
		Map<String, Object> exact = GeminiToolResponses.payload(data, error, f.on());
		return new GeminiBridge.Payload(exact,
				!GeminiToolResponses.rewriteFallsBack(data, error, f.on()));
	}

	/** One tool response's payload, converted as {@link #request} converts it. */
	static Object convert(Fixes f, String text, boolean error) {
		Map<String, Object> exact = GeminiToolResponses.payload(text, error, f.on());
		Map<String, Object> real = GeminiBridge
			.convert(GeminiToolResponses.rewrite(text, error, f.on()));
		if (exact == null) {
			return real;
		}
		Object printed = GeminiBridge.value(exact);
		if (!GeminiToolResponses.rewriteFallsBack(text, error, f.on())
				&& !GeminiBridge.sameButDoubles(real, printed)) {
			throw new IllegalStateException("runner: the fix library's advisor sends a tool response that Spring's "
					+ "conversion reads as " + real + ", not as the fixed conversion's " + printed);
		}
		return printed;
	}

}
