package io.github.toolcallmodel.fixes;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;

import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.model.tool.DefaultToolCallingManager;
import org.springframework.ai.model.tool.ToolCallLimitBehavior;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.tool.execution.ToolExecutionExceptionProcessor;

/**
 * The limits of a {@link DefaultToolCallingManager}, asked through Spring's own
 * {@code ToolCallLimits}, so that a fix knows which call of a batch breaches,
 * and with which text, exactly as the manager decides it.
 *
 * <p>
 * In 2.0.1 {@code ToolCallLimits} is package-private and the manager keeps it in
 * a private field, so this reads both by reflection (the jars run on the class
 * path, where that is allowed). It is the one place where the fixes depend on
 * 2.0.1's internals; {@link #of} fails at once, with the reason, on a manager it
 * cannot read.
 */
final class SpringLimits {

	/** One breach: the limit's tool name ({@code null} for the total), the limit and the text. */
	record Breach(String toolName, int limit, String message) {
	}

	private final Object limits;

	private final Method check;

	private final Method onLimitExceeded;

	private final Method countPrior;

	private final Method breachToolName;

	private final Method breachLimit;

	private final Method breachMessage;

	private SpringLimits(Object limits) throws ReflectiveOperationException {
		Class<?> c = limits.getClass();
		this.limits = limits;
		this.check = accessible(c.getDeclaredMethod("check", String.class, int.class, int.class));
		this.onLimitExceeded = accessible(c.getDeclaredMethod("onLimitExceeded"));
		this.countPrior = accessible(c.getDeclaredMethod("countPriorToolCalls", List.class));
		Class<?> breach = this.check.getReturnType();
		this.breachToolName = accessible(breach.getDeclaredMethod("toolName"));
		this.breachLimit = accessible(breach.getDeclaredMethod("limit"));
		this.breachMessage = accessible(breach.getDeclaredMethod("message"));
	}

	private static Method accessible(Method m) {
		m.setAccessible(true);
		return m;
	}

	/** The limits of {@code manager}, which must be Spring AI 2.0.1's {@link DefaultToolCallingManager}. */
	static SpringLimits of(ToolCallingManager manager) {
		if (!(manager instanceof DefaultToolCallingManager)) {
			throw new IllegalArgumentException("the fixes wrap Spring AI's DefaultToolCallingManager, not "
					+ (manager == null ? "null" : manager.getClass().getName()));
		}
		try {
			Field f = DefaultToolCallingManager.class.getDeclaredField("toolCallLimits");
			f.setAccessible(true);
			return new SpringLimits(f.get(manager));
		}
		catch (ReflectiveOperationException | RuntimeException e) {
			throw new IllegalStateException("cannot read DefaultToolCallingManager's tool call limits "
					+ "(this library is written for Spring AI 2.0.1): " + e, e);
		}
	}

	/**
	 * The exception processor {@code manager} was built with, which must be
	 * Spring AI 2.0.1's {@link DefaultToolCallingManager} (a private field, read
	 * like the limits).
	 */
	static ToolExecutionExceptionProcessor processorOf(ToolCallingManager manager) {
		if (!(manager instanceof DefaultToolCallingManager)) {
			throw new IllegalArgumentException("the fixes wrap Spring AI's DefaultToolCallingManager, not "
					+ (manager == null ? "null" : manager.getClass().getName()));
		}
		try {
			Field f = DefaultToolCallingManager.class.getDeclaredField("toolExecutionExceptionProcessor");
			f.setAccessible(true);
			return (ToolExecutionExceptionProcessor) f.get(manager);
		}
		catch (ReflectiveOperationException | RuntimeException e) {
			throw new IllegalStateException("cannot read DefaultToolCallingManager's exception processor "
					+ "(this library is written for Spring AI 2.0.1): " + e, e);
		}
	}

	/**
	 * The limits as Spring AI's manager holds them, for the report:
	 * {@code defaultMaxCallsPerTool}, {@code maxCallsPerTool},
	 * {@code toolsExcludedFromLimit}, {@code maxTotalToolCalls} ({@code -1}: no
	 * limit) and {@code onLimitExceeded}.
	 */
	Map<String, Object> facts() {
		Map<String, Object> out = new java.util.LinkedHashMap<>();
		for (String name : List.of("defaultMaxCallsPerTool", "maxCallsPerTool", "toolsExcludedFromLimit",
				"maxTotalToolCalls", "onLimitExceeded")) {
			try {
				Field f = this.limits.getClass().getDeclaredField(name);
				f.setAccessible(true);
				Object v = f.get(this.limits);
				out.put(name, v instanceof Map<?, ?> m ? new java.util.TreeMap<>(m)
						: v instanceof java.util.Set<?> set ? new java.util.TreeSet<>(set) : v);
			}
			catch (ReflectiveOperationException | RuntimeException e) {
				throw new IllegalStateException("cannot read ToolCallLimits." + name
						+ " (this library is written for Spring AI 2.0.1): " + e, e);
			}
		}
		return out;
	}

	/**
	 * Spring's {@code throw-exception-on-error} as {@code processor} holds it:
	 * {@code alwaysThrow} of a {@code DefaultToolExecutionExceptionProcessor}
	 * (under the library's JSON-error processor too); {@code null} for any
	 * other processor.
	 */
	static Boolean alwaysThrow(ToolExecutionExceptionProcessor processor) {
		Object p = processor;
		try {
			if (p instanceof JsonErrorToolExecutionExceptionProcessor) {
				Field f = JsonErrorToolExecutionExceptionProcessor.class.getDeclaredField("decisions");
				f.setAccessible(true);
				p = f.get(p);
			}
			if (p instanceof org.springframework.ai.tool.execution.DefaultToolExecutionExceptionProcessor) {
				Field f = p.getClass().getDeclaredField("alwaysThrow");
				f.setAccessible(true);
				return (Boolean) f.get(p);
			}
		}
		catch (ReflectiveOperationException | RuntimeException e) {
			return null;
		}
		return null;
	}

	ToolCallLimitBehavior onLimitExceeded() {
		return (ToolCallLimitBehavior) invoke(this.onLimitExceeded, this.limits);
	}

	@SuppressWarnings("unchecked")
	Map<String, Integer> countPriorToolCalls(List<Message> instructions) {
		return (Map<String, Integer>) invoke(this.countPrior, null, instructions);
	}

	Breach check(String toolName, int toolCallCount, int totalToolCallCount) {
		Object b = invoke(this.check, this.limits, toolName, toolCallCount, totalToolCallCount);
		if (b == null) {
			return null;
		}
		return new Breach((String) invoke(this.breachToolName, b), (Integer) invoke(this.breachLimit, b),
				(String) invoke(this.breachMessage, b));
	}

	private static Object invoke(Method m, Object target, Object... args) {
		try {
			return m.invoke(target, args);
		}
		catch (InvocationTargetException e) {
			if (e.getCause() instanceof RuntimeException r) {
				throw r;
			}
			throw new IllegalStateException(e.getCause());
		}
		catch (IllegalAccessException e) {
			throw new IllegalStateException(e);
		}
	}

}
