package org.springframework.ai.google.genai;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.google.genai.Client;
import com.google.genai.types.Content;
import com.google.genai.types.FunctionCall;
import com.google.genai.types.FunctionResponse;
import com.google.genai.types.Part;
import io.micrometer.observation.ObservationRegistry;
import tools.jackson.databind.util.RawValue;

import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.retry.RetryUtils;

/**
 * The conformance runner's door into the real {@link GoogleGenAiChatModel}
 * request building, which is package-private (hence this package).
 *
 * <p>
 * API, for the runner's ops (all static, one model shared by the whole JVM):
 * <ul>
 * <li>{@link #request(List)}: {@code createGeminiRequest} of a prompt holding
 * the messages, as the vectors' {@code {"system_instruction": content or null,
 * "contents": [...]}}; throws whatever the real code throws (for instance
 * {@code RuntimeException("Failed to parse JSON: ...")} or
 * {@code IllegalArgumentException("Only one system message is allowed in the
 * prompt")}).</li>
 * <li>{@link #convert(String)}: the {@code functionResponse.response} that
 * {@code messageToGeminiParts} makes of one tool response with this data
 * (through {@code parseJsonToMap}); throws the same way.</li>
 * </ul>
 * Both return printable values (maps, lists, strings, booleans, null,
 * Integer/Long/BigInteger) in the REST JSON shape. A payload double is a
 * {@link RawValue} holding its shortest round-trip decimal (the digits Rust's
 * ryu and JDK 19+ print), infinities and NaN the strings {@code "Infinity"},
 * {@code "-Infinity"}, {@code "NaN"} (as Jackson writes them), and a lone
 * surrogate in a payload string is printed as U+FFFD (a JSON text read by
 * serde cannot hold one).
 */
public final class GeminiBridge {

	/** Never used for IO: building a request touches neither client nor network. */
	private static final GoogleGenAiChatModel MODEL;

	private static final GoogleGenAiChatOptions OPTIONS;

	static {
		Client client = Client.builder().apiKey("conformance-runner-no-network").vertexAI(false).build();
		OPTIONS = GoogleGenAiChatOptions.builder().model("gemini-2.5-flash").build();
		MODEL = new GoogleGenAiChatModel(client, OPTIONS, ToolCallingManager.builder().build(),
				RetryUtils.DEFAULT_RETRY_TEMPLATE, ObservationRegistry.NOOP);
	}

	private GeminiBridge() {
	}

	/** {@code createGeminiRequest(new Prompt(instructions, options))}, printed. */
	public static Map<String, Object> request(List<Message> instructions) {
		GoogleGenAiChatModel.GeminiRequest r = MODEL.createGeminiRequest(new Prompt(instructions, OPTIONS));
		return printed(r.config().systemInstruction().orElse(null), r.contents());
	}

	/**
	 * A request's system instruction (or {@code null}) and contents in the
	 * vectors' shape: what {@link #request(List)} prints, for a request read
	 * back from what the google-genai client sent.
	 */
	public static Map<String, Object> printed(Content systemInstruction, List<Content> contents) {
		Map<String, Object> out = new LinkedHashMap<>();
		out.put("system_instruction", systemInstruction == null ? null : content(systemInstruction));
		List<Object> printed = new ArrayList<>();
		for (Content c : contents) {
			printed.add(content(c));
		}
		out.put("contents", printed);
		return out;
	}

	/**
	 * The payload a fixed conversion gives one tool response, and whether the
	 * real conversion of what was sent must agree with it but for the precision
	 * of decimals (false where the sender had to send the text instead).
	 */
	public record Payload(Map<String, Object> exact, boolean comparable) {
	}

	/**
	 * {@link #request(List)} of {@code sent}, with the response of each function
	 * response part replaced by what {@code payload} gives for its tool message
	 * and the response's index (kept when it gives {@code null}): the fixes'
	 * conversion installed in place of {@code parseJsonToMap}, which is private.
	 * Where the payload is comparable, the real conversion of the sent data must
	 * equal it but for decimals that a double rounds; otherwise this throws.
	 */
	public static Map<String, Object> request(List<Message> sent,
			java.util.function.BiFunction<ToolResponseMessage, Integer, Payload> payload) {
		Map<String, Object> out = request(sent);
		@SuppressWarnings("unchecked")
		List<Map<String, Object>> contents = (List<Map<String, Object>>) out.get("contents");
		int k = 0;
		for (Message m : sent) {
			if (m.getMessageType() == org.springframework.ai.chat.messages.MessageType.SYSTEM) {
				continue;
			}
			if (m instanceof ToolResponseMessage tool && k < contents.size()) {
				@SuppressWarnings("unchecked")
				List<Map<String, Object>> parts = (List<Map<String, Object>>) contents.get(k).get("parts");
				for (int j = 0; j < parts.size(); j++) {
					@SuppressWarnings("unchecked")
					Map<String, Object> fr = (Map<String, Object>) parts.get(j).get("functionResponse");
					Payload p = fr == null ? null : payload.apply(tool, j);
					if (p != null && p.exact() != null) {
						Object exact = value(p.exact());
						if (p.comparable() && !sameButDoubles(fr.get("response"), exact)) {
							throw new IllegalStateException("runner: the fix library's advisor sends a tool response that "
									+ "Spring's conversion reads as " + fr.get("response") + ", not as the fixed conversion's "
									+ exact);
						}
						fr.put("response", exact);
					}
				}
			}
			k++;
		}
		return out;
	}

	/**
	 * Whether a payload Spring's conversion printed equals an exact one, numbers
	 * compared as Jackson reads them: integers exactly, decimals as the double
	 * their text rounds to.
	 */
	public static boolean sameButDoubles(Object upstream, Object exact) {
		if (exact instanceof RawValue r) {
			String t = String.valueOf(r.rawValue());
			BigDecimal e;
			try {
				e = new BigDecimal(t);
			}
			catch (NumberFormatException x) {
				return false;
			}
			if (upstream instanceof Integer || upstream instanceof Long || upstream instanceof BigInteger) {
				return e.compareTo(new BigDecimal(upstream.toString())) == 0;
			}
			double d = Double.parseDouble(t);
			if (upstream instanceof RawValue u) {
				return d == Double.parseDouble(String.valueOf(u.rawValue()));
			}
			if (upstream instanceof String s && Double.isInfinite(d)) {
				return s.equals(d > 0 ? "Infinity" : "-Infinity");
			}
			return false;
		}
		if (exact instanceof Map<?, ?> em && upstream instanceof Map<?, ?> um) {
			if (em.size() != um.size()) {
				return false;
			}
			var ui = um.entrySet().iterator();
			for (var e : em.entrySet()) {
				var u = ui.next();
				if (!e.getKey().equals(u.getKey()) || !sameButDoubles(u.getValue(), e.getValue())) {
					return false;
				}
			}
			return true;
		}
		if (exact instanceof List<?> el && upstream instanceof List<?> ul) {
			if (el.size() != ul.size()) {
				return false;
			}
			for (int i = 0; i < el.size(); i++) {
				if (!sameButDoubles(ul.get(i), el.get(i))) {
					return false;
				}
			}
			return true;
		}
		return java.util.Objects.equals(upstream, exact);
	}

	/** The response object of one tool response with {@code text} as its data, printed. */
	public static Map<String, Object> convert(String text) {
		ToolResponseMessage m = ToolResponseMessage.builder()
			.responses(List.of(new ToolResponseMessage.ToolResponse("id", "tool", text)))
			.build();
		List<Part> parts = MODEL.messageToGeminiParts(m);
		return payload(parts.get(0).functionResponse().flatMap(FunctionResponse::response).orElseThrow());
	}

	// ------------------------------------------------------------ REST shape

	static Map<String, Object> content(Content c) {
		Map<String, Object> out = new LinkedHashMap<>();
		out.put("role", c.role().orElse(null));
		List<Object> parts = new ArrayList<>();
		for (Part p : c.parts().orElse(List.of())) {
			parts.add(part(p));
		}
		out.put("parts", parts);
		return out;
	}

	static Map<String, Object> part(Part p) {
		Map<String, Object> out = new LinkedHashMap<>();
		p.text().ifPresent(t -> out.put("text", t));
		if (p.functionCall().isPresent()) {
			FunctionCall fc = p.functionCall().get();
			Map<String, Object> m = new LinkedHashMap<>();
			m.put("name", fc.name().orElse(null));
			m.put("args", fc.args().map(GeminiBridge::payload).orElse(null));
			out.put("functionCall", m);
		}
		if (p.functionResponse().isPresent()) {
			FunctionResponse fr = p.functionResponse().get();
			Map<String, Object> m = new LinkedHashMap<>();
			m.put("name", fr.name().orElse(null));
			m.put("response", fr.response().map(GeminiBridge::payload).orElse(null));
			out.put("functionResponse", m);
		}
		p.thoughtSignature().ifPresent(s -> out.put("thoughtSignature", Base64.getEncoder().encodeToString(s)));
		if (out.isEmpty() || p.inlineData().isPresent() || p.fileData().isPresent()) {
			throw new IllegalStateException("runner: a part this bridge does not print: " + p);
		}
		return out;
	}

	// --------------------------------------------------------------- payload

	static Map<String, Object> payload(Map<String, Object> map) {
		@SuppressWarnings("unchecked")
		Map<String, Object> out = (Map<String, Object>) value(map);
		return out;
	}

	/** A value as Jackson built it, in printable form (see the class note). */
	public static Object value(Object v) {
		if (v == null || v instanceof Boolean || v instanceof Integer || v instanceof Long
				|| v instanceof BigInteger || v instanceof BigDecimal || v instanceof RawValue) {
			return v;
		}
		if (v instanceof String s) {
			return text(s);
		}
		if (v instanceof Double d) {
			return number(d);
		}
		if (v instanceof Float f) {
			return number(f.doubleValue());
		}
		if (v instanceof Map<?, ?> m) {
			Map<String, Object> out = new LinkedHashMap<>();
			for (var e : m.entrySet()) {
				out.put(text((String) e.getKey()), value(e.getValue()));
			}
			return out;
		}
		if (v instanceof List<?> l) {
			List<Object> out = new ArrayList<>(l.size());
			for (Object o : l) {
				out.add(value(o));
			}
			return out;
		}
		throw new IllegalStateException("runner: unexpected payload value of " + v.getClass());
	}

	/** The string with each lone surrogate replaced by U+FFFD. */
	static String text(String s) {
		StringBuilder b = null;
		for (int i = 0; i < s.length(); i++) {
			char c = s.charAt(i);
			boolean lone;
			if (Character.isHighSurrogate(c)) {
				lone = i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1));
				if (!lone) {
					if (b != null) {
						b.append(c).append(s.charAt(i + 1));
					}
					i++;
					continue;
				}
			}
			else {
				lone = Character.isLowSurrogate(c);
			}
			if (lone && b == null) {
				b = new StringBuilder(s.length()).append(s, 0, i);
			}
			if (b != null) {
				b.append(lone ? '\uFFFD' : c);
			}
		}
		return b == null ? s : b.toString();
	}

	/** A double: the shortest decimal that reads back as it, or Jackson's name for a non-finite one. */
	static Object number(double d) {
		if (Double.isNaN(d)) {
			return "NaN";
		}
		if (Double.isInfinite(d)) {
			return d > 0 ? "Infinity" : "-Infinity";
		}
		if (d == 0) {
			return new RawValue((1 / d < 0) ? "-0.0" : "0.0");
		}
		BigDecimal exact = new BigDecimal(d);
		BigDecimal best = null;
		for (int p = 1; p <= 17 && best == null; p++) {
			for (RoundingMode mode : new RoundingMode[] { RoundingMode.FLOOR, RoundingMode.CEILING }) {
				BigDecimal c = exact.round(new MathContext(p, mode));
				if (c.doubleValue() == d && (best == null
						|| c.subtract(exact).abs().compareTo(best.subtract(exact).abs()) < 0)) {
					best = c;
				}
			}
		}
		if (best == null) {
			best = exact;
		}
		best = best.stripTrailingZeros();
		// Plain notation, with a fraction, for magnitudes Java prints plainly.
		double a = Math.abs(d);
		if (a >= 1e-3 && a < 1e7) {
			String plain = best.toPlainString();
			return new RawValue(plain.contains(".") ? plain : plain + ".0");
		}
		String digits = best.unscaledValue().abs().toString();
		int exponent = digits.length() - 1 - best.scale();
		String mantissa = digits.substring(0, 1) + "." + (digits.length() > 1 ? digits.substring(1) : "0");
		return new RawValue((d < 0 ? "-" : "") + mantissa + "E" + exponent);
	}

}
