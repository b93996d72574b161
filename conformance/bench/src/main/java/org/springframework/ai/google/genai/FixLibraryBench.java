package org.springframework.ai.google.genai;

import io.github.toolcallmodel.fixes.FixSet;
import io.github.toolcallmodel.fixes.InstalledFixes;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.MessageChatMemoryAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.DefaultToolDefinition;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The fix library's cost per model call beside Spring's own: one turn of a
 * Spring Boot application (ChatClient from the auto-configured builder, its
 * tool loop, a {@code MessageChatMemoryAdvisor} given per request outside or
 * inside the loop) with one tool round, so two model calls, each building
 * Gemini's real request ({@code createGeminiRequest}, everything
 * {@code GoogleGenAiChatModel.call} does before the network) in a
 * {@code GoogleGenAiChatModel} bean, so that the library treats it as Gemini.
 * The sets: {@code off} ({@code toolcall.fixes.enabled=false}: Spring's own
 * work), {@code unset} (no property: what the library installs by default,
 * decided per request), {@code default} (every switch an unset library may
 * turn on, {@code InstalledFixes.DECIDED_UNSET}, set true: the switches
 * {@code check}'s "Fix it today" names for seed 000) and {@code all}. The memory is cleared after each
 * turn, so every turn is the first.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class FixLibraryBench {

	/** The switches of each set, as properties. */
	static String[] switches(String set) {
		return switch (set) {
			case "off" -> new String[] { "toolcall.fixes.enabled=false" };
			case "unset" -> new String[0];
			// Every fix an unset switch may turn on, each set true.
			case "default" -> on(InstalledFixes.DECIDED_UNSET.names().toArray(String[]::new));
			// What `all` holds, from the fix table.
			case "all" -> on(FixSet.all().names().toArray(String[]::new));
			default -> throw new IllegalArgumentException(set);
		};
	}

	static String[] on(String... fixes) {
		String[] out = new String[fixes.length];
		for (int i = 0; i < fixes.length; i++) {
			out[i] = "toolcall.fixes." + fixes[i] + "=true";
		}
		return out;
	}

	@Param({ "off", "unset", "default", "all" })
	String set;

	/** Where the memory advisor stands against ToolCallingAdvisor. */
	@Param({ "outside", "inside" })
	String memoryAt = "outside";

	MessageChatMemoryAdvisor memoryAdvisor;

	ConfigurableApplicationContext context;

	ChatClient client;

	ChatMemory memory;

	/**
	 * A Gemini model that builds Gemini's request for every call, then calls the
	 * tool twice or answers: no client call, no network.
	 */
	static class RequestBuildingModel extends GoogleGenAiChatModel {

		RequestBuildingModel() {
			super(com.google.genai.Client.builder().apiKey("bench-no-network").vertexAI(false).build(),
					BenchModel.OPTIONS, org.springframework.ai.model.tool.ToolCallingManager.builder().build(),
					org.springframework.ai.retry.RetryUtils.DEFAULT_RETRY_TEMPLATE,
					io.micrometer.observation.ObservationRegistry.NOOP);
		}

		@Override
		public ChatResponse call(Prompt prompt) {
			List<Message> messages = prompt.getInstructions();
			var request = BenchModel.MODEL.createGeminiRequest(new Prompt(messages, BenchModel.OPTIONS));
			if (request.contents().isEmpty()) {
				throw new IllegalStateException("no contents");
			}
			boolean answered = messages.get(messages.size() - 1) instanceof ToolResponseMessage;
			AssistantMessage reply = answered ? new AssistantMessage("sunny")
					: AssistantMessage.builder()
						.content("")
						.toolCalls(List.of(new AssistantMessage.ToolCall("c1", "function", "weather", "{\"city\":\"Paris\"}"),
								new AssistantMessage.ToolCall("c2", "function", "weather", "{\"city\":\"Oslo\"}")))
						.build();
			return new ChatResponse(List.of(new Generation(reply)));
		}

	}

	static final ToolCallback WEATHER = new ToolCallback() {

		private final ToolDefinition definition = DefaultToolDefinition.builder()
			.name("weather")
			.description("the weather")
			.inputSchema("{\"type\":\"object\"}")
			.build();

		@Override
		public ToolDefinition getToolDefinition() {
			return this.definition;
		}

		@Override
		public String call(String toolInput) {
			// A fresh text per call, as a real tool returns: no cache sees the same instance.
			return new StringBuilder("{\"weather\":\"sunny\",\"celsius\":22}").toString();
		}

	};

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

		@Bean
		RequestBuildingModel chatModel() {
			return new RequestBuildingModel();
		}

	}

	@Setup
	public void setup() {
		this.context = new SpringApplicationBuilder(Application.class).web(WebApplicationType.NONE)
			.logStartupInfo(false)
			.properties(switches(this.set))
			.run();
		this.client = this.context.getBean(ChatClient.Builder.class).build();
		this.memory = this.context.getBean(ChatMemory.class);
		int toolOrder = org.springframework.ai.chat.client.advisor.ToolCallingAdvisor.DEFAULT_ORDER;
		this.memoryAdvisor = MessageChatMemoryAdvisor.builder(this.memory)
			.order("inside".equals(this.memoryAt) ? toolOrder + 1 : toolOrder - 1)
			.build();
		String answer = turn();
		if (!"sunny".equals(answer)) {
			throw new IllegalStateException("unexpected answer " + answer);
		}
	}

	@TearDown
	public void tearDown() {
		this.context.close();
	}

	/** One turn: two model calls and one batch of two tool calls. */
	@Benchmark
	public String turn() {
		try {
			return this.client.prompt()
				.user(new UserMessage("weather in Paris and Oslo?").getText())
				.toolCallbacks(WEATHER)
				.advisors(a -> a.advisors(this.memoryAdvisor)
					.param(ChatMemory.CONVERSATION_ID, "bench"))
				.call()
				.content();
		}
		finally {
			this.memory.clear("bench");
		}
	}

}
