package io.github.toolcallmodel.fixes;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.ai.util.JacksonUtils;

/**
 * The fixed conversions of a tool response for Gemini ({@code docs/GEMINI.md},
 * "The fixed conversions"), in two forms:
 * <ul>
 * <li>{@link #rewrite}: the response data as one JSON object text that Spring AI
 * 2.0.1's own conversion ({@code GoogleGenAiChatModel.parseJsonToMap}) reads
 * into the fixed payload. This is what {@link GeminiSafeToolResponseAdvisor}
 * sends, so it works on the released jars. One difference remains, and no code
 * outside the jar can remove it: {@code parseJsonToMap} reads decimals as
 * doubles, so a decimal that a double cannot hold exactly arrives rounded
 * ({@code 0.11623512015512211} as {@code 0.1162351201551221}, {@code 1e400}
 * as infinity).</li>
 * <li>{@link #payload}: the fixed payload itself, numbers exact as written: what
 * {@code messageToGeminiParts} would send if it called this instead of
 * {@code parseJsonToMap} for a tool response (the smallest upstream change,
 * {@code docs/FIXES.md}).</li>
 * </ul>
 * The two upstream pull requests on the same conversion, modelled for
 * comparison, are rewrites too ({@link #rewrite(String, boolean, FixSet)}): each leaves a text the pull request's reader takes as it
 * is, so Spring's own conversion builds what the pull request would build
 * (decimals as doubles included), and sends any other text as
 * {@code {"result": TEXT}}, which is what the pull request sends for it.
 */
public final class GeminiToolResponses {

	/**
	 * The longest tool response (in UTF-16 units, {@link String#length()}) the
	 * rewrite reads as JSON: Jackson's default string length limit, the longest
	 * string Spring's own reader takes, so that every text up to it can be sent
	 * whole, as one string, when it is not a value to keep. A longer response is
	 * not read: it is sent as text in pieces of at most this length,
	 * {@code {"result": ["PIECE", ...]}} ({@code "error"} for a failure under
	 * {@code error-key}), which Spring's reader takes and which joined give the
	 * text back ({@code docs/FIXES.md}, "Budgets of the fix library").
	 */
	public static final int MAX_READ_CHARS = 100_000_000;

	/**
	 * The deepest whole value the rewrite sends as a value, counted in
	 * containers: an object {@value StrictJson#MAX_DEPTH}, any other value one
	 * less, as it gains a level under {@code result}. Deeper, it is sent as
	 * text, {@code {"result": TEXT}}.
	 */
	public static final int MAX_DEPTH = StrictJson.MAX_DEPTH;

	private static final JsonMapper MAPPER = JsonMapper.builder().build();

	private static final JsonFactory DEFAULT_LIMITS = JsonFactory.builder().build();

	/**
	 * The reader of Spring AI 2.0.1's {@code parseJsonToMap} (its Schema mix-in
	 * aside, which reading {@code Object} never uses): trailing tokens ignored.
	 */
	private static final JsonMapper SPRING = JacksonUtils.getDefaultJsonMapper();

	/**
	 * spring-ai PR 6049's {@code strictJsonMapper}: the same reader with
	 * {@code FAIL_ON_TRAILING_TOKENS} enabled.
	 */
	private static final JsonMapper SPRING_WHOLE = SPRING.rebuild()
		.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
		.build();

	/** The shared rewrite ({@code fixes-common}) over Jackson 3, the one Spring AI 2.0 reads with. */
	private static final ToolResponseRewrite REWRITE = new ToolResponseRewrite(new ToolResponseRewrite.Json() {

		@Override
		public ToolResponseRewrite.Shape shape(String text) {
			StrictJson.Parsed p = StrictJson.parse(text);
			return p == null ? ToolResponseRewrite.Shape.NOT_WHOLE
					: p.value() instanceof Map<?, ?> ? ToolResponseRewrite.Shape.OBJECT : ToolResponseRewrite.Shape.VALUE;
		}

		@Override
		public boolean upstreamReads(String text) {
			return GeminiToolResponses.upstreamReads(text);
		}

		@Override
		public String object(String key, Object value) {
			Map<String, Object> m = new LinkedHashMap<>();
			m.put(key, value);
			return MAPPER.writeValueAsString(m);
		}

	}, MAX_READ_CHARS);

	private GeminiToolResponses() {
	}

	/** The upstream pull requests modelled beside the fixes ({@link #rewrite}). */
	static final Fix PR_6049 = Fix.named("pr-6049-strict-wrap");

	/** See {@link #PR_6049}. */
	static final Fix PR_6907 = Fix.named("pr-6907-wrap-on-failure");

	/**
	 * The data to send instead of {@code data}, a response marked as produced by
	 * a failure when {@code error} is set, under the conversion fixes of
	 * {@code fixes} (the others are not read):
	 * <ul>
	 * <li>{@code error-key} and {@code error}: one whole JSON object as it is,
	 * anything else verbatim as {@code {"error": DATA}};</li>
	 * <li>otherwise, with {@code strict-json-or-wrap}: one whole JSON object as it
	 * is, any other whole value {@code v} as {@code {"result": v}}, any other
	 * text (the empty string included) verbatim as {@code {"result": TEXT}};</li>
	 * <li>otherwise, where neither fix applies, the two upstream pull requests
	 * (PR 6049 first, then PR 6907):
	 * {@code pr-6049-strict-wrap} (spring-ai PR 6049): a text Spring's reader
	 * takes whole ({@code FAIL_ON_TRAILING_TOKENS} on) unchanged, any other text
	 * verbatim as {@code {"result": TEXT}};
	 * {@code pr-6907-wrap-on-failure} (spring-ai PR 6907): a text Spring's own
	 * reader takes (trailing text ignored, as upstream) unchanged, any other text
	 * verbatim as {@code {"result": TEXT}};</li>
	 * <li>otherwise {@code data} unchanged (upstream).</li>
	 * </ul>
	 */
	public static String rewrite(String data, boolean error, FixSet fixes) {
		boolean errorKey = fixes.has(ToolResponseRewrite.ERROR_KEY);
		if (!(errorKey && error) && !fixes.has(ToolResponseRewrite.STRICT_JSON_OR_WRAP)) {
			boolean pr6049StrictWrap = fixes.has(PR_6049);
			boolean pr6907WrapOnFailure = fixes.has(PR_6907);
			if ((pr6049StrictWrap || pr6907WrapOnFailure) && data != null && data.length() > MAX_READ_CHARS) {
				return wrap("result", data);
			}
			if (pr6049StrictWrap) {
				return reads(SPRING_WHOLE, data) ? data : wrap("result", data);
			}
			if (pr6907WrapOnFailure && data != null) {
				return reads(SPRING, data) ? data : wrap("result", data);
			}
			return data;
		}
		return REWRITE.rewrite(data, error, fixes);
	}

	/**
	 * Whether {@link #rewrite} sends {@code data} as a string because Spring's
	 * reader would refuse the value itself (a number of more than 1000 digits, a
	 * value 500 containers deep once wrapped, a name longer than Jackson
	 * allows): the payload then holds the text, not the value. Only
	 * {@code strict-json-or-wrap} and {@code error-key} of {@code fixes} count.
	 */
	public static boolean rewriteFallsBack(String data, boolean error, FixSet fixes) {
		return REWRITE.fallsBack(data, error, fixes);
	}

	/**
	 * Whether a whole JSON text passes the stream limits of the Jackson on the
	 * class path at their defaults, which Spring's own reader keeps
	 * ({@code docs/JSON.md} A.13).
	 */
	static boolean upstreamReads(String text) {
		try (JsonParser p = DEFAULT_LIMITS.createParser(ObjectReadContext.empty(), text)) {
			while (p.nextToken() != null) {
				if (p.currentToken() == JsonToken.VALUE_NUMBER_INT || p.currentToken() == JsonToken.VALUE_NUMBER_FLOAT) {
					// Number length is checked when the number is read.
					p.getNumberValue();
				}
			}
			return true;
		}
		catch (JacksonException e) {
			return false;
		}
	}

	/**
	 * The payload the fixed conversion sends for {@code data}, as a map whose
	 * numbers are {@link tools.jackson.databind.util.RawValue}s of their text.
	 * Returns {@code null} when neither {@code strict-json-or-wrap} nor
	 * {@code error-key} of {@code fixes} applies (upstream's conversion stands).
	 */
	public static Map<String, Object> payload(String data, boolean error, FixSet fixes) {
		boolean errorKey = fixes.has(ToolResponseRewrite.ERROR_KEY);
		if (!(errorKey && error) && !fixes.has(ToolResponseRewrite.STRICT_JSON_OR_WRAP)) {
			return null;
		}
		// Built from the value, not by reading the wrapped text again: a value
		// 500 containers deep is whole, and 501 deep once wrapped.
		StrictJson.Parsed p = data == null ? null : StrictJson.parse(data);
		if (errorKey && error) {
			return p != null && p.value() instanceof Map<?, ?> ? object(p) : single("error", data);
		}
		if (p == null) {
			return single("result", data);
		}
		return p.value() instanceof Map<?, ?> ? object(p) : single("result", p.value());
	}

	@SuppressWarnings("unchecked")
	private static Map<String, Object> object(StrictJson.Parsed p) {
		return (Map<String, Object>) p.value();
	}

	private static Map<String, Object> single(String key, Object value) {
		Map<String, Object> m = new LinkedHashMap<>();
		m.put(key, value);
		return m;
	}

	/** {@code {"KEY": TEXT}}, a text too long to read as its pieces ({@link ToolResponseRewrite#wrap}). */
	private static String wrap(String key, String text) {
		return REWRITE.wrap(key, text);
	}

	/** {@code text} cut into pieces of at most {@link #MAX_READ_CHARS}, none between a surrogate pair. */
	static List<String> pieces(String text) {
		return REWRITE.pieces(text);
	}

	/** Whether {@code mapper} reads {@code text} as {@code parseJsonToMap} asks it to. */
	private static boolean reads(JsonMapper mapper, String text) {
		if (text == null) {
			return false;
		}
		try {
			mapper.readValue(text, Object.class);
			return true;
		}
		catch (JacksonException e) {
			return false;
		}
	}

	/**
	 * Function-call arguments under {@code fixes}: with
	 * {@code strict-json-or-wrap}, null or blank arguments become {@code {}};
	 * with spring-ai PR 6049 ({@code pr-6049-strict-wrap}), which changes
	 * {@code parseJsonToMap} itself and so the arguments too, what its reader
	 * does not take whole (after {@code strict-json-or-wrap}'s rule) is sent as
	 * {@code {"result": TEXT}}, null as {@code {"result": null}}; any other text
	 * is kept (upstream reading). PR 6907 leaves arguments alone.
	 */
	public static String arguments(String arguments, FixSet fixes) {
		if (fixes.has(ToolResponseRewrite.STRICT_JSON_OR_WRAP) && (arguments == null || arguments.isBlank())) {
			return "{}";
		}
		if (fixes.has(PR_6049) && !reads(SPRING_WHOLE, arguments)) {
			return wrap("result", arguments);
		}
		return arguments;
	}

}
