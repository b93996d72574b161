package io.github.toolcallmodel.fixes.test;

import java.time.Duration;
import java.util.Comparator;
import java.util.List;

import io.github.toolcallmodel.fixes.RequestPaths;
import org.assertj.core.api.AssertProvider;

import org.springframework.context.ApplicationContext;

/**
 * The request paths an application's test exercised, as the fix library
 * (toolcall-fixes) recorded them, for the gate {@link ToolCallPathsAssert}:
 *
 * <pre>{@code
 * @SpringBootTest
 * class WeatherApplicationTests {
 *
 *     @Autowired ApplicationContext context;
 *
 *     @Test
 *     void everyPathItTookIsSafe() {
 *         weather.ask("Weather in Paris?");
 *         assertThat(ToolCallPaths.of(context)).areSafe();
 *     }
 * }
 * }</pre>
 *
 * @param paths the paths seen so far, in the order first seen
 */
public record ToolCallPaths(List<RequestPaths.Path> paths) implements AssertProvider<ToolCallPathsAssert> {

	/** How long the gate waits for the verdicts the library is still giving. */
	private static final Duration SETTLE = Duration.ofMinutes(1);

	/**
	 * The paths the application in {@code context} has taken so far.
	 * @param context the test's application context, with toolcall-fixes in it
	 * @return the paths, in the order first seen
	 * @throws IllegalStateException when the context has no fix library
	 */
	public static ToolCallPaths of(ApplicationContext context) {
		RequestPaths requestPaths = context.getBeanProvider(RequestPaths.class).getIfAvailable();
		if (requestPaths == null) {
			throw new IllegalStateException("no toolcall-fixes in this application context (add "
					+ "io.github.toolcallmodel:toolcall-fixes-spring-boot-starter, and leave toolcall.fixes.enabled "
					+ "unset or true)");
		}
		requestPaths.verdictsSettled(SETTLE);
		return new ToolCallPaths(requestPaths.paths()
			.stream()
			.sorted(Comparator.comparingInt(RequestPaths.Path::number))
			.toList());
	}

	@Override
	public ToolCallPathsAssert assertThat() {
		return new ToolCallPathsAssert(this);
	}

}
