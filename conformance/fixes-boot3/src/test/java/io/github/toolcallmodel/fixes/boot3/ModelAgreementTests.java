package io.github.toolcallmodel.fixes.boot3;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import org.springframework.ai.model.ModelOptionsUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Boot 3 library sends what the model's {@code strict-json-or-wrap} sends:
 * for each text, the payload Spring AI 1.1.2's reader builds from the library's
 * rewrite equals the one it builds from the model's payload
 * ({@code toolcall-model convert --jsonl --fixes strict-json-or-wrap}), or, where
 * the rewrite falls back to text (a value 1.1's reader refuses), the text under
 * {@code result}. Runs when {@code TOOLCALL_MODEL_BIN} names the built command
 * ({@code cargo test} sets it, tests/fix_library.rs); skipped otherwise.
 */
class ModelAgreementTests {

	static final String BIN = System.getenv("TOOLCALL_MODEL_BIN");

	static final ObjectMapper LINES = new ObjectMapper();

	/** How the model's answer line starts when it converted the text. */
	static final String OK = "{\"ok\":";

	/** Tool output of every kind the rewrite tells apart, the hostile ones among them. */
	static List<String> texts() {
		List<String> t = new ArrayList<>(List.of("{\"a\":1}", "[1,2]", "\"str\"", "42", "-0", "true", "null", "",
				" ", "\t\n", "Sunny, 22 °C", "Service unavailable", "3.0 + 5.0 = 8.0", "{\"a\":1} trailing",
				"{\"a\":1}}", "[1,2] 3", "\"a\" \"b\"", "null pointer", "0.11623512015512211", "1e400", "-1e400",
				"12345678901234567890123", "{\"a\":1,\"a\":2}", "{\"a\":{\"b\":1,\"b\":[2]}}", "{\"a\":\"\\u0000\"}",
				"{\"a\":\"\\ud800\"}", "{\"\\udc00\":1}", "{\"a\":\"\\ud83d\\ude00\"}", "{'a':1}", "{\"a\":NaN}",
				"01", "1.", ".5", "[1,]", "{\"a\":1,}", "\u00a0{}", "{\"emoji\":\"😀\"}", "{\"a\":1}\n"));
		t.add("1".repeat(1000));
		t.add("1".repeat(1001));
		t.add("[".repeat(499) + "]".repeat(499));
		t.add("[".repeat(500) + "]".repeat(500));
		t.add("{\"a\":".repeat(500) + "1" + "}".repeat(500));
		t.add("[".repeat(501) + "]".repeat(501));
		t.add("{\"" + "k".repeat(50_001) + "\":1}");
		return t;
	}

	@Test
	void theRewriteSendsWhatTheModelSends() throws Exception {
		Assumptions.assumeTrue(BIN != null && !BIN.isEmpty(), "TOOLCALL_MODEL_BIN is not set");
		List<String> texts = texts();
		Process model = new ProcessBuilder(BIN, "convert", "--jsonl", "--fixes", "strict-json-or-wrap")
			.redirectError(ProcessBuilder.Redirect.INHERIT)
			.start();
		try (OutputStream in = model.getOutputStream()) {
			for (String text : texts) {
				in.write(LINES.writeValueAsBytes(text));
				in.write('\n');
			}
		}
		List<String> answers;
		try (BufferedReader out = new BufferedReader(
				new InputStreamReader(model.getInputStream(), StandardCharsets.UTF_8))) {
			answers = out.lines().toList();
		}
		assertThat(model.waitFor()).isZero();
		assertThat(answers).hasSameSizeAs(texts);
		for (int i = 0; i < texts.size(); i++) {
			String text = texts.get(i);
			String answer = answers.get(i);
			assertThat(answer).as("the model converts %s", text).startsWith(OK).endsWith("}");
			Object sent = springRead(GeminiToolResponses.rewrite(text));
			// The payload as the model wrote it (read by Jackson 2 only where 1.1's reader takes it).
			Object expected = GeminiToolResponses.fallsBack(text) ? Map.of("result", text)
					: springRead(answer.substring(OK.length(), answer.length() - 1));
			assertThat(sent).as("the rewrite of %s", text).isEqualTo(expected);
		}
	}

	/** What 1.1.2's {@code parseJsonToMap} reads from {@code json}. */
	static Object springRead(String json) throws Exception {
		return ModelOptionsUtils.OBJECT_MAPPER.readValue(json, Object.class);
	}

}
