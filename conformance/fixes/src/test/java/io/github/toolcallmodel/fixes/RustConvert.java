package io.github.toolcallmodel.fixes;

import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.util.RawValue;

/**
 * The model's conversion of a tool response ({@code toolcall-model convert
 * --jsonl}, one process per command line for the whole run), when
 * {@code TOOLCALL_MODEL_BIN} names the built command: {@code cargo test}
 * (tests/fix_library.rs) and {@code .ci/run} set it, so that {@code mvn test}
 * alone needs no Rust build. Values are compared as {@link #canonical} makes
 * them: numbers by value, the strings {@code "Infinity"} and
 * {@code "-Infinity"} for infinite doubles (as the model writes them).
 */
final class RustConvert {

	/** The command, or null when {@code TOOLCALL_MODEL_BIN} is unset. */
	static final String BIN = System.getenv("TOOLCALL_MODEL_BIN");

	/** A reader of whatever the model writes: no depth or length limit that a payload could reach. */
	static final JsonFactory READER = JsonFactory.builder()
		.streamReadConstraints(StreamReadConstraints.builder()
			.maxNestingDepth(10_000)
			.maxStringLength(Integer.MAX_VALUE)
			.maxNumberLength(Integer.MAX_VALUE)
			.maxNameLength(Integer.MAX_VALUE)
			.maxDocumentLength(-1)
			.maxTokenCount(-1)
			.build())
		.build();

	private RustConvert() {
	}

	/** What the model answers: {@code ok} the payload, or {@code error} the failure's message. */
	record Answer(Object ok, String error) {
	}

	static boolean available() {
		return BIN != null && !BIN.isEmpty();
	}

	/**
	 * The model's conversion of {@code text} under {@code fixes} (and
	 * {@code --error}).
	 */
	static Answer convert(String text, String fixes, boolean error) {
		List<String> cmd = new ArrayList<>(List.of(BIN, "convert", "--jsonl", "--fixes", fixes));
		if (error) {
			cmd.add("--error");
		}
		return ask(cmd, text);
	}

	/**
	 * The text the model's seed workaround ({@code GeminiToolTextAdvisor},
	 * {@code convert --fixes gemini-tool-text --advised}) passes on for a tool
	 * response {@code text}.
	 */
	static String seedAdvised(String text) {
		Answer a = ask(List.of(BIN, "convert", "--jsonl", "--fixes", "gemini-tool-text", "--advised"), text);
		if (a.ok() instanceof String advised) {
			return advised;
		}
		throw new IllegalStateException("the model's convert --advised answers " + a);
	}

	/** A text as one JSON string literal (Jackson escapes every line break). */
	private static final tools.jackson.databind.json.JsonMapper WRITER = tools.jackson.databind.json.JsonMapper.builder()
		.build();

	/**
	 * One {@code convert --jsonl} per command line, kept open for the whole
	 * run (a campaign's speed was one process per input): a line in, one line
	 * out, which the command flushes as soon as it has answered every line it
	 * has read.
	 */
	private static final Map<List<String>, Server> SERVERS = new HashMap<>();

	private record Server(Process process, OutputStream in, BufferedReader out) {

		static Server start(List<String> cmd) {
			try {
				Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
				return new Server(p, new BufferedOutputStream(p.getOutputStream(), 1 << 16),
						new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8), 1 << 16));
			}
			catch (IOException e) {
				throw new UncheckedIOException(e);
			}
		}

	}

	private static synchronized Answer ask(List<String> cmd, String text) {
		Server server = SERVERS.computeIfAbsent(cmd, Server::start);
		String line;
		try {
			server.in().write(WRITER.writeValueAsBytes(text));
			server.in().write('\n');
			server.in().flush();
			line = server.out().readLine();
		}
		catch (IOException e) {
			SERVERS.remove(cmd);
			throw new UncheckedIOException(e);
		}
		if (line == null) {
			SERVERS.remove(cmd);
			throw new IllegalStateException("the model's " + cmd + " ended");
		}
		if (!(read(line) instanceof Map<?, ?> answer)) {
			throw new IllegalStateException("the model's " + cmd + " answers " + line);
		}
		if (answer.containsKey("ok")) {
			return new Answer(answer.get("ok"), null);
		}
		if (answer.get("error") instanceof String e && e.startsWith("java.lang.RuntimeException: ")) {
			// As the command writes it on its standard error without --jsonl.
			return new Answer(null, "error: " + e);
		}
		throw new IllegalStateException("the model's " + cmd + " answers " + line);
	}

	/** The model's payload, canonical: numbers kept as written until {@link #number} reads them. */
	static Object read(String json) {
		try (JsonParser p = READER.createParser(ObjectReadContext.empty(), json)) {
			return read(p, p.nextToken());
		}
	}

	private static Object read(JsonParser p, JsonToken t) {
		switch (t) {
			case START_OBJECT -> {
				Map<String, Object> m = new LinkedHashMap<>();
				for (JsonToken k = p.nextToken(); k != JsonToken.END_OBJECT; k = p.nextToken()) {
					String name = p.currentName();
					m.put(name, read(p, p.nextToken()));
				}
				return m;
			}
			case START_ARRAY -> {
				List<Object> l = new ArrayList<>();
				for (JsonToken v = p.nextToken(); v != JsonToken.END_ARRAY; v = p.nextToken()) {
					l.add(read(p, v));
				}
				return l;
			}
			case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> {
				return number(p.getString());
			}
			case VALUE_STRING -> {
				return p.getString();
			}
			case VALUE_TRUE -> {
				return Boolean.TRUE;
			}
			case VALUE_FALSE -> {
				return Boolean.FALSE;
			}
			case VALUE_NULL -> {
				return null;
			}
			default -> throw new IllegalStateException("not a value: " + t);
		}
	}

	/**
	 * {@code value} with every number as the canonical text of its value (a
	 * {@link RawValue} read as written), infinite doubles as the model writes
	 * them, objects as order-free maps.
	 */
	static Object canonical(Object value) {
		if (value instanceof Map<?, ?> m) {
			Map<String, Object> out = new LinkedHashMap<>();
			m.forEach((k, v) -> out.put(held(String.valueOf(k)), canonical(v)));
			return out;
		}
		if (value instanceof String s) {
			return held(s);
		}
		if (value instanceof List<?> l) {
			List<Object> out = new ArrayList<>(l.size());
			l.forEach(v -> out.add(canonical(v)));
			return out;
		}
		if (value instanceof Double d && d.isInfinite()) {
			return d > 0 ? "Infinity" : "-Infinity";
		}
		if (value instanceof Float f && f.isInfinite()) {
			return f > 0 ? "Infinity" : "-Infinity";
		}
		if (value instanceof RawValue r) {
			return number(String.valueOf(r.rawValue()));
		}
		if (value instanceof Number n) {
			return number(n.toString());
		}
		return value;
	}

	/**
	 * {@code s} as the model holds it: a lone surrogate (which Jackson reads
	 * from an escape) as U+FFFD, one UTF-16 unit as well ({@code docs/JSON.md} B).
	 */
	static String held(String s) {
		StringBuilder b = null;
		for (int i = 0; i < s.length(); i++) {
			char c = s.charAt(i);
			boolean pair = Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
			if (pair) {
				if (b != null) {
					b.append(c).append(s.charAt(i + 1));
				}
				i++;
				continue;
			}
			if (Character.isSurrogate(c) && b == null) {
				b = new StringBuilder(s.length()).append(s, 0, i);
			}
			if (b != null) {
				b.append(Character.isSurrogate(c) ? '\uFFFD' : c);
			}
		}
		return b == null ? s : b.toString();
	}

	/** A number by its value: {@code 1.0}, {@code 1E0} and {@code 1} are one {@code Num}. */
	record Num(String value) {
	}

	private static Num number(String text) {
		if (text.length() > 2_000) {
			// Parsing a number of millions of digits takes minutes; both sides
			// keep such a number as written.
			return new Num(text.toLowerCase(java.util.Locale.ROOT));
		}
		try {
			BigDecimal d = new BigDecimal(text);
			return new Num(d.signum() == 0 ? "0" : d.stripTrailingZeros().toString());
		}
		catch (NumberFormatException | ArithmeticException e) {
			// An exponent past an int's range: compared as written.
			return new Num(text.toLowerCase(java.util.Locale.ROOT));
		}
	}

}
