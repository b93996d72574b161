package io.github.toolcallmodel.fixes.boot3;

import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.toolcallmodel.fixes.FixSet;
import io.github.toolcallmodel.fixes.ToolResponseRewrite;
import io.github.toolcallmodel.fixes.SpringAiJar;

import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * The fix library on Spring Boot 3 / Spring AI 1.1.x. Spring AI 1.1 runs the tool
 * loop inside each chat model and has no tool call limits and no
 * {@code ToolCallingAdvisor}, so of the fixes only {@code strict-json-or-wrap}
 * applies: with no property set, where a {@code GoogleGenAiChatModel} bean
 * exists, the {@code ToolCallingManager} bean is wrapped
 * ({@link JsonSafeToolCallingManager}, the loop inside the model) and the chat
 * model bean too ({@link GeminiSafeChatModel}, the application's own calls).
 * Public API only, so it installs on every 1.1.x; on another line it warns
 * once and installs the same.
 */
@AutoConfiguration(afterName = "org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration")
@ConditionalOnClass(ToolCallingManager.class)
@Conditional(ToolCallFixesAutoConfiguration.LibraryOn.class)
@EnableConfigurationProperties(ToolCallFixesProperties.class)
public class ToolCallFixesAutoConfiguration {

	static final String GEMINI_MODEL = "org.springframework.ai.google.genai.GoogleGenAiChatModel";

	/** The Spring AI line this library is written and tested for. */
	static final String SUPPORTED_LINE = "1.1.";

	private static final Log log = LogFactory.getLog(ToolCallFixesAutoConfiguration.class);

	@Bean
	static FixesPostProcessor toolCallFixesBoot3PostProcessor(Environment environment) {
		ToolCallFixesProperties properties = Binder.get(environment)
			.bind(ToolCallFixesProperties.PREFIX, ToolCallFixesProperties.class)
			.orElseGet(ToolCallFixesProperties::new);
		return new FixesPostProcessor(properties.getStrictJsonOrWrap());
	}

	/**
	 * Wraps the manager and the chat models where {@code strict-json-or-wrap} is
	 * on, and logs once, when every singleton is made, what it installed and why.
	 */
	static final class FixesPostProcessor implements BeanPostProcessor, BeanFactoryAware, SmartInitializingSingleton {

		private final Boolean strictJsonOrWrap;

		private ListableBeanFactory beans;

		private int managers;

		private int models;

		private final List<String> warnings = new ArrayList<>();

		FixesPostProcessor(Boolean strictJsonOrWrap) {
			this.strictJsonOrWrap = strictJsonOrWrap;
		}

		@Override
		public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
			this.beans = beanFactory instanceof ListableBeanFactory l ? l : null;
		}

		/** Whether {@code strict-json-or-wrap} is on: as set, else where a Gemini model bean exists. */
		boolean on() {
			if (this.strictJsonOrWrap != null) {
				return this.strictJsonOrWrap;
			}
			return geminiBeans().length > 0;
		}

		private String[] geminiBeans() {
			ClassLoader loader = getClass().getClassLoader();
			if (this.beans == null || !ClassUtils.isPresent(GEMINI_MODEL, loader)) {
				return new String[0];
			}
			return this.beans.getBeanNamesForType(ClassUtils.resolveClassName(GEMINI_MODEL, loader), true, false);
		}

		@Override
		public Object postProcessAfterInitialization(Object bean, String beanName) {
			if (bean instanceof ToolCallingManager manager && !(bean instanceof JsonSafeToolCallingManager) && on()) {
				this.managers++;
				return new JsonSafeToolCallingManager(manager, Boolean.TRUE.equals(this.strictJsonOrWrap));
			}
			if (bean instanceof ChatModel model && !(bean instanceof GeminiSafeChatModel.Wrapped) && on()
					&& (Boolean.TRUE.equals(this.strictJsonOrWrap) || isGemini(model.getClass()))) {
				return wrapped(model, beanName);
			}
			return bean;
		}

		/**
		 * {@code model} wrapped, or as it is where a proxy of its class cannot be
		 * made (a proxy of its interfaces would break every injection point of
		 * its class): the loop inside it is still fixed at the manager; the
		 * application's own prompts are not, said once at startup.
		 */
		private Object wrapped(ChatModel model, String beanName) {
			String why = null;
			if (Modifier.isFinal(model.getClass().getModifiers())) {
				why = "its class " + model.getClass().getName() + " is final";
			}
			else {
				try {
					Object proxy = GeminiSafeChatModel.wrap(model);
					this.models++;
					return proxy;
				}
				catch (RuntimeException e) {
					why = "no proxy of " + model.getClass().getName() + " could be made (" + e + ")";
				}
			}
			this.warnings.add("the chat model bean '" + beanName + "' is left as it is: " + why
					+ "; the tool loop inside it is fixed at the ToolCallingManager, but prompts holding tool "
					+ "responses of the application's own are sent as Spring AI converts them");
			return model;
		}

		static boolean isGemini(Class<?> c) {
			for (Class<?> k = c; k != null; k = k.getSuperclass()) {
				if (k.getName().equals(GEMINI_MODEL)) {
					return true;
				}
			}
			return false;
		}

		@Override
		public void afterSingletonsInstantiated() {
			String version = springAiVersion(getClass().getClassLoader());
			if (version == null || !version.startsWith(SUPPORTED_LINE)) {
				log.warn("toolcall-fixes: this application runs Spring AI " + (version == null ? "(version unknown)"
						: version) + ", not 1.1.x: toolcall-fixes-boot3 is written for the 1.1 line (Spring AI 2.0 "
						+ "takes toolcall-fixes-spring-boot-starter); strict-json-or-wrap uses public API only and is "
						+ "installed as on 1.1.");
			}
			this.warnings.forEach(w -> log.warn("toolcall-fixes: " + w));
			log.info("toolcall-fixes: " + report());
		}

		/** What the library did, in one line. */
		String report() {
			String decided = this.strictJsonOrWrap != null ? "toolcall.fixes.strict-json-or-wrap=" + this.strictJsonOrWrap
					: geminiBeans().length > 0 ? "a GoogleGenAiChatModel bean exists" : "no GoogleGenAiChatModel bean";
			String installed = this.managers + this.models > 0 ? "installed strict-json-or-wrap (" + decided + "; "
					+ this.managers + " ToolCallingManager and " + this.models + " chat model bean(s) wrapped)"
					: "strict-json-or-wrap not installed (" + decided + ")";
			return installed + "; not on Spring AI 1.1: " + String.join(", ", notOn11())
					+ " (1.1 has no tool call limits, and its tool loop runs inside the chat model, so no memory "
					+ "advisor stands inside it)";
		}

	}

	/**
	 * {@code toolcall.fixes.enabled}, read as Spring's binder reads a boolean
	 * ({@code on}/{@code off}, {@code yes}/{@code no} too); unset, on.
	 */
	static final class LibraryOn extends SpringBootCondition {

		@Override
		public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
			boolean on = Binder.get(context.getEnvironment())
				.bind(ToolCallFixesProperties.PREFIX + ".enabled", Boolean.class)
				.orElse(true);
			return on ? ConditionOutcome.match("toolcall.fixes.enabled is not false")
					: ConditionOutcome.noMatch("toolcall.fixes.enabled is false");
		}

	}

	/** The fixes of {@code all} that Spring AI 1.1 gives nothing to act on (docs/FIXES.md). */
	static List<String> notOn11() {
		return FixSet.all().without(ToolResponseRewrite.STRICT_JSON_OR_WRAP).names();
	}

	/** The version of {@code spring-ai-model} on the class path, or {@code null} when its jar does not say. */
	static String springAiVersion(ClassLoader loader) {
		return SpringAiJar.version(loader);
	}

}
