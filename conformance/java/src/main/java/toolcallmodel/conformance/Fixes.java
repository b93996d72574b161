package toolcallmodel.conformance;

import java.util.List;

/**
 * A vector's {@code fixes}: a list of fix names or {@code "all"} (every fix
 * but {@link #NOT_IN_ALL}); absent or empty is upstream. Each is
 * installed from the fix library (conformance/fixes).
 */
record Fixes(boolean breachThroughProcessor, boolean strictJsonOrWrap, boolean errorKey, boolean closeDanglingCalls,
		boolean storeAnsweredGeneration, boolean keepCurrentTurn, boolean evictOrphanResponses,
		boolean pr6907WrapOnFailure, boolean pr6049StrictWrap, boolean endTurnAfterBreach,
		boolean unknownToolToProcessor) {

	static final Fixes UPSTREAM = new Fixes(false, false, false, false, false, false, false, false, false, false, false);

	static final List<String> NAMES = List.of("breach-through-processor", "strict-json-or-wrap", "error-key",
			"close-dangling-calls", "store-answered-generation", "keep-current-turn", "evict-orphan-responses",
			"pr-6907-wrap-on-failure", "pr-6049-strict-wrap", "end-turn-after-breach", "unknown-tool-to-processor");

	/**
	 * The fixes {@code all} leaves out (the model's {@code Fix::in_all}): the
	 * upstream proposals modelled for comparison, and unknown-tool-to-processor.
	 */
	static final List<String> NOT_IN_ALL = List.of("evict-orphan-responses", "pr-6907-wrap-on-failure",
			"pr-6049-strict-wrap", "unknown-tool-to-processor");

	static Fixes of(Object v) {
		if (v == null) {
			return UPSTREAM;
		}
		boolean[] on = new boolean[NAMES.size()];
		if ("all".equals(v)) {
			for (int i = 0; i < on.length; i++) {
				on[i] = !NOT_IN_ALL.contains(NAMES.get(i));
			}
		}
		else {
			List<Object> list = Json.arr(v, "/fixes");
			for (int i = 0; i < list.size(); i++) {
				String name = Json.str(list.get(i), "/fixes/" + i);
				if (name.equals("all")) {
					for (int j = 0; j < on.length; j++) {
						on[j] |= !NOT_IN_ALL.contains(NAMES.get(j));
					}
					continue;
				}
				int k = NAMES.indexOf(name);
				if (k < 0) {
					throw new Json.Fault("/fixes/" + i + ": unknown fix '" + name + "' (known: " + NAMES + ")");
				}
				on[k] = true;
			}
		}
		return new Fixes(on[0], on[1], on[2], on[3], on[4], on[5], on[6], on[7], on[8], on[9], on[10]);
	}

	boolean any() {
		return !equals(UPSTREAM);
	}

	/** The manager is wrapped by the fix library's FixingToolCallingManager. */
	boolean wrapsManager() {
		return this.breachThroughProcessor || this.closeDanglingCalls || this.errorKey || this.endTurnAfterBreach
				|| this.unknownToolToProcessor;
	}

	/** Gemini's conversion of tool responses is a fixed one (the advisor rewrites what is sent). */
	boolean geminiConversion() {
		return this.strictJsonOrWrap || this.errorKey || this.pr6907WrapOnFailure || this.pr6049StrictWrap;
	}

	/** The window is the fix library's TurnKeepingWindowChatMemory. */
	boolean window() {
		return this.keepCurrentTurn || this.evictOrphanResponses;
	}

}
