package io.github.toolcallmodel.fixes;

import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.UserMessage;

import static org.junit.jupiter.api.Assertions.assertEquals;

class AnsweredGenerationChatMemoryTests {

	@Test
	void ofAReplyWithToolCallsOnlyTheAnsweredGenerationIsStored() {
		var memory = new AnsweredGenerationChatMemory(MessageWindowChatMemory.builder().build());
		AssistantMessage text = new AssistantMessage("thinking");
		AssistantMessage first = TurnKeepingWindowChatMemoryTests.call("1");
		AssistantMessage second = TurnKeepingWindowChatMemoryTests.call("2");
		memory.add("c", new UserMessage("q"));
		memory.add("c", List.<Message>of(text, first, second));
		assertEquals(List.of(new UserMessage("q"), first), memory.get("c"));
		memory.add("c", List.<Message>of(new AssistantMessage("a"), new AssistantMessage("b")));
		assertEquals(4, memory.get("c").size(), "a reply without tool calls is stored whole");
	}

}
