package toolcallmodel.conformance;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.metadata.ChatGenerationMetadata;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.model.tool.DefaultToolCallingManager;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionResult;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.ai.tool.execution.DefaultToolExecutionExceptionProcessor;
import org.springframework.ai.tool.execution.ToolExecutionException;
import org.springframework.ai.tool.execution.ToolExecutionExceptionProcessor;
import org.springframework.ai.tool.metadata.ToolMetadata;
import org.springframework.ai.tool.resolution.StaticToolCallbackResolver;
import org.springframework.ai.tool.resolution.ToolCallbackResolver;

/**
 * One vector's world on the real classes: its tools as scripted
 * {@link ToolCallback}s, its manager built through the real builder, its
 * messages as Spring messages, and the way results are printed back in the
 * shape of {@code toolcall-model run}.
 */
final class Scenario {

	final Map<String, Object> vector;

	final Exceptions exceptions = new Exceptions();

	/** Every tool invocation, in order: {"tool", "arguments"}. */
	final List<Map<String, Object>> invocations = new ArrayList<>();

	final List<ToolCallback> requestTools = new ArrayList<>();

	final List<ToolCallback> resolverTools = new ArrayList<>();

	final Map<String, Object> manager;

	/** The vector's fixes, installed from the fix library. */
	final Fixes fixes;

	Scenario(Map<String, Object> vector) {
		this.vector = vector;
		Upstream.check(vector);
		this.fixes = Fixes.of(vector.get("fixes"));
		this.manager = Json.obj(vector.get("manager"), "/manager");
		List<Object> tools = Json.arr(vector.get("tools"), "/tools");
		for (int i = 0; i < tools.size(); i++) {
			String where = "/tools/" + i;
			Map<String, Object> t = Json.obj(tools.get(i), where);
			List<Object> outcomes = Json.arr(t.get("outcomes"), where + "/outcomes");
			for (int j = 0; j < outcomes.size(); j++) {
				Map<String, Object> o = Json.obj(outcomes.get(j), where + "/outcomes/" + j);
				if (o.get("throws") != null) {
					this.exceptions.declare(Json.obj(o.get("throws"), where + "/outcomes/" + j + "/throws"),
							where + "/outcomes/" + j + "/throws");
				}
			}
		}
		this.exceptions.compile();
		for (int i = 0; i < tools.size(); i++) {
			String where = "/tools/" + i;
			Map<String, Object> t = Json.obj(tools.get(i), where);
			ScriptedTool tool = new ScriptedTool(Json.str(t.get("name"), where + "/name"),
					Json.bool(t.get("return_direct"), false, where + "/return_direct"),
					Json.arr(t.get("outcomes"), where + "/outcomes"), where);
			String registered = t.get("registered") == null ? "request"
					: Json.str(t.get("registered"), where + "/registered");
			switch (registered) {
				case "request" -> this.requestTools.add(tool);
				case "resolver" -> this.resolverTools.add(tool);
				default -> throw new Json.Fault(where + "/registered: must be request or resolver");
			}
		}
	}

	/** A tool definition as any {@link ToolDefinition} implementation can give it. */
	record Definition(String name, String description, String inputSchema) implements ToolDefinition {
	}

	/** A tool whose n-th call takes the n-th outcome (the last repeats). */
	final class ScriptedTool implements ToolCallback {

		private final ToolDefinition definition;

		private final ToolMetadata metadata;

		private final List<Object> outcomes;

		private final String where;

		private int calls;

		ScriptedTool(String name, boolean returnDirect, List<Object> outcomes, String where) {
			// A definition of the runner's own: DefaultToolDefinition refuses a
			// blank name, which a custom ToolDefinition (and so a vector) can have.
			this.definition = new Definition(name, name, "{}");
			this.metadata = ToolMetadata.builder().returnDirect(returnDirect).build();
			this.outcomes = outcomes;
			this.where = where;
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
			Scenario.this.invocations.add(Json.map("tool", this.definition.name(), "arguments", toolInput));
			if (this.outcomes.isEmpty()) {
				return null;
			}
			int n = Math.min(this.calls++, this.outcomes.size() - 1);
			String at = this.where + "/outcomes/" + n;
			Map<String, Object> o = Json.obj(this.outcomes.get(n), at);
			if (o.containsKey("returns")) {
				return Json.str(o.get("returns"), at + "/returns");
			}
			if (Json.bool(o.get("echo_arguments"), false, at + "/echo_arguments")) {
				return toolInput;
			}
			if (o.get("throws") != null) {
				Map<String, Object> spec = Json.obj(o.get("throws"), at + "/throws");
				Throwable t = Scenario.this.exceptions.build(spec, this.definition, at + "/throws");
				if (Json.bool(spec.get("wrapped"), true, at + "/throws/wrapped")) {
					throw new ToolExecutionException(this.definition, t);
				}
				throw Exceptions.sneaky(t);
			}
			throw new Json.Fault(at + ": an outcome returns, echoes or throws");
		}

	}

	// ---------------------------------------------------------------- manager

	/**
	 * The manager through its real builder, wrapped in the fix library's
	 * {@code FixingToolCallingManager} when the vector's fixes change it.
	 */
	ToolCallingManager buildManager() {
		ToolExecutionExceptionProcessor processor = processor();
		return Upstream.manager(buildDefaultManager(processor), processor, this.fixes);
	}

	/**
	 * The manager through its real builder: the limits and resolution fallback
	 * where the version has them ({@link Upstream#limits}), the resolver and the
	 * processor.
	 */
	private DefaultToolCallingManager buildDefaultManager(ToolExecutionExceptionProcessor processor) {
		var b = DefaultToolCallingManager.builder();
		Upstream.limits(b, this.manager);
		ToolCallbackResolver resolver = new StaticToolCallbackResolver(this.resolverTools);
		b.toolCallbackResolver(Upstream.resolver(resolver, this.fixes));
		b.toolExecutionExceptionProcessor(processor);
		return b.build();
	}

	@SuppressWarnings({ "unchecked", "rawtypes" })
	ToolExecutionExceptionProcessor processor() {
		Map<String, Object> p = Json.obj(this.manager.get("exception_processor"), "/manager/exception_processor");
		String kind = p.get("kind") == null ? "default" : Json.str(p.get("kind"), "/manager/exception_processor/kind");
		List rethrow = new ArrayList<>();
		for (Object o : Json.arr(p.get("rethrow"), "/manager/exception_processor/rethrow")) {
			rethrow.add(this.exceptions.load(Json.str(o, "/manager/exception_processor/rethrow")));
		}
		DefaultToolExecutionExceptionProcessor dflt = DefaultToolExecutionExceptionProcessor.builder()
			.alwaysThrow(Json.bool(p.get("always_throw"), false, "/manager/exception_processor/always_throw"))
			.rethrowExceptions(rethrow)
			.build();
		return switch (kind) {
			case "default" -> dflt;
			// The seed's processor (on 2.0.1, as the fix library ships it).
			case "json_error" -> Upstream.jsonErrorProcessor(dflt);
			default -> throw new Json.Fault("/manager/exception_processor/kind: default or json_error");
		};
	}

	// --------------------------------------------------------------- messages

	static List<Message> messages(Object v, String where) {
		List<Message> out = new ArrayList<>();
		List<Object> list = Json.arr(v, where);
		for (int i = 0; i < list.size(); i++) {
			out.add(message(Json.obj(list.get(i), where + "/" + i), where + "/" + i));
		}
		return out;
	}

	static Message message(Map<String, Object> m, String where) {
		String type = Json.str(m.get("type"), where + "/type");
		if (type == null) {
			throw new Json.Fault(where + "/type: missing");
		}
		String text = Json.str(m.get("text"), where + "/text");
		return switch (type) {
			case "system" -> SystemMessage.builder().text(text).build();
			case "user" -> UserMessage.builder().text(text).build();
			case "assistant" -> assistant(m, where);
			case "tool" -> {
				List<ToolResponseMessage.ToolResponse> rs = new ArrayList<>();
				List<Boolean> errors = new ArrayList<>();
				List<Object> list = Json.arr(m.get("responses"), where + "/responses");
				for (int i = 0; i < list.size(); i++) {
					String at = where + "/responses/" + i;
					Map<String, Object> r = Json.obj(list.get(i), at);
					rs.add(new ToolResponseMessage.ToolResponse(Json.str(r.get("id"), at + "/id"),
							Json.str(r.get("name"), at + "/name"), Json.str(r.get("data"), at + "/data")));
					errors.add(Json.bool(r.get("error"), false, at + "/error"));
				}
				ToolResponseMessage tool = ToolResponseMessage.builder().responses(rs).build();
				// The model's failure mark, which only error-key reads, travels as the fix library's mark.
				yield Upstream.marked(tool, errors);
			}
			default -> throw new Json.Fault(where + "/type: unknown message type '" + type + "'");
		};
	}

	/** An assistant message (a model reply); thought signatures become byte arrays. */
	static AssistantMessage assistant(Map<String, Object> m, String where) {
		List<AssistantMessage.ToolCall> calls = new ArrayList<>();
		List<Object> list = Json.arr(m.get("tool_calls"), where + "/tool_calls");
		for (int i = 0; i < list.size(); i++) {
			String at = where + "/tool_calls/" + i;
			Map<String, Object> c = Json.obj(list.get(i), at);
			String kind = c.get("type") == null ? "function" : Json.str(c.get("type"), at + "/type");
			calls.add(new AssistantMessage.ToolCall(Json.str(c.get("id"), at + "/id"), kind,
					Json.str(c.get("name"), at + "/name"), Json.str(c.get("arguments"), at + "/arguments")));
		}
		Map<String, Object> metadata = new LinkedHashMap<>();
		for (var e : Json.obj(m.get("metadata"), where + "/metadata").entrySet()) {
			if (e.getKey().equals("thoughtSignatures") && e.getValue() instanceof List<?> sigs) {
				List<byte[]> bytes = new ArrayList<>();
				for (Object s : sigs) {
					bytes.add(java.util.Base64.getDecoder().decode(Json.str(s, where + "/metadata/thoughtSignatures")));
				}
				metadata.put(e.getKey(), bytes);
			}
			else {
				metadata.put(e.getKey(), e.getValue());
			}
		}
		return AssistantMessage.builder()
			.content(Json.str(m.get("text"), where + "/text"))
			.properties(metadata)
			.toolCalls(calls)
			.build();
	}

	/** Prints a message in the vectors' shape. */
	static Map<String, Object> print(Message msg) {
		Map<String, Object> out = new LinkedHashMap<>();
		switch (msg.getMessageType()) {
			case SYSTEM -> {
				out.put("type", "system");
				out.put("text", msg.getText());
			}
			case USER -> {
				out.put("type", "user");
				out.put("text", msg.getText());
			}
			case ASSISTANT -> {
				AssistantMessage a = (AssistantMessage) msg;
				out.put("type", "assistant");
				out.put("text", a.getText());
				if (!a.getToolCalls().isEmpty()) {
					out.put("tool_calls", printCalls(a.getToolCalls()));
				}
				Map<String, Object> md = printMetadata(a.getMetadata());
				if (!md.isEmpty()) {
					out.put("metadata", md);
				}
			}
			case TOOL -> {
				out.put("type", "tool");
				out.put("responses", printResponses(((ToolResponseMessage) msg).getResponses()));
			}
		}
		return out;
	}

	static List<Object> printAll(List<Message> msgs) {
		List<Object> out = new ArrayList<>();
		for (Message m : msgs) {
			out.add(print(m));
		}
		return out;
	}

	static List<Object> printCalls(List<AssistantMessage.ToolCall> calls) {
		List<Object> out = new ArrayList<>();
		for (var c : calls) {
			out.add(Json.map("id", c.id(), "type", c.type(), "name", c.name(), "arguments", c.arguments()));
		}
		return out;
	}

	static List<Object> printResponses(List<ToolResponseMessage.ToolResponse> rs) {
		List<Object> out = new ArrayList<>();
		for (var r : rs) {
			out.add(Json.map("id", r.id(), "name", r.name(), "data", r.responseData()));
		}
		return out;
	}

	/** Message metadata without the type Spring adds to every message. */
	static Map<String, Object> printMetadata(Map<String, Object> md) {
		Map<String, Object> out = new LinkedHashMap<>();
		for (var e : md.entrySet()) {
			if (e.getKey().equals("messageType")) {
				continue;
			}
			out.put(e.getKey(), printValue(e.getValue()));
		}
		return out;
	}

	@SuppressWarnings("unchecked")
	static Object printValue(Object v) {
		if (v instanceof byte[] b) {
			return java.util.Base64.getEncoder().encodeToString(b);
		}
		if (v instanceof ToolResponseMessage.ToolResponse r) {
			return Json.map("id", r.id(), "name", r.name(), "data", r.responseData());
		}
		if (v instanceof List<?> l) {
			List<Object> out = new ArrayList<>();
			for (Object o : l) {
				out.add(printValue(o));
			}
			return out;
		}
		if (v instanceof Map<?, ?> m) {
			Map<String, Object> out = new LinkedHashMap<>();
			for (var e : ((Map<String, Object>) m).entrySet()) {
				out.put(e.getKey(), printValue(e.getValue()));
			}
			return out;
		}
		if (v instanceof Enum<?> e) {
			return e.name();
		}
		return v;
	}

	/** A produced generation: text, tool calls, finish reason, generation metadata. */
	static Map<String, Object> printGeneration(Generation g) {
		Map<String, Object> meta = new LinkedHashMap<>();
		if (g.getMetadata() != null) {
			for (var e : g.getMetadata().entrySet()) {
				meta.put(e.getKey(), printValue(e.getValue()));
			}
		}
		return print(g, g.getOutput(), meta);
	}

	/**
	 * A model reply's generation as the vectors print it, its message
	 * {@code a} (the generation's own, or as a runner cleans it): the
	 * metadata is the assistant message's (where thoughtSignatures lives).
	 */
	static Map<String, Object> printReply(Generation g, AssistantMessage a) {
		return print(g, a, printMetadata(a.getMetadata()));
	}

	/** {@code a}'s text and tool calls, {@code g}'s finish reason, and {@code meta}. */
	private static Map<String, Object> print(Generation g, AssistantMessage a, Map<String, Object> meta) {
		Map<String, Object> out = new LinkedHashMap<>();
		out.put("text", a.getText());
		if (!a.getToolCalls().isEmpty()) {
			out.put("tool_calls", printCalls(a.getToolCalls()));
		}
		ChatGenerationMetadata md = g.getMetadata();
		if (md != null && md.getFinishReason() != null) {
			out.put("finish_reason", md.getFinishReason());
		}
		if (!meta.isEmpty()) {
			out.put("metadata", meta);
		}
		return out;
	}

	static Map<String, Object> printResult(ToolExecutionResult r) {
		return Json.map("history", printAll(r.conversationHistory()), "return_direct", r.returnDirect());
	}

	/**
	 * An exception in the vectors' error shape (a limit breach says more). An
	 * exception of the fix library's own class is printed as the Spring class it
	 * extends, as callers catch it: {@code ClosedBatchLimitExceededException} is a
	 * limit breach; {@code ToolCallLimitBreach}, the cause the processor saw and
	 * rethrew, is a plain exception with the breach text ({@link Upstream#breach}).
	 */
	static Map<String, Object> printError(Throwable t) {
		Class<?> c = t.getClass();
		while (c.getName().startsWith("io.github.toolcallmodel.fixes.") && c.getSuperclass() != null) {
			c = c.getSuperclass();
		}
		Map<String, Object> out = Json.map("class", c.getName(), "message", t.getMessage());
		Upstream.breach(t, out);
		return out;
	}

}
