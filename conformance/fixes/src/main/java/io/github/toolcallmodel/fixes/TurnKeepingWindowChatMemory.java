package io.github.toolcallmodel.fixes;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;

import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.ChatMemoryRepository;
import org.springframework.ai.chat.memory.InMemoryChatMemoryRepository;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.MessageType;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.util.Assert;

/**
 * A message window like Spring AI 2.0.1's {@code MessageWindowChatMemory} (a
 * final class, so this is a {@link ChatMemory} of its own), with the window
 * fixes of {@code docs/FIXES.md}:
 * <ul>
 * <li>{@code keep-current-turn}: when the cut, moved forward to the next user
 * message, finds none (the current turn alone is longer than the window), it
 * moves back to the last user message: earlier turns go whole, the current turn
 * stays whole until the next user message lets the cut pass it.</li>
 * <li>{@code evict-orphan-responses} (spring-ai PR 6029, for comparison): the cut
 * is the plain count, then the tool messages left at the head of the kept
 * messages go too (with {@code keep-current-turn}, the count cut stops at the
 * last user message).</li>
 * </ul>
 * With both off it keeps exactly what {@code MessageWindowChatMemory} keeps: a new
 * system message replaces the stored ones, system messages always stay, and the
 * cut of the oldest non-system messages moves forward to a user message.
 */
public final class TurnKeepingWindowChatMemory implements ChatMemory {

	/** {@code MessageWindowChatMemory}'s default window. */
	public static final int DEFAULT_MAX_MESSAGES = 20;

	private final ChatMemoryRepository repository;

	private final int maxMessages;

	private final BooleanSupplier keepCurrentTurn;

	private final boolean evictOrphanResponses;

	public TurnKeepingWindowChatMemory(ChatMemoryRepository repository, int maxMessages, boolean keepCurrentTurn,
			boolean evictOrphanResponses) {
		this(repository, maxMessages, () -> keepCurrentTurn, evictOrphanResponses);
	}

	/**
	 * With {@code keep-current-turn} read at each {@code add}: the
	 * auto-configuration decides it once the memory advisor beans exist.
	 */
	public TurnKeepingWindowChatMemory(ChatMemoryRepository repository, int maxMessages,
			BooleanSupplier keepCurrentTurn, boolean evictOrphanResponses) {
		Assert.notNull(repository, "chatMemoryRepository cannot be null");
		Assert.isTrue(maxMessages > 0, "maxMessages must be greater than 0");
		this.repository = repository;
		this.maxMessages = maxMessages;
		this.keepCurrentTurn = keepCurrentTurn;
		this.evictOrphanResponses = evictOrphanResponses;
	}

	/**
	 * The window fixes of {@code fixes} that are on, by name
	 * ({@code keep-current-turn}, {@code evict-orphan-responses}; others are
	 * ignored).
	 */
	public TurnKeepingWindowChatMemory(ChatMemoryRepository repository, int maxMessages, FixSet fixes) {
		this(repository, maxMessages, fixes.has("keep-current-turn"), fixes.has("evict-orphan-responses"));
	}

	/** An in-memory window of {@link #DEFAULT_MAX_MESSAGES} with the given fixes. */
	public TurnKeepingWindowChatMemory(boolean keepCurrentTurn, boolean evictOrphanResponses) {
		this(new InMemoryChatMemoryRepository(), DEFAULT_MAX_MESSAGES, keepCurrentTurn, evictOrphanResponses);
	}

	@Override
	public void add(String conversationId, List<Message> messages) {
		Assert.hasText(conversationId, "conversationId cannot be null or empty");
		Assert.notNull(messages, "messages cannot be null");
		Assert.noNullElements(messages, "messages cannot contain null elements");
		List<Message> memory = this.repository.findByConversationId(conversationId);
		this.repository.saveAll(conversationId, process(memory, messages));
	}

	@Override
	public List<Message> get(String conversationId) {
		Assert.hasText(conversationId, "conversationId cannot be null or empty");
		return this.repository.findByConversationId(conversationId);
	}

	@Override
	public void clear(String conversationId) {
		Assert.hasText(conversationId, "conversationId cannot be null or empty");
		this.repository.deleteByConversationId(conversationId);
	}

	List<Message> process(List<Message> memory, List<Message> added) {
		Set<Message> stored = new HashSet<>(memory);
		boolean newSystem = added.stream().anyMatch(m -> m instanceof SystemMessage && !stored.contains(m));
		List<Message> all = new ArrayList<>();
		for (Message m : memory) {
			if (!(newSystem && m instanceof SystemMessage)) {
				all.add(m);
			}
		}
		all.addAll(added);
		if (all.size() <= this.maxMessages) {
			return all;
		}
		List<Integer> nonSystem = new ArrayList<>();
		for (int i = 0; i < all.size(); i++) {
			if (!(all.get(i) instanceof SystemMessage)) {
				nonSystem.add(i);
			}
		}
		int lastUser = -1;
		for (int k = nonSystem.size() - 1; k >= 0; k--) {
			if (all.get(nonSystem.get(k)).getMessageType() == MessageType.USER) {
				lastUser = k;
				break;
			}
		}
		int cut = all.size() - this.maxMessages;
		if (this.evictOrphanResponses) {
			cut = Math.min(cut, nonSystem.size());
			if (this.keepCurrentTurn.getAsBoolean() && lastUser >= 0) {
				cut = Math.min(cut, lastUser);
			}
			while (cut < nonSystem.size() && all.get(nonSystem.get(cut)) instanceof ToolResponseMessage) {
				cut++;
			}
		}
		else {
			while (cut < nonSystem.size() && all.get(nonSystem.get(cut)).getMessageType() != MessageType.USER) {
				cut++;
			}
			if (this.keepCurrentTurn.getAsBoolean() && cut >= nonSystem.size() && lastUser >= 0) {
				cut = lastUser;
			}
		}
		cut = Math.min(cut, nonSystem.size());
		Set<Integer> removed = new HashSet<>(nonSystem.subList(0, cut));
		List<Message> kept = new ArrayList<>();
		for (int i = 0; i < all.size(); i++) {
			if (!removed.contains(i)) {
				kept.add(all.get(i));
			}
		}
		return kept;
	}

}
