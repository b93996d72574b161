//! The scenario targets: `manager` (an arbitrary scenario through the
//! manager, batch by batch) and `tool_loop` (a multi-round loop with
//! memory), each judged by the invariants it claims.

use std::fmt::Debug;

use crate::verification::fix_columns::CheckerColumns;
use crate::verification::invariants::{Evidence, Invariant, RoundEnd, Verdict, check};
use crate::verification::scenario::Scenario;
use toolcall_model::chat::{EndKind, LoopConfig, LoopError, Memory, Provider};
use toolcall_model::model::Counts;
use toolcall_model::model::Fix;
use toolcall_model::model::TOOL_CALL_LIMIT_EXCEEDED;
use toolcall_model::model::{ExecResult, ManagerError, execute_tool_calls, execute_with_counts};
use toolcall_model::model::{Generation, Message};

use super::inputs::{LoopInput, ManagerInput, decode, fail_scenario};

/// The manager target: a `ManagerInput` through the manager, batch by
/// batch, as the loop would thread the history.
///
/// * `execute_tool_calls` (counts rebuilt from the history) agrees with
///   `execute_with_counts` given the counts kept from batch to batch (the
///   replay's driver, as the loop runs it) on every batch, on the result,
///   the error and the tools run;
/// * the same turn through the tool loop (provider `none`, no memory) runs
///   the same tools and ends as the batches did;
/// * the invariants of docs/INVARIANTS.md that hold for the behaviour
///   set hold on that run (among them: the counts after a batch equal the
///   recount of its history, invariant 3).
///
/// ```
/// toolcall_check::verification::fuzzing::manager(&[0u8; 64]);
/// ```
pub fn manager(data: &[u8]) {
    const T: &str = "manager";
    let Some(input) = decode::<ManagerInput>(data) else {
        return;
    };
    let (tools, history, mut model) = input.parts();
    let batches = model.len();
    model.push(vec![Generation {
        text: Some("done".into()),
        ..Generation::default()
    }]);
    let scenario = Scenario {
        config: LoopConfig {
            provider: Provider::None,
            ..LoopConfig::new(input.setup.config())
        },
        tools,
        history,
        model,
    };
    let fail = |what: &str| -> ! { fail_scenario(T, what, &input, &scenario) };
    let cfg = &scenario.config.manager;

    let (run, toolbox) = match scenario.run() {
        Ok(r) => r,
        Err(e) => fail(&format!("the loop did not run: {e}")),
    };
    // The invariants are judged on this run, the one `Evidence::gather`
    // would make again (provider `none`); its replay of the batches runs
    // the incremental path, `execute_with_counts` with the counts kept from
    // batch to batch, and the step engine, which the recounting path is
    // compared with below.
    let evidence = Evidence::of_run(&scenario, run, toolbox, None);
    let trace = evidence.trace();
    let rounds = trace.rounds();
    let mut by_recount = evidence.toolbox.fresh();
    // How the turn ends when run batch by batch.
    let mut end = EndKind::Completed;
    for (k, gens) in scenario.model[..batches].iter().enumerate() {
        if gens.iter().all(|g| g.tool_calls.is_empty()) {
            // Both paths refuse a reply without a tool call, and the turn
            // completes with it.
            let history = match k.checked_sub(1).and_then(|j| rounds.get(j)).map(|r| &r.end) {
                Some(RoundEnd::Done { result, .. }) => &result.history[..],
                _ => &scenario.history[..],
            };
            let prior = Counts::recount(history);
            let a = execute_tool_calls(cfg, history, gens, &mut by_recount);
            let b = execute_with_counts(cfg, history.to_vec(), gens, prior, &mut by_recount);
            match (a, b) {
                (Err(ea), Err(eb)) if ea == eb => {}
                _ => fail("the paths do not both refuse a reply without a tool call alike"),
            }
            break;
        }
        let Some(round) = rounds.get(k) else {
            fail("the loop stopped before the batches did")
        };
        if let Err(e) = &round.driver {
            fail(e);
        }
        let a = execute_tool_calls(cfg, &round.history, gens, &mut by_recount);
        if by_recount.invocations() != &trace.invocations()[..round.invoked] {
            fail("the recounting and incremental paths ran different tools");
        }
        match batch_end(a, &round.end) {
            Ok(None) => {}
            Ok(Some(kind)) => {
                end = kind;
                break;
            }
            Err(what) => fail(what),
        }
    }
    if evidence.toolbox.invocations() != by_recount.invocations() {
        fail("the loop ran different tools than the batches");
    }
    if evidence.run.kind != end {
        fail(&format!(
            "the loop ended as {:?}, the batches as {end:?}",
            evidence.run.kind
        ));
    }
    check_invariants(T, &input, &evidence);
}

/// A batch on the recounting path against the same round of the loop: the
/// turn's end when the batch ends it (`None` when the turn goes on), or
/// how the two paths differ.
fn batch_end(
    a: Result<ExecResult, ManagerError>,
    round: &RoundEnd,
) -> Result<Option<EndKind>, &'static str> {
    match (a, round) {
        (Ok(ra), RoundEnd::Done { result, .. }) => {
            if ra != *result {
                return Err("the recounting and incremental paths gave different results");
            }
            Ok(ra.return_direct.then_some(EndKind::ReturnDirect))
        }
        (Err(ManagerError::LimitExceeded(ea)), RoundEnd::Limit(eb)) => {
            if ea != *eb {
                return Err("the recounting and incremental paths failed differently");
            }
            Ok(Some(EndKind::LimitExceeded))
        }
        (Err(ea), RoundEnd::Failed(eb)) => {
            if ea != *eb {
                return Err("the recounting and incremental paths failed differently");
            }
            Ok(Some(match ea {
                // ToolCallingAdvisor catches any ToolCallLimitExceededException,
                // the breach's cause rethrown by the processor included.
                ManagerError::Java(j) if j.class == TOOL_CALL_LIMIT_EXCEEDED => {
                    EndKind::LimitExceeded
                }
                _ => EndKind::Error,
            }))
        }
        _ => Err("one path failed and the other did not"),
    }
}

/// Whether the fuzz targets claim `invariant` for the scenario and its run:
/// the invariants docs/INVARIANTS.md states for its behaviour set,
/// under the preconditions documented in `fuzz/README.md`.
pub(crate) fn claimed(invariant: Invariant, evidence: &Evidence<'_>) -> bool {
    let s = evidence.scenario;
    let f = s.config.manager.fixes;
    // Every fix whose row names the invariant is on (`CheckerColumns::closes`).
    let fixed = Fix::ALL
        .into_iter()
        .filter(|x| x.closes().contains(&invariant))
        .all(|x| f.contains(x));
    match invariant {
        Invariant::OneResponsePerCall | Invariant::Limits | Invariant::Counting => true,
        // No fix makes a streamed turn run as call() does (docs/INVARIANTS.md).
        Invariant::StreamAsCall => false,
        // Only the fixes' own rows say which fixes these need.
        Invariant::JsonSafe | Invariant::GeminiSafe | Invariant::Lossless => fixed,
        // The limits end the turn under THROW, and under
        // RETURN_ERROR_RESPONSE only with end-turn-after-breach (its
        // precondition, that the limits bound the calls, is the judge's).
        Invariant::TurnEnds => {
            fixed || s.config.manager.limits.on_exceeded == toolcall_model::model::OnExceeded::Throw
        }
        // The memory's window: with the fixes that keep the current turn
        // and store the generation the loop continues with (the seed's
        // advisor, which rewrites what the memory stores, aside).
        Invariant::QuestionKept | Invariant::MemoryKeepsTurns => {
            fixed && !s.config.gemini_tool_text
        }
        // Preconditions: the request is a new turn (its last non-system
        // message is a user message) whose system messages lead it; without conversation history the loop
        // sends the last message alone, so only a memory inside the loop
        // restores the pairs; and an inside memory stores every generation
        // of a reply, so a reply holds at most one (Gemini's default
        // candidate count): a second one is a message no fix answers.
        Invariant::TranscriptValid => {
            let new_turn = s
                .history
                .iter()
                .rev()
                .find(|m| !matches!(m, Message::System { .. }))
                .is_some_and(Message::is_user);
            // An inside memory finds itself in the prompt only as one
            // contiguous run; a system message after the first non-system
            // one breaks the run, and so does the seed's workaround advisor,
            // which rewrites a tool message the memory then stores while the
            // loop's own history keeps it raw. The memory is then prepended
            // again.
            let is_system = |m: &&Message| matches!(m, Message::System { .. });
            let system_leads = s
                .history
                .iter()
                .skip_while(is_system)
                .all(|m| !is_system(&m));
            let inside = s.config.memory == Memory::Inside;
            fixed
                && new_turn
                && (!inside || (system_leads && !s.config.gemini_tool_text))
                && (s.config.conversation_history || inside)
                && (!inside || s.model.iter().all(|reply| reply.len() <= 1))
        }
    }
}

/// The invariants of docs/INVARIANTS.md that hold for the scenario's
/// behaviour set ([`claimed`]), judged by [`crate::verification::invariants::check`]
/// on the evidence of a run of it.
pub(super) fn check_invariants(target: &str, input: &dyn Debug, evidence: &Evidence<'_>) {
    let scenario = evidence.scenario;
    for invariant in Invariant::ALL {
        if !claimed(invariant, evidence) {
            continue;
        }
        if let Verdict::Refuted(why) = check(invariant, evidence) {
            fail_scenario(
                target,
                &format!(
                    "invariant {invariant} refuted under {}: {why}",
                    scenario.config.manager.fixes
                ),
                input,
                scenario,
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Target: tool_loop
// ---------------------------------------------------------------------------

/// The tool_loop target: a `LoopInput` through the tool loop with memory.
///
/// * no panic, and a run is a function of its scenario (two runs agree);
/// * the round bound holds: at most `max_rounds` model calls and no more than
///   the script has; the loop's own errors say so exactly;
/// * the outcome is well formed for its kind, and there is one verdict per
///   Gemini request;
/// * the invariants of docs/INVARIANTS.md that hold for the behaviour
///   set hold (with every fix on: every stored transcript is well paired).
///
/// ```
/// toolcall_check::verification::fuzzing::tool_loop(&[1u8; 64]);
/// ```
pub fn tool_loop(data: &[u8]) {
    const T: &str = "tool_loop";
    let Some(input) = decode::<LoopInput>(data) else {
        return;
    };
    let scenario = input.scenario();
    let fail = |what: &str| -> ! { fail_scenario(T, what, &input, &scenario) };
    // The first run also records the request messages the invariants read
    // (what `Evidence::gather` runs); the second, a plain run, must agree
    // with it.
    let result = scenario.run_with_messages();
    let again = scenario.run();
    let same = match (&result, &again) {
        (Ok((run, toolbox, _)), Ok((run2, toolbox2))) => run == run2 && toolbox == toolbox2,
        (Err(e), Err(e2)) => e == e2,
        _ => false,
    };
    if !same {
        fail("two runs of one scenario differ");
    }
    let bound = scenario.config.max_rounds;
    let script = scenario.model.len();
    let (run, toolbox, messages) = match result {
        Ok(r) => r,
        Err(LoopError::TooManyRounds(n)) => {
            if n != bound || script < bound {
                fail("TooManyRounds without max_rounds replies");
            }
            return;
        }
        Err(LoopError::ScriptExhausted { call, len }) => {
            if len != script || call != len + 1 || call > bound {
                fail("ScriptExhausted does not describe the script");
            }
            return;
        } // `LoopError` is `#[non_exhaustive]` outside the model's crate: a
        // cause this check does not know yet fails it.
        Err(_) => fail("a LoopError this check does not know"),
    };
    let calls = run.requests.len();
    if calls > bound || calls > script {
        fail("more model calls than the round bound or the script allow");
    }
    if scenario.config.provider == Provider::Gemini && run.verdicts.len() != calls {
        fail("not one verdict per Gemini request");
    }
    let shape_ok = match run.kind {
        EndKind::Error => run.error.is_some() && run.generations.is_empty(),
        EndKind::Completed => {
            run.error.is_none() && calls > 0 && run.generations == scenario.model[calls - 1]
        }
        EndKind::LimitExceeded => {
            run.error.is_none()
                && run.generations.len() == 1
                && run.generations[0].finish_reason.as_deref()
                    == Some(toolcall_model::model::FINISH_REASON_LIMIT)
        }
        EndKind::ReturnDirect => {
            run.error.is_none()
                && !run.generations.is_empty()
                && run
                    .generations
                    .iter()
                    .all(|g| g.finish_reason.as_deref() == Some("returnDirect"))
        }
    };
    if !shape_ok {
        fail(&format!("a malformed {:?} outcome", run.kind));
    }
    if scenario.config.memory == Memory::None && !run.memory.is_empty() {
        fail("no memory, yet a stored transcript");
    }
    // As `Evidence::gather` keeps them: a provider-`none` run's messages
    // are its requests.
    let messages = (scenario.config.provider != Provider::None).then_some(messages);
    check_invariants(
        T,
        &input,
        &Evidence::of_run(&scenario, run, toolbox, messages),
    );
}
