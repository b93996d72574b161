package io.github.toolcallmodel.fixes;

import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.memory.InMemoryChatMemoryRepository;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The window fixes, against Spring's own window where they change nothing. */
class TurnKeepingWindowChatMemoryTests {

	static AssistantMessage call(String id) {
		return AssistantMessage.builder()
			.content("")
			.toolCalls(List.of(new AssistantMessage.ToolCall(id, "function", "x", "{}")))
			.build();
	}

	static ToolResponseMessage resp(String id) {
		return ToolResponseMessage.builder()
			.responses(List.of(new ToolResponseMessage.ToolResponse(id, "x", "1")))
			.build();
	}

	static List<Message> store(boolean keep, boolean evict, int max, List<List<Message>> adds) {
		var m = new TurnKeepingWindowChatMemory(new InMemoryChatMemoryRepository(), max, keep, evict);
		for (List<Message> a : adds) {
			m.add("c", a);
		}
		return m.get("c");
	}

	static List<Message> spring(int max, List<List<Message>> adds) {
		var m = MessageWindowChatMemory.builder().maxMessages(max).build();
		for (List<Message> a : adds) {
			m.add("c", a);
		}
		return m.get("c");
	}

	@Test
	void aTurnLongerThanTheWindow() {
		UserMessage q = new UserMessage("q");
		List<List<Message>> adds = List.of(List.of(q), List.of(call("1")), List.of(resp("1")), List.of(call("2")),
				List.of(resp("2")));
		assertTrue(spring(4, adds).isEmpty(), "upstream wipes the turn");
		assertTrue(store(false, false, 4, adds).isEmpty(), "both off: as upstream");
		assertEquals(5, store(true, false, 4, adds).size(), "keep-current-turn keeps it whole");
		assertEquals(List.of(call("1"), resp("1"), call("2"), resp("2")), store(false, true, 4, adds));
	}

	@Test
	void bothOffKeepsWhatSpringsWindowKeeps() {
		List<List<Message>> adds = List.of(List.of(new SystemMessage("s")), List.of(new UserMessage("u1")),
				List.of(new AssistantMessage("a1")), List.of(new UserMessage("u2")), List.of(call("1")),
				List.of(resp("1")), List.of(new AssistantMessage("a2"), new AssistantMessage("a3")),
				List.of(new SystemMessage("s2")), List.of(new UserMessage("u3")));
		for (int max = 1; max <= 9; max++) {
			assertEquals(spring(max, adds), store(false, false, max, adds), "window " + max);
		}
	}

	@Test
	void keepCurrentTurnEvictsEarlierTurnsWhole() {
		List<List<Message>> adds = List.of(List.of(new UserMessage("old")), List.of(new AssistantMessage("a")),
				List.of(new UserMessage("q")), List.of(call("1")), List.of(resp("1")), List.of(call("2")));
		List<Message> kept = store(true, false, 3, adds);
		assertEquals(new UserMessage("q"), kept.get(0));
		assertEquals(4, kept.size());
	}

}
