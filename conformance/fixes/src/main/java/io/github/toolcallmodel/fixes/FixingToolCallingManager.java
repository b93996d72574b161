package io.github.toolcallmodel.fixes;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.Map;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage.ToolResponse;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallLimitBehavior;
import org.springframework.ai.model.tool.ToolCallLimitExceededException;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionResult;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.ai.tool.execution.ToolExecutionException;
import org.springframework.ai.tool.execution.ToolExecutionExceptionProcessor;
import org.springframework.ai.tool.resolution.ToolCallbackResolver;

/**
 * Spring AI 2.0.1's {@link org.springframework.ai.model.tool.DefaultToolCallingManager}
 * with the manager's fixes of {@code docs/FIXES.md}, by delegation: every call
 * still runs through Spring's manager, its limits, resolver and observations.
 *
 * <ul>
 * <li>{@code breach-through-processor}: a limit breach reaches the exception
 * processor as a {@link ToolExecutionException} for the called tool whose cause
 * is a {@link ToolCallLimitExceededException} (a {@link ToolCallLimitBreach})
 * carrying the breach text; the response (or, under {@code THROW}, the breach
 * response of the partial result and so {@code buildGeneration()}'s text) is
 * what the processor returns, and what it throws fails the batch. The breach is
 * processed before any later call of the batch runs, as if the manager did it
 * in place.</li>
 * <li>{@code close-dangling-calls}: under {@code THROW}, every call after the
 * breached one gets the response {@link #NOT_EXECUTED} (through the processor
 * with {@code breach-through-processor}); the exception is a
 * {@link ClosedBatchLimitExceededException}, whose {@code buildGeneration()}
 * still takes the breach response as text. The tool message that closes the
 * batch (after a breach, a {@code returnDirect} batch, or {@link #NOT_EXECUTED_FAILED}
 * for every call of a batch that failed) is handed to
 * {@link FixingToolCallingAdvisor}, which gives it to a memory inside the
 * loop.</li>
 * <li>{@code end-turn-after-breach}: under {@code RETURN_ERROR_RESPONSE}, a batch
 * with a breach in a turn that already had one (replayed from the current
 * turn's tool responses, as Spring counts them) is answered whole, then ends the
 * turn: a {@link ClosedBatchLimitExceededException} whose
 * {@code buildGeneration()} takes the batch's first breach response as text,
 * which {@code ToolCallingAdvisor} returns as it returns a breach under
 * {@code THROW}.</li>
 * <li>{@code unknown-tool-to-processor}: a call to a tool that does not
 * exist reaches the delegate's exception processor as a
 * {@link ToolExecutionException} whose cause is the manager's
 * {@code IllegalStateException} ({@link MissingTools}); the batch goes on with
 * the processor's text as the call's response.</li>
 * <li>Always: each response a failure produced (processor text, breach, closed
 * call) is marked with {@link ToolResponseMarks}, for {@code error-key}.</li>
 * </ul>
 *
 * <p>
 * To see which calls ran and which tools threw, the request's tool callbacks are
 * wrapped for the delegate; wrap the delegate's {@link ToolCallbackResolver}
 * with {@link #recordingResolver} so that tools it resolves are seen too (the
 * auto-configuration does).
 */
public final class FixingToolCallingManager extends DelegatingToolCallingManager {

	/** The response of a call after a breach, under {@code close-dangling-calls}. */
	public static final String NOT_EXECUTED = "Not executed: a tool call limit was exceeded earlier in this batch.";

	/** The response of every call of a batch that failed, under {@code close-dangling-calls}. */
	public static final String NOT_EXECUTED_FAILED = "Not executed: the batch of tool calls failed.";

	private final SpringLimits limits;

	private final ToolExecutionExceptionProcessor processor;

	private final boolean breachThroughProcessor;

	private final BooleanSupplier closeDanglingCalls;

	private final boolean endTurnAfterBreach;

	/** The delegate's lookup, under {@code unknown-tool-to-processor} (null: off). */
	private final MissingTools missingTools;

	/**
	 * Whether failures must be marked for {@code error-key}, read at each batch:
	 * always, unless the auto-configuration knows {@code error-key} is off.
	 */
	private BooleanSupplier marksWanted = () -> true;

	private static final Fix BREACH_THROUGH_PROCESSOR = Fix.named("breach-through-processor");

	private static final Fix CLOSE_DANGLING_CALLS = Fix.named("close-dangling-calls");

	private static final Fix END_TURN_AFTER_BREACH = Fix.named("end-turn-after-breach");

	private static final Fix UNKNOWN_TOOL_TO_PROCESSOR = Fix.named("unknown-tool-to-processor");

	/**
	 * The manager fixes of {@code fixes} around {@code delegate}, with the
	 * exception processor it was built with (read from it), so that a breach is
	 * processed exactly as the delegate processes a tool's failure.
	 * @param delegate Spring AI's {@code DefaultToolCallingManager}
	 * @param fixes the fixes that are on (those that do not change the manager are not read)
	 */
	public FixingToolCallingManager(ToolCallingManager delegate, FixSet fixes) {
		this(delegate, SpringLimits.processorOf(delegate), fixes);
	}

	/**
	 * The manager fixes of {@code fixes} around {@code delegate}.
	 * @param delegate Spring AI's {@code DefaultToolCallingManager}
	 * @param processor the exception processor the delegate was built with
	 * @param fixes the fixes that are on (those that do not change the manager are not read)
	 */
	public FixingToolCallingManager(ToolCallingManager delegate, ToolExecutionExceptionProcessor processor,
			FixSet fixes) {
		this(delegate, processor, fixes, () -> fixes.has(CLOSE_DANGLING_CALLS));
	}

	/**
	 * As above, with {@code close-dangling-calls} read at each batch: the
	 * auto-configuration decides it once the memory advisor beans exist.
	 * @param delegate Spring AI's {@code DefaultToolCallingManager}
	 * @param processor the exception processor the delegate was built with
	 * @param fixes the fixes that are on, {@code close-dangling-calls} aside
	 * @param closeDanglingCalls the fix {@code close-dangling-calls}, read at each batch
	 */
	FixingToolCallingManager(ToolCallingManager delegate, ToolExecutionExceptionProcessor processor, FixSet fixes,
			BooleanSupplier closeDanglingCalls) {
		super(delegate);
		this.endTurnAfterBreach = fixes.has(END_TURN_AFTER_BREACH);
		this.missingTools = fixes.has(UNKNOWN_TOOL_TO_PROCESSOR) ? MissingTools.of(delegate) : null;
		this.limits = SpringLimits.of(delegate);
		this.processor = processor;
		this.breachThroughProcessor = fixes.has(BREACH_THROUGH_PROCESSOR);
		this.closeDanglingCalls = closeDanglingCalls;
	}

	/** {@code resolver} with every tool it resolves reporting its invocations to this manager. */
	public static ToolCallbackResolver recordingResolver(ToolCallbackResolver resolver) {
		return Invocations.resolver(resolver);
	}

	/** Reads at each batch whether failures must be marked ({@code error-key} may be on). */
	FixingToolCallingManager marksWanted(BooleanSupplier marksWanted) {
		this.marksWanted = marksWanted;
		return this;
	}

	/**
	 * Whether this batch needs nothing of the wrapper: no fix of the manager's on,
	 * no mark wanted, and no calling loop that closes its dangling calls. Then
	 * Spring's manager runs it alone, as it would without the library.
	 */
	private boolean nothingToDo() {
		if (this.breachThroughProcessor || this.endTurnAfterBreach || this.missingTools != null
				|| this.closeDanglingCalls.getAsBoolean() || this.marksWanted.getAsBoolean()) {
			return false;
		}
		LoopHandoff.Slot slot = LoopHandoff.peek();
		return slot == null || !slot.closeDangling;
	}

	@Override
	public ToolExecutionResult executeToolCalls(Prompt prompt, ChatResponse chatResponse) {
		AssistantMessage assistant = null;
		if (prompt != null && chatResponse != null) {
			for (Generation g : chatResponse.getResults()) {
				if (!g.getOutput().getToolCalls().isEmpty()) {
					assistant = g.getOutput();
					break;
				}
			}
		}
		if (assistant == null || nothingToDo()) {
			// Nothing to fix: the delegate runs it, or refuses it, as Spring does.
			return getDelegate().executeToolCalls(prompt, chatResponse);
		}
		List<AssistantMessage.ToolCall> calls = assistant.getToolCalls();
		// Closing the calls alone needs neither the tools' invocations nor the
		// breaches replayed: they serve the processor, the marks and the turn's end.
		boolean light = !this.breachThroughProcessor && this.missingTools == null && !this.marksWanted.getAsBoolean();
		SpringLimits.Breach[] breaches = light && !this.endTurnAfterBreach ? new SpringLimits.Breach[calls.size()]
				: breaches(prompt.getInstructions(), calls);
		boolean endsTurn = this.endTurnAfterBreach
				&& this.limits.onLimitExceeded() == ToolCallLimitBehavior.RETURN_ERROR_RESPONSE
				&& breachedBefore(prompt.getInstructions());
		// The loop's slot is taken last, right before the try whose finally
		// puts it back: what can throw comes before it.
		Batch batch = new Batch(calls, breaches, LoopHandoff.suspend());
		batch.endsTurn = endsTurn;
		Invocations.Listener previous = Invocations.set(batch);
		try {
			ToolExecutionResult result;
			try {
				result = getDelegate().executeToolCalls(light ? prompt : withStandIns(recording(prompt), calls),
						chatResponse);
			}
			catch (ToolCallLimitExceededException ex) {
				if (ex instanceof ToolCallLimitBreach) {
					// The processor rethrew a breach's cause: the batch failed.
					throw ex;
				}
				ToolCallLimitExceededException fixed;
				try {
					fixed = limitExceeded(ex, batch, calls);
				}
				catch (Throwable e) {
					handOffFailed(batch);
					throw e;
				}
				throw new Fixed(fixed);
			}
			return finished(result, batch);
		}
		catch (Fixed f) {
			throw f.exception;
		}
		catch (ProcessorThrew p) {
			// The processor threw on a breach before a later call's tool ran: the batch failed.
			handOffFailed(batch);
			throw p.thrown;
		}
		catch (Throwable ex) {
			// Whatever leaves the batch, a checked exception a tool threw
			// undeclared included, fails it; but a breach before a call to a
			// tool that does not exist is processed first, as the manager
			// would have processed it before looking that tool up.
			try {
				batch.processBeforeMissingTool(ex);
			}
			catch (Throwable first) {
				handOffFailed(batch);
				throw first;
			}
			handOffFailed(batch);
			throw ex;
		}
		finally {
			Invocations.restore(previous);
			LoopHandoff.resume(batch.slot);
		}
	}

	/** Carries the fixed breach past the failure handler. */
	private static final class Fixed extends RuntimeException {

		private static final long serialVersionUID = 1L;

		final ToolCallLimitExceededException exception;

		Fixed(ToolCallLimitExceededException exception) {
			super(null, null, false, false);
			this.exception = exception;
		}

	}

	/**
	 * Carries a {@link ToolExecutionException} the processor threw on a breach
	 * processed just before a later call's tool runs out of that tool's call:
	 * the delegate would otherwise take it for the tool's own failure and
	 * process it again, as that call's response.
	 */
	private static final class ProcessorThrew extends RuntimeException {

		private static final long serialVersionUID = 1L;

		final ToolExecutionException thrown;

		ProcessorThrew(ToolExecutionException thrown) {
			super(null, null, false, false);
			this.thrown = thrown;
		}

	}

	/** The breach of each call, as the delegate will find it (null: no breach). */
	private SpringLimits.Breach[] breaches(List<Message> instructions, List<AssistantMessage.ToolCall> calls) {
		Map<String, Integer> counts = new HashMap<>(this.limits.countPriorToolCalls(instructions));
		int total = counts.values().stream().mapToInt(Integer::intValue).sum();
		boolean throwing = this.limits.onLimitExceeded() == ToolCallLimitBehavior.THROW;
		SpringLimits.Breach[] out = new SpringLimits.Breach[calls.size()];
		for (int i = 0; i < calls.size(); i++) {
			String name = calls.get(i).name();
			total++;
			int count = counts.merge(name, 1, Integer::sum);
			out[i] = this.limits.check(name, count, total);
			if (out[i] != null && throwing) {
				break;
			}
		}
		return out;
	}

	/**
	 * Whether a tool response of the current turn (from the last user message on,
	 * or all messages without one, as Spring counts) was a breach: the limit check
	 * replayed over them in order, each counting as the call it answers.
	 */
	private boolean breachedBefore(List<Message> instructions) {
		int start = 0;
		for (int i = instructions.size() - 1; i >= 0; i--) {
			if (instructions.get(i) instanceof UserMessage) {
				start = i;
				break;
			}
		}
		Map<String, Integer> counts = new HashMap<>();
		int total = 0;
		for (Message m : instructions.subList(start, instructions.size())) {
			if (m instanceof ToolResponseMessage tool) {
				for (ToolResponse r : tool.getResponses()) {
					total++;
					if (this.limits.check(r.name(), counts.merge(r.name(), 1, Integer::sum), total) != null) {
						return true;
					}
				}
			}
		}
		return false;
	}

	/** Under {@code unknown-tool-to-processor}: the prompt with a stand-in for each missing tool. */
	private Prompt withStandIns(Prompt prompt, List<AssistantMessage.ToolCall> calls) {
		if (this.missingTools == null || !(prompt.getOptions() instanceof ToolCallingChatOptions options)) {
			return prompt;
		}
		List<ToolCallback> callbacks = options.getToolCallbacks() == null ? List.of() : options.getToolCallbacks();
		List<ToolCallback> standIns = this.missingTools.standIns(callbacks, calls);
		if (standIns.isEmpty()) {
			return prompt;
		}
		List<ToolCallback> all = new ArrayList<>(callbacks);
		all.addAll(standIns);
		var b = ToolCallingChatOptions.builder().toolCallbacks(all);
		if (options.getToolContext() != null) {
			b.toolContext(options.getToolContext());
		}
		return new Prompt(prompt.getInstructions(), b.build());
	}

	/** The prompt with its tool callbacks reporting their invocations. */
	private static Prompt recording(Prompt prompt) {
		if (!(prompt.getOptions() instanceof ToolCallingChatOptions options) || options.getToolCallbacks() == null
				|| options.getToolCallbacks().isEmpty()) {
			return prompt;
		}
		// The manager reads the callbacks and the tool context of the options, nothing else.
		var b = ToolCallingChatOptions.builder().toolCallbacks(Invocations.recording(options.getToolCallbacks()));
		if (options.getToolContext() != null) {
			b.toolContext(options.getToolContext());
		}
		return new Prompt(prompt.getInstructions(), b.build());
	}

	/**
	 * A batch as it runs: the breaches found in advance, the texts the processor
	 * gave them, and which calls' tools threw.
	 */
	private final class Batch implements Invocations.Listener {

		final List<AssistantMessage.ToolCall> calls;

		final SpringLimits.Breach[] breaches;

		final String[] processed;

		final boolean[] threw;

		/** The next call not yet accounted for. */
		int next;

		/** The calling loop's hand-off slot, off the thread while the batch runs (null: none). */
		final LoopHandoff.Slot slot;

		/** The call whose tool is running. */
		int running = -1;

		/** Under {@code end-turn-after-breach}: the turn already had a breach, so one here ends it. */
		boolean endsTurn;

		/** The failures thrown by stand-ins of missing tools (never a missing tool of the manager's own). */
		final List<Throwable> standInCauses = new ArrayList<>();

		@Override
		public void missing(String name, Throwable cause) {
			this.standInCauses.add(cause);
			Invocations.Listener.super.missing(name, cause);
		}

		Batch(List<AssistantMessage.ToolCall> calls, SpringLimits.Breach[] breaches, LoopHandoff.Slot slot) {
			this.calls = calls;
			this.breaches = breaches;
			this.slot = slot;
			this.processed = new String[calls.size()];
			this.threw = new boolean[calls.size()];
		}

		@Override
		public void beforeInvoke(String name) {
			// The calls before the next one without a breach were breaches: they
			// are processed now, before this tool runs, as the manager would.
			while (this.next < this.calls.size() && this.breaches[this.next] != null) {
				try {
					process(this.next++);
				}
				catch (ToolExecutionException e) {
					throw new ProcessorThrew(e);
				}
			}
			this.running = this.next++;
		}

		@Override
		public void threw() {
			if (this.running >= 0 && this.running < this.threw.length) {
				this.threw[this.running] = true;
			}
		}

		/**
		 * When {@code failure} is the manager's refusal of the next call to run
		 * (no such tool), processes the breaches before that call.
		 */
		void processBeforeMissingTool(Throwable failure) {
			for (Throwable t : this.standInCauses) {
				if (t == failure) {
					// A stand-in's failure the processor rethrew: its breaches were processed before it ran.
					return;
				}
			}
			int k = this.next;
			while (k < this.calls.size() && this.breaches[k] != null) {
				k++;
			}
			if (k == this.next || k >= this.calls.size()) {
				return;
			}
			String name = this.calls.get(k).name();
			boolean missing = failure instanceof IllegalStateException
					&& ("No ToolCallback found for tool name: " + name).equals(failure.getMessage())
					|| failure instanceof IllegalArgumentException
							&& "toolName cannot be null or empty".equals(failure.getMessage());
			if (missing) {
				while (this.next < k) {
					process(this.next++);
				}
			}
		}

		/** Processes every breach not yet processed, up to and including call {@code last}. */
		void processUpTo(int last) {
			for (int i = 0; i <= last && i < this.calls.size(); i++) {
				if (this.breaches[i] != null && this.processed[i] == null) {
					process(i);
				}
			}
		}

		private void process(int i) {
			if (!FixingToolCallingManager.this.breachThroughProcessor || this.processed[i] != null) {
				return;
			}
			SpringLimits.Breach b = this.breaches[i];
			this.processed[i] = processBreach(this.calls.get(i).name(),
					new ToolCallLimitBreach(b.toolName(), b.limit(), b.message()));
		}

	}

	private String processBreach(String calledTool, ToolCallLimitBreach cause) {
		return this.processor.process(new ToolExecutionException(new CalledTool(calledTool), cause));
	}

	/** The definition the processor sees for a call that did not run: its name, even of no such tool. */
	private record CalledTool(String name, String description, String inputSchema) implements ToolDefinition {

		CalledTool(String name) {
			this(name, "", "{}");
		}

	}

	/** A batch the delegate finished: breach texts processed, failures marked. */
	private ToolExecutionResult finished(ToolExecutionResult result, Batch batch) {
		batch.processUpTo(batch.calls.size() - 1);
		List<Message> history = result.conversationHistory();
		if (history.isEmpty() || !(history.get(history.size() - 1) instanceof ToolResponseMessage tool)) {
			return result;
		}
		if (!this.breachThroughProcessor && !batch.endsTurn && !this.marksWanted.getAsBoolean()) {
			// Nothing to rewrite or mark: Spring's result as it is.
			if (result.returnDirect() && closes(batch)) {
				LoopHandoff.offer(batch.slot, tool);
			}
			return result;
		}
		List<ToolResponse> responses = new ArrayList<>(tool.getResponses());
		List<Boolean> marks = new ArrayList<>();
		for (int i = 0; i < responses.size(); i++) {
			boolean breach = i < batch.breaches.length && batch.breaches[i] != null;
			if (breach && batch.processed[i] != null) {
				ToolResponse r = responses.get(i);
				responses.set(i, new ToolResponse(r.id(), r.name(), batch.processed[i]));
			}
			marks.add(breach || (i < batch.threw.length && batch.threw[i]));
		}
		ToolResponseMessage marked = ToolResponseMarks
			.withMarks(ToolResponseMessage.builder().responses(responses).metadata(tool.getMetadata()).build(), marks);
		List<Message> out = new ArrayList<>(history);
		out.set(out.size() - 1, marked);
		ToolExecutionResult fixed = ToolExecutionResult.builder()
			.conversationHistory(out)
			.returnDirect(result.returnDirect())
			.build();
		if (batch.endsTurn) {
			for (int i = 0; i < batch.breaches.length; i++) {
				SpringLimits.Breach b = batch.breaches[i];
				if (b != null) {
					if (closes(batch)) {
						LoopHandoff.offer(batch.slot, marked);
					}
					throw new Fixed(new ClosedBatchLimitExceededException(b.toolName(), b.limit(), fixed, i));
				}
			}
		}
		if (fixed.returnDirect() && closes(batch)) {
			LoopHandoff.offer(batch.slot, marked);
		}
		return fixed;
	}

	/** The delegate stopped at a breach under {@code THROW}. */
	private ToolCallLimitExceededException limitExceeded(ToolCallLimitExceededException ex, Batch batch,
			List<AssistantMessage.ToolCall> calls) {
		List<Message> history = ex.getPartialToolExecutionResult().conversationHistory();
		if (history.isEmpty() || !(history.get(history.size() - 1) instanceof ToolResponseMessage tool)
				|| tool.getResponses().isEmpty()) {
			return ex;
		}
		List<ToolResponse> responses = new ArrayList<>(tool.getResponses());
		int breachIndex = responses.size() - 1;
		ToolResponse breach = responses.get(breachIndex);
		if (this.breachThroughProcessor) {
			String text = processBreach(breach.name(),
					new ToolCallLimitBreach(ex.getToolName(), ex.getLimit(), breach.responseData()));
			responses.set(breachIndex, new ToolResponse(breach.id(), breach.name(), text));
		}
		List<Boolean> marks = new ArrayList<>();
		for (int i = 0; i < responses.size(); i++) {
			marks.add(i == breachIndex || (i < batch.threw.length && batch.threw[i]));
		}
		if (closes(batch)) {
			for (int i = breachIndex + 1; i < calls.size(); i++) {
				AssistantMessage.ToolCall c = calls.get(i);
				String text = NOT_EXECUTED;
				if (this.breachThroughProcessor) {
					try {
						text = processBreach(c.name(), new ToolCallLimitBreach(ex.getToolName(), ex.getLimit(), NOT_EXECUTED));
					}
					catch (RuntimeException e) {
						// The processor accepted the breach itself; should it refuse these, the plain text stands.
						text = NOT_EXECUTED;
					}
				}
				responses.add(new ToolResponse(c.id(), c.name(), text));
				marks.add(true);
			}
		}
		ToolResponseMessage marked = ToolResponseMarks
			.withMarks(ToolResponseMessage.builder().responses(responses).metadata(tool.getMetadata()).build(), marks);
		List<Message> out = new ArrayList<>(history);
		out.set(out.size() - 1, marked);
		ToolExecutionResult partial = ToolExecutionResult.builder()
			.conversationHistory(out)
			.returnDirect(ex.getPartialToolExecutionResult().returnDirect())
			.build();
		if (closes(batch)) {
			LoopHandoff.offer(batch.slot, marked);
			return new ClosedBatchLimitExceededException(ex.getToolName(), ex.getLimit(), partial, breachIndex);
		}
		return new ToolCallLimitExceededException(ex.getToolName(), ex.getLimit(), partial);
	}

	/**
	 * {@code close-dangling-calls} for this batch: the switch, or the calling
	 * loop's decision from its request's advisor chain.
	 */
	private boolean closes(Batch batch) {
		return this.closeDanglingCalls.getAsBoolean() || (batch.slot != null && batch.slot.closeDangling);
	}

	private void handOffFailed(Batch batch) {
		if (!closes(batch)) {
			return;
		}
		List<ToolResponse> responses = new ArrayList<>();
		List<Boolean> marks = new ArrayList<>();
		for (AssistantMessage.ToolCall c : batch.calls) {
			responses.add(new ToolResponse(c.id(), c.name(), NOT_EXECUTED_FAILED));
			marks.add(true);
		}
		LoopHandoff.offer(batch.slot,
				ToolResponseMarks.withMarks(ToolResponseMessage.builder().responses(responses).build(), marks));
	}

}
