package io.github.toolcallmodel.fixes;

import java.util.ArrayList;
import java.util.List;

import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.tool.execution.DefaultToolExecutionExceptionProcessor;
import org.springframework.ai.tool.execution.ToolExecutionExceptionProcessor;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * {@code toolcall.fixes.json-error-processor=true} (read by the binder, as every
 * switch is): the
 * {@code ToolExecutionExceptionProcessor} bean is a
 * {@link JsonErrorToolExecutionExceptionProcessor} over the processor Spring AI's
 * auto-configuration would make (the same {@code throw-exception-on-error}, the
 * same rethrow list). Before Spring AI's tool auto-configuration, whose bean
 * then steps back.
 */
@AutoConfiguration(beforeName = "org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration")
@ConditionalOnClass(ToolCallingManager.class)
public class ToolCallFixesProcessorAutoConfiguration {

	/** Spring Security's exception that Spring AI's processor bean rethrows when present. */
	static final String OAUTH2 = "org.springframework.security.oauth2.client.ClientAuthorizationException";

	@Bean
	@ConditionalOnMissingBean
	@Conditional(ToolCallFixesAutoConfiguration.JsonErrorProcessorOn.class)
	ToolExecutionExceptionProcessor toolExecutionExceptionProcessor(Environment environment) {
		List<Class<? extends RuntimeException>> rethrown = new ArrayList<>();
		if (ClassUtils.isPresent(OAUTH2, getClass().getClassLoader())) {
			rethrown.add(ClassUtils.resolveClassName(OAUTH2, getClass().getClassLoader())
				.asSubclass(RuntimeException.class));
		}
		return new JsonErrorToolExecutionExceptionProcessor(DefaultToolExecutionExceptionProcessor.builder()
			.alwaysThrow(environment.getProperty("spring.ai.tools.throw-exception-on-error", Boolean.class, false))
			.rethrowExceptions(rethrown)
			.build());
	}

}
