package io.github.toolcallmodel.fixes;

import java.util.List;
import java.util.Map;
import java.util.function.Function;
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
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.DefaultToolDefinition;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The README's example application on the real {@code GoogleGenAiChatModel}: Spring
 * AI's own Gemini auto-configuration over the real google-genai client, pointed at
 * {@link GeminiStub} on loopback, and the library added with no property set. Its
 * tool {@code x} is a pass-through callback (as an MCP tool is) answering the
 * plain text {@code Sunny, 22 °C}. The model's private conversion judges what the
 * library sends: without the library the second request dies with
 * {@code Failed to parse JSON}; with it, every request the model converts carries
 * the response as {@code {"result": "Sunny, 22 °C"}}, however the
 * {@code ChatClient} was built, on {@code call()} and {@code stream()}, and for a
 * direct {@code chatModel.call(prompt)}.
 */
class GeminiApplicationTests {

	static final String SUNNY = "Sunny, 22 °C";

	/** The application: its google-genai client (here: the stub's) and nothing else. */
	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class WeatherApplication {

		@Bean
		Client googleGenAiClient(GeminiStub stub) {
			return stub.client();
		}

	}

	/** Tool x: the weather, as plain text. */
	static final ToolCallback X = tool("x", SUNNY);

	static ToolCallback tool(String name, String answer) {
		ToolDefinition definition = DefaultToolDefinition.builder()
			.name(name)
			.description("the weather")
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

	static ApplicationContextRunner app(GeminiStub stub) {
		return new ApplicationContextRunner().withUserConfiguration(WeatherApplication.class)
			.withBean(GeminiStub.class, () -> stub)
			.withPropertyValues("spring.ai.google.genai.chat.model=gemini-2.5-flash", "spring.ai.retry.max-attempts=1");
	}

	/** How the application builds its ChatClient. */
	enum Construction {

		BUILDER_BEAN(c -> c.getBean(ChatClient.Builder.class).build()),
		BUILDER_OF_MODEL(c -> ChatClient.builder(c.getBean(ChatModel.class)).build()),
		CREATE(c -> ChatClient.create(c.getBean(ChatModel.class)));

		final Function<ApplicationContext, ChatClient> client;

		Construction(Function<ApplicationContext, ChatClient> client) {
			this.client = client;
		}

	}

	static Stream<Arguments> paths() {
		return Stream.of(Construction.values())
			.flatMap(c -> Stream.of(Arguments.of(c, false), Arguments.of(c, true)));
	}

	static String ask(ApplicationContext context, Construction construction, boolean streamed) {
		var request = construction.client.apply(context).prompt().user("weather?").toolCallbacks(X);
		return streamed ? String.join("", request.stream().content().collectList().block()) : request.call().content();
	}

	@ParameterizedTest(name = "{0}, stream={1}")
	@MethodSource("paths")
	void byDefaultEveryChatClientSendsThePlainTextAsAResult(Construction construction, boolean streamed) {
		try (GeminiStub stub = GeminiStub.callsThenDone("x", "c1")) {
			app(stub).run(context -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(ChatModel.class)).isInstanceOf(GoogleGenAiChatModel.class)
					.isInstanceOf(GeminiSafeChatModel.Wrapped.class);
				assertThat(ask(context, construction, streamed)).isEqualTo("done");
				assertThat(stub.requests()).hasSize(2);
				assertThat(stub.paths().get(1)).contains(streamed ? ":streamGenerateContent" : ":generateContent");
				assertThat(stub.functionResponses().get(1))
					.containsExactly(Map.of("name", "x", "response", Map.of("result", SUNNY)));
			});
		}
	}

	@ParameterizedTest(name = "{0}, stream={1}")
	@MethodSource("paths")
	void withTheLibraryOffTheSecondRequestDiesInGeminisConversion(Construction construction, boolean streamed) {
		try (GeminiStub stub = GeminiStub.callsThenDone("x", "c1")) {
			app(stub).withPropertyValues("toolcall.fixes.enabled=false").run(context -> {
				assertThat(context.getBean(ChatModel.class)).isNotInstanceOf(GeminiSafeChatModel.Wrapped.class);
				assertThatThrownBy(() -> ask(context, construction, streamed))
					.hasStackTraceContaining("Failed to parse JSON: " + SUNNY);
				assertThat(stub.requests()).hasSize(1);
			});
		}
	}

	/** A conversation holding a call of x and its plain-text answer, sent by the application itself. */
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
				assertThat(stub.requests()).hasSize(2);
				for (List<Map<String, Object>> sent : stub.functionResponses()) {
					assertThat(sent).containsExactly(Map.of("name", "x", "response", Map.of("result", SUNNY)));
				}
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
	void aGeminiModelBuiltOutsideTheContextIsWrappedInOneLine() {
		try (GeminiStub stub = new GeminiStub(i -> GeminiStub.text("done"))) {
			GoogleGenAiChatModel built = GoogleGenAiChatModel.builder()
				.genAiClient(stub.client())
				.options(org.springframework.ai.google.genai.GoogleGenAiChatOptions.builder()
					.model("gemini-2.5-flash")
					.build())
				.toolCallingManager(org.springframework.ai.model.tool.ToolCallingManager.builder().build())
				.build();
			GoogleGenAiChatModel model = GeminiSafeChatModel.wrap(built);
			assertThat(model.call(heldToolResponse()).getResult().getOutput().getText()).isEqualTo("done");
			assertThat(stub.functionResponses().get(0))
				.containsExactly(Map.of("name", "x", "response", Map.of("result", SUNNY)));
		}
	}

}
