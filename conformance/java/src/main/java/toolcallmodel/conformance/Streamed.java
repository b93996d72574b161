package toolcallmodel.conformance;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;

/**
 * What {@code ChatClient.stream()} delivered to a tool loop op: every
 * response received, in order, and the failure that ended the stream
 * ({@code null}: it completed). The same on every version, whichever loop
 * runs the turn ({@link LoopOp} on 2.0, {@code ChatModelLoop} on 1.1); how a
 * response is printed and what kind of end it is are the loop's.
 */
record Streamed(List<ChatClientResponse> received, Throwable failure) {

	/** Subscribes to {@code request}'s stream and waits for its end, a minute at most. */
	static Streamed of(ChatClient.ChatClientRequestSpec request) {
		List<ChatClientResponse> received = new java.util.concurrent.CopyOnWriteArrayList<>();
		Throwable failure = null;
		try {
			request.stream().chatClientResponse().doOnNext(received::add).then().block(java.time.Duration.ofSeconds(60));
		}
		catch (Throwable t) {
			failure = reactor.core.Exceptions.unwrap(t);
		}
		return new Streamed(received, failure);
	}

	/** Each response's generations; a response without a chat response is the runner's fault. */
	List<List<Generation>> results() {
		List<List<Generation>> out = new ArrayList<>();
		for (ChatClientResponse r : this.received) {
			ChatResponse cr = r.chatResponse();
			if (cr == null) {
				throw new Json.Fault("runner: the stream carried a response without a chat response");
			}
			out.add(cr.getResults());
		}
		return out;
	}

	/**
	 * The op's outcome: {@code error} with the failure printed, or
	 * {@code kind} when the stream completed; then what it carried,
	 * {@code streamed} (each response printed).
	 */
	Map<String, Object> outcome(String kind, List<Object> streamed) {
		Map<String, Object> outcome = new LinkedHashMap<>();
		if (this.failure != null) {
			outcome.put("kind", "error");
			outcome.put("error", Scenario.printError(this.failure));
		}
		else {
			outcome.put("kind", kind);
			outcome.put("error", null);
		}
		outcome.put("streamed", streamed);
		return outcome;
	}

}
