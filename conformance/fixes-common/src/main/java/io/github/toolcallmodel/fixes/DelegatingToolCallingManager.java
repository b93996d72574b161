package io.github.toolcallmodel.fixes;

import java.util.List;

import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.tool.definition.ToolDefinition;

/**
 * A {@link ToolCallingManager} around the application's: the libraries'
 * managers ({@code FixingToolCallingManager} on Spring AI 2.0,
 * {@code JsonSafeToolCallingManager} on 1.1) change what
 * {@link #executeToolCalls} returns and leave the rest to the manager they
 * are around, which the report and the tests reach through
 * {@link #getDelegate()}.
 */
public abstract class DelegatingToolCallingManager implements ToolCallingManager {

	private final ToolCallingManager delegate;

	/** A manager around {@code delegate}. */
	protected DelegatingToolCallingManager(ToolCallingManager delegate) {
		this.delegate = delegate;
	}

	/** The manager this one delegates to. */
	public ToolCallingManager getDelegate() {
		return this.delegate;
	}

	/** The delegate's: the libraries change no tool's definition. */
	@Override
	public List<ToolDefinition> resolveToolDefinitions(ToolCallingChatOptions chatOptions) {
		return this.delegate.resolveToolDefinitions(chatOptions);
	}

}
