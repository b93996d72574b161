package toolcallmodel.conformance;

import java.util.Map;

/** tool_loop on a real ChatClient with ToolCallingAdvisor and the chat memory. */
final class LoopOp {

	private LoopOp() {
	}

	static Map<String, Object> run(Scenario s, Map<String, Object> input) {
		throw new Json.OutOfScope("tool_loop not yet run on the real classes");
	}

}
