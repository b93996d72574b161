package io.github.toolcallmodel.fixes.boot3;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntFunction;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.genai.Client;
import com.google.genai.types.HttpOptions;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * The Gemini REST API on loopback, for the real google-genai client and Spring AI
 * 1.1.2's real {@code GoogleGenAiChatModel} (the Boot 4 library's stub, on
 * Jackson 2): every request body is recorded as Gemini would receive it, after
 * the model's private conversion, and answered with the scripted parts for its
 * index, as {@code generateContent} or as one server-sent event of
 * {@code streamGenerateContent}. No network.
 */
final class GeminiStub implements AutoCloseable {

	static final ObjectMapper JSON = new ObjectMapper();

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
			throw new UncheckedIOException(e);
		}
		this.server.createContext("/", this::handle);
		this.server.start();
	}

	/** The model calls {@code tool} once, then answers {@code done}. */
	static GeminiStub callsThenDone(String tool) {
		return new GeminiStub(i -> i == 0 ? "[{\"functionCall\":{\"id\":\"c1\",\"name\":\"" + tool + "\",\"args\":{}}}]"
				: text("done"));
	}

	static String text(String text) {
		try {
			return "[{\"text\":" + JSON.writeValueAsString(text) + "}]";
		}
		catch (JsonProcessingException e) {
			throw new IllegalStateException(e);
		}
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

	/** Per request, the {@code functionResponse.response}s sent, as Gemini received them. */
	List<List<Object>> functionResponses() {
		List<List<Object>> out = new ArrayList<>();
		for (JsonNode r : this.requests) {
			List<Object> sent = new ArrayList<>();
			for (JsonNode c : r.path("contents")) {
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

	@Override
	public void close() {
		this.server.stop(0);
	}

}
