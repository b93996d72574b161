package toolcallmodel.conformance;

import java.util.ArrayList;
import java.util.List;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.ToolCallingAdvisor;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionResult;

/**
 * An application's {@link ToolCallingAdvisor} that appends a feedback user
 * message to the next instructions after every tool round, through the hooks
 * ToolCallingAdvisor offers for it ({@code doGetNextInstructionsForToolCall}
 * and its streaming twin), as spring-ai issue 6842 describes.
 */
final class FeedbackToolCallingAdvisor extends ToolCallingAdvisor {

	/** The text of the message appended after each tool round. */
	static final String FEEDBACK = "tool feedback";

	FeedbackToolCallingAdvisor(ToolCallingManager manager, boolean conversationHistory) {
		super(manager, DEFAULT_TOOL_EXECUTION_ELIGIBILITY_CHECKER, DEFAULT_ORDER, conversationHistory);
	}

	@Override
	protected List<Message> doGetNextInstructionsForToolCall(ChatClientRequest request, ChatClientResponse response,
			ToolExecutionResult result) {
		return withFeedback(super.doGetNextInstructionsForToolCall(request, response, result));
	}

	@Override
	protected List<Message> doGetNextInstructionsForToolCallStream(ChatClientRequest request,
			ChatClientResponse response, ToolExecutionResult result) {
		return withFeedback(super.doGetNextInstructionsForToolCallStream(request, response, result));
	}

	private static List<Message> withFeedback(List<Message> next) {
		List<Message> out = new ArrayList<>(next);
		out.add(new UserMessage(FEEDBACK));
		return out;
	}

}
