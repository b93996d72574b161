package io.github.toolcallmodel.fixes;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;

import io.github.toolcallmodel.geministub.GeminiApiStub;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The loopback Gemini API ({@link GeminiApiStub}) with what this library's
 * tests read of the requests, through Jackson 3.
 */
final class GeminiStub extends GeminiApiStub {

	static final JsonMapper JSON = JsonMapper.builder().build();

	/** A stub answering request {@code i} (from 0) with {@code parts.apply(i)}, a candidate's parts as JSON. */
	GeminiStub(IntFunction<String> parts) {
		super(parts);
	}

	/** The model calls {@code tool} with the ids given, then answers {@code done}. */
	static GeminiStub callsThenDone(String tool, String... ids) {
		return new GeminiStub(i -> i == 0 ? calls(tool, ids) : text("done"));
	}

	/** Request {@code i}'s body, read. */
	JsonNode request(int i) {
		return JSON.readTree(requests().get(i));
	}

	/** Per request, the {@code functionResponse}s sent: name and response, as Gemini received them. */
	List<List<Map<String, Object>>> functionResponses() {
		List<List<Map<String, Object>>> out = new ArrayList<>();
		for (int i = 0; i < requests().size(); i++) {
			List<Map<String, Object>> sent = new ArrayList<>();
			for (JsonNode c : request(i).path("contents")) {
				for (JsonNode p : c.path("parts")) {
					JsonNode fr = p.get("functionResponse");
					if (fr != null) {
						sent.add(Map.of("name", fr.path("name").asString(), "response",
								JSON.convertValue(fr.path("response"), Map.class)));
					}
				}
			}
			out.add(sent);
		}
		return out;
	}

}
