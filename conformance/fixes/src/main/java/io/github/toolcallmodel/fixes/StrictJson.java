package io.github.toolcallmodel.fixes;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.StreamReadConstraints;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.databind.util.RawValue;

/**
 * The strict reading of the fixes ({@code docs/JSON.md}, section C): whether a
 * text is one whole JSON value (RFC 8259, only space, tab, LF and CR around it,
 * at most 500 containers deep, no escaped lone surrogate, no length limits), and
 * the value it holds with every number kept as written.
 */
public final class StrictJson {

	/** The depth past which a text is not one whole value (Jackson's default limit). */
	public static final int MAX_DEPTH = ToolResponseRewrite.MAX_DEPTH;

	private static final JsonFactory FACTORY = JsonFactory.builder()
		.streamReadConstraints(StreamReadConstraints.builder()
			.maxNestingDepth(MAX_DEPTH)
			.maxStringLength(Integer.MAX_VALUE)
			.maxNumberLength(Integer.MAX_VALUE)
			.maxNameLength(Integer.MAX_VALUE)
			.maxDocumentLength(-1)
			.maxTokenCount(-1)
			.build())
		.build();

	/** Marks "not one whole value" without the cost of a stack trace. */
	private static final class NotWhole extends RuntimeException {

		private static final NotWhole INSTANCE = new NotWhole();

		private NotWhole() {
			super(null, null, false, false);
		}

	}

	private StrictJson() {
	}

	/**
	 * The value of {@code text} if it is one whole JSON value: a
	 * {@link LinkedHashMap} for an object (a repeated key keeps its first
	 * position and takes the last value), a {@link List} for an array, a
	 * {@link String}, {@link Boolean}, {@code null} wrapped as
	 * {@link Parsed#value()}, numbers as {@link RawValue} of their text; or
	 * {@code null} when the text is not one whole value.
	 */
	public static Parsed parse(String text) {
		if (text == null) {
			return null;
		}
		try (JsonParser p = FACTORY.createParser(tools.jackson.core.ObjectReadContext.empty(), text)) {
			JsonToken first = p.nextToken();
			if (first == null) {
				return null;
			}
			Object value = read(p, first);
			if (p.nextToken() != null) {
				return null;
			}
			return new Parsed(value);
		}
		catch (StreamReadException | NotWhole e) {
			return null;
		}
		catch (tools.jackson.core.JacksonException e) {
			return null;
		}
	}

	/** Whether {@code text} is one whole JSON value. */
	public static boolean isWholeValue(String text) {
		return parse(text) != null;
	}

	/** Whether {@code text} is one whole JSON value that is an object. */
	public static boolean isWholeObject(String text) {
		Parsed p = parse(text);
		return p != null && p.value() instanceof Map<?, ?>;
	}

	/** A whole value: {@code value} is {@code null} for JSON {@code null}. */
	public record Parsed(Object value) {
	}

	private static Object read(JsonParser p, JsonToken t) {
		switch (t) {
			case START_OBJECT -> {
				Map<String, Object> m = new LinkedHashMap<>();
				for (JsonToken k = p.nextToken(); k != JsonToken.END_OBJECT; k = p.nextToken()) {
					String name = checked(p.currentName());
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
			case VALUE_STRING -> {
				return checked(p.getString());
			}
			case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> {
				return new RawValue(p.getString());
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
			default -> throw NotWhole.INSTANCE;
		}
	}

	/** A decoded string holding a lone surrogate came from an escape: refused. */
	private static String checked(String s) {
		if (ToolResponseRewrite.hasLoneSurrogate(s)) {
			throw NotWhole.INSTANCE;
		}
		return s;
	}

}
