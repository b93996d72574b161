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

	/**
	 * One loop's slot: the closing message offered since the last take, and what
	 * the advisor decided for this request from its chain.
	 */
	static final class Slot {

		ToolResponseMessage closing;

		/** {@code close-dangling-calls} for this request: a memory advisor runs inside its loop. */
		final boolean closeDangling;

		/** The request path this loop belongs to ({@code null}: not reported). */
		final RequestPaths.Path path;

		Slot() {
			this(false, null);
		}

		Slot(boolean closeDangling, RequestPaths.Path path) {
			this.closeDangling = closeDangling;
			this.path = path;
		}

	}

	/** The key of a streamed loop's slot in its Reactor context. */
	static final String CONTEXT_KEY = LoopHandoff.class.getName();

	private static final ThreadLocal<Slot> SLOT = new ThreadLocal<>();

	/**
	 * The streamed loop's slot while one of its batches runs on this thread: a
	 * nested manager call made by a tool sees the same Reactor context, and must
	 * not offer into it.
	 */
	private static final ThreadLocal<Slot> STREAMED_BUSY = new ThreadLocal<>();

	private LoopHandoff() {
	}

	static Slot open() {
		return open(new Slot());
	}

	/** Puts {@code slot} on the thread for a loop; returns the one it hides. */
	static Slot open(Slot slot) {
		Slot previous = SLOT.get();
		SLOT.set(slot);
		return previous;
	}

	/** The slot of the calling loop, on this thread or in the streamed loop's context, without taking it. */
	static Slot peek() {
		Slot slot = SLOT.get();
		if (slot != null) {
			return slot;
		}
		return ToolCallReactiveContextHolder.getContext().getOrDefault(CONTEXT_KEY, null);
	}

	/** The slot of the loop running on this thread, if any ({@code call()}). */
	static Slot current() {
		return SLOT.get();
	}

	static void offer(ToolResponseMessage message) {
		offer(SLOT.get(), message);
	}

	/** Offers {@code message} to {@code slot} (one {@link #suspend} returned); nothing when it is null. */
	static void offer(Slot slot, ToolResponseMessage message) {
		if (slot != null) {
			slot.closing = message;
		}
	}

	/**
	 * Takes the loop's slot off the thread while a batch runs, so that what its
	 * tools do (a nested call whose batch fails or returns directly through a
	 * manager that offers) cannot offer into the loop that called them; the
	 * batch offers to the slot returned.
	 */
	static Slot suspend() {
		Slot slot = SLOT.get();
		SLOT.remove();
		if (slot != null) {
			return slot;
		}
		Slot streamed = ToolCallReactiveContextHolder.getContext().getOrDefault(CONTEXT_KEY, null);
		if (streamed == null || streamed == STREAMED_BUSY.get()) {
			return null;
		}
		STREAMED_BUSY.set(streamed);
		return streamed;
	}

	/** Puts back the slot {@link #suspend} returned. */
	static void resume(Slot slot) {
		if (slot != null && slot == STREAMED_BUSY.get()) {
			// A streamed loop's slot lives in its context, never on the thread.
			STREAMED_BUSY.remove();
			return;
		}
		close(slot);
	}

	/** The message offered since the last take, if any. */
	static ToolResponseMessage take() {
		Slot slot = SLOT.get();
		if (slot == null) {
			return null;
		}
		ToolResponseMessage m = slot.closing;
		slot.closing = null;
		return m;
	}

	static void close(Slot previous) {
		if (previous == null) {
			SLOT.remove();
		}
		else {
			SLOT.set(previous);
		}
	}

}
