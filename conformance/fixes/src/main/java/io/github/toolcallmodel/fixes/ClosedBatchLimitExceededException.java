package io.github.toolcallmodel.fixes;

import java.util.List;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.metadata.ChatGenerationMetadata;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.model.tool.ToolCallLimitExceededException;
import org.springframework.ai.model.tool.ToolExecutionResult;

/**
 * The limit breach of a batch that {@code close-dangling-calls} closed: the
 * partial result answers every call, the calls after the breached one with
 * {@link FixingToolCallingManager#NOT_EXECUTED}, so Spring's
 * {@code buildGeneration()}, which takes the last response as the breach text,
 * would take a closed call's. This one takes the breach response as the text
 * and the responses before it as {@code partialToolResponses}, as before the
 * fix.
 */
public final class ClosedBatchLimitExceededException extends ToolCallLimitExceededException {

	private static final long serialVersionUID = 1L;

	private final int breachIndex;

	public ClosedBatchLimitExceededException(String toolName, int limit, ToolExecutionResult partial,
			int breachIndex) {
		super(toolName, limit, partial);
		this.breachIndex = breachIndex;
	}

	@Override
	public Generation buildGeneration() {
		List<Message> history = getPartialToolExecutionResult().conversationHistory();
		if (history.isEmpty() || !(history.get(history.size() - 1) instanceof ToolResponseMessage tool)
				|| this.breachIndex >= tool.getResponses().size()) {
			return super.buildGeneration();
		}
		List<ToolResponseMessage.ToolResponse> responses = tool.getResponses();
		ChatGenerationMetadata metadata = ChatGenerationMetadata.builder()
			.finishReason(FINISH_REASON)
			.metadata(METADATA_PARTIAL_TOOL_RESPONSES, responses.subList(0, this.breachIndex))
			.build();
		return new Generation(new AssistantMessage(responses.get(this.breachIndex).responseData()), metadata);
	}

}
