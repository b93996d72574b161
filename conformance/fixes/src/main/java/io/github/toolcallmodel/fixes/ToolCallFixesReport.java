package io.github.toolcallmodel.fixes;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.ai.chat.client.advisor.ToolCallingAdvisor;
import org.springframework.ai.chat.client.advisor.api.MemoryAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.model.tool.DefaultToolCallingManager;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.tool.execution.ToolExecutionExceptionProcessor;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * The running application as the fixes see it, read from its beans once every
 * singleton exists: the Spring AI version, the chat models, the manager's
 * limits and policy, its exception processor and {@code throw-exception-on-error},
 * where each memory advisor bean stands against {@code ToolCallingAdvisor},
 * which fixes are installed and why, and the {@code toolcall-model check}
 * command line that describes this setup. It states facts and does not judge:
 * the rules live in {@code toolcall-model}, and the check line asks them.
 *
 * <p>
 * At startup it decides the memory fixes left unset (on when a memory advisor
 * bean is ordered inside the tool loop), logs one line per fix installed with
 * its reason, one line for each request path the fixes cannot reach with the
 * line that reaches it, and the report as one line. With Actuator present the
 * same report is the {@code toolcallfixes} endpoint.
 */
public final class ToolCallFixesReport implements SmartInitializingSingleton {

	static final String GEMINI = "org.springframework.ai.google.genai.GoogleGenAiChatModel";

	private static final Log log = LogFactory.getLog(ToolCallFixesReport.class);

	private final InstalledFixes fixes;

	private final ListableBeanFactory beans;

	private final Environment environment;

	private volatile Map<String, Object> report = Map.of();

	private final List<String> notReached = new ArrayList<>();

	private final RequestPaths paths;

	ToolCallFixesReport(InstalledFixes fixes, ListableBeanFactory beans, Environment environment, RequestPaths paths) {
		this.fixes = fixes;
		this.beans = beans;
		this.environment = environment;
		this.paths = paths;
	}

	@Override
	public void afterSingletonsInstantiated() {
		decideTheRest();
		List<String> lines = new ArrayList<>();
		for (Map.Entry<String, InstalledFixes.Decision> e : this.fixes.decisions().entrySet()) {
			if (e.getValue().on()) {
				String line = "toolcall-fixes: installed " + e.getKey() + " (" + e.getValue().why() + ")";
				log.info(line);
				lines.add(line);
			}
		}
		for (String n : this.notReached) {
			String line = "toolcall-fixes: not reached: " + n;
			log.warn(line);
			lines.add(line);
		}
		this.report = facts();
		String line = "toolcall-fixes report: " + line(this.report);
		log.info(line);
		lines.add(line);
		this.startupLines = List.copyOf(lines);
		if (this.paths != null) {
			try {
				boolean loop = this.beans.getBeanProvider(ToolCallingAdvisor.Builder.class)
					.getIfUnique() instanceof FixingToolCallingAdvisor.Builder;
				this.paths.foresee(loop, managerWrapped(), this.modelWrapped);
			}
			catch (RuntimeException | LinkageError e) {
				// Foresight saves time only: the paths are judged when they come.
				log.warn("toolcall-fixes: the request paths' first questions were not foreseen: " + e);
			}
		}
	}

	/** Whether the ToolCallingManager bean is the library's, on the version its fixes read. */
	private boolean managerWrapped() {
		return this.fixes.fixedManager(this.beans.getBeanProvider(ToolCallingManager.class).getIfUnique());
	}

	private volatile List<String> startupLines = List.of();

	/** The lines logged at startup, in order: one per fix installed, one per path not reached, the report. */
	public List<String> startupLines() {
		return this.startupLines;
	}

	/** The report, as the endpoint shows it: the startup's, and every request path seen since. */
	public Map<String, Object> report() {
		Map<String, Object> r = new LinkedHashMap<>(this.report);
		if (this.paths != null) {
			r.put("fixes", installed());
			r.put("requestPaths", this.paths.facts());
			r.put("requestPathsNotKept", this.paths.dropped());
			r.put("requestPathLines", this.paths.lines());
			r.put("judge", this.paths.judgeLoaded());
		}
		return r;
	}

	private Map<String, Object> installed() {
		Map<String, Object> installed = new LinkedHashMap<>();
		this.fixes.decisions().forEach((k, v) -> installed.put(k, (v.on() ? "on: " : "off: ") + v.why()));
		return installed;
	}

	/** The lines the startup logged for the request paths the fixes cannot reach. */
	public List<String> notReached() {
		return List.copyOf(this.notReached);
	}

	private int toolCallingAdvisorOrder() {
		ToolCallingAdvisor.Builder<?> b = this.beans.getBeanProvider(ToolCallingAdvisor.Builder.class).getIfUnique();
		if (b != null) {
			return b.getAdvisorOrder();
		}
		return this.environment.getProperty(ToolCallFixesAutoConfiguration.ADVISOR_ORDER, Integer.class,
				ToolCallingAdvisor.DEFAULT_ORDER);
	}

	/** Every memory advisor bean: name, class, order, and whether it stands inside the tool loop. */
	private List<Map<String, Object>> memoryAdvisors(int toolOrder) {
		List<Map<String, Object>> out = new ArrayList<>();
		this.beans.getBeansOfType(MemoryAdvisor.class, false, false).forEach((name, a) -> {
			int order = a.getOrder();
			Map<String, Object> m = new LinkedHashMap<>();
			m.put("bean", name);
			m.put("class", a.getClass().getName());
			m.put("order", order);
			m.put("inside", order > toolOrder);
			out.add(m);
		});
		return out;
	}

	private void decideTheRest() {
		int toolOrder = toolCallingAdvisorOrder();
		List<Map<String, Object>> memories = memoryAdvisors(toolOrder);
		Map<String, Object> inside = memories.stream().filter(m -> (Boolean) m.get("inside")).findFirst().orElse(null);
		String why = inside != null
				? "memory advisor bean '" + inside.get("bean") + "' (order " + inside.get("order")
						+ ") is inside the tool loop (ToolCallingAdvisor order " + toolOrder + ")"
				: "unset: off until a request's advisor chain has a memory advisor inside the tool loop";
		ToolCallingManager manager = this.beans.getBeanProvider(ToolCallingManager.class).getIfUnique();
		boolean managerWrapped = managerWrapped();
		ToolCallingAdvisor.Builder<?> advisorBuilder = this.beans.getBeanProvider(ToolCallingAdvisor.Builder.class)
			.getIfUnique();
		if (!this.fixes.isDecided("close-dangling-calls") && this.fixes.set("close-dangling-calls") == null) {
			boolean reachable = managerWrapped && advisorBuilder instanceof FixingToolCallingAdvisor.Builder;
			this.fixes.decide("close-dangling-calls", inside != null && reachable,
					inside != null && !reachable
							? "unset: off (the ToolCallingManager or ToolCallingAdvisor.Builder bean is the application's own)"
							: inside != null ? why : "unset: decided per request (on for a request whose advisor chain "
									+ "has a memory advisor inside the tool loop)");
		}
		if (this.fixes.set("store-answered-generation") == null) {
			this.fixes.decide("store-answered-generation", inside != null, why);
		}
		ChatMemory memory = this.beans.getBeanProvider(ChatMemory.class).getIfUnique();
		ChatMemory window = memory instanceof AnsweredGenerationChatMemory a ? a.getDelegate() : memory;
		if (this.fixes.set("keep-current-turn") == null) {
			boolean ours = window instanceof TurnKeepingWindowChatMemory;
			this.fixes.decide("keep-current-turn", inside != null && ours, inside != null && !ours
					? "unset: off (the ChatMemory bean is the application's " + className(window) + ")" : why);
		}
		for (String n : InstalledFixes.NAMES) {
			if (!this.fixes.isDecided(n)) {
				this.fixes.decide(n, false,
						n.equals("strict-json-or-wrap") ? "unset: off (no GoogleGenAiChatModel bean)" : "unset: off");
			}
		}
		notReached(manager, advisorBuilder, window, inside != null);
	}

	private void notReached(ToolCallingManager manager, ToolCallingAdvisor.Builder<?> advisorBuilder,
			ChatMemory window, boolean memoryInside) {
		boolean gemini = ClassUtils.isPresent(GEMINI, getClass().getClassLoader());
		if (gemini && this.beans.getBeanNamesForType(ClassUtils.resolveClassName(GEMINI, getClass().getClassLoader()),
				false, false).length == 0) {
			this.notReached.add("GoogleGenAiChatModel is on the class path but no bean of it exists, so no Gemini "
					+ "model is wrapped; wrap the one you build: model = GeminiSafeChatModel.wrap(model);");
		}
		if (this.fixes.on("close-dangling-calls")) {
			this.beans.getBeansOfType(ToolCallingAdvisor.class, false, false).forEach((name, a) -> {
				if (!(a instanceof FixingToolCallingAdvisor)) {
					this.notReached.add("the ToolCallingAdvisor bean '" + name + "' (" + a.getClass().getName()
							+ ") hands no closed calls to the memory; build it with FixingToolCallingAdvisor.builder()"
							+ " (or extend FixingToolCallingAdvisor)");
				}
			});
		}
		if (memoryInside && this.fixes.mayBeOn("keep-current-turn") && !(window instanceof TurnKeepingWindowChatMemory)
				&& window != null) {
			this.notReached.add("the ChatMemory bean is the application's " + className(window)
					+ ", which keep-current-turn cannot reach; build new TurnKeepingWindowChatMemory(repository, "
					+ "maxMessages, true, false) instead");
		}
	}

	private static String className(Object o) {
		return o == null ? "none" : GeminiSafeChatModel.targetClass(o).getName();
	}

	private Map<String, Object> facts() {
		Map<String, Object> r = new LinkedHashMap<>();
		r.put("springAiVersion", String.valueOf(this.fixes.springAiVersion()));
		if (this.fixes.versionWarning() != null) {
			r.put("springAiVersionWarning", this.fixes.versionWarning());
		}
		List<String> models = new ArrayList<>();
		boolean gemini = false;
		boolean wrapped = false;
		for (Object m : this.beans.getBeansOfType(ChatModel.class, false, false).values()) {
			Class<?> c = GeminiSafeChatModel.targetClass(m);
			gemini |= c.getName().equals(GEMINI);
			wrapped |= m instanceof GeminiSafeChatModel.Wrapped;
			models.add(c.getName() + (m instanceof GeminiSafeChatModel.Wrapped ? " (wrapped)" : ""));
		}
		this.modelWrapped = wrapped;
		r.put("chatModels", models);
		ToolCallingManager manager = this.beans.getBeanProvider(ToolCallingManager.class).getIfUnique();
		ToolCallingManager spring = this.fixes.internals() && manager instanceof FixingToolCallingManager f
				? f.getDelegate() : manager;
		Map<String, Object> limits = Map.of();
		String processor = "unknown";
		Boolean alwaysThrow = null;
		r.put("toolCallingManager", className(manager));
		if (this.fixes.internals() && spring instanceof DefaultToolCallingManager) {
			limits = SpringLimits.of(spring).facts();
			ToolExecutionExceptionProcessor p = SpringLimits.processorOf(spring);
			processor = className(p);
			alwaysThrow = SpringLimits.alwaysThrow(p);
		}
		r.put("limits", limits);
		r.put("processor", processor);
		r.put("throwExceptionOnError", alwaysThrow == null ? "unknown" : alwaysThrow);
		int toolOrder = toolCallingAdvisorOrder();
		r.put("toolCallingAdvisorOrder", toolOrder);
		List<Map<String, Object>> memories = memoryAdvisors(toolOrder);
		r.put("memoryAdvisors", memories);
		boolean inside = memories.stream().anyMatch(m -> (Boolean) m.get("inside"));
		r.put("conversationHistory", inside ? "off (ChatClient turns it off with a memory advisor inside the loop)"
				: "on (ChatClient's default)");
		ChatMemory memory = this.beans.getBeanProvider(ChatMemory.class).getIfUnique();
		r.put("chatMemory", className(memory));
		r.put("fixes", installed());
		r.put("notReached", List.copyOf(this.notReached));
		r.put("check", checkLine(limits, processor, alwaysThrow, memories, gemini, window(memory)));
		r.put("judges", "each request path: requestPaths[].verdict is the judge's (toolcall-model check's "
				+ "WebAssembly module) for the path's facts; the check line here describes the beans");
		Map<String, Object> shared = new LinkedHashMap<>();
		shared.put("springAiVersion", r.get("springAiVersion"));
		shared.put("limits", limits);
		shared.put("processor", processor);
		shared.put("throwExceptionOnError", r.get("throwExceptionOnError"));
		shared.put("checkProcessor",
				processor.equals(JsonErrorToolExecutionExceptionProcessor.class.getName()) ? "json-error" : "default");
		shared.put("checkSettings", settings(limits, alwaysThrow));
		shared.put("geminiBean", gemini);
		this.shared = Map.copyOf(shared);
		return r;
	}

	private volatile Map<String, Object> shared;

	/** Whether a ChatModel bean is wrapped (requests outside the library's loop are seen), as {@link #facts()} found. */
	private volatile boolean modelWrapped;

	/** The facts every request path of the library's loop shares: version, limits, policy, processor. */
	Map<String, Object> shared() {
		Map<String, Object> s = this.shared;
		if (s == null) {
			// A request before every singleton exists: read the beans now.
			facts();
			s = this.shared;
		}
		return s;
	}

	/** The window of {@code memory} (wrapped or not), where it has one. */
	static Integer window(ChatMemory memory) {
		ChatMemory w = memory instanceof AnsweredGenerationChatMemory a ? a.getDelegate() : memory;
		if (w == null) {
			return null;
		}
		try {
			var f = w.getClass().getDeclaredField("maxMessages");
			f.setAccessible(true);
			return (Integer) f.get(w);
		}
		catch (ReflectiveOperationException | RuntimeException e) {
			return null;
		}
	}

	/** The {@code toolcall-model check} command line for these facts and the fixes installed. */
	String checkLine(Map<String, Object> limits, String processor, Boolean alwaysThrow,
			List<Map<String, Object>> memories, boolean gemini, Integer window) {
		List<String> args = new ArrayList<>(List.of("toolcall-model", "check", "--format", "properties"));
		args.addAll(settings(limits, alwaysThrow));
		args.add("--processor " + (processor.equals(JsonErrorToolExecutionExceptionProcessor.class.getName())
				? "json-error" : "default"));
		String memory = memories.isEmpty() ? "none"
				: memories.stream().anyMatch(m -> (Boolean) m.get("inside")) ? "inside" : "outside";
		args.add("--memory " + memory);
		if (window != null) {
			args.add("--memory-window " + window);
		}
		args.add("--provider " + (gemini ? "gemini" : "none"));
		args.add("--fixes " + this.fixes.fixesArgument());
		args.add("- < /dev/null");
		return String.join(" ", args);
	}

	/** The {@code --set} arguments of {@code check} that state {@code limits} and the processor's rethrow. */
	static List<String> settings(Map<String, Object> limits, Boolean alwaysThrow) {
		List<String> args = new ArrayList<>();
		String p = "spring.ai.tools.limits.";
		if (limits.get("defaultMaxCallsPerTool") != null) {
			args.add("--set " + p + "max-calls-per-tool-default=" + limits.get("defaultMaxCallsPerTool"));
		}
		if (limits.get("maxCallsPerTool") instanceof Map<?, ?> m) {
			m.forEach((k, v) -> args.add("--set '" + p + "max-calls-per-tool[" + k + "]=" + v + "'"));
		}
		if (limits.get("toolsExcludedFromLimit") instanceof java.util.Collection<?> c && !c.isEmpty()) {
			args.add("--set " + p + "excluded-tools=" + String.join(",", c.stream().map(String::valueOf).toList()));
		}
		if (limits.get("maxTotalToolCalls") != null) {
			args.add("--set " + p + "max-total-tool-calls=" + limits.get("maxTotalToolCalls"));
		}
		if (limits.get("onLimitExceeded") != null) {
			args.add("--set " + p + "on-limit-exceeded=" + limits.get("onLimitExceeded"));
		}
		if (Boolean.TRUE.equals(alwaysThrow)) {
			args.add("--set spring.ai.tools.throw-exception-on-error=true");
		}
		return args;
	}

	/** The report as one line. */
	static String line(Map<String, Object> r) {
		StringBuilder b = new StringBuilder();
		r.forEach((k, v) -> {
			if (b.length() > 0) {
				b.append("; ");
			}
			b.append(k).append('=').append(v);
		});
		return b.toString();
	}

}
