package io.github.toolcallmodel.fixes;

import java.util.List;

import com.google.genai.types.Content;
import com.google.genai.types.Part;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.google.genai.GeminiRequests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The switches {@code pr-6907-wrap-on-failure} and {@code pr-6049-strict-wrap}:
 * what the real {@code GoogleGenAiChatModel} sends once the advisor rewrote a
 * tool response, against what each pull request's {@code parseJsonToMap} makes
 * of it (docs/FIXES.md).
 */
class PullRequestConversionsTests {

	/** The {@code functionResponse.response} Spring's own conversion sends for {@code sent}. */
	static Object converted(String sent) {
		ToolResponseMessage m = ToolResponseMessage.builder()
			.responses(List.of(new ToolResponseMessage.ToolResponse("1", "x", sent)))
			.build();
		List<Content> contents = GeminiRequests.contents(List.of(new UserMessage("q"), call("{}"), m));
		return contents.get(2).parts().orElseThrow().get(0).functionResponse().orElseThrow().response().orElseThrow();
	}

	static AssistantMessage call(String arguments) {
		return AssistantMessage.builder()
			.content("")
			.toolCalls(List.of(new AssistantMessage.ToolCall("1", "function", "x", arguments)))
			.build();
	}

	static String pr6907(String data) {
		return GeminiToolResponses.rewrite(data, false, FixSet.of("pr-6907-wrap-on-failure"));
	}

	static String pr6049(String data) {
		return GeminiToolResponses.rewrite(data, false, FixSet.of("pr-6049-strict-wrap"));
	}

	@Test
	void pr6907WrapsOnlyWhatSpringsReaderRefuses() {
		assertEquals("{result=Sunny, 22 °C}", converted(pr6907("Sunny, 22 °C")).toString());
		assertEquals("{result=}", converted(pr6907("")).toString());
		// Half-JSON still reads as its first value: the pull request keeps the lenient reader.
		assertEquals("3.0 + 5.0 = 8.0", pr6907("3.0 + 5.0 = 8.0"));
		assertEquals("{result=3.0}", converted(pr6907("3.0 + 5.0 = 8.0")).toString());
		assertEquals("{a=1}", converted(pr6907("{\"a\":1} trailing")).toString());
		assertEquals("{result=[1, 2]}", converted(pr6907("[1,2]")).toString());
		assertEquals("{result=str}", converted(pr6907("\"str\"")).toString());
	}

	@Test
	void pr6049WrapsWhatIsNotOneWholeValue() {
		assertEquals("{result=3.0 + 5.0 = 8.0}", converted(pr6049("3.0 + 5.0 = 8.0")).toString());
		assertEquals("{result={\"a\":1} trailing}", converted(pr6049("{\"a\":1} trailing")).toString());
		assertEquals("{result=null pointer}", converted(pr6049("null pointer")).toString());
		assertEquals("{result=}", converted(pr6049("")).toString());
		assertEquals("{result=[1, 2]}", converted(pr6049("[1,2]")).toString());
		assertEquals("{result=str}", converted(pr6049("\"str\"")).toString());
		// A whole value is sent as Spring reads it: the decimal as a double.
		assertEquals("0.11623512015512211", pr6049("0.11623512015512211"));
		assertEquals("{result=0.1162351201551221}", converted(pr6049("0.11623512015512211")).toString());
		// Past Jackson's number limit the strict read fails too: the text.
		String digits = "1".repeat(1001);
		assertEquals("{result=" + digits + "}", converted(pr6049(digits)).toString());
	}

	@Test
	void strictJsonOrWrapTakesPrecedence() {
		for (String t : List.of("3.0 + 5.0 = 8.0", "", "[1,2]", "{\"a\":1} trailing")) {
			assertEquals(GeminiToolResponses.rewrite(t, false, FixSet.of("strict-json-or-wrap")),
					GeminiToolResponses.rewrite(t, false,
							FixSet.of("strict-json-or-wrap", "pr-6049-strict-wrap", "pr-6907-wrap-on-failure")));
		}
	}

	@Test
	void pr6049ChangesArgumentsAndPr6907DoesNot() {
		var pr6049 = new GeminiSafeToolResponseAdvisor(FixSet.of("pr-6049-strict-wrap"));
		var pr6907 = new GeminiSafeToolResponseAdvisor(FixSet.of("pr-6907-wrap-on-failure"));
		List<Message> prompt = List.of(new UserMessage("q"), call("{invalid json}"),
				ToolResponseMessage.builder()
					.responses(List.of(new ToolResponseMessage.ToolResponse("1", "x", "{\"t\":1}")))
					.build());
		List<Content> sent = GeminiRequests.contents(pr6049.rewrite(prompt));
		Part part = sent.get(1).parts().orElseThrow().get(0);
		assertEquals("{result={invalid json}}", part.functionCall().orElseThrow().args().orElseThrow().toString());
		assertEquals("{\"result\":null}", GeminiToolResponses.arguments(null, FixSet.of("pr-6049-strict-wrap")));
		List<Message> unchanged = pr6907.rewrite(prompt);
		assertSame(prompt, unchanged);
		RuntimeException e = assertThrows(RuntimeException.class, () -> GeminiRequests.contents(unchanged));
		assertEquals("Failed to parse JSON: {invalid json}", e.getMessage());
	}

}
