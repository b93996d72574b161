package toolcallmodel.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

import io.github.toolcallmodel.judge.Judge;

/**
 * The judge's load and a path's first verdicts in this fresh JVM, in wall
 * time and in the thread's CPU time (which a busy machine inflates less than
 * JMH's wall clock): {@code java -cp ... toolcallmodel.bench.JudgeFirstVerdict
 * compiled|interpreted [PATHS [asked|report [warm|cold [safe|unsafe]]]]} prints
 * one line per step; {@code warm} warms the judge up after the load
 * ({@link Judge#warmUp()}, as the fix library does); {@code unsafe} asks about
 * paths without the library's fixes (upstream), which break, so that each
 * answer holds the remedy's search.
 */
public final class JudgeFirstVerdict {

	private JudgeFirstVerdict() {
	}

	public static void main(String[] args) {
		String machine = args.length > 0 ? args[0] : "compiled";
		int paths = args.length > 1 ? Integer.parseInt(args[1]) : 3;
		String question = args.length > 2 ? args[2] : "asked";
		boolean unsafe = args.length > 4 && "unsafe".equals(args[4]);
		ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
		long wall = System.nanoTime();
		long used = cpu.getCurrentThreadCpuTime();
		Judge judge = "compiled".equals(machine) ? Judge.load() : Judge.loadInterpreted();
		report(machine + " load", wall, used, cpu);
		if (args.length > 3 && "warm".equals(args[3])) {
			wall = System.nanoTime();
			used = cpu.getCurrentThreadCpuTime();
			judge.warmUp();
			report(machine + " warm-up", wall, used, cpu);
		}
		for (int i = 1; i <= paths; i++) {
			// Each path its own facts, as the library's paths differ (the window here).
			String facts = JudgeBench.path(question).replace("\"memory_window\":20", "\"memory_window\":" + (20 + i));
			if (unsafe) {
				facts = facts.replaceAll("\"(fixes|fix_library)\":\"[^\"]*\",", "");
			}
			wall = System.nanoTime();
			used = cpu.getCurrentThreadCpuTime();
			String answer = judge.judge(facts);
			if (!answer.contains("\"asked\"")) {
				throw new IllegalStateException(answer);
			}
			report(machine + " verdict of path " + i, wall, used, cpu);
		}
	}

	private static void report(String what, long wall, long used, ThreadMXBean cpu) {
		System.out.printf("%s: %d ms wall, %d ms CPU%n", what, (System.nanoTime() - wall) / 1_000_000,
				(cpu.getCurrentThreadCpuTime() - used) / 1_000_000);
	}

}
