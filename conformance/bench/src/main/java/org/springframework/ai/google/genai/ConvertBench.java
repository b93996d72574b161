package org.springframework.ai.google.genai;

import java.util.List;
import java.util.concurrent.TimeUnit;

import com.google.genai.types.Part;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import toolcallmodel.bench.Inputs;

import org.springframework.ai.chat.messages.ToolResponseMessage;

/**
 * The real conversion of one tool response: {@code messageToGeminiParts} of a
 * {@link ToolResponseMessage} with one response, which runs
 * {@code parseJsonToMap} (Jackson's {@code readValue(text, Object.class)})
 * and builds the part, on the inputs of {@code benches/convert.rs}. Text that
 * is not JSON fails as in Spring AI, with
 * {@code RuntimeException("Failed to parse JSON: ...")}; that exception is the
 * measured result.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ConvertBench {

	@Param({ "object-1KB", "nested-100KB", "text-200B", "object-10MB" })
	String input;

	ToolResponseMessage message;

	@Setup
	public void setup() {
		this.message = ToolResponseMessage.builder()
			.responses(List.of(new ToolResponseMessage.ToolResponse("id", "tool", Inputs.convertInput(this.input))))
			.build();
		Object r = messageToGeminiParts();
		boolean failed = r instanceof RuntimeException;
		if (failed != this.input.startsWith("text-")) {
			throw new IllegalStateException("unexpected outcome for " + this.input + ": " + r);
		}
	}

	@Benchmark
	public Object messageToGeminiParts() {
		try {
			List<Part> parts = BenchModel.MODEL.messageToGeminiParts(this.message);
			return parts;
		}
		catch (RuntimeException e) {
			return e;
		}
	}

}
