package io.github.toolcallmodel.fixes;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.github.toolcallmodel.judge.Judge;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.MessageChatMemoryAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.model.ChatModel;

import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each request path's verdict, given by toolcall-model check's WebAssembly
 * module on Chicory when the path is first seen, on the real
 * {@code GoogleGenAiChatModel} over {@link GeminiStub}.
 */
class PathVerdictsTests {

	@Test
	void eachPathIsJudgedByTheModuleAndTheEndpointShowsTheVerdict() {
		try (GeminiStub stub = GeminiStub.callsThenDone("x", "c1")) {
			RequestPathsTests.unsafe(stub).run(context -> {
				RequestPaths.Path path = RequestPathsTests.onePath(context);
				// The verdict is the module's for the path's facts, printed.
				String answer = Judge.load().judge(JsonMapper.builder().build().writeValueAsString(path.judgeInput()));
				assertThat(path.verdict()).isEqualTo(Verdict.of(answer).line());
				assertThat(path.verdict()).startsWith("not safe: plain, ")
					.endsWith("; remedy: with the fix library: toolcall.fixes.strict-json-or-wrap=true");
				Map<String, Object> report = context.getBean(ToolCallFixesReport.class).report();
				@SuppressWarnings("unchecked")
				List<Map<String, Object>> listed = (List<Map<String, Object>>) report.get("requestPaths");
				assertThat(listed).singleElement().satisfies(p -> assertThat(p.get("verdict")).isEqualTo(path.verdict()));
				assertThat(String.valueOf(report.get("judge"))).startsWith("loaded in ").contains("Chicory");
			});
		}
	}

	@Test
	void aSafePathIsSafe() {
		try (GeminiStub stub = GeminiStub.callsThenDone("x", "c1")) {
			DefaultsOnGeminiTests.app(stub, "RETURN_ERROR_RESPONSE")
				.withPropertyValues("toolcall.fixes.end-turn-after-breach=true")
				.run(context -> {
					RequestPathsTests.weather(context.getBean(ChatClient.Builder.class).build()).call().content();
					RequestPaths paths = context.getBean(RequestPaths.class);
					assertThat(paths.verdictsSettled(Duration.ofMinutes(2))).isTrue();
					assertThat(paths.paths()).singleElement()
						.satisfies(p -> assertThat(p.verdict()).as(p.judgeInput().toString()).isEqualTo("safe"));
				});
		}
	}

	/**
	 * The judge's input states what the path's check line states: with the
	 * command at hand ({@code TOOLCALL_MODEL_BIN}), the scenarios that break are
	 * the same.
	 */
	@Test
	void theVerdictBreaksWhatThePathsCheckLineBreaks() throws Exception {
		org.junit.jupiter.api.Assumptions.assumeTrue(RustConvert.BIN != null, "TOOLCALL_MODEL_BIN is unset");
		try (GeminiStub stub = new GeminiStub(i -> i % 2 == 0 ? GeminiStub.calls("x", "c" + i) : GeminiStub.text("done"))) {
			DefaultsOnGeminiTests.app(stub, "RETURN_ERROR_RESPONSE").run(context -> {
				ChatClient inside = context.getBean(ChatClient.Builder.class)
					.clone()
					.defaultAdvisors(MessageChatMemoryAdvisor.builder(context.getBean(ChatMemory.class))
						.order(PathsProbe.INSIDE)
						.build())
					.build();
				RequestPathsTests.weather(inside).call().content();
				RequestPathsTests.weather(inside).stream().content().collectList().block();
				RequestPathsTests.weather(ChatClient.create(context.getBean(ChatModel.class))).call().content();
				RequestPaths paths = context.getBean(RequestPaths.class);
				assertThat(paths.verdictsSettled(Duration.ofMinutes(2))).isTrue();
				assertThat(paths.paths()).hasSize(3);
				for (RequestPaths.Path p : paths.paths()) {
					String line = String.valueOf(p.facts().get("check")).replace(" - < /dev/null", " --json - < /dev/null");
					Process run = new ProcessBuilder("bash", "-c",
							"'" + RustConvert.BIN + "'" + line.substring("toolcall-model".length()))
						.start();
					String out = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
					run.waitFor();
					Verdict checked = Verdict.of(out);
					String verdict = p.verdict();
					assertThat(verdict).as(line).startsWith(checked.safe() ? "safe"
							: "not safe: " + String.join(", ", checked.scenarios()) + "; remedy: ");
				}
			});
		}
	}

}
