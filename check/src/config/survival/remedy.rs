//! The remedies: per behaviour set whether a setup survives, and the
//! smallest change of its own (or the smallest fixes) that makes it safe.

use std::collections::HashMap;
use std::num::NonZeroU32;

use super::judge::evaluate;
use super::script::{breach_target, script};
use super::{CheckScenario, CheckVerdict, LONG_TURN_ROUNDS, Setup};
use crate::config::fix_reach::Footprint;
use toolcall_model::chat::DEFAULT_MEMORY_MAX_MESSAGES;
use toolcall_model::chat::{LoopConfig, Memory};
use toolcall_model::model::OnExceeded;
use toolcall_model::model::ProcessorKind;
use toolcall_model::model::{BehaviorSet, Fix, Fixes, behavior_sets};

/// A change to a setup that a team can make without a new Spring AI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// `spring.ai.tools.limits.on-limit-exceeded=...`.
    OnLimitExceeded(OnExceeded),
    /// Another exception processor bean.
    Processor(ProcessorKind),
    /// `spring.ai.tools.throw-exception-on-error=false`.
    NoAlwaysThrow,
    /// An empty rethrow list.
    NoRethrow,
    /// The memory advisor elsewhere.
    Memory(Memory),
    /// A larger memory window.
    MemoryWindow(NonZeroU32),
    /// Register `ToolCallingAdvisor` yourself with conversation history on or off.
    History(bool),
}

impl Change {
    /// Applies the change.
    pub(crate) fn apply(&self, s: &Setup) -> Setup {
        let mut s = s.clone();
        match self {
            Change::OnLimitExceeded(b) => s.limits.on_exceeded = *b,
            Change::Processor(k) => s.processor.kind = *k,
            Change::NoAlwaysThrow => s.processor.always_throw = false,
            Change::NoRethrow => s.processor.rethrow.clear(),
            Change::Memory(m) => s.memory = *m,
            Change::MemoryWindow(n) => s.memory_max_messages = *n,
            Change::History(h) => s.conversation_history = Some(*h),
        }
        s
    }

    /// How to make the change, in the user's terms.
    pub(crate) fn describe(&self) -> String {
        match self {
            Change::OnLimitExceeded(OnExceeded::Throw) => {
                "spring.ai.tools.limits.on-limit-exceeded=THROW".into()
            }
            Change::OnLimitExceeded(OnExceeded::ReturnErrorResponse) => {
                "spring.ai.tools.limits.on-limit-exceeded=RETURN_ERROR_RESPONSE".into()
            }
            Change::Processor(ProcessorKind::Default) => {
                "drop your ToolExecutionExceptionProcessor bean (--processor default)".into()
            }
            Change::Processor(ProcessorKind::JsonError) => {
                "a ToolExecutionExceptionProcessor bean that writes {\"error\":MESSAGE} (--processor json-error)".into()
            }
            Change::NoAlwaysThrow => "spring.ai.tools.throw-exception-on-error=false".into(),
            Change::NoRethrow => "rethrow no exception class (--rethrow none)".into(),
            Change::Memory(Memory::Outside) => {
                "MessageChatMemoryAdvisor at its default order, outside the tool loop (--memory outside)".into()
            }
            Change::Memory(Memory::None) => "no chat memory advisor (--memory none)".into(),
            Change::Memory(Memory::Inside) => {
                "MessageChatMemoryAdvisor inside the tool loop (--memory inside)".into()
            }
            Change::MemoryWindow(n) => {
                format!("MessageWindowChatMemory.builder().maxMessages({n}) (--memory-window {n})")
            }
            Change::History(true) => "register ToolCallingAdvisor yourself with conversationHistoryEnabled(true) (--history on)".into(),
            Change::History(false) => "register ToolCallingAdvisor yourself with conversationHistoryEnabled(false) (--history off)".into(),
        }
    }

    /// A short name for JSON.
    pub fn key(&self) -> String {
        match self {
            Change::OnLimitExceeded(OnExceeded::Throw) => "on-limit-exceeded=THROW".into(),
            Change::OnLimitExceeded(OnExceeded::ReturnErrorResponse) => {
                "on-limit-exceeded=RETURN_ERROR_RESPONSE".into()
            }
            Change::Processor(ProcessorKind::Default) => "processor=default".into(),
            Change::Processor(ProcessorKind::JsonError) => "processor=json-error".into(),
            Change::NoAlwaysThrow => "throw-exception-on-error=false".into(),
            Change::NoRethrow => "rethrow=none".into(),
            Change::Memory(Memory::None) => "memory=none".into(),
            Change::Memory(Memory::Inside) => "memory=inside".into(),
            Change::Memory(Memory::Outside) => "memory=outside".into(),
            Change::MemoryWindow(n) => format!("memory-window={n}"),
            Change::History(h) => format!("history={}", if *h { "on" } else { "off" }),
        }
    }
}

/// The changes worth trying on `s`: each differs from it.
pub(super) fn candidate_changes(s: &Setup) -> Vec<Change> {
    let mut v = Vec::new();
    v.push(Change::OnLimitExceeded(match s.limits.on_exceeded {
        OnExceeded::Throw => OnExceeded::ReturnErrorResponse,
        OnExceeded::ReturnErrorResponse => OnExceeded::Throw,
    }));
    v.push(Change::Processor(match s.processor.kind {
        ProcessorKind::Default => ProcessorKind::JsonError,
        ProcessorKind::JsonError => ProcessorKind::Default,
    }));
    if s.processor.always_throw {
        v.push(Change::NoAlwaysThrow);
    }
    if !s.processor.rethrow.is_empty() {
        v.push(Change::NoRethrow);
    }
    // 1.1: no ToolCallingAdvisor, so no history switch (a memory inside
    // the loop is ToolCallAdvisor's, whose history is always on).
    let advisor = !s.version.loop_in_chat_model();
    for m in [Memory::Outside, Memory::None] {
        if s.memory != m && s.memory != Memory::None {
            v.push(Change::Memory(m));
        }
    }
    if s.memory != Memory::None {
        // Room for the long turn: the user message, two messages per round
        // and the answer, with some to spare.
        let room =
            NonZeroU32::new(4 * LONG_TURN_ROUNDS as u32).unwrap_or(DEFAULT_MEMORY_MAX_MESSAGES);
        if s.memory_max_messages < room {
            v.push(Change::MemoryWindow(room));
        }
    }
    // History matters with the memory inside (ChatClient turns it off
    // there) and wherever it was set by hand: off, the loop sends Gemini a
    // lone function response.
    if advisor && (s.memory == Memory::Inside || s.conversation_history.is_some()) {
        v.push(Change::History(!s.history()));
    }
    v
}

/// One behaviour set's report for a setup.
#[derive(Debug, Clone, PartialEq)]
pub struct SetReport {
    /// The behaviour set.
    pub set: BehaviorSet,
    /// One verdict per scenario, in [`CheckScenario::ALL`] order.
    pub verdicts: Vec<CheckVerdict>,
    /// The smallest change (at most two) that makes every scenario
    /// survive; `Some(vec![])` when the setup already does; `None` when no
    /// such change exists.
    pub smallest_change: Option<Vec<Change>>,
}

impl SetReport {
    /// Whether every scenario survives.
    pub fn safe(&self) -> bool {
        self.verdicts.iter().all(|v| v.mark.survives())
    }

    /// The columns of the scenarios it breaks in, in table order.
    ///
    /// ```
    /// use toolcall_check::config::{report, Setup};
    /// for r in report(&Setup::default()) {
    ///     assert_eq!(r.breaks().is_empty(), r.safe());
    /// }
    /// // Upstream Spring AI with Gemini breaks on a tool's plain text.
    /// assert!(report(&Setup::default())[0].breaks().contains(&"plain"));
    /// ```
    pub fn breaks(&self) -> Vec<&'static str> {
        self.verdicts
            .iter()
            .filter(|v| !v.mark.survives())
            .map(|v| v.scenario.column())
            .collect()
    }
}

/// The scenarios in the order a search plays them: the last to break a
/// candidate first, so that a candidate that fails mostly fails on its
/// first play rather than after every scenario that survives. Whether
/// all survive does not depend on the order (each play is a pure function
/// of the setup, the set and the scenario), so a search finds what it
/// finds playing them in table order, in a fraction of the plays.
struct BreakersFirst(Vec<CheckScenario>);

impl BreakersFirst {
    fn new() -> BreakersFirst {
        BreakersFirst(CheckScenario::ALL.to_vec())
    }

    /// Whether `holds` holds for every scenario; the first that fails
    /// moves to the front.
    fn all(&mut self, mut holds: impl FnMut(CheckScenario) -> bool) -> bool {
        match self.0.iter().position(|s| !holds(*s)) {
            Some(i) => {
                self.0[..=i].rotate_right(1);
                false
            }
            None => true,
        }
    }

    /// Whether `setup` survives every scenario under `set`.
    fn survive(&mut self, setup: &Setup, set: &BehaviorSet) -> bool {
        self.all(|s| evaluate(setup, set, s).mark.survives())
    }
}

/// The smallest set of [`Change`]s (none, one, or two, in candidate order)
/// after which `setup` survives every scenario under `set`.
pub(crate) fn smallest_change(setup: &Setup, set: &BehaviorSet) -> Option<Vec<Change>> {
    let mut order = BreakersFirst::new();
    if order.survive(setup, set) {
        return Some(vec![]);
    }
    let cands = candidate_changes(setup);
    for c in &cands {
        if order.survive(&c.apply(setup), set) {
            return Some(vec![c.clone()]);
        }
    }
    for (i, a) in cands.iter().enumerate() {
        for b in &cands[i + 1..] {
            if std::mem::discriminant(a) == std::mem::discriminant(b) {
                continue;
            }
            if order.survive(&b.apply(&a.apply(setup)), set) {
                return Some(vec![a.clone(), b.clone()]);
            }
        }
    }
    None
}

/// `setup` with only the overrides and exclusions of the tools the
/// scenarios call (the breach target, the names `breach_target` tries for
/// any other tool, `weather`, `step1`...): the same verdicts, and a file of
/// a hundred thousand overrides is not copied into every scenario run. No
/// [`Change`] touches the per-tool limits, so this holds for the smallest
/// change too.
pub(super) fn scenario_setup(setup: &Setup) -> Setup {
    let l = &setup.limits;
    let mut names: Vec<String> = (1..=LONG_TURN_ROUNDS).map(|r| format!("step{r}")).collect();
    names.push("weather".into());
    names.extend(setup.tool_output.text_tool().map(str::to_owned));
    if let Some((tool, _)) = breach_target(l) {
        names.push(tool);
    }
    let mut other = "x".to_owned();
    loop {
        names.push(other.clone());
        if !(l.overrides.contains_key(&other) || l.excluded.contains(&other)) {
            break;
        }
        other.push('x');
    }
    let mut s = setup.clone();
    s.limits.overrides = names
        .iter()
        .filter_map(|n| l.overrides.get(n).map(|v| (n.clone(), *v)))
        .collect();
    s.limits.excluded = names
        .iter()
        .filter(|n| l.excluded.contains(*n))
        .cloned()
        .collect();
    s
}

/// The whole report for a setup: every behaviour set, every scenario.
pub fn report(setup: &Setup) -> Vec<SetReport> {
    report_sets(setup, &behavior_sets())
}

/// The report for a setup under the given behaviour sets.
pub(crate) fn report_sets(setup: &Setup, sets: &[BehaviorSet]) -> Vec<SetReport> {
    let setup = &scenario_setup(setup);
    sets.iter()
        .copied()
        .map(|set| {
            let verdicts = CheckScenario::ALL
                .iter()
                .map(|s| evaluate(setup, &set, *s))
                .collect::<Vec<_>>();
            let smallest_change = if verdicts.iter().all(|v| v.mark.survives()) {
                Some(vec![])
            } else {
                smallest_change(setup, &set)
            };
            SetReport {
                set,
                verdicts,
                smallest_change,
            }
        })
        .collect()
}

/// `set`'s verdicts on `setup` without the search for its smallest
/// change, which a reader of the verdicts alone (the gate of a running
/// application's path) does without: `smallest_change` is `None`, not
/// searched.
pub(crate) fn verdicts_under(setup: &Setup, set: BehaviorSet) -> SetReport {
    let setup = &scenario_setup(setup);
    SetReport {
        set,
        verdicts: CheckScenario::ALL
            .iter()
            .map(|s| evaluate(setup, &set, *s))
            .collect(),
        smallest_change: None,
    }
}

/// Upstream's smallest change for `setup`: its report's
/// `smallest_change` ([`report_sets`]) without its verdicts.
pub(crate) fn upstream_change(setup: &Setup) -> Option<Vec<Change>> {
    let upstream = candidate(Fixes::upstream());
    let upstream = behavior_sets()
        .into_iter()
        .find(|s| s.name == "upstream")
        .unwrap_or(upstream);
    smallest_change(&scenario_setup(setup), &upstream)
}

/// The fewest fixes (in [`Fix::ALL`] order among equals) under which
/// `setup` survives every scenario, found by playing each combination;
/// `Some` of no fix when upstream already survives, `None` when no
/// combination does.
pub(crate) fn smallest_fixes(setup: &Setup) -> Option<Fixes> {
    smallest_fixes_over(setup, Fixes::upstream(), &[])
}

/// The fewest fixes added to `base` (the switches already installed)
/// under which every scenario of `setup` survives or breaks only as an
/// `accepted` finding says (one for any set, or for the candidate's).
pub(crate) fn smallest_fixes_over(
    setup: &Setup,
    base: Fixes,
    accepted: &[super::Accepted],
) -> Option<Fixes> {
    let setup = &scenario_setup(setup);
    smallest_fixes_played(&mut Plays::new(setup), base, accepted)
}

/// [`smallest_fixes_over`] on `plays`' setup (already the scenarios' own,
/// [`scenario_setup`]), with the plays it keeps.
fn smallest_fixes_played(
    plays: &mut Plays<'_>,
    base: Fixes,
    accepted: &[super::Accepted],
) -> Option<Fixes> {
    let n = Fix::ALL.len();
    let base_mask = (0..n)
        .filter(|i| base.contains(Fix::ALL[*i]))
        .fold(0u32, |m, i| m | (1 << i));
    // Only the switches the library on this version has.
    let version = plays.setup.version;
    let offered = (0..n)
        .filter(|i| super::library_has(version, Fix::ALL[*i]))
        .fold(0u32, |m, i| m | (1 << i));
    // Fewest fixes first, and of as many, those with fewer upstream
    // proposals (this project's own fixes are the ones it recommends),
    // then by the mask's bits reversed: the three packed in one number per
    // candidate, computed once (a sort that recounted them per comparison
    // cost as much as all the plays), each rank distinct.
    let upstream_proposals = (0..n)
        .filter(|i| !Fix::ALL[*i].in_all())
        .fold(0u32, |m, i| m | (1 << i));
    let mut ranked: Vec<u64> = (0..1u32 << n)
        .filter(|m| m & base_mask == base_mask && m & !(offered | base_mask) == 0)
        .map(|m| {
            let fewest = u64::from(m.count_ones()) << 40;
            let proposals = u64::from((m & upstream_proposals).count_ones()) << 32;
            fewest | proposals | u64::from(m.reverse_bits())
        })
        .collect();
    ranked.sort_unstable();
    let mut order = BreakersFirst(plays.cheapest_first.clone());
    ranked.into_iter().find_map(|rank| {
        let m = (rank as u32).reverse_bits();
        let fixes: Fixes = (0..n)
            .filter(|i| m & (1 << i) != 0)
            .map(|i| Fix::ALL[i])
            .collect();
        let ok = |s: CheckScenario, mark: super::Mark| {
            mark.survives() || accepted.iter().any(|a| a.accepts(s, mark, fixes))
        };
        // A play already made that breaks the candidate rules it out
        // before any new play.
        let known_break = CheckScenario::ALL
            .into_iter()
            .any(|s| plays.known(s, fixes).is_some_and(|mark| !ok(s, mark)));
        (!known_break && order.all(|s| ok(s, plays.mark(s, fixes)))).then_some(fixes)
    })
}

/// The marks of `check`'s scenarios played on one setup under candidate
/// sets of fixes (no advisor), each kept for the fixes its turn can feel
/// ([`Footprint::felt`]): under two sets that differ only in fixes the
/// turn cannot feel, the turn runs and is judged alike (its judges read
/// the run, and the conversion fixes, always felt), so the searches over
/// the library's switches play each scenario once per felt set rather
/// than once per candidate.
struct Plays<'s> {
    /// The setup, as the scenarios play it ([`scenario_setup`]).
    setup: &'s Setup,
    /// Per scenario of [`CheckScenario::ALL`], its turn's footprint, or
    /// `None` where the scenario is not played on this setup (its script
    /// refuses it, whatever the fixes).
    footprints: Vec<Option<Footprint>>,
    /// The marks played, by scenario and felt fixes.
    marks: HashMap<(CheckScenario, Fixes), super::Mark>,
    /// The scenarios played, cheapest first ([`play_cost`]).
    cheapest_first: Vec<CheckScenario>,
}

impl<'s> Plays<'s> {
    fn new(setup: &'s Setup) -> Self {
        let none = candidate(Fixes::upstream());
        let scripts: Vec<_> = CheckScenario::ALL
            .into_iter()
            .map(|s| script(setup, &none, s).ok())
            .collect();
        let footprints = scripts
            .iter()
            .map(|t| {
                t.as_ref()
                    .map(|t| Footprint::of_turn(&t.config, &t.tools, &t.history, &t.model))
            })
            .collect();
        let mut cheapest_first: Vec<(usize, CheckScenario)> = scripts
            .iter()
            .zip(CheckScenario::ALL)
            .map(|(t, s)| (t.as_ref().map_or(0, play_cost), s))
            .collect();
        cheapest_first.sort_by_key(|(cost, _)| *cost);
        Plays {
            setup,
            footprints,
            marks: HashMap::new(),
            cheapest_first: cheapest_first.into_iter().map(|(_, s)| s).collect(),
        }
    }

    /// The key of `s` played under `fixes`: the fixes its turn can feel.
    fn key(&self, s: CheckScenario, fixes: Fixes) -> (CheckScenario, Fixes) {
        let i = CheckScenario::ALL.iter().position(|x| *x == s).unwrap_or(0);
        let felt = self.footprints[i].map_or(Fixes::upstream(), |f| f.felt(fixes));
        (s, felt)
    }

    /// The mark of `s` under `fixes`, if a play already says it.
    fn known(&self, s: CheckScenario, fixes: Fixes) -> Option<super::Mark> {
        self.marks.get(&self.key(s, fixes)).copied()
    }

    /// The mark of `s` under `fixes`, played once per felt set.
    fn mark(&mut self, s: CheckScenario, fixes: Fixes) -> super::Mark {
        let key = self.key(s, fixes);
        let setup = self.setup;
        *self
            .marks
            .entry(key)
            .or_insert_with(|| evaluate(setup, &candidate(fixes), s).mark)
    }
}

/// About what playing `t` costs: each model call rebuilds the request
/// from the turn so far, so the model calls times the messages a turn
/// grows to (a repeating model's up to its guard).
fn play_cost(t: &super::script::ScenarioScript) -> usize {
    let calls: usize = t.model.iter().flatten().map(|g| g.tool_calls.len()).sum();
    let rounds = if t.config.repeat_last {
        t.config.max_rounds
    } else {
        t.model.len()
    };
    let messages = if t.config.repeat_last {
        2 * rounds
    } else {
        calls + t.model.len()
    };
    rounds.saturating_mul(messages + t.history.len())
}

/// The behaviour set the searches play: `fixes`, without the advisor.
fn candidate(fixes: Fixes) -> BehaviorSet {
    BehaviorSet {
        name: "candidate",
        fixes,
        gemini_tool_text: false,
    }
}

/// The columns of the scenarios `setup` breaks in under `set`, in table
/// order: [`SetReport::breaks`] without the search for a smallest change.
pub(crate) fn breaks_under(setup: &Setup, set: &BehaviorSet) -> Vec<&'static str> {
    let setup = &scenario_setup(setup);
    CheckScenario::ALL
        .iter()
        .filter(|s| !evaluate(setup, set, **s).mark.survives())
        .map(|s| s.column())
        .collect()
}

/// Which fixes the setup needs: the names of the behaviour sets under
/// which it is safe as it is.
pub fn safe_sets(reports: &[SetReport]) -> Vec<&'static str> {
    reports
        .iter()
        .filter(|r| r.safe())
        .map(|r| r.set.name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::ToolOutput;
    use super::*;
    use toolcall_model::model::ToolCallLimits;

    /// Every set named is reported.
    #[test]
    fn report_sets_reports_each_set() {
        let set = BehaviorSet {
            name: "mine",
            fixes: Fixes::all(),
            gemini_tool_text: false,
        };
        let r = report_sets(&Setup::default(), &[set]);
        assert!(r[0].safe());
    }

    /// The fewest fixes that make a setup safe, found by playing them.
    #[test]
    fn smallest_fixes_of_a_breaching_setup() {
        let setup = Setup {
            limits: ToolCallLimits {
                on_exceeded: OnExceeded::ReturnErrorResponse,
                ..ToolCallLimits::default().max_calls_per_tool(1).unwrap()
            },
            ..Setup::default()
        };
        // Breach text and plain tool text both need the strict conversion; once
        // the loop goes on, a model that keeps calling past the limit needs the
        // turn to end.
        assert_eq!(
            smallest_fixes(&setup).unwrap().iter().collect::<Vec<_>>(),
            vec![Fix::StrictJsonOrWrap, Fix::EndTurnAfterBreach]
        );
    }

    /// What breaks under a set is what its report says breaks.
    #[test]
    fn breaks_under_is_the_report_s_breaks() {
        let up = &report(&Setup::default())[0];
        assert_eq!(breaks_under(&Setup::default(), &up.set), up.breaks());
    }

    /// Setups that feel different fixes: each memory position, each
    /// policy, a small window, streaming, a per-tool limit of 1, tools
    /// returning JSON, and Spring AI 1.1.
    fn varied_setups() -> Vec<Setup> {
        let limited = |on_exceeded| ToolCallLimits {
            on_exceeded,
            ..ToolCallLimits::default().max_calls_per_tool(1).unwrap()
        };
        let base = Setup::default();
        let mut v = vec![base.clone()];
        for memory in [Memory::Inside, Memory::Outside] {
            v.push(Setup {
                memory,
                memory_max_messages: NonZeroU32::new(6).unwrap(),
                ..base.clone()
            });
        }
        v.push(Setup {
            limits: limited(OnExceeded::ReturnErrorResponse),
            memory: Memory::Inside,
            ..base.clone()
        });
        v.push(Setup {
            limits: limited(OnExceeded::Throw),
            stream: true,
            tool_output: ToolOutput::parse("json").unwrap(),
            ..base.clone()
        });
        v.push(super::super::on_its_version(&Setup {
            version: toolcall_model::model::SpringAi::V1_1_2,
            memory: Memory::Inside,
            ..base
        }));
        v
    }

    /// A scenario plays alike under a set of fixes and under the fixes of
    /// it that its turn can feel: what lets [`Plays`] keep one mark for
    /// both.
    #[test]
    fn a_play_is_the_same_under_the_fixes_its_turn_feels() {
        let n = Fix::ALL.len() as u32;
        let mut compared = 0;
        for setup in varied_setups() {
            let setup = &scenario_setup(&setup);
            let plays = Plays::new(setup);
            for (i, s) in CheckScenario::ALL.into_iter().enumerate() {
                // Every set of fixes a step apart, and each with all.
                for m in (0..1u32 << n).step_by(97).chain([(1 << n) - 1]) {
                    let fixes: Fixes = (0..n as usize)
                        .filter(|b| m & (1 << b) != 0)
                        .map(|b| Fix::ALL[b])
                        .collect();
                    let felt = plays.footprints[i].map_or(Fixes::upstream(), |f| f.felt(fixes));
                    if felt == fixes {
                        continue;
                    }
                    let a = evaluate(setup, &candidate(fixes), s);
                    let b = evaluate(setup, &candidate(felt), s);
                    assert_eq!(format!("{a:?}"), format!("{b:?}"), "{s:?} {fixes:?}");
                    compared += 1;
                }
            }
        }
        assert!(compared > 100, "{compared}");
    }

    /// The search with its kept plays finds what playing every candidate
    /// in full finds.
    #[test]
    fn the_kept_plays_find_the_fewest_fixes_a_full_search_finds() {
        for setup in varied_setups() {
            let played = &scenario_setup(&setup);
            let offered: Vec<Fix> = Fix::ALL
                .into_iter()
                .filter(|f| super::super::library_has(setup.version, *f))
                .collect();
            let mut combos: Vec<Fixes> = (0..1u32 << offered.len())
                .map(|m| {
                    (0..offered.len())
                        .filter(|b| m & (1 << b) != 0)
                        .map(|b| offered[b])
                        .collect()
                })
                .collect();
            let proposals = |f: &Fixes| f.iter().filter(|x| !x.in_all()).count();
            let rank = |f: &Fixes| {
                let bits = Fix::ALL
                    .iter()
                    .enumerate()
                    .filter(|(_, x)| f.contains(**x))
                    .fold(0u32, |m, (i, _)| m | 1 << i);
                (f.iter().count(), proposals(f), bits.reverse_bits())
            };
            combos.sort_by_key(rank);
            let full = combos.into_iter().find(|f| {
                CheckScenario::ALL
                    .into_iter()
                    .all(|s| evaluate(played, &candidate(*f), s).mark.survives())
            });
            assert_eq!(smallest_fixes_over(&setup, Fixes::upstream(), &[]), full);
        }
    }

    /// The reduced setup gives every scenario the same verdict as the full one.
    #[test]
    fn scenario_setup_changes_no_verdict() {
        let mut limits = ToolCallLimits::default()
            .max_calls_per_tool(5)
            .unwrap()
            .max_total_tool_calls(30)
            .unwrap();
        for (name, n) in [
            ("weather", 1),
            ("step3", 1),
            ("x", 2),
            ("xx", 4),
            ("aaa", 3),
        ] {
            limits = limits.max_calls_per_tool_for(name, n).unwrap();
        }
        for i in 0..500 {
            limits = limits.max_calls_per_tool_for(&format!("t{i}"), 7).unwrap();
        }
        limits = limits.exclude_tool_from_limit("step7").unwrap();
        for on in [OnExceeded::Throw, OnExceeded::ReturnErrorResponse] {
            limits.on_exceeded = on;
            let full = Setup {
                limits: limits.clone(),
                ..Setup::default()
            };
            let reduced = scenario_setup(&full);
            assert!(reduced.limits.overrides.len() < 10);
            for set in behavior_sets() {
                for s in CheckScenario::ALL {
                    let a = evaluate(&full, &set, s);
                    let b = evaluate(&reduced, &set, s);
                    assert_eq!(format!("{a:?}"), format!("{b:?}"), "{} {s:?}", set.name);
                }
            }
        }
    }
}

/// The scenarios `plays`' setup breaks in (and no accepted finding
/// accepts) with every switch the library on its version has turned on.
fn beyond_the_library(
    plays: &mut Plays<'_>,
    installed: Fixes,
    accepted: &[super::Accepted],
) -> Vec<(CheckScenario, super::Mark)> {
    let version = plays.setup.version;
    let fixes = Fix::ALL
        .into_iter()
        .filter(|f| super::library_has(version, *f))
        .fold(installed, Fixes::with);
    CheckScenario::ALL
        .into_iter()
        .filter_map(|s| {
            let mark = plays.mark(s, fixes);
            let left = !mark.survives() && !accepted.iter().any(|a| a.accepts(s, mark, fixes));
            left.then_some((s, mark))
        })
        .collect()
}

/// The fix library's property prefix: its switches are
/// `toolcall.fixes.NAME=true`.
pub(crate) const FIX_PREFIX: &str = "toolcall.fixes";

/// What makes a setup safe today: a configuration change (under
/// upstream), and the fewest switches of the fix library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remedy {
    /// The smallest configuration change under upstream, if one is enough.
    pub change: Option<Vec<Change>>,
    /// The fewest fixes that make the setup safe as configured.
    pub fixes: Option<Fixes>,
    /// The Spring AI version answered for.
    pub version: toolcall_model::model::SpringAi,
    /// On 1.1, what no switch of the library there closes (the turn that
    /// never ends: 1.1 has no tool call limits): each scenario with its
    /// mark, left out of the search for `fixes`. Empty on 2.0.x.
    pub beyond: Vec<(CheckScenario, super::Mark)>,
    /// On 1.1, whether the memory stands inside `ToolCallAdvisor`'s loop
    /// (`--memory inside`): what the library leaves there, ordering the
    /// memory advisor before `ToolCallAdvisor` (outside the loop) changes.
    pub memory_in_tool_call_advisor: bool,
}

impl Remedy {
    /// The remedy of `setup`, whose reports (upstream's among them) are
    /// `reports`.
    pub(crate) fn find(
        setup: &Setup,
        reports: &[SetReport],
        installed: Fixes,
        accepted: &[super::Accepted],
    ) -> Remedy {
        let change = reports
            .iter()
            .find(|r| r.set.name == "upstream")
            .and_then(|r| r.smallest_change.clone());
        Remedy::with_change(setup, change, installed, accepted)
    }

    /// The remedy of `setup` whose smallest change under upstream is
    /// `change` ([`upstream_change`]).
    pub(crate) fn with_change(
        setup: &Setup,
        change: Option<Vec<Change>>,
        installed: Fixes,
        accepted: &[super::Accepted],
    ) -> Remedy {
        let played = &scenario_setup(setup);
        let mut plays = Plays::new(played);
        let mut fixes = smallest_fixes_played(&mut plays, installed, accepted);
        let mut beyond = Vec::new();
        if fixes.is_none() && setup.version.loop_in_chat_model() {
            beyond = beyond_the_library(&mut plays, installed, accepted);
            let more: Vec<super::Accepted> = accepted
                .iter()
                .cloned()
                .chain(beyond.iter().map(|(s, m)| super::Accepted {
                    scenario: *s,
                    mark: m.word().to_owned(),
                    set: None,
                    reason: String::new(),
                    origin: "beyond the library".to_owned(),
                }))
                .collect();
            fixes = smallest_fixes_played(&mut plays, installed, &more);
        }
        Remedy {
            change,
            fixes,
            version: setup.version,
            beyond,
            memory_in_tool_call_advisor: LoopConfig::memory_in_tool_call_advisor(
                setup.version,
                setup.memory,
            ),
        }
    }

    /// The fix library's properties for the fixes found.
    ///
    /// ```
    /// use toolcall_check::config::{Options, Sources, Text, Format, answer};
    /// let text = Text::new("a.properties", Format::Properties, "spring.ai.tools.limits.on-limit-exceeded=RETURN_ERROR_RESPONSE\n");
    /// let a = answer(Sources::of(vec![text]), &Options::default()).unwrap();
    /// assert!(a.remedy.properties().iter().all(|p| p.starts_with("toolcall.fixes.") && p.ends_with("=true")));
    /// ```
    pub fn properties(&self) -> Vec<String> {
        self.fixes
            .map(|f| {
                f.iter()
                    .map(|x| format!("{FIX_PREFIX}.{}=true", x.name()))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The remedy as JSON: the change, the fixes, the library and its
    /// properties.
    pub fn to_value(&self) -> serde_json::Value {
        let mut v = serde_json::json!({
            "configuration": self.change.as_ref().map(|c| c.iter().map(|x| serde_json::json!({"change": x.key(), "how": x.describe()})).collect::<Vec<_>>()),
            "fixes": self.fixes.map(|f| f.iter().map(|x| x.name()).collect::<Vec<_>>()),
            "library": super::fix_library(self.version),
            "properties": self.properties(),
        });
        if !self.beyond.is_empty() {
            v["beyond_the_library"] = self
                .beyond
                .iter()
                .map(|(s, m)| serde_json::json!({"scenario": s.column(), "mark": m.word()}))
                .collect();
        }
        v
    }
}
