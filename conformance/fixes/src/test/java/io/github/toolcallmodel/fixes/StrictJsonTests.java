package io.github.toolcallmodel.fixes;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import tools.jackson.databind.util.RawValue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The strict reading of docs/JSON.md section C at its edges. */
class StrictJsonTests {

	static String nested(int depth) {
		return "[".repeat(depth) + "]".repeat(depth);
	}

	@Test
	void depthFiveHundredIsOneWholeValueAndFiveHundredOneIsNot() {
		assertTrue(StrictJson.isWholeValue(nested(500)));
		assertFalse(StrictJson.isWholeValue(nested(501)));
		assertTrue(StrictJson.isWholeObject("{\"a\":" + nested(499) + "}"));
		assertFalse(StrictJson.isWholeValue("{\"a\":" + nested(500) + "}"));
		// Unclosed past the limit is refused too, not read as a truncated value.
		assertFalse(StrictJson.isWholeValue("[".repeat(501)));
		// The refused text is sent verbatim under "result".
		assertEquals("{\"result\":\"" + nested(501) + "\"}", GeminiToolResponses.rewrite(nested(501), false,
				FixSet.of("strict-json-or-wrap")));
	}

	@Test
	void aRepeatedKeyKeepsItsFirstPositionAndTakesTheLastValue() {
		StrictJson.Parsed p = StrictJson.parse("{\"a\":1,\"b\":2,\"a\":{\"c\":3,\"c\":4}}");
		assertNotNull(p);
		Map<?, ?> m = assertInstanceOf(Map.class, p.value());
		assertEquals(List.of("a", "b"), List.copyOf(m.keySet()));
		Map<?, ?> inner = assertInstanceOf(Map.class, m.get("a"));
		assertEquals(new RawValue("4"), inner.get("c"));
		// A whole object is sent as it is: Spring's reader shapes the repeat the same way.
		assertEquals("{\"a\":1,\"a\":2}", GeminiToolResponses.rewrite("{\"a\":1,\"a\":2}", false,
				FixSet.of("strict-json-or-wrap")));
	}

	@Test
	void anEscapedLoneSurrogateIsRefusedAndAPairIsNot() {
		assertTrue(StrictJson.isWholeValue("\"\\ud83d\\ude00\""));
		assertEquals("\ud83d\ude00", StrictJson.parse("\"\\ud83d\\ude00\"").value());
		for (String lone : List.of("\"\\ud800\"", "\"\\udc00\"", "\"\\udc00\\ud800\"", "\"\\ud800a\"", "{\"\\ud800\":1}",
				"[\"x\",\"\\udfff\"]")) {
			assertNull(StrictJson.parse(lone), lone);
			assertEquals("{\"result\":" + tools.jackson.databind.json.JsonMapper.builder().build().writeValueAsString(lone)
					+ "}", GeminiToolResponses.rewrite(lone, false, FixSet.of("strict-json-or-wrap")), lone);
		}
	}

	@Test
	void onlyRfcWhitespaceSurroundsAWholeValue() {
		assertTrue(StrictJson.isWholeValue(" \t\r\n{} \n"));
		for (String t : List.of("\ufeff{}", "\u00a0{}", "{}\u000b", "\f1", "{}\u0000", "{} x", "1 2", "", " ")) {
			assertFalse(StrictJson.isWholeValue(t), () -> "not whole: " + t.codePoints().boxed().toList());
		}
	}

	@Test
	void noExtensionIsAcceptedAndNumbersStayAsWritten() {
		for (String t : List.of("01", "1.", ".5", "+1", "NaN", "Infinity", "'a'", "/*c*/1", "#c\n1", "[1,]", "{\"a\":1,}",
				"\"a\tb\"", "0x1F", "True")) {
			assertFalse(StrictJson.isWholeValue(t), t);
		}
		for (String n : List.of("-0", "1E310", "0.11623512015512211", "1".repeat(1001), "1e-400")) {
			assertEquals(new RawValue(n), StrictJson.parse(n).value(), n);
		}
		assertTrue(StrictJson.isWholeValue("null"));
		assertNull(StrictJson.parse("null").value());
		assertNull(StrictJson.parse(null));
	}

}
