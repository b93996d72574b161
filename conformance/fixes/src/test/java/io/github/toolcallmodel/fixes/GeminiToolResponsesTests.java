package io.github.toolcallmodel.fixes;

import java.util.List;

import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.google.genai.GeminiRequests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The fixed conversions, and what Spring's own conversion makes of the advisor's rewrite. */
class GeminiToolResponsesTests {

	static String strict(String data) {
		return GeminiToolResponses.rewrite(data, false, FixSet.of("strict-json-or-wrap"));
	}

	@Test
	void strictJsonOrWrapKeepsObjectsAndWrapsEverythingElse() {
		assertEquals("{\"a\":1}", strict("{\"a\":1}"));
		assertEquals("{\"result\":42}", strict("42"));
		assertEquals("{\"result\": [1, 2]}", strict(" [1, 2]"));
		assertEquals("{\"result\":\"Sunny, 22 °C\"}", strict("Sunny, 22 °C"));
		assertEquals("{\"result\":\"\"}", strict(""));
		assertEquals("{\"result\":\"3.0 + 5.0 = 8.0\"}", strict("3.0 + 5.0 = 8.0"));
		assertEquals("{\"result\":\"{\\\"a\\\":1} trailing\"}", strict("{\"a\":1} trailing"));
	}

	@Test
	void errorKeyTouchesOnlyMarkedResponses() {
		assertEquals("Sunny", GeminiToolResponses.rewrite("Sunny", false, FixSet.of("error-key")));
		assertEquals("{\"error\":\"Sunny\"}", GeminiToolResponses.rewrite("Sunny", true, FixSet.of("error-key")));
		assertEquals("{\"error\":\"42\"}", GeminiToolResponses.rewrite("42", true,
				FixSet.of("strict-json-or-wrap", "error-key")));
		assertEquals("{\"error\":\"x\"}", GeminiToolResponses.rewrite("{\"error\":\"x\"}", true,
				FixSet.of("error-key")));
	}

	@Test
	void springsConversionNeverFailsOnTheRewrite() {
		List<String> texts = List.of("", " ", "Sunny", "[ERROR] disk full", "3.0 + 5.0 = 8.0", "null", "\"q\"", "1e400",
				"0.11623512015512211", "{\"a\":1}", "{\"a\":1}}", "[1,", "\u0000", "\"\\ud800\"", "1".repeat(1001),
				"[".repeat(500) + "]".repeat(500), "{\"a\":" + "[".repeat(499) + "]".repeat(499) + "}");
		for (String t : texts) {
			for (boolean error : List.of(false, true)) {
				String sent = GeminiToolResponses.rewrite(t, error, FixSet.of("strict-json-or-wrap", "error-key"));
				ToolResponseMessage m = ToolResponseMessage.builder()
					.responses(List.of(new ToolResponseMessage.ToolResponse("1", "x", sent)))
					.build();
				List<Message> prompt = List.of(new UserMessage("q"), AssistantMessage.builder()
					.content("")
					.toolCalls(List.of(new AssistantMessage.ToolCall("1", "function", "x", "{}")))
					.build(), m);
				assertEquals(3, GeminiRequests.contents(prompt).size(), () -> "converts: " + sent);
			}
		}
	}

	@Test
	void valuesSpringsReaderRefusesAreSentAsText() {
		String digits = "1".repeat(1001);
		assertTrue(GeminiToolResponses.rewriteFallsBack(digits, false, FixSet.of("strict-json-or-wrap")));
		assertEquals("{\"result\":\"" + digits + "\"}", strict(digits));
		String deep = "[".repeat(500) + "]".repeat(500);
		assertTrue(GeminiToolResponses.rewriteFallsBack(deep, false, FixSet.of("strict-json-or-wrap")));
		assertFalse(GeminiToolResponses.rewriteFallsBack("[1]", false, FixSet.of("strict-json-or-wrap")));
		// The exact payload keeps the number as written.
		assertEquals(digits, String.valueOf(((tools.jackson.databind.util.RawValue) GeminiToolResponses
			.payload(digits, false, FixSet.of("strict-json-or-wrap"))
			.get("result")).rawValue()));
	}

	@Test
	void theAdvisorRewritesEveryToolMessageAndKeepsTheOriginals() {
		ToolResponseMessage old = ToolResponseMessage.builder()
			.responses(List.of(new ToolResponseMessage.ToolResponse("1", "x", "plain")))
			.build();
		ToolResponseMessage last = ToolResponseMessage.builder()
			.responses(List.of(new ToolResponseMessage.ToolResponse("2", "x", "{\"ok\":true}")))
			.build();
		UserMessage q = new UserMessage("q");
		var advisor = new GeminiSafeToolResponseAdvisor(FixSet.of("strict-json-or-wrap"));
		List<Message> sent = advisor.rewrite(List.of(q, old, last));
		assertSame(q, sent.get(0));
		assertSame(last, sent.get(2), "a JSON object is sent as it is");
		ToolResponseMessage fixed = (ToolResponseMessage) sent.get(1);
		assertEquals("{\"result\":\"plain\"}", fixed.getResponses().get(0).responseData());
		assertEquals("plain", GeminiSafeToolResponseAdvisor.originalData(fixed, 0));
		List<Message> clean = List.of(q, last);
		assertSame(clean, advisor.rewrite(clean), "nothing to rewrite: the same list");
	}

	@Test
	void aValue500DeepIsKeptWholeOnceWrapped501Deep() {
		String deep = "[".repeat(500) + "1" + "]".repeat(500);
		Object v = GeminiToolResponses.payload(deep, false, FixSet.of("strict-json-or-wrap")).get("result");
		int depth = 0;
		while (v instanceof List<?> l) {
			depth++;
			v = l.get(0);
		}
		assertEquals(500, depth);
		// The drop-in sends the text: Spring's reader refuses 501 levels.
		assertTrue(GeminiToolResponses.rewriteFallsBack(deep, false, FixSet.of("strict-json-or-wrap")));
	}

}
