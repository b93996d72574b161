package org.springframework.ai.google.genai;

import com.google.genai.Client;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.retry.RetryUtils;

/**
 * A real {@link GoogleGenAiChatModel} for the benches, built as the
 * conformance runner's bridge builds it: the request building it exposes
 * (package-private, hence this package) touches neither client nor network.
 */
final class BenchModel {

	static final GoogleGenAiChatOptions OPTIONS = GoogleGenAiChatOptions.builder().model("gemini-2.5-flash").build();

	static final GoogleGenAiChatModel MODEL = new GoogleGenAiChatModel(
			Client.builder().apiKey("bench-no-network").vertexAI(false).build(), OPTIONS,
			ToolCallingManager.builder().build(), RetryUtils.DEFAULT_RETRY_TEMPLATE, ObservationRegistry.NOOP);

	private BenchModel() {
	}

}
