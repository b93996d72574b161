package io.github.toolcallmodel.fixes;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The Spring AI version an application runs, as both fix libraries read it. */
public final class SpringAiJar {

	private static final String MODEL_PACKAGE = "org.springframework.ai.model.tool";

	private SpringAiJar() {
	}

	/**
	 * The version of {@code spring-ai-model} on {@code loader}'s class path (its
	 * jar's {@code pom.properties}, else its manifest), or {@code null} when the
	 * jar does not say.
	 */
	public static String version(ClassLoader loader) {
		try (InputStream in = loader
			.getResourceAsStream("META-INF/maven/org.springframework.ai/spring-ai-model/pom.properties")) {
			if (in != null) {
				Properties p = new Properties();
				p.load(in);
				String v = p.getProperty("version");
				if (v != null && !v.isBlank()) {
					return v.trim();
				}
			}
		}
		catch (IOException e) {
			// Fall back to the manifest.
		}
		try {
			Package p = Class.forName(MODEL_PACKAGE + ".ToolCallingManager", false, loader).getPackage();
			return p == null ? null : p.getImplementationVersion();
		}
		catch (ClassNotFoundException e) {
			return null;
		}
	}

}
