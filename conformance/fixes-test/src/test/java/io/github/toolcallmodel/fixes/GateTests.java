package io.github.toolcallmodel.fixes;

import io.github.toolcallmodel.fixes.test.ToolCallPaths;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The gate in an application's own {@code @SpringBootTest}s, on the real
 * {@code GoogleGenAiChatModel}: one setup it passes, one it fails, naming the
 * scenarios and the remedy, and the same setup passing with those findings
 * accepted.
 */
class GateTests {

	@Nested
	@SpringBootTest(classes = GateApplication.class, properties = { "spring.ai.google.genai.chat.model=gemini-2.5-flash",
			"spring.ai.retry.max-attempts=1" })
	class TheLibrarysDefaults {

		@Autowired
		ApplicationContext context;

		@Test
		void passTheGate() {
			assertThat(GateApplication.ask(this.context.getBean(ChatClient.Builder.class).build())).isEqualTo("done");
			assertThat(ToolCallPaths.of(this.context)).areSafe();
		}

	}

	@Nested
	@SpringBootTest(classes = GateApplication.class, properties = { "spring.ai.google.genai.chat.model=gemini-2.5-flash",
			"spring.ai.retry.max-attempts=1", "toolcall.fixes.strict-json-or-wrap=false" })
	class WithoutStrictJson {

		@Autowired
		ApplicationContext context;

		@Test
		void failTheGateNamingTheScenariosAndTheRemedy() {
			GateApplication.ask(this.context.getBean(ChatClient.Builder.class).build());
			assertThatThrownBy(() -> assertThat(ToolCallPaths.of(this.context)).areSafe())
				.isInstanceOf(AssertionError.class)
				.hasMessageStartingWith("request path 1 (call, memory none, a ChatClient whose ToolCallingAdvisor is "
						+ "the library's io.github.toolcallmodel.fixes.FixingToolCallingAdvisor")
				.hasMessageContaining("): not safe: plain, half-json, empty, null, throws; remedy: with the fix "
						+ "library: toolcall.fixes.strict-json-or-wrap=true\n");
		}

		@Test
		void passTheGateWithTheFindingsAccepted() {
			GateApplication.ask(this.context.getBean(ChatClient.Builder.class).build());
			assertThat(ToolCallPaths.of(this.context))
				.accepting("plain parse # the tools answer JSON", "half-json lost", "empty parse", "null parse",
						"throws parse")
				.areSafe();
			// One left out: the gate names it alone.
			assertThatThrownBy(() -> assertThat(ToolCallPaths.of(this.context))
				.accepting("plain parse", "half-json lost", "empty parse", "null parse")
				.areSafe()).hasMessageContaining("): not safe: throws; remedy: ");
		}

	}

}
