package io.github.toolcallmodel.fixes.boot3;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The switches of the fix library on Spring AI 1.1.x, under
 * {@code toolcall.fixes}, named as the Boot 4 library and {@code toolcall-model
 * check} name them. With none set the library installs what the application's
 * beans need ({@code docs/FIXES.md}, "The fix library on Spring Boot 3").
 */
@ConfigurationProperties(prefix = ToolCallFixesProperties.PREFIX)
public class ToolCallFixesProperties {

	/** The prefix of every switch. */
	public static final String PREFIX = "toolcall.fixes";

	/** Whether the library installs anything; false leaves every bean as Spring AI made it. */
	private boolean enabled = true;

	/**
	 * strict-json-or-wrap: send every tool response to Gemini as a JSON object (an
	 * object as it is, anything else as {"result": ...}), in the tool loop that
	 * runs inside the chat model (the ToolCallingManager bean, wrapped) and on a
	 * direct chatModel.call/stream (the chat model bean, wrapped). Unset: on when
	 * a GoogleGenAiChatModel bean exists; true: every chat model bean and every
	 * caller of the manager; false: off.
	 */
	private Boolean strictJsonOrWrap;

	public boolean isEnabled() {
		return this.enabled;
	}

	public void setEnabled(boolean enabled) {
		this.enabled = enabled;
	}

	public Boolean getStrictJsonOrWrap() {
		return this.strictJsonOrWrap;
	}

	public void setStrictJsonOrWrap(Boolean strictJsonOrWrap) {
		this.strictJsonOrWrap = strictJsonOrWrap;
	}

}
