package io.github.toolcallmodel.fixes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

/**
 * The library's fixes are the model's fix table ({@code fixes.tsv}): every
 * switch of it is a property, read by its name, and the library's lists of
 * fixes follow from the table.
 */
class FixTableTests {

	@Test
	void everyFixOfTheTableIsASwitchReadByItsName() {
		assertThat(FixTable.names()).hasSize(11).startsWith("breach-through-processor");
		var p = new ToolCallFixesProperties();
		for (String fix : FixTable.names()) {
			assertThat(p.get(fix)).as(fix).isNull();
		}
		p.setEndTurnAfterBreach(true);
		p.pr6049StrictWrap(false);
		assertThat(p.get("end-turn-after-breach")).isTrue();
		assertThat(p.get("pr-6049-strict-wrap")).isFalse();
		assertThat(p.get("json-error-processor")).isNull();
		assertThrows(IllegalArgumentException.class, () -> p.get("no-such-fix"));
	}

	@Test
	void theListsOfTheLibraryFollowFromTheTable() {
		assertThat(FixTable.inAll()).doesNotContain("evict-orphan-responses", "pr-6907-wrap-on-failure",
				"pr-6049-strict-wrap", "unknown-tool-to-processor")
			.contains("end-turn-after-breach", "keep-current-turn");
		assertThat(ToolCallFixesAutoConfiguration.MANAGER_FIXES).containsExactly("breach-through-processor",
				"error-key", "close-dangling-calls", "end-turn-after-breach", "unknown-tool-to-processor");
		assertThat(InstalledFixes.NAMES).endsWith("json-error-processor").hasSize(FixTable.names().size() + 1);
		assertThat(FixTable.changing("window")).isEqualTo(List.of("keep-current-turn", "evict-orphan-responses"));
	}

	@Test
	void theBeansAreBuiltFromNames() {
		assertThrows(IllegalArgumentException.class,
				() -> new GeminiSafeToolResponseAdvisor(Set.of("strict-json-or-wrap", "strict-json"), 0));
		var advisor = new GeminiSafeToolResponseAdvisor(Set.of("strict-json-or-wrap"), 0);
		assertThat(advisor.getOrder()).isZero();
	}

}
