package toolcallmodel.conformance;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.toolcallmodel.geministub.GeminiApiStub;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.MessageChatMemoryAdvisor;
import org.springframework.ai.chat.client.advisor.ToolCallAdvisor;
import org.springframework.ai.chat.client.advisor.api.Advisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.google.genai.RecordingGeminiModel;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionResult;
import org.springframework.core.Ordered;

/**
 * The {@code tool_loop} op on Spring AI 1.1.2, whose tool loop is the chat
 * model's own ({@code GoogleGenAiChatModel#internalCall} and
 * {@code #internalStream}): the real {@code GoogleGenAiChatModel}, with the
 * vector's manager, over the real google-genai client against a loopback
 * stub of the Gemini API ({@link GeminiApiStub}) that answers each request
 * with the vector's scripted reply, behind a real {@code ChatClient} with a
 * {@code MessageChatMemoryAdvisor} when the vector has a memory (outside the
 * chat model's loop). With {@code "loop": "tool-call-advisor"} the client
 * also has 1.1's real {@code ToolCallAdvisor}, built with the vector's
 * manager, whose loop runs instead (it turns the chat model's internal tool
 * execution off); the memory advisor at its default order stands inside that
 * loop ({@code "memory": "inside"}), at {@link #OUTSIDE_ORDER} outside it.
 *
 * <p>
 * Each scripted generation goes to Gemini as one candidate, which 1.1.2's
 * {@code responseCandidateToGeneration} turns back into that generation: a
 * generation with tool calls as {@code functionCall} parts (1.1.2 gives it
 * the text {@code ""} and every call the id {@code ""}, lines 660-672), any
 * other as one text part; every one with finish reason {@code STOP}. A
 * scripted generation that cannot come back the same way is out of scope.
 * The message metadata 1.1.2 adds to every reply ({@code candidateIndex},
 * {@code finishReason}) is not printed: the model does not carry it, and
 * nothing the loop or the memory decides reads it (the request conversion
 * reads {@code thoughtSignatures} only).
 *
 * <p>
 * {@code requests} are the requests the chat model built and sent, as
 * {@code createGeminiRequest} made them ({@link RecordingGeminiModel}), one
 * per request the stub received; a request whose conversion failed was never
 * sent.
 */
final class ChatModelLoop {

	/** The conversation id {@code MessageChatMemoryAdvisor} falls back to. */
	static final String CONVERSATION_ID = ChatMemory.DEFAULT_CONVERSATION_ID;

	/** The model's own guard ({@code LoopConfig.max_rounds}): a fault of the vector. */
	static final int MAX_ROUNDS = 1000;

	/** {@code /input/loop}: the chat model's own loop (the default). */
	static final String CHAT_MODEL = "chat-model";

	/**
	 * {@code /input/loop}: {@code ToolCallAdvisor}'s loop, over the chat model
	 * with internal tool execution off.
	 */
	static final String TOOL_CALL_ADVISOR = "tool-call-advisor";

	/** A memory advisor's order before ToolCallAdvisor's default (HIGHEST_PRECEDENCE + 300). */
	static final int OUTSIDE_ORDER = Ordered.HIGHEST_PRECEDENCE + 100;

	/** What 1.1.2's {@code responseCandidateToGeneration} adds to each reply's message metadata. */
	private static final Set<String> GEMINI_METADATA = Set.of("candidateIndex", "finishReason");

	private ChatModelLoop() {
	}

	static Map<String, Object> run(Scenario s, Map<String, Object> input) {
		List<Message> history = Scenario.messages(input.get("history"), "/input/history");
		boolean repeatLast = Json.bool(input.get("repeat_last"), false, "/input/repeat_last");
		boolean stream = Json.bool(input.get("stream"), false, "/input/stream");
		List<List<String>> replies = replies(Json.arr(input.get("model"), "/input/model"), stream);
		String provider = input.get("provider") == null ? "gemini" : Json.str(input.get("provider"), "/input/provider");
		if (provider.equals("none")) {
			throw new Json.OutOfScope("provider none: on Spring AI " + Upstream.VERSION
					+ " the tool loop is the chat model's own, and this runner drives GoogleGenAiChatModel");
		}
		if (!provider.equals("gemini")) {
			throw new Json.Fault("/input/provider: unknown provider '" + provider + "' (known: gemini, none)");
		}
		String loop = input.get("loop") == null ? CHAT_MODEL : Json.str(input.get("loop"), "/input/loop");
		if (!loop.equals(CHAT_MODEL) && !loop.equals(TOOL_CALL_ADVISOR)) {
			throw new Json.Fault("/input/loop: unknown loop '" + loop + "' (known: " + CHAT_MODEL + ", "
					+ TOOL_CALL_ADVISOR + ")");
		}
		boolean advisorLoop = loop.equals(TOOL_CALL_ADVISOR);
		String memory = LoopMemory.where(input);
		if (memory.equals("inside") && !advisorLoop) {
			throw new Json.Fault("/input/memory: a memory inside the tool loop: Spring AI " + Upstream.VERSION
					+ "'s chat model loop has no advisor inside it (the loop runs inside the chat model): "
					+ "not applicable");
		}
		if (!Json.bool(s.manager.get("conversation_history"), true, "/manager/conversation_history")) {
			throw new Json.Fault("/manager/conversation_history: conversation history off: Spring AI "
					+ Upstream.VERSION + " has no ToolCallingAdvisor (its tool loop runs inside the chat model, "
					+ "and ToolCallAdvisor always sends the whole history): not applicable");
		}
		LoopMemory loopMemory = LoopMemory.read(input, memory, Scenario::messages);

		Map<String, Object> out = new LinkedHashMap<>();
		LoopMemory.Built built = loopMemory.build(s, CONVERSATION_ID, out);
		if (built == null) {
			return out;
		}
		ToolCallingManager manager = built.manager();
		ChatMemory chatMemory = built.memory();
		List<Advisor> advisors = new ArrayList<>();
		if (chatMemory != null) {
			// At its default order (DEFAULT_CHAT_MEMORY_PRECEDENCE_ORDER) the
			// memory comes after ToolCallAdvisor (HIGHEST_PRECEDENCE + 300):
			// inside its loop; ordered before it, outside.
			var builder = MessageChatMemoryAdvisor.builder(chatMemory);
			if (advisorLoop && memory.equals("outside")) {
				builder.order(OUTSIDE_ORDER);
			}
			advisors.add(builder.build());
		}
		if (advisorLoop) {
			advisors.add(ToolCallAdvisor.builder().toolCallingManager(manager).build());
		}

		try (GeminiApiStub stub = new GeminiApiStub((st, i) -> answer(replies, repeatLast, st, i))) {
			RecordingGeminiModel model = new RecordingGeminiModel(stub.client(), manager);
			ChatClient client = ChatClient.builder(model).build();
			Map<String, Object> outcome = stream ? streamOutcome(client, history, s, advisors)
					: callOutcome(client, history, s, advisors);
			if (stub.fault() != null) {
				throw new Json.Fault(stub.fault());
			}
			out.put("outcome", outcome);
			if (model.requests.size() != stub.requests().size()) {
				throw new Json.Fault("runner: the chat model built " + model.requests.size()
						+ " requests and the stub received " + stub.requests().size());
			}
			out.put("requests", model.requests);
		}
		List<Object> stored = new ArrayList<>();
		if (chatMemory != null) {
			for (Message m : chatMemory.get(CONVERSATION_ID)) {
				stored.add(Scenario.print(withoutGeminiMetadata(m)));
			}
		}
		out.put("memory", Json.map("messages", stored));
		out.put("invocations", s.invocations);
		return out;
	}

	/** Each scripted reply as the bodies the stub answers with: one, or one per chunk. */
	private static List<List<String>> replies(List<Object> script, boolean stream) {
		List<List<String>> replies = new ArrayList<>();
		for (int i = 0; i < script.size(); i++) {
			String where = "/input/model/" + i;
			List<String> reply = new ArrayList<>();
			if (stream) {
				List<Object> chunks = Json.arr(script.get(i), where);
				if (chunks.isEmpty()) {
					throw new Json.Fault(where + ": a streamed reply needs at least one chunk");
				}
				for (int j = 0; j < chunks.size(); j++) {
					reply.add(responseBody(chunks.get(j), where + "/" + j));
				}
			}
			else {
				reply.add(responseBody(script.get(i), where));
			}
			replies.add(reply);
		}
		return replies;
	}

	/**
	 * The answer to request {@code i} (from 0): the scripted reply, the last
	 * one again past the script when it repeats, or none (a fault of the
	 * vector, as the model reports it).
	 */
	private static List<String> answer(List<List<String>> replies, boolean repeatLast, GeminiApiStub stub, int i) {
		if (i >= MAX_ROUNDS) {
			stub.fail("the loop reached its bound of " + MAX_ROUNDS + " model calls");
			return null;
		}
		if (i < replies.size()) {
			return replies.get(i);
		}
		if (repeatLast && !replies.isEmpty()) {
			return replies.get(replies.size() - 1);
		}
		stub.fail("the model script ran out: model call " + (i + 1) + " has no scripted reply (the script has "
				+ replies.size() + ")");
		return null;
	}

	private static Map<String, Object> callOutcome(ChatClient client, List<Message> history, Scenario s,
			List<Advisor> advisors) {
		Map<String, Object> outcome = new LinkedHashMap<>();
		try {
			ChatClientResponse response = client.prompt()
				.messages(history)
				.toolCallbacks(s.requestTools)
				.advisors(advisors)
				.call()
				.chatClientResponse();
			ChatResponse chatResponse = response.chatResponse();
			if (chatResponse == null) {
				throw new Json.Fault("runner: ChatClient returned no chat response");
			}
			List<Generation> gens = chatResponse.getResults();
			boolean built = builtByLoop(gens);
			outcome.put("kind", built ? "return_direct" : "completed");
			List<Object> printed = new ArrayList<>();
			for (Generation g : gens) {
				printed.add(built ? Scenario.printGeneration(g) : printReply(g));
			}
			outcome.put("generations", printed);
			outcome.put("error", null);
		}
		catch (Json.Fault | Json.OutOfScope e) {
			throw e;
		}
		catch (Throwable t) {
			outcome.put("kind", "error");
			outcome.put("generations", List.of());
			outcome.put("error", Scenario.printError(t));
		}
		return outcome;
	}

	/** ChatClient.stream(): every response the client receives, in order, and how the stream ended. */
	private static Map<String, Object> streamOutcome(ChatClient client, List<Message> history, Scenario s,
			List<Advisor> advisors) {
		Streamed stream = Streamed.of(client.prompt().messages(history).toolCallbacks(s.requestTools).advisors(advisors));
		List<Object> streamed = new ArrayList<>();
		boolean built = false;
		for (List<Generation> gens : stream.results()) {
			built = builtByLoop(gens);
			List<Object> printed = new ArrayList<>();
			for (Generation g : gens) {
				printed.add(built ? Scenario.printGeneration(g) : printReply(g));
			}
			streamed.add(printed);
		}
		return stream.outcome(built ? "return_direct" : "completed", streamed);
	}

	/**
	 * Whether the loop built these generations ({@code ToolExecutionResult.buildGenerations}:
	 * finish reason {@code returnDirect}); the stub's replies all end with {@code STOP}.
	 */
	private static boolean builtByLoop(List<Generation> gens) {
		return !gens.isEmpty() && gens.stream()
			.allMatch(g -> g.getMetadata() != null
					&& ToolExecutionResult.FINISH_REASON.equals(g.getMetadata().getFinishReason()));
	}

	/** A model reply's generation as the vectors print it, without the metadata 1.1.2 adds. */
	private static Map<String, Object> printReply(Generation g) {
		return Scenario.printReply(g, (AssistantMessage) withoutGeminiMetadata(g.getOutput()));
	}

	/** An assistant message without {@link #GEMINI_METADATA}; any other message as it is. */
	private static Message withoutGeminiMetadata(Message m) {
		if (!(m instanceof AssistantMessage a)) {
			return m;
		}
		Map<String, Object> md = new LinkedHashMap<>(a.getMetadata());
		md.keySet().removeAll(GEMINI_METADATA);
		md.remove("messageType");
		return AssistantMessage.builder()
			.content(a.getText())
			.properties(md)
			.toolCalls(a.getToolCalls())
			.media(a.getMedia())
			.build();
	}

	/**
	 * One scripted chat response as the body of a {@code GenerateContentResponse}
	 * that 1.1.2's {@code responseCandidateToGeneration} turns back into it:
	 * one candidate per generation.
	 */
	static String responseBody(Object generations, String where) {
		List<Object> gens = Json.arr(generations, where);
		List<Object> candidates = new ArrayList<>();
		for (int i = 0; i < gens.size(); i++) {
			String at = where + "/" + i;
			Map<String, Object> g = Json.obj(gens.get(i), at);
			if (g.get("metadata") instanceof Map<?, ?> md && !md.isEmpty()) {
				throw new Json.OutOfScope(at + "/metadata: a reply's message metadata is what "
						+ "GoogleGenAiChatModel " + Upstream.VERSION + " makes of Gemini's response, not scripted");
			}
			if (!"STOP".equals(g.get("finish_reason"))) {
				throw new Json.OutOfScope(at + "/finish_reason: every reply through the stub ends with STOP");
			}
			String text = Json.str(g.get("text"), at + "/text");
			List<Object> calls = g.get("tool_calls") == null ? List.of() : Json.arr(g.get("tool_calls"), at + "/tool_calls");
			List<Object> parts = new ArrayList<>();
			if (!calls.isEmpty()) {
				if (!"".equals(text)) {
					throw new Json.OutOfScope(at + "/text: GoogleGenAiChatModel " + Upstream.VERSION
							+ " gives a function-call reply the text \"\"");
				}
				for (int k = 0; k < calls.size(); k++) {
					parts.add(functionCall(Json.obj(calls.get(k), at + "/tool_calls/" + k), at + "/tool_calls/" + k));
				}
			}
			else {
				if (text == null) {
					throw new Json.OutOfScope(at + "/text: GoogleGenAiChatModel " + Upstream.VERSION
							+ " gives a text part's reply its text, never null");
				}
				parts.add(Json.map("text", text));
			}
			candidates.add(Json.map("content", Json.map("role", "model", "parts", parts), "finishReason", "STOP",
					"index", i));
		}
		return Json.write(Json.map("candidates", candidates, "modelVersion", "stub", "usageMetadata",
				Json.map("promptTokenCount", 1, "candidatesTokenCount", 1, "totalTokenCount", 2)));
	}

	private static Map<String, Object> functionCall(Map<String, Object> call, String at) {
		if (!"".equals(call.get("id"))) {
			throw new Json.OutOfScope(at + "/id: GoogleGenAiChatModel " + Upstream.VERSION
					+ " gives every call of a reply the id \"\"");
		}
		String arguments = Json.str(call.get("arguments"), at + "/arguments");
		Object args = arguments == null ? null : Json.parse(arguments);
		if (!(args instanceof Map<?, ?>) || !Json.write(args).equals(arguments)) {
			throw new Json.OutOfScope(at + "/arguments: GoogleGenAiChatModel " + Upstream.VERSION
					+ " prints a call's arguments as a compact JSON object");
		}
		return Json.map("functionCall", Json.map("name", call.get("name"), "args", args));
	}

}
