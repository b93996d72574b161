package toolcallmodel.conformance;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage.ToolResponse;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.util.JsonHelper;
import org.springframework.core.Ordered;

/**
 * The workaround advisor of seed 000 ({@code advisors: ["gemini-tool-text"]}),
 * written from the seed's description: a call advisor inside the tool loop
 * (order {@code HIGHEST_PRECEDENCE + 350}, between ToolCallingAdvisor and a
 * memory inside the loop) that, when the request's last message is a tool
 * message, rewrites each response whose data its test does not take for JSON
 * (empty, or not starting with {@code {}, {@code [} or {@code "}) into
 * {@code {"error": DATA}} with Spring's {@link JsonHelper}, keeping the
 * message's metadata. The seed's code is Java 21 ({@code getLast()}, a type
 * switch); this is the same logic in Java 17, {@code getLast()}'s
 * {@link NoSuchElementException} on an empty request included.
 */
final class GeminiToolTextAdvisor implements CallAdvisor {

	private static final JsonHelper JSON = new JsonHelper();

	@Override
	public String getName() {
		return "GeminiToolTextAdvisor";
	}

	@Override
	public int getOrder() {
		return Ordered.HIGHEST_PRECEDENCE + 350;
	}

	@Override
	public ChatClientResponse adviseCall(ChatClientRequest request, CallAdvisorChain chain) {
		List<Message> messages = request.prompt().getInstructions();
		if (messages.isEmpty()) {
			throw new NoSuchElementException();
		}
		if (messages.get(messages.size() - 1) instanceof ToolResponseMessage tool) {
			List<ToolResponse> responses = tool.getResponses().stream().map(GeminiToolTextAdvisor::mkJsonResponse).toList();
			ToolResponseMessage fixed = ToolResponseMessage.builder()
				.responses(responses)
				.metadata(tool.getMetadata())
				.build();
			List<Message> all = new ArrayList<>(messages);
			all.set(all.size() - 1, fixed);
			Prompt prompt = request.prompt().mutate().messages(all).build();
			return chain.nextCall(request.mutate().prompt(prompt).build());
		}
		return chain.nextCall(request);
	}

	private static ToolResponse mkJsonResponse(ToolResponse r) {
		return isJson(r.responseData()) ? r
				: new ToolResponse(r.id(), r.name(), JSON.toJson(Map.of("error", r.responseData())));
	}

	private static boolean isJson(String text) {
		return !text.isEmpty() && "{[\"".indexOf(text.charAt(0)) >= 0;
	}

}
