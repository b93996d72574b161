package io.github.toolcallmodel.fixes;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The fixes as the model's fix table lists them ({@code fixes.tsv} beside
 * this class, written from the model's {@code Fix} rows and tested to be
 * them): each fix's name, whether {@code all} holds it, and the beans the
 * library changes for it. The library's lists of fixes follow from it.
 */
public final class FixTable {

	/** Each fix's row, by column name, in the model's order. */
	private static final Map<String, Map<String, String>> ROWS = read();

	private FixTable() {
	}

	private static Map<String, Map<String, String>> read() {
		try (InputStream in = FixTable.class.getResourceAsStream("fixes.tsv")) {
			if (in == null) {
				throw new IllegalStateException("toolcall-fixes: fixes.tsv is missing from the library");
			}
			List<String> lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).lines()
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
				rows.put(cells[0], Map.copyOf(row));
			}
			return rows;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Every fix, by the name {@code check} prints, in the model's order. */
	public static List<String> names() {
		return List.copyOf(ROWS.keySet());
	}

	/** The fixes {@code all} turns on, in order. */
	public static List<String> inAll() {
		return ROWS.values().stream().filter(r -> r.get("in_all").equals("true")).map(r -> r.get("name")).toList();
	}

	/**
	 * The fixes that change {@code bean}, in order: {@code manager} (the
	 * ToolCallingManager), {@code chat-model}, {@code tool-advisor} (the
	 * ToolCallingAdvisor.Builder), {@code window} (the ChatMemory replaced) or
	 * {@code memory} (the ChatMemory wrapped).
	 */
	public static List<String> changing(String bean) {
		return ROWS.values()
			.stream()
			.filter(r -> List.of(r.get("beans").split(",")).contains(bean))
			.map(r -> r.get("name"))
			.toList();
	}

	/** The name of {@code fix}'s field in {@link ToolCallFixesProperties}. */
	static String javaName(String fix) {
		Map<String, String> row = ROWS.get(fix);
		if (row == null) {
			throw new IllegalArgumentException("no fix " + fix);
		}
		return row.get("java");
	}

	/** Whether {@code fixes} names only fixes of the table. */
	static Set<String> known(Set<String> fixes) {
		for (String f : fixes) {
			if (!ROWS.containsKey(f)) {
				throw new IllegalArgumentException("no fix " + f + " (known: " + names() + ")");
			}
		}
		return fixes;
	}

}
