package io.github.toolcallmodel.fixes;

import java.util.ArrayList;
import java.util.List;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The judge's answer for one request path, as the log line and the endpoint
 * print it: {@code safe}, or {@code not safe: SCENARIOS; remedy: ...}. Every
 * part is the module's ({@code asked} and {@code fix_it_today} of its
 * {@code judge} answer, docs/JUDGE.md); this class only reads them.
 *
 * @param safe whether the set in effect passes the gate (the answer's {@code asked.exit} is 0)
 * @param scenarios the scenarios that break and are not accepted ({@code asked.not_accepted})
 * @param staleAccepted accepted findings that no longer happen ({@code asked.stale_accepted}), which fail the gate too
 * @param remedy the fewest changes that make the path safe ({@code fix_it_today}), as one line
 */
public record Verdict(boolean safe, List<String> scenarios, List<String> staleAccepted, String remedy) {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	/**
	 * The verdict in the judge's answer.
	 * @param answer the module's {@code judge} answer as JSON text
	 * @return the verdict
	 * @throws IllegalArgumentException when the answer is the module's {@code {"error": ...}} or not an answer
	 */
	public static Verdict of(String answer) {
		JsonNode a = JSON.readTree(answer);
		if (a.has("error")) {
			throw new IllegalArgumentException("the judge refused the facts: " + a.get("error").asString());
		}
		JsonNode asked = a.get("asked");
		if (asked == null || !asked.has("exit")) {
			throw new IllegalArgumentException("not a judge answer: " + answer);
		}
		return new Verdict(asked.get("exit").asInt() == 0, strings(asked.get("not_accepted")),
				strings(asked.get("stale_accepted")), remedy(a.get("fix_it_today")));
	}

	private static List<String> strings(JsonNode array) {
		List<String> out = new ArrayList<>();
		if (array != null) {
			array.forEach(n -> out.add(n.isString() ? n.asString() : n.toString()));
		}
		return List.copyOf(out);
	}

	/**
	 * {@code fix_it_today} in one line: the configuration change, else the
	 * library's properties; {@code null} (a path's question, where the set in
	 * effect breaks nowhere) needs none.
	 */
	private static String remedy(JsonNode today) {
		if (today == null || today.isNull()) {
			return "none needed";
		}
		List<String> parts = new ArrayList<>();
		JsonNode change = today.get("configuration");
		if (change != null && change.isArray() && !change.isEmpty()) {
			List<String> how = new ArrayList<>();
			change.forEach(c -> how.add(c.get("how").asString()));
			parts.add("without a new library: " + String.join(", ", how));
		}
		List<String> properties = strings(today.get("properties"));
		JsonNode fixes = today.get("fixes");
		if (!properties.isEmpty()) {
			parts.add("with the fix library: " + String.join(", ", properties));
		}
		else if (fixes == null || fixes.isNull()) {
			parts.add("no set of the fix library's switches is enough");
		}
		return parts.isEmpty() ? "none needed" : String.join("; or ", parts);
	}

	/**
	 * The line the log and the endpoint print.
	 * @return {@code safe}, or {@code not safe: SCENARIOS; remedy: ...}
	 */
	public String line() {
		if (this.safe) {
			return "safe";
		}
		List<String> why = new ArrayList<>(this.scenarios);
		this.staleAccepted.forEach(s -> why.add("accepted but no longer found: " + s));
		return "not safe: " + String.join(", ", why) + "; remedy: " + this.remedy;
	}

}
