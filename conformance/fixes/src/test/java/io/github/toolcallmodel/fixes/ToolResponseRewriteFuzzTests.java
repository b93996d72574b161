package io.github.toolcallmodel.fixes;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.genai.types.Content;
import com.google.genai.types.Part;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.google.genai.GeminiRequests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Hostile tool output, fuzzed with Jazzer: any text ({@link HostileToolText}:
 * deep nesting, long numbers, lone surrogates raw and escaped, NUL, 10 MB
 * strings, repeated keys, trailing text) under any set of the rewrite's
 * switches, through the library's rewrite and through the seed's workaround.
 *
 * <p>
 * {@code mvn test} replays the corpora in
 * {@code src/test/resources/io/github/toolcallmodel/fixes/ToolResponseRewriteFuzzTestsInputs/}
 * (Jazzer's regression mode); {@code JAZZER_FUZZ=1 mvn test -Dtest=...}
 * runs a campaign, and Jazzer writes any input that fails there, where the
 * next replay finds it. With {@code TOOLCALL_MODEL_BIN} set (by
 * {@code cargo test} and {@code .ci/run}), every well-formed text is also
 * converted by the model and the two must agree.
 */
class ToolResponseRewriteFuzzTests {

	/** The {@code functionResponse.response} Gemini's conversion builds for tool data {@code sent}; throws what it throws. */
	static Map<String, Object> converted(String sent) {
		List<Content> contents = GeminiRequests.contents(prompt(sent));
		Part part = contents.get(2).parts().orElseThrow().get(0);
		return part.functionResponse().orElseThrow().response().orElseThrow();
	}

	static List<Message> prompt(String data) {
		return List.of(new UserMessage("q"), AssistantMessage.builder()
			.content("")
			.toolCalls(List.of(new AssistantMessage.ToolCall("1", "function", "x", "{}")))
			.build(), ToolResponseMessage.builder()
				.responses(List.of(new ToolResponseMessage.ToolResponse("1", "x", data)))
				.build());
	}

	/**
	 * The library's rewrite never throws; with a fix or a pull request's switch
	 * on, Gemini's conversion always takes what it sends. With a fix on, what
	 * arrives is the fixed payload ({@link GeminiToolResponses#payload}, numbers
	 * as Spring's reader reads them) or, where Spring's reader would refuse the
	 * value ({@link GeminiToolResponses#rewriteFallsBack}), the text under its
	 * key; the fixed payload equals the model's for the same text and set.
	 * Without a fix, what arrives (or the failure) equals the model's
	 * conversion under the same set: the pull requests' or upstream's.
	 */
	@FuzzTest(maxDuration = "3m")
	void rewrite(byte[] data) {
		HostileToolText t = HostileToolText.of(data);
		String sent = GeminiToolResponses.rewrite(t.text(), t.error(), t.fixes());
		Map<String, Object> arrived;
		RuntimeException refused;
		try {
			arrived = converted(sent);
			refused = null;
		}
		catch (RuntimeException e) {
			arrived = null;
			refused = e;
		}
		Map<String, Object> got = arrived;
		RuntimeException failure = refused;
		if (t.rewritten() && refused != null) {
			throw new AssertionError("Gemini's conversion refuses the rewrite of " + t, refused);
		}
		Object exact = t.fixed() ? RustConvert
			.canonical(GeminiToolResponses.payload(t.text(), t.error(), t.fixes())) : null;
		if (t.fixed()) {
			String key = t.errorKeyed() ? "error" : "result";
			Object expected = GeminiToolResponses.rewriteFallsBack(t.text(), t.error(), t.fixes())
							? Map.of(key,
									t.text().length() > GeminiToolResponses.MAX_READ_CHARS
											? GeminiToolResponses.pieces(t.text()) : t.text())
							: springRead(GeminiToolResponses.payload(t.text(), t.error(), t.fixes()));
			assertEquals(RustConvert.canonical(expected), RustConvert.canonical(got), () -> "what arrives, " + t);
		}
		if (!RustConvert.available() || !t.wellFormed()) {
			return;
		}
		RustConvert.Answer model = RustConvert.convert(t.text(), t.fixesArgument(), t.error());
		if (t.fixed()) {
			assertEquals(exact, model.ok(), () -> "the fixed payload against the model's, " + t + "; model " + model);
		}
		else if (refused != null) {
			assertNotNull(model.error(), () -> "Spring's conversion fails (" + failure.getMessage()
					+ ") and the model's gives " + model.ok() + ", " + t);
		}
		else {
			assertEquals(RustConvert.canonical(got), model.ok(), () -> "what arrives against the model's, " + t
					+ "; model error " + model.error());
		}
	}

	/** The exact payload as Spring's reader would read its text: decimals as doubles. */
	static Object springRead(Map<String, Object> payload) {
		String text = tools.jackson.databind.json.JsonMapper.builder().build().writeValueAsString(payload);
		return org.springframework.ai.util.JacksonUtils.getDefaultJsonMapper().readValue(text, Object.class);
	}

	/** The seed's workaround advisor, from conformance/java's build, or null when it is not built. */
	static final CallAdvisor SEED_ADVISOR = seedAdvisor();

	static CallAdvisor seedAdvisor() {
		Path classes = Path.of("..", "java", "target", "classes");
		if (!Files.isRegularFile(classes.resolve("toolcallmodel/conformance/GeminiToolTextAdvisor.class"))) {
			return null;
		}
		try {
			URLClassLoader loader = new URLClassLoader(new URL[] { classes.toUri().toURL() },
					ToolResponseRewriteFuzzTests.class.getClassLoader());
			var constructor = loader.loadClass("toolcallmodel.conformance.GeminiToolTextAdvisor")
				.getDeclaredConstructor();
			constructor.setAccessible(true);
			return (CallAdvisor) constructor.newInstance();
		}
		catch (ReflectiveOperationException | java.net.MalformedURLException e) {
			throw new IllegalStateException("conformance/java's GeminiToolTextAdvisor does not load", e);
		}
	}

	/** The request the seed's advisor passes on for a tool response {@code data}. */
	static List<Message> throughSeedAdvisor(String data) {
		AtomicReference<ChatClientRequest> passed = new AtomicReference<>();
		CallAdvisorChain chain = new CallAdvisorChain() {

			@Override
			public ChatClientResponse nextCall(ChatClientRequest request) {
				passed.set(request);
				return ChatClientResponse.builder().build();
			}

			@Override
			public List<CallAdvisor> getCallAdvisors() {
				return List.of();
			}

			@Override
			public CallAdvisorChain copy(CallAdvisor after) {
				return this;
			}

		};
		SEED_ADVISOR.adviseCall(new ChatClientRequest(new Prompt(prompt(data)), Map.of()), chain);
		return passed.get().prompt().getInstructions();
	}

	/**
	 * The seed's workaround ({@code GeminiToolTextAdvisor}, conformance/java)
	 * never throws on a request that ends with a tool message; the text it
	 * passes on is the one the model's seed workaround passes on for the same
	 * text ({@code convert --fixes gemini-tool-text --advised}), and what
	 * Gemini's conversion makes of it (a payload, or the failure it is known to
	 * let through: a text that starts like JSON and is not) is the model's
	 * conversion under {@code gemini-tool-text}. Needs conformance/java built
	 * ({@code conformance/java/runner --build}, which {@code cargo test} runs
	 * first); skipped otherwise.
	 */
	@FuzzTest(maxDuration = "1m")
	void seedWorkaround(byte[] data) {
		Assumptions.assumeTrue(SEED_ADVISOR != null, "conformance/java is not built");
		HostileToolText t = HostileToolText.of(data);
		List<Message> sent = throughSeedAdvisor(t.text());
		String rewritten = ((ToolResponseMessage) sent.get(2)).getResponses().get(0).responseData();
		Map<String, Object> arrived;
		RuntimeException refused;
		try {
			refused = null;
			arrived = GeminiRequests.contents(sent)
				.get(2)
				.parts()
				.orElseThrow()
				.get(0)
				.functionResponse()
				.orElseThrow()
				.response()
				.orElseThrow();
		}
		catch (RuntimeException e) {
			arrived = null;
			refused = e;
			assertEquals("Failed to parse JSON: " + rewritten, e.getMessage(), () -> "how it fails, " + t);
		}
		Map<String, Object> got = arrived;
		if (!rewritten.equals(t.text())) {
			// Rewritten: the whole text under "error", which Spring reads back.
			assertEquals(Map.of("error", t.text()), got, () -> "the rewrite keeps the text, " + t);
		}
		if (!RustConvert.available() || !t.wellFormed()) {
			return;
		}
		// The model's seed workaround on the same text: the text it passes on,
		// and Gemini's conversion after it.
		assertEquals(RustConvert.seedAdvised(t.text()), rewritten, () -> "the rewrite against the model's, " + t);
		RustConvert.Answer model = RustConvert.convert(t.text(), "gemini-tool-text", false);
		if (refused != null) {
			// Its message was compared above; the model's cuts a long text.
			assertTrue(model.error() != null
					&& model.error().startsWith("error: java.lang.RuntimeException: Failed to parse JSON: "),
					() -> "Spring's conversion fails and the model's gives " + model.ok() + ", " + t);
		}
		else {
			assertEquals(RustConvert.canonical(got), model.ok(), () -> "against the model, " + t);
		}
	}

	/** The bridge to the model answers, so that a run with it compares something. */
	@Test
	void theModelsConversionAnswersWhenItIsGiven() {
		Assumptions.assumeTrue(RustConvert.available(), "TOOLCALL_MODEL_BIN is not set");
		assertEquals(Map.of("result", "plain"), RustConvert.convert("plain", "strict-json-or-wrap", false).ok());
		assertTrue(RustConvert.convert("plain", "", false).error().startsWith("error: java.lang.RuntimeException: Failed"),
				"upstream fails on plain text");
		if (SEED_ADVISOR == null) {
			fail("the seed's advisor must be built when the model is given (cargo test builds both)");
		}
	}

}
