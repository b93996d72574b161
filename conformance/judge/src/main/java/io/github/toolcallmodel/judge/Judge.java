package io.github.toolcallmodel.judge;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;

import com.dylibso.chicory.runtime.ExportFunction;
import com.dylibso.chicory.runtime.Instance;
import com.dylibso.chicory.runtime.InterpreterMachine;
import com.dylibso.chicory.runtime.Machine;
import com.dylibso.chicory.runtime.Memory;
import com.dylibso.chicory.wasm.Parser;
import com.dylibso.chicory.wasm.WasmModule;

/**
 * {@code toolcall-model check}'s judge on the JVM: the WebAssembly module of
 * the repository's {@code judge/wasm} (docs/JUDGE.md), run by Chicory. Every
 * verdict and remedy is the module's; this class only moves JSON text in and
 * out of its memory.
 *
 * <pre>{@code
 * Judge judge = Judge.load();
 * String answer = judge.judge("{\"memory\": \"inside\"}");
 * // {"setup": ..., "sets": [...], "asked": {"set": "upstream", "exit": 1, ...}, "fix_it_today": {...}, ...}
 * }</pre>
 *
 * <p>
 * One instance holds one module instance, whose memory its calls share: the
 * calls are serialized. A call never throws for its input (an input the module
 * cannot read is an {@code {"error": ...}} answer); it throws
 * {@link com.dylibso.chicory.wasm.ChicoryException} only if the module itself
 * traps.
 */
public final class Judge {

	/** Where the jar holds the module (for the interpreter, and for anyone who wants the file). */
	public static final String RESOURCE = "/io/github/toolcallmodel/judge/judge.wasm";

	private final Instance instance;

	private final Memory memory;

	private final ExportFunction alloc;

	private final ExportFunction dealloc;

	private final ExportFunction judge;

	private final ExportFunction check;

	private Judge(WasmModule module, Function<Instance, Machine> machine) {
		this.instance = Instance.builder(module).withMachineFactory(machine).build();
		this.memory = this.instance.memory();
		this.alloc = this.instance.export("alloc");
		this.dealloc = this.instance.export("dealloc");
		this.judge = this.instance.export("judge");
		this.check = this.instance.export("check");
	}

	/**
	 * The module with its functions compiled to JVM bytecode when this jar was
	 * built (Chicory's build-time compiler): the fast way, and the default.
	 * @return a judge ready to answer
	 */
	public static Judge load() {
		return new Judge(JudgeModule.load(), JudgeModule::create);
	}

	/**
	 * The module read from the jar and run by Chicory's interpreter: the same
	 * answers, for comparing the two ways.
	 * @return a judge ready to answer
	 */
	public static Judge loadInterpreted() {
		try (InputStream in = Judge.class.getResourceAsStream(RESOURCE)) {
			if (in == null) {
				throw new IllegalStateException("no " + RESOURCE + " on the class path");
			}
			return new Judge(Parser.parse(in), InterpreterMachine::new);
		}
		catch (IOException e) {
			throw new UncheckedIOException(e);
		}
	}

	/**
	 * A request path's question, as the fix library asks it (docs/JUDGE.md,
	 * {@code "answer": "asked"}): the README's application with its memory
	 * inside the loop and the library's four fixes for it in effect, its tool
	 * outputs not seen yet.
	 */
	static final String WARM_UP = "{\"limits\":{\"max_calls_per_tool_default\":40,\"max_total_tool_calls\":150,"
			+ "\"on_limit_exceeded\":\"THROW\"},\"memory\":\"inside\","
			+ "\"fixes\":\"strict-json-or-wrap,close-dangling-calls,store-answered-generation,keep-current-turn\","
			+ "\"fix_library\":\"strict-json-or-wrap,close-dangling-calls,store-answered-generation,"
			+ "keep-current-turn\",\"answer\":\"asked\"}";

	/**
	 * Asks {@link #WARM_UP}, a request path's question, and drops the answer: the
	 * JVM runs a verdict's code once (its first run, in HotSpot's interpreter,
	 * costs several later ones), so that the next question, a real path's, is
	 * answered faster. For a caller that loads the judge before it needs it
	 * (BENCHMARKS.md, section 10).
	 * @return this judge
	 */
	public Judge warmUp() {
		judge(WARM_UP);
		return this;
	}

	/**
	 * A setup's facts to its verdicts, the gate and the remedy (the module's
	 * {@code judge} export; the fields are in docs/JUDGE.md).
	 * @param facts the facts as JSON text
	 * @return the answer as JSON text
	 */
	public String judge(String facts) {
		return call(this.judge, facts);
	}

	/**
	 * Configuration texts and {@code check}'s flags to what the command prints
	 * (the module's {@code check} export, docs/JUDGE.md).
	 * @param input {@code {"files": [...], "args": [...]}} as JSON text
	 * @return {@code {"exit", "stdout", "stderr", "sarif"}} as JSON text
	 */
	public String check(String input) {
		return call(this.check, input);
	}

	private synchronized String call(ExportFunction export, String input) {
		byte[] in = input.getBytes(StandardCharsets.UTF_8);
		int ptr = (int) this.alloc.apply(in.length)[0];
		this.memory.write(ptr, in);
		// The module takes the input's buffer back; the answer is ours to return.
		long packed = export.apply(ptr, in.length)[0];
		int at = (int) (packed >>> 32);
		int len = (int) packed;
		byte[] out = this.memory.readBytes(at, len);
		this.dealloc.apply(at, len);
		return new String(out, StandardCharsets.UTF_8);
	}

}
