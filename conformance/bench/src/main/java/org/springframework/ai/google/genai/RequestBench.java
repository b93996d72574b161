package org.springframework.ai.google.genai;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;
import toolcallmodel.bench.Inputs;

import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.prompt.Prompt;

/**
 * The real {@code createGeminiRequest} for every model call of an R-round
 * turn, each request built from its whole history as 2.0.1 does: the Java
 * counterpart of {@code reconvert-every-round} in {@code benches/tool_loop.rs}
 * (same messages: a system and a user message, then per round two calls to
 * {@code weather} and their two JSON-object results).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RequestBench {

	@Param({ "1", "10", "50" })
	int rounds;

	List<Prompt> prompts;

	@Setup
	public void setup() {
		this.prompts = new ArrayList<>();
		for (List<Message> h : Inputs.loopHistories(this.rounds)) {
			this.prompts.add(new Prompt(h, BenchModel.OPTIONS));
		}
		var last = BenchModel.MODEL.createGeminiRequest(this.prompts.get(this.prompts.size() - 1));
		if (last.contents().size() != 1 + 2 * (this.rounds - 1)) {
			throw new IllegalStateException("unexpected request size " + last.contents().size());
		}
	}

	@Benchmark
	public void createGeminiRequestEveryRound(Blackhole bh) {
		for (Prompt p : this.prompts) {
			bh.consume(BenchModel.MODEL.createGeminiRequest(p));
		}
	}

}
