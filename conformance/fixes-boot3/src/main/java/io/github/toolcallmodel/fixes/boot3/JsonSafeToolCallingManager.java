package io.github.toolcallmodel.fixes.boot3;

import java.util.List;

import io.github.toolcallmodel.fixes.DelegatingToolCallingManager;

import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionResult;

/**
 * {@code strict-json-or-wrap} inside Spring AI 1.1's tool loop, which runs in the
 * chat model itself: {@code GoogleGenAiChatModel.internalCall} and
 * {@code internalStream} call {@link #executeToolCalls} and send its
 * conversation history straight back to Gemini, past any advisor or proxy. This
 * manager, around the application's, returns that history with every tool
 * response made JSON-safe ({@link GeminiToolResponses#rewrite(List)}), so that
 * {@code parseJsonToMap} takes a plain-text tool, a pass-through callback and the
 * exception processor's plain message.
 *
 * <p>
 * Only what goes back to Gemini changes: a {@code returnDirect} result, which
 * the model hands to the caller as it is, is left alone, and so is a result for
 * any caller but Google GenAI's model (an application that runs the loop itself
 * keeps its tools' own text; its next {@code chatModel.call} is rewritten by
 * {@link GeminiSafeChatModel}) unless {@code everyCaller} is set.
 */
public final class JsonSafeToolCallingManager extends DelegatingToolCallingManager {

	private static final String GEMINI_PACKAGE = "org.springframework.ai.google.genai.";

	/** Frames looked at for Google GenAI's model: it and its own manager wrapper call this one. */
	private static final int CALLER_FRAMES = 16;

	private final boolean everyCaller;

	/**
	 * {@code delegate}'s results rewritten when Google GenAI's chat model asks
	 * for them, or for every caller when {@code everyCaller} is set.
	 */
	public JsonSafeToolCallingManager(ToolCallingManager delegate, boolean everyCaller) {
		super(delegate);
		this.everyCaller = everyCaller;
	}

	@Override
	public ToolExecutionResult executeToolCalls(Prompt prompt, ChatResponse chatResponse) {
		ToolExecutionResult result = getDelegate().executeToolCalls(prompt, chatResponse);
		if (result.returnDirect() || !this.everyCaller && !calledByGemini()) {
			return result;
		}
		List<Message> history = result.conversationHistory();
		List<Message> rewritten = GeminiToolResponses.rewrite(history);
		return rewritten == history ? result
				: ToolExecutionResult.builder().conversationHistory(rewritten).returnDirect(false).build();
	}

	private static boolean calledByGemini() {
		return StackWalker.getInstance()
			.walk(frames -> frames.skip(2)
				.limit(CALLER_FRAMES)
				.anyMatch(f -> f.getClassName().startsWith(GEMINI_PACKAGE)));
	}

}
