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
		offer(SLOT.get(), message);
	}

	/** Offers {@code message} to {@code slot} (one {@link #suspend} returned); nothing when it is null. */
	static void offer(ToolResponseMessage[] slot, ToolResponseMessage message) {
		if (slot != null) {
			slot[0] = message;
		}
	}

	/**
	 * Takes the loop's slot off the thread while a batch runs, so that what its
	 * tools do (a nested call whose batch fails or returns directly through a
	 * manager that offers) cannot offer into the loop that called them; the
	 * batch offers to the slot returned.
	 */
	static ToolResponseMessage[] suspend() {
		ToolResponseMessage[] slot = SLOT.get();
		SLOT.remove();
		return slot;
	}

	/** Puts back the slot {@link #suspend} returned. */
	static void resume(ToolResponseMessage[] slot) {
		close(slot);
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
