package io.github.toolcallmodel.fixes;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The fixes as the model's fix table lists them ({@code fixes.tsv} beside
 * this class, written from the model's {@code Fix} rows and tested to be
 * them): each fix's name, whether {@code all} holds it, where it acts, the
 * beans the library changes for it, its properties field and what it is
 * when its switch is unset. The one reader
 * of the table: the libraries, the conformance runner and the bench take
 * their fixes, and their sets of fixes ({@link FixSet}), from it.
 */
public final class FixTable {

	/** The table's resource, beside this class. */
	public static final String RESOURCE = "/io/github/toolcallmodel/fixes/fixes.tsv";

	/** The columns read, in any order in the file. */
	private static final List<String> COLUMNS = List.of("name", "in_all", "acts", "beans", "java", "unset");

	/** Each fix, in the model's order. */
	private static final List<Fix> FIXES;

	private static final Map<String, Fix> BY_NAME = new LinkedHashMap<>();

	static {
		FIXES = read();
		for (Fix f : FIXES) {
			BY_NAME.put(f.name(), f);
		}
	}

	private FixTable() {
	}

	private static List<Fix> read() {
		try (InputStream in = FixTable.class.getResourceAsStream(RESOURCE)) {
			if (in == null) {
				throw new IllegalStateException("toolcall-fixes: " + RESOURCE + " is missing from the class path");
			}
			List<String> lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8)).lines()
				.filter(l -> !l.startsWith("#") && !l.isEmpty())
				.toList();
			return parse(lines);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** The fixes of the table's lines (comments left out): a header, then one row per fix. */
	static List<Fix> parse(List<String> lines) {
		if (lines.isEmpty()) {
			throw new IllegalStateException("toolcall-fixes: fixes.tsv has no header");
		}
		List<String> header = List.of(lines.get(0).split("\t", -1));
		for (String c : COLUMNS) {
			if (!header.contains(c)) {
				throw new IllegalStateException("toolcall-fixes: fixes.tsv has no column " + c + " (" + header + ")");
			}
		}
		List<Fix> fixes = new ArrayList<>();
		for (String line : lines.subList(1, lines.size())) {
			String[] cells = line.split("\t", -1);
			if (cells.length != header.size()) {
				throw new IllegalStateException("toolcall-fixes: fixes.tsv row of " + cells.length + " cells under "
						+ header.size() + " columns: " + line);
			}
			if (fixes.size() == Long.SIZE) {
				throw new IllegalStateException("toolcall-fixes: fixes.tsv has more than " + Long.SIZE
						+ " fixes, more than a FixSet holds");
			}
			String in = cells[header.indexOf("in_all")];
			if (!in.equals("true") && !in.equals("false")) {
				throw new IllegalStateException("toolcall-fixes: fixes.tsv in_all is " + in + ": " + line);
			}
			String unset = cells[header.indexOf("unset")];
			if (!unset.equals("off") && !unset.equals("decided")) {
				throw new IllegalStateException("toolcall-fixes: fixes.tsv unset is " + unset + ": " + line);
			}
			String beans = cells[header.indexOf("beans")];
			fixes.add(new Fix(fixes.size(), cells[header.indexOf("name")], in.equals("true"),
					cells[header.indexOf("acts")], beans.isEmpty() ? List.of() : List.of(beans.split(",")),
					cells[header.indexOf("java")], unset.equals("off") ? Fix.Unset.OFF : Fix.Unset.DECIDED));
		}
		return List.copyOf(fixes);
	}

	/** Every fix, in the model's order. */
	public static List<Fix> fixes() {
		return FIXES;
	}

	/** Every fix's name, the one {@code check} prints, in the model's order. */
	public static List<String> names() {
		return List.copyOf(BY_NAME.keySet());
	}

	/**
	 * The fix named {@code name}.
	 * @throws IllegalArgumentException for a name the table does not have
	 */
	public static Fix fix(String name) {
		Fix f = BY_NAME.get(name);
		if (f == null) {
			throw new IllegalArgumentException("no fix " + name + " (known: " + names() + ")");
		}
		return f;
	}

	/** Whether the table has a fix named {@code name}. */
	public static boolean has(String name) {
		return BY_NAME.containsKey(name);
	}

}
