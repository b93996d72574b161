package io.github.toolcallmodel.fixes;

import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;

/**
 * An application with Spring AI's tool auto-configuration and the library,
 * started in a JVM of its own by {@link SpringAiVersionsTests} on whichever
 * Spring AI jars its class path holds, with the properties given as
 * arguments. Prints {@code started: FIXES} and each decision, or
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
			.withPropertyValues(args)
			.run(context -> {
				if (context.getStartupFailure() != null) {
					Throwable t = context.getStartupFailure();
					while (t.getCause() != null) {
						t = t.getCause();
					}
					System.out.println("failed: " + t.getMessage());
				}
				else {
					InstalledFixes fixes = context.getBean(InstalledFixes.class);
					System.out.println("started: " + fixes.fixesArgument());
					if (fixes.versionWarning() != null) {
						System.out.println("warning: " + fixes.versionWarning());
					}
					fixes.decisions().forEach((k, v) -> System.out.println((v.on() ? "on: " : "off: ") + k + ": " + v.why()));
				}
			});
	}

}
