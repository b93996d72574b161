package io.github.toolcallmodel.fixes.test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.toolcallmodel.fixes.RequestPaths;
import io.github.toolcallmodel.fixes.Verdict;
import io.github.toolcallmodel.judge.Judge;
import org.assertj.core.api.AbstractAssert;
import tools.jackson.databind.json.JsonMapper;

/**
 * The gate: {@code assertThat(ToolCallPaths.of(context)).areSafe()} fails the
 * test when a request path it exercised is not safe, naming the path, the
 * scenarios that break and the remedy. Each verdict is toolcall-model check's
 * judge (the WebAssembly module, on Chicory) for the path's facts as the
 * running application bound them.
 *
 * <p>
 * Findings the team accepts are named as {@code toolcall-model check
 * --accept} names them (docs/CHECK.md), one line each, here or for the
 * whole application in {@code toolcall.fixes.judge.accept} (the gate takes
 * both):
 *
 * <pre>{@code
 * assertThat(ToolCallPaths.of(context))
 *     .accepting("text+call dropped # the streamed reply's text is not needed")
 *     .areSafe();
 * }</pre>
 */
public final class ToolCallPathsAssert extends AbstractAssert<ToolCallPathsAssert, ToolCallPaths> {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private final List<String> accepted = new ArrayList<>();

	ToolCallPathsAssert(ToolCallPaths actual) {
		super(actual, ToolCallPathsAssert.class);
	}

	/**
	 * Findings accepted on every path, each a line as {@code check --accept}
	 * reads it ({@code SCENARIO MARK # why}); an accepted finding no longer
	 * found fails the gate, as in {@code check}.
	 * @param findings the lines
	 * @return this assertion
	 */
	public ToolCallPathsAssert accepting(String... findings) {
		this.accepted.addAll(List.of(findings));
		return this;
	}

	/**
	 * Fails unless the test exercised at least one request path with tools and
	 * every one is safe, with the findings accepted.
	 * @return this assertion
	 */
	public ToolCallPathsAssert areSafe() {
		isNotNull();
		if (this.actual.paths().isEmpty()) {
			failWithMessage("no request path with tools was exercised: the gate judges the paths a test's requests "
					+ "take, so make the requests before asking");
		}
		List<String> failures = new ArrayList<>();
		for (RequestPaths.Path path : this.actual.paths()) {
			Verdict verdict = judged(path);
			if (!verdict.safe()) {
				failures.add("request path " + path.number() + " (" + describe(path) + "): " + verdict.line());
			}
		}
		if (!failures.isEmpty()) {
			failWithMessage("%s", String.join("\n", failures)
					+ "\n(accept a finding with .accepting(\"SCENARIO MARK # why\"), as toolcall-model check --accept "
					+ "reads it)");
		}
		return this;
	}

	private Verdict judged(RequestPaths.Path path) {
		Map<String, Object> input = new LinkedHashMap<>(path.judgeInput());
		// The application's own (toolcall.fixes.judge.accept), then the test's.
		List<String> accepted = new ArrayList<>();
		if (input.get("accepted") instanceof List<?> own) {
			own.forEach(a -> accepted.add(String.valueOf(a)));
		}
		accepted.addAll(this.accepted);
		input.put("accepted", accepted);
		String answer = Judges.JUDGE.judge(JSON.writeValueAsString(input));
		try {
			return Verdict.of(answer);
		}
		catch (IllegalArgumentException e) {
			// An accepted line that does not read is the test's error, named as the judge names it.
			failWithMessage("%s", e.getMessage());
			throw e;
		}
	}

	private static String describe(RequestPaths.Path path) {
		Map<String, Object> facts = path.facts();
		return facts.get("mode") + ", memory " + facts.get("memory") + ", " + facts.get("client");
	}

	/** One judge for every test of the JVM: the module loads once. */
	private static final class Judges {

		static final Judge JUDGE = Judge.load();

	}

}
