package io.github.toolcallmodel.fixes;

import org.springframework.ai.chat.messages.ToolResponseMessage;

/**
 * The tool message that closes a batch, passed from
 * {@link FixingToolCallingManager} to {@link FixingToolCallingAdvisor} on the
 * thread that runs the loop (the advisor calls the manager on its own thread).
 * The advisor opens a slot for each loop; outside one, nothing is kept.
 */
final class LoopHandoff {

	private static final ThreadLocal<ToolResponseMessage[]> SLOT = new ThreadLocal<>();

	private LoopHandoff() {
	}

	static ToolResponseMessage[] open() {
		ToolResponseMessage[] previous = SLOT.get();
		SLOT.set(new ToolResponseMessage[1]);
		return previous;
	}

	static void offer(ToolResponseMessage message) {
		ToolResponseMessage[] slot = SLOT.get();
		if (slot != null) {
			slot[0] = message;
		}
	}

	/** The message offered since the last take, if any. */
	static ToolResponseMessage take() {
		ToolResponseMessage[] slot = SLOT.get();
		if (slot == null) {
			return null;
		}
		ToolResponseMessage m = slot[0];
		slot[0] = null;
		return m;
	}

	static void close(ToolResponseMessage[] previous) {
		if (previous == null) {
			SLOT.remove();
		}
		else {
			SLOT.set(previous);
		}
	}

}
