package io.github.toolcallmodel.fixes;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.MessageChatMemoryAdvisor;
import org.springframework.ai.chat.client.advisor.ToolCallingAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.google.genai.GeminiRequests;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.DefaultToolDefinition;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import reactor.core.publisher.Flux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Many conversations at once through one application context with the
 * library's switches on: {@value #CONVERSATIONS} conversations, all in flight
 * together on a pool of as many threads, each with its own conversation id, two
 * turns of two to four tool rounds, the memory inside the tool loop for half of
 * them and outside it for the other half, {@code call()} for half and
 * {@code stream()} for the other half, and a tool limit breached in a third of
 * them, under {@code THROW} and under {@code RETURN_ERROR_RESPONSE}.
 *
 * <p>
 * Each conversation is played twice: alone, one after the other, in a fresh
 * context, and then concurrently with all the others in another fresh
 * context. Both runs must hold, for every conversation: every request the
 * model received converts on Gemini's real request building and pairs each
 * function call with its response, in the next message; every message of a
 * request, of the memory and of the answer belongs to the conversation (its
 * ids and texts carry the conversation's name); a conversation breaches its
 * limit exactly when its script says so, and the breach is answered in that
 * conversation; no call escapes with an exception. And the concurrent run must
 * give every conversation exactly what it got alone: the same requests in the
 * same order, the same answers, the same memory.
 */
class ConcurrentConversationsTests {

	/** Conversations in flight at once, per policy. */
	static final int CONVERSATIONS = 240;

	static final int TURNS = 2;

	/** The limit of tool {@code limited}, per turn. */
	static final int LIMIT = 2;

	static final String BREACH = "Tool call limit (" + LIMIT
			+ ") exceeded for tool 'limited'. No further calls to this tool are allowed in this turn.";

	/** The switches on: every fix of the library but the two window fixes' rival and the PR comparisons. */
	static final String[] SWITCHES = { "toolcall.fixes.breach-through-processor=true",
			"toolcall.fixes.strict-json-or-wrap=true", "toolcall.fixes.error-key=true",
			"toolcall.fixes.close-dangling-calls=true", "toolcall.fixes.store-answered-generation=true",
			"toolcall.fixes.keep-current-turn=true", "toolcall.fixes.json-error-processor=true",
			"toolcall.fixes.end-turn-after-breach=true", "toolcall.fixes.unknown-tool-to-processor=true",
			// Large enough that the window never evicts: the memory must hold every message.
			"toolcall.fixes.memory-max-messages=100000" };

	/** One conversation's script. */
	record Script(int n) {

		String id() {
			return "c" + this.n;
		}

		boolean memoryInside() {
			return this.n % 2 == 0;
		}

		boolean streamed() {
			return this.n / 2 % 2 == 0;
		}

		/** Calls {@code limited}, past its limit of {@value ConcurrentConversationsTests#LIMIT}, in every turn. */
		boolean breaches() {
			return this.n % 3 == 0;
		}

		int rounds() {
			return 2 + this.n % 3;
		}

		/** Two calls of {@code limited} a round reach its limit in the first round and pass it in the second. */
		int callsPerRound() {
			return breaches() ? LIMIT : 1 + this.n / 2 % 2;
		}

	}

	/** What a conversation got: its requests as the model saw them, its answers, its memory. */
	record Outcome(List<String> requests, List<String> answers, List<String> memory) {
	}

	/**
	 * The model: thread-safe, scripted by the conversation named in the last
	 * user message. It asks for the script's rounds of tool calls, then answers
	 * with text. Every request is converted by Gemini's real request building
	 * and checked; a failed check is kept in {@link #violations} and fails the
	 * request.
	 */
	static final class ScriptedModel implements ChatModel {

		final Map<String, List<String>> requests = new ConcurrentHashMap<>();

		final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();

		@Override
		public ChatOptions getOptions() {
			return ToolCallingChatOptions.builder().build();
		}

		@Override
		public ChatResponse call(Prompt prompt) {
			// Let other conversations run between the steps of this one.
			if (ThreadLocalRandom.current().nextInt(4) == 0) {
				Thread.yield();
			}
			List<Message> messages = prompt.getInstructions();
			UserMessage question = null;
			int rounds = 0;
			for (Message m : messages) {
				if (m instanceof UserMessage u) {
					question = u;
					rounds = 0;
				}
				else if (m instanceof ToolResponseMessage) {
					rounds++;
				}
			}
			if (question == null) {
				return fail("a request without a question: " + render(messages));
			}
			String[] asked = question.getText().split(" ");
			String id = asked[0];
			Script script = new Script(Integer.parseInt(id.substring(1)));
			String problem = check(id, messages);
			this.requests.computeIfAbsent(id, k -> Collections.synchronizedList(new ArrayList<>()))
				.add(render(messages));
			if (problem != null) {
				return fail(id + ": " + problem + ": " + render(messages));
			}
			if (rounds < script.rounds()) {
				List<AssistantMessage.ToolCall> calls = new ArrayList<>();
				for (int i = 0; i < script.callsPerRound(); i++) {
					String call = id + "-" + asked[1] + "-r" + rounds + "-" + i;
					String tool = script.breaches() ? "limited" : "free";
					calls.add(new AssistantMessage.ToolCall(call, "function", tool, "{\"call\":\"" + call + "\"}"));
				}
				return reply(AssistantMessage.builder().content("").toolCalls(calls).build());
			}
			return reply(new AssistantMessage(id + " " + asked[1] + " answered after " + rounds + " rounds"));
		}

		@Override
		public Flux<ChatResponse> stream(Prompt prompt) {
			return Flux.defer(() -> Flux.just(call(prompt)));
		}

		private ChatResponse fail(String violation) {
			this.violations.add(violation);
			throw new IllegalStateException(violation);
		}

		private static ChatResponse reply(AssistantMessage m) {
			return new ChatResponse(List.of(new Generation(m)));
		}

		/** What is wrong with a request of conversation {@code id}, or null. */
		static String check(String id, List<Message> messages) {
			try {
				GeminiRequests.contents(messages);
			}
			catch (RuntimeException e) {
				return "Gemini's conversion refuses the request (" + e.getMessage() + ")";
			}
			for (int i = 0; i < messages.size(); i++) {
				Message m = messages.get(i);
				if (!belongs(id, m)) {
					return "message " + i + " belongs to another conversation";
				}
				if (m instanceof AssistantMessage a && !a.getToolCalls().isEmpty()) {
					List<String> calls = a.getToolCalls().stream().map(AssistantMessage.ToolCall::id).toList();
					List<String> answered = i + 1 < messages.size()
							&& messages.get(i + 1) instanceof ToolResponseMessage t
									? t.getResponses().stream().map(ToolResponseMessage.ToolResponse::id).toList()
									: List.of();
					if (!calls.equals(answered)) {
						return "calls " + calls + " answered by " + answered;
					}
				}
			}
			return null;
		}

	}

	/** Whether every id and text of {@code m} names conversation {@code id}. */
	static boolean belongs(String id, Message m) {
		String own = id + "-";
		if (m instanceof UserMessage u) {
			return u.getText().startsWith(id + " ");
		}
		if (m instanceof SystemMessage sys) {
			// The memory advisor's empty system message.
			return sys.getText().isEmpty();
		}
		if (m instanceof AssistantMessage a) {
			// A breach under THROW ends the turn with its text as the answer.
			return a.getToolCalls().isEmpty() ? a.getText().startsWith(id + " ") || a.getText().contains(BREACH)
					: a.getToolCalls().stream().allMatch(c -> c.id().startsWith(own) && c.arguments().contains(own));
		}
		if (m instanceof ToolResponseMessage t) {
			return t.getResponses()
				.stream()
				.allMatch(r -> r.id().startsWith(own) && (r.responseData().contains("\"" + r.id() + "\"")
						|| r.responseData().contains(BREACH)
						|| r.responseData().contains(FixingToolCallingManager.NOT_EXECUTED)));
		}
		return false;
	}

	/** A message as the comparison sees it: its kind, texts, ids and data. */
	static String render(Message m) {
		if (m instanceof AssistantMessage a && !a.getToolCalls().isEmpty()) {
			return "calls" + a.getToolCalls().stream().map(c -> c.id() + ":" + c.name() + c.arguments()).toList();
		}
		if (m instanceof ToolResponseMessage t) {
			return "responses" + t.getResponses().stream().map(r -> r.id() + "=" + r.responseData()).toList()
					+ ToolResponseMarks.marks(t);
		}
		return m.getMessageType() + ":" + m.getText();
	}

	static String render(List<Message> messages) {
		return messages.stream().map(ConcurrentConversationsTests::render).toList().toString();
	}

	/** A tool that answers with the call it was given (its id is in its input). */
	static ToolCallback tool(String name) {
		ToolDefinition definition = DefaultToolDefinition.builder()
			.name(name)
			.description("echoes the call")
			.inputSchema("{\"type\":\"object\"}")
			.build();
		return new ToolCallback() {

			@Override
			public ToolDefinition getToolDefinition() {
				return definition;
			}

			@Override
			public String call(String toolInput) {
				return "{\"tool\":\"" + name + "\",\"input\":" + toolInput + "}";
			}

		};
	}

	static final ToolCallback FREE = tool("free");

	static final ToolCallback LIMITED = tool("limited");

	@Configuration(proxyBeanMethods = false)
	@EnableAutoConfiguration
	static class Application {

		/**
		 * The model as scripted: the bean the context holds may be the library's
		 * wrapper of it (strict-json-or-wrap wraps every chat model bean).
		 */
		final ScriptedModel model = new ScriptedModel();

		@Bean
		ChatModel chatModel() {
			return this.model;
		}

	}

	static ApplicationContextRunner app(String policy) {
		return new ApplicationContextRunner().withUserConfiguration(Application.class)
			// The scripted model is the application's only chat model: Gemini's
			// auto-configuration (on the class path for other tests) stays off.
			.withPropertyValues("spring.ai.model.chat=scripted",
					"spring.ai.tools.limits.max-calls-per-tool.limited=" + LIMIT,
					"spring.ai.tools.limits.on-limit-exceeded=" + policy)
			.withPropertyValues(SWITCHES);
	}

	/** One conversation, turn after turn; an exception ends it and is its last answer. */
	static List<String> converse(ApplicationContext context, ChatClient client, Script s) {
		ChatMemory memory = context.getBean(ChatMemory.class);
		List<String> answers = new ArrayList<>();
		for (int turn = 0; turn < TURNS; turn++) {
			int order = s.memoryInside() ? ToolCallingAdvisor.DEFAULT_ORDER + 100 : ToolCallingAdvisor.DEFAULT_ORDER - 100;
			var request = client.prompt()
				.user(s.id() + " t" + turn)
				.toolCallbacks(FREE, LIMITED)
				.advisors(a -> a.advisors(MessageChatMemoryAdvisor.builder(memory).order(order).build())
					.param(ChatMemory.CONVERSATION_ID, s.id()));
			try {
				answers.add(s.streamed() ? String.join("", request.stream().content().collectList().block())
						: request.call().content());
			}
			catch (RuntimeException e) {
				answers.add("threw " + e.getClass().getName() + ": " + e.getMessage());
				break;
			}
		}
		return answers;
	}

	/** Every conversation, alone ({@code threads} 1) or all at once. */
	static Map<String, Outcome> play(ApplicationContextRunner runner, boolean concurrently) {
		Map<String, Outcome> out = new ConcurrentHashMap<>();
		runner.run(context -> {
			ChatClient client = context.getBean(ChatClient.Builder.class).build();
			ScriptedModel model = context.getBean(Application.class).model;
			Map<String, List<String>> answers = new ConcurrentHashMap<>();
			if (concurrently) {
				ExecutorService pool = Executors.newFixedThreadPool(CONVERSATIONS);
				try {
					CountDownLatch start = new CountDownLatch(1);
					List<Future<?>> running = new ArrayList<>();
					for (int n = 0; n < CONVERSATIONS; n++) {
						Script s = new Script(n);
						running.add(pool.submit(() -> {
							start.await();
							answers.put(s.id(), converse(context, client, s));
							return null;
						}));
					}
					start.countDown();
					for (Future<?> f : running) {
						f.get(60, TimeUnit.SECONDS);
					}
				}
				finally {
					pool.shutdownNow();
				}
			}
			else {
				for (int n = 0; n < CONVERSATIONS; n++) {
					Script s = new Script(n);
					answers.put(s.id(), converse(context, client, s));
				}
			}
			assertEquals(0, model.violations.size(), () -> model.violations.size() + " requests broke a rule, the first: "
					+ model.violations.stream().limit(3).toList());
			ChatMemory memory = context.getBean(ChatMemory.class);
			for (int n = 0; n < CONVERSATIONS; n++) {
				String id = new Script(n).id();
				List<Message> stored = memory.get(id);
				for (Message m : stored) {
					assertTrue(belongs(id, m), id + "'s memory holds " + render(m));
				}
				out.put(id, new Outcome(List.copyOf(model.requests.getOrDefault(id, List.of())), answers.get(id),
						stored.stream().map(ConcurrentConversationsTests::render).toList()));
			}
		});
		return out;
	}

	/** An outcome as a failure shows it: its memory and answers whole, its requests the last one only. */
	static String clip(Outcome o) {
		return (o.requests().isEmpty() ? "" : "last request " + o.requests().get(o.requests().size() - 1)) + "; "
				+ o.requests().size() + " requests; answers " + o.answers() + "; memory " + o.memory() + "; all requests "
				+ o.requests().hashCode();
	}

	@ParameterizedTest
	@ValueSource(strings = { "THROW", "RETURN_ERROR_RESPONSE" })
	void everyConversationGetsAtOnceWhatItGetsAlone(String policy) {
		ApplicationContextRunner runner = app(policy);
		long t0 = System.nanoTime();
		Map<String, Outcome> alone = play(runner, false);
		long t1 = System.nanoTime();
		Map<String, Outcome> together = play(runner, true);
		long t2 = System.nanoTime();
		int requests = 0;
		int breached = 0;
		for (int n = 0; n < CONVERSATIONS; n++) {
			Script s = new Script(n);
			Outcome a = alone.get(s.id());
			Outcome t = together.get(s.id());
			// What the scenario expects, on its own: every turn answered, no exception.
			assertEquals(TURNS, a.answers().size(), () -> s.id() + " " + a.answers());
			for (String answer : a.answers()) {
				assertTrue(answer.startsWith(s.id() + " ") || answer.contains(BREACH),
						s.id() + " answered " + answer);
			}
			boolean breach = a.requests().stream().anyMatch(r -> r.contains(BREACH))
					|| a.answers().stream().anyMatch(r -> r.contains(BREACH));
			assertEquals(s.breaches(), breach, () -> s.id() + " breached: " + clip(a));
			breached += breach ? 1 : 0;
			requests += a.requests().size();
			assertEquals(clip(a), clip(t), s.id() + " (memory " + (s.memoryInside() ? "inside" : "outside") + ", "
					+ (s.streamed() ? "stream" : "call") + ") differs when the others run at once");
		}
		assertEquals((CONVERSATIONS + 2) / 3, breached);
		System.out.printf(
				"%s: %d conversations at once, %d turns each, %d model calls, %d breached; alone %d ms, at once %d ms%n",
				policy, CONVERSATIONS, TURNS, requests, breached, (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000);
	}

}
