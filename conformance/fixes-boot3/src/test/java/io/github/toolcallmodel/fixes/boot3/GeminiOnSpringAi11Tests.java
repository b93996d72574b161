package io.github.toolcallmodel.fixes.boot3;

import java.lang.reflect.Type;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import com.google.genai.Client;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.google.genai.GoogleGenAiChatModel;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.support.ToolCallbacks;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.tool.definition.DefaultToolDefinition;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.ai.tool.execution.ToolCallResultConverter;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A Spring Boot 3 application on Spring AI 1.1.2: Spring AI's own Google GenAI,
 * tool and ChatClient auto-configurations, the real {@code GoogleGenAiChatModel}
 * over the real google-genai client pointed at {@link GeminiStub} on loopback,
 * and this library with no property set. The model's private conversion
 * ({@code parseJsonToMap}) judges what reaches it, inside the model's own tool
 * loop on {@code call()} and {@code stream()}: with the library every tool
 * response reaches Gemini as a JSON object; without it the plain, pass-through
 * and throwing tools fail the call with {@code Failed to parse JSON} and
 * half-JSON loses its text.
 */
class GeminiOnSpringAi11Tests {

	static final String SUNNY = "Sunny, 22 °C";

	static final String HALF = "3.0 + 5.0 = 8.0";

	/** The application: its google-genai client (the stub's) and nothing else. */
	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class WeatherApplication {

		@Bean
		Client googleGenAiClient(GeminiStub stub) {
			return stub.client();
		}

	}

	/** A tool's result as its text, unconverted (a tool written to answer in prose). */
	public static class PlainText implements ToolCallResultConverter {

		@Override
		public String convert(Object result, Type returnType) {
			return String.valueOf(result);
		}

	}

	/** {@code @Tool} methods, as an application writes them. */
	static class WeatherTools {

		@Tool(description = "the weather, in prose", resultConverter = PlainText.class)
		String plain() {
			return SUNNY;
		}

		@Tool(description = "the weather service, down")
		String failing() {
			throw new IllegalStateException("Service unavailable");
		}

	}

	/** A callback handing back its service's text as it is, as MCP tools do. */
	static ToolCallback passThrough(String name, String answer) {
		ToolDefinition definition = DefaultToolDefinition.builder()
			.name(name)
			.description("a pass-through tool")
			.inputSchema("{\"type\":\"object\",\"properties\":{}}")
			.build();
		return new ToolCallback() {

			@Override
			public ToolDefinition getToolDefinition() {
				return definition;
			}

			@Override
			public String call(String toolInput) {
				return answer;
			}

		};
	}

	/** Each tool of the application, what it answers, and the text Gemini's conversion then reads. */
	enum Kind {

		PLAIN("plain", SUNNY), PASS_THROUGH("passThrough", SUNNY), THROWING("failing", "Service unavailable"),
		HALF_JSON("halfJson", HALF);

		final String tool;

		final String text;

		Kind(String tool, String text) {
			this.tool = tool;
			this.text = text;
		}

		ToolCallback callback() {
			return switch (this) {
				case PASS_THROUGH -> passThrough(this.tool, SUNNY);
				case HALF_JSON -> passThrough(this.tool, HALF);
				default -> Arrays.stream(ToolCallbacks.from(new WeatherTools()))
					.filter(t -> t.getToolDefinition().name().equals(this.tool))
					.findFirst()
					.orElseThrow();
			};
		}

	}

	static Stream<Arguments> cases() {
		return Stream.of(Kind.values()).flatMap(k -> Stream.of(Arguments.of(k, false), Arguments.of(k, true)));
	}

	static ApplicationContextRunner app(GeminiStub stub) {
		return new ApplicationContextRunner().withUserConfiguration(WeatherApplication.class)
			.withBean(GeminiStub.class, () -> stub)
			.withPropertyValues("spring.ai.retry.max-attempts=1");
	}

	static String ask(ApplicationContext context, Kind kind, boolean streamed) {
		var request = context.getBean(ChatClient.Builder.class)
			.build()
			.prompt()
			.user("weather?")
			.toolCallbacks(kind.callback());
		return streamed ? String.join("", request.stream().content().collectList().block()) : request.call().content();
	}

	@ParameterizedTest(name = "{0}, stream={1}")
	@MethodSource("cases")
	void byDefaultEveryToolResponseReachesGeminiAsAJsonObject(Kind kind, boolean streamed) {
		try (GeminiStub stub = GeminiStub.callsThenDone(kind.tool)) {
			app(stub).run(context -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(ChatModel.class)).isInstanceOf(GoogleGenAiChatModel.class)
					.isInstanceOf(GeminiSafeChatModel.Wrapped.class);
				assertThat(context.getBean(ToolCallingManager.class)).isInstanceOf(JsonSafeToolCallingManager.class);
				assertThat(ask(context, kind, streamed)).isEqualTo("done");
				assertThat(stub.paths()).hasSize(2)
					.allMatch(p -> p.contains(streamed ? ":streamGenerateContent" : ":generateContent"));
				assertThat(stub.functionResponses().get(1)).containsExactly(Map.of("result", kind.text));
			});
		}
	}

	@ParameterizedTest(name = "{0}, stream={1}")
	@MethodSource("cases")
	void withTheLibraryOffGeminisConversionFailsOrLosesTheText(Kind kind, boolean streamed) {
		try (GeminiStub stub = GeminiStub.callsThenDone(kind.tool)) {
			app(stub).withPropertyValues("toolcall.fixes.enabled=false").run(context -> {
				assertThat(context.getBean(ChatModel.class)).isNotInstanceOf(GeminiSafeChatModel.Wrapped.class);
				if (kind == Kind.HALF_JSON) {
					// Spring's reader takes the first value and drops the rest (issue 5437).
					assertThat(ask(context, kind, streamed)).isEqualTo("done");
					assertThat(stub.functionResponses().get(1)).containsExactly(Map.of("result", 3.0));
					return;
				}
				assertThatThrownBy(() -> ask(context, kind, streamed))
					.hasStackTraceContaining("Failed to parse JSON: " + kind.text);
				assertThat(stub.requests()).hasSize(1);
			});
		}
	}

	/** A conversation holding a call of a tool and its plain-text answer, as an application running the loop sends it. */
	static Prompt heldToolResponse() {
		List<Message> messages = List.of(new UserMessage("weather?"),
				AssistantMessage.builder()
					.content("")
					.toolCalls(List.of(new AssistantMessage.ToolCall("c1", "function", "x", "{}")))
					.build(),
				ToolResponseMessage.builder()
					.responses(List.of(new ToolResponseMessage.ToolResponse("c1", "x", SUNNY)))
					.build());
		return new Prompt(messages);
	}

	@Test
	void aDirectCallHoldingAToolResponseIsCovered() {
		try (GeminiStub stub = new GeminiStub(i -> GeminiStub.text("done"))) {
			app(stub).run(context -> {
				ChatModel model = context.getBean(ChatModel.class);
				ChatResponse response = model.call(heldToolResponse());
				assertThat(response.getResult().getOutput().getText()).isEqualTo("done");
				List<ChatResponse> streamed = model.stream(heldToolResponse()).collectList().block();
				assertThat(streamed.get(streamed.size() - 1).getResult().getOutput().getText()).isEqualTo("done");
				assertThat(stub.functionResponses()).hasSize(2)
					.allSatisfy(sent -> assertThat(sent).containsExactly(Map.of("result", SUNNY)));
			});
		}
	}

	@Test
	void withTheLibraryOffADirectCallDies() {
		try (GeminiStub stub = new GeminiStub(i -> GeminiStub.text("done"))) {
			app(stub).withPropertyValues("toolcall.fixes.enabled=false").run(context -> {
				ChatModel model = context.getBean(ChatModel.class);
				assertThatThrownBy(() -> model.call(heldToolResponse()))
					.hasStackTraceContaining("Failed to parse JSON: " + SUNNY);
				assertThatThrownBy(() -> model.stream(heldToolResponse()).blockLast())
					.hasStackTraceContaining("Failed to parse JSON: " + SUNNY);
				assertThat(stub.requests()).isEmpty();
			});
		}
	}

	@Test
	void aReturnDirectToolsTextReachesTheCallerUnchanged() {
		ToolCallback direct = new ToolCallback() {

			private final ToolCallback plain = passThrough("direct", SUNNY);

			@Override
			public ToolDefinition getToolDefinition() {
				return this.plain.getToolDefinition();
			}

			@Override
			public org.springframework.ai.tool.metadata.ToolMetadata getToolMetadata() {
				return org.springframework.ai.tool.metadata.ToolMetadata.builder().returnDirect(true).build();
			}

			@Override
			public String call(String toolInput) {
				return SUNNY;
			}

		};
		try (GeminiStub stub = GeminiStub.callsThenDone("direct")) {
			app(stub).run(context -> {
				String answer = context.getBean(ChatClient.Builder.class)
					.build()
					.prompt()
					.user("weather?")
					.toolCallbacks(direct)
					.call()
					.content();
				assertThat(answer).isEqualTo(SUNNY);
				assertThat(stub.requests()).hasSize(1);
			});
		}
	}

	@Test
	void theManagerBeanCalledByTheApplicationItselfKeepsTheToolsText() {
		try (GeminiStub stub = new GeminiStub(i -> GeminiStub.text("done"))) {
			app(stub).run(context -> {
				ToolCallingManager manager = context.getBean(ToolCallingManager.class);
				Prompt prompt = new Prompt(List.of(new UserMessage("weather?")),
						org.springframework.ai.model.tool.ToolCallingChatOptions.builder()
							.toolCallbacks(passThrough("x", SUNNY))
							.internalToolExecutionEnabled(false)
							.build());
				ChatResponse calls = new ChatResponse(List.of(new org.springframework.ai.chat.model.Generation(
						AssistantMessage.builder()
							.content("")
							.toolCalls(List.of(new AssistantMessage.ToolCall("c1", "function", "x", "{}")))
							.build())));
				List<Message> history = manager.executeToolCalls(prompt, calls).conversationHistory();
				assertThat(((ToolResponseMessage) history.get(history.size() - 1)).getResponses().get(0).responseData())
					.isEqualTo(SUNNY);
			});
		}
	}

}
