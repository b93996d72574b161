package toolcallmodel.bench;

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

import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.DefaultToolCallingManager;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolExecutionResult;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.DefaultToolDefinition;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.ai.tool.metadata.ToolMetadata;

/**
 * The real {@code DefaultToolCallingManager.executeToolCalls}, one batch of N
 * calls over M request tools at turn length L, on the inputs of
 * {@code benches/manager.rs}: trivial tools returning {@code "ok"} (quoted),
 * both limits unlimited, the builder's defaults otherwise (no-op observation
 * registry, default exception processor).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ManagerBench {

	@Param({ "1", "10", "150" })
	int n;

	@Param({ "1", "100" })
	int m;

	@Param({ "0", "100", "10000" })
	int l;

	DefaultToolCallingManager manager;

	Prompt prompt;

	ChatResponse response;

	/** A tool whose every call returns the same text, like {@code ToolSpec::returning}. */
	static final class Trivial implements ToolCallback {

		private final ToolDefinition definition;

		private final ToolMetadata metadata = ToolMetadata.builder().build();

		Trivial(String name) {
			this.definition = DefaultToolDefinition.builder().name(name).description(name).inputSchema("{}").build();
		}

		@Override
		public ToolDefinition getToolDefinition() {
			return this.definition;
		}

		@Override
		public ToolMetadata getToolMetadata() {
			return this.metadata;
		}

		@Override
		public String call(String toolInput) {
			return "\"ok\"";
		}

	}

	@Setup
	public void setup() {
		List<ToolCallback> tools = new ArrayList<>();
		for (int i = 0; i < this.m; i++) {
			tools.add(new Trivial("tool" + i));
		}
		this.manager = DefaultToolCallingManager.builder().unlimitedCallsPerTool().unlimitedTotalToolCalls().build();
		this.prompt = new Prompt(Inputs.managerHistory(this.l, this.m),
				ToolCallingChatOptions.builder().toolCallbacks(tools).build());
		this.response = new ChatResponse(List.of(new Generation(Inputs.managerBatch(this.n, this.m))));
		// The batch must run through: every call answered.
		ToolExecutionResult r = this.manager.executeToolCalls(this.prompt, this.response);
		int expected = this.prompt.getInstructions().size() + 2;
		if (r.conversationHistory().size() != expected) {
			throw new IllegalStateException("unexpected history length " + r.conversationHistory().size());
		}
	}

	@Benchmark
	public ToolExecutionResult executeToolCalls() {
		return this.manager.executeToolCalls(this.prompt, this.response);
	}

}
