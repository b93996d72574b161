package io.github.toolcallmodel.fixes;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.MessageChatMemoryAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The fixes decided per request, and the report of each request path, on the
 * real {@code GoogleGenAiChatModel} over {@link GeminiStub}, no property of the
 * library set.
 */
class RequestPathsTests {

	static ChatClient.ChatClientRequestSpec weather(ChatClient client) {
		return client.prompt()
			.user("weather?")
			.toolCallbacks(GeminiApplicationTests.X)
			.advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "weather"));
	}

	/** Text from a tool, and the switch that makes it JSON-safe off: a path that is not safe. */
	static ApplicationContextRunner unsafe(GeminiStub stub) {
		return DefaultsOnGeminiTests.app(stub, "THROW").withPropertyValues("toolcall.fixes.strict-json-or-wrap=false");
	}

	/** One turn of {@link #weather} that Gemini's conversion refuses, and its path once judged. */
	static RequestPaths.Path onePath(ApplicationContext context) {
		ChatClient client = context.getBean(ChatClient.Builder.class).build();
		assertThatThrownBy(() -> weather(client).call().content()).hasMessageContaining("Failed to parse JSON");
		RequestPaths paths = context.getBean(RequestPaths.class);
		assertThat(paths.verdictsSettled(Duration.ofMinutes(2))).isTrue();
		assertThat(paths.paths()).hasSize(1);
		return paths.paths().get(0);
	}

	@Test
	void withoutTheLibraryTheInlineMemoryInsideLeavesCallsUnanswered() {
		// The control of the table: the same run, the library off.
		String row = PathsProbe.row(PathsProbe.Path.BUILDER_BEAN_DEFAULT_ADVISORS, "inside", "THROW", false,
				"toolcall.fixes.enabled=false");
		assertThat(row.split(" \\| ")[5]).isEqualTo("no: 2 calls without a response");
		String stream = PathsProbe.row(PathsProbe.Path.BUILDER_BEAN_DEFAULT_ADVISORS, "inside", "THROW", true,
				"toolcall.fixes.enabled=false");
		assertThat(stream.split(" \\| ")[5]).startsWith("no: ");
	}

	@Test
	void theInlineMemoryInsideIsDecidedAtItsFirstRequestAndNamedInTheReport() {
		try (GeminiStub stub = GeminiStub.callsThenDone("x", "c1")) {
			DefaultsOnGeminiTests.app(stub, "THROW").run(context -> {
				ToolCallFixesReport report = context.getBean(ToolCallFixesReport.class);
				assertThat(DefaultsOnGeminiTests.on(context)).containsExactly("strict-json-or-wrap");
				ChatClient client = context.getBean(ChatClient.Builder.class)
					.defaultAdvisors(MessageChatMemoryAdvisor.builder(context.getBean(ChatMemory.class))
						.order(PathsProbe.INSIDE)
						.build())
					.build();
				weather(client).stream().content().collectList().block();
				assertThat(DefaultsOnGeminiTests.on(context)).containsExactly("strict-json-or-wrap",
						"store-answered-generation", "keep-current-turn");
				@SuppressWarnings("unchecked")
				List<Map<String, Object>> paths = (List<Map<String, Object>>) report.report().get("requestPaths");
				assertThat(paths).hasSize(1);
				Map<String, Object> p = paths.get(0);
				assertThat(p.get("memory")).isEqualTo("inside");
				assertThat(p.get("mode")).isEqualTo("stream");
				assertThat(p.get("chatMemory")).isEqualTo("the ChatMemory bean");
				assertThat(p.get("memoryWindow")).isEqualTo(20);
				assertThat(p.get("model")).isEqualTo(ToolCallFixesReport.GEMINI);
				assertThat(p.get("toolOutputs")).isEqualTo("text");
				assertThat((List<?>) p.get("advisorChain")).hasSizeGreaterThanOrEqualTo(2);
				assertThat(p.get("fixes")).isEqualTo(List.of("strict-json-or-wrap", "close-dangling-calls",
						"store-answered-generation", "keep-current-turn"));
				assertThat(p.get("check")).isEqualTo("toolcall-model check --format properties"
						+ " --set spring.ai.tools.limits.max-calls-per-tool-default=1"
						+ " --set spring.ai.tools.limits.max-total-tool-calls=150"
						+ " --set spring.ai.tools.limits.on-limit-exceeded=THROW --processor default --memory inside"
						+ " --memory-window 20 --provider gemini --tools text --streaming"
						+ " --fixes strict-json-or-wrap,close-dangling-calls,store-answered-generation,keep-current-turn"
						+ " - < /dev/null");
				// Logged once: the path, and the two memory fixes decided from it.
				weather(client).call().content();
				assertThat(context.getBean(RequestPaths.class).lines()).hasSize(4)
					.anyMatch(l -> l.startsWith("toolcall-fixes: request path 1: "))
					.anyMatch(l -> l.startsWith("toolcall-fixes: request path 2: "))
					.anyMatch(l -> l.startsWith("toolcall-fixes: installed store-answered-generation (a request's "
							+ "memory advisor"));
			});
		}
	}

	/**
	 * Every path's check line is one {@code toolcall-model check} runs to a
	 * verdict (exit 0 or 1, never 2, a usage error), where the build names the
	 * command ({@code TOOLCALL_MODEL_BIN}, as {@code cargo test} sets it).
	 */
	@Test
	void everyPathsCheckLineRunsToAVerdict() throws Exception {
		org.junit.jupiter.api.Assumptions.assumeTrue(RustConvert.BIN != null, "TOOLCALL_MODEL_BIN is unset");
		try (GeminiStub stub = new GeminiStub(i -> i % 2 == 0 ? GeminiStub.calls("x", "c" + i) : GeminiStub.text("done"))) {
			DefaultsOnGeminiTests.app(stub, "RETURN_ERROR_RESPONSE").run(context -> {
				ChatClient.Builder builder = context.getBean(ChatClient.Builder.class);
				ChatClient inside = builder.clone()
					.defaultAdvisors(MessageChatMemoryAdvisor.builder(context.getBean(ChatMemory.class))
						.order(PathsProbe.INSIDE)
						.build())
					.build();
				weather(inside).call().content();
				weather(inside).stream().content().collectList().block();
				weather(ChatClient.create(context.getBean(ChatModel.class))).call().content();
				List<Map<String, Object>> paths = context.getBean(RequestPaths.class).facts();
				assertThat(paths).hasSize(3);
				for (Map<String, Object> p : paths) {
					String line = String.valueOf(p.get("check"));
					assertThat(line).startsWith("toolcall-model check ");
					Process run = new ProcessBuilder("bash", "-c",
							"'" + RustConvert.BIN + "'" + line.substring("toolcall-model".length()))
						.redirectErrorStream(true)
						.start();
					String out = new String(run.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
					assertThat(run.waitFor()).as(line + "\n" + out).isIn(0, 1);
					assertThat(out).as(line).contains("Verdict:");
				}
			});
		}
	}

	@Test
	void aMemoryOfItsOwnInsideTheLoopIsNamedWithTheLineThatReachesIt() {
		try (GeminiStub stub = GeminiStub.callsThenDone("x", "c1")) {
			DefaultsOnGeminiTests.app(stub, "THROW").run(context -> {
				ChatClient client = context.getBean(ChatClient.Builder.class)
					.defaultAdvisors(MessageChatMemoryAdvisor
						.builder(org.springframework.ai.chat.memory.MessageWindowChatMemory.builder().build())
						.order(PathsProbe.INSIDE)
						.build())
					.build();
				weather(client).call().content();
				weather(client).call().content();
				assertThat(context.getBean(RequestPaths.class).lines()).filteredOn(l -> l.contains("not reached"))
					.containsExactly("toolcall-fixes: not reached: the memory advisor MessageChatMemoryAdvisor stores "
							+ "into a org.springframework.ai.chat.memory.MessageWindowChatMemory of its own, not the "
							+ "ChatMemory bean, which store-answered-generation and keep-current-turn do not reach; "
							+ "build it on the ChatMemory bean, or on new AnsweredGenerationChatMemory(new "
							+ "TurnKeepingWindowChatMemory(repository, maxMessages, true, false))");
			});
		}
	}

	@Test
	void aClientOfItsOwnIsNamedOnceWhenFirstUsedAndNeverBefore() {
		try (GeminiStub stub = new GeminiStub(i -> GeminiStub.text("done"))) {
			DefaultsOnGeminiTests.app(stub, "THROW").run(context -> {
				RequestPaths paths = context.getBean(RequestPaths.class);
				ChatClient own = ChatClient.builder(context.getBean(ChatModel.class)).build();
				context.getBean(ChatClient.Builder.class).build().prompt().user("hi").call().content();
				assertThat(paths.lines()).noneMatch(l -> l.contains("not reached"));
				weather(own).call().content();
				weather(own).stream().content().collectList().block();
				weather(own).call().content();
				assertThat(paths.lines()).filteredOn(l -> l.contains("not reached")).hasSize(1).allMatch(l -> l.contains(
						"ChatClient.builder(chatModel, observationRegistry, null, null, toolCallingAdvisorBuilder)"));
				@SuppressWarnings("unchecked")
				List<Map<String, Object>> facts = (List<Map<String, Object>>) context.getBean(ToolCallFixesReport.class)
					.report()
					.get("requestPaths");
				assertThat(facts).filteredOn(f -> Boolean.FALSE.equals(f.get("libraryLoop")))
					.extracting(f -> f.get("mode"))
					.containsExactlyInAnyOrder("call", "stream");
				assertThat(facts).filteredOn(f -> Boolean.FALSE.equals(f.get("libraryLoop")))
					.allMatch(f -> String.valueOf(f.get("client")).contains("ChatClient.builder(chatModel)"))
					.allMatch(f -> String.valueOf(f.get("check")).contains("--fixes strict-json-or-wrap "));
				// A direct call with tool responses is the application's own loop: not a warning.
				context.getBean(ChatModel.class)
					.call(new org.springframework.ai.chat.prompt.Prompt("hello",
							org.springframework.ai.google.genai.GoogleGenAiChatOptions.builder()
								.toolCallbacks(List.of(GeminiApplicationTests.X))
								.build()));
				assertThat(paths.lines()).filteredOn(l -> l.contains("not reached")).hasSize(1);
				assertThat(paths.facts()).anyMatch(f -> String.valueOf(f.get("client")).startsWith("the model called directly"));
			});
		}
	}

}
