package io.github.toolcallmodel.fixes;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The rewrite of one tool response under {@code strict-json-or-wrap} and
 * {@code error-key} ({@code docs/FIXES.md}), shared by the Spring Boot 4 library
 * (Jackson 3) and the Spring Boot 3 one (Jackson 2): the data as one JSON object
 * text that Spring AI's own {@code parseJsonToMap} reads into the fixed payload.
 * What it needs from a JSON library is the {@link Json} of the Jackson the
 * application runs; the decisions, the budget and the cache are here, once.
 */
public final class ToolResponseRewrite {

	/** What a text is, read strictly ({@code docs/JSON.md}, section C). */
	public enum Shape {

		/** Not one whole JSON value (the empty text included), or deeper than {@link #MAX_DEPTH}. */
		NOT_WHOLE,

		/** One whole JSON object. */
		OBJECT,

		/** One whole JSON value that is not an object. */
		VALUE

	}

	/** The reads and the one write the rewrite asks of the application's Jackson. */
	public interface Json {

		/** {@code text} read strictly, at most {@link #MAX_DEPTH} containers deep. */
		Shape shape(String text);

		/**
		 * Whether Spring AI's reader, at its Jackson's default limits, takes the
		 * whole JSON text {@code text}.
		 */
		boolean upstreamReads(String text);

		/** {@code {"KEY": VALUE}}, {@code value} a string or a list of strings. */
		String object(String key, Object value);

	}

	/** The depth past which a text is not one whole value (Jackson 3's default limit, the model's). */
	public static final int MAX_DEPTH = 500;

	/** Slots of the cache of recent rewrites (a power of two). */
	public static final int CACHE_SIZE = 256;

	/** The longest text the cache keeps: its memory stays a few megabytes at most. */
	public static final int CACHE_MAX_CHARS = 4096;

	private record Cached(String data, int flags, String out) {
	}

	/** The fixes this rewrite reads; others in a set are not its business. */
	public static final Fix STRICT_JSON_OR_WRAP = Fix.named("strict-json-or-wrap");

	/** See {@link #STRICT_JSON_OR_WRAP}. */
	public static final Fix ERROR_KEY = Fix.named("error-key");

	private final AtomicReferenceArray<Cached> cache = new AtomicReferenceArray<>(CACHE_SIZE);

	private final Json json;

	private final int maxReadChars;

	/**
	 * The rewrite over {@code json}, reading as JSON no text longer than
	 * {@code maxReadChars} UTF-16 units (the longest string Spring's reader takes).
	 */
	public ToolResponseRewrite(Json json, int maxReadChars) {
		this.json = json;
		this.maxReadChars = maxReadChars;
	}

	/** The longest text read as JSON; a longer one is sent in pieces ({@link #pieces}). */
	public int maxReadChars() {
		return this.maxReadChars;
	}

	/**
	 * The data to send instead of {@code data}, a response marked as produced by
	 * a failure when {@code error} is set:
	 * <ul>
	 * <li>{@code errorKey} and {@code error}: one whole JSON object as it is,
	 * anything else verbatim as {@code {"error": DATA}};</li>
	 * <li>otherwise, with {@code strictJsonOrWrap}: one whole JSON object as it
	 * is, any other whole value {@code v} as {@code {"result": v}}, any other
	 * text (the empty string included) verbatim as {@code {"result": TEXT}};</li>
	 * <li>otherwise, and for {@code null}, {@code data} unchanged (upstream).</li>
	 * </ul>
	 * A value Spring's reader would refuse once written so is sent as text.
	 * {@code strictJsonOrWrap} and {@code errorKey} are whether {@code fixes}
	 * holds {@link #STRICT_JSON_OR_WRAP} and {@link #ERROR_KEY}.
	 */
	public String rewrite(String data, boolean error, FixSet fixes) {
		boolean strictJsonOrWrap = fixes.has(STRICT_JSON_OR_WRAP);
		boolean errorKey = fixes.has(ERROR_KEY);
		if (data == null || !(errorKey && error) && !strictJsonOrWrap) {
			return data;
		}
		String key = errorKey && error ? "error" : "result";
		if (data.length() > this.maxReadChars) {
			return wrap(key, data);
		}
		// A response is rewritten again each time its history is sent: the last
		// results of short texts are kept (a pure function of the text and flags).
		int flags = (error ? 1 : 0) | (strictJsonOrWrap ? 2 : 0) | (errorKey ? 4 : 0);
		boolean cacheable = data.length() <= CACHE_MAX_CHARS;
		int slot = cacheable ? (31 * data.hashCode() + flags) & (CACHE_SIZE - 1) : -1;
		if (cacheable) {
			Cached c = this.cache.get(slot);
			if (c != null && c.flags() == flags && (c.data() == data || c.data().equals(data))) {
				return c.out();
			}
		}
		String whole = whole(data, errorKey && error);
		String out = this.json.upstreamReads(whole) ? whole : wrap(key, data);
		if (cacheable) {
			this.cache.set(slot, new Cached(data, flags, out));
		}
		return out;
	}

	/**
	 * Whether {@link #rewrite} sends {@code data} as a string because Spring's
	 * reader would refuse the value itself (a number longer than its limit, a
	 * value too deep once wrapped, a name longer than Jackson allows), or
	 * because it is longer than {@link #maxReadChars()}.
	 */
	public boolean fallsBack(String data, boolean error, FixSet fixes) {
		boolean strictJsonOrWrap = fixes.has(STRICT_JSON_OR_WRAP);
		boolean errorKey = fixes.has(ERROR_KEY);
		if (data == null || !(errorKey && error) && !strictJsonOrWrap) {
			return false;
		}
		if (data.length() > this.maxReadChars) {
			return true;
		}
		return !this.json.upstreamReads(whole(data, errorKey && error));
	}

	/** The fixed conversion as one JSON object text, whatever Spring's reader can take. */
	private String whole(String data, boolean errorKeyed) {
		Shape shape = this.json.shape(data);
		if (errorKeyed) {
			return shape == Shape.OBJECT ? data : wrap("error", data);
		}
		return switch (shape) {
			case OBJECT -> data;
			// The value's own text, inside the wrapper.
			case VALUE -> "{\"result\":" + data + "}";
			case NOT_WHOLE -> wrap("result", data);
		};
	}

	/**
	 * {@code {"KEY": TEXT}} with TEXT as a JSON string; a text longer than
	 * {@link #maxReadChars()} as a list of its {@link #pieces}, so that Spring's
	 * reader takes it.
	 */
	public String wrap(String key, String text) {
		return this.json.object(key, text != null && text.length() > this.maxReadChars ? pieces(text) : text);
	}

	/** {@code text} cut into pieces of at most {@link #maxReadChars()}, none between a surrogate pair. */
	public List<String> pieces(String text) {
		List<String> out = new ArrayList<>();
		int start = 0;
		while (start < text.length()) {
			int end = Math.min(text.length(), start + this.maxReadChars);
			if (end < text.length() && Character.isHighSurrogate(text.charAt(end - 1))
					&& Character.isLowSurrogate(text.charAt(end))) {
				end--;
			}
			out.add(text.substring(start, end));
			start = end;
		}
		return out;
	}

	/**
	 * Whether a decoded string holds a lone surrogate, which in a JSON text can
	 * only come from an escape ({@code docs/JSON.md}, section C: not a whole value).
	 */
	public static boolean hasLoneSurrogate(String s) {
		for (int i = 0; i < s.length(); i++) {
			char c = s.charAt(i);
			if (Character.isHighSurrogate(c)) {
				if (i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
					i++;
					continue;
				}
				return true;
			}
			if (Character.isLowSurrogate(c)) {
				return true;
			}
		}
		return false;
	}

}
