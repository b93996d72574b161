package toolcallmodel.conformance;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.InMemoryChatMemoryRepository;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.model.tool.ToolCallingManager;

/**
 * The memory a tool loop op asks for ({@code /input/memory},
 * {@code memory_max_messages}, {@code memory_start}), and the manager and the
 * memory built for it: the same on every version, whichever loop runs them
 * ({@link LoopOp} on 2.0, {@code ChatModelLoop} on 1.1).
 */
final class LoopMemory {

	/** {@code none}, {@code inside} or {@code outside} the tool loop. */
	final String where;

	/** The window's size; {@code null}: Spring's default. */
	private final Integer maxMessages;

	/** What the repository holds before the turn. */
	private final List<Message> start;

	/** The manager and the memory of a turn; {@code memory} is {@code null} without one. */
	record Built(ToolCallingManager manager, ChatMemory memory) {
	}

	private LoopMemory(String where, Integer maxMessages, List<Message> start) {
		this.where = where;
		this.maxMessages = maxMessages;
		this.start = start;
	}

	/** {@code /input/memory}: {@code none} when absent. */
	static String where(Map<String, Object> input) {
		String memory = input.get("memory") == null ? "none" : Json.str(input.get("memory"), "/input/memory");
		if (!List.of("none", "inside", "outside").contains(memory)) {
			throw new Json.Fault("/input/memory: unknown memory '" + memory + "' (known: none, inside, outside)");
		}
		return memory;
	}

	/**
	 * The memory of {@code input} at {@code where} ({@link #where}), its
	 * starting messages read by {@code messages} (the loop's reader of a list
	 * of messages at a path).
	 */
	static LoopMemory read(Map<String, Object> input, String where,
			BiFunction<Object, String, List<Message>> messages) {
		Integer maxMessages = null;
		List<Message> start = List.of();
		if (input.get("memory_max_messages") != null) {
			maxMessages = Json.javaInt(input.get("memory_max_messages"), "/input/memory_max_messages");
		}
		if (input.get("memory_start") != null) {
			start = messages.apply(input.get("memory_start"), "/input/memory_start");
		}
		if (where.equals("none")) {
			for (String k : List.of("memory_max_messages", "memory_start")) {
				if (input.get(k) != null) {
					throw new Json.Fault("/input/" + k + ": needs a memory (\"memory\": \"inside\" or \"outside\")");
				}
			}
		}
		return new LoopMemory(where, maxMessages, start);
	}

	/**
	 * The manager through its builder, then the memory through its own,
	 * holding the starting messages under {@code conversationId}. A
	 * configuration either refuses is the op's error, as the model prints it:
	 * then {@code null}, and {@code out} holds the error and the invocations.
	 */
	Built build(Scenario s, String conversationId, Map<String, Object> out) {
		ToolCallingManager manager;
		InMemoryChatMemoryRepository repository = new InMemoryChatMemoryRepository();
		ChatMemory chatMemory = null;
		try {
			manager = s.buildManager();
			if (!this.where.equals("none")) {
				chatMemory = Upstream.memory(repository, this.maxMessages, s.fixes);
			}
		}
		catch (Json.Fault | Json.OutOfScope e) {
			throw e;
		}
		catch (RuntimeException e) {
			out.put("error", Scenario.printError(e));
			out.put("invocations", s.invocations);
			return null;
		}
		if (!this.start.isEmpty()) {
			// Stored as is, before the turn.
			repository.saveAll(conversationId, new ArrayList<>(this.start));
		}
		return new Built(manager, chatMemory);
	}

}
