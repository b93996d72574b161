package io.github.toolcallmodel.fixes;

import java.io.InputStream;
import java.util.Properties;

/**
 * The Spring AI version the application runs, and the library's refusal of any
 * other than the one it is written for. The fixes read
 * {@code DefaultToolCallingManager}'s private fields and replay the package-private
 * {@code ToolCallLimits} of 2.0.1; on another version they would half-work, so
 * the application stops at startup instead, with the version named.
 */
final class SpringAiVersion {

	/** The Spring AI version this library is written and tested for. */
	static final String SUPPORTED = "2.0.1";

	private static final String MODEL_PACKAGE = "org.springframework.ai.model.tool";

	private SpringAiVersion() {
	}

	/** The version of {@code spring-ai-model} on the class path, or {@code null} when its jar does not say. */
	static String current(ClassLoader loader) {
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
		catch (java.io.IOException e) {
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

	/**
	 * Why the library refuses {@code version} with the classes {@code loader}
	 * holds, or {@code null} when it accepts it: the supported version, or an
	 * unnamed one whose internals are those the library reads.
	 */
	static String refusal(String version, ClassLoader loader) {
		if (SUPPORTED.equals(version)) {
			return null;
		}
		if (version == null && internalsPresent(loader)) {
			return null;
		}
		return "toolcall-fixes is written for Spring AI " + SUPPORTED + " and reads DefaultToolCallingManager's "
				+ "internals, but this application runs Spring AI " + (version == null ? "of an unknown version" : version)
				+ (internalsPresent(loader) ? "" : " (it has no ToolCallLimits)")
				+ ". Use Spring AI " + SUPPORTED + ", or remove the library (or set "
				+ ToolCallFixesProperties.PREFIX + ".enabled=false).";
	}

	/** Whether the fields and class the fixes read exist. */
	static boolean internalsPresent(ClassLoader loader) {
		try {
			Class<?> manager = Class.forName(MODEL_PACKAGE + ".DefaultToolCallingManager", false, loader);
			manager.getDeclaredField("toolCallLimits");
			manager.getDeclaredField("toolExecutionExceptionProcessor");
			Class<?> limits = Class.forName(MODEL_PACKAGE + ".ToolCallLimits", false, loader);
			limits.getDeclaredField("onLimitExceeded");
			return true;
		}
		catch (ReflectiveOperationException | LinkageError e) {
			return false;
		}
	}

	/** Stops the application unless it runs the supported version. */
	static String require(ClassLoader loader) {
		String version = current(loader);
		String refusal = refusal(version, loader);
		if (refusal != null) {
			throw new IllegalStateException(refusal);
		}
		return version;
	}

}
