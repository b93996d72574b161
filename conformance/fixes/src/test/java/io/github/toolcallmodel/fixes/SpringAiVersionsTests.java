package io.github.toolcallmodel.fixes;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The library on Spring AI versions other than 2.0.1: {@link VersionProbeApplication}
 * runs in a JVM whose class path is this one with every Spring AI 2.0.1 jar
 * replaced by its 2.0.0 release from the local Maven repository (those with
 * no 2.0.0 there are left out; the test says which are missing and fails if
 * the core ones are), or with 2.0.1's jars behind a directory whose
 * {@code spring-ai-model} says it is 2.1.0 (a version the library has never
 * seen). The application starts; the fixes that read 2.0.1's internals are
 * off, with the version named; {@code strict-version} stops it instead.
 */
class SpringAiVersionsTests {

	private static final Pattern SPRING_AI = Pattern
		.compile("(.*[/\\\\]org[/\\\\]springframework[/\\\\]ai[/\\\\])([^/\\\\]+)[/\\\\]2\\.0\\.1[/\\\\]\\2-2\\.0\\.1\\.jar");

	static final String INTERNALS_OFF = "off: end-turn-after-breach: off: reads Spring AI 2.0.1's internals, "
			+ "and this application runs Spring AI ";

	static String run(List<String> classPath, String main, String... args) throws Exception {
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		List<String> command = new ArrayList<>(List.of(java));
		// This JVM's -XX flags (surefire's argLine), so that the probe runs as cheaply.
		ManagementFactory.getRuntimeMXBean()
			.getInputArguments()
			.stream()
			.filter(a -> a.startsWith("-XX:"))
			.forEach(command::add);
		command.addAll(List.of("-cp", String.join(File.pathSeparator, classPath), main));
		command.addAll(List.of(args));
		Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
		byte[] out = p.getInputStream().readAllBytes();
		assertThat(p.waitFor(600, TimeUnit.SECONDS)).as("the probe ends").isTrue();
		return new String(out, StandardCharsets.UTF_8);
	}

	static String probe(List<String> classPath, String... args) throws Exception {
		return run(classPath, VersionProbeApplication.class.getName(), args);
	}

	static List<String> classPath() {
		return List.of(System.getProperty("java.class.path").split(File.pathSeparator));
	}

	/** This class path with Spring AI 2.0.0's jars for 2.0.1's. */
	static List<String> springAi200() {
		List<String> swapped = new ArrayList<>();
		List<String> replaced = new ArrayList<>();
		List<String> missing = new ArrayList<>();
		for (String entry : classPath()) {
			Matcher m = SPRING_AI.matcher(entry);
			if (!m.matches()) {
				swapped.add(entry);
				continue;
			}
			// Copied by the build (maven-dependency-plugin), else from the local repository.
			Path old = Path.of("target", "spring-ai-2.0.0", m.group(2) + "-2.0.0.jar");
			if (!Files.isRegularFile(old)) {
				old = Path.of(m.group(1), m.group(2), "2.0.0", m.group(2) + "-2.0.0.jar");
			}
			if (Files.isRegularFile(old)) {
				swapped.add(old.toString());
				replaced.add(m.group(2));
			}
			else {
				missing.add(m.group(2));
			}
		}
		System.out.println("Spring AI 2.0.0 jars: " + replaced + "; no 2.0.0 jar, left out: " + missing);
		assertThat(missing).as("every Spring AI jar has its 2.0.0 release (the build copies them)").isEmpty();
		return swapped;
	}

	@Test
	void onSpringAi201TheApplicationStartsWithEveryFix() throws Exception {
		// No chat model, no memory: the runaway turn's end alone.
		String out = probe(classPath());
		assertThat(out).contains("started: end-turn-after-breach").doesNotContain("reads Spring AI 2.0.1's internals");
	}

	@Test
	void onSpringAi200TheApplicationStartsWithoutTheFixesThatReadInternals() throws Exception {
		String out = probe(springAi200());
		assertThat(out).contains("started: upstream")
			.contains(INTERNALS_OFF + "2.0.0")
			.contains("this application runs Spring AI 2.0.0, not 2.0.1: breach-through-processor, error-key, "
					+ "close-dangling-calls, end-turn-after-breach, unknown-tool-to-processor are off");
		// A switch set true does not bring them back: they would half-work.
		assertThat(probe(springAi200(), "toolcall.fixes.close-dangling-calls=true"))
			.contains("off: close-dangling-calls: off: reads Spring AI 2.0.1's internals");
	}

	@Test
	void strictVersionStopsTheApplicationNamingTheVersion() throws Exception {
		String out = probe(springAi200(), "toolcall.fixes.strict-version=true");
		assertThat(out).contains("failed: toolcall-fixes is written for Spring AI 2.0.1")
			.contains("this application runs Spring AI 2.0.0")
			.contains("toolcall.fixes.enabled=false");
		assertThat(probe(classPath(), "toolcall.fixes.strict-version=true")).contains("started: end-turn-after-breach");
	}

	@Test
	void onAVersionNeverSeenTheApplicationStartsWithoutThem(@TempDir Path dir) throws Exception {
		Path pom = dir.resolve("META-INF/maven/org.springframework.ai/spring-ai-model/pom.properties");
		Files.createDirectories(pom.getParent());
		Files.writeString(pom, "artifactId=spring-ai-model\ngroupId=org.springframework.ai\nversion=2.1.0\n");
		List<String> cp = new ArrayList<>(List.of(dir.toString()));
		cp.addAll(classPath());
		String out = probe(cp);
		assertThat(out).contains("started: upstream").contains(INTERNALS_OFF + "2.1.0");
	}

}
