package io.github.toolcallmodel.fixes;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

import tools.jackson.databind.JsonNode;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.MessageChatMemoryAdvisor;
import org.springframework.ai.chat.client.advisor.api.Advisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Every request path of docs/FIXES.md's table of paths, run on the real
 * {@code GoogleGenAiChatModel} and google-genai client against
 * {@link GeminiStub}, with no property of the library set: each way of building
 * the client, the memory inside the loop, outside it or none, {@code call()}
 * and {@code stream()}, {@code THROW} and {@code RETURN_ERROR_RESPONSE}. The
 * model calls the tool {@code x} (plain text) twice in its first reply, over a
 * limit of one call; a second turn follows in the same conversation. One row
 * per run: the path, what the first turn ended with, whether the second
 * request Gemini received answers every call it holds, and the fixes in
 * effect for the path ({@link RequestPaths}).
 *
 * <p>
 * Runs in this JVM ({@link RequestPathsTableTests}) and, as a {@code main}, in
 * a JVM on Spring AI 2.0.0's jars; it names no class that 2.0.0 lacks.
 */
public final class PathsProbe {

	/** The advisor order of Spring's documentation for a memory inside the loop. */
	static final int INSIDE = org.springframework.ai.chat.client.advisor.ToolCallingAdvisor.DEFAULT_ORDER + 1;

	/** Outside: before the tool-calling advisor. */
	static final int OUTSIDE = org.springframework.ai.chat.client.advisor.ToolCallingAdvisor.DEFAULT_ORDER - 1;

	/** The memory advisor as a bean, ordered inside the loop. */
	@Configuration(proxyBeanMethods = false)
	static class MemoryBean {

		@Bean
		MessageChatMemoryAdvisor memoryAdvisor(ChatMemory chatMemory) {
			return MessageChatMemoryAdvisor.builder(chatMemory).order(INSIDE).build();
		}

	}

	/** How a path builds its client and gives the memory advisor: (context, memory advisor or null) to a client. */
	enum Path {

		BUILDER_BEAN_DEFAULT_ADVISORS("ChatClient.Builder bean, memory in defaultAdvisors(...)",
				(c, m) -> m == null ? c.getBean(ChatClient.Builder.class).build()
						: c.getBean(ChatClient.Builder.class).defaultAdvisors(m).build()),
		BUILDER_BEAN_PER_REQUEST("ChatClient.Builder bean, memory in advisors(...) per request",
				(c, m) -> c.getBean(ChatClient.Builder.class).build()),
		MEMORY_ADVISOR_BEAN("ChatClient.Builder bean, memory advisor bean in defaultAdvisors(...)",
				(c, m) -> c.getBean(ChatClient.Builder.class).defaultAdvisors(c.getBean(MessageChatMemoryAdvisor.class))
					.build()),
		BUILDER_OF_MODEL("ChatClient.builder(chatModel), memory in defaultAdvisors(...)",
				(c, m) -> m == null ? ChatClient.builder(c.getBean(ChatModel.class)).build()
						: ChatClient.builder(c.getBean(ChatModel.class)).defaultAdvisors(m).build()),
		CREATE("ChatClient.create(chatModel), memory in advisors(...) per request",
				(c, m) -> ChatClient.create(c.getBean(ChatModel.class))),
		DIRECT("chatModel.call(prompt) / stream(prompt) holding tool responses", null);

		final String label;

		final BiFunction<ApplicationContext, Advisor, ChatClient> client;

		Path(String label, BiFunction<ApplicationContext, Advisor, ChatClient> client) {
			this.label = label;
			this.client = client;
		}

		boolean perRequest() {
			return this == BUILDER_BEAN_PER_REQUEST || this == CREATE;
		}

		/** The memory positions this path is run with. */
		List<String> memories() {
			return switch (this) {
				case MEMORY_ADVISOR_BEAN -> List.of("inside");
				case DIRECT -> List.of("none");
				default -> List.of("inside", "outside", "none");
			};
		}

	}

	private PathsProbe() {
	}

	/** The number of rows {@link #rows(int)} gives. */
	static int count() {
		int n = 0;
		for (Path path : Path.values()) {
			n += path.memories().size() * 4;
		}
		return n;
	}

	/**
	 * The rows, as {@code |}-separated cells, in the table's order: those of
	 * the share {@link DeepTests#runs} takes from {@code offset} (every row in
	 * the deep run), null for the others.
	 */
	public static List<String> rows(int offset) {
		List<String> rows = new ArrayList<>();
		for (Path path : Path.values()) {
			for (String memory : path.memories()) {
				for (String policy : List.of("THROW", "RETURN_ERROR_RESPONSE")) {
					for (boolean stream : new boolean[] { false, true }) {
						rows.add(DeepTests.runs(rows.size(), offset) ? row(path, memory, policy, stream) : null);
					}
				}
			}
		}
		return rows;
	}

	static String row(Path path, String memory, String policy, boolean stream, String... properties) {
		String[] cells = new String[4];
		// The model calls x twice in its first reply, then answers.
		try (GeminiStub stub = new GeminiStub(i -> i == 0 ? GeminiStub.calls("x", "c1", "c2") : GeminiStub.text("done"))) {
			ApplicationContextRunner app = GeminiApplicationTests.app(stub)
				.withPropertyValues("spring.ai.tools.limits.max-calls-per-tool-default=1",
						"spring.ai.tools.limits.on-limit-exceeded=" + policy)
				.withPropertyValues(properties);
			if (path == Path.MEMORY_ADVISOR_BEAN) {
				app = app.withUserConfiguration(MemoryBean.class);
			}
			app.run(context -> {
				if (context.getStartupFailure() != null) {
					cells[0] = "fails at startup: " + rootMessage(context.getStartupFailure());
					return;
				}
				cells[0] = path == Path.DIRECT ? direct(context, stream) : turns(context, path, memory, stream);
				cells[1] = stub.requests().size() < 2 ? "no second request"
						: unanswered(stub.request(stub.requests().size() - 1)) == 0 ? "yes"
								: "no: " + unanswered(stub.request(stub.requests().size() - 1))
										+ " calls without a response";
				cells[2] = fixes(context, path, stream);
			});
		}
		return String.join(" | ", path.label, memory, policy, stream ? "stream" : "call", cells[0], cells[1],
				cells[2] == null ? "" : cells[2]);
	}

	/** Two turns of one conversation; what the first ended with. */
	private static String turns(ApplicationContext context, Path path, String memory, boolean stream) {
		Advisor advisor = memory.equals("none") || path == Path.MEMORY_ADVISOR_BEAN ? null
				: MessageChatMemoryAdvisor.builder(context.getBean(ChatMemory.class))
					.order(memory.equals("inside") ? INSIDE : OUTSIDE)
					.build();
		ChatClient client = path.client.apply(context, path.perRequest() ? null : advisor);
		String first = turn(client, path.perRequest() ? advisor : null, "weather?", stream);
		turn(client, path.perRequest() ? advisor : null, "and tomorrow?", stream);
		return first;
	}

	private static String turn(ChatClient client, Advisor perRequest, String question, boolean stream) {
		var spec = client.prompt()
			.user(question)
			.toolCallbacks(GeminiApplicationTests.X)
			.advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "weather"));
		if (perRequest != null) {
			spec = spec.advisors(perRequest);
		}
		try {
			String answer = stream ? String.join("", spec.stream().content().collectList().block())
					: spec.call().content();
			return answer != null && answer.startsWith("Tool call limit") ? "breach text" : "answer";
		}
		catch (RuntimeException e) {
			return "throws " + rootClass(e);
		}
	}

	/** A prompt holding the model's calls and the tool's plain-text responses, straight to the model. */
	private static String direct(ApplicationContext context, boolean stream) {
		ChatModel model = context.getBean(ChatModel.class);
		List<Message> messages = List.of(new UserMessage("weather?"),
				AssistantMessage.builder()
					.toolCalls(List.of(new AssistantMessage.ToolCall("c1", "function", "x", "{}"),
							new AssistantMessage.ToolCall("c2", "function", "x", "{}")))
					.build(),
				ToolResponseMessage.builder()
					.responses(List.of(new ToolResponseMessage.ToolResponse("c1", "x", GeminiApplicationTests.SUNNY),
							new ToolResponseMessage.ToolResponse("c2", "x", GeminiApplicationTests.SUNNY)))
					.build());
		Prompt prompt = new Prompt(messages, org.springframework.ai.google.genai.GoogleGenAiChatOptions.builder()
			.toolCallbacks(List.of(GeminiApplicationTests.X))
			.build());
		try {
			// The first request only answers, so that the stub's second one is this.
			model.call(new Prompt("hello"));
			if (stream) {
				model.stream(prompt).collectList().block();
			}
			else {
				model.call(prompt);
			}
			return "answer";
		}
		catch (RuntimeException e) {
			return "throws " + rootClass(e);
		}
	}

	/** The fixes in effect on the path, as the library's report lists them. */
	@SuppressWarnings("unchecked")
	private static String fixes(ApplicationContext context, Path path, boolean stream) {
		if (context.getBeanNamesForType(ToolCallFixesReport.class).length == 0) {
			return "library off";
		}
		List<Map<String, Object>> paths = (List<Map<String, Object>>) context.getBean(ToolCallFixesReport.class)
			.report()
			.get("requestPaths");
		for (Map<String, Object> p : paths) {
			if (p.get("mode").equals(stream ? "stream" : "call") && (path != Path.DIRECT
					|| String.valueOf(p.get("client")).startsWith("the model called directly"))) {
				return String.join(", ", (List<String>) p.get("fixes"));
			}
		}
		return "no path reported";
	}

	/** The function calls of {@code request} that no function response follows. */
	static int unanswered(JsonNode request) {
		int open = 0;
		Iterator<JsonNode> contents = request.path("contents").iterator();
		while (contents.hasNext()) {
			JsonNode c = contents.next();
			int calls = 0;
			int responses = 0;
			for (JsonNode p : c.path("parts")) {
				calls += p.has("functionCall") ? 1 : 0;
				responses += p.has("functionResponse") ? 1 : 0;
			}
			open = Math.max(0, open - responses);
			open += calls;
		}
		return open;
	}

	private static Throwable root(Throwable t) {
		while (t.getCause() != null && t.getCause() != t) {
			t = t.getCause();
		}
		return t;
	}

	private static String rootClass(Throwable t) {
		Throwable r = root(t);
		String m = r.getMessage() == null ? "" : r.getMessage();
		return r.getClass().getSimpleName() + (m.contains("Failed to parse JSON") ? " (Failed to parse JSON)" : "");
	}

	private static String rootMessage(Throwable t) {
		return root(t).getMessage();
	}

	/** Prints {@code row: CELLS} for each row of {@link #rows(int)} from the offset {@code args[0]}, {@code row: -} for one not run. */
	public static void main(String[] args) {
		for (String r : rows(Integer.parseInt(args[0]))) {
			System.out.println("row: " + (r == null ? "-" : r));
		}
	}

}
