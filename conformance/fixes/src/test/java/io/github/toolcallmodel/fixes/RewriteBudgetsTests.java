package io.github.toolcallmodel.fixes;

import java.util.List;
import java.util.Map;

import com.google.genai.types.Content;
import com.google.genai.types.Part;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.google.genai.GeminiRequests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The budgets of the rewrite ({@code docs/FIXES.md}, "Budgets of the fix
 * library"), each at its limit and one past it, through Gemini's real request
 * building: the longest response read as JSON
 * ({@link GeminiToolResponses#MAX_READ_CHARS}, sent whole up to it and as text
 * in pieces past it) and the deepest value sent as a value
 * ({@link GeminiToolResponses#MAX_DEPTH}, sent as text past it). Past either,
 * the call goes through.
 */
class RewriteBudgetsTests {

	static final int MAX = GeminiToolResponses.MAX_READ_CHARS;

	/** The {@code functionResponse.response} Gemini's conversion builds for tool data {@code sent}. */
	static Map<String, Object> converted(String sent) {
		ToolResponseMessage m = ToolResponseMessage.builder()
			.responses(List.of(new ToolResponseMessage.ToolResponse("1", "x", sent)))
			.build();
		List<Message> prompt = List.of(new UserMessage("q"), AssistantMessage.builder()
			.content("")
			.toolCalls(List.of(new AssistantMessage.ToolCall("1", "function", "x", "{}")))
			.build(), m);
		List<Content> contents = GeminiRequests.contents(prompt);
		Part part = contents.get(2).parts().orElseThrow().get(0);
		return part.functionResponse().orElseThrow().response().orElseThrow();
	}

	static String strict(String data) {
		return GeminiToolResponses.rewrite(data, false, FixSet.of("strict-json-or-wrap"));
	}

	@Test
	void theLongestTextReadIsSentWholeAndOneCharacterMoreInPieces() {
		String atLimit = "a".repeat(MAX);
		assertFalse(GeminiToolResponses.rewriteFallsBack(atLimit, false, FixSet.of("strict-json-or-wrap")));
		Object whole = converted(strict(atLimit)).get("result");
		assertEquals(MAX, assertInstanceOf(String.class, whole).length());
		whole = null;

		String past = atLimit + "b";
		atLimit = null;
		assertTrue(GeminiToolResponses.rewriteFallsBack(past, false, FixSet.of("strict-json-or-wrap")));
		List<?> pieces = assertInstanceOf(List.class, converted(strict(past)).get("result"));
		assertEquals(2, pieces.size());
		assertEquals(MAX, ((String) pieces.get(0)).length());
		assertEquals("b", pieces.get(1));
	}

	@Test
	void aFailurePastTheBudgetIsSentInPiecesUnderError() {
		String past = "e".repeat(MAX) + "\uD83D\uDE00";
		List<?> pieces = assertInstanceOf(List.class,
				converted(GeminiToolResponses.rewrite(past, true,
						FixSet.of("strict-json-or-wrap", "error-key"))).get("error"));
		// The pair at the cut stays whole, in the second piece.
		assertEquals(List.of(MAX, 2), pieces.stream().map(p -> ((String) p).length()).toList());
	}

	@Test
	void aJsonStringAsLongAsTheBudgetIsReadAsAValue() {
		String text = "\"" + "s".repeat(MAX - 2) + "\"";
		assertEquals(MAX, text.length());
		Object v = converted(strict(text)).get("result");
		assertEquals(MAX - 2, assertInstanceOf(String.class, v).length());
	}

	@Test
	void thePullRequestsSendALongerTextInPiecesToo() {
		String past = "p".repeat(MAX + 1);
		for (String pr : List.of("pr-6049-strict-wrap", "pr-6907-wrap-on-failure")) {
			String sent = GeminiToolResponses.rewrite(past, false, FixSet.of(pr));
			assertEquals(2, assertInstanceOf(List.class, converted(sent).get("result")).size());
		}
	}

	static String nested(int objects) {
		return "{\"a\":".repeat(objects - 1) + "{}" + "}".repeat(objects - 1);
	}

	static int depth(Object v) {
		int d = 0;
		while (true) {
			if (v instanceof Map<?, ?> m && !m.isEmpty()) {
				v = m.values().iterator().next();
			}
			else if (v instanceof List<?> l && !l.isEmpty()) {
				v = l.get(0);
			}
			else {
				return d + (v instanceof Map<?, ?> || v instanceof List<?> ? 1 : 0);
			}
			d++;
		}
	}

	@Test
	void theDeepestObjectIsSentAsAValueAndOneDeeperAsText() {
		String atLimit = nested(GeminiToolResponses.MAX_DEPTH);
		assertEquals(GeminiToolResponses.MAX_DEPTH, depth(converted(strict(atLimit))));
		String past = nested(GeminiToolResponses.MAX_DEPTH + 1);
		assertEquals(Map.of("result", past), converted(strict(past)));
	}

	@Test
	void theDeepestOtherValueIsOneLessOnceWrapped() {
		int max = GeminiToolResponses.MAX_DEPTH - 1;
		String atLimit = "[".repeat(max) + "]".repeat(max);
		Map<String, Object> sent = converted(strict(atLimit));
		assertEquals(GeminiToolResponses.MAX_DEPTH, depth(sent));
		String past = "[".repeat(max + 1) + "]".repeat(max + 1);
		assertEquals(Map.of("result", past), converted(strict(past)));
		// Under error-key, a failure that is no object is text whatever its depth.
		assertEquals(Map.of("error", atLimit), converted(GeminiToolResponses.rewrite(atLimit, true,
				FixSet.of("error-key"))));
	}

}
