package io.github.toolcallmodel.fixes;

/**
 * The Spring AI version the application runs, and whether the fixes that read
 * 2.0.1's internals may run on it. Those fixes ({@link #INTERNAL_FIXES}) read
 * {@code DefaultToolCallingManager}'s private fields and replay the
 * package-private {@code ToolCallLimits} of 2.0.1; on another version they
 * would half-work, so they turn off, named in one warning with the version,
 * and every other fix (public API only) stays. {@code
 * toolcall.fixes.strict-version=true} stops the application instead.
 */
final class SpringAiVersion {

	/** The Spring AI version this library is written and tested for. */
	static final String SUPPORTED = "2.0.1";

	private static final String MODEL_PACKAGE = "org.springframework.ai.model.tool";

	private SpringAiVersion() {
	}

	/** The version of {@code spring-ai-model} on the class path, or {@code null} when its jar does not say. */
	static String current(ClassLoader loader) {
		return SpringAiJar.version(loader);
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
				+ ". Use Spring AI " + SUPPORTED + ", or unset " + ToolCallFixesProperties.PREFIX
				+ ".strict-version (the fixes that read the internals then turn off), or set "
				+ ToolCallFixesProperties.PREFIX + ".enabled=false.";
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

	/**
	 * The fixes that read 2.0.1's internals: those that change the manager (the
	 * table's {@code beans} column), whose limits, processor and resolver are
	 * private; {@code error-key} among them, since the manager wrapper writes its
	 * failure marks.
	 */
	static final FixSet INTERNAL_FIXES = FixSet.changing("manager");

	/**
	 * Whether the fixes of {@link #INTERNAL_FIXES} may run: on the supported
	 * version, or on an unnamed one whose internals are those the library reads.
	 */
	static boolean internalsUsable(String version, ClassLoader loader) {
		return refusal(version, loader) == null;
	}

	/** The one warning of a version the internal fixes do not run on. */
	static String offWarning(String version) {
		return "toolcall-fixes: this application runs Spring AI " + (version == null ? "of an unknown version" : version)
				+ ", not " + SUPPORTED + ": " + String.join(", ", INTERNAL_FIXES.names()) + " are off (they read "
				+ SUPPORTED + "'s DefaultToolCallingManager internals); the conversion and memory fixes stay on. Set "
				+ ToolCallFixesProperties.PREFIX + ".strict-version=true to stop the application instead.";
	}

	/** Stops the application unless it runs the supported version (under {@code strict-version}). */
	static String require(ClassLoader loader) {
		String version = current(loader);
		String refusal = refusal(version, loader);
		if (refusal != null) {
			throw new IllegalStateException(refusal);
		}
		return version;
	}

}
