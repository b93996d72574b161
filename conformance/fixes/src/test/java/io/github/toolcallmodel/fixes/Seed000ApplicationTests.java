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
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.google.genai.GeminiRequests;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.DefaultToolDefinition;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.ai.tool.execution.DefaultToolExecutionExceptionProcessor;
import org.springframework.ai.tool.execution.ToolExecutionExceptionProcessor;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A small Spring Boot application on Gemini's real request building (a
 * scripted chat model, no network) that runs seed 000's reproduction: tool
 * {@code x} is limited to one call per turn with
 * {@code on-limit-exceeded=RETURN_ERROR_RESPONSE}, and the model calls it twice
 * in one round. Without a fix the second model call dies with
 * {@code Failed to parse JSON}; with the library's switches it reaches the model
 * as a JSON-safe error. Its THROW half: with the memory inside the loop, the
 * stored transcript keeps a call without a response unless
 * {@code close-dangling-calls} is on.
 */
class Seed000ApplicationTests {

	/** The scripted model is the chat model: Spring AI's Gemini auto-configuration steps back. */
	static final String SCRIPTED = "spring.ai.model.chat=scripted";

	static final String BREACH = "Tool call limit (1) exceeded for tool 'x'. No further calls to this tool are allowed in this turn.";

	/** The application: its chat model and nothing else; Spring AI and the fixes come from auto-configuration. */
	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class WeatherApplication {

		@Bean
		ScriptedGemini chatModel() {
			return new ScriptedGemini(ScriptedGemini.calls("x", "c1", "c2"), ScriptedGemini.text("done"));
		}

	}

	/** The seed's processor: Spring's decisions, the text as {"error": MESSAGE}. */
	@Configuration(proxyBeanMethods = false)
	static class JsonErrorProcessor {

		@Bean
		ToolExecutionExceptionProcessor toolExecutionExceptionProcessor() {
			DefaultToolExecutionExceptionProcessor spring = DefaultToolExecutionExceptionProcessor.builder().build();
			tools.jackson.databind.json.JsonMapper json = tools.jackson.databind.json.JsonMapper.builder().build();
			return e -> json.writeValueAsString(Map.of("error", spring.process(e)));
		}

	}

	/** Tool x: the weather, as JSON. */
	static final ToolCallback X = new ToolCallback() {

		private final ToolDefinition definition = DefaultToolDefinition.builder()
			.name("x")
			.description("the weather")
			.inputSchema("{}")
			.build();

		@Override
		public ToolDefinition getToolDefinition() {
			return this.definition;
		}

		@Override
		public String call(String toolInput) {
			return "{\"weather\":\"sunny\"}";
		}

	};

	final ApplicationContextRunner app = new ApplicationContextRunner().withUserConfiguration(WeatherApplication.class)
		.withPropertyValues(SCRIPTED, "spring.ai.tools.limits.max-calls-per-tool-default=1",
				"spring.ai.tools.limits.on-limit-exceeded=RETURN_ERROR_RESPONSE");

	static String ask(ApplicationContext context) {
		return context.getBean(ChatClient.Builder.class).build().prompt().user("weather?").toolCallbacks(X).call().content();
	}

	/** The function responses of the second model call. */
	static List<Map<String, Object>> secondCall(ApplicationContext context) {
		// The model bean may be the library's proxy of it: the script is the target's.
		Object bean = context.getBean(ScriptedGemini.class);
		Object target = org.springframework.aop.framework.AopProxyUtils.getSingletonTarget(bean);
		ScriptedGemini model = (ScriptedGemini) (target != null ? target : bean);
		assertEquals(2, model.sent.size(), "two model calls");
		return model.sent.get(1);
	}

	@Test
	void withoutAFixTheSecondModelCallDiesOnTheBreachText() {
		this.app.withPropertyValues("toolcall.fixes.enabled=false").run(context -> {
			RuntimeException e = assertThrows(RuntimeException.class, () -> ask(context));
			assertEquals("Failed to parse JSON: " + BREACH, e.getMessage());
		});
	}

	@Test
	void aJsonErrorProcessorAloneDoesNotReachTheBreach() {
		this.app.withUserConfiguration(JsonErrorProcessor.class).withPropertyValues("toolcall.fixes.enabled=false").run(context -> {
			RuntimeException e = assertThrows(RuntimeException.class, () -> ask(context));
			assertEquals("Failed to parse JSON: " + BREACH, e.getMessage());
		});
	}

	@Test
	void strictJsonOrWrapSendsTheBreachAsAResult() {
		this.app.withPropertyValues("toolcall.fixes.strict-json-or-wrap=true").run(context -> {
			assertEquals("done", ask(context));
			List<Map<String, Object>> sent = secondCall(context);
			assertEquals(Map.of("weather", "sunny"), sent.get(0).get("response"));
			assertEquals(Map.of("result", BREACH), sent.get(1).get("response"));
		});
	}

	@Test
	void strictJsonOrWrapAlsoRewritesTheRequestsOfStream() {
		this.app.withPropertyValues("toolcall.fixes.strict-json-or-wrap=true").run(context -> {
			List<String> chunks = context.getBean(ChatClient.Builder.class)
				.build()
				.prompt()
				.user("weather?")
				.toolCallbacks(X)
				.stream()
				.content()
				.collectList()
				.block();
			assertEquals("done", String.join("", chunks));
			assertEquals(Map.of("result", BREACH), secondCall(context).get(1).get("response"));
		});
	}

	@Test
	void breachThroughProcessorLetsTheJsonErrorProcessorShapeTheBreach() {
		this.app.withUserConfiguration(JsonErrorProcessor.class)
			.withPropertyValues("toolcall.fixes.breach-through-processor=true")
			.run(context -> {
				assertEquals("done", ask(context));
				assertEquals(Map.of("error", BREACH), secondCall(context).get(1).get("response"));
			});
	}

	@Test
	void theLibrarysJsonErrorProcessorWithBreachThroughProcessor() {
		this.app
			.withPropertyValues("toolcall.fixes.json-error-processor=true",
					"toolcall.fixes.breach-through-processor=true")
			.run(context -> {
				assertInstanceOf(JsonErrorToolExecutionExceptionProcessor.class,
						context.getBean(ToolExecutionExceptionProcessor.class));
				assertEquals("done", ask(context));
				assertEquals(Map.of("error", BREACH), secondCall(context).get(1).get("response"));
			});
	}

	@Test
	void theLibrarysJsonErrorProcessorAloneDoesNotReachTheBreach() {
		this.app.withPropertyValues("toolcall.fixes.json-error-processor=true").run(context -> {
			RuntimeException e = assertThrows(RuntimeException.class, () -> ask(context));
			assertEquals("Failed to parse JSON: " + BREACH, e.getMessage());
		});
	}

	@Test
	void errorKeySendsTheBreachAsAnError() {
		this.app.withPropertyValues("toolcall.fixes.error-key=true").run(context -> {
			assertEquals("done", ask(context));
			List<Map<String, Object>> sent = secondCall(context);
			assertEquals(Map.of("weather", "sunny"), sent.get(0).get("response"));
			assertEquals(Map.of("error", BREACH), sent.get(1).get("response"));
		});
	}

	// ------------------------------------------------------------- THROW

	final ApplicationContextRunner throwing = new ApplicationContextRunner()
		.withUserConfiguration(WeatherApplication.class)
		.withPropertyValues(SCRIPTED, "spring.ai.tools.limits.max-calls-per-tool-default=1",
				"spring.ai.tools.limits.on-limit-exceeded=THROW");

	/**
	 * One turn with the memory advisor inside the tool loop (ordered after
	 * ToolCallingAdvisor), through {@code call()} or {@code stream()}.
	 */
	static List<Message> turnWithMemoryInside(ApplicationContext context, boolean streamed) {
		ChatMemory memory = context.getBean(ChatMemory.class);
		var request = context.getBean(ChatClient.Builder.class)
			.build()
			.prompt()
			.user("weather?")
			.toolCallbacks(X)
			.advisors(a -> a
				.advisors(MessageChatMemoryAdvisor.builder(memory).order(ToolCallingAdvisor.DEFAULT_ORDER + 100).build())
				.param(ChatMemory.CONVERSATION_ID, "weather"));
		String answer = streamed ? String.join("", request.stream().content().collectList().block())
				: request.call().content();
		assertEquals(BREACH, answer, "the breach ends the turn as the answer");
		return memory.get("weather");
	}

	@Test
	void withoutCloseDanglingCallsTheMemoryKeepsACallWithoutAResponse() {
		this.throwing.withPropertyValues("toolcall.fixes.close-dangling-calls=false").run(context -> {
			List<Message> stored = turnWithMemoryInside(context, false);
			AssistantMessage last = assertInstanceOf(AssistantMessage.class, stored.get(stored.size() - 1));
			assertEquals(2, last.getToolCalls().size());
		});
	}

	@Test
	void closeDanglingCallsAnswersEveryCallInTheMemory() {
		this.throwing
			.withPropertyValues("toolcall.fixes.close-dangling-calls=true", "toolcall.fixes.strict-json-or-wrap=true")
			.run(context -> {
				List<Message> stored = turnWithMemoryInside(context, false);
				ToolResponseMessage last = assertInstanceOf(ToolResponseMessage.class, stored.get(stored.size() - 1));
				assertEquals(List.of("c1", "c2"), last.getResponses().stream().map(r -> r.id()).toList());
				assertEquals(BREACH, last.getResponses().get(1).responseData());
				// The next turn's request, built from the memory, converts.
				List<Message> next = new java.util.ArrayList<>(stored);
				next.add(new org.springframework.ai.chat.messages.UserMessage("and tomorrow?"));
				List<Message> sent = new GeminiSafeToolResponseAdvisor(FixSet.of("strict-json-or-wrap")).rewrite(next);
				assertTrue(GeminiRequests.contents(sent).size() >= 4);
			});
	}

	@Test
	void withoutCloseDanglingCallsAStreamedTurnLeavesACallWithoutAResponse() {
		this.throwing.withPropertyValues("toolcall.fixes.close-dangling-calls=false").run(context -> {
			List<Message> stored = turnWithMemoryInside(context, true);
			AssistantMessage last = assertInstanceOf(AssistantMessage.class, stored.get(stored.size() - 1));
			assertEquals(2, last.getToolCalls().size());
		});
	}

	@Test
	void closeDanglingCallsAnswersEveryCallOfAStreamedTurnInTheMemory() {
		this.throwing
			.withPropertyValues("toolcall.fixes.close-dangling-calls=true", "toolcall.fixes.strict-json-or-wrap=true")
			.run(context -> {
				List<Message> stored = turnWithMemoryInside(context, true);
				ToolResponseMessage last = assertInstanceOf(ToolResponseMessage.class, stored.get(stored.size() - 1));
				assertEquals(List.of("c1", "c2"), last.getResponses().stream().map(r -> r.id()).toList());
				assertEquals(BREACH, last.getResponses().get(1).responseData());
				AssistantMessage calls = assertInstanceOf(AssistantMessage.class, stored.get(stored.size() - 2));
				assertEquals(2, calls.getToolCalls().size());
			});
	}

	@Test
	void whenTheMemoryRefusesTheHandOffTheBatchsOwnFailureStillReachesTheCaller() {
		this.throwing.withPropertyValues("toolcall.fixes.close-dangling-calls=true").run(context -> {
			ChatMemory spring = context.getBean(ChatMemory.class);
			// A memory whose store fails on tool messages.
			ChatMemory failing = new ChatMemory() {

				@Override
				public void add(String conversationId, List<Message> messages) {
					if (messages.stream().anyMatch(ToolResponseMessage.class::isInstance)) {
						throw new IllegalStateException("store down");
					}
					spring.add(conversationId, messages);
				}

				@Override
				public List<Message> get(String conversationId) {
					return spring.get(conversationId);
				}

				@Override
				public void clear(String conversationId) {
					spring.clear(conversationId);
				}

			};
			// No tool x on this request: the batch fails on the unknown tool.
			IllegalStateException e = assertThrows(IllegalStateException.class, () -> context
				.getBean(ChatClient.Builder.class)
				.build()
				.prompt()
				.user("weather?")
				.advisors(a -> a
					.advisors(MessageChatMemoryAdvisor.builder(failing).order(ToolCallingAdvisor.DEFAULT_ORDER + 100).build())
					.param(ChatMemory.CONVERSATION_ID, "weather"))
				.call()
				.content());
			assertEquals("No ToolCallback found for tool name: x", e.getMessage());
			assertEquals("store down", e.getSuppressed()[0].getMessage());
		});
	}

	@Test
	void theLibraryTurnedOffLeavesSpringsBeans() {
		this.app.withPropertyValues("toolcall.fixes.enabled=false").run(context -> {
			assertTrue(context.getBean(org.springframework.ai.model.tool.ToolCallingManager.class)
				.getClass()
				.getName()
				.equals("org.springframework.ai.model.tool.DefaultToolCallingManager"));
			assertEquals(ToolCallingAdvisor.Builder.class, context.getBean(ToolCallingAdvisor.Builder.class).getClass());
			assertInstanceOf(ChatModel.class, context.getBean(ChatModel.class));
		});
	}

}
