package io.github.toolcallmodel.fixes.boot3;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.model.ModelOptionsUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rewrite on Jackson 2, judged by the reader Spring AI 1.1.2's
 * {@code parseJsonToMap} uses ({@code ModelOptionsUtils.OBJECT_MAPPER}): every
 * text comes back as one JSON object that reader takes whole, holding the value
 * or the text verbatim ({@code docs/GEMINI.md}, "The fixed conversions").
 */
class GeminiToolResponsesTests {

	/** What 1.1.2's conversion builds from {@code text}: its reader, whole (trailing tokens refused). */
	static Object read(String text) throws Exception {
		return ModelOptionsUtils.OBJECT_MAPPER.reader()
			.with(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
			.readValue(text, Object.class);
	}

	@ParameterizedTest
	@CsvSource(delimiter = '|', quoteCharacter = '`', value = { "{\"a\":1}|{\"a\":1}", "[1,2]|{\"result\":[1,2]}",
			"\"str\"|{\"result\":\"str\"}", "42|{\"result\":42}", "null|{\"result\":null}",
			"  {\"a\":1}  |  {\"a\":1}  ", "Sunny, 22 °C|{\"result\":\"Sunny, 22 °C\"}",
			"3.0 + 5.0 = 8.0|{\"result\":\"3.0 + 5.0 = 8.0\"}", "{\"a\":1} trailing|{\"result\":\"{\\\"a\\\":1} trailing\"}",
			"null pointer|{\"result\":\"null pointer\"}", "``|{\"result\":\"\"}", "{\"a\":\"\\ud800\"}|{\"result\":\"{\\\"a\\\":\\\"\\\\ud800\\\"}\"}",
			"{\"a\":1,}|{\"result\":\"{\\\"a\\\":1,}\"}", "01|{\"result\":\"01\"}" })
	void eachTextIsSentAsOneJsonObject(String data, String sent) throws Exception {
		String out = GeminiToolResponses.rewrite(data);
		assertThat(out).isEqualTo(sent);
		assertThat(read(out)).isInstanceOf(Map.class);
	}

	@Test
	void nullStaysNull() {
		assertThat(GeminiToolResponses.rewrite((String) null)).isNull();
	}

	@Test
	void whatSpringsReaderWouldRefuseIsSentAsText() throws Exception {
		String digits = "1".repeat(1001);
		assertThat(read(GeminiToolResponses.rewrite(digits))).isEqualTo(Map.of("result", digits));
		String deep = "[".repeat(501) + "]".repeat(501);
		assertThat(read(GeminiToolResponses.rewrite(deep))).isEqualTo(Map.of("result", deep));
		String atLimit = "[".repeat(499) + "]".repeat(499);
		assertThat(GeminiToolResponses.rewrite(atLimit)).isEqualTo("{\"result\":" + atLimit + "}");
	}

	@Test
	void aTextLongerThanTheReadBudgetIsSentInPieces() throws Exception {
		String text = "x".repeat(GeminiToolResponses.MAX_READ_CHARS + 3);
		Object sent = read(GeminiToolResponses.rewrite(text));
		assertThat(sent).isEqualTo(
				Map.of("result", List.of("x".repeat(GeminiToolResponses.MAX_READ_CHARS), "xxx")));
	}

	@Test
	void aConversationKeepsItsOtherMessagesAndBlankArgumentsBecomeAnObject() {
		UserMessage user = new UserMessage("weather?");
		AssistantMessage call = AssistantMessage.builder()
			.content("")
			.toolCalls(List.of(new AssistantMessage.ToolCall("c1", "function", "x", "")))
			.build();
		ToolResponseMessage tool = ToolResponseMessage.builder()
			.responses(List.of(new ToolResponseMessage.ToolResponse("c1", "x", "Sunny")))
			.metadata(Map.of("k", "v"))
			.build();
		List<Message> out = GeminiToolResponses.rewrite(List.of(user, call, tool));
		assertThat(out.get(0)).isSameAs(user);
		assertThat(((AssistantMessage) out.get(1)).getToolCalls().get(0).arguments()).isEqualTo("{}");
		ToolResponseMessage sent = (ToolResponseMessage) out.get(2);
		assertThat(sent.getResponses().get(0).responseData()).isEqualTo("{\"result\":\"Sunny\"}");
		assertThat(sent.getMetadata()).containsEntry("k", "v");
		List<Message> again = List.of(user, out.get(2));
		assertThat(GeminiToolResponses.rewrite(again)).isSameAs(again);
	}

}
