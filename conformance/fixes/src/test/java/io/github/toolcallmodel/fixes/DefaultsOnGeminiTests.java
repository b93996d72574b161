package io.github.toolcallmodel.fixes;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.MessageChatMemoryAdvisor;
import org.springframework.ai.chat.client.advisor.ToolCallingAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.DefaultToolCallingManager;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionResult;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the library installs with no property set, for each kind of
 * application, on the real {@code GoogleGenAiChatModel} over {@link GeminiStub};
 * the report of the running application; an application's own
 * {@code ToolCallingAdvisor} subclass; and a {@code ToolCallingManager} that is
 * not Spring's.
 */
class DefaultsOnGeminiTests {

	static final String BREACH = "Tool call limit (1) exceeded for tool 'x'. No further calls to this tool are allowed in this turn.";

	static ApplicationContextRunner app(GeminiStub stub, String policy) {
		return GeminiApplicationTests.app(stub)
			.withPropertyValues("spring.ai.tools.limits.max-calls-per-tool-default=1",
					"spring.ai.tools.limits.on-limit-exceeded=" + policy);
	}

	/** The memory advisor as a bean, ordered inside the tool loop; the application adds it to its clients. */
	@Configuration(proxyBeanMethods = false)
	static class MemoryInside {

		@Bean
		MessageChatMemoryAdvisor memoryAdvisor(ChatMemory chatMemory) {
			return MessageChatMemoryAdvisor.builder(chatMemory).order(ToolCallingAdvisor.DEFAULT_ORDER + 100).build();
		}

	}

	static Map<String, Boolean> installed(ApplicationContext context) {
		Map<String, Boolean> out = new java.util.LinkedHashMap<>();
		context.getBean(InstalledFixes.class).decisions().forEach((k, v) -> out.put(k, v.on()));
		return out;
	}

	static List<String> on(ApplicationContext context) {
		return installed(context).entrySet().stream().filter(Map.Entry::getValue).map(Map.Entry::getKey).toList();
	}

	/** One turn through the builder bean with the memory advisor bean, and the stored transcript. */
	static List<Message> turn(ApplicationContext context, String question) {
		ChatClient client = context.getBean(ChatClient.Builder.class)
			.defaultAdvisors(context.getBean(MessageChatMemoryAdvisor.class))
			.build();
		client.prompt()
			.user(question)
			.toolCallbacks(GeminiApplicationTests.X)
			.advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "weather"))
			.call()
			.content();
		return context.getBean(ChatMemory.class).get("weather");
	}

	@Test
	void theJsonErrorProcessorSwitchReadsAsEveryOtherSwitch() {
		try (GeminiStub stub = GeminiStub.callsThenDone("x", "c1")) {
			app(stub, "THROW").withPropertyValues("toolcall.fixes.json-error-processor=on")
				.run(context -> assertThat(context.getBean(
						org.springframework.ai.tool.execution.ToolExecutionExceptionProcessor.class))
					.isInstanceOf(JsonErrorToolExecutionExceptionProcessor.class));
		}
	}

	@Test
	void aStreamedTurnWithTheMemoryBeanInsideAnswersEveryCall() {
		try (GeminiStub stub = new GeminiStub(i -> i == 0 ? GeminiStub.calls("x", "c1", "c2") : GeminiStub.text("done"))) {
			app(stub, "THROW").withUserConfiguration(MemoryInside.class).run(context -> {
				ChatClient client = context.getBean(ChatClient.Builder.class)
					.defaultAdvisors(context.getBean(MessageChatMemoryAdvisor.class))
					.build();
				String answer = String.join("", client.prompt()
					.user("weather?")
					.toolCallbacks(GeminiApplicationTests.X)
					.advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "weather"))
					.stream()
					.content()
					.collectList()
					.block());
				assertThat(answer).isEqualTo(BREACH);
				List<Message> stored = context.getBean(ChatMemory.class).get("weather");
				ToolResponseMessage last = (ToolResponseMessage) stored.get(stored.size() - 1);
				assertThat(last.getResponses()).extracting(ToolResponseMessage.ToolResponse::name)
					.containsExactly("x", "x");
				// The next turn, streamed, is converted by Gemini's own code.
				String next = String.join("", client.prompt()
					.user("and tomorrow?")
					.toolCallbacks(GeminiApplicationTests.X)
					.advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "weather"))
					.stream()
					.content()
					.collectList()
					.block());
				assertThat(next).isEqualTo("done");
				assertThat(stub.paths().get(1)).contains(":streamGenerateContent");
				assertThat(stub.functionResponses().get(1)).hasSize(2);
			});
		}
	}

	@Test
	void aGeminiApplicationWithoutMemoryGetsTheJsonSafeResponsesOnly() {
		try (GeminiStub stub = GeminiStub.callsThenDone("x", "c1")) {
			app(stub, "THROW").run(context -> assertThat(on(context)).containsExactly("strict-json-or-wrap"));
		}
	}

	@Test
	void returnErrorResponseAlsoGetsTheEndOfARunawayTurn() {
		// The model calls x in every reply, for ever.
		try (GeminiStub stub = new GeminiStub(i -> GeminiStub.calls("x", "a" + i))) {
			app(stub, "RETURN_ERROR_RESPONSE").run(context -> {
				assertThat(on(context)).containsExactly("strict-json-or-wrap", "end-turn-after-breach");
				String answer = context.getBean(ChatClient.Builder.class)
					.build()
					.prompt()
					.user("weather?")
					.toolCallbacks(GeminiApplicationTests.X)
					.call()
					.content();
				assertThat(answer).isEqualTo(BREACH);
				// Three requests, each converted by Gemini's own code; the breach reached it as a result.
				assertThat(stub.requests()).hasSize(3);
				assertThat(stub.functionResponses().get(2)).contains(Map.of("name", "x", "response",
						Map.of("result", BREACH)));
			});
		}
	}

	@Test
	void aMemoryAdvisorBeanInsideTheLoopGetsThePairingFixesAndTheNextTurnConverts() {
		try (GeminiStub stub = new GeminiStub(i -> i == 0 ? GeminiStub.calls("x", "c1", "c2") : GeminiStub.text("done"))) {
			app(stub, "THROW").withUserConfiguration(MemoryInside.class).run(context -> {
				assertThat(on(context)).containsExactly("strict-json-or-wrap", "close-dangling-calls",
						"store-answered-generation", "keep-current-turn");
				List<Message> stored = turn(context, "weather?");
				ToolResponseMessage last = (ToolResponseMessage) stored.get(stored.size() - 1);
				// Gemini's calls carry no ids: both calls of the reply are answered, in order.
				assertThat(last.getResponses()).extracting(ToolResponseMessage.ToolResponse::name)
					.containsExactly("x", "x");
				assertThat(last.getResponses().get(1).responseData()).isEqualTo(BREACH);
				// The next turn is built from that memory and Gemini's conversion takes it.
				turn(context, "and tomorrow?");
				assertThat(stub.requests()).hasSize(2);
				assertThat(stub.functionResponses().get(1)).hasSize(2);
			});
		}
	}

	@Test
	void withoutTheLibraryTheSameApplicationKeepsADanglingCall() {
		try (GeminiStub stub = new GeminiStub(i -> i == 0 ? GeminiStub.calls("x", "c1", "c2") : GeminiStub.text("done"))) {
			app(stub, "THROW").withUserConfiguration(MemoryInside.class)
				.withPropertyValues("toolcall.fixes.enabled=false")
				.run(context -> {
					List<Message> stored = turn(context, "weather?");
					assertThat(stored.get(stored.size() - 1)).isInstanceOf(AssistantMessage.class);
				});
		}
	}

	/**
	 * Where every condition an unset switch is decided from holds (a Gemini
	 * chat model, {@code RETURN_ERROR_RESPONSE}, a memory advisor inside the
	 * loop), the fixes on are the table's rows whose {@code unset} is
	 * {@code decided}: the rule {@code check} reads from the same column
	 * ({@code unset_switches_turn_on_the_table_s_decided_fixes_only} in
	 * check/src/config/survival/library.rs).
	 */
	@Test
	void withEveryConditionTheDefaultsAreTheTablesDecidedFixes() {
		try (GeminiStub stub = GeminiStub.callsThenDone("x", "c1")) {
			app(stub, "RETURN_ERROR_RESPONSE").withUserConfiguration(MemoryInside.class).run(context -> {
				FixSet decided = FixSet.where(f -> f.unset() == Fix.Unset.DECIDED);
				assertThat(decided.isEmpty()).isFalse();
				assertThat(FixSet.of(on(context))).isEqualTo(decided);
				assertThat(installed(context).keySet()).containsAll(decided.names());
			});
		}
	}

	@Test
	void everyDefaultCanBeSetOff() {
		try (GeminiStub stub = GeminiStub.callsThenDone("x", "c1")) {
			app(stub, "RETURN_ERROR_RESPONSE").withUserConfiguration(MemoryInside.class)
				.withPropertyValues("toolcall.fixes.strict-json-or-wrap=no", "toolcall.fixes.end-turn-after-breach=off",
						"toolcall.fixes.close-dangling-calls=false", "toolcall.fixes.store-answered-generation=0",
						"toolcall.fixes.keep-current-turn=false")
				.run(context -> {
					assertThat(on(context)).isEmpty();
					assertThat(context.getBean(ToolCallingManager.class)).isInstanceOf(DefaultToolCallingManager.class);
					assertThat(context.getBean(org.springframework.ai.chat.model.ChatModel.class))
						.isNotInstanceOf(GeminiSafeChatModel.Wrapped.class);
				});
		}
	}

	@Test
	void theReportStatesTheFactsAndTheCheckLine() {
		try (GeminiStub stub = GeminiStub.callsThenDone("x", "c1")) {
			app(stub, "THROW").withUserConfiguration(MemoryInside.class).run(context -> {
				Map<String, Object> r = context.getBean(ToolCallFixesReport.class).report();
				assertThat(r.get("springAiVersion")).isEqualTo("2.0.1");
				assertThat(r.get("chatModels"))
					.isEqualTo(List.of("org.springframework.ai.google.genai.GoogleGenAiChatModel (wrapped)"));
				Map<?, ?> limits = (Map<?, ?>) r.get("limits");
				assertThat(limits.get("defaultMaxCallsPerTool")).isEqualTo(1);
				assertThat(limits.get("onLimitExceeded"))
					.isEqualTo(org.springframework.ai.model.tool.ToolCallLimitBehavior.THROW);
				assertThat(r.get("processor"))
					.isEqualTo("org.springframework.ai.tool.execution.DefaultToolExecutionExceptionProcessor");
				assertThat(r.get("throwExceptionOnError")).isEqualTo(false);
				assertThat(r.get("check")).isEqualTo("toolcall-model check --format properties"
						+ " --set spring.ai.tools.limits.max-calls-per-tool-default=1"
						+ " --set spring.ai.tools.limits.max-total-tool-calls=150"
						+ " --set spring.ai.tools.limits.on-limit-exceeded=THROW --processor default --memory inside"
						+ " --memory-window 20 --provider gemini"
						+ " --fixes strict-json-or-wrap,close-dangling-calls,store-answered-generation,keep-current-turn"
						+ " - < /dev/null");
				assertThat((String) r.get("judges")).startsWith("each request path: requestPaths[].verdict");
				// At startup: one line per fix installed, with its reason, and the
				// report; no path is named that no request has taken.
				List<String> lines = context.getBean(ToolCallFixesReport.class).startupLines();
				assertThat(lines).hasSize(5).noneMatch(l -> l.contains("not reached"));
				assertThat(lines.get(0)).isEqualTo("toolcall-fixes: installed strict-json-or-wrap (GoogleGenAiChatModel "
						+ "bean 'googleGenAiChatModel': Gemini's conversion fails on a tool response that is not JSON)");
				assertThat(lines.get(1)).isEqualTo("toolcall-fixes: installed close-dangling-calls (memory advisor bean "
						+ "'memoryAdvisor' (order " + (ToolCallingAdvisor.DEFAULT_ORDER + 100)
						+ ") is inside the tool loop (ToolCallingAdvisor order " + ToolCallingAdvisor.DEFAULT_ORDER + "))");
				assertThat(lines.get(4)).startsWith("toolcall-fixes report: springAiVersion=2.0.1; ")
					.contains("check=toolcall-model check ");
				// The same report as the Actuator endpoint; the judge's entry moves on
				// meanwhile (the foreseen questions answered on its thread).
				Map<String, Object> endpoint = new java.util.LinkedHashMap<>(
						context.getBean(ToolCallFixesEndpoint.class).report());
				assertThat(endpoint.remove("judge")).isInstanceOf(String.class);
				Map<String, Object> reported = new java.util.LinkedHashMap<>(r);
				reported.remove("judge");
				assertThat(endpoint).isEqualTo(reported);
			});
		}
	}

	/** An application's own tool loop advisor, built on the library's. */
	static class AuditingToolCallingAdvisor extends FixingToolCallingAdvisor {

		AuditingToolCallingAdvisor(ToolCallingManager manager) {
			super(manager, ChatResponse::hasToolCalls, ToolCallingAdvisor.DEFAULT_ORDER, false);
		}

	}

	@Test
	void anApplicationsOwnToolCallingAdvisorSubclassPairsEveryCall() {
		try (GeminiStub stub = new GeminiStub(i -> i == 0 ? GeminiStub.calls("x", "c1", "c2") : GeminiStub.text("done"))) {
			app(stub, "THROW").withUserConfiguration(MemoryInside.class).run(context -> {
				ChatClient client = ChatClient.builder(context.getBean(org.springframework.ai.chat.model.ChatModel.class))
					.defaultAdvisors(new AuditingToolCallingAdvisor(context.getBean(ToolCallingManager.class)),
							context.getBean(MessageChatMemoryAdvisor.class))
					.build();
				client.prompt()
					.user("weather?")
					.toolCallbacks(GeminiApplicationTests.X)
					.advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "weather"))
					.call()
					.content();
				List<Message> stored = context.getBean(ChatMemory.class).get("weather");
				ToolResponseMessage last = (ToolResponseMessage) stored.get(stored.size() - 1);
				// Gemini's calls carry no ids: both calls of the reply are answered, in order.
				assertThat(last.getResponses()).extracting(ToolResponseMessage.ToolResponse::name)
					.containsExactly("x", "x");
				assertThat(last.getResponses().get(1).responseData()).isEqualTo(BREACH);
			});
		}
	}

	/** A manager of the application's own, not Spring's. */
	@Configuration(proxyBeanMethods = false)
	static class OwnManager {

		@Bean
		ToolCallingManager toolCallingManager() {
			ToolCallingManager spring = ToolCallingManager.builder().build();
			return new ToolCallingManager() {

				@Override
				public List<ToolDefinition> resolveToolDefinitions(ToolCallingChatOptions chatOptions) {
					return spring.resolveToolDefinitions(chatOptions);
				}

				@Override
				public ToolExecutionResult executeToolCalls(Prompt prompt, ChatResponse chatResponse) {
					return spring.executeToolCalls(prompt, chatResponse);
				}

			};
		}

	}

	@Test
	void aManagerThatIsNotSpringsIsRefusedWhenAManagerFixIsAskedAndLeftAloneOtherwise() {
		try (GeminiStub stub = GeminiStub.callsThenDone("x", "c1")) {
			app(stub, "THROW").withUserConfiguration(OwnManager.class)
				.withPropertyValues("toolcall.fixes.close-dangling-calls=true")
				.run(context -> assertThat(context).getFailure()
					.rootCause()
					.hasMessageContaining("close-dangling-calls wrap Spring AI's DefaultToolCallingManager")
					.hasMessageContaining("toolcall.fixes.close-dangling-calls=false"));
			app(stub, "THROW").withUserConfiguration(OwnManager.class).run(context -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(InstalledFixes.class).decisions().get("close-dangling-calls").why())
					.contains("not Spring AI's DefaultToolCallingManager");
				assertThat(on(context)).containsExactly("strict-json-or-wrap");
			});
		}
	}

	@Test
	void anotherSpringAiVersionIsRefusedByName() {
		ClassLoader cl = getClass().getClassLoader();
		assertThat(SpringAiVersion.current(cl)).isEqualTo("2.0.1");
		assertThat(SpringAiVersion.refusal("2.0.1", cl)).isNull();
		assertThat(SpringAiVersion.refusal("2.0.0", cl)).contains("runs Spring AI 2.0.0")
			.contains("toolcall.fixes.enabled=false");
		assertThat(SpringAiVersion.refusal("2.1.0", cl)).contains("runs Spring AI 2.1.0");
	}

}
