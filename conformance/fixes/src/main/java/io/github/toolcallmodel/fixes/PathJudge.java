package io.github.toolcallmodel.fixes;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import com.dylibso.chicory.runtime.ChicoryInterruptedException;
import io.github.toolcallmodel.judge.Judge;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * The judge of the request paths: {@code toolcall-model check}'s WebAssembly
 * module ({@link Judge}, run by Chicory) loaded and warmed up once, on the
 * application's judge thread, as the application starts, and asked for each
 * path's verdict there, so that no request waits for it. A module that does not load or answer is a warning;
 * the requests go on as before.
 */
final class PathJudge implements AutoCloseable {

	private static final Log log = LogFactory.getLog(PathJudge.class);

	private static final JsonMapper JSON = JsonMapper.builder().build();

	/**
	 * The judge's thread, its tasks by rank and, within a rank, in the order
	 * asked ({@link Ranked}): the load and warm-up, then the paths' first
	 * questions (the verdicts a path waits for when first seen), then their later
	 * ones (and {@link #settle}), then the foreseen questions.
	 */
	private final ThreadPoolExecutor thread = new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS,
			new PriorityBlockingQueue<>(), r -> {
				Thread t = new Thread(r, "toolcall-fixes-judge");
				t.setDaemon(true);
				return t;
			});

	private static final int LOAD = 0;

	private static final int FIRST = 1;

	private static final int LATER = 2;

	private static final int FORESEEN = 3;

	private final AtomicLong order = new AtomicLong();

	/** A task of the judge's thread and its place in the queue. */
	private record Ranked(int rank, long order, Runnable task) implements Runnable, Comparable<Ranked> {

		@Override
		public void run() {
			this.task.run();
		}

		@Override
		public int compareTo(Ranked other) {
			return this.rank != other.rank ? Integer.compare(this.rank, other.rank)
					: Long.compare(this.order, other.order);
		}

	}

	/** Queues {@code task} at {@code rank}; throws {@link RejectedExecutionException} once closed. */
	private void run(int rank, Runnable task) {
		this.thread.execute(new Ranked(rank, this.order.incrementAndGet(), task));
	}

	/**
	 * The module, loaded once for every application of the class loader (a
	 * test JVM starts many): its calls are serialized, and a verdict depends on
	 * its input alone.
	 */
	private static Judge judge;

	private static String loadFailure;

	private static volatile String loaded = "not yet (loading on the judge's thread)";

	/**
	 * Answers by input: a verdict is the module's for its input alone, and one
	 * costs far more than a look-up (BENCHMARKS.md, section 10). At most
	 * {@link #ANSWERS_KEPT}, the oldest dropped first.
	 */
	private static final Map<String, Verdict> answers = new java.util.LinkedHashMap<>(16, 0.75f, true) {
		@Override
		protected boolean removeEldestEntry(Map.Entry<String, Verdict> eldest) {
			return size() > ANSWERS_KEPT;
		}
	};

	static final int ANSWERS_KEPT = 256;

	/**
	 * Asks, on the judge's thread, for the verdict of the facts {@code input}
	 * gives when the task runs (the path's facts then, not when it was asked),
	 * and hands it to {@code done}; a failure is a warning and {@code failed}'s.
	 */
	void judge(java.util.function.Supplier<Map<String, Object>> input, Consumer<Verdict> done,
			Consumer<String> failed, boolean first) {
		long asked = System.nanoTime();
		try {
			run(first ? FIRST : LATER, () -> {
				if (this.closed) {
					failed.accept("the application is closing");
					return;
				}
				String why;
				try {
					Judge j = judgeLoaded();
					if (j != null) {
						String in = JSON.writeValueAsString(input.get());
						boolean foreseen = this.foreseenAnswered.contains(in);
						Verdict v = verdict(j, in);
						if (first) {
							this.firstVerdicts.add(foreseen, System.nanoTime() - asked);
						}
						done.accept(v);
						return;
					}
					why = loadFailure;
				}
				catch (RuntimeException | LinkageError e) {
					why = "the judge failed: " + e;
				}
				failed.accept(why);
			});
		}
		catch (RejectedExecutionException e) {
			failed.accept("the application is closing");
		}
	}

	private volatile String foresight = "";

	/** Closed with its application: the tasks still queued end at once. */
	private volatile boolean closed;

	/** A foreseen question is in the module: closing lets it end rather than interrupt it. */
	private volatile boolean foreseeing;

	/** The foreseen questions answered so far. */
	private final java.util.Set<String> foreseenAnswered = java.util.concurrent.ConcurrentHashMap.newKeySet();

	private final FirstVerdicts firstVerdicts = new FirstVerdicts();

	/** How long the paths waited for their first verdicts, from first seen to given, foreseen or not. */
	private static final class FirstVerdicts {

		private int foreseen;

		private int others;

		private long foreseenLongest;

		private long othersLongest;

		synchronized void add(boolean wasForeseen, long nanos) {
			if (wasForeseen) {
				this.foreseen++;
				this.foreseenLongest = Math.max(this.foreseenLongest, nanos);
			}
			else {
				this.others++;
				this.othersLongest = Math.max(this.othersLongest, nanos);
			}
		}

		synchronized String describe() {
			if (this.foreseen + this.others == 0) {
				return "";
			}
			return "; first verdicts: " + this.foreseen + " foreseen"
					+ (this.foreseen > 0 ? " (given in at most " + ms(this.foreseenLongest) + ")" : "") + ", "
					+ this.others + " not" + (this.others > 0 ? " (given in at most " + ms(this.othersLongest) + ")" : "");
		}

		private static String ms(long nanos) {
			return String.format(java.util.Locale.ROOT, "%.1f ms", nanos / 1e6);
		}

	}

	/** The foreseen questions' time on the judge's thread so far, and those the module failed; its thread's own. */
	private long foreseenNanos;

	private int foreseenFailed;

	/**
	 * Asks {@code questions} on the judge's thread, after every path's question
	 * (their rank is the last), keeping the answers for the paths that ask them;
	 * nothing is logged.
	 */
	void foresee(List<Map<String, Object>> questions) {
		this.foresight = "; foreseeing " + questions.size() + " paths' first questions";
		try {
			for (Map<String, Object> q : List.copyOf(questions)) {
				run(FORESEEN, () -> foreseeOne(q));
			}
			run(FORESEEN, () -> {
				if (!this.foresight.isEmpty()) {
					this.foresight = "; foresaw " + questions.size() + " paths' first questions in "
							+ TimeUnit.NANOSECONDS.toMillis(this.foreseenNanos) + " ms"
							+ (this.foreseenFailed > 0 ? " (" + this.foreseenFailed + " not answered)" : "");
				}
			});
		}
		catch (RejectedExecutionException e) {
			// Closing: nothing to foresee.
		}
	}

	private void foreseeOne(Map<String, Object> question) {
		if (this.closed || Thread.currentThread().isInterrupted() || this.foresight.isEmpty()) {
			this.foresight = "";
			return;
		}
		long start = System.nanoTime();
		this.foreseeing = true;
		try {
			Judge j = judgeLoaded();
			if (j == null) {
				this.foresight = "";
				return;
			}
			String in = JSON.writeValueAsString(question);
			verdict(j, in);
			this.foreseenAnswered.add(in);
		}
		catch (ChicoryInterruptedException e) {
			this.foresight = "";
			return;
		}
		catch (RuntimeException | LinkageError e) {
			// The path that asks it is told; the next questions are still worth asking.
			this.foreseenFailed++;
		}
		finally {
			this.foreseeing = false;
		}
		this.foreseenNanos += System.nanoTime() - start;
	}

	/** Loads and warms up the module on the judge's thread, ahead of the first path. */
	void preload() {
		try {
			run(LOAD, PathJudge::judgeLoaded);
		}
		catch (RejectedExecutionException e) {
			// Closing: the paths, if any, say so.
		}
	}

	private static Verdict verdict(Judge j, String input) {
		synchronized (answers) {
			Verdict known = answers.get(input);
			if (known != null) {
				return known;
			}
		}
		Verdict v;
		try {
			v = Verdict.of(j.judge(input));
		}
		catch (ChicoryInterruptedException e) {
			// Stopped inside the module (its application closed): its memory may be
			// mid-change, so the next question gets a module loaded afresh.
			discard(j);
			throw e;
		}
		synchronized (answers) {
			answers.put(input, v);
		}
		return v;
	}

	private static synchronized Judge judgeLoaded() {
		if (judge == null && loadFailure == null) {
			long start = System.nanoTime();
			try {
				Judge j = Judge.load();
				long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
				j.warmUp();
				long warm = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) - ms;
				judge = j;
				loaded = "loaded in " + ms + " ms and warmed up in " + warm + " ms (toolcall-model check's "
						+ "WebAssembly module on Chicory, compiled to JVM bytecode)";
				log.info("toolcall-fixes: the judge " + loaded);
			}
			catch (ChicoryInterruptedException e) {
				// The application closed while its thread loaded the module: not a
				// failure of the module; the next application's thread loads it.
				loaded = "not yet (a load was interrupted: its application closed)";
				return null;
			}
			catch (RuntimeException | LinkageError e) {
				loadFailure = "the judge did not load: " + e;
				loaded = loadFailure;
				log.warn("toolcall-fixes: " + loadFailure + "; request paths are reported without a verdict");
			}
		}
		return judge;
	}

	private static synchronized void discard(Judge j) {
		if (judge == j) {
			judge = null;
			loaded = "not yet (a question was interrupted: its application closed)";
		}
	}

	/** How the judge loaded, or why not, and what it foresaw, for the report. */
	String loaded() {
		return loaded + this.foresight + this.firstVerdicts.describe();
	}

	/**
	 * Waits until every verdict asked for so far is given (a first question
	 * asked meanwhile may be answered before it returns); for tests.
	 * @return whether they were given within {@code timeout}
	 */
	boolean settle(Duration timeout) {
		java.util.concurrent.CompletableFuture<Void> given = new java.util.concurrent.CompletableFuture<>();
		try {
			run(LATER, () -> given.complete(null));
			given.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
			return true;
		}
		catch (RejectedExecutionException e) {
			return false;
		}
		catch (Exception e) {
			return false;
		}
	}

	@Override
	public void close() {
		this.closed = true;
		if (this.foreseeing) {
			// Interrupted inside the module, a question leaves the module, which every
			// application of the class loader shares, to be loaded again; a foreseen one
			// ends within a fraction of a second, on a daemon thread.
			this.thread.shutdown();
		}
		else {
			this.thread.shutdownNow();
		}
	}

	/**
	 * A path's facts as the judge's input (docs/JUDGE.md): the same facts the
	 * path's {@code toolcall-model check} line states, field for flag, the
	 * findings accepted ({@code toolcall.fixes.judge.accept}), and the question
	 * a path asks ({@code "answer": "asked"}: the set in effect and, where it
	 * breaks, the remedy; not every behaviour set's report, which costs far more).
	 * No rule here: each field is a fact of the path or left to the judge's default.
	 */
	static Map<String, Object> input(Map<String, Object> facts, String provider, String tools, List<String> on,
			List<String> accepted) {
		Map<String, Object> in = new LinkedHashMap<>();
		Object version = facts.get("springAiVersion");
		if ("2.0.0".equals(version) || "2.0.1".equals(version)) {
			in.put("spring_ai", version);
		}
		if (facts.get("checkSettings") != null && facts.get("limits") instanceof Map<?, ?> limits) {
			in.put("limits", limits(limits));
		}
		if (Boolean.TRUE.equals(facts.get("throwExceptionOnError")) && facts.get("checkSettings") != null) {
			in.put("throw_exception_on_error", true);
		}
		in.put("processor", facts.getOrDefault("checkProcessor", "default"));
		in.put("memory", facts.get("memory"));
		if (facts.get("memoryWindow") instanceof Integer w) {
			in.put("memory_window", w);
		}
		in.put("provider", provider);
		in.put("streaming", "stream".equals(facts.get("mode")));
		if (tools != null) {
			in.put("tools", tools);
		}
		String set = on.isEmpty() ? "upstream" : String.join(",", on);
		in.put("fixes", set);
		in.put("fix_library", set);
		if (!accepted.isEmpty()) {
			in.put("accepted", List.copyOf(accepted));
		}
		in.put("answer", "asked");
		return in;
	}

	/** {@code ToolCallLimits}' fields under the judge's names; {@code NO_LIMIT} (-1) is unlimited. */
	private static Map<String, Object> limits(Map<?, ?> l) {
		Map<String, Object> out = new LinkedHashMap<>();
		if (l.get("defaultMaxCallsPerTool") instanceof Integer n) {
			out.put("max_calls_per_tool_default", n == -1 ? "unlimited" : n);
		}
		if (l.get("maxCallsPerTool") instanceof Map<?, ?> m && !m.isEmpty()) {
			Map<String, Object> per = new LinkedHashMap<>();
			m.forEach((k, v) -> per.put(String.valueOf(k), v));
			out.put("max_calls_per_tool", per);
		}
		if (l.get("toolsExcludedFromLimit") instanceof java.util.Collection<?> c && !c.isEmpty()) {
			List<String> names = new ArrayList<>();
			c.forEach(x -> names.add(String.valueOf(x)));
			out.put("excluded_tools", names);
		}
		if (l.get("maxTotalToolCalls") instanceof Integer n) {
			out.put("max_total_tool_calls", n == -1 ? "unlimited" : n);
		}
		if (l.get("onLimitExceeded") != null) {
			out.put("on_limit_exceeded", String.valueOf(l.get("onLimitExceeded")));
		}
		return out;
	}

}
