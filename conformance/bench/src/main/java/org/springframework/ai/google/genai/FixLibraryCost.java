package org.springframework.ai.google.genai;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * {@link FixLibraryBench}'s sets measured side by side on a shared machine:
 * one JVM, the applications started together, and batches of turns taken from
 * each in turn (in a shuffled order every round), so that whatever else runs
 * weighs on all alike. Each set is {@code SET:MEMORY} ({@code off:outside},
 * {@code unset:inside}, ...); each is compared with {@code off} at the same
 * memory position, round by round. Prints, per set, the median and quartiles
 * of the batches' time per model call (a turn is two model calls) and the
 * per-round ratio to {@code off}: wall time, and the thread's CPU time, which
 * time spent waiting for a core on a busy machine does not inflate (the
 * garbage collector's threads are not in it: the bytes allocated per call
 * are printed beside it).
 *
 * <pre>
 * java -cp "target/classes:$(cat target/classpath.txt)" \
 *     org.springframework.ai.google.genai.FixLibraryCost [ROUNDS] [TURNS_PER_BATCH] [SET:MEMORY ...]
 * </pre>
 */
public final class FixLibraryCost {

	private FixLibraryCost() {
	}

	public static void main(String[] args) {
		int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 60;
		int batch = args.length > 1 ? Integer.parseInt(args[1]) : 200;
		String[] sets = args.length > 2 ? Arrays.copyOfRange(args, 2, args.length)
				: new String[] { "off:outside", "unset:outside", "off:inside", "unset:inside" };
		List<FixLibraryBench> benches = new ArrayList<>();
		for (String s : sets) {
			FixLibraryBench b = new FixLibraryBench();
			b.set = s.split(":")[0];
			b.memoryAt = s.split(":")[1];
			b.setup();
			benches.add(b);
		}
		// Warm up every set alike before measuring.
		for (int i = 0; i < 20; i++) {
			for (FixLibraryBench b : benches) {
				for (int t = 0; t < batch; t++) {
					b.turn();
				}
			}
		}
		double[][] perCall = new double[sets.length][rounds];
		double[][] cpuPerCall = new double[sets.length][rounds];
		double[][] bytesPerCall = new double[sets.length][rounds];
		com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory
			.getThreadMXBean();
		long self = Thread.currentThread().getId();
		List<Integer> order = new ArrayList<>();
		for (int i = 0; i < sets.length; i++) {
			order.add(i);
		}
		Random random = new Random(34);
		for (int r = 0; r < rounds; r++) {
			Collections.shuffle(order, random);
			for (int i : order) {
				FixLibraryBench b = benches.get(i);
				long bytes = threads.getThreadAllocatedBytes(self);
				long cpu = threads.getCurrentThreadCpuTime();
				long start = System.nanoTime();
				for (int t = 0; t < batch; t++) {
					b.turn();
				}
				perCall[i][r] = (System.nanoTime() - start) / (2.0 * batch);
				cpuPerCall[i][r] = (threads.getCurrentThreadCpuTime() - cpu) / (2.0 * batch);
				bytesPerCall[i][r] = (threads.getThreadAllocatedBytes(self) - bytes) / (2.0 * batch);
			}
		}
		for (FixLibraryBench b : benches) {
			b.tearDown();
		}
		System.out.printf("%d rounds of %d turns (2 model calls each) per set, interleaved%n", rounds, batch);
		print("wall time", sets, perCall, rounds);
		print("thread CPU time", sets, cpuPerCall, rounds);
		System.out.println("bytes allocated per call (median)");
		for (int i = 0; i < sets.length; i++) {
			System.out.printf("%-15s %12.0f%n", sets[i], quantile(bytesPerCall[i], 0.5));
		}
	}

	private static void print(String what, String[] sets, double[][] perCall, int rounds) {
		System.out.println(what + ": set, median ns/call, q1 .. q3, per-round ratio to off (q1 .. q3)");
		for (int i = 0; i < sets.length; i++) {
			String memory = sets[i].split(":")[1];
			int off = Arrays.asList(sets).indexOf("off:" + memory);
			double[] ratios = new double[rounds];
			for (int r = 0; r < rounds; r++) {
				ratios[r] = off < 0 ? Double.NaN : perCall[i][r] / perCall[off][r];
			}
			System.out.printf("%-15s %12.0f   %8.0f .. %8.0f   %.3f (%.3f .. %.3f)%n", sets[i], quantile(perCall[i], 0.5),
					quantile(perCall[i], 0.25), quantile(perCall[i], 0.75), quantile(ratios, 0.5),
					quantile(ratios, 0.25), quantile(ratios, 0.75));
		}
	}

	static double quantile(double[] values, double q) {
		double[] v = values.clone();
		Arrays.sort(v);
		return v[(int) Math.min(v.length - 1, Math.round(q * (v.length - 1)))];
	}

}
