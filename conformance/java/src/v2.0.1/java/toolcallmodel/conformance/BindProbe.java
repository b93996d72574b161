package toolcallmodel.conformance;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.autoconfigure.ToolCallingAutoConfiguration;
import org.springframework.ai.model.tool.autoconfigure.ToolCallingProperties;
import org.springframework.ai.tool.execution.ToolExecutionExceptionProcessor;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalysisReporter;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * Binds an {@code application.properties} or {@code application.yml} the way a
 * Spring Boot 4.1 application does and prints what the real
 * {@link ToolCallingAutoConfiguration} built from it, one JSON line per file.
 *
 * <p>
 * Each file runs a real {@link SpringApplication} (no web, no banner) whose only
 * source is {@code ToolCallingAutoConfiguration}, with
 * {@code --spring.config.location=file:PATH}: Boot's config-data loading
 * ({@code PropertiesPropertySourceLoader}, {@code YamlPropertySourceLoader} over
 * SnakeYAML), its binder and conversion service bind {@code ToolCallingProperties},
 * and the auto-configuration's own bean methods build the processor and the
 * {@code ToolCallingManager}. The environment holds no system properties, and
 * no environment variables but those of a file {@code FILE.env} beside the
 * file ({@code NAME=VALUE} lines), so the file (and that environment) alone
 * speaks.
 *
 * <p>
 * Success: {@code {"bound": {...}}}, the limits read back from the built
 * {@code DefaultToolCallingManager}'s {@code ToolCallLimits} (by reflection),
 * the processor's {@code alwaysThrow}, the manager's resolution fallback, and the
 * bound {@code ToolCallingProperties} as Java holds them. Failure:
 * {@code {"refused": {...}}}, the {@link FailureAnalysis} Spring Boot's own
 * failure analyzers give (captured through a {@link FailureAnalysisReporter}
 * registered in {@code META-INF/spring.factories}), the thrown exception, its
 * root cause, and for a {@link BindException} the property it names.
 *
 * <p>
 * A directory given instead of a file is read as an application's default
 * locations are: its {@code application.*} files and, for the active profiles,
 * its {@code application-PROFILE.*} files, of every extension.
 *
 * <p>
 * Usage: {@code BindProbe FILE...}, or {@code BindProbe -} to read one path per
 * line of standard input (one JVM for many files). Logging goes to standard
 * error; standard output carries only the JSON lines.
 */
public final class BindProbe {

	private static final ThreadLocal<FailureAnalysis> LAST_ANALYSIS = new ThreadLocal<>();

	private BindProbe() {
	}

	/** Captures the analysis Spring Boot reports for a failed start. */
	public static final class Reporter implements FailureAnalysisReporter {

		@Override
		public void report(FailureAnalysis analysis) {
			LAST_ANALYSIS.set(analysis);
		}

	}

	public static void main(String[] args) throws Exception {
		PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
		System.setOut(System.err);
		System.setProperty("org.springframework.boot.logging.LoggingSystem", "none");
		if (args.length == 1 && args[0].equals("-")) {
			BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
			String line;
			while ((line = in.readLine()) != null) {
				if (!line.isBlank()) {
					out.println(Json.write(probe(line.strip())));
				}
			}
		}
		else {
			for (String a : args) {
				out.println(Json.write(probe(a)));
			}
		}
	}

	static Map<String, Object> probe(String file) {
		LAST_ANALYSIS.remove();
		SpringApplication app = new SpringApplication(ToolCallingAutoConfiguration.class);
		app.setWebApplicationType(WebApplicationType.NONE);
		app.setBannerMode(Banner.Mode.OFF);
		app.setLogStartupInfo(false);
		app.setRegisterShutdownHook(false);
		// No system properties; environment variables only those of a file
		// FILE.env beside the file (NAME=VALUE lines), as a real environment
		// would hold them.
		Map<String, Object> env = environment(Path.of(file + ".env"));
		app.setEnvironment(new StandardEnvironment() {
			@Override
			protected void customizePropertySources(MutablePropertySources propertySources) {
				if (!env.isEmpty()) {
					propertySources.addLast(new SystemEnvironmentPropertySource(
							StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, env));
				}
			}
		});
		// A directory is read as an application's default locations are:
		// application.* and application-{profile}.* of every extension.
		Path path = Path.of(file).toAbsolutePath();
		String location = java.nio.file.Files.isDirectory(path) ? "file:" + path + "/" : "file:" + path;
		try (ConfigurableApplicationContext context = app.run("--spring.config.location=" + location)) {
			return Json.map("bound", bound(context));
		}
		catch (Throwable ex) {
			return Json.map("refused", refused(ex));
		}
	}

	/** The NAME=VALUE lines of {@code path}, in order; none when it is absent. */
	private static Map<String, Object> environment(Path path) {
		Map<String, Object> env = new LinkedHashMap<>();
		if (!java.nio.file.Files.isRegularFile(path)) {
			return env;
		}
		try {
			for (String line : java.nio.file.Files.readAllLines(path, StandardCharsets.UTF_8)) {
				int eq = line.indexOf('=');
				if (eq > 0) {
					env.put(line.substring(0, eq), line.substring(eq + 1));
				}
			}
		}
		catch (java.io.IOException ex) {
			throw new java.io.UncheckedIOException(ex);
		}
		return env;
	}

	private static Map<String, Object> bound(ConfigurableApplicationContext context) throws Exception {
		Map<String, Object> out = new LinkedHashMap<>();
		ToolCallingManager manager = context.getBean(ToolCallingManager.class);
		Object limits = field(manager, "toolCallLimits");
		int perTool = (Integer) field(limits, "defaultMaxCallsPerTool");
		int total = (Integer) field(limits, "maxTotalToolCalls");
		out.put("max_calls_per_tool_default", perTool == -1 ? "unlimited" : perTool);
		@SuppressWarnings("unchecked")
		Map<String, Integer> overrides = (Map<String, Integer>) field(limits, "maxCallsPerTool");
		out.put("max_calls_per_tool", new TreeMap<>(overrides));
		@SuppressWarnings("unchecked")
		Set<String> excluded = (Set<String>) field(limits, "toolsExcludedFromLimit");
		out.put("excluded_tools", new ArrayList<>(new TreeSet<>(excluded)));
		out.put("max_total_tool_calls", total == -1 ? "unlimited" : total);
		out.put("on_limit_exceeded", String.valueOf(field(limits, "onLimitExceeded")));
		ToolExecutionExceptionProcessor processor = context.getBean(ToolExecutionExceptionProcessor.class);
		out.put("throw_exception_on_error", field(processor, "alwaysThrow"));
		out.put("resolution_fallback_enabled", field(manager, "resolutionFallbackEnabled"));
		ToolCallingProperties p = context.getBean(ToolCallingProperties.class);
		out.put("include_content", p.getObservations().isIncludeContent());
		// The bound properties as Java holds them (the map in its own iteration
		// order, which is the order of the builder calls).
		Map<String, Object> props = new LinkedHashMap<>();
		props.put("max_calls_per_tool_default", p.getLimits().getMaxCallsPerToolDefault());
		List<Object> entries = new ArrayList<>();
		p.getLimits().getMaxCallsPerTool().forEach((k, v) -> entries.add(List.of(k, v)));
		props.put("max_calls_per_tool", entries);
		props.put("max_calls_per_tool_class", p.getLimits().getMaxCallsPerTool().getClass().getName());
		props.put("excluded_tools", new ArrayList<>(p.getLimits().getExcludedTools()));
		props.put("max_total_tool_calls", p.getLimits().getMaxTotalToolCalls());
		props.put("on_limit_exceeded", String.valueOf(p.getLimits().getOnLimitExceeded()));
		out.put("properties", props);
		return out;
	}

	private static Map<String, Object> refused(Throwable ex) {
		Map<String, Object> out = new LinkedHashMap<>();
		FailureAnalysis analysis = LAST_ANALYSIS.get();
		LAST_ANALYSIS.remove();
		out.put("analysis", analysis == null ? null : analysis.getDescription());
		out.put("action", analysis == null ? null : analysis.getAction());
		out.put("exception", typeAndMessage(ex));
		Throwable root = ex;
		while (root.getCause() != null && root.getCause() != root) {
			root = root.getCause();
		}
		out.put("root", typeAndMessage(root));
		for (Throwable t = ex; t != null; t = t.getCause()) {
			if (t instanceof UnboundConfigurationPropertiesException ue) {
				List<Object> names = new ArrayList<>();
				List<Object> origins = new ArrayList<>();
				for (ConfigurationProperty property : ue.getUnboundProperties()) {
					names.add(property.getName().toString());
					origins.add(String.valueOf(property.getOrigin()));
				}
				out.put("unbound", Json.map("properties", names, "origins", origins));
			}
			if (t.getCause() == t) {
				break;
			}
		}
		for (Throwable t = ex; t != null; t = t.getCause()) {
			if (t instanceof BindException be) {
				Map<String, Object> b = new LinkedHashMap<>();
				b.put("message", be.getMessage());
				ConfigurationProperty property = be.getProperty();
				if (property != null) {
					b.put("property", property.getName().toString());
					b.put("value", String.valueOf(property.getValue()));
					b.put("origin", String.valueOf(property.getOrigin()));
				}
				out.put("bind", b);
				break;
			}
			if (t.getCause() == t) {
				break;
			}
		}
		return out;
	}

	private static String typeAndMessage(Throwable t) {
		String m = t.getMessage();
		return t.getClass().getName() + (m == null ? "" : ": " + m);
	}

	private static Object field(Object target, String name) throws Exception {
		Class<?> c = target.getClass();
		while (c != null) {
			try {
				Field f = c.getDeclaredField(name);
				f.setAccessible(true);
				return f.get(target);
			}
			catch (NoSuchFieldException e) {
				c = c.getSuperclass();
			}
		}
		throw new NoSuchFieldException(target.getClass().getName() + "." + name);
	}

}
