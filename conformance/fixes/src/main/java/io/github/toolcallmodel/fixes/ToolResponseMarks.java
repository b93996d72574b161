package io.github.toolcallmodel.fixes;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.ai.chat.messages.ToolResponseMessage;

/**
 * Which responses of a {@link ToolResponseMessage} a failure produced (a
 * processor's text, a limit breach, a call closed without running), kept in the
 * message's metadata because {@code ToolResponse} has no field for it. The
 * {@code error-key} fix reads the mark; {@link FixingToolCallingManager} writes
 * it.
 *
 * <p>
 * The mark is a list of booleans, one per response, under {@link #METADATA_KEY}.
 * A message without the key has no marked response. A memory that persists
 * messages (JDBC, for one) keeps the mark only if it keeps the metadata.
 */
public final class ToolResponseMarks {

	/** The metadata key of the per-response error marks. */
	public static final String METADATA_KEY = "toolcallFixesErrorResponses";

	private ToolResponseMarks() {
	}

	/** Whether response {@code index} of {@code message} is marked as produced by a failure. */
	public static boolean isError(ToolResponseMessage message, int index) {
		Object marks = message.getMetadata().get(METADATA_KEY);
		return marks instanceof List<?> list && index >= 0 && index < list.size()
				&& Boolean.TRUE.equals(list.get(index));
	}

	/**
	 * A copy of {@code message} with the same responses and metadata, and the
	 * marks {@code errors} (one per response).
	 */
	public static ToolResponseMessage withMarks(ToolResponseMessage message, List<Boolean> errors) {
		if (errors.size() != message.getResponses().size()) {
			throw new IllegalArgumentException(
					"one mark per response: " + errors.size() + " for " + message.getResponses().size());
		}
		Map<String, Object> metadata = new LinkedHashMap<>(message.getMetadata());
		metadata.put(METADATA_KEY, List.copyOf(errors));
		return ToolResponseMessage.builder().responses(message.getResponses()).metadata(metadata).build();
	}

	/** The marks of {@code message}, one per response. */
	public static List<Boolean> marks(ToolResponseMessage message) {
		List<Boolean> out = new ArrayList<>();
		for (int i = 0; i < message.getResponses().size(); i++) {
			out.add(isError(message, i));
		}
		return out;
	}

}
