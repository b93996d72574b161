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
 * only when that resolver is wrapped with {@link #resolver}. While a tool runs,
 * its thread has no listener, so that what the tool invokes itself (another
 * recording tool, a nested call with its own batch) is never counted as a call
 * of the batch that invoked it.
 */
final class Invocations {

	/** A listener told of each invocation before the tool runs. */
	interface Listener {

		/** The tool named {@code name} is about to run. */
		void beforeInvoke(String name);

		/** The tool that was about to run threw a {@link ToolExecutionException}. */
		void threw();

		/**
		 * A stand-in for the tool {@code name}, which does not exist, is about to
		 * throw with {@code cause} ({@code unknown-tool-to-processor}).
		 */
		default void missing(String name, Throwable cause) {
			beforeInvoke(name);
			threw();
		}

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

	/** Tells the thread's listener that a stand-in for a missing tool is about to throw. */
	static void missing(String name, Throwable cause) {
		Listener l = CURRENT.get();
		if (l != null) {
			l.missing(name, cause);
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
			finally {
				after(l);
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
			finally {
				after(l);
			}
		}

		/**
		 * Reports the invocation, then takes the listener off the thread while
		 * the tool runs: what the tool itself invokes (another recording tool it
		 * resolved, a nested ChatClient or chat model call through any manager)
		 * is not a call of this batch.
		 */
		private Listener before() {
			Listener l = CURRENT.get();
			if (l != null) {
				l.beforeInvoke(this.delegate.getToolDefinition().name());
				CURRENT.remove();
			}
			return l;
		}

		/** Puts the batch's listener back once the tool has returned or thrown. */
		private static void after(Listener l) {
			if (l != null) {
				CURRENT.set(l);
			}
		}

		private static void threw(Listener l) {
			if (l != null) {
				l.threw();
			}
		}

	}

}
