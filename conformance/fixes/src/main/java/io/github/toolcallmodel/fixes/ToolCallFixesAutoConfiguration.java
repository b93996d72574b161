package io.github.toolcallmodel.fixes;

import java.util.List;

import org.springframework.ai.chat.client.advisor.ToolCallingAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.ChatMemoryRepository;
import org.springframework.ai.chat.memory.InMemoryChatMemoryRepository;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.model.tool.DefaultToolCallingManager;
import org.springframework.ai.model.tool.ToolCallLimitBehavior;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionEligibilityChecker;
import org.springframework.ai.tool.resolution.ToolCallbackResolver;
import org.springframework.beans.factory.ListableBeanFactory;
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
 * Installs the fixes this application needs, around the beans of Spring AI's
 * own auto-configurations; an unset switch under {@code toolcall.fixes} is
 * decided from the beans ({@link InstalledFixes}), and
 * {@code toolcall.fixes.enabled=false} turns the library off:
 * <ul>
 * <li>each Gemini chat model bean is wrapped ({@link GeminiSafeChatModel}), so
 * that every request it converts has JSON-safe tool responses
 * ({@code strict-json-or-wrap}, {@code error-key}, the pull requests' switches),
 * however the {@code ChatClient} was built;</li>
 * <li>the {@code ToolCallingManager} bean is wrapped in a
 * {@link FixingToolCallingManager} ({@code breach-through-processor},
 * {@code close-dangling-calls}, {@code error-key}, {@code end-turn-after-breach},
 * {@code unknown-tool-to-processor}), and the {@code ToolCallbackResolver} bean
 * so that the wrapper sees resolved tools;</li>
 * <li>a {@link FixingToolCallingAdvisor.Builder} becomes the
 * {@code ToolCallingAdvisor.Builder} bean that ChatClient registers from
 * ({@code close-dangling-calls});</li>
 * <li>the {@code ChatMemory} bean is a {@link TurnKeepingWindowChatMemory}
 * ({@code keep-current-turn}, {@code evict-orphan-responses}) and is wrapped in
 * an {@link AnsweredGenerationChatMemory} ({@code store-answered-generation});</li>
 * <li>{@link ToolCallFixesReport} logs what was installed and why, and the
 * report of the running application.</li>
 * </ul>
 * On a Spring AI other than 2.0.1 the fixes that read 2.0.1's internals turn
 * off, named in one warning with the version, and the others stay on
 * ({@link SpringAiVersion}); {@code toolcall.fixes.strict-version=true} stops
 * the application instead.
 */
@AutoConfiguration(
		afterName = "org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration",
		beforeName = { "org.springframework.ai.model.chat.client.autoconfigure.ChatClientAutoConfiguration",
				"org.springframework.ai.model.chat.memory.autoconfigure.ChatMemoryAutoConfiguration" })
@ConditionalOnClass(ToolCallingManager.class)
@Conditional(ToolCallFixesAutoConfiguration.LibraryOn.class)
@EnableConfigurationProperties(ToolCallFixesProperties.class)
public class ToolCallFixesAutoConfiguration {

	/** Spring AI's property of the ToolCallingAdvisor's order. */
	static final String ADVISOR_ORDER = "spring.ai.chat.client.tool-calling.advisor-order";

	/** The manager fixes: each needs Spring's DefaultToolCallingManager. */
	static final FixSet MANAGER_FIXES = FixSet.changing("manager");

	private static final org.apache.commons.logging.Log log = org.apache.commons.logging.LogFactory
		.getLog(ToolCallFixesAutoConfiguration.class);

	/**
	 * What the library installs, bound from the environment here: a
	 * post-processor runs before the properties bean can be bound. The Spring AI
	 * version is read first, before any class of 2.0.1's is touched, from the
	 * application's class loader.
	 */
	@Bean
	static InstalledFixes toolCallFixesInstalled(Environment environment,
			org.springframework.core.io.ResourceLoader resourceLoader) {
		ToolCallFixesProperties properties = bind(environment);
		ClassLoader loader = resourceLoader.getClassLoader() != null ? resourceLoader.getClassLoader()
				: ToolCallFixesAutoConfiguration.class.getClassLoader();
		String version = SpringAiVersion.current(loader);
		if (properties.isStrictVersion()) {
			SpringAiVersion.require(loader);
		}
		boolean internals = SpringAiVersion.internalsUsable(version, loader);
		InstalledFixes fixes = new InstalledFixes(properties, version, internals);
		if (!internals) {
			log.warn(fixes.versionWarning());
		}
		return fixes;
	}

	/**
	 * The request paths, fed by the wrapped model and the library's advisor; the
	 * facts they share are read from the report, once the beans exist.
	 */
	@Bean
	static RequestPaths toolCallFixesRequestPaths(InstalledFixes toolCallFixesInstalled, ListableBeanFactory beans) {
		return new RequestPaths(toolCallFixesInstalled,
				() -> beans.getBean(ToolCallFixesReport.class).shared(),
				() -> beans.getBeanProvider(ChatMemory.class).getIfUnique());
	}

	@Bean
	static BeanPostProcessor toolCallFixesBeanPostProcessor(InstalledFixes toolCallFixesInstalled,
			RequestPaths toolCallFixesRequestPaths) {
		return new FixesPostProcessor(toolCallFixesInstalled, toolCallFixesRequestPaths);
	}

	@Bean
	ToolCallFixesReport toolCallFixesReport(InstalledFixes fixes, ListableBeanFactory beans, Environment environment,
			RequestPaths toolCallFixesRequestPaths) {
		return new ToolCallFixesReport(fixes, beans, environment, toolCallFixesRequestPaths);
	}

	/** The report as an Actuator endpoint, where Actuator is present. */
	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
	static class EndpointConfiguration {

		@Bean
		@ConditionalOnMissingBean
		ToolCallFixesEndpoint toolCallFixesEndpoint(ToolCallFixesReport toolCallFixesReport) {
			return new ToolCallFixesEndpoint(toolCallFixesReport);
		}

	}

	/** The switches as the properties bean will hold them, bound from {@code environment}. */
	static ToolCallFixesProperties bind(Environment environment) {
		Binder binder = Binder.get(environment);
		ToolCallFixesProperties p = binder.bind(ToolCallFixesProperties.PREFIX, ToolCallFixesProperties.class)
			.orElseGet(ToolCallFixesProperties::new);
		String prefix = ToolCallFixesProperties.PREFIX + ".";
		p.pr6907WrapOnFailure(binder.bind(prefix + "pr-6907-wrap-on-failure", Boolean.class).orElse(null));
		p.pr6049StrictWrap(binder.bind(prefix + "pr-6049-strict-wrap", Boolean.class).orElse(null));
		return p;
	}

	/** Wraps Spring AI's beans as {@link InstalledFixes} decides. */
	static final class FixesPostProcessor implements BeanPostProcessor {

		private final InstalledFixes fixes;

		private final RequestPaths paths;

		FixesPostProcessor(InstalledFixes fixes, RequestPaths paths) {
			this.fixes = fixes;
			this.paths = paths;
		}

		private boolean managerMayBeWrapped() {
			return this.fixes.internals() && MANAGER_FIXES.fixes()
				.stream()
				.anyMatch(f -> Boolean.TRUE.equals(this.fixes.set(f.name()))
						|| (this.fixes.set(f.name()) == null && InstalledFixes.DECIDED_UNSET.has(f)));
		}

		@Override
		public Object postProcessAfterInitialization(Object bean, String beanName) {
			if (bean instanceof ToolCallbackResolver resolver && managerMayBeWrapped()) {
				return FixingToolCallingManager.recordingResolver(resolver);
			}
			// Off its version, no class that names 2.0.1's limits is loaded.
			if (bean instanceof ToolCallingManager manager && this.fixes.internals()
					&& !(manager instanceof FixingToolCallingManager)) {
				return manager(manager, beanName);
			}
			if (bean instanceof ChatMemory memory && !(memory instanceof AnsweredGenerationChatMemory)
					&& this.fixes.mayBeOn("store-answered-generation")) {
				return new AnsweredGenerationChatMemory(memory, this.fixes.switchOf("store-answered-generation"));
			}
			if (bean instanceof ChatModel model && !(model instanceof GeminiSafeChatModel.Wrapped)) {
				return model(model, beanName);
			}
			return bean;
		}

		private Object manager(ToolCallingManager manager, String beanName) {
			if (!(manager instanceof DefaultToolCallingManager)) {
				List<String> asked = MANAGER_FIXES.filter(f -> Boolean.TRUE.equals(this.fixes.set(f.name()))).names();
				if (!asked.isEmpty()) {
					throw new IllegalStateException("toolcall-fixes: " + String.join(", ", asked)
							+ " wrap Spring AI's DefaultToolCallingManager, but the ToolCallingManager bean '" + beanName
							+ "' is " + manager.getClass().getName() + ". Make that bean a DefaultToolCallingManager "
							+ "(DefaultToolCallingManager.builder()), or set " + asked.stream()
								.map(f -> ToolCallFixesProperties.PREFIX + "." + f + "=false")
								.collect(java.util.stream.Collectors.joining(" and ")) + ".");
				}
				for (String f : MANAGER_FIXES.names()) {
					this.fixes.decide(f, false, "unset: off (the ToolCallingManager bean '" + beanName + "' is "
							+ manager.getClass().getName() + ", not Spring AI's DefaultToolCallingManager)");
				}
				return manager;
			}
			SpringLimits limits = SpringLimits.of(manager);
			ToolCallLimitBehavior policy = limits.onLimitExceeded();
			boolean returnsError = policy == ToolCallLimitBehavior.RETURN_ERROR_RESPONSE;
			// A manager fix is off when unset, unless decided otherwise below;
			// close-dangling-calls is decided once the memory advisor beans exist
			// (ToolCallFixesReport), and read at each batch.
			FixSet decided = MANAGER_FIXES.without(Fix.named("close-dangling-calls"));
			for (String f : decided.names()) {
				this.fixes.decide(f, false, "unset: off");
			}
			this.fixes.decide("unknown-tool-to-processor", false, "unset: off (an upstream proposal)");
			this.fixes
				.decide("end-turn-after-breach", returnsError,
						returnsError ? "on-limit-exceeded is RETURN_ERROR_RESPONSE: a model that keeps calling past "
								+ "a limit would keep the turn running"
								: "unset: off (on-limit-exceeded is " + policy + ", which ends the turn at a breach)");
			boolean close = this.fixes.mayBeOn("close-dangling-calls");
			FixSet on = decided.filter(f -> this.fixes.on(f.name()));
			if (on.isEmpty() && !close) {
				return manager;
			}
			return new FixingToolCallingManager(manager, SpringLimits.processorOf(manager), on,
					this.fixes.switchOf("close-dangling-calls"))
				.marksWanted(this.fixes.switchOf("error-key"));
		}

		private Object model(ChatModel model, String beanName) {
			boolean gemini = isGemini(model.getClass());
			// The conversion fixes set true; error-key only where 2.0.1's manager
			// marks failures; strict-json-or-wrap also unset on Gemini.
			FixSet on = FixSet.changing("chat-model").filter(f -> Boolean.TRUE.equals(this.fixes.set(f.name())));
			if (!this.fixes.internals()) {
				on = on.without(ToolResponseRewrite.ERROR_KEY);
			}
			if (gemini && this.fixes.set(ToolResponseRewrite.STRICT_JSON_OR_WRAP.name()) == null) {
				on = on.with(ToolResponseRewrite.STRICT_JSON_OR_WRAP);
			}
			boolean strict = on.has(ToolResponseRewrite.STRICT_JSON_OR_WRAP);
			if (on.isEmpty()) {
				return model;
			}
			if (gemini || strict) {
				this.fixes.decide("strict-json-or-wrap", strict, "GoogleGenAiChatModel bean '" + beanName
						+ "': Gemini's conversion fails on a tool response that is not JSON");
			}
			this.fixes.decide("pr-6049-strict-wrap", false, "unset: off (an upstream proposal)");
			this.fixes.decide("pr-6907-wrap-on-failure", false, "unset: off (an upstream proposal)");
			return GeminiSafeChatModel.wrap(model, new GeminiSafeToolResponseAdvisor(on), this.paths);
		}

		static boolean isGemini(Class<?> c) {
			for (Class<?> k = c; k != null; k = k.getSuperclass()) {
				if (k.getName().equals(ToolCallFixesReport.GEMINI)) {
					return true;
				}
			}
			return false;
		}

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
				Environment environment, RequestPaths toolCallFixesRequestPaths) {
			var builder = FixingToolCallingAdvisor.builder()
				.requestPaths(toolCallFixesRequestPaths)
				.toolCallingManager(toolCallingManager)
				.advisorOrder(environment.getProperty(ADVISOR_ORDER, Integer.class, ToolCallingAdvisor.DEFAULT_ORDER));
			toolExecutionEligibilityChecker.ifAvailable(builder::toolExecutionEligibilityChecker);
			return builder;
		}

	}

	@Configuration(proxyBeanMethods = false)
	@ConditionalOnClass(ChatMemory.class)
	static class MemoryConfiguration {

		@Bean
		@ConditionalOnMissingBean(ChatMemory.class)
		@Conditional(WindowFixOn.class)
		ChatMemory turnKeepingWindowChatMemory(ObjectProvider<ChatMemoryRepository> repository,
				InstalledFixes fixes) {
			boolean evict = fixes.decide("evict-orphan-responses", false, "unset: off (an upstream proposal)").on();
			return new TurnKeepingWindowChatMemory(repository.getIfAvailable(InMemoryChatMemoryRepository::new),
					fixes.properties().getMemoryMaxMessages(), fixes.switchOf("keep-current-turn"), evict);
		}

	}

	/**
	 * A switch read as the post-processor and the properties bean read it (bound,
	 * so {@code on}, {@code yes} and {@code 1} are true and {@code off},
	 * {@code no} and {@code 0} false, as for any boolean property), so that a
	 * switch never installs half of its fix. An unset switch matches where the
	 * fix may be decided on from the beans.
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

	/** The library is on: toolcall.fixes.enabled is not false. */
	static class LibraryOn extends SwitchOn {

		@Override
		boolean on(ToolCallFixesProperties properties) {
			return properties.isEnabled();
		}

		@Override
		String name() {
			return "enabled";
		}

	}

	/** close-dangling-calls is true, or unset. */
	static class CloseDanglingCallsOn extends SwitchOn {

		@Override
		boolean on(ToolCallFixesProperties properties) {
			return !Boolean.FALSE.equals(properties.getCloseDanglingCalls());
		}

		@Override
		String name() {
			return "close-dangling-calls";
		}

	}

	/** keep-current-turn is true or unset, or evict-orphan-responses is true. */
	static class WindowFixOn extends SwitchOn {

		@Override
		boolean on(ToolCallFixesProperties properties) {
			return !Boolean.FALSE.equals(properties.getKeepCurrentTurn())
					|| Boolean.TRUE.equals(properties.getEvictOrphanResponses());
		}

		@Override
		String name() {
			return "keep-current-turn or evict-orphan-responses";
		}

	}

	/** json-error-processor is true (off when unset: it replaces the application's processor). */
	static class JsonErrorProcessorOn extends SwitchOn {

		@Override
		boolean on(ToolCallFixesProperties properties) {
			return properties.isEnabled() && Boolean.TRUE.equals(properties.getJsonErrorProcessor());
		}

		@Override
		String name() {
			return "json-error-processor";
		}

	}

}
