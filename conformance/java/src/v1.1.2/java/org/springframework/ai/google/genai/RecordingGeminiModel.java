package org.springframework.ai.google.genai;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import com.google.genai.Client;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.retry.RetryUtils;

/**
 * The real {@link GoogleGenAiChatModel} of Spring AI 1.1.2, which records
 * each request its package-private {@code createGeminiRequest} builds (as
 * {@link GeminiBridge} prints a request) and hands it on unchanged: the
 * vectors' {@code requests} are what the chat model sends, before the
 * google-genai client serializes it (which, for one, leaves out the null
 * values of a tool response's map). A request whose conversion throws is
 * not recorded, as it is never sent.
 */
public final class RecordingGeminiModel extends GoogleGenAiChatModel {

	/** The requests built, in order. */
	public final List<Map<String, Object>> requests = new CopyOnWriteArrayList<>();

	public RecordingGeminiModel(Client client, ToolCallingManager manager) {
		super(client, GoogleGenAiChatOptions.builder().model("gemini-2.5-flash").build(), manager,
				RetryUtils.DEFAULT_RETRY_TEMPLATE, ObservationRegistry.NOOP);
	}

	@Override
	GeminiRequest createGeminiRequest(Prompt prompt) {
		GeminiRequest r = super.createGeminiRequest(prompt);
		this.requests.add(GeminiBridge.printed(r.config().systemInstruction().orElse(null), r.contents()));
		return r;
	}

}
