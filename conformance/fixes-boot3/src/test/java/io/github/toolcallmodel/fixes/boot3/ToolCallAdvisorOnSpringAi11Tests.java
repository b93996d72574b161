package io.github.toolcallmodel.fixes.boot3;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.MessageChatMemoryAdvisor;
import org.springframework.ai.chat.client.advisor.ToolCallAdvisor;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.context.ApplicationContext;

import static io.github.toolcallmodel.fixes.boot3.GeminiOnSpringAi11Tests.SUNNY;
import static io.github.toolcallmodel.fixes.boot3.GeminiOnSpringAi11Tests.app;
import static io.github.toolcallmodel.fixes.boot3.GeminiOnSpringAi11Tests.passThrough;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The same Spring Boot 3 application on Spring AI 1.1.2 (the real
 * {@code GoogleGenAiChatModel} against {@link GeminiStub}), whose
 * {@code ChatClient} registers 1.1's opt-in {@code ToolCallAdvisor} as an
 * application writes it, {@code ToolCallAdvisor.builder().build()}: its loop
 * runs with its own {@code ToolCallingManager.builder().build()}, not this
 * library's manager bean, and calls the chat model once a round with internal
 * tool execution off. The library, with no property set, acts at the chat
 * model it proxies, where each round's request is converted: a tool's plain
 * text still reaches Gemini as a JSON object.
 */
class ToolCallAdvisorOnSpringAi11Tests {

	static String askThroughToolCallAdvisor(ApplicationContext context, MessageChatMemoryAdvisor memory) {
		var advisors = new java.util.ArrayList<org.springframework.ai.chat.client.advisor.api.Advisor>();
		advisors.add(ToolCallAdvisor.builder().build());
		if (memory != null) {
			advisors.add(memory);
		}
		return context.getBean(ChatClient.Builder.class)
			.build()
			.prompt()
			.user("weather?")
			.toolCallbacks(passThrough("plain", SUNNY))
			.advisors(advisors)
			.call()
			.content();
	}

	@Test
	void byDefaultAPlainTextToolKeepsTheCallAlive() {
		try (GeminiStub stub = GeminiStub.callsThenDone("plain")) {
			app(stub).run(context -> {
				assertThat(context.getBean(ToolCallingManager.class)).isInstanceOf(JsonSafeToolCallingManager.class);
				assertThat(askThroughToolCallAdvisor(context, null)).isEqualTo("done");
				assertThat(stub.paths()).hasSize(2).allMatch(p -> p.contains(":generateContent"));
				assertThat(stub.functionResponses().get(1)).containsExactly(Map.of("result", SUNNY));
			});
		}
	}

	@Test
	void withTheLibraryOffAPlainTextToolFailsTheCall() {
		try (GeminiStub stub = GeminiStub.callsThenDone("plain")) {
			app(stub).withPropertyValues("toolcall.fixes.enabled=false").run(context -> {
				assertThatThrownBy(() -> askThroughToolCallAdvisor(context, null))
					.hasStackTraceContaining("Failed to parse JSON: " + SUNNY);
				assertThat(stub.requests()).hasSize(1);
			});
		}
	}

	/**
	 * The memory advisor at its default order stands inside ToolCallAdvisor's
	 * loop (docs/BEHAVIOUR.md section 13.1): the library keeps the call alive,
	 * but the second request holds the memory's copy of the user message and
	 * the call before the loop's own, which no fix of the library removes.
	 */
	@Test
	void aMemoryInsideTheLoopSendsTheCallTwiceEvenWithTheLibrary() {
		try (GeminiStub stub = GeminiStub.callsThenDone("plain")) {
			app(stub).run(context -> {
				var memory = MessageChatMemoryAdvisor.builder(MessageWindowChatMemory.builder().build()).build();
				assertThat(askThroughToolCallAdvisor(context, memory)).isEqualTo("done");
				List<String> second = shape(GeminiStub.JSON.readTree(stub.requests().get(1)));
				assertThat(second).containsExactly("user:text", "model:functionCall", "user:text", "model:functionCall",
						"user:functionResponse");
			});
		}
	}

	/** Each content of a Gemini request as {@code role:kind of its first part}. */
	static List<String> shape(JsonNode request) {
		var out = new java.util.ArrayList<String>();
		for (JsonNode c : request.path("contents")) {
			String part = c.path("parts").path(0).fieldNames().next();
			out.add(c.path("role").asText() + ":" + part);
		}
		return out;
	}

}
