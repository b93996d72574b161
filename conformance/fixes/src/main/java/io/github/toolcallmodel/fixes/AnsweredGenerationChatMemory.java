package io.github.toolcallmodel.fixes;

import java.util.List;
import java.util.function.BooleanSupplier;

import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;

/**
 * The fix {@code store-answered-generation} as a {@link ChatMemory} around any
 * other: {@code MessageChatMemoryAdvisor.after} adds every generation of a
 * reply in one {@code add}; of a reply with tool calls, only the generation the
 * manager answers (the first with tool calls) is kept. Any other {@code add}
 * passes unchanged. Upstream keeps every generation, so an unanswered one sits
 * between the turn's messages: the memory no longer finds itself in the loop's
 * prompt and is prepended again, or Gemini sees a call follow a model turn.
 */
public final class AnsweredGenerationChatMemory implements ChatMemory {

	private final ChatMemory delegate;

	private final BooleanSupplier on;

	public AnsweredGenerationChatMemory(ChatMemory delegate) {
		this(delegate, () -> true);
	}

	/**
	 * With the fix read at each {@code add}: the auto-configuration decides it
	 * once the memory advisor beans exist; off, every {@code add} passes
	 * unchanged.
	 */
	public AnsweredGenerationChatMemory(ChatMemory delegate, BooleanSupplier on) {
		this.delegate = delegate;
		this.on = on;
	}

	/** The memory this one stores into. */
	public ChatMemory getDelegate() {
		return this.delegate;
	}

	@Override
	public void add(String conversationId, List<Message> messages) {
		this.delegate.add(conversationId, this.on.getAsBoolean() ? answered(messages) : messages);
	}

	@Override
	public List<Message> get(String conversationId) {
		return this.delegate.get(conversationId);
	}

	@Override
	public void clear(String conversationId) {
		this.delegate.clear(conversationId);
	}

	/** The first assistant message with tool calls when every message is an assistant message; else all. */
	static List<Message> answered(List<Message> messages) {
		if (messages == null || messages.size() < 2) {
			return messages;
		}
		Message first = null;
		for (Message m : messages) {
			if (!(m instanceof AssistantMessage a)) {
				return messages;
			}
			if (first == null && !a.getToolCalls().isEmpty()) {
				first = a;
			}
		}
		return first == null ? messages : List.of(first);
	}

}
