package io.github.toolcallmodel.fixes;

/**
 * Whether the deeper runs are asked for: {@code TOOLCALL_DEEP_TESTS=1}, as for
 * the Rust differentials (docs/TESTING.md; {@code .ci/run} sets it for its
 * deeper-runs stage, Maven and surefire pass the environment on). A plain run
 * takes a deterministic share of the longest tests; the deep run takes all of
 * it.
 */
final class DeepTests {

	private DeepTests() {
	}

	static boolean deep() {
		return "1".equals(System.getenv("TOOLCALL_DEEP_TESTS"));
	}

	/**
	 * Whether the row {@code index} of a table is run: every row in the deep
	 * run, else every third, from {@code offset} (0 to 2), so that the share
	 * crosses each table's inner columns (which repeat every 2 or 4 rows).
	 */
	static boolean runs(int index, int offset) {
		return deep() || index % 3 == offset;
	}

}
