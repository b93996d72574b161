package io.github.toolcallmodel.fixes;

import com.google.genai.Client;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * The gate's example application: Spring AI's own Gemini auto-configuration
 * over the real google-genai client, pointed at toolcall-fixes' loopback
 * {@link GeminiStub} (its test jar; this package, where the stub lives), and the
 * fix library with what the tests set. Its tool answers the weather as JSON.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class GateApplication {

	/** The model calls the tool on every other request, and answers {@code done} in between. */
	@Bean(destroyMethod = "close")
	GeminiStub geminiStub() {
		return new GeminiStub(i -> i % 2 == 0 ? GeminiStub.calls("x", "c" + i) : GeminiStub.text("done"));
	}

	@Bean
	Client googleGenAiClient(GeminiStub stub) {
		return stub.client();
	}

	/** One question, with the weather tool. */
	static String ask(ChatClient client) {
		return client.prompt()
			.user("Weather in Paris?")
			.toolCallbacks(GeminiApplicationTests.tool("x", "{\"sky\": \"sunny\", \"celsius\": 22}"))
			.advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "paris"))
			.call()
			.content();
	}

}
