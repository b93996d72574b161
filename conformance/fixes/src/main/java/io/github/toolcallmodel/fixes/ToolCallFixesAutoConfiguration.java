package io.github.toolcallmodel.fixes;

import org.springframework.ai.chat.client.ChatClientCustomizer;
import org.springframework.ai.chat.client.advisor.ToolCallingAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.ChatMemoryRepository;
import org.springframework.ai.chat.memory.InMemoryChatMemoryRepository;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionEligibilityChecker;
import org.springframework.ai.tool.resolution.ToolCallbackResolver;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Installs the fixes switched on under {@code toolcall.fixes}, around the beans
 * of Spring AI's own auto-configurations:
 * <ul>
 * <li>the {@code ToolCallingManager} bean is wrapped in a
 * {@link FixingToolCallingManager} ({@code breach-through-processor},
 * {@code close-dangling-calls}, {@code error-key}), and the
 * {@code ToolCallbackResolver} bean so that the wrapper sees resolved tools;</li>
 * <li>a {@link FixingToolCallingAdvisor.Builder} becomes the
 * {@code ToolCallingAdvisor.Builder} bean that ChatClient registers from
 * ({@code close-dangling-calls});</li>
 * <li>a {@link ChatClientCustomizer} adds {@link GeminiSafeToolResponseAdvisor}
 * ({@code strict-json-or-wrap}, {@code error-key});</li>
 * <li>the {@code ChatMemory} bean is a {@link TurnKeepingWindowChatMemory}
 * ({@code keep-current-turn}, {@code evict-orphan-responses}) and is wrapped in
 * an {@link AnsweredGenerationChatMemory} ({@code store-answered-generation}).</li>
 * </ul>
 */
@AutoConfiguration(
		afterName = "org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration",
		beforeName = { "org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration",
				"org.springframework.ai.model.chat.memory.autoconfigure.ChatMemoryAutoConfiguration" })
@ConditionalOnClass(ToolCallingManager.class)
@EnableConfigurationProperties(ToolCallFixesProperties.class)
public class ToolCallFixesAutoConfiguration {

	/** Spring AI's property of the ToolCallingAdvisor's order. */
	static final String ADVISOR_ORDER = "spring.ai.chat.client.tool-calling.advisor-order";

	@Bean
	static BeanPostProcessor toolCallFixesBeanPostProcessor(Environment environment) {
		// Bound from the environment here: a post-processor runs before the
		// properties bean can be bound.
		ToolCallFixesProperties p = bind(environment);
		return new BeanPostProcessor() {
			@Override
			public Object postProcessAfterInitialization(Object bean, String beanName) {
				if (bean instanceof ToolCallbackResolver resolver && p.wrapsManager()) {
					return FixingToolCallingManager.recordingResolver(resolver);
				}
				if (bean instanceof ToolCallingManager manager && !(manager instanceof FixingToolCallingManager)
						&& p.wrapsManager()) {
					// The processor the manager was built with, which need not be
					// the ToolExecutionExceptionProcessor bean (a manager the
					// application builds itself).
					return new FixingToolCallingManager(manager, SpringLimits.processorOf(manager),
							p.isBreachThroughProcessor(), p.isCloseDanglingCalls(), p.isEndTurnAfterBreach(),
							p.isUnknownToolToProcessor());
				}
				if (bean instanceof ChatMemory memory && !(memory instanceof AnsweredGenerationChatMemory)
						&& p.isStoreAnsweredGeneration()) {
					return new AnsweredGenerationChatMemory(memory);
				}
				return bean;
			}
		};
	}

	/** The switches as the properties bean will hold them, bound from {@code environment}. */
	static ToolCallFixesProperties bind(Environment environment) {
		return Binder.get(environment)
			.bind(ToolCallFixesProperties.PREFIX, ToolCallFixesProperties.class)
			.orElseGet(ToolCallFixesProperties::new);
	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(ToolCallingAdvisor.class)
	static class ClientConfiguration {

		@Bean
		@ConditionalOnMissingBean
		@ConditionalOnBean(ToolCallingManager.class)
		@Conditional(CloseDanglingCallsOn.class)
		ToolCallingAdvisor.Builder<?> toolCallingAdvisorBuilder(ToolCallingManager toolCallingManager,
				ObjectProvider<ToolExecutionEligibilityChecker> toolExecutionEligibilityChecker,
				Environment environment) {
			var builder = FixingToolCallingAdvisor.builder()
				.toolCallingManager(toolCallingManager)
				.advisorOrder(environment.getProperty(ADVISOR_ORDER, Integer.class, ToolCallingAdvisor.DEFAULT_ORDER));
			toolExecutionEligibilityChecker.ifAvailable(builder::toolExecutionEligibilityChecker);
			return builder;
		}

		/**
		 * Only where Spring AI's Gemini model is on the class path: the rewrite
		 * is for its conversion, and another provider's tool responses need
		 * none. An application that also builds clients of other providers
		 * from the same builder gets the rewrite there too.
		 */
		@Bean
		@ConditionalOnClass(name = "org.springframework.ai.google.genai.GoogleGenAiChatModel")
		ChatClientCustomizer geminiSafeToolResponseCustomizer(ToolCallFixesProperties properties) {
			return builder -> {
				if (properties.rewritesGemini()) {
					builder.defaultAdvisors(new GeminiSafeToolResponseAdvisor(properties.isStrictJsonOrWrap(),
							properties.isErrorKey(), properties.isPr6049StrictWrap(), properties.isPr6907WrapOnFailure(),
							GeminiSafeToolResponseAdvisor.DEFAULT_ORDER));
				}
			};
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(ChatMemory.class)
	static class MemoryConfiguration {

		@Bean
		@ConditionalOnMissingBean(ChatMemory.class)
		@Conditional(WindowFixOn.class)
		ChatMemory turnKeepingWindowChatMemory(ObjectProvider<ChatMemoryRepository> repository,
				ToolCallFixesProperties properties) {
			return new TurnKeepingWindowChatMemory(repository.getIfAvailable(InMemoryChatMemoryRepository::new),
					properties.getMemoryMaxMessages(), properties.isKeepCurrentTurn(),
					properties.isEvictOrphanResponses());
		}

	}

	/**
	 * A switch read as the post-processor and the properties bean read it (bound,
	 * so {@code on}, {@code yes} and {@code 1} are true as for any boolean
	 * property), so that a switch never installs half of its fix.
	 */
	abstract static class SwitchOn extends SpringBootCondition {

		abstract boolean on(ToolCallFixesProperties properties);

		abstract String name();

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			boolean on = on(bind(context.getEnvironment()));
			return new ConditionOutcome(on, ToolCallFixesProperties.PREFIX + "." + name() + (on ? " on" : " off"));
		}

	}

	/** close-dangling-calls is on. */
	static class CloseDanglingCallsOn extends SwitchOn {

		@Override
		boolean on(ToolCallFixesProperties properties) {
			return properties.isCloseDanglingCalls();
		}

		@Override
		String name() {
			return "close-dangling-calls";
		}

	}

	/** keep-current-turn or evict-orphan-responses is on. */
	static class WindowFixOn extends SwitchOn {

		@Override
		boolean on(ToolCallFixesProperties properties) {
			return properties.isKeepCurrentTurn() || properties.isEvictOrphanResponses();
		}

		@Override
		String name() {
			return "keep-current-turn or evict-orphan-responses";
		}

	}

}
