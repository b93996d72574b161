package io.github.toolcallmodel.fixes.boot3;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the auto-configuration installs from the beans and switches, and that it
 * is registered and described as Spring Boot expects.
 */
class ToolCallFixesAutoConfigurationTests {

	/** A chat model that is not Gemini's. */
	static final ChatModel OTHER = new ChatModel() {

		@Override
		public ChatResponse call(Prompt prompt) {
			throw new UnsupportedOperationException();
		}

	};

	final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(
			AutoConfigurations.of(ToolCallingAutoConfiguration.class, ToolCallFixesAutoConfiguration.class));

	@Test
	void withoutAGeminiModelNothingIsWrapped() {
		this.runner.withBean(ChatModel.class, () -> OTHER).run(context -> {
			assertThat(context).hasNotFailed();
			assertThat(context.getBean(ToolCallingManager.class)).isNotInstanceOf(JsonSafeToolCallingManager.class);
			assertThat(context.getBean(ChatModel.class)).isSameAs(OTHER);
		});
	}

	@Test
	void setTrueItWrapsEveryChatModelAndTheManager() {
		this.runner.withBean(ChatModel.class, () -> OTHER)
			.withPropertyValues("toolcall.fixes.strict-json-or-wrap=true")
			.run(context -> {
				assertThat(context.getBean(ToolCallingManager.class)).isInstanceOf(JsonSafeToolCallingManager.class);
				assertThat(context.getBean(ChatModel.class)).isInstanceOf(GeminiSafeChatModel.Wrapped.class);
			});
	}

	/** A chat model whose class cannot be subclassed. */
	static final class FinalModel implements ChatModel {

		@Override
		public ChatResponse call(Prompt prompt) {
			throw new UnsupportedOperationException();
		}

	}

	@Test
	void aModelItCannotProxyIsLeftAsItIsAndTheApplicationStarts() {
		FinalModel model = new FinalModel();
		this.runner.withBean(FinalModel.class, () -> model)
			.withPropertyValues("toolcall.fixes.strict-json-or-wrap=true")
			.run(context -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(FinalModel.class)).isSameAs(model);
				assertThat(context.getBean(ToolCallingManager.class)).isInstanceOf(JsonSafeToolCallingManager.class);
			});
	}

	@Test
	void setFalseOrDisabledItWrapsNothing() {
		for (String off : new String[] { "toolcall.fixes.strict-json-or-wrap=false", "toolcall.fixes.enabled=off" }) {
			this.runner.withBean(ChatModel.class, () -> OTHER).withPropertyValues(off).run(context -> {
				assertThat(context).hasNotFailed();
				assertThat(context.getBean(ToolCallingManager.class))
					.isNotInstanceOf(JsonSafeToolCallingManager.class);
				assertThat(context.getBean(ChatModel.class)).isSameAs(OTHER);
			});
		}
	}

	@Test
	void enabledReadsAsABoolean() {
		this.runner.withBean(ChatModel.class, () -> OTHER)
			.withPropertyValues("toolcall.fixes.enabled=on", "toolcall.fixes.strict-json-or-wrap=yes")
			.run(context -> assertThat(context.getBean(ChatModel.class))
				.isInstanceOf(GeminiSafeChatModel.Wrapped.class));
	}

	@Test
	void itReadsTheSpringAiVersionItRunsOn() {
		assertThat(ToolCallFixesAutoConfiguration.springAiVersion(getClass().getClassLoader())).isEqualTo("1.1.2");
	}

	@Test
	void theFixesNotOn11AreTheTablesOthers() {
		assertThat(ToolCallFixesAutoConfiguration.notOn11()).contains("close-dangling-calls", "keep-current-turn")
			.doesNotContain("strict-json-or-wrap");
	}

	@Test
	void itIsRegisteredAndItsSwitchesDescribed() throws Exception {
		String imports = resource(
				"META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports");
		assertThat(imports.lines()).contains(ToolCallFixesAutoConfiguration.class.getName());
		String metadata = resource("META-INF/spring-configuration-metadata.json");
		assertThat(metadata).contains("\"toolcall.fixes.enabled\"", "\"toolcall.fixes.strict-json-or-wrap\"");
	}

	static String resource(String name) throws Exception {
		try (InputStream in = ToolCallFixesAutoConfigurationTests.class.getClassLoader().getResourceAsStream(name)) {
			assertThat(in).as(name).isNotNull();
			return new String(in.readAllBytes(), StandardCharsets.UTF_8);
		}
	}

}
