package toolcallmodel.bench;

import java.util.ArrayList;
import java.util.List;

import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;

/**
 * The inputs of the criterion benches in {@code benches/}, built the same
 * way, so that both sides measure the same bytes and the same messages.
 * {@link #main} prints the convert inputs' lengths and SHA-256 hashes.
 */
public final class Inputs {

	private Inputs() {
	}

	// ------------------------------------------------ benches/convert.rs

	/** {@code object_of_size}: an object of small records, at least {@code target} bytes. */
	public static String objectOfSize(int target) {
		StringBuilder s = new StringBuilder("{");
		int i = 0;
		while (s.length() < target) {
			if (i > 0) {
				s.append(',');
			}
			s.append("\"key").append(i).append("\":{\"id\":").append(i).append(",\"name\":\"item number ").append(i)
				.append("\",\"price\":").append(i * 3).append(".25,\"tags\":[\"a\",\"b\",true,null]}");
			i++;
		}
		s.append('}');
		return s.toString();
	}

	/** {@code nested}: objects nested a few levels deep, repeated. */
	public static String nested(int target) {
		String leaf = "{\"a\":[1,2,{\"b\":{\"c\":\"text with \\\"escapes\\\" and unicode \\u00e9\"}}],\"d\":-1.5e3}";
		StringBuilder s = new StringBuilder("{\"items\":[");
		boolean first = true;
		while (s.length() < target) {
			if (!first) {
				s.append(',');
			}
			first = false;
			s.append("{\"x\":").append(leaf).append(",\"y\":[").append(leaf).append(',').append(leaf).append("]}");
		}
		s.append("]}");
		return s.toString();
	}

	/** The 200-character plain-text breach message. */
	public static String plainText() {
		String base = "Tool call limit (1) exceeded for tool 'weather'. No further calls to this tool are allowed in this turn. Please try again later.......";
		StringBuilder s = new StringBuilder();
		while (s.length() < 200) {
			s.append(base.charAt(s.length() % base.length()));
		}
		return s.toString();
	}

	/** The convert bench's inputs by the criterion bench's names. */
	public static String convertInput(String name) {
		return switch (name) {
			case "object-1KB" -> objectOfSize(1 << 10);
			case "nested-100KB" -> nested(100 << 10);
			case "text-200B" -> plainText();
			case "object-10MB" -> objectOfSize(10 << 20);
			default -> throw new IllegalArgumentException(name);
		};
	}

	// ------------------------------------------------ benches/manager.rs

	/** {@code history}: a user message, then L prior calls and their responses in one round. */
	public static List<Message> managerHistory(int l, int m) {
		List<Message> h = new ArrayList<>();
		h.add(new UserMessage("go"));
		if (l > 0) {
			List<AssistantMessage.ToolCall> calls = new ArrayList<>(l);
			List<ToolResponseMessage.ToolResponse> responses = new ArrayList<>(l);
			for (int i = 0; i < l; i++) {
				calls.add(new AssistantMessage.ToolCall("p" + i, "function", "tool" + (i % m), "{}"));
				responses.add(new ToolResponseMessage.ToolResponse("p" + i, "tool" + (i % m), "\"ok\""));
			}
			h.add(AssistantMessage.builder().toolCalls(calls).build());
			h.add(ToolResponseMessage.builder().responses(responses).build());
		}
		return h;
	}

	/** {@code batch}: one generation with N calls, call i to tool (7i mod M). */
	public static AssistantMessage managerBatch(int n, int m) {
		List<AssistantMessage.ToolCall> calls = new ArrayList<>(n);
		for (int i = 0; i < n; i++) {
			calls.add(new AssistantMessage.ToolCall("c" + i, "function", "tool" + ((i * 7) % m), "{\"q\":1}"));
		}
		return AssistantMessage.builder().toolCalls(calls).build();
	}

	// ---------------------------------------------- benches/tool_loop.rs

	public static final String LOOP_RESULT = "{\"temperature\":21.5,\"unit\":\"C\",\"conditions\":[\"sunny\",\"dry\"],\"station\":{\"id\":42,\"name\":\"central\"}}";

	/** Every request history of an R-round turn: [system, user], then two calls and two responses per round. */
	public static List<List<Message>> loopHistories(int rounds) {
		List<Message> h = new ArrayList<>();
		h.add(new SystemMessage("You are a weather bot."));
		h.add(new UserMessage("weather please"));
		List<List<Message>> all = new ArrayList<>();
		all.add(List.copyOf(h));
		for (int r = 0; r < rounds - 1; r++) {
			List<AssistantMessage.ToolCall> calls = List.of(
					new AssistantMessage.ToolCall("a" + r, "function", "weather", "{\"city\":\"Paris\"}"),
					new AssistantMessage.ToolCall("b" + r, "function", "weather", "{\"city\":\"Oslo\"}"));
			h.add(AssistantMessage.builder().toolCalls(calls).build());
			List<ToolResponseMessage.ToolResponse> rs = new ArrayList<>();
			for (var c : calls) {
				rs.add(new ToolResponseMessage.ToolResponse(c.id(), c.name(), LOOP_RESULT));
			}
			h.add(ToolResponseMessage.builder().responses(rs).build());
			all.add(List.copyOf(h));
		}
		return all;
	}

	/** Lengths and SHA-256 of the convert inputs, for comparison with the Rust side. */
	public static void main(String[] args) throws Exception {
		var md = java.security.MessageDigest.getInstance("SHA-256");
		for (String name : List.of("object-1KB", "nested-100KB", "text-200B", "object-10MB")) {
			byte[] b = convertInput(name).getBytes(java.nio.charset.StandardCharsets.UTF_8);
			System.out.println(name + " " + b.length + " " + java.util.HexFormat.of().formatHex(md.digest(b)));
		}
	}

}
