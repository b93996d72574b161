package io.github.toolcallmodel.fixes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The library's fixes are the model's fix table ({@code fixes.tsv}): every
 * switch of it is a property, read by its name, and the library's lists of
 * fixes follow from the table.
 */
class FixTableTests {

	@Test
	void everyFixOfTheTableIsASwitchReadByItsName() {
		assertThat(FixTable.names()).isNotEmpty().doesNotHaveDuplicates().startsWith("breach-through-processor");
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
		assertThat(FixSet.all().names()).doesNotContain("evict-orphan-responses", "pr-6907-wrap-on-failure",
				"pr-6049-strict-wrap", "unknown-tool-to-processor")
			.contains("end-turn-after-breach", "keep-current-turn");
		assertThat(ToolCallFixesAutoConfiguration.MANAGER_FIXES.names()).containsExactly("breach-through-processor",
				"error-key", "close-dangling-calls", "end-turn-after-breach", "unknown-tool-to-processor");
		assertThat(InstalledFixes.NAMES).endsWith("json-error-processor").hasSize(FixTable.names().size() + 1);
		assertThat(FixSet.changing("window").names()).isEqualTo(List.of("keep-current-turn", "evict-orphan-responses"));
		assertThat(FixSet.all().isEmpty()).isFalse();
		assertThat(InstalledFixes.DECIDED_UNSET.minus(FixSet.all()).isEmpty()).as("an unset switch decides only fixes of all")
			.isTrue();
	}

	@Test
	void aFixTurnedOnUnsetMustBeDecidedInTheTable() {
		org.junit.jupiter.api.Assumptions.assumeTrue(InstalledFixes.class.desiredAssertionStatus(),
				"the check is an assertion (on in surefire's runs)");
		var installed = new InstalledFixes(new ToolCallFixesProperties());
		for (Fix f : FixSet.every()) {
			if (InstalledFixes.DECIDED_UNSET.has(f)) {
				assertThat(installed.decide(f.name(), true, "test").on()).isTrue();
			}
			else {
				assertThat(assertThrows(AssertionError.class, () -> installed.decide(f.name(), true, "test")))
					.hasMessageContaining(f.name());
				assertThat(installed.decide(f.name(), false, "test").on()).isFalse();
			}
		}
	}

	@Test
	void aFixSetIsTheTablesFixesInItsOrder() {
		FixSet every = FixSet.every();
		assertThat(every.names()).isEqualTo(FixTable.names());
		assertThat(every.size()).isEqualTo(FixTable.fixes().size());
		FixSet two = FixSet.of("keep-current-turn", "breach-through-processor");
		assertThat(two.names()).containsExactly("breach-through-processor", "keep-current-turn");
		assertThat(two).isEqualTo(FixSet.of("breach-through-processor", "keep-current-turn", "keep-current-turn"))
			.hasSameHashCodeAs(FixSet.of("breach-through-processor", "keep-current-turn"));
		assertThat(two.has("keep-current-turn")).isTrue();
		assertThat(two.has(Fix.named("error-key"))).isFalse();
		assertThat(two.toString()).isEqualTo("breach-through-processor,keep-current-turn");
		assertThat(FixSet.none().toString()).isEqualTo("upstream");
		assertThat(two.without(Fix.named("keep-current-turn")).names()).containsExactly("breach-through-processor");
		assertThat(two.or(FixSet.of("error-key")).size()).isEqualTo(3);
		assertThat(two.and(FixSet.changing("window")).names()).containsExactly("keep-current-turn");
		assertThat(two.changes("window")).isTrue();
		assertThat(two.changes("chat-model")).isFalse();
		assertThat(every.minus(every).isEmpty()).isTrue();
		for (Fix f : every) {
			assertThat(FixSet.of(f.name()).fixes()).containsExactly(f);
			assertThat(Fix.named(f.name())).isSameAs(f);
		}
		IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FixSet.of("no-such-fix"));
		assertThat(e.getMessage()).contains("no-such-fix").contains("breach-through-processor");
		assertThrows(IllegalArgumentException.class, () -> two.has("no-such-fix"));
	}

	@Test
	void aTableThatIsNotOneIsRefusedWithItsReason() {
		String header = "name\tin_all\tacts\tbeans\tjava\tunset";
		assertThat(FixTable.parse(List.of(header, "a\ttrue\tmanager\tmanager,window\taField\tdecided")))
			.singleElement()
			.satisfies(f -> assertThat(f.beans()).containsExactly("manager", "window"))
			.satisfies(f -> assertThat(f.unset()).isEqualTo(Fix.Unset.DECIDED));
		assertThat(assertThrows(IllegalStateException.class, () -> FixTable.parse(List.of("name\tin_all"))))
			.hasMessageContaining("no column acts");
		assertThat(assertThrows(IllegalStateException.class,
				() -> FixTable.parse(List.of(header, "a\tyes\tmanager\tmanager\taField\toff"))))
			.hasMessageContaining("in_all is yes");
		assertThat(assertThrows(IllegalStateException.class,
				() -> FixTable.parse(List.of(header, "a\ttrue\tmanager\tmanager\taField\ton"))))
			.hasMessageContaining("unset is on");
		assertThat(assertThrows(IllegalStateException.class,
				() -> FixTable.parse(List.of(header, "a\ttrue\tmanager"))))
			.hasMessageContaining("3 cells under 6 columns");
		List<String> many = new java.util.ArrayList<>(List.of(header));
		for (int i = 0; i <= Long.SIZE; i++) {
			many.add("f" + i + "\tfalse\tmanager\tmanager\tf" + i + "\toff");
		}
		assertThat(assertThrows(IllegalStateException.class, () -> FixTable.parse(many)))
			.hasMessageContaining("more than 64 fixes");
		assertThat(assertThrows(IllegalStateException.class, () -> FixTable.parse(List.of())))
			.hasMessageContaining("no header");
	}

	@Test
	void theBeansAreBuiltFromNames() {
		assertThrows(IllegalArgumentException.class,
				() -> new GeminiSafeToolResponseAdvisor(FixSet.of("strict-json-or-wrap", "strict-json"), 0));
		var advisor = new GeminiSafeToolResponseAdvisor(FixSet.of("strict-json-or-wrap"), 0);
		assertThat(advisor.getOrder()).isZero();
	}

}
