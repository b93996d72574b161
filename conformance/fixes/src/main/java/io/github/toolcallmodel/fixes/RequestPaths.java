package io.github.toolcallmodel.fixes;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.ai.chat.client.advisor.api.Advisor;
import org.springframework.ai.chat.client.advisor.api.BaseChatMemoryAdvisor;
import org.springframework.ai.chat.client.advisor.api.MemoryAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;

/**
 * The request paths the application uses, as the requests show them, and the
 * fixes decided from each: {@link FixingToolCallingAdvisor} reports every loop
 * it runs (its advisor chain as it stands at request time), the wrapped Gemini
 * model every request it converts outside such a loop. A path is logged when
 * first seen, with the facts of {@link Path#facts()} and its
 * {@code toolcall-model check} line; the Actuator endpoint lists them all.
 *
 * <p>
 * Decided here, per request: {@code close-dangling-calls} for a loop whose
 * chain has a memory advisor after the tool-calling advisor (the memory inside
 * the loop, built inline, per request or as a bean), when its switch is unset;
 * {@code store-answered-generation} and {@code keep-current-turn} turn on for
 * the {@code ChatMemory} bean the first time such a request is seen (they act
 * on the memory, which every path shares). A path the fixes cannot reach is
 * named once, with the line that reaches it.
 */
public final class RequestPaths implements AutoCloseable {

	private static final Log log = LogFactory.getLog(RequestPaths.class);

	/** Paths kept at most: an application has a few; past this, new ones are counted, not kept. */
	static final int MAX_PATHS = 64;

	private final InstalledFixes fixes;

	/** The application's facts every path shares (limits, processor, window), read once the context is up. */
	private final Supplier<Map<String, Object>> shared;

	private final Supplier<ChatMemory> memoryBean;

	/** By {@link Key} for the library's loop, by a name for the others. */
	private final Map<Object, Path> paths = new ConcurrentHashMap<>();

	/** A loop's path as its chain shows it: each advisor's class, name and order, and the mode. */
	static final class Key {

		final Class<?>[] classes;

		final String[] names;

		final int[] orders;

		final boolean stream;

		private final int hash;

		Key(List<? extends Advisor> chain, boolean stream) {
			int n = chain.size();
			this.classes = new Class<?>[n];
			this.names = new String[n];
			this.orders = new int[n];
			this.stream = stream;
			int h = stream ? 1 : 0;
			for (int i = 0; i < n; i++) {
				Advisor a = chain.get(i);
				this.classes[i] = a.getClass();
				this.names[i] = a.getName();
				this.orders[i] = a.getOrder();
				h = 31 * (31 * (31 * h + this.classes[i].hashCode()) + java.util.Objects.hashCode(this.names[i]))
						+ this.orders[i];
			}
			this.hash = h;
		}

		@Override
		public int hashCode() {
			return this.hash;
		}

		@Override
		public boolean equals(Object o) {
			return o instanceof Key k && k.hash == this.hash && k.stream == this.stream
					&& java.util.Arrays.equals(k.orders, this.orders) && java.util.Arrays.equals(k.classes, this.classes)
					&& java.util.Arrays.equals(k.names, this.names);
		}

	}

	private final Set<String> warned = ConcurrentHashMap.newKeySet();

	private final List<String> lines = java.util.Collections.synchronizedList(new ArrayList<>());

	private volatile int dropped;

	private final PathJudge judge = new PathJudge();

	RequestPaths(InstalledFixes fixes, Supplier<Map<String, Object>> shared, Supplier<ChatMemory> memoryBean) {
		this.fixes = fixes;
		this.shared = shared;
		this.memoryBean = memoryBean;
		if (judging()) {
			this.judge.preload();
		}
	}

	/**
	 * Has the judge ask, once it is loaded and while no path waits, the first
	 * question of each path this application's beans let its requests take, so
	 * that a path which asks one finds its verdict given: a path's first
	 * question holds no tool output yet, and its other facts are the
	 * application's (version, limits, policy, processor, the fixes), the
	 * memory's position and window and the mode. Foreseen, each in call and
	 * stream: where the ToolCallingAdvisor.Builder bean is the library's
	 * ({@code loop}), its loop with no memory and, given a ChatMemory bean, with
	 * a memory advisor on it outside and inside the loop; where a model is
	 * wrapped ({@code model}), Spring's own ChatClient loop on a manager of its
	 * own and the model called directly; and the paths without the memory
	 * inside again as they ask once a path with it has turned the memory's
	 * fixes on (where it turns any on). {@code managerFixed}: whether the
	 * ToolCallingManager bean is the library's. Each question is built by the
	 * code that builds a path's, the decisions a path would make taken as made,
	 * and asked once; a path the application takes otherwise is judged when it
	 * comes.
	 */
	void foresee(boolean loop, boolean managerFixed, boolean model) {
		if (!judging() || !this.fixes.properties().getJudge().isForesee()) {
			return;
		}
		ChatMemory bean = this.memoryBean.get();
		// What the first request with the memory inside decides is in effect from then
		// on, for every path (those fixes act on the bean).
		List<String> onceInside = bean == null ? List.of()
				: turnedOnInside(bean).stream().filter(f -> this.fixes.decision(f, true, "").on()).toList();
		List<Path> others = new ArrayList<>();
		List<Path> inside = new ArrayList<>();
		for (boolean stream : new boolean[] { false, true }) {
			for (String memory : !loop ? List.<String>of() : bean == null ? List.of("none") : List.of("none", "outside")) {
				others.add(new Path(loopFacts(memory, bean, stream), false));
			}
			if (loop && bean != null) {
				inside.add(new Path(loopFacts("inside", bean, stream), closeDangling(true, managerFixed)));
			}
			for (boolean client : model ? new boolean[] { true, false } : new boolean[0]) {
				others.add(new Path(outsideFacts(client, stream), false));
			}
		}
		// The paths as they first ask before any path with the memory inside, those
		// with it, then the others as they ask after one (where it turns fixes on).
		java.util.Set<Map<String, Object>> questions = new java.util.LinkedHashSet<>();
		others.forEach(p -> questions.add(p.judgeInput()));
		inside.forEach(p -> questions.add(p.judgeInput(onceInside)));
		if (!onceInside.isEmpty()) {
			others.forEach(p -> questions.add(p.judgeInput(onceInside)));
		}
		this.foreseen = List.copyOf(questions);
		if (!questions.isEmpty()) {
			this.judge.foresee(this.foreseen);
		}
	}

	/** The facts of a path of the library's loop that a foreseen question starts from: no chain seen yet. */
	private Map<String, Object> loopFacts(String memory, ChatMemory bean, boolean stream) {
		Map<String, Object> f = new LinkedHashMap<>();
		f.put("libraryLoop", true);
		f.put("mode", stream ? "stream" : "call");
		memoryFacts(f, memory, !memory.equals("none"), bean);
		return f;
	}

	/**
	 * Adds a loop path's memory facts to {@code f}, then the application's:
	 * where its memory advisor stands ({@code position}), and, where it has one
	 * ({@code advisor}), the memory it stores into and its window.
	 */
	private void memoryFacts(Map<String, Object> f, String position, boolean advisor, ChatMemory memory) {
		f.put("memory", position);
		if (advisor) {
			f.put("chatMemory", memory == null ? "unknown" : memory == this.memoryBean.get() ? "the ChatMemory bean"
					: GeminiSafeChatModel.targetClass(memory).getName());
			Integer window = ToolCallFixesReport.window(memory);
			if (window != null) {
				f.put("memoryWindow", window);
			}
		}
		f.putAll(this.shared.get());
	}

	private volatile List<Map<String, Object>> foreseen = List.of();

	/** The questions {@link #foresee} had the judge ask, in order; for tests. */
	List<Map<String, Object>> foreseen() {
		return this.foreseen;
	}

	/** Stops the judge's thread with the application. */
	@Override
	public void close() {
		this.judge.close();
	}

	/** The verdicts off: why, for the report and each path. */
	static final String VERDICTS_OFF = "verdicts off (toolcall.fixes.judge.enabled=false): no module loaded";

	/** How the judge loaded, or why it did not. */
	String judgeLoaded() {
		return judging() ? this.judge.loaded() : VERDICTS_OFF;
	}

	private boolean judging() {
		return this.fixes.properties().getJudge().isEnabled();
	}

	/**
	 * Waits until every verdict asked for so far is given.
	 * @param timeout how long to wait at most
	 * @return whether they were all given in time
	 */
	public boolean verdictsSettled(java.time.Duration timeout) {
		return this.judge.settle(timeout);
	}

	/** Requests of a path whose tool responses are all classified JSON or text; after them, one in {@link #SAMPLE}. */
	static final int FIRST = 64;

	static final int SAMPLE = 64;

	/** Whether {@code manager} is the library's, on the version its fixes read. */
	boolean fixedManager(Object manager) {
		return this.fixes.fixedManager(manager);
	}

	/** Whether {@code close-dangling-calls} acts on a loop path: its memory inside, on the library's manager. */
	private boolean closeDangling(boolean memoryInside, boolean managerFixed) {
		return memoryInside && managerFixed && this.fixes.mayBeOn("close-dangling-calls");
	}

	/** One request path: its facts, the fixes in effect on it, and what its requests showed since. */
	public final class Path {

		private final Map<String, Object> facts;

		final boolean closeDangling;

		private volatile boolean json;

		private volatile boolean text;

		private volatile String model = "not yet seen";

		/** The path's number in the log, from 1; 0 for a path past {@link #MAX_PATHS}. */
		private volatile int number;

		private volatile String verdict = "not yet judged";

		/** The judge's input the verdict answers, to judge again when the facts grow. */
		private volatile Map<String, Object> judged;

		/** The path's first question, as first seen; for tests. */
		private volatile Map<String, Object> firstQuestion;

		/** Tool responses classified so far: the first ones all, then one request in {@link #SAMPLE}. */
		private int requests;

		Path(Map<String, Object> facts, boolean closeDangling) {
			this.facts = facts;
			this.closeDangling = closeDangling;
		}

		/** What a request of this path sent the model: its model class, and its last tool responses. */
		void sent(Class<?> modelClass, Prompt prompt) {
			String name = modelClass.getName();
			String before = tools();
			if (!name.equals(this.model)) {
				this.model = name;
				judgeAgain();
			}
			int n = this.requests++;
			if (this.json && this.text || n >= FIRST && n % SAMPLE != 0) {
				return;
			}
			List<Message> m = prompt.getInstructions();
			if (!m.isEmpty() && m.get(m.size() - 1) instanceof ToolResponseMessage tool) {
				for (ToolResponseMessage.ToolResponse r : tool.getResponses()) {
					if (StrictJson.isWholeValue(r.responseData())) {
						this.json = true;
					}
					else {
						this.text = true;
					}
				}
			}
			if (!java.util.Objects.equals(before, tools())) {
				judgeAgain();
			}
		}

		/** The facts grew (the model, the tool outputs seen): their verdict, where it differs from the one given. */
		private void judgeAgain() {
			if (this.number > 0 && this.judged != null && !judgeInput().equals(this.judged)) {
				judgeNow(false);
			}
		}

		/** Asks the judge for this path's verdict; the first one, and any that changes, is logged. */
		void judgeNow(boolean first) {
			if (!judging()) {
				this.verdict = "not judged: " + VERDICTS_OFF;
				return;
			}
			// The first question is the path's as first seen (one the judge may have
			// foreseen), what its requests show meanwhile asked again (judgeAgain); a
			// later one asks the facts as they stand when the judge gets to it.
			Map<String, Object> seen = first ? judgeInput() : null;
			if (seen != null) {
				this.judged = seen;
				this.firstQuestion = seen;
			}
			RequestPaths.this.judge.judge(() -> {
				Map<String, Object> in = seen != null ? seen : judgeInput();
				this.judged = in;
				return in;
			}, v -> {
				String line = v.line();
				boolean changed = !line.equals(this.verdict);
				this.verdict = line;
				if (first || changed) {
					log("toolcall-fixes: request path " + this.number + (first ? ": " : ": now ") + line, !v.safe());
				}
			}, why -> {
				this.verdict = "not judged: " + why;
				if (first) {
					log.warn("toolcall-fixes: request path " + this.number + " not judged: " + why);
				}
			}, first);
			if (first) {
				// Facts that grew between the path's first sight and `judged` set.
				judgeAgain();
			}
		}

		/**
		 * The path's number, as the log names it ({@code request path N}).
		 * @return from 1, in the order first seen
		 */
		public int number() {
			return this.number;
		}

		/** The path's first question to the judge, its facts as first seen ({@code null}: not asked). */
		Map<String, Object> firstQuestion() {
			return this.firstQuestion;
		}

		/**
		 * The judge's input for this path (docs/JUDGE.md): its facts as they stand.
		 * @return the input as a plain map
		 */
		public Map<String, Object> judgeInput() {
			return judgeInput(List.of());
		}

		/** {@link #judgeInput()} with {@code alsoOn} on as well (foreseen decisions). */
		private Map<String, Object> judgeInput(List<String> alsoOn) {
			return PathJudge.input(this.facts, provider(), tools(), fixesOn(alsoOn),
					RequestPaths.this.fixes.properties().getJudge().getAccept());
		}

		/**
		 * The judge's verdict on this path: {@code safe}, {@code not safe: ...;
		 * remedy: ...}, {@code not yet judged} or {@code not judged: WHY}.
		 * @return the verdict's line
		 */
		public String verdict() {
			return this.verdict;
		}

		private String provider() {
			return this.model.equals(ToolCallFixesReport.GEMINI) || "not yet seen".equals(this.model)
					&& Boolean.TRUE.equals(this.facts.get("geminiBean")) ? "gemini" : "none";
		}

		/** The tool outputs seen so far, as {@code check --tools} reads them ({@code null}: none yet). */
		String tools() {
			return this.json && this.text ? "mixed" : this.json ? "json" : this.text ? "text" : null;
		}

		/**
		 * The facts of this path, as a plain map (strings, numbers, booleans,
		 * lists and maps of them): how the client was built, the advisor chain and
		 * its orders, the memory's position and window, the model, call or
		 * stream, the processor, policy and limits, the tool outputs seen, the
		 * fixes in effect and the {@code toolcall-model check} line.
		 */
		public Map<String, Object> facts() {
			Map<String, Object> out = new LinkedHashMap<>(this.facts);
			out.put("model", this.model);
			out.put("toolOutputs", tools() == null ? "none yet" : tools());
			List<String> on = fixesOn(List.of());
			out.put("fixes", on);
			out.put("check", check(on));
			out.put("verdict", this.verdict);
			return out;
		}

		/**
		 * The fixes in effect on this path: the manager's only in the library's
		 * loop; {@code alsoOn}: fixes taken as decided on.
		 */
		private List<String> fixesOn(List<String> alsoOn) {
			List<String> on = new ArrayList<>();
			boolean loop = Boolean.TRUE.equals(this.facts.get("libraryLoop"));
			FixSet manager = FixSet.changing("manager");
			for (Map.Entry<String, InstalledFixes.Decision> e : RequestPaths.this.fixes.decisions().entrySet()) {
				String f = e.getKey();
				boolean decided = e.getValue().on() || alsoOn.contains(f);
				boolean isOn = f.equals("close-dangling-calls") ? this.closeDangling || (loop && decided)
						: FixTable.has(f) && manager.has(f) ? loop && decided : decided;
				if (isOn && !f.equals("json-error-processor")) {
					on.add(f);
				}
			}
			return on;
		}

		private String check(List<String> on) {
			Map<String, Object> s = this.facts;
			List<String> args = new ArrayList<>(List.of("toolcall-model", "check", "--format", "properties"));
			if (s.get("checkSettings") instanceof List<?> settings) {
				settings.forEach(x -> args.add(String.valueOf(x)));
			}
			args.add("--processor " + s.getOrDefault("checkProcessor", "default"));
			args.add("--memory " + s.get("memory"));
			if (s.get("memoryWindow") instanceof Integer w) {
				args.add("--memory-window " + w);
			}
			args.add("--provider " + provider());
			if (tools() != null) {
				args.add("--tools " + tools());
			}
			if ("stream".equals(s.get("mode"))) {
				args.add("--streaming");
			}
			args.add("--fixes " + (on.isEmpty() ? "upstream" : String.join(",", on)));
			args.add("- < /dev/null");
			return String.join(" ", args);
		}

	}

	/**
	 * A loop of {@code advisor} starts, on a request whose chain is
	 * {@code chain}: the path it belongs to, with {@code close-dangling-calls}
	 * decided for it.
	 */
	Path loop(FixingToolCallingAdvisor advisor, List<? extends Advisor> chain, boolean stream,
			boolean managerFixed) {
		Key key = new Key(chain, stream);
		Path known = this.paths.get(key);
		if (known != null) {
			return known;
		}
		boolean after = false;
		List<Advisor> inside = null;
		boolean outside = false;
		for (Advisor a : chain) {
			if (a == advisor) {
				after = true;
			}
			else if (a instanceof MemoryAdvisor) {
				if (after) {
					if (inside == null) {
						inside = new ArrayList<>(1);
					}
					inside.add(a);
				}
				else {
					outside = true;
				}
			}
		}
		return newLoopPath(key, advisor, chain, stream, managerFixed, inside, outside);
	}

	private synchronized Path newLoopPath(Key key, FixingToolCallingAdvisor advisor, List<? extends Advisor> chain,
			boolean stream, boolean managerFixed, List<Advisor> inside, boolean outside) {
		Path known = this.paths.get(key);
		if (known != null) {
			return known;
		}
		boolean memoryInside = inside != null;
		if (memoryInside) {
			memoryInsideSeen(inside.get(0), advisor.getOrder(), managerFixed);
		}
		boolean close = closeDangling(memoryInside, managerFixed);
		Map<String, Object> f = new LinkedHashMap<>();
		f.put("client", "a ChatClient whose ToolCallingAdvisor is the library's " + advisor.getClass().getName()
				+ " (the ChatClient.Builder bean, or a builder given its ToolCallingAdvisor.Builder)");
		f.put("libraryLoop", true);
		f.put("mode", stream ? "stream" : "call");
		List<String> advisors = new ArrayList<>();
		for (Advisor a : chain) {
			advisors.add(a.getName() + " (" + GeminiSafeChatModel.targetClass(a).getSimpleName() + ", order "
					+ a.getOrder() + ")");
		}
		f.put("advisorChain", advisors);
		f.put("toolCallingAdvisorOrder", advisor.getOrder());
		Advisor memoryAdvisor = memoryInside ? inside.get(0) : firstMemory(chain);
		memoryFacts(f, memoryInside ? "inside" : outside ? "outside" : "none", memoryAdvisor != null,
				memoryAdvisor == null ? null : memoryOf(memoryAdvisor));
		if (memoryInside && this.fixes.mayBeOn("close-dangling-calls") && !managerFixed) {
			notReached("close-dangling-calls: the ToolCallingAdvisor's manager is not the library's "
					+ "FixingToolCallingManager, so a batch that stops leaves calls without responses in the memory "
					+ "inside the loop; build the advisor on the ToolCallingManager bean (the ChatClient.Builder bean "
					+ "does)");
		}
		return add(key, new Path(f, close));
	}

	/**
	 * A request with tools or tool responses reached the model outside the
	 * library's loop; {@code client}: Spring's {@code ChatClient} sent it.
	 */
	void outside(Class<?> modelClass, Prompt prompt, boolean stream, boolean client) {
		boolean tools = prompt.getOptions() instanceof ToolCallingChatOptions o && o.getToolCallbacks() != null
				&& !o.getToolCallbacks().isEmpty();
		boolean responses = prompt.getInstructions().stream().anyMatch(m -> m instanceof ToolResponseMessage);
		if (!tools && !responses) {
			return;
		}
		String mode = stream ? "stream" : "call";
		String key = (client ? "client-other " : "direct ") + mode;
		Path path = this.paths.get(key);
		if (path == null) {
			path = newOutsidePath(key, client, stream);
		}
		path.sent(modelClass, prompt);
	}

	private synchronized Path newOutsidePath(String key, boolean client, boolean stream) {
		Path known = this.paths.get(key);
		if (known != null) {
			return known;
		}
		if (client && this.fixes.internals()) {
			notReached("a ChatClient built with ChatClient.builder(chatModel) or ChatClient.create(chatModel) "
					+ "runs its tools on a ToolCallingManager of its own: neither the application's "
					+ "spring.ai.tools.limits nor the manager fixes reach it; build the client from the "
					+ "ChatClient.Builder bean, or: ChatClient.builder(chatModel, observationRegistry, null, null, "
					+ "toolCallingAdvisorBuilder) with the ToolCallingAdvisor.Builder bean");
		}
		return add(key, new Path(outsideFacts(client, stream), false));
	}

	/** The facts of a path outside the library's loop: Spring's {@code ChatClient} on a manager of its own, or none. */
	private Map<String, Object> outsideFacts(boolean client, boolean stream) {
		Map<String, Object> f = new LinkedHashMap<>();
		f.put("client", client ? "a ChatClient whose ToolCallingAdvisor is Spring's own, on a ToolCallingManager of "
				+ "its own (ChatClient.builder(chatModel) or ChatClient.create(chatModel))"
				: "the model called directly (chatModel.call(prompt) or stream(prompt)): the application runs the tools");
		f.put("libraryLoop", false);
		f.put("mode", stream ? "stream" : "call");
		f.put("advisorChain", "not seen (the model sees the request only)");
		f.put("memory", "none");
		Map<String, Object> shared = new LinkedHashMap<>(this.shared.get());
		if (client) {
			// Not the ToolCallingManager bean: Spring's defaults, no limits.
			shared.remove("checkSettings");
			shared.put("limits", "none (ChatClient.builder(chatModel) builds its own ToolCallingManager)");
			shared.put("processor", "Spring's default");
			shared.put("checkProcessor", "default");
		}
		else {
			shared.remove("checkSettings");
			shared.put("limits", "the application's own loop");
		}
		f.putAll(shared);
		return f;
	}

	private Path add(Object key, Path path) {
		if (this.paths.size() >= MAX_PATHS) {
			this.dropped++;
			return path;
		}
		this.paths.put(key, path);
		path.number = this.paths.size();
		Map<String, Object> facts = path.facts();
		facts.remove("verdict");
		String line = "toolcall-fixes: request path " + path.number + ": " + ToolCallFixesReport.line(facts);
		log.info(line);
		this.lines.add(line);
		path.judgeNow(true);
		return path;
	}

	/** A verdict's line, logged (a warning when the path is not safe); {@link #lines()} keeps the facts' lines. */
	private void log(String line, boolean warn) {
		if (warn) {
			log.warn(line);
		}
		else {
			log.info(line);
		}
	}

	/**
	 * Every path kept, for the judge's gate in an application's tests.
	 * @return the paths, in no order
	 */
	public List<Path> paths() {
		return List.copyOf(this.paths.values());
	}

	/** The first request whose memory advisor runs inside the loop: the memory fixes of the ChatMemory bean. */
	private void memoryInsideSeen(Advisor memoryAdvisor, int toolOrder, boolean managerFixed) {
		String why = "a request's memory advisor " + memoryAdvisor.getName() + " (order " + memoryAdvisor.getOrder()
				+ ") runs inside the tool loop (ToolCallingAdvisor order " + toolOrder + ")";
		ChatMemory memory = memoryOf(memoryAdvisor);
		if (memory != null && !(memory instanceof AnsweredGenerationChatMemory)) {
			notReached("the memory advisor " + memoryAdvisor.getName() + " stores into a "
					+ GeminiSafeChatModel.targetClass(memory).getName() + " of its own, not the ChatMemory bean, which "
					+ "store-answered-generation and keep-current-turn do not reach; build it on the ChatMemory bean, "
					+ "or on new AnsweredGenerationChatMemory(new TurnKeepingWindowChatMemory(repository, maxMessages, "
					+ "true, false))");
		}
		for (String fix : turnedOnInside(memory)) {
			this.fixes.decide(fix, true, why);
			String line = "toolcall-fixes: installed " + fix + " (" + why + ")";
			log.info(line);
			this.lines.add(line);
		}
		if (managerFixed) {
			log.info("toolcall-fixes: close-dangling-calls on for requests like this one (" + why + ")");
		}
	}

	/**
	 * The memory fixes the first request with a memory advisor inside the loop,
	 * storing into {@code memory}, turns on (those still unset): the ChatMemory
	 * bean's, which every path shares.
	 */
	private List<String> turnedOnInside(ChatMemory memory) {
		ChatMemory window = memory instanceof AnsweredGenerationChatMemory a ? a.getDelegate() : memory;
		List<String> on = new ArrayList<>(2);
		on.add("store-answered-generation");
		if (window == null || window instanceof TurnKeepingWindowChatMemory) {
			on.add("keep-current-turn");
		}
		on.removeIf(fix -> this.fixes.set(fix) != null || this.fixes.on(fix));
		return on;
	}

	private void notReached(String what) {
		if (this.warned.add(what)) {
			String line = "toolcall-fixes: not reached: " + what;
			log.warn(line);
			this.lines.add(line);
		}
	}

	private static Advisor firstMemory(List<? extends Advisor> chain) {
		return chain.stream().filter(a -> a instanceof MemoryAdvisor).findFirst().orElse(null);
	}

	/** The memory an advisor stores into, where it says ({@code null}: unknown). */
	static ChatMemory memoryOf(Advisor advisor) {
		if (!(advisor instanceof BaseChatMemoryAdvisor)) {
			return null;
		}
		for (Class<?> c = advisor.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
			for (java.lang.reflect.Field field : c.getDeclaredFields()) {
				if (ChatMemory.class.isAssignableFrom(field.getType())) {
					try {
						field.setAccessible(true);
						return (ChatMemory) field.get(advisor);
					}
					catch (ReflectiveOperationException | RuntimeException e) {
						return null;
					}
				}
			}
		}
		return null;
	}

	/** Every path seen, in no order, as plain facts. */
	public List<Map<String, Object>> facts() {
		List<Map<String, Object>> out = new ArrayList<>();
		for (Path p : this.paths.values()) {
			out.add(p.facts());
		}
		return out;
	}

	/** Paths seen past {@link #MAX_PATHS}, not kept. */
	public int dropped() {
		return this.dropped;
	}

	/** The lines logged so far: paths first seen, fixes decided from a request, paths not reached. */
	public List<String> lines() {
		synchronized (this.lines) {
			return List.copyOf(this.lines);
		}
	}

}
