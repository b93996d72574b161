package io.github.toolcallmodel.fixes;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The switches of the fixes, one per fix of {@code docs/FIXES.md}, all off by
 * default: {@code toolcall.fixes.<fix-name>=true}.
 */
@ConfigurationProperties(prefix = ToolCallFixesProperties.PREFIX)
public class ToolCallFixesProperties {

	/** The prefix of every property of the fixes. */
	public static final String PREFIX = "toolcall.fixes";

	/**
	 * Send a tool call limit breach through the ToolExecutionExceptionProcessor, as
	 * any tool failure is (closes issue 6902 for a JSON-error processor). Wraps
	 * Spring AI's ToolCallingManager bean.
	 */
	private boolean breachThroughProcessor;

	/**
	 * Send every tool response to Gemini as a JSON object: an object as is, any
	 * other JSON value or any other text wrapped as {"result": ...} (closes issue
	 * 6902 whatever the processor, and issue 5437). Adds an advisor to every
	 * ChatClient built from the auto-configured builder; for Gemini only.
	 */
	private boolean strictJsonOrWrap;

	/**
	 * Send a response produced by a failure (processor text, breach, closed call)
	 * to Gemini as the whole JSON object it is, or verbatim as {"error": TEXT}.
	 * Adds the same advisor and wraps the ToolCallingManager bean to mark failures.
	 */
	private boolean errorKey;

	/**
	 * Answer every call of a batch that stops (a breach under THROW, a batch that
	 * fails, a returnDirect batch) and hand that answer to a memory inside the
	 * tool loop, so that no call is left without a response. Wraps the
	 * ToolCallingManager bean and registers its own ToolCallingAdvisor builder.
	 */
	private boolean closeDanglingCalls;

	/**
	 * Of a model reply with tool calls, store only the generation the manager
	 * answers. Wraps the ChatMemory bean.
	 */
	private boolean storeAnsweredGeneration;

	/**
	 * Never let the message window cut the current turn: when it alone is longer
	 * than the window, it stays whole until the next user message. Replaces the
	 * ChatMemory bean with a window of memory-max-messages.
	 */
	private boolean keepCurrentTurn;

	/**
	 * Cut the message window at the plain count and drop the tool messages left
	 * at its head (spring-ai PR 6029, for comparison). Replaces the ChatMemory
	 * bean with a window of memory-max-messages.
	 */
	private boolean evictOrphanResponses;

	/**
	 * spring-ai PR 6907, for comparison: send a tool response Spring's reader
	 * refuses to Gemini verbatim as {"result": TEXT}; everything else is converted
	 * as upstream (half-JSON still cut to its first value). Adds the advisor of
	 * strict-json-or-wrap, which takes precedence.
	 */
	private boolean pr6907WrapOnFailure;

	/**
	 * spring-ai PR 6049, for comparison: send a tool response, and function-call
	 * arguments, that Spring's reader does not take as one whole value (trailing
	 * tokens refused) to Gemini verbatim as {"result": TEXT}. Adds the advisor of
	 * strict-json-or-wrap, which takes precedence.
	 */
	private boolean pr6049StrictWrap;

	/**
	 * Make the ToolExecutionExceptionProcessor bean write every tool failure as
	 * {"error": MESSAGE}, on Spring's decisions (spring.ai.tools.throw-exception-on-error
	 * included). Not a fix of its own: with breach-through-processor it makes every
	 * text the manager writes JSON. An application's own processor bean wins.
	 */
	private boolean jsonErrorProcessor;

	/**
	 * Under RETURN_ERROR_RESPONSE, end the turn at the second batch with a limit
	 * breach, as THROW ends it at the first, so that a model that keeps calling a
	 * tool past its limit cannot keep the turn running for ever (issues 3333,
	 * 5754, 6462). Wraps the ToolCallingManager bean.
	 */
	private boolean endTurnAfterBreach;

	/**
	 * Answer a call to a tool that does not exist through the
	 * ToolExecutionExceptionProcessor, as a tool failure, instead of ending the
	 * call with "No ToolCallback found for tool name" (issues 6816, 6869). Wraps
	 * the ToolCallingManager bean.
	 */
	private boolean unknownToolToProcessor;

	/** The window of the ChatMemory that keep-current-turn or evict-orphan-responses install. */
	private int memoryMaxMessages = TurnKeepingWindowChatMemory.DEFAULT_MAX_MESSAGES;

	public boolean isBreachThroughProcessor() {
		return this.breachThroughProcessor;
	}

	public void setBreachThroughProcessor(boolean breachThroughProcessor) {
		this.breachThroughProcessor = breachThroughProcessor;
	}

	public boolean isStrictJsonOrWrap() {
		return this.strictJsonOrWrap;
	}

	public void setStrictJsonOrWrap(boolean strictJsonOrWrap) {
		this.strictJsonOrWrap = strictJsonOrWrap;
	}

	public boolean isErrorKey() {
		return this.errorKey;
	}

	public void setErrorKey(boolean errorKey) {
		this.errorKey = errorKey;
	}

	public boolean isCloseDanglingCalls() {
		return this.closeDanglingCalls;
	}

	public void setCloseDanglingCalls(boolean closeDanglingCalls) {
		this.closeDanglingCalls = closeDanglingCalls;
	}

	public boolean isStoreAnsweredGeneration() {
		return this.storeAnsweredGeneration;
	}

	public void setStoreAnsweredGeneration(boolean storeAnsweredGeneration) {
		this.storeAnsweredGeneration = storeAnsweredGeneration;
	}

	public boolean isKeepCurrentTurn() {
		return this.keepCurrentTurn;
	}

	public void setKeepCurrentTurn(boolean keepCurrentTurn) {
		this.keepCurrentTurn = keepCurrentTurn;
	}

	public boolean isEvictOrphanResponses() {
		return this.evictOrphanResponses;
	}

	public void setEvictOrphanResponses(boolean evictOrphanResponses) {
		this.evictOrphanResponses = evictOrphanResponses;
	}

	public boolean isPr6907WrapOnFailure() {
		return this.pr6907WrapOnFailure;
	}

	public void setPr6907WrapOnFailure(boolean pr6907WrapOnFailure) {
		this.pr6907WrapOnFailure = pr6907WrapOnFailure;
	}

	public boolean isPr6049StrictWrap() {
		return this.pr6049StrictWrap;
	}

	public void setPr6049StrictWrap(boolean pr6049StrictWrap) {
		this.pr6049StrictWrap = pr6049StrictWrap;
	}

	/** Whether the advisor that rewrites what Gemini receives is added. */
	boolean rewritesGemini() {
		return this.strictJsonOrWrap || this.errorKey || this.pr6049StrictWrap || this.pr6907WrapOnFailure;
	}

	public boolean isJsonErrorProcessor() {
		return this.jsonErrorProcessor;
	}

	public void setJsonErrorProcessor(boolean jsonErrorProcessor) {
		this.jsonErrorProcessor = jsonErrorProcessor;
	}

	public boolean isEndTurnAfterBreach() {
		return this.endTurnAfterBreach;
	}

	public void setEndTurnAfterBreach(boolean endTurnAfterBreach) {
		this.endTurnAfterBreach = endTurnAfterBreach;
	}

	public boolean isUnknownToolToProcessor() {
		return this.unknownToolToProcessor;
	}

	public void setUnknownToolToProcessor(boolean unknownToolToProcessor) {
		this.unknownToolToProcessor = unknownToolToProcessor;
	}

	public int getMemoryMaxMessages() {
		return this.memoryMaxMessages;
	}

	public void setMemoryMaxMessages(int memoryMaxMessages) {
		this.memoryMaxMessages = memoryMaxMessages;
	}

	/** Whether the ToolCallingManager bean is wrapped. */
	boolean wrapsManager() {
		return this.breachThroughProcessor || this.closeDanglingCalls || this.errorKey || this.endTurnAfterBreach
				|| this.unknownToolToProcessor;
	}

}
