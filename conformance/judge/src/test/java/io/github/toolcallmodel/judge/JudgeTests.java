package io.github.toolcallmodel.judge;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The module answers on the JVM, compiled and interpreted alike. */
class JudgeTests {

	private static final String INSIDE = "{\"memory\": \"inside\", \"tools\": \"text\"}";

	/**
	 * The interpreter runs the module the jar carries, as the compiled classes
	 * do; on facts it refuses early, since a whole verdict takes it seconds
	 * (BENCHMARKS.md, section 10).
	 */
	@Test
	void compiledAndInterpretedGiveTheSameAnswer() {
		String facts = "{\"memory\": \"inside\", \"memory_window\": 0}";
		String compiled = Judge.load().judge(facts);
		assertThat(Judge.loadInterpreted().judge(facts)).isEqualTo(compiled);
		assertThat(compiled).contains("maxMessages must be greater than 0");
	}

	@Test
	void aPathWithTheMemoryInsideIsNotSafeUpstream() {
		assertThat(Judge.load().judge(INSIDE)).contains("\"set\":\"upstream\"").contains("\"exit\":1");
	}

	@Test
	void aSafeSetupPassesTheGate() {
		String answer = Judge.load()
			.judge("{\"limits\": {\"on_limit_exceeded\": \"RETURN_ERROR_RESPONSE\"}, \"tools\": \"json\", "
					+ "\"provider\": \"none\", \"fixes\": \"all\"}");
		assertThat(answer).contains("\"set\":\"all\"").contains("\"exit\":0");
	}

	@Test
	void factsThatDoNotReadAreAnErrorAnswer() {
		Judge judge = Judge.load();
		assertThat(judge.judge("{\"memory\": \"nowhere\"}"))
			.isEqualTo("{\"error\":\"memory: 'nowhere': use none, outside or inside\"}");
		assertThat(judge.judge("not json")).startsWith("{\"error\":\"the facts do not read");
		// The judge is still whole after an error.
		assertThat(judge.judge(INSIDE)).contains("\"exit\":1");
	}

	@Test
	void checkAnswersAsTheCommand() {
		String answer = Judge.load()
			.check("{\"files\": [{\"name\": \"application.properties\", \"text\": \"\"}], \"args\": [\"--memory\", \"inside\"]}");
		assertThat(answer).startsWith("{\"exit\":1,\"stdout\":\"");
	}

	/**
	 * The warm-up asks a path's question the module reads (no error answer), and
	 * leaves the judge answering as a fresh one does.
	 */
	@Test
	void theWarmUpIsAPathsQuestionAndChangesNoAnswer() {
		Judge judge = Judge.load();
		String warmUp = judge.judge(Judge.WARM_UP);
		assertThat(warmUp).contains("\"asked\":{").doesNotContain("\"error\"").doesNotContain("\"sets\"");
		assertThat(judge.warmUp()).isSameAs(judge);
		assertThat(judge.judge(INSIDE)).isEqualTo(Judge.load().judge(INSIDE));
	}

}
