package io.github.toolcallmodel.fixes;

import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

/**
 * An application with Spring AI's tool auto-configuration and the library,
 * started in a JVM of its own by {@link SpringAiVersionsTests} on whichever
 * Spring AI jars its class path holds. Prints {@code started: FIXES} or
 * {@code failed: ROOT CAUSE}.
 */
public final class VersionProbeApplication {

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class App {

	}

	private VersionProbeApplication() {
	}

	public static void main(String[] args) {
		new ApplicationContextRunner().withUserConfiguration(App.class)
			.withPropertyValues("spring.ai.tools.limits.on-limit-exceeded=RETURN_ERROR_RESPONSE",
					"spring.ai.model.chat=none")
			.run(context -> {
				if (context.getStartupFailure() != null) {
					Throwable t = context.getStartupFailure();
					while (t.getCause() != null) {
						t = t.getCause();
					}
					System.out.println("failed: " + t.getMessage());
				}
				else {
					System.out.println("started: " + context.getBean(InstalledFixes.class).fixesArgument());
				}
			});
	}

}
