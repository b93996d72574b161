package io.github.toolcallmodel.fixes.boot3;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.github.toolcallmodel.fixes.MessageLists;
import io.github.toolcallmodel.fixes.FixSet;
import io.github.toolcallmodel.fixes.ToolResponseRewrite;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;

/**
 * {@code strict-json-or-wrap} on Spring AI 1.1.x: every tool response as one JSON
 * object text that 1.1's {@code GoogleGenAiChatModel.parseJsonToMap} (a Jackson 2
 * {@code ObjectMapper}) reads into the fixed payload. The decisions are the Boot 4
 * library's ({@link ToolResponseRewrite}, shared); this class gives them Jackson
 * 2's strict read and limits, and applies them to a conversation.
 */
public final class GeminiToolResponses {

	/**
	 * The longest tool response (UTF-16 units) read as JSON: Jackson 2.19's
	 * default string length limit, the longest string 1.1's reader takes. A
	 * longer one is sent in pieces, {@code {"result": ["PIECE", ...]}}.
	 */
	public static final int MAX_READ_CHARS = StreamReadConstraints.DEFAULT_MAX_STRING_LEN;

	private static final ObjectMapper MAPPER = new ObjectMapper();

	/** Spring AI 1.1's reader's limits: Jackson 2's defaults. */
	private static final JsonFactory DEFAULT_LIMITS = new JsonFactory();

	/** The strict read: the model's depth, no length limits. */
	private static final JsonFactory STRICT = JsonFactory.builder()
		.streamReadConstraints(StreamReadConstraints.builder()
			.maxNestingDepth(ToolResponseRewrite.MAX_DEPTH)
			.maxStringLength(Integer.MAX_VALUE)
			.maxNumberLength(Integer.MAX_VALUE)
			.maxNameLength(Integer.MAX_VALUE)
			.build())
		.build();

	private static final ToolResponseRewrite REWRITE = new ToolResponseRewrite(new Jackson2(), MAX_READ_CHARS);

	/** The one fix of this library's rewrite: {@code error-key} needs the marks of 2.0.1's manager. */
	private static final FixSet STRICT_ONLY = FixSet.none().with(ToolResponseRewrite.STRICT_JSON_OR_WRAP);

	private GeminiToolResponses() {
	}

	/**
	 * {@code data} as {@code strict-json-or-wrap} sends it: one whole JSON object
	 * as it is, any other whole value {@code v} as {@code {"result": v}}, any
	 * other text (the empty string included) verbatim as {@code {"result": TEXT}};
	 * {@code null} unchanged.
	 */
	public static String rewrite(String data) {
		return REWRITE.rewrite(data, false, STRICT_ONLY);
	}

	/**
	 * Whether {@link #rewrite(String)} sends {@code data} as a string because
	 * Spring AI 1.1's reader would refuse the value itself (a number of more than
	 * 1000 digits, for one) or because it is longer than {@link #MAX_READ_CHARS}.
	 */
	public static boolean fallsBack(String data) {
		return REWRITE.fallsBack(data, false, STRICT_ONLY);
	}

	/**
	 * {@code messages} with every tool response rewritten, and null or blank
	 * function-call arguments as {@code {}}; the same list when nothing changes.
	 */
	public static List<Message> rewrite(List<Message> messages) {
		return MessageLists.map(messages, GeminiToolResponses::rewrite);
	}

	private static Message rewrite(Message m) {
		if (m instanceof ToolResponseMessage tool) {
			List<ToolResponseMessage.ToolResponse> out = new ArrayList<>();
			boolean changed = false;
			for (ToolResponseMessage.ToolResponse r : tool.getResponses()) {
				String data = rewrite(r.responseData());
				changed |= !Objects.equals(data, r.responseData());
				out.add(new ToolResponseMessage.ToolResponse(r.id(), r.name(), data));
			}
			return changed ? ToolResponseMessage.builder().responses(out).metadata(tool.getMetadata()).build() : m;
		}
		if (m instanceof AssistantMessage a && a.hasToolCalls()) {
			List<AssistantMessage.ToolCall> calls = new ArrayList<>();
			boolean changed = false;
			for (AssistantMessage.ToolCall c : a.getToolCalls()) {
				boolean blank = c.arguments() == null || c.arguments().isBlank();
				changed |= blank;
				calls.add(blank ? new AssistantMessage.ToolCall(c.id(), c.type(), c.name(), "{}") : c);
			}
			return changed ? AssistantMessage.builder()
				.content(a.getText())
				.properties(a.getMetadata())
				.toolCalls(calls)
				.media(a.getMedia())
				.build() : m;
		}
		return m;
	}

	/** What {@link ToolResponseRewrite} asks of Jackson, from Jackson 2. */
	private static final class Jackson2 implements ToolResponseRewrite.Json {

		@Override
		public ToolResponseRewrite.Shape shape(String text) {
			try (JsonParser p = STRICT.createParser(text)) {
				JsonToken first = p.nextToken();
				if (first == null) {
					return ToolResponseRewrite.Shape.NOT_WHOLE;
				}
				// The first value, to its end (an early end throws): its strings and names checked.
				int depth = 0;
				for (JsonToken t = first;; t = p.nextToken()) {
					if (t == null) {
						return ToolResponseRewrite.Shape.NOT_WHOLE;
					}
					if (t.isStructStart()) {
						depth++;
					}
					else if (t.isStructEnd()) {
						depth--;
					}
					else if ((t == JsonToken.VALUE_STRING || t == JsonToken.FIELD_NAME)
							&& ToolResponseRewrite.hasLoneSurrogate(p.getText())) {
						return ToolResponseRewrite.Shape.NOT_WHOLE;
					}
					if (depth == 0) {
						break;
					}
				}
				if (p.nextToken() != null) {
					return ToolResponseRewrite.Shape.NOT_WHOLE;
				}
				return first == JsonToken.START_OBJECT ? ToolResponseRewrite.Shape.OBJECT
						: ToolResponseRewrite.Shape.VALUE;
			}
			catch (IOException | RuntimeException e) {
				// Whatever the reader refuses is not one whole value: sent as text.
				return ToolResponseRewrite.Shape.NOT_WHOLE;
			}
		}

		@Override
		public boolean upstreamReads(String text) {
			try (JsonParser p = DEFAULT_LIMITS.createParser(text)) {
				for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
					if (t.isNumeric()) {
						// A number's length is checked when the number is read.
						p.getNumberValue();
					}
				}
				return true;
			}
			catch (IOException | RuntimeException e) {
				return false;
			}
		}

		@Override
		public String object(String key, Object value) {
			Map<String, Object> m = new LinkedHashMap<>();
			m.put(key, value);
			try {
				return MAPPER.writeValueAsString(m);
			}
			catch (JsonProcessingException e) {
				throw new IllegalStateException("a map of one string cannot fail to write", e);
			}
		}

	}

}
