package io.github.toolcallmodel.fixes.boot3;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.toolcallmodel.geministub.GeminiApiStub;

/**
 * The loopback Gemini API ({@link GeminiApiStub}) for Spring AI 1.1.2's real
 * {@code GoogleGenAiChatModel}, with what this library's tests read of the
 * requests, through Jackson 2.
 */
final class GeminiStub extends GeminiApiStub {

	static final ObjectMapper JSON = new ObjectMapper();

	/** A stub answering request {@code i} (from 0) with {@code parts.apply(i)}, a candidate's parts as JSON. */
	GeminiStub(IntFunction<String> parts) {
		super(parts);
	}

	/** The model calls {@code tool} once, then answers {@code done}. */
	static GeminiStub callsThenDone(String tool) {
		return new GeminiStub(i -> i == 0 ? calls(tool, "c1") : text("done"));
	}

	/** Per request, the {@code functionResponse.response}s sent, as Gemini received them. */
	List<List<Object>> functionResponses() {
		List<List<Object>> out = new ArrayList<>();
		for (String body : requests()) {
			List<Object> sent = new ArrayList<>();
			for (JsonNode c : read(body).path("contents")) {
				for (JsonNode p : c.path("parts")) {
					JsonNode fr = p.get("functionResponse");
					if (fr != null) {
						sent.add(JSON.convertValue(fr.path("response"), Object.class));
					}
				}
			}
			out.add(sent);
		}
		return out;
	}

	private static JsonNode read(String body) {
		try {
			return JSON.readTree(body);
		}
		catch (JsonProcessingException e) {
			throw new IllegalStateException(e);
		}
	}

}
