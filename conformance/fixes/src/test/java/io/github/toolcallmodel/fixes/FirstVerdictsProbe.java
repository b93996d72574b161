package io.github.toolcallmodel.fixes;

import java.util.List;

import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.MessageChatMemoryAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;

/**
 * How long an application's request paths wait for their first verdicts, in
 * a fresh JVM (BENCHMARKS.md, section 10): the README's application on the
 * real GoogleGenAiChatModel over {@link GeminiStub}, whose model calls a tool
 * that answers text, then answers (so a path's facts grow with its first
 * request, and its verdict is asked again), the library's
 * properties from the arguments ({@code toolcall.fixes.judge.foresee=false}
 * to compare). It waits until the judge has loaded and answered what it
 * foresaw, takes the memory-inside path (call, then stream) and the
 * no-memory one ({@code -Dprobe.unforeseen=true}: and one whose memory advisor
 * stores into a memory of its own, window 7, which no bean foresees), and
 * prints the judge's entry of the report, which states
 * the load, the warm-up, the foresight and the paths' first verdicts.
 * <pre>
 * java -cp target/test-classes:target/classes:CLASSPATH io.github.toolcallmodel.fixes.FirstVerdictsProbe [PROPERTY=VALUE ...]
 * </pre>
 */
public final class FirstVerdictsProbe {

	private FirstVerdictsProbe() {
	}

	public static void main(String[] args) throws Exception {
		try (GeminiStub stub = new GeminiStub(i -> i % 2 == 0 ? GeminiStub.calls("x", "c" + i) : GeminiStub.text("done"))) {
			GeminiApplicationTests.app(stub)
				.withPropertyValues("spring.ai.tools.limits.max-calls-per-tool-default=40",
						"spring.ai.tools.limits.max-total-tool-calls=150", "spring.ai.tools.limits.on-limit-exceeded=THROW")
				.withPropertyValues(args)
				.run(context -> {
					RequestPaths paths = context.getBean(RequestPaths.class);
					long until = System.nanoTime() + 120_000_000_000L;
					while (!paths.judgeLoaded().matches("loaded in .*") || paths.judgeLoaded().contains("foreseeing")) {
						if (System.nanoTime() > until) {
							throw new IllegalStateException(paths.judgeLoaded());
						}
						Thread.sleep(10);
					}
					ChatMemory memory = context.getBean(ChatMemory.class);
					ChatClient.Builder builder = context.getBean(ChatClient.Builder.class);
					ChatClient inside = builder.clone()
						.defaultAdvisors(MessageChatMemoryAdvisor.builder(memory).order(PathsProbe.INSIDE).build())
						.build();
					List<ChatClient> clients = new java.util.ArrayList<>(List.of(inside, builder.clone().build()));
					if (Boolean.getBoolean("probe.unforeseen")) {
						// A memory of the client's own, with another window: a path no bean foresees.
						clients.add(builder.clone()
							.defaultAdvisors(MessageChatMemoryAdvisor
								.builder(org.springframework.ai.chat.memory.MessageWindowChatMemory.builder()
									.maxMessages(7)
									.build())
								.order(PathsProbe.INSIDE + 1)
								.build())
							.build());
					}
					for (ChatClient client : clients) {
						try {
							RequestPathsTests.weather(client).call().content();
							if (client == inside) {
								RequestPathsTests.weather(client).stream().content().collectList().block();
							}
						}
						catch (RuntimeException e) {
							System.out.println("a request failed: " + e);
						}
						if (!paths.verdictsSettled(java.time.Duration.ofMinutes(2))) {
							throw new IllegalStateException("no verdict in 2 minutes");
						}
					}
					System.out.println(paths.judgeLoaded());
					paths.paths().forEach(p -> System.out.println(p.number() + " " + p.facts().get("memory") + " "
							+ p.facts().get("mode") + ": " + p.verdict()));
				});
		}
	}

}
