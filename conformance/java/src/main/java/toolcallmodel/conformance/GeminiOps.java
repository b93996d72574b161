package toolcallmodel.conformance;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.google.genai.GeminiBridge;

/**
 * convert_tool_response and gemini_request on the real GoogleGenAiChatModel
 * (through {@link GeminiBridge}). The validator's {@code api} verdict has no
 * Java counterpart and is not printed; {@code input.error}, the model's own
 * failure mark, has none either and is ignored, as upstream does. The
 * vector's manager is built through the real builder first, so that a
 * configuration it refuses fails as {@code toolcall-model run} reports it
 * (the request building itself does not use the manager).
 */
final class GeminiOps {

	private GeminiOps() {
	}

	/**
	 * The history as Spring messages. A message Spring's own constructors
	 * refuse (a user or system message with null text, for one) cannot reach
	 * the request building at all: the vector is out of scope.
	 */
	private static List<Message> history(Object v) {
		try {
			return Scenario.messages(v, "/input/history");
		}
		catch (IllegalArgumentException e) {
			StackTraceElement[] at = e.getStackTrace();
			if (at.length > 0 && at[0].getClassName().equals("org.springframework.util.Assert")) {
				throw new Json.OutOfScope("Spring AI " + Upstream.VERSION + " refuses to build a message of this history: " + e.getMessage());
			}
			throw e;
		}
	}

	/**
	 * Puts what {@code body} gives under {@code key}, or the exception the real
	 * classes threw under {@code "error"}; a fault of the vector passes through.
	 * The manager is built first in both ops so that a refused configuration
	 * fails as it does in the model.
	 */
	private static void resultOrError(Map<String, Object> out, String key, java.util.function.Supplier<Object> body) {
		try {
			out.put(key, body.get());
		}
		catch (Json.Fault | Json.OutOfScope e) {
			throw e;
		}
		catch (RuntimeException e) {
			out.put("error", Scenario.printError(e));
		}
	}

	/** The Gemini request of {@code messages}, with the vector's fixed conversion if any. */
	static Map<String, Object> request(Fixes f, List<Message> messages) {
		return Upstream.request(f, messages);
	}

	static Map<String, Object> run(Scenario s, String op, Map<String, Object> input) {
		Map<String, Object> out = new LinkedHashMap<>();
		switch (op) {
			case "convert_tool_response" -> {
				Object text = input.get("text");
				if (!(text instanceof String t)) {
					throw new Json.Fault("/input/text: must be a string");
				}
				boolean error = Json.bool(input.get("error"), false, "/input/error");
				Fixes f = s.fixes;
				resultOrError(out, "response", () -> {
					s.buildManager();
					return Upstream.convert(f, t, error);
				});
			}
			case "gemini_request" -> {
				var history = history(input.get("history"));
				resultOrError(out, "request", () -> {
					s.buildManager();
					return request(s.fixes, history);
				});
			}
			default -> throw new Json.Fault("/op: not a Gemini op: " + op);
		}
		out.put("invocations", s.invocations);
		return out;
	}

}
