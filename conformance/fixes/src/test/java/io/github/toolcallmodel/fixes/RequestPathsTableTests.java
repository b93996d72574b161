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
 * answers every call it holds, and on 2.0.0 no run stops at startup. A plain
 * run takes every third row ({@link DeepTests}: from the first on 2.0.1, from
 * the second on 2.0.0); {@code TOOLCALL_DEEP_TESTS=1} runs every row.
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

	/**
	 * The block between {@code <!-- paths VERSION begin -->} and its end
	 * marker holds the table's header and {@link PathsProbe#count()} rows, and
	 * each row that ran ({@code rows}' non-null ones) is the table's row at its
	 * index.
	 */
	static void check(String version, List<String> rows) throws Exception {
		String doc = Files.readString(DOC, StandardCharsets.UTF_8);
		String begin = "<!-- paths " + version + " begin: RequestPathsTableTests writes this table -->\n";
		String end = "<!-- paths " + version + " end -->";
		int a = doc.indexOf(begin);
		int b = doc.indexOf(end);
		assertThat(a).as("docs/FIXES.md has the markers of the %s table", version).isGreaterThanOrEqualTo(0);
		assertThat(b).isGreaterThan(a);
		assertThat(rows).hasSize(PathsProbe.count());
		if ("1".equals(System.getenv("TOOLCALL_WRITE_DOCS"))) {
			assertThat(rows).as("TOOLCALL_WRITE_DOCS=1 writes every row: run it with TOOLCALL_DEEP_TESTS=1")
				.doesNotContainNull();
			Files.writeString(DOC, doc.substring(0, a + begin.length()) + table(rows) + doc.substring(b),
					StandardCharsets.UTF_8);
			return;
		}
		String block = doc.substring(a + begin.length(), b);
		assertThat(block).as("docs/FIXES.md's %s table's header", version).startsWith(HEADER);
		List<String> tabled = block.substring(HEADER.length()).lines().toList();
		assertThat(tabled).as("docs/FIXES.md's %s table's rows", version).hasSize(PathsProbe.count());
		int ran = 0;
		for (int i = 0; i < rows.size(); i++) {
			if (rows.get(i) != null) {
				assertThat(tabled.get(i)).as("docs/FIXES.md's %s table, row %d", version, i + 1)
					.isEqualTo("| " + rows.get(i) + " |");
				ran++;
			}
		}
		System.out.println("docs/FIXES.md's " + version + " table: " + ran + " of " + rows.size() + " rows run"
				+ (DeepTests.deep() ? "" : " (every row with TOOLCALL_DEEP_TESTS=1)"));
	}

	/** The rows that ran. */
	static List<String> ran(List<String> rows) {
		List<String> ran = rows.stream().filter(r -> r != null).toList();
		assertThat(ran).as("the share runs rows").isNotEmpty();
		return ran;
	}

	@Test
	void onSpringAi201EveryPathLeavesEveryCallAnswered() throws Exception {
		List<String> rows = PathsProbe.rows(0);
		for (String r : ran(rows)) {
			assertThat(r.split(" \\| ")[5]).as(r).isEqualTo("yes");
		}
		check("2.0.1", rows);
	}

	@Test
	void onSpringAi200EveryPathStartsAndIsTabled() throws Exception {
		List<String> classPath = SpringAiVersionsTests.springAi200();
		// The other share than 2.0.1's: a plain run meets two thirds of the paths on one version or the other.
		String out = SpringAiVersionsTests.run(classPath, PathsProbe.class.getName(), "1");
		List<String> rows = new ArrayList<>();
		for (String line : out.split("\n")) {
			if (line.startsWith("row: ")) {
				String row = line.substring(5).strip();
				rows.add(row.equals("-") ? null : row);
			}
		}
		assertThat(rows).as(out).hasSize(PathsProbe.count());
		assertThat(ran(rows)).noneMatch(r -> r.contains("fails at startup"));
		check("2.0.0", rows);
	}

}
