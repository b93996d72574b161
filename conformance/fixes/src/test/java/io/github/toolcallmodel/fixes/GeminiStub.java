package io.github.toolcallmodel.fixes;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntFunction;

import com.google.genai.Client;
import com.google.genai.types.HttpOptions;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The Gemini REST API on loopback, for the real google-genai client and the real
 * {@code GoogleGenAiChatModel}: every request body is recorded as Gemini would
 * receive it (after the model's private conversion), and answered with the
 * scripted reply for its index, as {@code generateContent} or as one
 * server-sent event of {@code streamGenerateContent}. No network.
 */
final class GeminiStub implements AutoCloseable {

	static final JsonMapper JSON = JsonMapper.builder().build();

	private final HttpServer server;

	private final IntFunction<String> replies;

	/** The request bodies, in order. */
	final List<JsonNode> requests = new CopyOnWriteArrayList<>();

	/** The paths asked, in order. */
	final List<String> paths = new CopyOnWriteArrayList<>();

	/** A stub answering request {@code i} (from 0) with {@code replies.apply(i)}, a candidate's parts as JSON. */
	GeminiStub(IntFunction<String> replies) {
		this.replies = replies;
		try {
			this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
		}
		catch (IOException e) {
			throw new IllegalStateException(e);
		}
		this.server.createContext("/", this::handle);
		this.server.start();
	}

	/** The model calls {@code tool} with the ids given, then answers {@code done}. */
	static GeminiStub callsThenDone(String tool, String... ids) {
		return new GeminiStub(i -> i == 0 ? calls(tool, ids) : text("done"));
	}

	/** Parts calling {@code tool} once per id. */
	static String calls(String tool, String... ids) {
		List<String> parts = new ArrayList<>();
		for (String id : ids) {
			parts.add("{\"functionCall\":{\"id\":\"" + id + "\",\"name\":\"" + tool + "\",\"args\":{}}}");
		}
		return "[" + String.join(",", parts) + "]";
	}

	static String text(String text) {
		return "[{\"text\":" + JSON.writeValueAsString(text) + "}]";
	}

	/** A google-genai client whose every request goes to this stub. */
	Client client() {
		return Client.builder()
			.apiKey("stub-no-network")
			.vertexAI(false)
			.httpOptions(HttpOptions.builder().baseUrl("http://127.0.0.1:" + this.server.getAddress().getPort()).build())
			.build();
	}

	private void handle(HttpExchange exchange) throws IOException {
		try (exchange) {
			byte[] body = exchange.getRequestBody().readAllBytes();
			int index = this.requests.size();
			this.requests.add(JSON.readTree(body));
			String path = exchange.getRequestURI().toString();
			this.paths.add(path);
			String response = "{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":" + this.replies.apply(index)
					+ "},\"finishReason\":\"STOP\",\"index\":0}],\"modelVersion\":\"stub\","
					+ "\"usageMetadata\":{\"promptTokenCount\":1,\"candidatesTokenCount\":1,\"totalTokenCount\":2}}";
			boolean stream = path.contains(":streamGenerateContent");
			byte[] out = (stream ? "data: " + response + "\r\n\r\n" : response).getBytes(StandardCharsets.UTF_8);
			exchange.getResponseHeaders()
				.add("Content-Type", stream ? "text/event-stream" : "application/json; charset=UTF-8");
			exchange.sendResponseHeaders(200, out.length);
			try (OutputStream os = exchange.getResponseBody()) {
				os.write(out);
			}
		}
	}

	/** Per request, the {@code functionResponse}s sent: name and response, as Gemini received them. */
	List<List<Map<String, Object>>> functionResponses() {
		List<List<Map<String, Object>>> out = new ArrayList<>();
		for (JsonNode r : this.requests) {
			List<Map<String, Object>> sent = new ArrayList<>();
			for (JsonNode c : r.path("contents")) {
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

	@Override
	public void close() {
		this.server.stop(0);
	}

}
