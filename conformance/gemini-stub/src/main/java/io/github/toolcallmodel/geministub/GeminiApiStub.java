package io.github.toolcallmodel.geministub;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntFunction;

import com.google.genai.Client;
import com.google.genai.types.HttpOptions;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * The Gemini REST API on loopback, for the real google-genai client inside the
 * real {@code GoogleGenAiChatModel}: each request body is recorded as Gemini
 * would receive it (after the model's private conversion), and request
 * {@code i} (from 0) is answered with the scripted responses for {@code i}: one
 * {@code generateContent} body, or one server-sent event per chunk of
 * {@code streamGenerateContent}. When the script has no answer (after
 * {@link #fail}), the stub answers HTTP 400, so that the client fails at once
 * and the caller reports {@link #fault()}. No network.
 */
public class GeminiApiStub implements AutoCloseable {

	/** The scripted answers. */
	public interface Replies {

		/**
		 * The bodies of the {@code GenerateContentResponse}s answering request
		 * {@code index} (from 0): one, or one per chunk of a stream; {@code null}
		 * after {@link GeminiApiStub#fail}.
		 */
		List<String> answer(GeminiApiStub stub, int index);

	}

	private final HttpServer server;

	private final Replies replies;

	private final List<String> requests = new CopyOnWriteArrayList<>();

	private final List<String> paths = new CopyOnWriteArrayList<>();

	private volatile String fault;

	/** A stub answering each request as {@code replies} says. */
	public GeminiApiStub(Replies replies) {
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

	/**
	 * A stub answering request {@code i} (from 0) with one candidate whose parts
	 * are {@code parts.apply(i)} (a JSON array), finish reason {@code STOP}.
	 */
	public GeminiApiStub(IntFunction<String> parts) {
		this((stub, i) -> List.of(response(parts.apply(i))));
	}

	/** Parts calling {@code tool} (no arguments) once per id. */
	public static String calls(String tool, String... ids) {
		List<String> parts = new ArrayList<>();
		for (String id : ids) {
			parts.add("{\"functionCall\":{\"id\":" + quote(id) + ",\"name\":" + quote(tool) + ",\"args\":{}}}");
		}
		return "[" + String.join(",", parts) + "]";
	}

	/** One text part. */
	public static String text(String text) {
		return "[{\"text\":" + quote(text) + "}]";
	}

	/** A {@code GenerateContentResponse} of one candidate with {@code parts}, finish reason {@code STOP}. */
	public static String response(String parts) {
		return "{\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":" + parts
				+ "},\"finishReason\":\"STOP\",\"index\":0}],\"modelVersion\":\"stub\","
				+ "\"usageMetadata\":{\"promptTokenCount\":1,\"candidatesTokenCount\":1,\"totalTokenCount\":2}}";
	}

	/** {@code s} as a JSON string. */
	static String quote(String s) {
		StringBuilder b = new StringBuilder(s.length() + 2).append('"');
		for (int i = 0; i < s.length(); i++) {
			char c = s.charAt(i);
			switch (c) {
				case '"' -> b.append("\\\"");
				case '\\' -> b.append("\\\\");
				case '\n' -> b.append("\\n");
				case '\r' -> b.append("\\r");
				case '\t' -> b.append("\\t");
				default -> {
					if (c < 0x20) {
						b.append(String.format("\\u%04x", (int) c));
					}
					else {
						b.append(c);
					}
				}
			}
		}
		return b.append('"').toString();
	}

	/** Records the first fault met; the stub then answers HTTP 400. */
	public void fail(String message) {
		if (this.fault == null) {
			this.fault = message;
		}
	}

	/** The first fault recorded by {@link #fail}, or {@code null}. */
	public String fault() {
		return this.fault;
	}

	/** The request bodies, in order. */
	public List<String> requests() {
		return this.requests;
	}

	/** The paths asked ({@code ...:generateContent} or {@code ...:streamGenerateContent}), in order. */
	public List<String> paths() {
		return this.paths;
	}

	/** The stub's address, for a client's base URL. */
	public String baseUrl() {
		return "http://127.0.0.1:" + this.server.getAddress().getPort();
	}

	/** A google-genai client whose every request goes to this stub. */
	public Client client() {
		return Client.builder()
			.apiKey("stub-no-network")
			.vertexAI(false)
			.httpOptions(HttpOptions.builder().baseUrl(baseUrl()).build())
			.build();
	}

	private void handle(HttpExchange exchange) throws IOException {
		try (exchange) {
			String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
			int index = this.requests.size();
			this.requests.add(body);
			String path = exchange.getRequestURI().toString();
			this.paths.add(path);
			boolean stream = path.contains(":streamGenerateContent");
			List<String> answer = this.fault == null ? this.replies.answer(this, index) : null;
			byte[] out;
			int status = 200;
			if (answer == null) {
				status = 400;
				out = "{\"error\":{\"code\":400,\"message\":\"no scripted reply\",\"status\":\"INVALID_ARGUMENT\"}}"
					.getBytes(StandardCharsets.UTF_8);
				exchange.getResponseHeaders().add("Content-Type", "application/json; charset=UTF-8");
			}
			else if (stream) {
				StringBuilder sse = new StringBuilder();
				for (String chunk : answer) {
					sse.append("data: ").append(chunk).append("\r\n\r\n");
				}
				out = sse.toString().getBytes(StandardCharsets.UTF_8);
				exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
			}
			else {
				if (answer.size() != 1) {
					throw new IllegalStateException("a generateContent answer is one body, not " + answer.size());
				}
				out = answer.get(0).getBytes(StandardCharsets.UTF_8);
				exchange.getResponseHeaders().add("Content-Type", "application/json; charset=UTF-8");
			}
			exchange.sendResponseHeaders(status, out.length);
			try (OutputStream os = exchange.getResponseBody()) {
				os.write(out);
			}
		}
	}

	@Override
	public void close() {
		this.server.stop(0);
	}

}
