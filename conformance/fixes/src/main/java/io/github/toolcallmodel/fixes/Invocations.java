package io.github.toolcallmodel.fixes;

import java.util.ArrayList;
import java.util.List;

import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.ai.tool.execution.ToolExecutionException;
import org.springframework.ai.tool.metadata.ToolMetadata;
import org.springframework.ai.tool.resolution.ToolCallbackResolver;

/**
 * What the tools of one batch did, seen from inside
 * {@code DefaultToolCallingManager}: which calls invoked a tool (the rest of a
 * batch that ends normally were limit breaches) and which invocations threw a
 * {@link ToolExecutionException} (the processor wrote their text). The manager
 * runs a batch's calls in order on the calling thread, so one recorder per
 * thread, set by {@link FixingToolCallingManager} around the delegate, sees them
 * all. Tools the delegate finds through its {@link ToolCallbackResolver} are seen
 * only when that resolver is wrapped with {@link #resolver}.
 */
final class Invocations {

	/** A listener told of each invocation before the tool runs. */
	interface Listener {

		/** The tool named {@code name} is about to run. */
		void beforeInvoke(String name);

		/** The tool that was about to run threw a {@link ToolExecutionException}. */
		void threw();

	}

	private static final ThreadLocal<Listener> CURRENT = new ThreadLocal<>();

	private Invocations() {
	}

	static Listener set(Listener l) {
		Listener previous = CURRENT.get();
		CURRENT.set(l);
		return previous;
	}

	static void restore(Listener previous) {
		if (previous == null) {
			CURRENT.remove();
		}
		else {
			CURRENT.set(previous);
		}
	}

	static ToolCallback recording(ToolCallback tool) {
		return tool == null || tool instanceof Recording ? tool : new Recording(tool);
	}

	static List<ToolCallback> recording(List<ToolCallback> tools) {
		List<ToolCallback> out = new ArrayList<>(tools.size());
		for (ToolCallback t : tools) {
			out.add(recording(t));
		}
		return out;
	}

	/** A resolver whose tools report their invocations. */
	static ToolCallbackResolver resolver(ToolCallbackResolver resolver) {
		return resolver instanceof RecordingResolver ? resolver : new RecordingResolver(resolver);
	}

	private record RecordingResolver(ToolCallbackResolver delegate) implements ToolCallbackResolver {

		@Override
		public ToolCallback resolve(String toolName) {
			return recording(this.delegate.resolve(toolName));
		}

	}

	/** A tool that reports its invocation to the thread's listener, then runs. */
	static final class Recording implements ToolCallback {

		private final ToolCallback delegate;

		Recording(ToolCallback delegate) {
			this.delegate = delegate;
		}

		@Override
		public ToolDefinition getToolDefinition() {
			return this.delegate.getToolDefinition();
		}

		@Override
		public ToolMetadata getToolMetadata() {
			return this.delegate.getToolMetadata();
		}

		@Override
		public String call(String toolInput) {
			Listener l = before();
			try {
				return this.delegate.call(toolInput);
			}
			catch (ToolExecutionException e) {
				threw(l);
				throw e;
			}
		}

		@Override
		public String call(String toolInput, ToolContext toolContext) {
			Listener l = before();
			try {
				return this.delegate.call(toolInput, toolContext);
			}
			catch (ToolExecutionException e) {
				threw(l);
				throw e;
			}
		}

		private Listener before() {
			Listener l = CURRENT.get();
			if (l != null) {
				l.beforeInvoke(this.delegate.getToolDefinition().name());
			}
			return l;
		}

		private static void threw(Listener l) {
			if (l != null) {
				l.threw();
			}
		}

	}

}
