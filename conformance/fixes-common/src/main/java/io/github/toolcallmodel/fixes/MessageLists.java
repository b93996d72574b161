package io.github.toolcallmodel.fixes;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import org.springframework.ai.chat.messages.Message;

/**
 * A conversation rewritten message by message, as both fix libraries rewrite
 * the prompts they send (Spring AI 1.1's and 2.0's {@code Message} are the same
 * type, so this source builds against either).
 */
public final class MessageLists {

	private MessageLists() {
	}

	/**
	 * {@code messages} with each replaced by {@code rewrite}'s answer for it; the
	 * same list when {@code rewrite} returns every message itself, so that a
	 * caller can tell "nothing changed" by identity.
	 */
	public static List<Message> map(List<Message> messages, UnaryOperator<Message> rewrite) {
		List<Message> out = null;
		for (int i = 0; i < messages.size(); i++) {
			Message m = messages.get(i);
			Message r = rewrite.apply(m);
			if (r != m && out == null) {
				out = new ArrayList<>(messages.subList(0, i));
			}
			if (out != null) {
				out.add(r);
			}
		}
		return out == null ? messages : out;
	}

}
