package toolcallmodel.conformance;

import java.util.ArrayList;
import java.util.List;

import io.github.toolcallmodel.fixes.FixSet;
import io.github.toolcallmodel.fixes.FixTable;

/**
 * A vector's {@code fixes}: a list of fix names or {@code "all"} (every fix
 * whose {@code in_all} is true); absent or empty is upstream. Each is
 * installed from the fix library (conformance/fixes). The names, which
 * {@code all} holds and the beans each fix changes are the model's fix
 * table, read by the fix libraries' own reader ({@link FixTable}, from
 * conformance/fixes-common), not a list of this runner's.
 */
record Fixes(FixSet on) {

	static final Fixes UPSTREAM = new Fixes(FixSet.none());

	static Fixes of(Object v) {
		if (v == null) {
			return UPSTREAM;
		}
		if ("all".equals(v)) {
			return new Fixes(FixSet.all());
		}
		FixSet on = FixSet.none();
		List<Object> list = Json.arr(v, "/fixes");
		for (int i = 0; i < list.size(); i++) {
			String name = Json.str(list.get(i), "/fixes/" + i);
			if (name.equals("all")) {
				on = on.or(FixSet.all());
			}
			else if (FixTable.has(name)) {
				on = on.or(FixSet.of(name));
			}
			else {
				throw new Json.Fault("/fixes/" + i + ": unknown fix '" + name + "' (known: "
						+ new ArrayList<>(FixTable.names()) + ")");
			}
		}
		return new Fixes(on);
	}

	/** Whether the fix named {@code name} is on. */
	boolean has(String name) {
		return this.on.has(name);
	}

	boolean any() {
		return !this.on.isEmpty();
	}

	/** The manager is wrapped by the fix library's FixingToolCallingManager. */
	boolean wrapsManager() {
		return this.on.changes("manager");
	}

	/** Gemini's conversion of tool responses is a fixed one (the advisor rewrites what is sent). */
	boolean geminiConversion() {
		return this.on.changes("chat-model");
	}

	/** The window is the fix library's TurnKeepingWindowChatMemory. */
	boolean window() {
		return this.on.changes("window");
	}

	/** The memory is wrapped in the fix library's AnsweredGenerationChatMemory. */
	boolean storesAnswered() {
		return this.on.changes("memory");
	}

	/** The tool advisor is the fix library's FixingToolCallingAdvisor. */
	boolean toolAdvisor() {
		return this.on.changes("tool-advisor");
	}

}
