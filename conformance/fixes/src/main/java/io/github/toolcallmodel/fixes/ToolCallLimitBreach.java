package io.github.toolcallmodel.fixes;

import org.springframework.ai.model.tool.ToolCallLimitExceededException;
import org.springframework.ai.model.tool.ToolExecutionResult;

/**
 * The cause that {@code breach-through-processor} gives the exception processor:
 * a {@link ToolCallLimitExceededException} (so that a processor's rethrow list
 * naming that class, or a superclass, matches it) whose message is the breach
 * text the manager would have sent, so that the processor's text carries it.
 */
public final class ToolCallLimitBreach extends ToolCallLimitExceededException {

	private static final long serialVersionUID = 1L;

	private final String text;

	public ToolCallLimitBreach(String toolName, int limit, String text) {
		super(toolName, limit, ToolExecutionResult.builder().build());
		this.text = text;
	}

	@Override
	public String getMessage() {
		return this.text;
	}

}
