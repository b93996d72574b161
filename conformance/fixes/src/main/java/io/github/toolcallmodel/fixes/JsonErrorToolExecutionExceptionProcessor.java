package io.github.toolcallmodel.fixes;

import java.util.Map;

import tools.jackson.databind.json.JsonMapper;

import org.springframework.ai.tool.execution.DefaultToolExecutionExceptionProcessor;
import org.springframework.ai.tool.execution.ToolExecutionException;
import org.springframework.ai.tool.execution.ToolExecutionExceptionProcessor;

/**
 * An exception processor whose text is always one JSON object,
 * {@code {"error": MESSAGE}}: Spring's {@link DefaultToolExecutionExceptionProcessor}
 * decides what is rethrown and what the message is, and this writes the message
 * as JSON, as seed 000's application does for Gemini. With
 * {@code breach-through-processor} a limit breach goes through it too, so every
 * text the manager writes is JSON.
 */
public final class JsonErrorToolExecutionExceptionProcessor implements ToolExecutionExceptionProcessor {

	private static final JsonMapper MAPPER = JsonMapper.builder().build();

	private final ToolExecutionExceptionProcessor decisions;

	/** Over Spring's default processor. */
	public JsonErrorToolExecutionExceptionProcessor() {
		this(DefaultToolExecutionExceptionProcessor.builder().build());
	}

	/** Over the processor that decides (Spring's, with its rethrow list and {@code alwaysThrow}). */
	public JsonErrorToolExecutionExceptionProcessor(ToolExecutionExceptionProcessor decisions) {
		this.decisions = decisions;
	}

	@Override
	public String process(ToolExecutionException exception) {
		return MAPPER.writeValueAsString(Map.of("error", this.decisions.process(exception)));
	}

}
