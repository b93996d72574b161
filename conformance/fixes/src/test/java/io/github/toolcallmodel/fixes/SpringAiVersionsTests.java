package io.github.toolcallmodel.fixes;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The library on Spring AI 2.0.0's own jars: {@link VersionProbeApplication}
 * runs in a JVM whose class path is this one with every Spring AI 2.0.1 jar
 * replaced by its 2.0.0 release from the local Maven repository (those with
 * no 2.0.0 there are left out; the test says which are missing and fails if
 * the core ones are). On 2.0.0 the application stops at startup with the
 * version named; on this class path (2.0.1) the same application starts.
 */
class SpringAiVersionsTests {

	private static final Pattern SPRING_AI = Pattern
		.compile("(.*[/\\\\]org[/\\\\]springframework[/\\\\]ai[/\\\\])([^/\\\\]+)[/\\\\]2\\.0\\.1[/\\\\]\\2-2\\.0\\.1\\.jar");

	static String run(List<String> classPath) throws Exception {
		String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
		Process p = new ProcessBuilder(java, "-cp", String.join(File.pathSeparator, classPath),
				VersionProbeApplication.class.getName())
			.redirectErrorStream(true)
			.start();
		byte[] out = p.getInputStream().readAllBytes();
		assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("the probe ends").isTrue();
		return new String(out, StandardCharsets.UTF_8);
	}

	static List<String> classPath() {
		return List.of(System.getProperty("java.class.path").split(File.pathSeparator));
	}

	@Test
	void onSpringAi201TheApplicationStarts() throws Exception {
		// No chat model, no memory: the runaway turn's end alone.
		assertThat(run(classPath())).contains("started: end-turn-after-breach");
	}

	@Test
	void onSpringAi200TheApplicationStopsNamingTheVersion() throws Exception {
		List<String> swapped = new ArrayList<>();
		List<String> replaced = new ArrayList<>();
		List<String> missing = new ArrayList<>();
		for (String entry : classPath()) {
			Matcher m = SPRING_AI.matcher(entry);
			if (!m.matches()) {
				swapped.add(entry);
				continue;
			}
			Path old = Path.of(m.group(1), m.group(2), "2.0.0", m.group(2) + "-2.0.0.jar");
			if (Files.isRegularFile(old)) {
				swapped.add(old.toString());
				replaced.add(m.group(2));
			}
			else {
				missing.add(m.group(2));
			}
		}
		System.out.println("Spring AI 2.0.0 jars: " + replaced + "; no 2.0.0 jar, left out: " + missing);
		assertThat(replaced).as("the core 2.0.0 jars are in the local repository")
			.contains("spring-ai-model", "spring-ai-client-chat", "spring-ai-commons",
					"spring-ai-autoconfigure-model-tool");
		String out = run(swapped);
		assertThat(out).contains("failed: toolcall-fixes is written for Spring AI 2.0.1")
			.contains("this application runs Spring AI 2.0.0")
			.contains("toolcall.fixes.enabled=false");
	}

}
