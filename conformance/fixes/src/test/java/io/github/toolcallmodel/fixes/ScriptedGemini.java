package io.github.toolcallmodel.fixes;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.google.genai.types.Content;
import com.google.genai.types.Part;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.google.genai.GeminiRequests;
import org.springframework.ai.model.tool.ToolCallingChatOptions;

import reactor.core.publisher.Flux;

/**
 * A chat model for tests: each call converts the prompt with Gemini's real
 * request building (so a tool response Gemini's conversion refuses fails the
 * call, as {@code GoogleGenAiChatModel.call} fails), records the function
 * responses sent, and answers with the next scripted reply. No network.
 */
class ScriptedGemini implements ChatModel {

	private final List<AssistantMessage> replies;

	/** Per model call, the function responses sent: name and payload. */
	final List<List<Map<String, Object>>> sent = new ArrayList<>();

	private int calls;

	ScriptedGemini(AssistantMessage... replies) {
		this.replies = List.of(replies);
	}

	@Override
	public ChatOptions getOptions() {
		return ToolCallingChatOptions.builder().build();
	}

	@Override
	public ChatResponse call(Prompt prompt) {
		List<Content> contents = GeminiRequests.contents(prompt.getInstructions());
		List<Map<String, Object>> responses = new ArrayList<>();
		for (Content c : contents) {
			for (Part p : c.parts().orElse(List.of())) {
				p.functionResponse().ifPresent(fr -> responses.add(Map.of("name", fr.name().orElse(""), "response",
						fr.response().orElse(Map.of()))));
			}
		}
		this.sent.add(responses);
		return new ChatResponse(List.of(new Generation(this.replies.get(this.calls++))));
	}

	/** As {@link #call}, one response per model call, for {@code ChatClient.stream()}. */
	@Override
	public Flux<ChatResponse> stream(Prompt prompt) {
		return Flux.defer(() -> Flux.just(call(prompt)));
	}

	/** A reply calling {@code tool} with the ids given. */
	static AssistantMessage calls(String tool, String... ids) {
		List<AssistantMessage.ToolCall> calls = new ArrayList<>();
		for (String id : ids) {
			calls.add(new AssistantMessage.ToolCall(id, "function", tool, "{}"));
		}
		return AssistantMessage.builder().content("").toolCalls(calls).build();
	}

	static AssistantMessage text(String text) {
		return new AssistantMessage(text);
	}

}
