package io.github.toolcallmodel.fixes;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.github.toolcallmodel.judge.Judge;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code toolcall.fixes.judge.*}: the verdicts turned off, and findings
 * accepted as {@code toolcall-model check --accept} names them, on the real
 * {@code GoogleGenAiChatModel} over {@link GeminiStub}.
 */
class JudgePropertiesTests {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	@Test
	void verdictsOffJudgeNoPathAndTheReportSaysSo() {
		try (GeminiStub stub = GeminiStub.callsThenDone("x", "c1")) {
			RequestPathsTests.unsafe(stub).withPropertyValues("toolcall.fixes.judge.enabled=false").run(context -> {
				RequestPaths.Path path = RequestPathsTests.onePath(context);
				assertThat(path.verdict()).isEqualTo("not judged: " + RequestPaths.VERDICTS_OFF);
				Map<String, Object> report = context.getBean(ToolCallFixesReport.class).report();
				assertThat(report.get("judge")).isEqualTo(RequestPaths.VERDICTS_OFF);
				@SuppressWarnings("unchecked")
				List<Map<String, Object>> listed = (List<Map<String, Object>>) report.get("requestPaths");
				assertThat(listed).singleElement().satisfies(p -> assertThat(p.get("verdict")).isEqualTo(path.verdict()));
			});
		}
	}

	@Test
	void verdictsAreOnByDefault() {
		try (GeminiStub stub = GeminiStub.callsThenDone("x", "c1")) {
			RequestPathsTests.unsafe(stub).run(context -> {
				assertThat(context.getBean(ToolCallFixesReport.class).report().get("judge")).isNotEqualTo(RequestPaths.VERDICTS_OFF);
				assertThat(RequestPathsTests.onePath(context).verdict()).startsWith("not safe: plain, ");
			});
		}
	}

	/**
	 * The findings the path breaks with, accepted as check names them, make it
	 * safe; with one of them left out, the path is not safe for that one.
	 */
	@Test
	void acceptedFindingsReachTheJudgeAsCheckReadsThem() {
		List<String> findings = new ArrayList<>();
		try (GeminiStub stub = GeminiStub.callsThenDone("x", "c1")) {
			RequestPathsTests.unsafe(stub).run(context -> findings.addAll(findings(RequestPathsTests.onePath(context).judgeInput())));
		}
		assertThat(findings).isNotEmpty();
		try (GeminiStub stub = GeminiStub.callsThenDone("x", "c1")) {
			accepting(stub, findings).run(context -> {
				RequestPaths.Path path = RequestPathsTests.onePath(context);
				assertThat(path.judgeInput().get("accepted")).isEqualTo(findings);
				assertThat(path.verdict()).isEqualTo("safe");
			});
		}
		// One left out is named, and then, as check's gate names them, one more
		// that no longer happens.
		List<String> most = new ArrayList<>(findings.subList(1, findings.size()));
		most.add("text+call dropped # no longer found");
		assertThat(findings.get(0)).isEqualTo("plain-text parse");
		assertThat(findings).noneMatch(f -> f.startsWith("text-and-call "));
		try (GeminiStub stub = GeminiStub.callsThenDone("x", "c1")) {
			accepting(stub, most).run(context -> {
				RequestPaths.Path path = RequestPathsTests.onePath(context);
				assertThat(path.verdict()).as(path.judgeInput().toString())
					.startsWith("not safe: plain, accepted but no longer found: {\"scenario\":\"text+call\"")
					.contains("; remedy: with the fix library: toolcall.fixes.strict-json-or-wrap=true");
			});
		}
	}

	/** {@link #unsafe} with {@code toolcall.fixes.judge.accept} set to {@code findings}. */
	private static ApplicationContextRunner accepting(GeminiStub stub, List<String> findings) {
		ApplicationContextRunner runner = RequestPathsTests.unsafe(stub);
		for (int i = 0; i < findings.size(); i++) {
			runner = runner.withPropertyValues("toolcall.fixes.judge.accept[" + i + "]=" + findings.get(i));
		}
		return runner;
	}

	/**
	 * The scenarios the path's set breaks in, as {@code SCENARIO MARK} lines:
	 * from the judge's whole report for the path's facts (the marks per set).
	 */
	private static List<String> findings(Map<String, Object> input) {
		Map<String, Object> whole = new LinkedHashMap<>(input);
		whole.put("answer", "report");
		JsonNode answer = JSON.readTree(Judge.load().judge(JSON.writeValueAsString(whole)));
		String set = answer.get("asked").get("set").asString();
		List<String> lines = new ArrayList<>();
		for (JsonNode s : answer.get("sets")) {
			if (s.get("set").asString().equals(set)) {
				for (JsonNode v : s.get("verdicts")) {
					if (!v.get("survives").asBoolean()) {
						lines.add(v.get("scenario").asString() + " " + v.get("mark").asString());
					}
				}
			}
		}
		return lines;
	}

}
