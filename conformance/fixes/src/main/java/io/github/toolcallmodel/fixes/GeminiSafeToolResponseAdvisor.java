package io.github.toolcallmodel.fixes;

import java.util.ArrayList;
import java.util.List;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisor;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.core.Ordered;

import reactor.core.publisher.Flux;

/**
 * The fixes {@code strict-json-or-wrap} and {@code error-key} for Gemini, from
 * outside the jars: the last advisor before the chat model, it rewrites every
 * tool response of every request (the history and what a memory added, not
 * only the last message) with {@link GeminiToolResponses#rewrite}, so that
 * {@code GoogleGenAiChatModel}'s own conversion never fails on a tool response
 * and never drops a character of it. With {@code strict-json-or-wrap}, null or
 * blank function-call arguments are sent as {@code {}}. The same advisor sends
 * tool responses (and, for PR 6049, arguments) as the upstream pull requests
 * 6049 and 6907 would convert them, when those switches are on.
 *
 * <p>
 * It changes only what reaches the model: the loop's history and every memory
 * keep the original messages. Its order, {@link #DEFAULT_ORDER}, is after
 * {@code ToolCallingAdvisor} and after any memory advisor placed inside the
 * loop, so it sees every model call of a turn.
 */
public final class GeminiSafeToolResponseAdvisor implements CallAdvisor, StreamAdvisor {

	/** Just before {@code ChatModelCallAdvisor}, which has the lowest precedence. */
	public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 1000;

	/**
	 * The metadata key under which a rewritten tool message keeps the data it
	 * replaced (a list, one per response), for whoever converts it.
	 */
	public static final String ORIGINAL_DATA = "toolcallFixesOriginalData";

	/** The fixes that are on; the advisor reads the conversion's ({@link GeminiToolResponses#rewrite}). */
	private final FixSet fixes;

	private final int order;

	/** The advisor of {@code fixes}, at {@link #DEFAULT_ORDER}. */
	public GeminiSafeToolResponseAdvisor(FixSet fixes) {
		this(fixes, DEFAULT_ORDER);
	}

	/**
	 * The conversion fixes of {@code fixes} ({@code strict-json-or-wrap},
	 * {@code error-key}, and the upstream pull requests modelled for comparison,
	 * spring-ai PR 6049 {@code pr-6049-strict-wrap} and PR 6907
	 * {@code pr-6907-wrap-on-failure}, each sent as the pull request would
	 * convert it); the others are not read.
	 */
	public GeminiSafeToolResponseAdvisor(FixSet fixes, int order) {
		this.fixes = fixes;
		this.order = order;
	}

	@Override
	public String getName() {
		return "GeminiSafeToolResponseAdvisor";
	}

	@Override
	public int getOrder() {
		return this.order;
	}

	@Override
	public ChatClientResponse adviseCall(ChatClientRequest request, CallAdvisorChain chain) {
		return chain.nextCall(rewrite(request));
	}

	/** The same rewrite for {@code stream()}: each model call of the streaming loop passes here too. */
	@Override
	public Flux<ChatClientResponse> adviseStream(ChatClientRequest request, StreamAdvisorChain chain) {
		return chain.nextStream(rewrite(request));
	}

	private ChatClientRequest rewrite(ChatClientRequest request) {
		List<Message> messages = request.prompt().getInstructions();
		List<Message> rewritten = rewrite(messages);
		if (rewritten == messages) {
			return request;
		}
		Prompt prompt = request.prompt().mutate().messages(rewritten).build();
		return request.mutate().prompt(prompt).build();
	}

	/** The messages with every tool response rewritten; the same list when nothing changes. */
	/**
	 * The data response {@code index} of {@code message} had before this advisor
	 * rewrote it (its data if it did not).
	 */
	public static String originalData(ToolResponseMessage message, int index) {
		Object kept = message.getMetadata().get(ORIGINAL_DATA);
		if (kept instanceof List<?> l && index < l.size() && (l.get(index) == null || l.get(index) instanceof String)) {
			return (String) l.get(index);
		}
		return message.getResponses().get(index).responseData();
	}

	public List<Message> rewrite(List<Message> messages) {
		return MessageLists.map(messages, this::rewrite);
	}

	private Message rewrite(Message m) {
		if (m instanceof ToolResponseMessage tool) {
			List<ToolResponseMessage.ToolResponse> responses = tool.getResponses();
			List<ToolResponseMessage.ToolResponse> out = new ArrayList<>(responses.size());
			boolean changed = false;
			for (int i = 0; i < responses.size(); i++) {
				ToolResponseMessage.ToolResponse r = responses.get(i);
				String data = GeminiToolResponses.rewrite(r.responseData(), ToolResponseMarks.isError(tool, i),
						this.fixes);
				changed |= !java.util.Objects.equals(data, r.responseData());
				out.add(new ToolResponseMessage.ToolResponse(r.id(), r.name(), data));
			}
			if (!changed) {
				return m;
			}
			java.util.Map<String, Object> metadata = new java.util.LinkedHashMap<>(tool.getMetadata());
			metadata.put(ORIGINAL_DATA, responses.stream().map(ToolResponseMessage.ToolResponse::responseData).toList());
			return ToolResponseMessage.builder().responses(out).metadata(metadata).build();
		}
		if ((this.fixes.has(ToolResponseRewrite.STRICT_JSON_OR_WRAP) || this.fixes.has(GeminiToolResponses.PR_6049))
				&& m instanceof AssistantMessage a
				&& !a.getToolCalls().isEmpty()) {
			List<AssistantMessage.ToolCall> calls = new ArrayList<>();
			boolean changed = false;
			for (AssistantMessage.ToolCall c : a.getToolCalls()) {
				String args = GeminiToolResponses.arguments(c.arguments(), this.fixes);
				changed |= !java.util.Objects.equals(args, c.arguments());
				calls.add(new AssistantMessage.ToolCall(c.id(), c.type(), c.name(), args));
			}
			return changed ? a.mutate().toolCalls(calls).build() : m;
		}
		return m;
	}

}
