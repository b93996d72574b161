//! The judges of the calls: one response per call (1), the limits (2) and
//! the counting (3), against the reference counts.

use crate::verification::oracle::RefCounts;
use crate::verification::turn_bound::max_for;
use toolcall_model::model::{Counts, Max, OnExceeded, ToolCallLimits};
use toolcall_model::model::{Fix, Invocation};
use toolcall_model::model::{Message, ToolCall};

use super::evidence::Evidence;
use super::trace::{COUNTING_JUDGE, CallEvent, LIMITS_JUDGE, ONE_RESPONSE_JUDGE, Round, RoundEnd};
use super::{Judged, Locus, refuted};

pub(super) fn one_response_per_call(ev: &Evidence<'_>) -> Judged {
    let trace = ev.trace();
    if let Err(e) = &trace.mirror {
        return refuted(
            format!("the loop to run its batches as the manager does, but {e}"),
            Locus::Unlocated,
        );
    }
    let throw = ev.scenario.config.manager.limits.on_exceeded == OnExceeded::Throw;
    trace.judged(ONE_RESPONSE_JUDGE, || {
        responses_per_call(trace.rounds(), throw)
    })
}

/// Invariant 1 on the replay's batches.
fn responses_per_call(rounds: &[Round], throw: bool) -> Judged {
    for (r, round) in rounds.iter().enumerate() {
        if let Err(e) = &round.driver {
            return refuted(format!("batch {r}: {e}"), Locus::Unlocated);
        }
        let calls = &round.calls;
        let (responses, answered) = match &round.end {
            RoundEnd::Done { result, .. } => {
                if !matches!(result.history.last(), Some(Message::Tool { .. })) {
                    return refuted(
                        format!("batch {r}: the result to end with a tool message"),
                        Locus::Unlocated,
                    );
                }
                (result.last_responses(), calls.len())
            }
            // end-turn-after-breach: under RETURN_ERROR_RESPONSE the whole
            // batch is answered, its first breach response the exception's.
            RoundEnd::Limit(e) if !throw => {
                let first = round
                    .events
                    .iter()
                    .position(|ev| matches!(ev, CallEvent::Answered { .. }));
                if round.events.len() != calls.len() || first != Some(e.breach_index) {
                    return refuted(
                        format!(
                            "batch {r}: a limit exception under RETURN_ERROR_RESPONSE only after every call, at the first breach (index {first:?}), not {}",
                            e.breach_index
                        ),
                        Locus::Unlocated,
                    );
                }
                (e.partial.last_responses(), calls.len())
            }
            RoundEnd::Limit(e) => {
                let k = round.events.len().saturating_sub(1);
                if !matches!(round.events.last(), Some(CallEvent::Thrown { .. })) {
                    return refuted(
                        format!("batch {r}: a limit exception only from a breach under THROW"),
                        Locus::Unlocated,
                    );
                }
                if e.breach_index != k {
                    return refuted(
                        format!(
                            "batch {r}: the breach response at index {k}, not {}",
                            e.breach_index
                        ),
                        Locus::Unlocated,
                    );
                }
                (e.partial.last_responses(), k + 1)
            }
            RoundEnd::Failed(_) => continue,
        };
        if responses.len() < answered || responses.len() > calls.len() {
            return refuted(
                format!(
                    "batch {r}: {answered} response(s) for {} call(s) executed or breached (of {}), got {}",
                    answered,
                    calls.len(),
                    responses.len()
                ),
                Locus::Unlocated,
            );
        }
        if !throw && responses.len() != calls.len() {
            return refuted(
                format!(
                    "batch {r}: exactly one response per call under RETURN_ERROR_RESPONSE ({}), got {}",
                    calls.len(),
                    responses.len()
                ),
                Locus::Unlocated,
            );
        }
        for (i, (resp, call)) in responses.iter().zip(calls).enumerate() {
            if resp.id != call.id || resp.name != call.name {
                return refuted(
                    format!(
                        "batch {r}: response {i} for call {:?} ({}), got one for {:?} ({})",
                        call.id, call.name, resp.id, resp.name
                    ),
                    Locus::Unlocated,
                );
            }
        }
    }
    Judged::Holds
}

pub(super) fn show_counts(c: &Counts) -> String {
    let parts: Vec<String> = c.sorted().iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{{{}}} total {}", parts.join(", "), c.total())
}

pub(super) fn over(m: Max, n: u64) -> bool {
    matches!(m, Max::Limited(max) if n > u64::from(max))
}

pub(super) fn limits(ev: &Evidence<'_>) -> Judged {
    let trace = ev.trace();
    trace.judged(LIMITS_JUDGE, || limits_of(ev, trace.rounds()))
}

/// One call of the turn's batches, as the limits see it.
struct LimitStep<'r> {
    /// The batch and the call's index in it.
    at: (usize, usize),
    call: &'r ToolCall,
    event: &'r CallEvent,
    /// The call's name counted with this call, and the total.
    count: u64,
    total: u64,
    /// The name's maximum.
    per_tool: Max,
    /// Whether the limits want a breach here.
    want_breach: bool,
}

/// Every call of `rounds`, counted on from `prior` (the turn history's
/// counts).
fn limit_steps<'r>(
    l: &'r ToolCallLimits,
    prior: &RefCounts,
    rounds: &'r [Round],
) -> impl Iterator<Item = LimitStep<'r>> + use<'r> {
    let mut reference = prior.clone();
    rounds
        .iter()
        .enumerate()
        .flat_map(|(r, round)| {
            round
                .calls
                .iter()
                .zip(&round.events)
                .enumerate()
                .map(move |(i, (call, event))| (r, i, call, event))
        })
        .map(move |(r, i, call, event)| {
            let (count, total) = reference.add(&call.name);
            let per_tool = max_for(l, &call.name);
            LimitStep {
                at: (r, i),
                call,
                event,
                count,
                total,
                per_tool,
                want_breach: over(per_tool, count) || over(l.max_total, total),
            }
        })
}

/// Whether the trace shows a breach at a call that met `event`; `btp`:
/// breach-through-processor is on.
fn breached(event: &CallEvent, btp: bool) -> bool {
    match event {
        CallEvent::Answered { .. } | CallEvent::Thrown { .. } => true,
        CallEvent::Invoked { .. } | CallEvent::Missing { .. } => false,
        CallEvent::Failed(e) => {
            // A failed lookup: no tool, or (with resolution
            // fallback) the resolver refusing a blank name.
            let j = e.java();
            let lookup = j
                .message
                .as_deref()
                .is_some_and(|m| m.starts_with("No ToolCallback found for tool name"))
                || (j.class == toolcall_model::model::ILLEGAL_ARGUMENT
                    && j.message.as_deref() == Some(toolcall_model::model::BLANK_TOOL_NAME));
            // With breach-through-processor a breach can fail the
            // batch when the processor throws.
            !lookup && btp
        }
    }
}

fn limits_of(ev: &Evidence<'_>, rounds: &[Round]) -> Judged {
    let l = &ev.scenario.config.manager.limits;
    let btp = ev
        .scenario
        .config
        .manager
        .fixes
        .contains(Fix::BreachThroughProcessor);
    let prior = ev.start_counts();
    let mut invoked = RefCounts::default();
    for step in limit_steps(l, prior, rounds) {
        let breached = breached(step.event, btp);
        if breached != step.want_breach {
            let (r, i) = step.at;
            let show = |m: Max| match m {
                Max::Limited(n) => n.to_string(),
                Max::Unlimited => "unlimited".to_owned(),
            };
            // The invocations the limits let run, up to this call: listed
            // only for the refutation.
            let expected_invocations = limit_steps(l, prior, rounds)
                .take_while(|s| s.at <= (r, i))
                .filter(|s| !s.want_breach && matches!(s.event, CallEvent::Invoked { .. }))
                .map(|s| Invocation {
                    tool: s.call.name.clone(),
                    arguments: match &s.call.arguments {
                        Some(a) if toolcall_model::model::has_text(a) => a.clone(),
                        _ => "{}".into(),
                    },
                })
                .collect();
            return refuted(
                format!(
                    "batch {r}, call {i} ({}): {} with {} call(s) to it (max {}) and {} in all (max {}), got {}",
                    step.call.name,
                    if step.want_breach {
                        "a breach"
                    } else {
                        "no breach"
                    },
                    step.count,
                    show(step.per_tool),
                    step.total,
                    show(l.max_total),
                    if breached { "a breach" } else { "none" }
                ),
                Locus::Invocations(expected_invocations),
            );
        }
        if matches!(step.event, CallEvent::Invoked { .. }) {
            invoked.add(&step.call.name);
        }
    }
    for (name, n) in invoked.names() {
        if let Max::Limited(max) = max_for(l, name)
            && n > u64::from(max).saturating_sub(prior.get(name))
        {
            return refuted(
                format!(
                    "at most {max} call(s) to {name} in the turn ({} before this request), got {n} invocation(s)",
                    prior.get(name)
                ),
                Locus::Unlocated,
            );
        }
    }
    let all = invoked.total;
    if let Max::Limited(max) = l.max_total
        && all > u64::from(max).saturating_sub(prior.total)
    {
        return refuted(
            format!(
                "at most {max} tool call(s) in the turn ({} before this request), got {all} invocation(s)",
                prior.total
            ),
            Locus::Unlocated,
        );
    }
    Judged::Holds
}

pub(super) fn counting(ev: &Evidence<'_>) -> Judged {
    let trace = ev.trace();
    let judged = trace.judged(COUNTING_JUDGE, || counting_rounds(ev, trace.rounds()));
    if !matches!(judged, Judged::Holds) {
        return judged;
    }
    final_counts(ev, trace.rounds())
}

/// Invariant 3 on the replay's batches.
fn counting_rounds(ev: &Evidence<'_>, rounds: &[Round]) -> Judged {
    let mut reference = ev.start_counts().clone();
    for (r, round) in rounds.iter().enumerate() {
        // The history rebuilds to the reference exactly when the
        // reference is its count; it is built only to be shown.
        if !reference.is_of(&round.history) || !reference.matches(&round.before) {
            let rebuilt = RefCounts::of(&round.history);
            return refuted(
                format!(
                    "batch {r}: to start from the counts rebuilt from its history, {}, got {}",
                    rebuilt,
                    show_counts(&round.before)
                ),
                Locus::Unlocated,
            );
        }
        for (i, (call, event)) in round.calls.iter().zip(&round.events).enumerate() {
            reference.add(&call.name);
            let counts = match event {
                CallEvent::Answered { counts }
                | CallEvent::Thrown { counts }
                | CallEvent::Missing { counts } => Some(counts),
                CallEvent::Invoked { counts, .. } => counts.as_ref(),
                CallEvent::Failed(_) => None,
            };
            if let Some(c) = counts
                && !reference.matches(c)
            {
                return refuted(
                    format!(
                        "batch {r}, after call {i}: counts {}, got {}",
                        reference,
                        show_counts(c)
                    ),
                    Locus::Unlocated,
                );
            }
        }
        if let RoundEnd::Done { result, counts } = &round.end {
            let rebuilt = Counts::recount(&result.history);
            if *counts != rebuilt || !reference.matches(counts) {
                return refuted(
                    format!(
                        "after batch {r}: the kept counts {} to equal the recount of the history, {}",
                        show_counts(counts),
                        show_counts(&rebuilt)
                    ),
                    Locus::Unlocated,
                );
            }
        }
    }
    Judged::Holds
}

/// Invariant 3 on the loop's own counts at the end of a turn that ended
/// normally.
fn final_counts(ev: &Evidence<'_>, rounds: &[Round]) -> Judged {
    let run = &ev.run;
    let ended_normally = run.error.is_none()
        && matches!(
            run.kind,
            toolcall_model::chat::EndKind::Completed | toolcall_model::chat::EndKind::ReturnDirect
        );
    if !ended_normally {
        return Judged::Holds;
    }
    let recounted;
    let expected = match rounds.last() {
        None => {
            recounted = Counts::recount(ev.turn_history());
            &recounted
        }
        Some(Round {
            end: RoundEnd::Done { counts, .. },
            ..
        }) => counts,
        Some(_) => return Judged::Holds,
    };
    if run.counts != *expected {
        return refuted(
            format!(
                "the loop's counts at the end of the turn, {}, got {}",
                show_counts(expected),
                show_counts(&run.counts)
            ),
            Locus::Unlocated,
        );
    }
    Judged::Holds
}
