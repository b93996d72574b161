package toolcallmodel.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.metadata.ChatGenerationMetadata;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolExecutionResult;

/**
 * Runs toolcall-model/1 vectors on the real Spring AI classes of one version
 * ({@link Upstream#VERSION}, the Maven profile it was built with), and hands
 * each vector whose {@code spring_ai} names another version to a runner of
 * that version ({@link Other}), whose line it prints as is.
 *
 * <p>
 * {@code java ... Runner FILE...} or, with {@code -}, one path per line on
 * standard input. For each vector it prints one JSON line:
 * {@code {"path", "status": "result", "result": {...}}} in the shape of
 * {@code toolcall-model run} (a vector with fixes runs with the fix library
 * installed, and its line also holds {@code "upstream"}: the result without
 * the fixes), {@code {"path", "status": "out_of_scope", "reason"}}
 * for a vector the real classes cannot express, or
 * {@code {"path", "status": "fault", "reason"}} for a vector that is not valid.
 */
public final class Runner {

	private Runner() {
	}

	public static void main(String[] args) throws IOException {
		PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false,
				StandardCharsets.UTF_8);
		if (args.length == 2 && args[0].equals("--expect")) {
			out.println(withExpect(args[1]));
			out.flush();
			return;
		}
		List<String> paths = new ArrayList<>();
		boolean stdin = false;
		for (String a : args) {
			if (a.equals("-")) {
				stdin = true;
			}
			else {
				paths.add(a);
			}
		}
		if (stdin) {
			BufferedReader r = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
			for (String line; (line = r.readLine()) != null;) {
				if (!line.isBlank()) {
					out.println(printed(line.strip()));
					out.flush();
				}
			}
		}
		for (String p : paths) {
			out.println(printed(p));
		}
		out.flush();
	}

	/**
	 * {@code --expect FILE}: the vector with its {@code expect} replaced by what
	 * the real classes produce, pretty-printed, to adopt a vector whose
	 * expectation comes from Java. A vector that does not run is an error.
	 */
	static String withExpect(String path) throws IOException {
		String forwarded = Other.forwarded(path);
		Map<String, Object> line = forwarded != null ? Json.obj(Json.parse(forwarded), "") : runFile(path);
		if (!"result".equals(line.get("status"))) {
			System.err.println("error: " + path + ": " + line.get("status") + ": " + line.get("reason"));
			System.exit(1);
		}
		Map<String, Object> vector = Json.obj(Json.parse(Files.readString(Path.of(path), StandardCharsets.UTF_8)),
				"");
		vector.put("expect", line.get("result"));
		return Json.MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(vector);
	}

	/** The printed line of one vector; a result that cannot be written is a fault, not the end of the run. */
	static String printed(String path) {
		try {
			String forwarded = Other.forwarded(path);
			return forwarded != null ? forwarded : Json.write(runFile(path));
		}
		catch (RuntimeException e) {
			String why = String.valueOf(e);
			return Json.write(Json.map("path", path, "status", "fault", "reason",
					"runner: cannot write the result: " + why.substring(0, Math.min(why.length(), 500))));
		}
	}

	static Map<String, Object> runFile(String path) {
		Map<String, Object> line = Json.map("path", path);
		try {
			String text = Files.readString(Path.of(path), StandardCharsets.UTF_8);
			Map<String, Object> vector = Json.obj(Json.parse(text), "");
			String version = Other.version(vector);
			if (!version.equals(Upstream.VERSION)) {
				throw new Json.Fault("/spring_ai: this runner runs Spring AI " + Upstream.VERSION
						+ " and knows no runner of Spring AI '" + version + "'");
			}
			Map<String, Object> result = run(vector);
			line.put("status", "result");
			line.put("result", result);
			if (Fixes.of(vector.get("fixes")).any()) {
				// The same vector on the released classes alone, so that its
				// upstream claims are judged too.
				Map<String, Object> upstream = new java.util.LinkedHashMap<>(vector);
				upstream.remove("fixes");
				try {
					line.put("upstream", run(upstream));
				}
				catch (Json.Fault e) {
					// A fault met while running (the loop's guard reached) is
					// compared with the model's.
					line.put("upstream", Json.map("fault", e.getMessage()));
				}
				catch (Json.OutOfScope e) {
					line.put("upstream", null);
				}
			}
		}
		catch (Json.OutOfScope e) {
			line.put("status", "out_of_scope");
			line.put("reason", e.getMessage());
		}
		catch (Json.Fault e) {
			line.put("status", "fault");
			line.put("reason", e.getMessage());
		}
		catch (Throwable e) {
			line.put("status", "fault");
			line.put("reason", "runner: " + e);
		}
		return line;
	}

	static Map<String, Object> run(Map<String, Object> vector) {
		if (!"toolcall-model/1".equals(vector.get("format"))) {
			throw new Json.Fault("/format: not toolcall-model/1");
		}
		List<Object> advisors = Json.arr(vector.get("advisors"), "/advisors");
		String op = Json.str(vector.get("op"), "/op");
		Map<String, Object> input = Json.obj(vector.get("input"), "/input");
		if (op == null) {
			throw new Json.Fault("/op: missing");
		}
		// The seed's workaround advisor (written from its description) runs in
		// the tool loop; no other advisor is known.
		boolean geminiToolText = false;
		boolean feedback = false;
		for (int i = 0; i < advisors.size(); i++) {
			if ("gemini-tool-text".equals(advisors.get(i)) && op.equals("tool_loop")) {
				geminiToolText = true;
			}
			else if ("tool-feedback".equals(advisors.get(i)) && op.equals("tool_loop")) {
				feedback = true;
			}
			else {
				throw new Json.OutOfScope("advisors are not in Spring AI " + Upstream.VERSION);
			}
		}
		return switch (op) {
			case "execute_tool_calls" -> executeToolCalls(new Scenario(vector), input);
			case "convert_tool_response", "gemini_request" -> GeminiOps.run(new Scenario(vector), op, input);
			case "tool_loop" -> Upstream.toolLoop(new Scenario(vector), input, geminiToolText, feedback);
			default -> throw new Json.Fault("/op: unknown op '" + op + "'");
		};
	}

	/** A model reply: one generation per element, the first with calls is executed. */
	static ChatResponse chatResponse(Object generations, String where) {
		List<Generation> gens = new ArrayList<>();
		List<Object> list = Json.arr(generations, where);
		for (int i = 0; i < list.size(); i++) {
			Map<String, Object> g = Json.obj(list.get(i), where + "/" + i);
			AssistantMessage a = Scenario.assistant(g, where + "/" + i);
			String finish = Json.str(g.get("finish_reason"), where + "/" + i + "/finish_reason");
			gens.add(finish == null ? new Generation(a)
					: new Generation(a, ChatGenerationMetadata.builder().finishReason(finish).build()));
		}
		return new ChatResponse(gens);
	}

	static Map<String, Object> executeToolCalls(Scenario s, Map<String, Object> input) {
		Map<String, Object> out = new java.util.LinkedHashMap<>();
		try {
			ToolCallingManager manager = s.buildManager();
			var options = ToolCallingChatOptions.builder().toolCallbacks(s.requestTools).build();
			Prompt prompt = new Prompt(Scenario.messages(input.get("history"), "/input/history"), options);
			ChatResponse response = chatResponse(input.get("generations"), "/input/generations");
			ToolExecutionResult r = manager.executeToolCalls(prompt, response);
			out.put("result", Scenario.printResult(r));
		}
		catch (Json.Fault | Json.OutOfScope e) {
			throw e;
		}
		catch (Throwable t) {
			out.put("error", Scenario.printError(t));
		}
		out.put("invocations", s.invocations);
		return out;
	}

}
