package io.github.toolcallmodel.fixes;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.ToolCallingAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration;
import org.springframework.ai.model.chat.memory.autoconfigure.ChatMemoryAutoConfiguration;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.model.tool.DefaultToolCallingManager;
import org.springframework.ai.model.tool.ToolCallLimitBehavior;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/** Each switch installs its fix, and nothing changes while every switch is off. */
class ToolCallFixesAutoConfigurationTests {

	@Configuration(proxyBeanMethods = false)
	static class Model {

		@Bean
		ScriptedGemini chatModel() {
			return new ScriptedGemini();
		}

	}

	final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ToolCallingAutoConfiguration.class, ChatClientAutoConfiguration.class,
				ChatMemoryAutoConfiguration.class, ToolCallFixesAutoConfiguration.class))
		.withUserConfiguration(Model.class);

	@Test
	void theLibraryOffLeavesSpringsBeans() {
		this.runner.withPropertyValues("toolcall.fixes.enabled=off").run(context -> {
			assertThat(context).doesNotHaveBean(InstalledFixes.class);
			assertThat(context.getBean(ToolCallingManager.class)).isInstanceOf(DefaultToolCallingManager.class);
			assertThat(context.getBean(ToolCallingAdvisor.Builder.class).getClass())
				.isEqualTo(ToolCallingAdvisor.Builder.class);
			assertThat(context.getBean(ChatMemory.class)).isInstanceOf(MessageWindowChatMemory.class);
			assertThat(context.getBean(org.springframework.ai.chat.model.ChatModel.class))
				.isNotInstanceOf(GeminiSafeChatModel.Wrapped.class);
		});
	}

	@Test
	void everySwitchSetOffLeavesSpringsBeans() {
		this.runner.withPropertyValues(InstalledFixes.NAMES.stream().map(n -> "toolcall.fixes." + n + "=false").toArray(String[]::new)).run(context -> {
			assertThat(context.getBean(InstalledFixes.class).decisions().values()).noneMatch(InstalledFixes.Decision::on);
			assertThat(context.getBean(org.springframework.ai.chat.model.ChatModel.class))
				.isNotInstanceOf(GeminiSafeChatModel.Wrapped.class);
			assertThat(context.getBean(ToolCallingManager.class)).isInstanceOf(DefaultToolCallingManager.class);
			assertThat(context.getBean(ToolCallingAdvisor.Builder.class).getClass())
				.isEqualTo(ToolCallingAdvisor.Builder.class);
			assertThat(context.getBean(ChatMemory.class)).isInstanceOf(MessageWindowChatMemory.class);
			assertThat(advisors(context.getBean(ChatClient.Builder.class)))
				.noneMatch(GeminiSafeToolResponseAdvisor.class::isInstance);
		});
	}

	@Test
	void managerSwitchesWrapSpringsManager() {
		for (String fix : List.of("breach-through-processor", "close-dangling-calls", "error-key")) {
			this.runner.withPropertyValues("toolcall.fixes." + fix + "=true").run(context -> {
				ToolCallingManager m = context.getBean(ToolCallingManager.class);
				assertThat(m).as(fix).isInstanceOf(FixingToolCallingManager.class);
				assertThat(((FixingToolCallingManager) m).getDelegate()).isInstanceOf(DefaultToolCallingManager.class);
			});
		}
	}

	@Test
	void closeDanglingCallsRegistersItsToolCallingAdvisorBuilder() {
		this.runner.withPropertyValues("toolcall.fixes.close-dangling-calls=true").run(context -> {
			ToolCallingAdvisor.Builder<?> b = context.getBean(ToolCallingAdvisor.Builder.class);
			assertThat(b).isInstanceOf(FixingToolCallingAdvisor.Builder.class);
			assertThat(b.copy().build()).isInstanceOf(FixingToolCallingAdvisor.class);
		});
	}

	@Test
	void geminiSwitchesWrapTheChatModel() {
		// The pull requests' switches by their fix names, as check prints them.
		for (String fix : List.of("strict-json-or-wrap", "error-key", "pr-6907-wrap-on-failure",
				"pr-6049-strict-wrap")) {
			this.runner.withPropertyValues("toolcall.fixes." + fix + "=true").run(context -> {
				assertThat(context.getBean(org.springframework.ai.chat.model.ChatModel.class)).as(fix)
					.isInstanceOf(GeminiSafeChatModel.Wrapped.class);
				assertThat(context.getBean(InstalledFixes.class).on(fix)).as(fix).isTrue();
			});
		}
		// Unset, a chat model that is not Gemini's is left as it is.
		this.runner.run(context -> assertThat(context.getBean(org.springframework.ai.chat.model.ChatModel.class))
			.isNotInstanceOf(GeminiSafeChatModel.Wrapped.class));
	}

	@Test
	void windowSwitchesReplaceTheMemoryAndStoreAnsweredGenerationWrapsIt() {
		this.runner.withPropertyValues("toolcall.fixes.keep-current-turn=true", "toolcall.fixes.memory-max-messages=7")
			.run(context -> assertThat(window(context.getBean(ChatMemory.class))).isInstanceOf(TurnKeepingWindowChatMemory.class));
		this.runner.withPropertyValues("toolcall.fixes.evict-orphan-responses=true")
			.run(context -> assertThat(window(context.getBean(ChatMemory.class))).isInstanceOf(TurnKeepingWindowChatMemory.class));
		this.runner
			.withPropertyValues("toolcall.fixes.store-answered-generation=true", "toolcall.fixes.keep-current-turn=false")
			.run(context -> {
				ChatMemory m = context.getBean(ChatMemory.class);
				assertThat(m).isInstanceOf(AnsweredGenerationChatMemory.class);
				assertThat(((AnsweredGenerationChatMemory) m).getDelegate()).isInstanceOf(MessageWindowChatMemory.class);
			});
	}

	@Test
	void theAutoConfigurationIsRegisteredAndEveryPropertyDescribed() throws Exception {
		ClassLoader cl = getClass().getClassLoader();
		try (InputStream in = cl
			.getResourceAsStream("META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports")) {
			assertThat(new String(in.readAllBytes(), StandardCharsets.UTF_8))
				.contains(ToolCallFixesAutoConfiguration.class.getName());
		}
		try (InputStream in = cl.getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
			String metadata = new String(in.readAllBytes(), StandardCharsets.UTF_8);
			List<String> properties = new java.util.ArrayList<>(FixTable.names());
			properties.addAll(List.of("memory-max-messages", "json-error-processor", "enabled", "judge.enabled",
					"judge.accept", "judge.foresee"));
			for (String p : properties) {
				assertThat(metadata).contains("\"name\": \"toolcall.fixes." + p + "\"");
			}
			// One spelling for each switch: check's.
			assertThat(metadata).doesNotContain("toolcall.fixes.pr6907").doesNotContain("toolcall.fixes.pr6049");
		}
	}

	/** An application that builds its manager itself, with its own processor (not a bean). */
	@Configuration(proxyBeanMethods = false)
	static class OwnManager {

		@Bean
		ToolCallingManager toolCallingManager() {
			return DefaultToolCallingManager.builder()
				.toolExecutionExceptionProcessor(e -> "{\"error\":\"" + e.getCause().getMessage() + "\"}")
				.maxCallsPerTool("x", 1)
				.onLimitExceeded(ToolCallLimitBehavior.RETURN_ERROR_RESPONSE)
				.build();
		}

	}

	@Test
	void aBreachGoesThroughTheProcessorTheApplicationsManagerWasBuiltWith() {
		this.runner.withUserConfiguration(OwnManager.class)
			.withPropertyValues("toolcall.fixes.breach-through-processor=true")
			.run(context -> {
				ToolCallingManager m = context.getBean(ToolCallingManager.class);
				assertThat(m).isInstanceOf(FixingToolCallingManager.class);
				var result = m.executeToolCalls(FixingToolCallingManagerTests.prompt(FixingToolCallingManagerTests.X),
						FixingToolCallingManagerTests.reply("x:c1", "x:c2"));
				var tool = (ToolResponseMessage) result.conversationHistory().get(result.conversationHistory().size() - 1);
				assertThat(tool.getResponses().get(1).responseData())
					.isEqualTo("{\"error\":\"" + FixingToolCallingManagerTests.BREACH + "\"}");
			});
	}

	@Test
	void aSwitchReadsAsEveryBooleanPropertyDoes() {
		// "on" is true to the binder: every part of the fix is installed, never half of it.
		this.runner.withPropertyValues("toolcall.fixes.close-dangling-calls=on").run(context -> {
			assertThat(context.getBean(ToolCallingManager.class)).isInstanceOf(FixingToolCallingManager.class);
			assertThat(context.getBean(ToolCallingAdvisor.Builder.class)).isInstanceOf(FixingToolCallingAdvisor.Builder.class);
		});
		this.runner.withPropertyValues("toolcall.fixes.keep-current-turn=yes")
			.run(context -> assertThat(window(context.getBean(ChatMemory.class))).isInstanceOf(TurnKeepingWindowChatMemory.class));
		this.runner.withPropertyValues("toolcall.fixes.close-dangling-calls=false").run(context -> assertThat(
				context.getBean(ToolCallingAdvisor.Builder.class).getClass()).isEqualTo(ToolCallingAdvisor.Builder.class));
	}

	@Test
	void closeDanglingCallsWithoutAToolCallingManagerLeavesTheContextStarting() {
		new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(ChatClientAutoConfiguration.class, ToolCallFixesAutoConfiguration.class))
			.withUserConfiguration(Model.class)
			.withPropertyValues("toolcall.fixes.close-dangling-calls=true")
			.run(context -> {
				assertThat(context).hasNotFailed();
				assertThat(context).doesNotHaveBean(ToolCallingAdvisor.Builder.class);
			});
	}

	/** The window behind the {@code store-answered-generation} wrapper the library puts around every memory. */
	static ChatMemory window(ChatMemory memory) {
		return memory instanceof AnsweredGenerationChatMemory a ? a.getDelegate() : memory;
	}

	/** The default advisors a ChatClient built from {@code builder} holds. */
	static List<Object> advisors(ChatClient.Builder builder) {
		List<Object> seen = new ArrayList<>();
		ChatClient client = builder.build();
		client.prompt().advisors(a -> seen.add(a)).user("x");
		// The builder's defaults are in the request spec built from the client.
		Object spec = client.prompt();
		try {
			var f = spec.getClass().getDeclaredField("advisors");
			f.setAccessible(true);
			seen.addAll((List<?>) f.get(spec));
		}
		catch (ReflectiveOperationException e) {
			throw new IllegalStateException(e);
		}
		return seen;
	}

}
