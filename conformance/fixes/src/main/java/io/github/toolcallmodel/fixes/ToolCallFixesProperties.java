package io.github.toolcallmodel.fixes;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.ReflectionUtils;

/**
 * The switches of the fixes, one per fix of {@code docs/FIXES.md}:
 * {@code toolcall.fixes.<fix-name>}. Unset, a switch is decided from the
 * application's beans ({@link InstalledFixes} says how); {@code true} or
 * {@code false} (or anything Spring's binder reads as a boolean) decides it.
 * {@code toolcall.fixes.enabled=false} turns the library off.
 */
@ConfigurationProperties(prefix = ToolCallFixesProperties.PREFIX)
public class ToolCallFixesProperties {

	/** The prefix of every property of the fixes. */
	public static final String PREFIX = "toolcall.fixes";

	/**
	 * Send a tool call limit breach through the ToolExecutionExceptionProcessor, as
	 * any tool failure is (closes issue 6902 for a JSON-error processor). Wraps
	 * Spring AI's ToolCallingManager bean. Unset: off.
	 */
	private Boolean breachThroughProcessor;

	/** Whether the library installs anything at all. */
	private boolean enabled = true;

	/**
	 * Stop the application at startup when it runs a Spring AI other than the
	 * 2.0.1 the library is written for. Unset (false): on another version only
	 * the fixes that read 2.0.1's internals turn off, named in one warning.
	 */
	private boolean strictVersion;

	/**
	 * Send every tool response to Gemini as a JSON object: an object as is, any
	 * other JSON value or any other text wrapped as {"result": ...} (closes issue
	 * 6902 whatever the processor, and issue 5437). Wraps the chat model bean, so
	 * every request it converts is covered, however the ChatClient was built.
	 * Unset: on for each GoogleGenAiChatModel bean; true: on for every chat model
	 * bean.
	 */
	private Boolean strictJsonOrWrap;

	/**
	 * Send a response produced by a failure (processor text, breach, closed call)
	 * to Gemini as the whole JSON object it is, or verbatim as {"error": TEXT}.
	 * Wraps the chat model as strict-json-or-wrap does and the ToolCallingManager
	 * bean to mark failures. Unset: off.
	 */
	private Boolean errorKey;

	/**
	 * Answer every call of a batch that stops (a breach under THROW, a batch that
	 * fails, a returnDirect batch) and hand that answer to a memory inside the
	 * tool loop, so that no call is left without a response. Wraps the
	 * ToolCallingManager bean and registers its own ToolCallingAdvisor builder.
	 * Unset: on for each request whose advisor chain has a memory advisor inside
	 * the tool loop (a bean, built inline or given per request). Off on a Spring
	 * AI other than 2.0.1.
	 */
	private Boolean closeDanglingCalls;

	/**
	 * Of a model reply with tool calls, store only the generation the manager
	 * answers. Wraps the ChatMemory bean. Unset: on from the first request whose
	 * advisor chain has a memory advisor inside the tool loop.
	 */
	private Boolean storeAnsweredGeneration;

	/**
	 * Never let the message window cut the current turn: when it alone is longer
	 * than the window, it stays whole until the next user message. Replaces the
	 * ChatMemory bean with a window of memory-max-messages. Unset: on from the
	 * first request whose advisor chain has a memory advisor inside the tool loop.
	 */
	private Boolean keepCurrentTurn;

	/**
	 * Cut the message window at the plain count and drop the tool messages left
	 * at its head (spring-ai PR 6029, for comparison). Replaces the ChatMemory
	 * bean with a window of memory-max-messages. Unset: off.
	 */
	private Boolean evictOrphanResponses;

	/**
	 * spring-ai PR 6907, for comparison: send a tool response Spring's reader
	 * refuses to Gemini verbatim as {"result": TEXT}; everything else is converted
	 * as upstream (half-JSON still cut to its first value). Adds the advisor of
	 * strict-json-or-wrap, which takes precedence. Unset: off.
	 */
	private Boolean pr6907WrapOnFailure;

	/**
	 * spring-ai PR 6049, for comparison: send a tool response, and function-call
	 * arguments, that Spring's reader does not take as one whole value (trailing
	 * tokens refused) to Gemini verbatim as {"result": TEXT}. Adds the advisor of
	 * strict-json-or-wrap, which takes precedence. Unset: off.
	 */
	private Boolean pr6049StrictWrap;

	/**
	 * Make the ToolExecutionExceptionProcessor bean write every tool failure as
	 * {"error": MESSAGE}, on Spring's decisions (spring.ai.tools.throw-exception-on-error
	 * included). Not a fix of its own: with breach-through-processor it makes every
	 * text the manager writes JSON. An application's own processor bean wins.
	 * Unset: off.
	 */
	private Boolean jsonErrorProcessor;

	/**
	 * Under RETURN_ERROR_RESPONSE, end the turn at the second batch with a limit
	 * breach, as THROW ends it at the first, so that a model that keeps calling a
	 * tool past its limit cannot keep the turn running for ever (issues 3333,
	 * 5754, 6462). Wraps the ToolCallingManager bean. Unset: on when the
	 * manager's on-limit-exceeded is RETURN_ERROR_RESPONSE.
	 */
	private Boolean endTurnAfterBreach;

	/**
	 * Answer a call to a tool that does not exist through the
	 * ToolExecutionExceptionProcessor, as a tool failure, instead of ending the
	 * call with "No ToolCallback found for tool name" (issues 6816, 6869). Wraps
	 * the ToolCallingManager bean. Unset: off.
	 */
	private Boolean unknownToolToProcessor;

	/** The window of the ChatMemory that keep-current-turn or evict-orphan-responses install. */
	private int memoryMaxMessages = TurnKeepingWindowChatMemory.DEFAULT_MAX_MESSAGES;

	/** The verdict of each request path: toolcall-model check's judge, run in the JVM. */
	private final JudgeSettings judge = new JudgeSettings();

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public boolean isStrictVersion() {
		return this.strictVersion;
	}

	public void setStrictVersion(boolean strictVersion) {
		this.strictVersion = strictVersion;
	}

	/**
	 * The switch of {@code fix}, by the name {@code check} prints: {@code null}
	 * when unset (decided from the beans). A fix's switch is the field the fix
	 * table names ({@link FixTable}).
	 */
	Boolean get(String fix) {
		String field = fix.equals("json-error-processor") ? "jsonErrorProcessor" : FixTable.fix(fix).javaName();
		Field f = ReflectionUtils.findField(ToolCallFixesProperties.class, field, Boolean.class);
		if (f == null) {
			throw new IllegalStateException("toolcall-fixes: no switch " + field + " for " + fix);
		}
		ReflectionUtils.makeAccessible(f);
		return (Boolean) ReflectionUtils.getField(f, this);
	}

	public Boolean getBreachThroughProcessor() {
		return this.breachThroughProcessor;
	}

	public void setBreachThroughProcessor(Boolean breachThroughProcessor) {
		this.breachThroughProcessor = breachThroughProcessor;
	}

	public Boolean getStrictJsonOrWrap() {
		return this.strictJsonOrWrap;
	}

	public void setStrictJsonOrWrap(Boolean strictJsonOrWrap) {
		this.strictJsonOrWrap = strictJsonOrWrap;
	}

	public Boolean getErrorKey() {
		return this.errorKey;
	}

	public void setErrorKey(Boolean errorKey) {
		this.errorKey = errorKey;
	}

	public Boolean getCloseDanglingCalls() {
		return this.closeDanglingCalls;
	}

	public void setCloseDanglingCalls(Boolean closeDanglingCalls) {
		this.closeDanglingCalls = closeDanglingCalls;
	}

	public Boolean getStoreAnsweredGeneration() {
		return this.storeAnsweredGeneration;
	}

	public void setStoreAnsweredGeneration(Boolean storeAnsweredGeneration) {
		this.storeAnsweredGeneration = storeAnsweredGeneration;
	}

	public Boolean getKeepCurrentTurn() {
		return this.keepCurrentTurn;
	}

	public void setKeepCurrentTurn(Boolean keepCurrentTurn) {
		this.keepCurrentTurn = keepCurrentTurn;
	}

	public Boolean getEvictOrphanResponses() {
		return this.evictOrphanResponses;
	}

	public void setEvictOrphanResponses(Boolean evictOrphanResponses) {
		this.evictOrphanResponses = evictOrphanResponses;
	}

	// The pull requests' switches have no bean accessors: the metadata derived
	// from them would spell them pr6907-..., unlike check's pr-6907-...; they are
	// bound by those names (ToolCallFixesAutoConfiguration.bind) and described
	// in additional-spring-configuration-metadata.json.

	Boolean pr6907WrapOnFailure() {
		return this.pr6907WrapOnFailure;
	}

	void pr6907WrapOnFailure(Boolean on) {
		this.pr6907WrapOnFailure = on;
	}

	Boolean pr6049StrictWrap() {
		return this.pr6049StrictWrap;
	}

	void pr6049StrictWrap(Boolean on) {
		this.pr6049StrictWrap = on;
	}


	public Boolean getJsonErrorProcessor() {
		return this.jsonErrorProcessor;
	}

	public void setJsonErrorProcessor(Boolean jsonErrorProcessor) {
		this.jsonErrorProcessor = jsonErrorProcessor;
	}

	public Boolean getEndTurnAfterBreach() {
		return this.endTurnAfterBreach;
	}

	public void setEndTurnAfterBreach(Boolean endTurnAfterBreach) {
		this.endTurnAfterBreach = endTurnAfterBreach;
	}

	public Boolean getUnknownToolToProcessor() {
		return this.unknownToolToProcessor;
	}

	public void setUnknownToolToProcessor(Boolean unknownToolToProcessor) {
		this.unknownToolToProcessor = unknownToolToProcessor;
	}

	public JudgeSettings getJudge() {
		return this.judge;
	}

	public int getMemoryMaxMessages() {
		return this.memoryMaxMessages;
	}

	public void setMemoryMaxMessages(int memoryMaxMessages) {
		this.memoryMaxMessages = memoryMaxMessages;
	}

	/** {@code toolcall.fixes.judge.*}: the request paths' verdicts. */
	public static class JudgeSettings {

		/**
		 * Judge each request path when first seen (toolcall-model check's WebAssembly
		 * module, loaded on a thread of its own as the application starts). False: no
		 * module is loaded, and the paths are reported without a verdict.
		 */
		private boolean enabled = true;

		/**
		 * Findings accepted on every path, one line each as toolcall-model check
		 * --accept reads them: SCENARIO MARK [SET] [# why]. A path whose only breaks
		 * are accepted is safe, as check's gate has it.
		 */
		private List<String> accept = new ArrayList<>();

		/**
		 * Ask at startup, once the module is loaded, the first question of each path
		 * the beans let requests take (call and stream: the library's loop with no
		 * memory and with the ChatMemory bean's advisor outside and inside it;
		 * Spring's own ChatClient loop and direct model calls where the model is
		 * wrapped; the paths without the memory inside again once it has turned the
		 * memory's fixes on), so that those paths find their verdicts given. False:
		 * each path is judged when it comes.
		 */
		private boolean foresee = true;

		public boolean isEnabled() {
			return this.enabled;
		}

		public void setEnabled(boolean enabled) {
			this.enabled = enabled;
		}

		public List<String> getAccept() {
			return this.accept;
		}

		public void setAccept(List<String> accept) {
			this.accept = accept;
		}

		public boolean isForesee() {
			return this.foresee;
		}

		public void setForesee(boolean foresee) {
			this.foresee = foresee;
		}

	}

}
