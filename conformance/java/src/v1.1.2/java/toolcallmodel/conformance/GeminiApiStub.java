package toolcallmodel.conformance;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import com.google.genai.Client;
import com.google.genai.types.HttpOptions;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * The Gemini REST API on loopback, for the real google-genai client inside
 * the real {@code GoogleGenAiChatModel}: each request body is recorded as
 * Gemini would receive it, and request {@code i} (from 0) is answered with
 * the scripted responses for {@code i}: one {@code generateContent} body, or
 * one server-sent event per chunk of {@code streamGenerateContent}. When the
 * script has no answer, the stub records the fault and answers HTTP 400, so
 * that the client fails at once and the runner reports the fault. No
 * network.
 */
final class GeminiApiStub implements AutoCloseable {

	private final HttpServer server;

	/** The scripted answers. */
	interface Replies {

		/**
		 * The bodies of the {@code GenerateContentResponse}s answering request
		 * {@code index} (from 0), or {@code null} after {@link GeminiApiStub#fail}.
		 */
		List<String> answer(GeminiApiStub stub, int index);

	}

	private final Replies replies;

	/** The request bodies, in order. */
	final List<String> requests = new CopyOnWriteArrayList<>();

	/** Set when a request found no scripted answer. */
	volatile Json.Fault fault;

	/** A stub answering each request as {@code replies} says. */
	GeminiApiStub(Replies replies) {
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

	/** Records the first fault met; the stub then answers HTTP 400. */
	void fail(String message) {
		if (this.fault == null) {
			this.fault = new Json.Fault(message);
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
			String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
			int index = this.requests.size();
			this.requests.add(body);
			boolean stream = exchange.getRequestURI().toString().contains(":streamGenerateContent");
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
					throw new IllegalStateException("a generateContent answer is one body");
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
