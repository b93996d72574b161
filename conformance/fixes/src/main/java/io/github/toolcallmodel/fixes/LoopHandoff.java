package io.github.toolcallmodel.fixes;

import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.model.tool.internal.ToolCallReactiveContextHolder;

/**
 * The tool message that closes a batch, passed from
 * {@link FixingToolCallingManager} to {@link FixingToolCallingAdvisor}. On
 * {@code call()} the advisor calls the manager on its own thread, and the slot
 * is a thread-local one. On {@code stream()} Spring calls the manager on a
 * {@code boundedElastic} thread, with the stream's Reactor context in
 * {@link ToolCallReactiveContextHolder}; the advisor puts the slot in that
 * context under {@link #CONTEXT_KEY}. The advisor opens a slot for each loop;
 * outside one, nothing is kept.
 */
final class LoopHandoff {

	/** The key of a streamed loop's slot in its Reactor context. */
	static final String CONTEXT_KEY = LoopHandoff.class.getName();

	private static final ThreadLocal<ToolResponseMessage[]> SLOT = new ThreadLocal<>();

	/**
	 * The streamed loop's slot while one of its batches runs on this thread: a
	 * nested manager call made by a tool sees the same Reactor context, and must
	 * not offer into it.
	 */
	private static final ThreadLocal<ToolResponseMessage[]> STREAMED_BUSY = new ThreadLocal<>();

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
		if (slot != null) {
			return slot;
		}
		ToolResponseMessage[] streamed = ToolCallReactiveContextHolder.getContext().getOrDefault(CONTEXT_KEY, null);
		if (streamed == null || streamed == STREAMED_BUSY.get()) {
			return null;
		}
		STREAMED_BUSY.set(streamed);
		return streamed;
	}

	/** Puts back the slot {@link #suspend} returned. */
	static void resume(ToolResponseMessage[] slot) {
		if (slot != null && slot == STREAMED_BUSY.get()) {
			// A streamed loop's slot lives in its context, never on the thread.
			STREAMED_BUSY.remove();
			return;
		}
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
