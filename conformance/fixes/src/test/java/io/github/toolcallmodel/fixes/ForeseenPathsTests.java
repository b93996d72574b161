package io.github.toolcallmodel.fixes;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.MessageChatMemoryAdvisor;
import org.springframework.ai.chat.client.advisor.SimpleLoggerAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The questions the judge asks at startup, foreseen from the application's
 * beans: each is the first question a path of the library's loop asks, built
 * by the code that builds a path's question (RequestPaths.foresee).
 */
class ForeseenPathsTests {

	/** A path's first question, as the path asked it. */
	private static Map<String, Object> first(RequestPaths.Path p) {
		return p.firstQuestion();
	}

	private static RequestPaths.Path pathOf(ApplicationContext context, String memory, String mode) {
		return context.getBean(RequestPaths.class)
			.paths()
			.stream()
			.filter(p -> memory.equals(p.facts().get("memory")) && mode.equals(p.facts().get("mode"))
					&& Boolean.TRUE.equals(p.facts().get("libraryLoop")))
			.findFirst()
			.orElseThrow();
	}

	/** One call and one stream on {@code client}; text from a tool may break them, as foreseen. */
	private static void callAndStream(ChatClient client) {
		try {
			RequestPathsTests.weather(client).call().content();
		}
		catch (RuntimeException e) {
			// The conversion's fix off: the path breaks.
		}
		try {
			RequestPathsTests.weather(client).stream().content().collectList().block();
		}
		catch (RuntimeException e) {
			// As above.
		}
	}

	@Test
	void theLoopsPathsAskedWhatWasForeseen() {
		try (GeminiStub stub = new GeminiStub(i -> i % 2 == 0 ? GeminiStub.calls("x", "c" + i) : GeminiStub.text("done"))) {
			// The conversion's fix off, the manager's and the memory's on: the inside
			// path's question holds the fixes its first request decides on.
			DefaultsOnGeminiTests.app(stub, "THROW").withPropertyValues("toolcall.fixes.strict-json-or-wrap=false")
				.run(context -> {
					RequestPaths paths = context.getBean(RequestPaths.class);
					List<Map<String, Object>> foreseen = paths.foreseen();
					// The model not wrapped (strict-json-or-wrap off): the library's loop alone.
					assertThat(foreseen).hasSize(10).doesNotHaveDuplicates();
					ChatMemory memory = context.getBean(ChatMemory.class);
					ChatClient.Builder builder = context.getBean(ChatClient.Builder.class);
					Map<String, Map<String, Object>> asked = new LinkedHashMap<>();
					callAndStream(builder.clone().build());
					callAndStream(builder.clone().defaultAdvisors(MessageChatMemoryAdvisor.builder(memory).build()).build());
					assertThat(paths.verdictsSettled(Duration.ofMinutes(2))).isTrue();
					for (String position : List.of("none", "outside")) {
						for (String mode : List.of("call", "stream")) {
							asked.put(position + " " + mode, first(pathOf(context, position, mode)));
						}
					}
					callAndStream(builder.clone()
						.defaultAdvisors(MessageChatMemoryAdvisor.builder(memory).order(PathsProbe.INSIDE).build())
						.build());
					assertThat(paths.verdictsSettled(Duration.ofMinutes(2))).isTrue();
					for (String mode : List.of("call", "stream")) {
						asked.put("inside " + mode, first(pathOf(context, "inside", mode)));
					}
					// The inside path's question names the fixes its first request turned on.
					assertThat(String.valueOf(asked.get("inside call").get("fixes")))
						.isEqualTo("close-dangling-calls,store-answered-generation,keep-current-turn");
					// A path without the memory inside, first seen after one with it (another chain).
					callAndStream(builder.clone().defaultAdvisors(new SimpleLoggerAdvisor()).build());
					assertThat(paths.verdictsSettled(Duration.ofMinutes(2))).isTrue();
					for (RequestPaths.Path p : paths.paths()) {
						if (String.valueOf(p.facts().get("advisorChain")).contains("SimpleLoggerAdvisor")) {
							asked.put("none " + p.facts().get("mode") + " after inside", first(p));
						}
					}
					assertThat(asked).hasSize(8);
					asked.forEach((path, question) -> assertThat(foreseen).as(path).contains(question));
				});
		}
	}

	/**
	 * Once the foreseen questions are answered, a foreseen path's first verdict
	 * is one of those answers: its first question is the path as first seen,
	 * though its request shows the tool's output right after.
	 */
	@Test
	void aForeseenPathFindsItsVerdictGiven() {
		try (GeminiStub stub = new GeminiStub(i -> i % 2 == 0 ? GeminiStub.calls("x", "c" + i) : GeminiStub.text("done"))) {
			DefaultsOnGeminiTests.app(stub, "THROW").run(context -> {
				RequestPaths paths = context.getBean(RequestPaths.class);
				long until = System.nanoTime() + Duration.ofMinutes(2).toNanos();
				while (!paths.judgeLoaded().contains("foresaw") && System.nanoTime() < until) {
					Thread.sleep(20);
				}
				// The library's loop (6, and 4 after the memory inside) and, the model
				// wrapped, Spring's loop and the direct calls, which ask alike here (1 in
				// each mode, and 1 each after the memory inside).
				assertThat(paths.judgeLoaded()).contains("; foresaw 14 paths' first questions in ");
				ChatMemory memory = context.getBean(ChatMemory.class);
				ChatClient.Builder builder = context.getBean(ChatClient.Builder.class);
				callAndStream(builder.clone()
					.defaultAdvisors(MessageChatMemoryAdvisor.builder(memory).order(PathsProbe.INSIDE).build())
					.build());
				ChatModel model = context.getBean(ChatModel.class);
				callAndStream(ChatClient.create(model));
				model.call(new Prompt("weather?", org.springframework.ai.google.genai.GoogleGenAiChatOptions.builder()
					.toolCallbacks(List.of(GeminiApplicationTests.X))
					.build()));
				assertThat(paths.verdictsSettled(Duration.ofMinutes(2))).isTrue();
				assertThat(paths.paths()).hasSize(5)
					.allSatisfy(p -> assertThat(p.verdict()).matches("safe|not safe: .*; remedy: .*"));
				assertThat(paths.judgeLoaded()).contains("; first verdicts: 5 foreseen (given in at most ")
					.endsWith(", 0 not");
			});
		}
	}

	@Test
	void foresightCanBeTurnedOff() {
		try (GeminiStub stub = GeminiStub.callsThenDone("x", "c1")) {
			DefaultsOnGeminiTests.app(stub, "THROW").withPropertyValues("toolcall.fixes.judge.foresee=false")
				.run(context -> {
					RequestPaths paths = context.getBean(RequestPaths.class);
					assertThat(paths.foreseen()).isEmpty();
					assertThat(paths.judgeLoaded()).doesNotContain("foresaw").doesNotContain("foreseeing");
				});
		}
	}

}
