package toolcallmodel.conformance;

import java.util.Map;

/** convert_tool_response and gemini_request on the real GoogleGenAiChatModel. */
final class GeminiOps {

	private GeminiOps() {
	}

	static Map<String, Object> run(Scenario s, String op, Map<String, Object> input) {
		throw new Json.OutOfScope(op + " not yet run on the real classes");
	}

}
