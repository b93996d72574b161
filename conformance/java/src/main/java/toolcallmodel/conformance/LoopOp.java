package toolcallmodel.conformance;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.micrometer.observation.ObservationRegistry;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.MessageChatMemoryAdvisor;
import org.springframework.ai.chat.client.advisor.ToolCallingAdvisor;
import org.springframework.ai.chat.client.advisor.api.Advisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.InMemoryChatMemoryRepository;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolExecutionResult;

/**
 * tool_loop on a real {@link ChatClient}: the real {@link ToolCallingAdvisor}
 * (the fix library's {@code FixingToolCallingAdvisor} under
 * {@code close-dangling-calls}) over the vector's manager, registered by the
 * {@code ChatClient} itself from its builder (so that {@code DefaultChatClient}
 * turns the conversation history off for a memory inside the loop, as
 * applications get it), or explicitly when the vector's
 * {@code conversation_history} asks for the other setting; a real
 * {@link MessageChatMemoryAdvisor} over a real {@link MessageWindowChatMemory}
 * (the fix library's window or wrapper under the memory fixes) and
 * {@link InMemoryChatMemoryRepository}, outside the loop (its default
 * order, {@code Advisor.DEFAULT_CHAT_MEMORY_PRECEDENCE_ORDER}, before
 * {@code ToolCallingAdvisor.DEFAULT_ORDER}) or inside it (an order after it and
 * after the seed's advisor, so that it sees every model call); the seed's
 * {@link GeminiToolTextAdvisor} between them when the vector asks for it; the
 * fix library's {@code GeminiSafeToolResponseAdvisor} last, under the Gemini
 * fixes; and
 * a scripted {@link ChatModel} that replays {@code input.model} and records
 * each request (a Gemini request through the real request building, or the
 * messages with provider {@code none}).
 *
 * <p>
 * The tool callbacks go through {@code ChatClientRequestSpec.toolCallbacks},
 * which puts them in the {@link ToolCallingChatOptions} built from the chat
 * model's options ({@code DefaultChatClientUtils.toChatClientRequest}): the
 * scripted model's options are {@code ToolCallingChatOptions}, so the advisor
 * loops (with other options it would pass the request through), and the
 * scripted model executes nothing itself.
 *
 * <p>
 * The outcome's kind is read off what {@code ChatClient} returns or throws:
 * an exception that escapes it is {@code error} (printed as it escapes:
 * nothing on the way wraps it, and the model prints the exception that
 * reaches the caller); a final response that carries the scripted model's
 * own last generations is {@code completed}; otherwise the advisor replaced
 * them, and the finish reason says with what ({@code toolCallLimitExceeded}:
 * {@code buildGeneration()}, {@code returnDirect}: {@code buildGenerations}).
 */
final class LoopOp {

	/** The conversation id the memory advisor reads from the request context. */
	static final String CONVERSATION_ID = "default";

	/** Inside the loop: after ToolCallingAdvisor (+300) and the seed's advisor (+350). */
	static final int INSIDE_ORDER = ToolCallingAdvisor.DEFAULT_ORDER + 100;

	/** The model's own guard ({@code LoopConfig.max_rounds}): a fault of the vector. */
	static final int MAX_ROUNDS = 1000;

	private LoopOp() {
	}

	/** Messages of the vector; one Spring refuses to build makes the vector out of scope. */
	private static List<Message> messages(Object v, String where) {
		try {
			return Scenario.messages(v, where);
		}
		catch (IllegalArgumentException e) {
			StackTraceElement[] at = e.getStackTrace();
			if (at.length > 0 && at[0].getClassName().equals("org.springframework.util.Assert")) {
				throw new Json.OutOfScope("Spring AI " + Upstream.VERSION + " refuses to build a message of " + where + ": "
						+ e.getMessage());
			}
			throw e;
		}
	}

	static Map<String, Object> run(Scenario s, Map<String, Object> input) {
		return run(s, input, false, false);
	}

	static Map<String, Object> run(Scenario s, Map<String, Object> input, boolean geminiToolText, boolean feedback) {
		List<Message> history = messages(input.get("history"), "/input/history");
		List<Object> script = Json.arr(input.get("model"), "/input/model");
		boolean repeatLast = Json.bool(input.get("repeat_last"), false, "/input/repeat_last");
		boolean stream = Json.bool(input.get("stream"), false, "/input/stream");
		// Each reply is a list of chunks when the turn streams, one chat response otherwise.
		List<List<ChatResponse>> replies = new ArrayList<>();
		for (int i = 0; i < script.size(); i++) {
			String where = "/input/model/" + i;
			if (stream) {
				List<Object> chunks = Json.arr(script.get(i), where);
				if (chunks.isEmpty()) {
					throw new Json.Fault(where + ": a streamed reply needs at least one chunk");
				}
				List<ChatResponse> reply = new ArrayList<>();
				for (int j = 0; j < chunks.size(); j++) {
					reply.add(Runner.chatResponse(chunks.get(j), where + "/" + j));
				}
				replies.add(reply);
			}
			else {
				replies.add(List.of(Runner.chatResponse(script.get(i), where)));
			}
		}
		String provider = input.get("provider") == null ? "gemini" : Json.str(input.get("provider"), "/input/provider");
		if (!provider.equals("gemini") && !provider.equals("none")) {
			throw new Json.Fault("/input/provider: unknown provider '" + provider + "' (known: gemini, none)");
		}
		String memory = LoopMemory.where(input);
		LoopMemory loopMemory = LoopMemory.read(input, memory, LoopOp::messages);
		boolean conversationHistory = Json.bool(s.manager.get("conversation_history"), true,
				"/manager/conversation_history");

		Map<String, Object> out = new LinkedHashMap<>();
		LoopMemory.Built built = loopMemory.build(s, CONVERSATION_ID, out);
		if (built == null) {
			return out;
		}
		ToolCallingManager manager = built.manager();
		ChatMemory chatMemory = built.memory();
		Fixes fixes = s.fixes;

		List<Advisor> advisors = new ArrayList<>();
		ToolCallingAdvisor.Builder<?> toolAdvisor = Upstream.toolAdvisor(fixes).toolCallingManager(manager);
		// ChatClient registers the tool advisor itself, turning its history off
		// when a memory sits inside the loop; a vector that asks for the other
		// setting gets the advisor registered explicitly.
		boolean chatClientRegisters = conversationHistory == !memory.equals("inside");
		if (feedback) {
			if (fixes.toolAdvisor()) {
				throw new Json.OutOfScope("the tool-feedback advisor is not combined with close-dangling-calls");
			}
			advisors.add(new FeedbackToolCallingAdvisor(manager, conversationHistory));
		}
		else if (!chatClientRegisters) {
			advisors.add(toolAdvisor.copy().conversationHistoryEnabled(conversationHistory).build());
		}
		if (geminiToolText) {
			advisors.add(new GeminiToolTextAdvisor());
		}
		if (chatMemory != null) {
			var b = MessageChatMemoryAdvisor.builder(chatMemory);
			if (memory.equals("inside")) {
				b.order(INSIDE_ORDER);
			}
			advisors.add(b.build());
		}
		boolean gemini = provider.equals("gemini");
		Advisor geminiAdvisor = Upstream.geminiAdvisor(fixes);
		if (gemini && geminiAdvisor != null) {
			advisors.add(geminiAdvisor);
		}

		ScriptedModel model = new ScriptedModel(replies, repeatLast, gemini, fixes);
		ChatClient client = ChatClient.builder(model, ObservationRegistry.NOOP, null, null, toolAdvisor).build();

		Map<String, Object> outcome = stream ? streamOutcome(client, history, s, advisors, model)
				: callOutcome(client, history, s, advisors, model);
		out.put("outcome", outcome);
		out.put("requests", model.requests);
		out.put("memory",
				Json.map("messages", chatMemory == null ? List.of() : Scenario.printAll(chatMemory.get(CONVERSATION_ID))));
		out.put("invocations", s.invocations);
		return out;
	}

	/**
	 * ChatClient.stream(): every response the client receives, in order, and
	 * how the stream ended. The kind is read off the last response received
	 * as call() reads it off the final one.
	 */
	private static Map<String, Object> streamOutcome(ChatClient client, List<Message> history, Scenario s,
			List<Advisor> advisors, ScriptedModel model) {
		Streamed stream = Streamed.of(client.prompt()
			.messages(history)
			.toolCallbacks(s.requestTools)
			.advisors(a -> a.advisors(advisors).param(ChatMemory.CONVERSATION_ID, CONVERSATION_ID)));
		if (model.fault != null) {
			throw model.fault;
		}
		List<List<Generation>> results = stream.results();
		List<Object> streamed = new ArrayList<>();
		for (List<Generation> gens : results) {
			List<Object> printed = new ArrayList<>();
			for (Generation g : gens) {
				printed.add(model.isChunk(g) ? Scenario.printReply(g, g.getOutput()) : Scenario.printGeneration(g));
			}
			streamed.add(printed);
		}
		String kind = "completed";
		if (!results.isEmpty()) {
			List<Generation> last = results.get(results.size() - 1);
			kind = !last.isEmpty() && last.stream().allMatch(model::isChunk) ? "completed" : kind(last, null);
		}
		return stream.outcome(kind, streamed);
	}

	private static Map<String, Object> callOutcome(ChatClient client, List<Message> history, Scenario s,
			List<Advisor> advisors, ScriptedModel model) {
		Map<String, Object> outcome = new LinkedHashMap<>();
		try {
			ChatClientResponse response = client.prompt()
				.messages(history)
				.toolCallbacks(s.requestTools)
				.advisors(a -> a.advisors(advisors).param(ChatMemory.CONVERSATION_ID, CONVERSATION_ID))
				.call()
				.chatClientResponse();
			if (model.fault != null) {
				throw model.fault;
			}
			ChatResponse chatResponse = response.chatResponse();
			if (chatResponse == null) {
				throw new Json.Fault("runner: ChatClient returned no chat response");
			}
			List<Generation> gens = chatResponse.getResults();
			String kind = kind(gens, model.lastReply);
			outcome.put("kind", kind);
			List<Object> printed = new ArrayList<>();
			for (Generation g : gens) {
				printed.add(kind.equals("completed") ? Scenario.printReply(g, g.getOutput()) : Scenario.printGeneration(g));
			}
			outcome.put("generations", printed);
			outcome.put("error", null);
		}
		catch (Json.Fault | Json.OutOfScope e) {
			throw e;
		}
		catch (Throwable t) {
			if (model.fault != null) {
				throw model.fault;
			}
			outcome.put("kind", "error");
			outcome.put("generations", List.of());
			outcome.put("error", Scenario.printError(t));
		}
		return outcome;
	}

	/**
	 * completed when the final generations are the model's own last reply
	 * (the advisor stopped because no generation asks for a tool); otherwise
	 * the advisor built them, and their finish reason says how.
	 */
	private static String kind(List<Generation> gens, List<Generation> lastReply) {
		if (lastReply != null && gens.size() == lastReply.size()) {
			boolean same = true;
			for (int i = 0; i < gens.size(); i++) {
				same &= gens.get(i) == lastReply.get(i);
			}
			if (same) {
				return "completed";
			}
		}
		List<String> reasons = new ArrayList<>();
		for (Generation g : gens) {
			reasons.add(g.getMetadata() == null ? null : g.getMetadata().getFinishReason());
		}
		String limit = Upstream.limitFinishReason();
		if (limit != null && reasons.size() == 1 && limit.equals(reasons.get(0))) {
			return "limit_exceeded";
		}
		if (!reasons.isEmpty() && reasons.stream().allMatch(ToolExecutionResult.FINISH_REASON::equals)) {
			return "return_direct";
		}
		throw new Json.Fault("runner: ChatClient's final generations are neither the model's reply nor built by "
				+ "ToolCallingAdvisor (finish reasons " + reasons + ")");
	}

	/**
	 * The chat model: replays one scripted reply per call and records each
	 * request as it arrives (after every advisor). A request Gemini's request
	 * building refuses is not recorded: its exception leaves the call, as it
	 * leaves {@code GoogleGenAiChatModel.call}.
	 */
	static final class ScriptedModel implements ChatModel {

		private final List<List<ChatResponse>> replies;

		/** Once the script is used up, the last reply answers every further call. */
		private final boolean repeatLast;

		private final boolean gemini;

		/** The last chunk of the last reply, to tell the model's own from what the advisor built. */
		List<Generation> lastChunk;

		private final java.util.Set<Generation> chunkGenerations = java.util.Collections
			.newSetFromMap(new java.util.IdentityHashMap<>());

		private final Fixes fixes;

		final List<Object> requests = new ArrayList<>();

		/** The last reply's generations, to tell them from generations the advisor built. */
		List<Generation> lastReply;

		/** A fault of the vector met during the call (the script ran out). */
		Json.Fault fault;

		private int calls;

		ScriptedModel(List<List<ChatResponse>> replies, boolean repeatLast, boolean gemini, Fixes fixes) {
			this.replies = replies;
			this.repeatLast = repeatLast;
			this.gemini = gemini;
			this.fixes = fixes;
		}

		@Override
		public ChatOptions getOptions() {
			return ToolCallingChatOptions.builder().build();
		}

		boolean isChunk(Generation g) {
			return this.chunkGenerations.contains(g);
		}

		@Override
		public ChatResponse call(Prompt prompt) {
			return next(prompt).get(0);
		}

		@Override
		public reactor.core.publisher.Flux<ChatResponse> stream(Prompt prompt) {
			// As GoogleGenAiChatModel.internalStream: the request is built when the
			// stream is subscribed, and a failure to build it is the stream's error.
			return reactor.core.publisher.Flux.defer(() -> {
				List<ChatResponse> chunks = next(prompt);
				for (ChatResponse c : chunks) {
					this.chunkGenerations.addAll(c.getResults());
				}
				this.lastChunk = chunks.get(chunks.size() - 1).getResults();
				return reactor.core.publisher.Flux.fromIterable(chunks);
			});
		}

		private List<ChatResponse> next(Prompt prompt) {
			if (this.calls >= MAX_ROUNDS) {
				throw fault(new Json.Fault("the loop reached its bound of " + MAX_ROUNDS + " model calls"));
			}
			List<Message> instructions = prompt.getInstructions();
			if (this.gemini) {
				Map<String, Object> request;
				try {
					// The fix library's advisor, last before this model, rewrote the tool responses.
					request = Upstream.sent(this.fixes, instructions);
				}
				catch (IllegalStateException e) {
					if (e.getMessage() != null && e.getMessage().startsWith("runner:")) {
						throw fault(new Json.Fault(e.getMessage()));
					}
					throw e;
				}
				this.requests.add(request);
			}
			else {
				this.requests.add(Scenario.printAll(instructions));
			}
			boolean repeat = this.repeatLast && !this.replies.isEmpty();
			if (this.calls >= this.replies.size() && !repeat) {
				throw fault(new Json.Fault("the model script ran out: model call " + (this.calls + 1)
						+ " has no scripted reply (the script has " + this.replies.size() + ")"));
			}
			List<ChatResponse> reply = this.replies.get(Math.min(this.calls++, this.replies.size() - 1));
			this.lastReply = reply.get(0).getResults();
			return reply;
		}

		private Json.Fault fault(Json.Fault f) {
			this.fault = f;
			return f;
		}

	}

}
