package io.github.toolcallmodel.fixes;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.model.tool.DefaultToolCallingManager;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.ai.tool.execution.ToolExecutionException;
import org.springframework.ai.tool.resolution.ToolCallbackResolver;
import org.springframework.util.StringUtils;

/**
 * {@code unknown-tool-to-processor}: for each called name the delegate
 * would not find (not among the request's tool callbacks and, with
 * {@code resolutionFallbackEnabled}, not resolved), a stand-in callback of that
 * name that throws a {@link ToolExecutionException} whose cause is the
 * {@code IllegalStateException} the manager would have thrown. The delegate then
 * hands it to its own exception processor, as any tool failure: the processor's
 * text answers the call and the batch goes on; what it throws fails the batch.
 * A blank name with the resolver asked is left to the resolver's own refusal,
 * as Spring gives it.
 */
final class MissingTools {

	/** The manager's refusal of a name it finds no callback for. */
	static final String NO_CALLBACK = "No ToolCallback found for tool name: ";

	private final boolean fallback;

	private final ToolCallbackResolver resolver;

	private MissingTools(boolean fallback, ToolCallbackResolver resolver) {
		this.fallback = fallback;
		this.resolver = resolver;
	}

	/** Reads the delegate's lookup settings (private fields of the released manager). */
	static MissingTools of(ToolCallingManager manager) {
		if (!(manager instanceof DefaultToolCallingManager)) {
			throw new IllegalArgumentException("the fixes wrap Spring AI's DefaultToolCallingManager, not "
					+ (manager == null ? "null" : manager.getClass().getName()));
		}
		try {
			Field f = DefaultToolCallingManager.class.getDeclaredField("resolutionFallbackEnabled");
			f.setAccessible(true);
			Field r = DefaultToolCallingManager.class.getDeclaredField("toolCallbackResolver");
			r.setAccessible(true);
			return new MissingTools(f.getBoolean(manager), (ToolCallbackResolver) r.get(manager));
		}
		catch (ReflectiveOperationException | RuntimeException e) {
			throw new IllegalStateException("cannot read DefaultToolCallingManager's tool lookup "
					+ "(this library is written for Spring AI 2.0.1): " + e, e);
		}
	}

	/** The stand-ins for the calls' names that {@code callbacks} and the resolver lack, in call order. */
	List<ToolCallback> standIns(List<ToolCallback> callbacks, List<AssistantMessage.ToolCall> calls) {
		Set<String> known = new LinkedHashSet<>();
		for (ToolCallback c : callbacks) {
			known.add(c.getToolDefinition().name());
		}
		List<ToolCallback> out = new ArrayList<>();
		for (AssistantMessage.ToolCall call : calls) {
			String name = call.name();
			if (name == null || known.contains(name)) {
				continue;
			}
			if (this.fallback && (!StringUtils.hasText(name) || this.resolver.resolve(name) != null)) {
				// Found by the resolver, or refused by its own assertion: Spring's way.
				continue;
			}
			known.add(name);
			out.add(new StandIn(name));
		}
		return out;
	}

	/** A definition of any name, even a blank one. */
	private record Definition(String name, String description, String inputSchema) implements ToolDefinition {
	}

	/** The stand-in of a tool that does not exist. */
	private record StandIn(String name) implements ToolCallback {

		@Override
		public ToolDefinition getToolDefinition() {
			// Not DefaultToolDefinition, which refuses a blank name.
			return new Definition(this.name, "", "{}");
		}

		@Override
		public String call(String toolInput) {
			IllegalStateException cause = new IllegalStateException(NO_CALLBACK + this.name);
			Invocations.missing(this.name, cause);
			throw new ToolExecutionException(getToolDefinition(), cause);
		}

		@Override
		public String call(String toolInput, ToolContext toolContext) {
			return call(toolInput);
		}

	}

}
