//! Which fixes a turn's evaluation can feel: a fix whose switch the
//! evaluation never reads, or reads only where both of its values do the
//! same, changes nothing in the turn (its run, the replay of its batches,
//! the judges and the runs they make again). Under two behaviour sets that
//! differ only in such fixes a turn is evaluated once for both
//! ([`crate::verification::exhaustive`]).
//!
//! Each rule (the footprint's, `config::fix_reach`, read before the turn
//! runs; and the evaluation's, below) names the places that read the
//! fix's switch and says why the scenario never reaches them with an
//! effect. The model is
//! deterministic, so a run under a fix that is never read with an effect
//! takes the same path, step by step, as the run without it.

pub(crate) use crate::config::fix_reach::Footprint;
use crate::config::fix_reach::{Felt, FixReach};
use crate::verification::invariants::{CallEvent, Evidence, Round, RoundEnd, recovered};
use crate::verification::scenario::Scenario;
use toolcall_model::chat::advisor_thinks_json;
use toolcall_model::chat::{Memory, Provider};
use toolcall_model::collections::FnvMap;
use toolcall_model::gemini::{Payload, convert_arguments, convert_tool_response};
use toolcall_model::model::JavaException;
use toolcall_model::model::Message;
use toolcall_model::model::{Acts, Fix, Fixes};
use toolcall_model::model::{Batch, Config, breaches_pass_unshaped};

/// `fixes` without the fixes the evaluation of `scenario` cannot feel: the
/// turn runs and is judged under the result exactly as under `fixes`
/// (`Footprint::felt`).
///
/// ```
/// use toolcall_check::verification::{footprint::felt, scenario::Scenario};
/// use toolcall_model::{chat::LoopConfig, model::{Fix, Fixes, Generation, Message, ToolCall, ToolSpec}};
/// // One call to a tool that exists, far under Spring's default limits.
/// let s = Scenario { config: LoopConfig::default(), tools: vec![ToolSpec::returning("x", "1")],
///     history: vec![Message::user("hi")], model: vec![
///         vec![Generation { tool_calls: vec![ToolCall::new("1", "x", "{}")].into(), ..Default::default() }],
///         vec![Generation { text: Some("done".into()), ..Default::default() }]] };
/// // No breach, no missing tool, no memory: only the conversion fix is felt.
/// let all = Fixes::all().with(Fix::UnknownToolToProcessor);
/// assert_eq!(felt(&s, all).iter().collect::<Vec<_>>(), vec![Fix::StrictJsonOrWrap, Fix::ErrorKey]);
/// ```
pub fn felt(scenario: &Scenario, fixes: Fixes) -> Fixes {
    Footprint::of(scenario).felt(fixes)
}

impl Footprint {
    /// The footprint of a generated scenario's turn.
    pub(crate) fn of(scenario: &Scenario) -> Self {
        Footprint::of_turn(
            &scenario.config,
            &scenario.tools,
            &scenario.history,
            &scenario.model,
        )
    }
}

/// Whether `fix` is read only by the Gemini conversion of tool responses
/// and call arguments (`gemini::convert`), and by the judges through it
/// (and `error-key` by the lossless judge's recovery rule): its row says
/// so ([`Acts::Conversion`]).
fn converts(fix: Fix) -> bool {
    fix.acts() == Acts::Conversion
}

/// Whether the turn of `ev`, gathered under fixes `a`, runs and is judged
/// alike under fixes `b`: the evaluation of `ev` reached every switch the
/// two differ in, if at all, where both values do the same.
///
/// * A conversion fix ([`Acts::Conversion`]): every tool response and call
///   argument the evaluation converts (those of every request the loop
///   tried to send and of the memory, the request's and the memory's own,
///   and every call the model makes) converts to the same payload under
///   both, and where the two differ in `error-key` (which the lossless
///   judge's recovery rule reads too) each error's response recovers
///   alike under both, or fails to, wanting the same. A judge's run of the turn
///   again converts no other text: it runs the same batches, whose
///   responses the loop's requests held.
/// * `breach-through-processor`: no batch of the turn failed without
///   running a tool, and the exception processor gives every breach's text
///   back as it is (the replay of the batches, which the loop ran alike,
///   says what they did).
/// * `unknown-tool-to-processor`: no call found no tool.
/// * `end-turn-after-breach`: no batch would end the turn
///   ([`Batch::ends_turn`] under the fix).
/// * `close-dangling-calls`: no breach under `THROW` left a call of its
///   batch, and with the memory inside the loop no batch ended the turn.
/// * `keep-current-turn`, `evict-orphan-responses`: the window cut nothing.
/// * `store-answered-generation`: never here (`Footprint::felt` has it).
/// * The seed's advisor (the second of each pair says whether it runs),
///   where `ev` ran without it: the request is not empty and no response
///   of any request the loop tried to send is one it rewrites (each prompt
///   it would see is the loop's own, which that request holds).
///
/// A streamed turn is alike up to the run `stream-as-call`'s judge makes
/// through `call()`, which may run calls the stream never ran: the caller
/// judges that one under each set (`crate::verification::invariants::check_as`).
/// The stream reads each switch where the blocking loop does (the
/// manager, the memory, the conversion) and leaves the advisor out. A
/// repeating model's turn and a turn gathered with the advisor (whose
/// requests hold what it rewrote) are never alike here. `memo` keeps the
/// comparisons of conversions of a worker.
///
/// ```
/// use toolcall_check::verification::{footprint::{evaluates_alike, Conversions}, invariants::Evidence, scenario::Scenario};
/// use toolcall_model::{chat::LoopConfig, model::{Fix, Fixes, Generation, Message, ToolCall, ToolSpec}};
/// let turn = |text: &str| Scenario { config: LoopConfig::default(), tools: vec![ToolSpec::returning("x", text)],
///     history: vec![Message::user("hi")], model: vec![
///         vec![Generation { tool_calls: vec![ToolCall::new("1", "x", "{}")].into(), ..Default::default() }],
///         vec![Generation { text: Some("done".into()), ..Default::default() }]] };
/// let (up, strict) = (Fixes::upstream(), Fixes::only(Fix::StrictJsonOrWrap));
/// let mut memo = Conversions::default();
/// let object = turn(r#"{"temp":21}"#);
/// let ev = Evidence::gather(&object).unwrap();
/// assert!(evaluates_alike(&ev, (up, false), (strict, false), &mut memo));
/// assert!(evaluates_alike(&ev, (up, false), (Fixes::only(Fix::BreachThroughProcessor), false), &mut memo));
/// assert!(evaluates_alike(&ev, (up, false), (up, true), &mut memo));
/// let text = turn("disk full");
/// let ev = Evidence::gather(&text).unwrap();
/// assert!(!evaluates_alike(&ev, (up, false), (strict, false), &mut memo));
/// assert!(!evaluates_alike(&ev, (up, false), (up, true), &mut memo));
/// ```
pub fn evaluates_alike(
    ev: &Evidence<'_>,
    a: (Fixes, bool),
    b: (Fixes, bool),
    memo: &mut Conversions,
) -> bool {
    Alike::new(ev).sets(a, b, memo)
}

/// [`evaluates_alike`] for one evaluation compared with many sets: each
/// fix's rule, and the advisor's, reads the evaluation alone (not the two
/// sets), so it is worked out on first use and kept for the next sets.
#[derive(Debug)]
pub(crate) struct Alike<'e, 'a> {
    ev: &'e Evidence<'a>,
    /// Per fix of [`Fix::ALL`]: whether the evaluation never feels it.
    unfelt: [Option<bool>; Fix::ALL.len()],
    /// Whether the seed's advisor would leave the turn as it ran.
    untouched: Option<bool>,
}

impl<'e, 'a> Alike<'e, 'a> {
    /// Nothing worked out yet for `ev`.
    pub(crate) fn new(ev: &'e Evidence<'a>) -> Self {
        Alike {
            ev,
            unfelt: [None; Fix::ALL.len()],
            untouched: None,
        }
    }

    /// Whether the turn of the evaluation, gathered under `a`, runs and is
    /// judged alike under `b` ([`evaluates_alike`]).
    pub(crate) fn sets(
        &mut self,
        (a, advised): (Fixes, bool),
        (b, advisor): (Fixes, bool),
        memo: &mut Conversions,
    ) -> bool {
        let ev = self.ev;
        let c = &ev.scenario.config;
        if c.repeat_last || c.gemini_tool_text || advised || ev.runaway {
            return false;
        }
        if advisor && !*self.untouched.get_or_insert_with(|| untouched(ev)) {
            return false;
        }
        let mut conversions = false;
        for (i, fix) in Fix::ALL.into_iter().enumerate() {
            if a.contains(fix) == b.contains(fix) {
                continue;
            }
            if converts(fix) {
                conversions = true;
            } else if !*self.unfelt[i].get_or_insert_with(|| unfelt(ev, fix)) {
                return false;
            }
        }
        !conversions || converts_alike(ev, a, b, memo)
    }
}

/// Whether the seed's advisor, run on the turn of `ev` gathered without
/// it, would leave it as it ran: the request is not empty (`gemini_tool_text`
/// throws on an empty prompt) and no response of any request the loop tried
/// to send is one it rewrites (it rewrites the responses of a prompt's last
/// message that do not look like JSON).
fn untouched(ev: &Evidence<'_>) -> bool {
    let Some(attempted) = ev.attempted_messages() else {
        return false;
    };
    !ev.scenario.history.is_empty()
        && attempted
            .iter()
            .flatten()
            .flat_map(Message::responses)
            .all(|r| advisor_thinks_json(&r.data))
}

/// Whether the evaluation of `ev` never feels `fix`, one that is not a
/// conversion fix (the rules of [`evaluates_alike`]).
fn unfelt(ev: &Evidence<'_>, fix: Fix) -> bool {
    let c = &ev.scenario.config;
    match fix.felt() {
        Felt::Conversion | Felt::StoredReply => false,
        Felt::Breach => breaches_unshaped(ev),
        Felt::MissingTool => every_call(ev, |_, e, _| {
            !matches!(e, CallEvent::Missing { .. } | CallEvent::Failed(_))
        }),
        Felt::SecondBreach => {
            let on = with_fix(ev, fix);
            every_round(ev, |r| {
                Batch::ends_turn(&on, &r.history, &r.calls, &r.before).is_none()
            })
        }
        Felt::DanglingCalls => {
            // `Batch::throw` closes the calls after the breach;
            // `BatchEnd::closing` answers a batch that ended the turn.
            every_call(ev, |r, e, i| {
                !matches!(e, CallEvent::Thrown { .. }) || i + 1 == r.calls.len()
            }) && (c.memory != Memory::Inside
                || every_round(
                    ev,
                    |r| matches!(&r.end, RoundEnd::Done { result, .. } if !result.return_direct),
                ))
        }
        Felt::WindowCut => !ev.run.windowed,
    }
}

/// Whether every batch the turn ran satisfies `ok`, as the replay of its
/// batches through the manager's step engine saw them, where the replay
/// ran the batches as the loop did.
fn every_round(ev: &Evidence<'_>, ok: impl Fn(&Round) -> bool) -> bool {
    let trace = ev.trace();
    trace.mirror.is_ok() && trace.rounds().iter().all(|r| r.driver.is_ok() && ok(r))
}

/// Whether every call of every batch satisfies `ok` (given its batch, what
/// it did, and its place), as [`every_round`] sees them.
fn every_call(ev: &Evidence<'_>, ok: impl Fn(&Round, &CallEvent, usize) -> bool) -> bool {
    every_round(ev, |r| {
        r.events.iter().enumerate().all(|(i, e)| ok(r, e, i))
    })
}

/// The manager's configuration of `ev` with `fix` on.
fn with_fix(ev: &Evidence<'_>, fix: Fix) -> Config {
    let mut cfg = ev.scenario.config.manager.clone();
    cfg.fixes.insert(fix);
    cfg
}

/// Whether `breach-through-processor` leaves every breach of the turn as
/// it is: no batch failed without running a tool (which the limits judge
/// reads the fix on), and at each breach the exception processor gives
/// back the breach's text, and `NOT_EXECUTED` for the calls a breach under
/// `THROW` leaves ([`breaches_pass_unshaped`]).
fn breaches_unshaped(ev: &Evidence<'_>) -> bool {
    let unshaped = breaches_pass_unshaped(&ev.scenario.config.manager);
    let limits = &ev.scenario.config.manager.limits;
    every_call(ev, |r, e, i| match e {
        CallEvent::Invoked { .. } | CallEvent::Missing { .. } => true,
        CallEvent::Failed(_) => false,
        CallEvent::Answered { counts } | CallEvent::Thrown { counts } => {
            let Some(call) = r.calls.get(i) else {
                return false;
            };
            unshaped
                && limits
                    .check(&call.name, counts.get(&call.name), counts.total())
                    .is_some()
        }
    })
}

/// The conversion rule of [`evaluates_alike`], for fixes `a` and `b` that
/// differ only in conversion fixes or not at all.
fn converts_alike(ev: &Evidence<'_>, a: Fixes, b: Fixes, memo: &mut Conversions) -> bool {
    let s = ev.scenario;
    let c = &s.config;
    if c.provider != Provider::Gemini {
        return false;
    }
    let Some(attempted) = ev.attempted_messages() else {
        return false;
    };
    let messages = attempted
        .iter()
        .flatten()
        .chain(&ev.run.memory)
        .chain(&c.memory_start)
        .chain(&s.history);
    let replies = s.model.iter().flatten().flat_map(|g| &g.tool_calls);
    let calls = messages
        .clone()
        .flat_map(Message::tool_calls)
        .chain(replies);
    // The requests repeat the turn's texts: each distinct one is compared once.
    let mut seen: Vec<(&str, bool)> = Vec::new();
    for r in messages.flat_map(Message::responses) {
        if seen.contains(&(&r.data, r.error)) {
            continue;
        }
        if !memo.response(&r.data, r.error, a, b) {
            return false;
        }
        seen.push((&r.data, r.error));
    }
    let mut seen: Vec<Option<&str>> = Vec::new();
    for arguments in calls.map(|call| call.arguments.as_deref()) {
        if seen.contains(&arguments) {
            continue;
        }
        if !memo.arguments(arguments, a, b) {
            return false;
        }
        seen.push(arguments);
    }
    true
}

/// The conversions [`evaluates_alike`] compared, by text and the two sets
/// of fixes.
#[derive(Debug, Default)]
pub struct Conversions {
    responses: Memo<(Fixes, Fixes, bool), Memo<String, bool>>,
    arguments: Memo<(Fixes, Fixes), Memo<String, bool>>,
    /// What the payload judges learned, for the evidences this memo serves.
    pub(crate) judgements: std::rc::Rc<crate::verification::invariants::Judgements>,
}

/// A map with FNV-1a hashing: its keys are short texts and fix sets.
type Memo<K, V> = FnvMap<K, V>;

impl Conversions {
    fn response(&mut self, data: &str, error: bool, a: Fixes, b: Fixes) -> bool {
        let known = self.responses.entry((a, b, error)).or_default();
        if let Some(&alike) = known.get(data) {
            return alike;
        }
        let converted = convert_tool_response(data, error, a);
        let mut alike = same(&converted, &convert_tool_response(data, error, b));
        // The lossless judge's recovery rule reads `error-key` too, on an
        // error's response: there the payload must recover alike as well,
        // to the same wanted value where it does not.
        if let (true, true, Ok(payload)) = (
            alike,
            error && a.contains(Fix::ErrorKey) != b.contains(Fix::ErrorKey),
            &converted,
        ) {
            let value = payload.to_value();
            alike = recovered(data, error, a, &value) == recovered(data, error, b, &value);
        }
        known.insert(data.to_owned(), alike);
        alike
    }

    fn arguments(&mut self, arguments: Option<&str>, a: Fixes, b: Fixes) -> bool {
        let Some(text) = arguments else {
            return same(&convert_arguments(None, a), &convert_arguments(None, b));
        };
        let known = self.arguments.entry((a, b)).or_default();
        if let Some(&alike) = known.get(text) {
            return alike;
        }
        let alike = same(
            &convert_arguments(Some(text), a),
            &convert_arguments(Some(text), b),
        );
        known.insert(text.to_owned(), alike);
        alike
    }
}

/// The same payload, to everything that reads one (the validator reads
/// whether it is empty and whether it holds an infinite number), or the
/// same failure.
fn same(x: &Result<Payload, JavaException>, y: &Result<Payload, JavaException>) -> bool {
    match (x, y) {
        (Ok(p), Ok(q)) => {
            p == q && p.has_non_finite() == q.has_non_finite() && p.is_empty() == q.is_empty()
        }
        (Err(e), Err(f)) => e == f,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolcall_model::chat::LoopConfig;
    use toolcall_model::model::Config;
    use toolcall_model::model::Fix;
    use toolcall_model::model::ToolCallLimits;
    use toolcall_model::model::ToolSpec;
    use toolcall_model::model::{Generation, ToolCall};

    fn scenario(names: &[&str], limits: ToolCallLimits, memory: Memory) -> Scenario {
        Scenario {
            config: LoopConfig {
                memory,
                ..LoopConfig::new(Config {
                    limits,
                    ..Config::default()
                })
            },
            tools: vec![ToolSpec::returning("x", "1")],
            history: vec![Message::user("q")],
            model: vec![
                vec![Generation {
                    tool_calls: names
                        .iter()
                        .enumerate()
                        .map(|(i, n)| ToolCall::new(&i.to_string(), n, "{}"))
                        .collect(),
                    ..Generation::default()
                }],
                vec![Generation {
                    text: Some("done".into()),
                    ..Generation::default()
                }],
            ],
        }
    }

    #[test]
    fn a_breach_a_missing_tool_and_a_memory_inside_are_felt() {
        let every: Fixes = Fix::ALL.into_iter().collect();
        let one = ToolCallLimits {
            on_exceeded: toolcall_model::model::OnExceeded::ReturnErrorResponse,
            ..ToolCallLimits::default()
        }
        .max_calls_per_tool(1)
        .unwrap_or_default();
        let calm = felt(&scenario(&["x"], one.clone(), Memory::None), every);
        for fix in [
            Fix::BreachThroughProcessor,
            Fix::CloseDanglingCalls,
            Fix::EndTurnAfterBreach,
            Fix::UnknownToolToProcessor,
            Fix::StoreAnsweredGeneration,
            Fix::KeepCurrentTurn,
            Fix::EvictOrphanResponses,
        ] {
            assert!(!calm.contains(fix), "{fix}");
        }
        let breach = felt(&scenario(&["x", "x"], one.clone(), Memory::None), every);
        assert!(
            breach.contains(Fix::BreachThroughProcessor)
                && breach.contains(Fix::EndTurnAfterBreach)
        );
        let mut inside = scenario(&["y"], one.clone(), Memory::Inside);
        let missing = felt(&inside, every);
        assert!(missing.contains(Fix::UnknownToolToProcessor));
        // The window of 20 never fills in two replies; one of 2 does.
        assert!(
            !missing.contains(Fix::KeepCurrentTurn) && !missing.contains(Fix::EvictOrphanResponses)
        );
        inside.config.memory_max_messages = std::num::NonZeroU32::MIN.saturating_add(1);
        let small = felt(&inside, every);
        assert!(small.contains(Fix::KeepCurrentTurn) && small.contains(Fix::EvictOrphanResponses));
        // A missing tool handed to a processor: its failure reaches the
        // limits judge, which reads breach-through-processor.
        assert!(missing.contains(Fix::BreachThroughProcessor));
        assert!(missing.contains(Fix::CloseDanglingCalls));
        assert!(!missing.contains(Fix::StoreAnsweredGeneration));
    }
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.

    #[test]
    fn example_footprint() {
        use crate::verification::{footprint::Footprint, scenario::Scenario};
        use toolcall_model::{
            chat::LoopConfig,
            model::{Fixes, Message},
        };
        let s = Scenario {
            config: LoopConfig::default(),
            tools: vec![],
            history: vec![Message::user("hi")],
            model: vec![],
        };
        assert!(
            Footprint::of(&s)
                .felt(Fixes::all())
                .contains(toolcall_model::model::Fix::ErrorKey)
        );
    }

    #[test]
    fn example_alike() {
        use crate::verification::{
            footprint::{Alike, Conversions},
            invariants::Evidence,
            scenario::Scenario,
        };
        use toolcall_model::model::{Fix, Fixes, ToolSpec};
        let s = Scenario::one_call(ToolSpec::returning("x", "1"));
        let ev = Evidence::gather(&s).unwrap();
        let (mut alike, mut memo) = (Alike::new(&ev), Conversions::default());
        let up = (Fixes::upstream(), false);
        assert!(alike.sets(
            up,
            (Fixes::only(Fix::BreachThroughProcessor), false),
            &mut memo
        ));
        assert!(alike.sets(up, (Fixes::only(Fix::CloseDanglingCalls), false), &mut memo));
    }
}
