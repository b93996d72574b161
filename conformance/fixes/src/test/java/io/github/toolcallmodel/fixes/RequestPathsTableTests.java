package io.github.toolcallmodel.fixes;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/FIXES.md's table of request paths is what {@link PathsProbe} runs show,
 * on Spring AI 2.0.1 (this JVM) and on 2.0.0's jars (a JVM of its own, as in
 * {@link SpringAiVersionsTests}): the test fails when the table and the runs
 * disagree; {@code TOOLCALL_WRITE_DOCS=1} writes the runs into the table.
 * Whatever the table says, on 2.0.1 every second request Gemini receives
 * answers every call it holds, and on 2.0.0 no run stops at startup.
 */
class RequestPathsTableTests {

	static final Path DOC = Path.of("../../docs/FIXES.md");

	static final String HEADER = "| path | memory | on-limit-exceeded | mode | first turn | second request answers every call | fixes in effect on the path |\n"
			+ "|---|---|---|---|---|---|---|\n";

	static String table(List<String> rows) {
		StringBuilder b = new StringBuilder(HEADER);
		for (String r : rows) {
			b.append("| ").append(r).append(" |\n");
		}
		return b.toString();
	}

	/** The block between {@code <!-- paths VERSION begin -->} and its end marker. */
	static void check(String version, List<String> rows) throws Exception {
		String doc = Files.readString(DOC, StandardCharsets.UTF_8);
		String begin = "<!-- paths " + version + " begin: RequestPathsTableTests writes this table -->\n";
		String end = "<!-- paths " + version + " end -->";
		int a = doc.indexOf(begin);
		int b = doc.indexOf(end);
		assertThat(a).as("docs/FIXES.md has the markers of the %s table", version).isGreaterThanOrEqualTo(0);
		assertThat(b).isGreaterThan(a);
		String expected = table(rows);
		if ("1".equals(System.getenv("TOOLCALL_WRITE_DOCS"))) {
			Files.writeString(DOC, doc.substring(0, a + begin.length()) + expected + doc.substring(b),
					StandardCharsets.UTF_8);
			return;
		}
		assertThat(doc.substring(a + begin.length(), b)).as("docs/FIXES.md's %s table of paths", version)
			.isEqualTo(expected);
	}

	@Test
	void onSpringAi201EveryPathLeavesEveryCallAnswered() throws Exception {
		List<String> rows = PathsProbe.rows();
		for (String r : rows) {
			assertThat(r.split(" \\| ")[5]).as(r).isEqualTo("yes");
		}
		check("2.0.1", rows);
	}

	@Test
	void onSpringAi200EveryPathStartsAndIsTabled() throws Exception {
		List<String> classPath = SpringAiVersionsTests.springAi200();
		String out = SpringAiVersionsTests.run(classPath, PathsProbe.class.getName());
		List<String> rows = new ArrayList<>();
		for (String line : out.split("\n")) {
			if (line.startsWith("row: ")) {
				rows.add(line.substring(5).strip());
			}
		}
		assertThat(rows).as(out).hasSize(PathsProbe.count());
		assertThat(rows).noneMatch(r -> r.contains("fails at startup"));
		check("2.0.0", rows);
	}

}
