package io.github.toolcallmodel.fixes;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A fuzz input as a tool's output and the switches it is rewritten under, for
 * {@link ToolResponseRewriteFuzzTests}. Byte 0 holds the flags: bit 0 the
 * response came from a failure, bit 1 {@code strict-json-or-wrap}, bit 2
 * {@code error-key}, bit 3 {@code pr-6049-strict-wrap}, bit 4
 * {@code pr-6907-wrap-on-failure}, bit 5 the text is UTF-16BE (so lone
 * surrogates reach the rewrite raw), bits 6 and 7 together the text is
 * amplified, to {@value #AMPLIFIED} characters when byte 1 is 0xff and to
 * {@value #AMPLIFIED_SMALL} otherwise (so that a campaign, which seldom makes
 * 0xff there, keeps its speed; the corpus holds the large ones). The other
 * bytes are the text, UTF-8 (malformed bytes as U+FFFD) or UTF-16BE (an odd
 * last byte dropped). An amplified text is cut at its first two U+0001 into a
 * head, a body and a tail (a text without one is all body) and becomes head +
 * body repeated to the length + tail: a 10 MB string, 10 million open
 * brackets, a number of 10 million digits, from a few bytes.
 */
record HostileToolText(String text, boolean error, boolean strictJsonOrWrap, boolean errorKey,
		boolean pr6049StrictWrap, boolean pr6907WrapOnFailure) {

	/** The length an amplified body reaches. */
	static final int AMPLIFIED = 10_000_000;

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
		return new HostileToolText(text, (flags & 1) != 0, (flags & 2) != 0, (flags & 4) != 0, (flags & 8) != 0,
				(flags & 16) != 0);
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
		return this.strictJsonOrWrap || this.errorKey && this.error;
	}

	/** Whether anything rewrites the response (a fix or a pull request's switch). */
	boolean rewritten() {
		return this.strictJsonOrWrap || this.errorKey && this.error || this.pr6049StrictWrap
				|| this.pr6907WrapOnFailure;
	}

	/** The set as the model's {@code convert --fixes} names it. */
	String fixes() {
		StringBuilder b = new StringBuilder();
		if (this.strictJsonOrWrap) {
			b.append(",strict-json-or-wrap");
		}
		if (this.errorKey) {
			b.append(",error-key");
		}
		if (this.pr6049StrictWrap) {
			b.append(",pr-6049-strict-wrap");
		}
		if (this.pr6907WrapOnFailure) {
			b.append(",pr-6907-wrap-on-failure");
		}
		return b.isEmpty() ? "" : b.substring(1);
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
		return "text " + shown + " error=" + this.error + " fixes=[" + fixes() + "]";
	}

}
