package io.github.toolcallmodel.fixes;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * A fuzz input as a tool's output and the switches it is rewritten under, for
 * {@link ToolResponseRewriteFuzzTests}. Byte 0 holds the flags: bit 0 the
 * response came from a failure, bit 1 {@code strict-json-or-wrap}, bit 2
 * {@code error-key}, bit 3 {@code pr-6049-strict-wrap}, bit 4
 * {@code pr-6907-wrap-on-failure}, bit 5 the text is UTF-16BE (so lone
 * surrogates reach the rewrite raw), bits 6 and 7 together the text is
 * amplified, to {@link #AMPLIFIED} characters when byte 1 is 0xff and to
 * {@value #AMPLIFIED_SMALL} otherwise (so that a campaign, which seldom makes
 * 0xff there, keeps its speed; the corpus holds the large ones). The other
 * bytes are the text, UTF-8 (malformed bytes as U+FFFD) or UTF-16BE (an odd
 * last byte dropped). An amplified text is cut at its first two U+0001 into a
 * head, a body and a tail (a text without one is all body) and becomes head +
 * body repeated to the length + tail: a 10 MB string, 10 million open
 * brackets, a number of 10 million digits, from a few bytes.
 */
record HostileToolText(String text, boolean error, FixSet fixes) {

	/** The fixes of flag bits 1 to 4, in that order: the corpora's format, not the table's order. */
	static final List<Fix> FLAG_FIXES = List.of(Fix.named("strict-json-or-wrap"), Fix.named("error-key"),
			Fix.named("pr-6049-strict-wrap"), Fix.named("pr-6907-wrap-on-failure"));

	/**
	 * The length an amplified body reaches: 10 million in a campaign
	 * ({@code JAZZER_FUZZ=1}) and in the deep run ({@link DeepTests}); a plain
	 * replay takes a million: on the same side of each reader's limits (past
	 * the nesting depth and number length, within the string length), at a
	 * tenth of the time.
	 */
	static final int AMPLIFIED = DeepTests.deep() || "1".equals(System.getenv("JAZZER_FUZZ")) ? 10_000_000
			: 1_000_000;

	/** The length an amplified body reaches when byte 1 is not 0xff. */
	static final int AMPLIFIED_SMALL = 100_000;

	static HostileToolText of(byte[] data) {
		int flags = data.length == 0 ? 0 : data[0] & 0xff;
		boolean amplify = (flags & 0xc0) == 0xc0 && data.length > 1;
		int length = amplify && (data[1] & 0xff) == 0xff ? AMPLIFIED : AMPLIFIED_SMALL;
		int from = Math.min(data.length, amplify ? 2 : 1);
		byte[] rest = Arrays.copyOfRange(data, from, data.length);
		String text = (flags & 0x20) != 0 ? new String(rest, 0, rest.length & ~1, StandardCharsets.UTF_16BE)
				: new String(rest, StandardCharsets.UTF_8);
		if (amplify) {
			text = amplified(text, length);
		}
		FixSet fixes = FixSet.none();
		for (int bit = 0; bit < FLAG_FIXES.size(); bit++) {
			if ((flags & (2 << bit)) != 0) {
				fixes = fixes.with(FLAG_FIXES.get(bit));
			}
		}
		return new HostileToolText(text, (flags & 1) != 0, fixes);
	}

	private static String amplified(String text, int length) {
		String[] parts = text.split("\u0001", 3);
		String head = parts.length == 3 ? parts[0] : "";
		String body = parts.length == 3 ? parts[1] : parts.length == 2 ? parts[0] + parts[1] : parts[0];
		String tail = parts.length == 3 ? parts[2] : "";
		if (body.isEmpty()) {
			return head + tail;
		}
		return head + body.repeat(Math.max(1, length / body.length())) + tail;
	}

	/** Whether the rewrite applies a fix of the library (not only the pull requests). */
	boolean fixed() {
		return this.fixes.has("strict-json-or-wrap") || errorKeyed();
	}

	/** Whether the response goes under {@code "error"}: {@code error-key} on a failure's response. */
	boolean errorKeyed() {
		return this.fixes.has("error-key") && this.error;
	}

	/** Whether anything rewrites the response (a fix or a pull request's switch). */
	boolean rewritten() {
		return this.fixes.has("strict-json-or-wrap") || errorKeyed() || this.fixes.has("pr-6049-strict-wrap")
				|| this.fixes.has("pr-6907-wrap-on-failure");
	}

	/** The set as the model's {@code convert --fixes} names it. */
	String fixesArgument() {
		return String.join(",", this.fixes.names());
	}

	/** Whether the text holds no lone surrogate, so that the model (a Rust string) can hold it. */
	boolean wellFormed() {
		for (int i = 0; i < this.text.length(); i++) {
			char c = this.text.charAt(i);
			if (Character.isHighSurrogate(c) && i + 1 < this.text.length()
					&& Character.isLowSurrogate(this.text.charAt(i + 1))) {
				i++;
			}
			else if (Character.isSurrogate(c)) {
				return false;
			}
		}
		return true;
	}

	@Override
	public String toString() {
		String shown = this.text.length() > 200 ? this.text.substring(0, 200) + "… (" + this.text.length() + " chars)"
				: this.text;
		return "text " + shown + " error=" + this.error + " fixes=[" + fixesArgument() + "]";
	}

}
