package toolcallmodel.bench;

import java.util.concurrent.TimeUnit;

import io.github.toolcallmodel.judge.Judge;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The judge the fix library runs (toolcall-model check's WebAssembly module on
 * Chicory), as a running application meets it: each measurement in a JVM of
 * its own, nothing warmed, one shot. {@code load}: the module loaded (the
 * build-time compiled classes, or the module parsed for the interpreter);
 * {@code firstVerdict}: a request path's first verdict right after the load,
 * the first call of the JVM; {@code verdict}: one more path's verdict, warmed
 * (average time).
 *
 * <pre>
 * java -cp ... org.openjdk.jmh.Main 'JudgeBench.(load|firstVerdict)' -f 10
 * </pre>
 */
@State(Scope.Benchmark)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class JudgeBench {

	/**
	 * A request path's facts, as the library gives them: the README's
	 * application with its memory inside the loop, the library's fixes in effect.
	 */
	static final String PATH = "{\"spring_ai\":\"2.0.1\",\"limits\":{\"max_calls_per_tool_default\":40,"
			+ "\"max_total_tool_calls\":150,\"on_limit_exceeded\":\"THROW\"},\"processor\":\"default\","
			+ "\"memory\":\"inside\",\"memory_window\":20,\"provider\":\"gemini\",\"streaming\":false,"
			+ "\"tools\":\"text\",\"fixes\":\"strict-json-or-wrap,close-dangling-calls,store-answered-generation,"
			+ "keep-current-turn\",\"fix_library\":\"strict-json-or-wrap,close-dangling-calls,"
			+ "store-answered-generation,keep-current-turn\",\"answer\":\"asked\"}";

	/**
	 * {@link #PATH} asked as {@code question}: {@code asked} (the set in effect
	 * and its remedy, what the library asks) or {@code report} (every
	 * behaviour set and the remedy, check's whole answer).
	 */
	static String path(String question) {
		return PATH.replace("\"answer\":\"asked\"", "\"answer\":\"" + question + "\"");
	}

	@Param({ "compiled", "interpreted" })
	public String machine;

	/**
	 * Whether the load includes {@link Judge#warmUp()} (as the fix library
	 * loads it): {@code -p warmed=true}.
	 */
	@Param({ "false" })
	public boolean warmed;

	/** {@code asked}, or {@code report} with {@code -p question=report}. */
	@Param({ "asked" })
	public String question;

	private Judge loadNow() {
		Judge j = "compiled".equals(this.machine) ? Judge.load() : Judge.loadInterpreted();
		return this.warmed ? j.warmUp() : j;
	}

	/**
	 * The judge loaded before a verdict's measurement; a state of its own, so
	 * that {@link #load()} measures the JVM's first load, not a second one.
	 */
	@State(Scope.Benchmark)
	public static class Loaded {

		Judge judge;

		@Setup(Level.Iteration)
		public void loaded(JudgeBench bench) {
			this.judge = bench.loadNow();
		}

	}

	/** The module loaded in a fresh JVM. */
	@Benchmark
	@BenchmarkMode(Mode.SingleShotTime)
	@Fork(5)
	@Warmup(iterations = 0)
	@Measurement(iterations = 1)
	public Judge load() {
		return loadNow();
	}

	/** A path's first verdict, right after the load, in a fresh JVM. */
	@Benchmark
	@BenchmarkMode(Mode.SingleShotTime)
	@Fork(5)
	@Warmup(iterations = 0)
	@Measurement(iterations = 1)
	public String firstVerdict(Loaded loaded) {
		return loaded.judge.judge(path(this.question));
	}

	/** A verdict once the JVM has judged for a while. */
	@Benchmark
	@BenchmarkMode(Mode.AverageTime)
	@Fork(1)
	@Warmup(iterations = 3, time = 2)
	@Measurement(iterations = 3, time = 2)
	public String verdict(Loaded loaded) {
		return loaded.judge.judge(path(this.question));
	}

}
