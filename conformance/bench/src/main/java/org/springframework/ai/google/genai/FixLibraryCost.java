package org.springframework.ai.google.genai;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * {@link FixLibraryBench}'s three sets measured side by side on a shared
 * machine: one JVM, the three applications started together, and batches of
 * turns taken from each in turn (in a shuffled order every round), so that
 * whatever else runs weighs on the three alike. Prints, per set, the median
 * and quartiles of the batches' time per model call (a turn is two model
 * calls) and the ratio of its median to the median with no switch.
 *
 * <pre>
 * java -cp "target/classes:$(cat target/classpath.txt)" \
 *     org.springframework.ai.google.genai.FixLibraryCost [ROUNDS] [TURNS_PER_BATCH]
 * </pre>
 */
public final class FixLibraryCost {

	private FixLibraryCost() {
	}

	public static void main(String[] args) {
		int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 60;
		int batch = args.length > 1 ? Integer.parseInt(args[1]) : 200;
		String[] sets = { "none", "default", "all" };
		List<FixLibraryBench> benches = new ArrayList<>();
		for (String s : sets) {
			FixLibraryBench b = new FixLibraryBench();
			b.set = s;
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
		List<Integer> order = new ArrayList<>(List.of(0, 1, 2));
		Random random = new Random(34);
		for (int r = 0; r < rounds; r++) {
			Collections.shuffle(order, random);
			for (int i : order) {
				FixLibraryBench b = benches.get(i);
				long start = System.nanoTime();
				for (int t = 0; t < batch; t++) {
					b.turn();
				}
				perCall[i][r] = (System.nanoTime() - start) / (2.0 * batch);
			}
		}
		for (FixLibraryBench b : benches) {
			b.tearDown();
		}
		double none = quantile(perCall[0], 0.5);
		System.out.printf("%d rounds of %d turns (2 model calls each) per set, interleaved%n", rounds, batch);
		System.out.println("set      median ns/call   q1 .. q3           ratio to none");
		for (int i = 0; i < sets.length; i++) {
			double m = quantile(perCall[i], 0.5);
			System.out.printf("%-8s %12.0f   %8.0f .. %8.0f   %.3f%n", sets[i], m, quantile(perCall[i], 0.25),
					quantile(perCall[i], 0.75), m / none);
		}
		// The ratio per round, its median: both sets saw the same load in a round.
		for (int i = 1; i < sets.length; i++) {
			double[] ratios = new double[rounds];
			for (int r = 0; r < rounds; r++) {
				ratios[r] = perCall[i][r] / perCall[0][r];
			}
			System.out.printf("%s / none per round: median %.3f (q1 %.3f, q3 %.3f)%n", sets[i], quantile(ratios, 0.5),
					quantile(ratios, 0.25), quantile(ratios, 0.75));
		}
	}

	static double quantile(double[] values, double q) {
		double[] v = values.clone();
		Arrays.sort(v);
		return v[(int) Math.min(v.length - 1, Math.round(q * (v.length - 1)))];
	}

}
