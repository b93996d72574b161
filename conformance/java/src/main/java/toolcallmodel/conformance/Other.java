package toolcallmodel.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The runners of other Spring AI versions: a vector whose {@code spring_ai}
 * names a version this runner is not built for goes, by its path, to a child
 * JVM on that version's classpath (one per version, started on first use),
 * given by the system property {@code toolcall.runner.VERSION} (set by
 * conformance/java/runner). The child answers one line per path, as this
 * runner does.
 */
final class Other {

	/** The property naming the classpath of another version's runner. */
	static final String PROPERTY = "toolcall.runner.";

	private static final Map<String, Child> CHILDREN = new HashMap<>();

	private Other() {
	}

	/** A vector's Spring AI version: absent or null is 2.0.1. */
	static String version(Map<String, Object> vector) {
		Object v = vector.get("spring_ai");
		return v == null ? "2.0.1" : Json.str(v, "/spring_ai");
	}

	/**
	 * The line another version's runner printed for the vector at
	 * {@code path}, or null when this runner answers it (its version, no
	 * runner for its version, or a file that does not read as a vector).
	 */
	static String forwarded(String path) {
		String version;
		try {
			version = version(Json.obj(Json.parse(Files.readString(Path.of(path), StandardCharsets.UTF_8)), ""));
		}
		catch (RuntimeException | IOException e) {
			return null;
		}
		if (version.equals(Upstream.VERSION) || System.getProperty(PROPERTY + version) == null) {
			return null;
		}
		try {
			return CHILDREN.computeIfAbsent(version, Child::new).ask(path);
		}
		catch (IOException e) {
			throw new IllegalStateException("the Spring AI " + version + " runner failed: " + e, e);
		}
	}

	/** One child JVM: paths in, lines out. */
	private static final class Child {

		private final Writer in;

		private final BufferedReader out;

		Child(String version) {
			List<String> cmd = new ArrayList<>();
			cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
			for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
				if (!a.startsWith("-D" + PROPERTY)) {
					cmd.add(a);
				}
			}
			cmd.add("-cp");
			cmd.add(System.getProperty(PROPERTY + version));
			cmd.add(Runner.class.getName());
			cmd.add("-");
			try {
				Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
				this.in = new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8);
				this.out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
			}
			catch (IOException e) {
				throw new IllegalStateException("cannot start the Spring AI " + version + " runner: " + e, e);
			}
		}

		String ask(String path) throws IOException {
			this.in.write(path + "\n");
			this.in.flush();
			String line = this.out.readLine();
			if (line == null) {
				throw new IOException("it ended without answering " + path);
			}
			return line;
		}

	}

}
