package org.springframework.ai.google.genai;

import java.util.List;

import com.google.genai.Client;
import com.google.genai.types.Content;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.retry.RetryUtils;

/**
 * The tests' door into {@link GoogleGenAiChatModel}'s request building, which
 * is package-private: what Gemini would receive for a prompt, built by the real
 * class, with no client call (no network).
 */
public final class GeminiRequests {

	private static final GoogleGenAiChatOptions OPTIONS = GoogleGenAiChatOptions.builder()
		.model("gemini-2.5-flash")
		.build();

	private static final GoogleGenAiChatModel MODEL = new GoogleGenAiChatModel(
			Client.builder().apiKey("tests-no-network").vertexAI(false).build(), OPTIONS,
			ToolCallingManager.builder().build(), RetryUtils.DEFAULT_RETRY_TEMPLATE, ObservationRegistry.NOOP);

	private GeminiRequests() {
	}

	/** The contents of the request for {@code messages}; throws what the real conversion throws. */
	public static List<Content> contents(List<Message> messages) {
		return MODEL.createGeminiRequest(new Prompt(messages, OPTIONS)).contents();
	}

}
