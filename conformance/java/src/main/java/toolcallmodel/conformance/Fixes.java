package toolcallmodel.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A vector's {@code fixes}: a list of fix names or {@code "all"} (every fix
 * whose {@code in_all} is true); absent or empty is upstream. Each is
 * installed from the fix library (conformance/fixes). The names, which
 * {@code all} holds and the beans each fix changes are the model's fix
 * table ({@code fixes.tsv}, written from src/model/behavior.rs), not a list
 * of this runner's.
 */
record Fixes(Set<String> on) {

	/** The fix table's resource: one header line, then per fix its name, in_all, acts, beans and Java name. */
	static final String TABLE = "/io/github/toolcallmodel/fixes/fixes.tsv";

	/** Per fix, in the model's order: its row of the table, by column name. */
	static final Map<String, Map<String, String>> ROWS = read();

	static final Fixes UPSTREAM = new Fixes(Set.of());

	private static Map<String, Map<String, String>> read() {
		try (InputStream in = Fixes.class.getResourceAsStream(TABLE)) {
			if (in == null) {
				throw new IllegalStateException("runner: no " + TABLE + " on the class path");
			}
			var lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).lines()
				.filter(l -> !l.startsWith("#"))
				.toList();
			String[] header = lines.get(0).split("\t");
			Map<String, Map<String, String>> rows = new LinkedHashMap<>();
			for (String line : lines.subList(1, lines.size())) {
				String[] cells = line.split("\t");
				Map<String, String> row = new LinkedHashMap<>();
				for (int i = 0; i < header.length; i++) {
					row.put(header[i], cells[i]);
				}
				rows.put(cells[0], row);
			}
			return rows;
		}
		catch (IOException e) {
			throw new UncheckedIOException(e);
		}
	}

	static Fixes of(Object v) {
		if (v == null) {
			return UPSTREAM;
		}
		Set<String> on = new LinkedHashSet<>();
		if ("all".equals(v)) {
			on.addAll(all());
		}
		else {
			List<Object> list = Json.arr(v, "/fixes");
			for (int i = 0; i < list.size(); i++) {
				String name = Json.str(list.get(i), "/fixes/" + i);
				if (name.equals("all")) {
					on.addAll(all());
				}
				else if (ROWS.containsKey(name)) {
					on.add(name);
				}
				else {
					throw new Json.Fault("/fixes/" + i + ": unknown fix '" + name + "' (known: "
							+ new ArrayList<>(ROWS.keySet()) + ")");
				}
			}
		}
		return new Fixes(Set.copyOf(on));
	}

	/** The fixes {@code all} turns on. */
	private static List<String> all() {
		return ROWS.values().stream().filter(r -> r.get("in_all").equals("true")).map(r -> r.get("name")).toList();
	}

	/** Whether the fix named {@code name} is on. */
	boolean has(String name) {
		if (!ROWS.containsKey(name)) {
			throw new IllegalArgumentException("runner: no fix " + name);
		}
		return this.on.contains(name);
	}

	boolean any() {
		return !this.on.isEmpty();
	}

	/** Whether a fix that is on changes the library's {@code bean} (a name of the table's beans column). */
	private boolean changes(String bean) {
		return this.on.stream().anyMatch(f -> List.of(ROWS.get(f).get("beans").split(",")).contains(bean));
	}

	/** The manager is wrapped by the fix library's FixingToolCallingManager. */
	boolean wrapsManager() {
		return changes("manager");
	}

	/** Gemini's conversion of tool responses is a fixed one (the advisor rewrites what is sent). */
	boolean geminiConversion() {
		return changes("chat-model");
	}

	/** The window is the fix library's TurnKeepingWindowChatMemory. */
	boolean window() {
		return changes("window");
	}

	/** The memory is wrapped in the fix library's AnsweredGenerationChatMemory. */
	boolean storesAnswered() {
		return changes("memory");
	}

	/** The tool advisor is the fix library's FixingToolCallingAdvisor. */
	boolean toolAdvisor() {
		return changes("tool-advisor");
	}

}
