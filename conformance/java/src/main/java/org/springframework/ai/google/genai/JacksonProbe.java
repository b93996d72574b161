package org.springframework.ai.google.genai;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.google.genai.Client;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * Differential oracle for {@code src/json/jackson/} (driven by
 * {@code tests/jackson_diff.rs}): runs each text through the real, private
 * {@code GoogleGenAiChatModel.parseJsonToMap} of Spring AI 2.0.1, on the conformance
 * project's Jackson 3 (whatever {@code pom.xml} resolves), and through the same mapper with
 * {@code FAIL_ON_TRAILING_TOKENS} enabled (the natural Java form of the
 * {@code strict-json-or-wrap} fix's "one whole JSON value").
 *
 * <p>
 * The model is built with a genai {@link Client} that is never used (an API key
 * that is never sent; {@code parseJsonToMap} does no I/O), and the method is
 * reached by reflection; this class lives in Spring's package only so that it
 * can name package-private types.
 *
 * <p>
 * Usage: {@code java ... JacksonProbe IN OUT}. IN holds one text per line, in
 * quotes, with JSON's escapes ({@code \"}, {@code \\}, {@code \\uXXXX}, the
 * one-letter ones); a line break inside a text must be escaped, anything else may
 * be raw;
 * OUT gets one line per text: {@code STRICT LENIENT}, where
 * <ul>
 * <li>STRICT is {@code +} when the strict mapper reads the text, else {@code -}
 * and the exception's simple class name;</li>
 * <li>LENIENT is {@code OK <map>} for the map parseJsonToMap returned, or
 * {@code ERR <cause>} when it threw {@code RuntimeException("Failed to parse
 * JSON: " + text, cause)} with the cause's simple class name, or
 * {@code BAD <what>} for any other outcome.</li>
 * </ul>
 *
 * <p>
 * Canonical value, shared with {@code tests/jackson_diff.rs}: {@code n | t | f |
 * i<decimal> | d<16 hex digits of the double's raw bits> | s"<string>" | [v,...] |
 * {s"k":v,...}}. The returned map is tagged {@code L} when it is Jackson's own
 * {@link LinkedHashMap} (the text was an object) and {@code H} when it is
 * Spring's {@link HashMap} wrapper {@code {"result": value}}. Strings: printable
 * ASCII except {@code "} and {@code \} as is, every other UTF-16 unit as
 * {@code \\uXXXX} (lowercase hex); an unpaired surrogate is printed as U+FFFD, as
 * the Rust model holds it. A string longer than {@link #HASHED} units prints as
 * {@code s#<length>#<16 hex digits>}: its length and the FNV-1a 64 hash of its
 * units (lone surrogates as U+FFFD), so that 100,000,000-unit strings are not
 * printed. Doubles print by bits, so -0.0, Infinity and -Infinity
 * compare exactly. An integer whose Java class is not the smallest of
 * Integer/Long/BigInteger that holds it prints as {@code i!<class>:<decimal>},
 * which never matches.
 *
 * <p>
 * Texts longer than 32,768 UTF-16 units are read by Jackson through a
 * {@code StringReader} into a recycled buffer whose size depends on what the
 * process parsed before; before each of them the mapper's recycler pool is
 * cleared, so that every such text is read through a fresh 4,000-char buffer,
 * the state the Rust model assumes. Shorter texts are copied into one buffer and
 * do not depend on the pool.
 */
public final class JacksonProbe {

	private static final int ONE_BUFFER = 32_768;

	private final GoogleGenAiChatModel model;

	private final Method parseJsonToMap;

	private final JsonMapper lenient;

	private final JsonMapper strict;

	private JacksonProbe() throws ReflectiveOperationException {
		Client client = Client.builder().apiKey("never-sent").build();
		GoogleGenAiChatModel model = GoogleGenAiChatModel.builder()
			.genAiClient(client)
			.options(GoogleGenAiChatOptions.builder().model("gemini-2.0-flash").build())
			.build();
		Method m = GoogleGenAiChatModel.class.getDeclaredMethod("parseJsonToMap", String.class);
		m.setAccessible(true);
		Field f = GoogleGenAiChatModel.class.getDeclaredField("jsonMapper");
		f.setAccessible(true);
		this.model = model;
		this.parseJsonToMap = m;
		this.lenient = (JsonMapper) f.get(model);
		this.strict = this.lenient.rebuild().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();
	}

	public static void main(String[] args) throws Throwable {
		if (args.length != 2) {
			System.err.println("usage: JacksonProbe IN OUT");
			System.exit(2);
		}
		Throwable[] failure = new Throwable[1];
		// The canonical printer recurses once per nesting level (at most 500).
		Thread worker = new Thread(null, () -> {
			try {
				new JacksonProbe().run(args[0], args[1]);
			}
			catch (Throwable e) {
				failure[0] = e;
			}
		}, "jackson-probe", 256L << 20);
		worker.start();
		worker.join();
		if (failure[0] != null) {
			throw failure[0];
		}
	}

	private void run(String in, String out) throws IOException {
		try (BufferedReader r = new BufferedReader(
				new InputStreamReader(new FileInputStream(in), StandardCharsets.UTF_8), 1 << 20);
				Writer w = new BufferedWriter(
						new OutputStreamWriter(new FileOutputStream(out), StandardCharsets.UTF_8), 1 << 20)) {
			StringBuilder sb = new StringBuilder();
			for (String line; (line = r.readLine()) != null;) {
				String text = decode(line);
				sb.setLength(0);
				strict(text, sb);
				sb.append(' ');
				lenient(text, sb);
				sb.append('\n');
				w.append(sb);
			}
		}
	}

	private void freshBuffers(String text) {
		if (text.length() > ONE_BUFFER) {
			this.lenient.tokenStreamFactory()._getRecyclerPool().clear();
			this.strict.tokenStreamFactory()._getRecyclerPool().clear();
		}
	}

	private void strict(String text, StringBuilder sb) {
		freshBuffers(text);
		try {
			this.strict.readValue(text, Object.class);
			sb.append('+');
		}
		catch (Exception e) {
			sb.append('-').append(e.getClass().getSimpleName());
		}
	}

	private void lenient(String text, StringBuilder sb) {
		freshBuffers(text);
		Object result;
		try {
			result = this.parseJsonToMap.invoke(this.model, text);
		}
		catch (InvocationTargetException e) {
			Throwable t = e.getCause();
			if (t.getClass() != RuntimeException.class) {
				sb.append("BAD threw ").append(t.getClass().getName());
			}
			else if (!("Failed to parse JSON: " + text).equals(t.getMessage())) {
				sb.append("BAD message ").append(oneLine(t.getMessage()));
			}
			else if (t.getCause() == null) {
				sb.append("BAD no cause");
			}
			else {
				sb.append("ERR ").append(t.getCause().getClass().getSimpleName());
			}
			return;
		}
		catch (IllegalAccessException e) {
			throw new IllegalStateException(e);
		}
		if (result == null) {
			sb.append("BAD null");
			return;
		}
		sb.append("OK ");
		if (result.getClass() == LinkedHashMap.class) {
			sb.append('L');
		}
		else if (result.getClass() == HashMap.class) {
			sb.append('H');
		}
		else {
			sb.append('?').append(result.getClass().getName());
		}
		canon(result, sb);
	}

	/** Decodes one JSON string literal; the 20M-char texts are over Jackson's own string limit. */
	static String decode(String line) {
		int end = line.length() - 1;
		if (end < 1 || line.charAt(0) != '"' || line.charAt(end) != '"') {
			throw new IllegalArgumentException("not a JSON string literal: " + oneLine(line));
		}
		StringBuilder sb = new StringBuilder(end);
		for (int i = 1; i < end; i++) {
			char c = line.charAt(i);
			if (c != '\\') {
				sb.append(c);
				continue;
			}
			char e = line.charAt(++i);
			switch (e) {
				case 'b' -> sb.append('\b');
				case 'f' -> sb.append('\f');
				case 'n' -> sb.append('\n');
				case 'r' -> sb.append('\r');
				case 't' -> sb.append('\t');
				case 'u' -> {
					sb.append((char) Integer.parseInt(line.substring(i + 1, i + 5), 16));
					i += 4;
				}
				default -> sb.append(e);
			}
		}
		return sb.toString();
	}

	static String oneLine(String message) {
		if (message == null) {
			return "null";
		}
		String s = message.replace('\r', ' ').replace('\n', ' ');
		return s.length() > 300 ? s.substring(0, 300) + "..." : s;
	}

	/** Recursion is bounded by Jackson's nesting depth limit (500). */
	static void canon(Object v, StringBuilder sb) {
		if (v == null) {
			sb.append('n');
		}
		else if (v instanceof Boolean b) {
			sb.append(b ? 't' : 'f');
		}
		else if (v instanceof Integer || v instanceof Long || v instanceof BigInteger) {
			BigInteger big = new BigInteger(v.toString());
			String expected = big.bitLength() < 32 ? "Integer" : big.bitLength() < 64 ? "Long" : "BigInteger";
			if (!v.getClass().getSimpleName().equals(expected)) {
				sb.append("i!").append(v.getClass().getSimpleName()).append(':');
			}
			else {
				sb.append('i');
			}
			sb.append(big);
		}
		else if (v instanceof Double d) {
			String hex = Long.toHexString(Double.doubleToRawLongBits(d));
			sb.append('d');
			sb.append("0".repeat(16 - hex.length()));
			sb.append(hex);
		}
		else if (v instanceof String s) {
			canonString(s, sb);
		}
		else if (v instanceof List<?> list) {
			sb.append('[');
			boolean first = true;
			for (Object item : list) {
				if (!first) {
					sb.append(',');
				}
				first = false;
				canon(item, sb);
			}
			sb.append(']');
		}
		else if (v instanceof Map<?, ?> map) {
			sb.append('{');
			boolean first = true;
			for (Map.Entry<?, ?> e : map.entrySet()) {
				if (!first) {
					sb.append(',');
				}
				first = false;
				canonString((String) e.getKey(), sb);
				sb.append(':');
				canon(e.getValue(), sb);
			}
			sb.append('}');
		}
		else {
			sb.append('?').append(v.getClass().getName());
		}
	}

	/** Strings longer than this many UTF-16 units print hashed (tests/jackson_diff.rs: HASHED). */
	static final int HASHED = 1000;

	static void canonString(String s, StringBuilder sb) {
		int n = s.length();
		if (n > HASHED) {
			long h = 0xcbf29ce484222325L;
			for (int i = 0; i < n; i++) {
				char c = s.charAt(i);
				if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
					h = (h ^ c) * 0x100000001b3L;
					c = s.charAt(++i);
				}
				else if (Character.isSurrogate(c)) {
					c = '\uFFFD';
				}
				h = (h ^ c) * 0x100000001b3L;
			}
			String hex = Long.toHexString(h);
			sb.append("s#").append(n).append('#').append("0".repeat(16 - hex.length())).append(hex);
			return;
		}
		sb.append("s\"");
		for (int i = 0; i < n; i++) {
			char c = s.charAt(i);
			if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
				unit(c, sb);
				unit(s.charAt(++i), sb);
			}
			else if (Character.isSurrogate(c)) {
				unit('\uFFFD', sb);
			}
			else if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
				sb.append(c);
			}
			else {
				unit(c, sb);
			}
		}
		sb.append('"');
	}

	private static final char[] HEX = "0123456789abcdef".toCharArray();

	static void unit(char c, StringBuilder sb) {
		sb.append("\\u")
			.append(HEX[(c >> 12) & 0xf])
			.append(HEX[(c >> 8) & 0xf])
			.append(HEX[(c >> 4) & 0xf])
			.append(HEX[c & 0xf]);
	}

}
