//! The property suite: the invariants of docs/INVARIANTS.md, each
//! evaluated under every behaviour set of `behavior::behavior_sets()`, on turns
//! drawn from `toolcall_model::checking::gen` (nothing known to fail is fed in by
//! hand); the upstream counterexamples rediscovered from random generation;
//! each fix closing the gap it is meant to close; a reference state machine
//! for counting and limits; and a check that the generators stay wide.
//!
//! Budget: `PROPTEST_CASES` (default 48) cases per cell that must hold,
//! with failures persisted to `proptest-regressions/properties.txt` and
//! replayed first. A cell expected to be refuted runs from a fixed seed
//! until its first refutation (at most `max(PROPTEST_CASES, 2000)` cases),
//! and an unexpected pass fails the suite too, so the expected matrix
//! ([`REFUTED`]) stays true. `toolcall-model explore` prints the same
//! matrix with shrunk counterexamples.

use std::collections::BTreeMap;

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, FileFailurePersistence, TestCaseError, TestError, TestRunner};
use serde_json::Value;
use toolcall_model::chat::{EndKind, Memory, Provider};
use toolcall_model::checking::explore::{rng, run_cell, CellOutcome, MatrixCell, Options};
use toolcall_model::checking::gen::{self, with_set};
use toolcall_model::checking::invariants::{
    check, check_scenario, memory_holds_conversation, pairing, refutation, Evidence, Invariant,
    Locus, Refutation, Verdict,
};
use toolcall_model::checking::oracle::{is_whole_json, RefCounts};
use toolcall_model::checking::scenario::Scenario;
use toolcall_model::gemini::convert_tool_response;
use toolcall_model::model::Fixes;
use toolcall_model::model::{behavior_sets, BehaviorSet};
use toolcall_model::model::{
    execute_with_counts, Batch, Config as ManagerConfig, ManagerError, Step, NOT_EXECUTED,
};
use toolcall_model::model::{Counts, OnExceeded, ToolCallLimits};
use toolcall_model::model::{Generation, Message, ToolCall};
use toolcall_model::model::{Outcome, ToolSpec, Toolbox};
use toolcall_model::model::{Processor, ProcessorKind};

const REGRESSIONS: &str = "proptest-regressions/properties.txt";

/// The seed of the runs that must find a refutation.
const SEED: u64 = 20_260_430;

/// The cells expected to be refuted, with the reason. Every other cell
/// must hold (under its precondition, docs/INVARIANTS.md): under `all`,
/// every invariant holds but `stream-as-call`, which no fix is about, and
/// `transcript-valid` on streamed turns, which `close-dangling-calls` does
/// not reach.
const REFUTED: &[(&str, Invariant, &str)] = &[
    (
        "upstream",
        Invariant::JsonSafe,
        "the breach text bypasses the processor (seed 000)",
    ),
    (
        "upstream",
        Invariant::GeminiSafe,
        "non-JSON tool output fails parseJsonToMap",
    ),
    (
        "upstream",
        Invariant::Lossless,
        "the lenient read drops trailing text (issue 5437)",
    ),
    (
        "upstream",
        Invariant::TranscriptValid,
        "dangling calls in stored transcripts",
    ),
    (
        "breach-through-processor",
        Invariant::GeminiSafe,
        "only breach texts are fixed",
    ),
    (
        "breach-through-processor",
        Invariant::Lossless,
        "conversion unchanged",
    ),
    (
        "breach-through-processor",
        Invariant::TranscriptValid,
        "pairing unchanged",
    ),
    (
        "strict-json-or-wrap",
        Invariant::JsonSafe,
        "the manager's output is unchanged",
    ),
    (
        "strict-json-or-wrap",
        Invariant::TranscriptValid,
        "pairing unchanged",
    ),
    (
        "error-key",
        Invariant::JsonSafe,
        "the manager's output is unchanged",
    ),
    (
        "error-key",
        Invariant::GeminiSafe,
        "only error responses are fixed",
    ),
    (
        "error-key",
        Invariant::Lossless,
        "only error responses are fixed",
    ),
    ("error-key", Invariant::TranscriptValid, "pairing unchanged"),
    (
        "close-dangling-calls",
        Invariant::JsonSafe,
        "the breach text and the closed calls' text",
    ),
    (
        "close-dangling-calls",
        Invariant::GeminiSafe,
        "conversion unchanged",
    ),
    (
        "close-dangling-calls",
        Invariant::Lossless,
        "conversion unchanged",
    ),
    (
        "close-dangling-calls",
        Invariant::TranscriptValid,
        "several generations stored whole; the window's wipe",
    ),
    (
        "all",
        Invariant::TranscriptValid,
        "close-dangling-calls closes the memory inside the loop on turns through call() only: on a streamed turn the fix library keeps Spring's streaming path, so a THROW breach leaves the aggregated calls dangling",
    ),
    (
        "store-answered-generation",
        Invariant::JsonSafe,
        "the manager's output is unchanged",
    ),
    (
        "store-answered-generation",
        Invariant::GeminiSafe,
        "conversion unchanged",
    ),
    (
        "store-answered-generation",
        Invariant::Lossless,
        "conversion unchanged",
    ),
    (
        "store-answered-generation",
        Invariant::TranscriptValid,
        "dangling calls in stored transcripts",
    ),
    (
        "keep-current-turn",
        Invariant::JsonSafe,
        "the manager's output is unchanged",
    ),
    (
        "keep-current-turn",
        Invariant::GeminiSafe,
        "conversion unchanged",
    ),
    (
        "keep-current-turn",
        Invariant::Lossless,
        "conversion unchanged",
    ),
    (
        "keep-current-turn",
        Invariant::TranscriptValid,
        "dangling calls in stored transcripts",
    ),
    (
        "evict-orphan-responses",
        Invariant::JsonSafe,
        "the manager's output is unchanged",
    ),
    (
        "evict-orphan-responses",
        Invariant::GeminiSafe,
        "conversion unchanged",
    ),
    (
        "evict-orphan-responses",
        Invariant::Lossless,
        "conversion unchanged",
    ),
    (
        "evict-orphan-responses",
        Invariant::TranscriptValid,
        "dangling calls in stored transcripts",
    ),
    // The upstream pull requests on the Gemini conversion: every
    // conversion succeeds, but PR 6907 still cuts half-JSON and PR 6049
    // builds decimals as doubles.
    (
        "pr-6907-wrap-on-failure",
        Invariant::JsonSafe,
        "the manager's output is unchanged",
    ),
    (
        "pr-6907-wrap-on-failure",
        Invariant::Lossless,
        "half-JSON still cut to its first value",
    ),
    (
        "pr-6907-wrap-on-failure",
        Invariant::TranscriptValid,
        "dangling calls in stored transcripts",
    ),
    (
        "pr-6049-strict-wrap",
        Invariant::JsonSafe,
        "the manager's output is unchanged",
    ),
    (
        "pr-6049-strict-wrap",
        Invariant::Lossless,
        "decimals a double cannot hold arrive rounded",
    ),
    (
        "pr-6049-strict-wrap",
        Invariant::TranscriptValid,
        "dangling calls in stored transcripts",
    ),
    (
        "gemini-tool-text",
        Invariant::JsonSafe,
        "the advisor does not change the manager's output",
    ),
    (
        "gemini-tool-text",
        Invariant::GeminiSafe,
        "`[...`-texts pass the advisor; rewrites are raw one round later",
    ),
    (
        "gemini-tool-text",
        Invariant::Lossless,
        "`[...`/`\"...`-texts pass the advisor",
    ),
    (
        "gemini-tool-text",
        Invariant::TranscriptValid,
        "dangling calls in stored transcripts",
    ),
    // The memory's window: 2.0.1 wipes a turn longer than the window, its
    // question first; only `keep-current-turn` keeps it (the upstream
    // proposal keeps the pairs but evicts the oldest message first).
    (
        "upstream",
        Invariant::QuestionKept,
        "the window wipes the turn (history off)",
    ),
    (
        "breach-through-processor",
        Invariant::QuestionKept,
        "the window unchanged",
    ),
    (
        "strict-json-or-wrap",
        Invariant::QuestionKept,
        "the window unchanged",
    ),
    ("error-key", Invariant::QuestionKept, "the window unchanged"),
    (
        "close-dangling-calls",
        Invariant::QuestionKept,
        "the window unchanged",
    ),
    (
        "store-answered-generation",
        Invariant::QuestionKept,
        "the window unchanged",
    ),
    (
        "evict-orphan-responses",
        Invariant::QuestionKept,
        "the oldest message goes first, the question too",
    ),
    (
        "pr-6907-wrap-on-failure",
        Invariant::QuestionKept,
        "the window unchanged",
    ),
    (
        "pr-6049-strict-wrap",
        Invariant::QuestionKept,
        "the window unchanged",
    ),
    (
        "gemini-tool-text",
        Invariant::QuestionKept,
        "the window unchanged",
    ),
    (
        "upstream",
        Invariant::MemoryKeepsTurns,
        "the window wipes a turn longer than itself",
    ),
    (
        "breach-through-processor",
        Invariant::MemoryKeepsTurns,
        "the window unchanged",
    ),
    (
        "strict-json-or-wrap",
        Invariant::MemoryKeepsTurns,
        "the window unchanged",
    ),
    (
        "error-key",
        Invariant::MemoryKeepsTurns,
        "the window unchanged",
    ),
    (
        "close-dangling-calls",
        Invariant::MemoryKeepsTurns,
        "the window unchanged",
    ),
    (
        "store-answered-generation",
        Invariant::MemoryKeepsTurns,
        "the window unchanged",
    ),
    (
        "evict-orphan-responses",
        Invariant::MemoryKeepsTurns,
        "earlier turns split, the question evicted",
    ),
    (
        "pr-6907-wrap-on-failure",
        Invariant::MemoryKeepsTurns,
        "the window unchanged",
    ),
    (
        "pr-6049-strict-wrap",
        Invariant::MemoryKeepsTurns,
        "the window unchanged",
    ),
    (
        "gemini-tool-text",
        Invariant::MemoryKeepsTurns,
        "the window unchanged",
    ),
    (
        "upstream",
        Invariant::StreamAsCall,
        "a streamed reply is read from each chunk's first generation; no fix touches streaming",
    ),
    (
        "breach-through-processor",
        Invariant::StreamAsCall,
        "a streamed reply is read from each chunk's first generation; no fix touches streaming",
    ),
    (
        "strict-json-or-wrap",
        Invariant::StreamAsCall,
        "a streamed reply is read from each chunk's first generation; no fix touches streaming",
    ),
    (
        "error-key",
        Invariant::StreamAsCall,
        "a streamed reply is read from each chunk's first generation; no fix touches streaming",
    ),
    (
        "close-dangling-calls",
        Invariant::StreamAsCall,
        "a streamed reply is read from each chunk's first generation; no fix touches streaming",
    ),
    (
        "store-answered-generation",
        Invariant::StreamAsCall,
        "a streamed reply is read from each chunk's first generation; no fix touches streaming",
    ),
    (
        "keep-current-turn",
        Invariant::StreamAsCall,
        "a streamed reply is read from each chunk's first generation; no fix touches streaming",
    ),
    (
        "evict-orphan-responses",
        Invariant::StreamAsCall,
        "a streamed reply is read from each chunk's first generation; no fix touches streaming",
    ),
    (
        "all",
        Invariant::StreamAsCall,
        "a streamed reply is read from each chunk's first generation; no fix touches streaming",
    ),
    (
        "gemini-tool-text",
        Invariant::StreamAsCall,
        "a streamed reply is read from each chunk's first generation; no fix touches streaming",
    ),
    (
        "end-turn-after-breach",
        Invariant::StreamAsCall,
        "a streamed reply is read from each chunk's first generation; no fix touches streaming",
    ),
    (
        "unknown-tool-to-processor",
        Invariant::StreamAsCall,
        "a streamed reply is read from each chunk's first generation; no fix touches streaming",
    ),
    (
        "pr-6907-wrap-on-failure",
        Invariant::StreamAsCall,
        "a streamed reply is read from each chunk's first generation; no fix touches streaming",
    ),
    (
        "pr-6049-strict-wrap",
        Invariant::StreamAsCall,
        "a streamed reply is read from each chunk's first generation; no fix touches streaming",
    ),
    (
        "pr-6907-wrap-on-failure",
        Invariant::TurnEnds,
        "RETURN_ERROR_RESPONSE answers every breach and calls the model again",
    ),
    (
        "pr-6049-strict-wrap",
        Invariant::TurnEnds,
        "RETURN_ERROR_RESPONSE answers every breach and calls the model again",
    ),
    (
        "end-turn-after-breach",
        Invariant::JsonSafe,
        "the fix changes neither the texts, the conversion nor the memory",
    ),
    (
        "end-turn-after-breach",
        Invariant::GeminiSafe,
        "the fix changes neither the texts, the conversion nor the memory",
    ),
    (
        "end-turn-after-breach",
        Invariant::Lossless,
        "the fix changes neither the texts, the conversion nor the memory",
    ),
    (
        "end-turn-after-breach",
        Invariant::TranscriptValid,
        "the fix changes neither the texts, the conversion nor the memory",
    ),
    (
        "end-turn-after-breach",
        Invariant::QuestionKept,
        "the fix changes neither the texts, the conversion nor the memory",
    ),
    (
        "end-turn-after-breach",
        Invariant::MemoryKeepsTurns,
        "the fix changes neither the texts, the conversion nor the memory",
    ),
    (
        "unknown-tool-to-processor",
        Invariant::JsonSafe,
        "the fix changes neither the texts, the conversion nor the memory",
    ),
    (
        "unknown-tool-to-processor",
        Invariant::GeminiSafe,
        "the fix changes neither the texts, the conversion nor the memory",
    ),
    (
        "unknown-tool-to-processor",
        Invariant::Lossless,
        "the fix changes neither the texts, the conversion nor the memory",
    ),
    (
        "unknown-tool-to-processor",
        Invariant::TranscriptValid,
        "the fix changes neither the texts, the conversion nor the memory",
    ),
    (
        "unknown-tool-to-processor",
        Invariant::QuestionKept,
        "the fix changes neither the texts, the conversion nor the memory",
    ),
    (
        "unknown-tool-to-processor",
        Invariant::MemoryKeepsTurns,
        "the fix changes neither the texts, the conversion nor the memory",
    ),
    (
        "upstream",
        Invariant::TurnEnds,
        "RETURN_ERROR_RESPONSE answers every breach and calls the model again",
    ),
    (
        "breach-through-processor",
        Invariant::TurnEnds,
        "RETURN_ERROR_RESPONSE answers every breach and calls the model again",
    ),
    (
        "strict-json-or-wrap",
        Invariant::TurnEnds,
        "RETURN_ERROR_RESPONSE answers every breach and calls the model again",
    ),
    (
        "error-key",
        Invariant::TurnEnds,
        "RETURN_ERROR_RESPONSE answers every breach and calls the model again",
    ),
    (
        "close-dangling-calls",
        Invariant::TurnEnds,
        "RETURN_ERROR_RESPONSE answers every breach and calls the model again",
    ),
    (
        "store-answered-generation",
        Invariant::TurnEnds,
        "RETURN_ERROR_RESPONSE answers every breach and calls the model again",
    ),
    (
        "keep-current-turn",
        Invariant::TurnEnds,
        "RETURN_ERROR_RESPONSE answers every breach and calls the model again",
    ),
    (
        "evict-orphan-responses",
        Invariant::TurnEnds,
        "RETURN_ERROR_RESPONSE answers every breach and calls the model again",
    ),
    (
        "unknown-tool-to-processor",
        Invariant::TurnEnds,
        "RETURN_ERROR_RESPONSE answers every breach and calls the model again",
    ),
    (
        "gemini-tool-text",
        Invariant::TurnEnds,
        "RETURN_ERROR_RESPONSE answers every breach and calls the model again",
    ),
];

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(48)
}

fn set(name: &str) -> BehaviorSet {
    behavior_sets()
        .into_iter()
        .find(|s| s.name == name)
        .expect("a known behaviour set")
}

fn expected_refuted(set: &str, inv: Invariant) -> bool {
    REFUTED.iter().any(|(s, i, _)| *s == set && *i == inv)
}

fn holding_runner() -> TestRunner {
    holding_runner_of(cases())
}

/// [`holding_runner`] with `cases` cases.
fn holding_runner_of(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(REGRESSIONS))),
        source_file: Some(file!()),
        max_shrink_iters: 1024,
        ..Config::default()
    })
}

fn seeded_runner(cases: u32) -> TestRunner {
    TestRunner::new_with_rng(
        Config {
            cases,
            failure_persistence: None,
            max_shrink_iters: 0,
            ..Config::default()
        },
        rng(SEED),
    )
}

/// One invariant under every behaviour set: the cells of [`REFUTED`] must
/// be refuted, the others must hold.
fn property(inv: Invariant) {
    for set in behavior_sets() {
        let test = |s: Scenario| {
            let s = with_set(&s, &set);
            match check_scenario(inv, &s) {
                Verdict::Refuted(w) => Err(TestCaseError::fail(w)),
                _ => Ok(()),
            }
        };
        if expected_refuted(set.name, inv) {
            // Through `explore`'s own code path: the refutation is found,
            // and its counterexample vector replays as a failure.
            let opts = Options {
                cases: cases().max(2000),
                seed: SEED,
                max_shrink_iters: 16,
            };
            let r = run_cell(
                &MatrixCell {
                    set,
                    invariant: inv,
                },
                &opts,
                &|_| {},
            );
            match r.outcome {
                CellOutcome::Refuted {
                    replays, wanted, ..
                } => assert!(
                    replays,
                    "{} × {inv}: the counterexample vector does not show the failure ({wanted})",
                    set.name
                ),
                CellOutcome::Holds => panic!(
                    "{} × {inv}: expected a refutation, none in {} generated turns",
                    set.name, opts.cases
                ),
                CellOutcome::Aborted(e) => panic!("{} × {inv}: {e}", set.name),
            }
        } else {
            match holding_runner().run(&gen::scenario(), test) {
                Ok(()) => {}
                Err(TestError::Fail(reason, value)) => {
                    let s = with_set(&value, &set);
                    panic!(
                        "{} × {inv} is refuted: {reason}\ncounterexample:\n{}",
                        set.name,
                        serde_json::to_string_pretty(&s.to_vector(
                            "counterexample",
                            &reason.to_string(),
                            serde_json::json!({})
                        ))
                        .unwrap_or_default()
                    )
                }
                Err(e) => panic!("{} × {inv}: {e}", set.name),
            }
        }
    }
}

#[test]
fn one_response_per_call() {
    property(Invariant::OneResponsePerCall);
}

#[test]
fn limits() {
    property(Invariant::Limits);
}

#[test]
fn counting() {
    property(Invariant::Counting);
}

#[test]
fn json_safe() {
    property(Invariant::JsonSafe);
}

#[test]
fn gemini_safe() {
    property(Invariant::GeminiSafe);
}

#[test]
fn lossless() {
    property(Invariant::Lossless);
}

#[test]
fn transcript_valid() {
    property(Invariant::TranscriptValid);
}

#[test]
fn question_kept() {
    property(Invariant::QuestionKept);
}

#[test]
fn memory_keeps_turns() {
    property(Invariant::MemoryKeepsTurns);
}

#[test]
fn stream_as_call() {
    property(Invariant::StreamAsCall);
}

#[test]
fn turn_ends() {
    property(Invariant::TurnEnds);
}

// ---------------------------------------------------------------------------
// Classes of counterexample: rediscovered upstream, closed by their fix.

/// Draws up to `max` generated turns (from the fixed seed) and returns the
/// first one, under `set`, on which `inv` is refuted with a refutation of
/// the class `class`.
fn find(
    set_name: &str,
    inv: Invariant,
    max: u32,
    class: impl Fn(&Evidence<'_>, &Refutation) -> bool,
) -> Option<(Scenario, Refutation)> {
    let set = set(set_name);
    let strategy = gen::scenario();
    let mut runner = seeded_runner(1);
    for _ in 0..max {
        let s = with_set(&strategy.new_tree(&mut runner).ok()?.current(), &set);
        let Ok(ev) = Evidence::gather(&s) else {
            continue;
        };
        if let Some(r) = refutation(inv, &ev) {
            if class(&ev, &r) {
                return Some((s, r));
            }
        }
    }
    None
}

fn under(s: &Scenario, set_name: &str) -> Scenario {
    with_set(s, &set(set_name))
}

fn data(r: &Refutation) -> &str {
    r.response.as_ref().map_or("", |x| x.data.as_str())
}

#[test]
fn rediscovers_the_breach_text_and_breach_through_processor_closes_it() {
    let (s, r) = find("upstream", Invariant::JsonSafe, 3000, |_, r| {
        is_breach_text(data(r))
    })
    .expect("random generation finds the breach text of seed 000");
    assert!(r.wanted.contains("limit"));
    let fixed = under(&s, "breach-through-processor");
    assert_eq!(check_scenario(Invariant::JsonSafe, &fixed), Verdict::Holds);
}

#[test]
fn rediscovers_issue_5437_and_strict_json_or_wrap_closes_it() {
    // A number followed by whitespace and more text, read as just the number.
    let (_, r) = find("upstream", Invariant::Lossless, 3000, |_, r| {
        let d = data(r).trim_start_matches([' ', '\t', '\n', '\r']);
        let Locus::Payload { got, .. } = &r.locus else {
            return false;
        };
        d.starts_with(|c: char| c == '-' || c.is_ascii_digit())
            && d.contains([' ', '\t', '\n', '\r'])
            && got.get("result").is_some_and(Value::is_number)
    })
    .expect("random generation finds a `3.0 + 5.0 = 8.0`-like text");
    let text = data(&r);
    let fixed = convert_tool_response(
        text,
        false,
        Fixes::only(toolcall_model::model::Fix::StrictJsonOrWrap),
    )
    .expect("the fix never fails");
    assert_eq!(
        fixed.to_value(),
        serde_json::json!({ "result": text }),
        "the fix keeps {text:?} whole"
    );
}

fn single_generation_replies(s: &Scenario) -> bool {
    s.model.iter().all(|r| r.len() == 1)
}

fn request_ends_with_user(s: &Scenario) -> bool {
    matches!(s.history.last(), Some(Message::User { .. }))
}

#[test]
fn rediscovers_the_dangling_call_under_throw_and_close_dangling_calls_closes_it() {
    let (s, r) = find("upstream", Invariant::TranscriptValid, 3000, |ev, r| {
        ev.scenario.config.memory == Memory::Inside
            && ev.run.kind == EndKind::LimitExceeded
            && r.wanted.contains("dangling")
            && single_generation_replies(ev.scenario)
            && request_ends_with_user(ev.scenario)
    })
    .expect("random generation finds the dangling call of seed 000");
    assert!(matches!(r.locus, Locus::MemoryApi));
    let fixed = under(&s, "close-dangling-calls");
    if let Verdict::Refuted(w) = check_scenario(Invariant::TranscriptValid, &fixed) {
        assert!(!w.contains("dangling"), "{w}");
    }
    assert_eq!(
        check_scenario(Invariant::TranscriptValid, &under(&s, "all")),
        Verdict::Holds
    );
}

#[test]
fn rediscovers_error_texts_passing_the_workaround_advisor() {
    // `[ERROR] disk full`-like: starts like JSON, so the advisor keeps it.
    let (_, r) = find("gemini-tool-text", Invariant::GeminiSafe, 10_000, |_, r| {
        let d = data(r);
        d.starts_with('[') && d[1..].starts_with(|c: char| c.is_ascii_alphabetic())
    })
    .expect("random generation finds an `[ERROR] ...` text the advisor lets through");
    assert!(r.wanted.contains("Failed to parse JSON: ["));
}

#[test]
fn rediscovers_the_advisor_rewrite_that_is_raw_one_round_later() {
    // A text the advisor would rewrite reaches Gemini raw: it is no longer
    // the last message when the next request is built.
    let (_, r) = find("gemini-tool-text", Invariant::GeminiSafe, 3000, |ev, r| {
        let d = data(r);
        !d.is_empty()
            && !d.starts_with(['{', '[', '"'])
            && ev.run.requests.len() >= 2
            && matches!(r.locus, Locus::OutcomeError)
    })
    .expect("random generation finds the third fault of docs/BEHAVIOUR.md section 7");
    assert!(r.wanted.contains("Failed to parse JSON"));
}

fn is_breach_text(d: &str) -> bool {
    d.starts_with("Tool call limit (") || d.starts_with("Total tool call limit (")
}

#[test]
fn gemini_tool_text_rewrites_the_breach_text_of_the_round_just_run() {
    // What the advisor does fix: a breach text in the request right after
    // its batch (seed 000's case) is rewritten; one that still fails is from
    // an earlier round (the advisor's third fault).
    for_all("gemini-tool-text", |ev| {
        // The advisor is a CallAdvisor: a streamed turn runs without it.
        if ev.scenario.config.stream.is_some() {
            return Ok(());
        }
        let Some(r) = refutation(Invariant::GeminiSafe, ev) else {
            return Ok(());
        };
        let (Some(resp), Some(k)) = (&r.response, r.request) else {
            return Ok(());
        };
        if !is_breach_text(&resp.data) {
            return Ok(());
        }
        let last = ev
            .request_messages()
            .and_then(|m| m.get(k))
            .and_then(|m| m.last())
            .map_or(&[][..], Message::responses);
        // The response itself, not its id: a repeating model's rounds
        // repeat their call ids, and an earlier round's breach text (which
        // the advisor never sees last) shares its id with the last round's,
        // rewritten.
        if last.contains(resp) {
            return Err(format!(
                "the advisor let the last round's breach text through: {}",
                r.wanted
            ));
        }
        Ok(())
    });
    // Upstream fails on that very case, random generation finds it, and the
    // advisor makes that response convert.
    let (s, r) = find("upstream", Invariant::GeminiSafe, 3000, |ev, r| {
        let (Some(resp), Some(k)) = (&r.response, r.request) else {
            return false;
        };
        // A turn through call(): the advisor is not in stream()'s chain.
        ev.scenario.config.stream.is_none()
            && is_breach_text(&resp.data)
            && ev
                .request_messages()
                .and_then(|m| m.get(k))
                .and_then(|m| m.last())
                .is_some_and(|m| m.responses().iter().any(|x| x.id == resp.id))
    })
    .expect("random generation finds seed 000's breach text in the next request");
    let (k, id) = (
        r.request.unwrap_or_default(),
        r.response.map(|x| x.id).unwrap_or_default(),
    );
    let advised = under(&s, "gemini-tool-text");
    let ev = Evidence::gather(&advised).expect("a valid turn");
    let sent = ev
        .request_messages()
        .and_then(|m| m.get(k))
        .and_then(|m| m.last())
        .and_then(|m| m.responses().iter().find(|x| x.id == id).cloned())
        .expect("the same request holds the same response");
    assert!(
        convert_tool_response(&sent.data, sent.error, Fixes::upstream()).is_ok(),
        "the advisor rewrote {:?}",
        sent.data
    );
}

/// Runs `body` on `cases()` generated turns under `set` (random seed,
/// failures persisted).
fn for_all(set_name: &str, body: impl Fn(&Evidence<'_>) -> Result<(), String>) {
    for_all_of(set_name, cases(), body);
}

/// [`for_all`] on `cases` generated turns.
fn for_all_of(set_name: &str, cases: u32, body: impl Fn(&Evidence<'_>) -> Result<(), String>) {
    let set = set(set_name);
    let result = holding_runner_of(cases).run(&gen::scenario(), |s| {
        let s = with_set(&s, &set);
        match Evidence::gather(&s) {
            Ok(ev) => body(&ev).map_err(TestCaseError::fail),
            Err(_) => Ok(()),
        }
    });
    if let Err(e) = result {
        panic!("{set_name}: {e}");
    }
}

#[test]
fn error_key_converts_every_error_response() {
    for name in ["error-key", "all"] {
        for_all(name, |ev| {
            for inv in [Invariant::GeminiSafe, Invariant::Lossless] {
                if let Some(r) = refutation(inv, ev) {
                    if r.response.as_ref().is_some_and(|x| x.error) {
                        return Err(format!("{inv} fails on an error response: {}", r.wanted));
                    }
                }
            }
            Ok(())
        });
    }
}

#[test]
fn close_dangling_calls_pairs_every_turn_that_ends_after_a_batch() {
    // The fix's scope: turns that end after a batch (THROW, returnDirect, or
    // an exception) from a request that ends with a user message, with one
    // generation per reply, through call(): the fix library's advisor closes
    // the calls on the blocking path only (docs/INVARIANTS.md, streaming).
    // Outside that scope transcript-valid is refuted under every set (see
    // the findings below).
    // (The window's wipe, which `keep-current-turn` closes, can still
    // break the transcript; never with a dangling call.)
    for name in ["close-dangling-calls", "all"] {
        for_all(name, |ev| {
            let s = ev.scenario;
            let in_scope = request_ends_with_user(s)
                && single_generation_replies(s)
                && s.config.stream.is_none();
            match check(Invariant::TranscriptValid, ev) {
                Verdict::Refuted(w) if in_scope && (name == "all" || w.contains("dangling")) => {
                    Err(w)
                }
                _ => Ok(()),
            }
        });
    }
}

#[test]
fn all_shapes_closed_calls_through_the_processor() {
    // Under `all`, json-safe holds because the closed calls' text goes
    // through the JSON processor like the breach text: pin the exact bytes.
    let mut cfg = ManagerConfig {
        fixes: Fixes::all(),
        ..ManagerConfig::default()
    };
    cfg.limits = cfg.limits.max_calls_per_tool(1).expect("positive");
    cfg.processor.kind = toolcall_model::model::ProcessorKind::JsonError;
    let calls = ["1", "2", "3"]
        .map(|id| toolcall_model::model::ToolCall::new(id, "x", "{}"))
        .to_vec();
    let gens = [toolcall_model::model::Generation {
        tool_calls: calls,
        ..Default::default()
    }];
    let mut tb = Toolbox::new(vec![ToolSpec::returning("x", "1")]);
    let err = toolcall_model::model::execute_tool_calls(
        &cfg,
        &[toolcall_model::model::Message::user("go")],
        &gens,
        &mut tb,
    )
    .expect_err("the second call breaches under THROW");
    let ManagerError::LimitExceeded(e) = err else {
        panic!("a limit breach")
    };
    let data: Vec<&str> = e
        .partial
        .last_responses()
        .iter()
        .map(|r| r.data.as_str())
        .collect();
    assert_eq!(
        data,
        [
            "1",
            r#"{"error":"Tool call limit (1) exceeded for tool 'x'. No further calls to this tool are allowed in this turn."}"#,
            &format!(r#"{{"error":"{NOT_EXECUTED}"}}"#),
        ]
    );
    // With the default processor the closed calls' text is exactly the fix's.
    cfg.processor.kind = toolcall_model::model::ProcessorKind::Default;
    let mut tb = Toolbox::new(vec![ToolSpec::returning("x", "1")]);
    let Err(ManagerError::LimitExceeded(e)) = toolcall_model::model::execute_tool_calls(
        &cfg,
        &[toolcall_model::model::Message::user("go")],
        &gens,
        &mut tb,
    ) else {
        panic!("a limit breach")
    };
    assert_eq!(e.partial.last_responses()[2].data, NOT_EXECUTED);
}

#[test]
fn a_turn_ending_in_an_exception_leaves_a_dangling_call_unless_closed() {
    let (s, _) = find("upstream", Invariant::TranscriptValid, 3000, |ev, r| {
        ev.run.kind == EndKind::Error
            && ev.scenario.config.memory == Memory::Inside
            && r.wanted.contains("dangling")
            && request_ends_with_user(ev.scenario)
            && single_generation_replies(ev.scenario)
    })
    .expect("random generation finds a batch failure with memory inside the loop");
    let missing = Evidence::gather(&s).is_ok_and(|ev| {
        ev.run
            .error
            .as_ref()
            .and_then(|e| e.message.as_deref())
            .is_some_and(|m| m.starts_with("No ToolCallback found"))
    });
    for set in behavior_sets() {
        let closes = set.fixes.close_dangling_calls;
        // A batch that failed on a missing tool is another turn where the
        // processor answers that call.
        if set.fixes.unknown_tool_to_processor && missing {
            continue;
        }
        assert_eq!(
            check_scenario(Invariant::TranscriptValid, &with_set(&s, &set)).is_refuted(),
            !closes,
            "{}",
            set.name
        );
    }
}

fn with_fixes(s: &Scenario, fixes: Fixes) -> Scenario {
    let mut s = s.clone();
    s.config.manager.fixes = fixes;
    s
}

#[test]
fn rediscovers_several_generations_and_store_answered_generation_closes_it() {
    // A reply with several generations, stored whole by a memory inside the
    // loop, breaks the transcript even with every other fix on (the
    // generation the manager does not answer sits between the turn's
    // messages); storing the answered generation alone closes it.
    let others = Fixes {
        store_answered_generation: false,
        ..Fixes::all()
    };
    let (s, _) = find(
        "close-dangling-calls",
        Invariant::TranscriptValid,
        4000,
        |ev, _| {
            let s = ev.scenario;
            s.config.memory == Memory::Inside
                && !single_generation_replies(s)
                && ev.run.kind != EndKind::Error
                && check_scenario(Invariant::TranscriptValid, &with_fixes(s, others)).is_refuted()
        },
    )
    .expect("random generation finds a reply with two generations and a memory inside the loop");
    assert_eq!(
        check_scenario(Invariant::TranscriptValid, &under(&s, "all")),
        Verdict::Holds
    );
}

/// Draws up to `max` generated turns (from the fixed seed) under `set` and
/// returns the first whose evidence satisfies `pick`.
fn search(set_name: &str, max: u32, pick: impl Fn(&Evidence<'_>) -> bool) -> Option<Scenario> {
    let set = set(set_name);
    let strategy = gen::scenario();
    let mut runner = seeded_runner(1);
    for _ in 0..max {
        let s = with_set(&strategy.new_tree(&mut runner).ok()?.current(), &set);
        if let Ok(ev) = Evidence::gather(&s) {
            if pick(&ev) {
                return Some(s);
            }
        }
    }
    None
}

fn stored_with_next_question(ev: &Evidence<'_>) -> Vec<Message> {
    let mut m = ev.run.memory.clone();
    m.push(Message::user("next question"));
    m
}

#[test]
fn the_memory_precondition_is_needed() {
    // Each part of "the memory holds the conversation so far" is needed:
    // outside it, even `all` breaks the transcript. (a) A request that
    // already holds a tool round, with a memory that lacks the turn's
    // start: the memory stores the response alone.
    let s = search("all", 3000, |ev| {
        let s = ev.scenario;
        s.config.memory != Memory::None
            && s.config.memory_start.is_empty()
            && matches!(s.history.last(), Some(Message::Tool { .. }))
            && pairing(&stored_with_next_question(ev)).is_err()
    })
    .expect("random generation finds a request ending in a tool round with an empty memory");
    assert!(memory_holds_conversation(&s).is_err());
    assert_eq!(
        check_scenario(Invariant::TranscriptValid, &s),
        Verdict::NotApplicable
    );
    // (b) A memory inside the loop that holds an earlier turn the request
    // does not, with conversation history on: the memory is prepended again
    // every round, and a request repeats the turn's call.
    let s = search("all", 3000, |ev| {
        let s = ev.scenario;
        s.config.memory == Memory::Inside
            && s.config.conversation_history
            && !s.config.memory_start.is_empty()
            && ev
                .request_messages()
                .is_some_and(|r| r.iter().any(|m| pairing(m).is_err()))
    })
    .expect("random generation finds a memory inside the loop the request does not hold");
    assert!(memory_holds_conversation(&s).is_err());
    // (c) With the memory inside, a system message after the user message:
    // the memory's run is split in the loop's prompt and prepended again.
    let mut s = search("all", 3000, |ev| {
        let s = ev.scenario;
        s.config.memory == Memory::Inside
            && s.config.conversation_history
            && s.config.memory_start.is_empty()
            && s.history.len() == 1
            && ev.run.requests.len() >= 2
    })
    .expect("random generation finds a one-message request and a tool round");
    s.history.push(Message::System {
        text: Some("be brief".into()),
    });
    assert!(memory_holds_conversation(&s).is_err());
    let ev = Evidence::gather(&s).expect("a valid turn");
    assert!(ev
        .request_messages()
        .is_some_and(|r| r.iter().any(|m| pairing(m).is_err())));
    // (d) Conversation history off without a memory inside: the loop sends
    // the last message alone, a tool message without its call or question.
    let mut s = search("all", 3000, |ev| {
        ev.scenario.config.memory == Memory::None
            && ev.scenario.history.len() == 1
            && ev.run.requests.len() >= 2
    })
    .expect("random generation finds a turn with a tool round and no memory");
    s.config.conversation_history = false;
    let ev = Evidence::gather(&s).expect("a valid turn");
    let second = &ev.request_messages().expect("requests")[1];
    assert!(pairing(second).is_err() && !second.iter().any(Message::is_user));
    assert_eq!(
        check_scenario(Invariant::QuestionKept, &s),
        Verdict::NotApplicable
    );
}

#[test]
fn rediscovers_the_window_wiping_the_question_and_keep_current_turn_closes_it() {
    // ChatClient's own registration with a memory inside the loop:
    // conversation history off. A turn longer than the window: 2.0.1's cut
    // finds no user message after it and evicts the whole turn, so the
    // next requests lose the question.
    let (s, r) = find("upstream", Invariant::QuestionKept, 3000, |ev, _| {
        let c = &ev.scenario.config;
        c.memory == Memory::Inside && !c.conversation_history
    })
    .expect("random generation finds the window evicting the turn's question");
    assert!(r.wanted.contains("question"), "{}", r.wanted);
    for (name, holds) in [
        ("keep-current-turn", true),
        ("all", true),
        ("evict-orphan-responses", false),
    ] {
        assert_eq!(
            check_scenario(Invariant::QuestionKept, &under(&s, name)).is_refuted(),
            !holds,
            "{name}"
        );
    }
}

#[test]
fn rediscovers_the_memory_losing_the_turn_and_keep_current_turn_closes_it() {
    let (s, _) = find("upstream", Invariant::MemoryKeepsTurns, 3000, |ev, r| {
        single_generation_replies(ev.scenario) && r.wanted.contains("current turn whole")
    })
    .expect("random generation finds the window wiping the current turn");
    for name in ["keep-current-turn", "all"] {
        assert_eq!(
            check_scenario(Invariant::MemoryKeepsTurns, &under(&s, name)),
            Verdict::Holds,
            "{name}"
        );
    }
    assert!(check_scenario(
        Invariant::MemoryKeepsTurns,
        &under(&s, "evict-orphan-responses")
    )
    .is_refuted());
}

#[test]
fn evict_orphan_responses_keeps_the_pairs_but_not_the_question() {
    // What the upstream proposal does keep: no stored tool message loses
    // the call before it. Precondition: the memory's precondition and one
    // generation per model reply. `MessageChatMemoryAdvisor` stores every
    // generation of a reply, so after a reply of a call and a text the tool
    // message follows the text whatever the window does (store-answered-
    // generation's gap, not the window's; a CI run's random seed found it,
    // kept in proptest-regressions/properties.txt). Few generated turns meet
    // the precondition with a memory, hence the larger run and the count.
    let applicable = std::sync::atomic::AtomicUsize::new(0);
    for_all_of("evict-orphan-responses", cases().max(600), |ev| {
        let s = ev.scenario;
        if s.config.memory == Memory::None
            || memory_holds_conversation(s).is_err()
            || s.model.iter().any(|reply| reply.len() > 1)
        {
            return Ok(());
        }
        applicable.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let m: Vec<&Message> = ev
            .run
            .memory
            .iter()
            .filter(|m| !matches!(m, Message::System { .. }))
            .collect();
        for (i, x) in m.iter().enumerate() {
            let after_call = i
                .checked_sub(1)
                .is_some_and(|p| !m[p].tool_calls().is_empty());
            if matches!(x, Message::Tool { .. }) && !after_call {
                return Err(format!(
                    "stored message {i}, a tool message, follows no call"
                ));
            }
        }
        Ok(())
    });
    let applicable = applicable.into_inner();
    assert!(
        applicable >= 50,
        "only {applicable} turns met the precondition"
    );
    // What it does not: the question, evicted first.
    let (_, r) = find(
        "evict-orphan-responses",
        Invariant::MemoryKeepsTurns,
        3000,
        |_, r| r.wanted.contains("current turn whole"),
    )
    .expect("random generation finds the proposal evicting the question");
    assert!(!r.wanted.contains("holds nothing"), "{}", r.wanted);
}

// ---------------------------------------------------------------------------
// The generators stay wide.

#[test]
fn generators_reach_every_kind_of_turn() {
    let strategy = gen::scenario();
    let mut runner = seeded_runner(1);
    let mut seen: BTreeMap<&str, u32> = BTreeMap::new();
    let n = 600;
    for _ in 0..n {
        let s = strategy.new_tree(&mut runner).expect("a turn").current();
        let mut hit = |k: &'static str, b: bool| {
            if b {
                *seen.entry(k).or_insert(0) += 1;
            }
        };
        // A repeating model may run to its guard: a turn that never ends
        // (rare under upstream on Gemini, where the breach text first fails
        // the next request; `turn_ends` finds them).
        let (run, tb) = match s.run() {
            Err(toolcall_model::chat::LoopError::TooManyRounds(_)) if s.config.repeat_last => {
                continue;
            }
            r => r.expect("a generated turn is valid"),
        };
        hit("repeating model", s.config.repeat_last);
        let outcomes: Vec<&Outcome> = s.tools.iter().flat_map(|t| &t.outcomes).collect();
        let returns = |f: &dyn Fn(&str) -> bool| {
            outcomes
                .iter()
                .any(|o| matches!(o, Outcome::Returns(Some(t)) if f(t)))
        };
        hit("completed", run.kind == EndKind::Completed);
        hit("limit_exceeded", run.kind == EndKind::LimitExceeded);
        hit("return_direct", run.kind == EndKind::ReturnDirect);
        hit("error", run.kind == EndKind::Error);
        hit("memory inside", s.config.memory == Memory::Inside);
        hit("memory outside", s.config.memory == Memory::Outside);
        hit("provider none", s.config.provider == Provider::None);
        hit("no conversation history", !s.config.conversation_history);
        hit("two or more batches", run.requests.len() >= 3);
        hit("three tool rounds", s.model.len() >= 4);
        hit("invocations", !tb.invocations().is_empty());
        hit(
            "json processor",
            s.config.manager.processor.kind == ProcessorKind::JsonError,
        );
        hit(
            "return error response",
            s.config.manager.limits.on_exceeded == OnExceeded::ReturnErrorResponse,
        );
        hit(
            "prior rounds",
            s.history.iter().any(|m| !m.tool_calls().is_empty()),
        );
        hit("no user message", !s.history.iter().any(Message::is_user));
        hit(
            "unknown tool called",
            s.model
                .iter()
                .flatten()
                .flat_map(|g| &g.tool_calls)
                .any(|c| c.name == gen::UNKNOWN_TOOL),
        );
        hit(
            "blank arguments",
            s.model
                .iter()
                .flatten()
                .flat_map(|g| &g.tool_calls)
                .any(|c| c.arguments.as_deref().is_none_or(|a| a.trim().is_empty())),
        );
        hit(
            "unwrapped exception",
            outcomes
                .iter()
                .any(|o| matches!(o, Outcome::Throws { wrapped: false, .. })),
        );
        hit(
            "null message",
            outcomes.iter().any(
                |o| matches!(o, Outcome::Throws { exception, .. } if exception.message.is_none()),
            ),
        );
        hit("checked exception", outcomes.iter().any(|o| matches!(o, Outcome::Throws { exception, .. } if exception.class.contains("IOException") || exception.class == gen::CUSTOM_CHECKED)));
        hit(
            "returns null",
            outcomes.iter().any(|o| matches!(o, Outcome::Returns(None))),
        );
        hit(
            "echoes arguments",
            outcomes.iter().any(|o| matches!(o, Outcome::EchoArguments)),
        );
        hit("empty text", returns(&|t| t.is_empty()));
        hit(
            "whitespace text",
            returns(&|t| !t.is_empty() && t.trim().is_empty()),
        );
        hit(
            "JSON then text",
            returns(&|t| !is_whole_json(t) && t.starts_with(['{', '[', '"'])),
        );
        hit(
            "number then text",
            returns(&|t| {
                t.starts_with(|c: char| c.is_ascii_digit()) && t.contains(' ') && !is_whole_json(t)
            }),
        );
        hit("non-ASCII", returns(&|t| !t.is_ascii()));
        hit("very long", returns(&|t| t.len() > 4000));
        hit(
            "deeper than 500",
            returns(&|t| t.starts_with(&"[".repeat(501)) || t.starts_with(&"{\"a\":".repeat(501))),
        );
        hit(
            "a JSON object",
            returns(&|t| t.starts_with('{') && is_whole_json(t)),
        );
        hit(
            "a JSON string",
            returns(&|t| t.starts_with('"') && is_whole_json(t)),
        );
        hit(
            "a JSON literal",
            returns(&|t| ["true", "false", "null"].contains(&t)),
        );
        hit("several generations", s.model.iter().any(|r| r.len() > 1));
        let memory = s.config.memory != Memory::None;
        let holds = memory_holds_conversation(&s).is_ok();
        hit(
            "memory holds earlier turns",
            memory && holds && !s.config.memory_start.is_empty(),
        );
        hit(
            "request holds only its last message",
            memory
                && holds
                && !s.config.memory_start.is_empty()
                && s.history
                    .iter()
                    .filter(|m| !matches!(m, Message::System { .. }))
                    .count()
                    == 1,
        );
        hit("memory outside its precondition", memory && !holds);
        if memory {
            let mut open = s.clone();
            open.config.memory_max_messages = std::num::NonZeroU32::MAX;
            let (unbounded, _) = open.run().expect("the same turn");
            hit("the memory window evicts", unbounded.memory != run.memory);
        }
    }
    let mut missing = Vec::new();
    for k in [
        "completed",
        "limit_exceeded",
        "return_direct",
        "error",
        "memory inside",
        "memory outside",
        "provider none",
        "no conversation history",
        "two or more batches",
        "three tool rounds",
        "invocations",
        "json processor",
        "return error response",
        "repeating model",
        "prior rounds",
        "no user message",
        "unknown tool called",
        "blank arguments",
        "unwrapped exception",
        "null message",
        "checked exception",
        "returns null",
        "echoes arguments",
        "empty text",
        "whitespace text",
        "JSON then text",
        "number then text",
        "non-ASCII",
        "very long",
        "deeper than 500",
        "a JSON object",
        "a JSON string",
        "a JSON literal",
        "several generations",
        "memory holds earlier turns",
        "request holds only its last message",
        "memory outside its precondition",
        "the memory window evicts",
    ] {
        if seen.get(k).copied().unwrap_or(0) < 3 {
            missing.push(k);
        }
    }
    assert!(
        missing.is_empty(),
        "rarely or never generated in {n} turns: {missing:?}\nseen: {seen:?}"
    );
}

// ---------------------------------------------------------------------------
// The reference state machine: counting and limits step by step.

/// One operation on the conversation.
#[derive(Debug, Clone)]
enum Op {
    /// A new user message: a new turn.
    User,
    /// A model answer without tool calls.
    Answer,
    /// A batch of calls: (tool index into `NAMES`, blank arguments).
    Batch(Vec<(usize, bool)>),
}

/// `a`, `b` and `c` are tools (`c` returns directly when `direct` is on);
/// `d` is not.
const NAMES: [&str; 4] = ["a", "b", "c", "d"];

#[derive(Debug, Clone)]
struct Machine {
    per_tool: Option<u32>,
    override_b: Option<u32>,
    exclude_c: bool,
    total: Option<u32>,
    on_exceeded: OnExceeded,
    direct: bool,
    fixes: Fixes,
    ops: Vec<Op>,
}

fn machine() -> impl Strategy<Value = Machine> {
    let op = prop_oneof![
        1 => Just(Op::User),
        1 => Just(Op::Answer),
        5 => proptest::collection::vec((prop_oneof![6 => 0usize..3, 1 => Just(3usize)], any::<bool>()), 1..5)
            .prop_map(Op::Batch),
    ];
    (
        proptest::option::weighted(0.8, 1u32..4),
        proptest::option::weighted(0.3, 1u32..4),
        proptest::bool::weighted(0.2),
        proptest::option::weighted(0.7, 1u32..8),
        prop_oneof![
            Just(OnExceeded::Throw),
            Just(OnExceeded::ReturnErrorResponse)
        ],
        proptest::bool::weighted(0.2),
        prop_oneof![
            Just(Fixes::upstream()),
            Just(Fixes::all()),
            Just(Fixes::only(toolcall_model::model::Fix::CloseDanglingCalls)),
            Just(Fixes::only(
                toolcall_model::model::Fix::BreachThroughProcessor
            )),
        ],
        proptest::collection::vec(op, 1..24),
    )
        .prop_map(
            |(per_tool, override_b, exclude_c, total, on_exceeded, direct, fixes, ops)| Machine {
                per_tool,
                override_b,
                exclude_c,
                total,
                on_exceeded,
                direct,
                fixes,
                ops,
            },
        )
}

fn run_machine(m: &Machine) -> Result<(), TestCaseError> {
    let mut limits = ToolCallLimits::default();
    limits = match m.per_tool {
        Some(n) => limits
            .max_calls_per_tool(i32::try_from(n).expect("small"))
            .expect("positive"),
        None => limits.unlimited_calls_per_tool(),
    };
    if let Some(n) = m.override_b {
        limits = limits
            .max_calls_per_tool_for("b", i32::try_from(n).expect("small"))
            .expect("valid");
    }
    if m.exclude_c {
        limits = limits.exclude_tool_from_limit("c").expect("valid");
    }
    limits = match m.total {
        Some(n) => limits
            .max_total_tool_calls(i32::try_from(n).expect("small"))
            .expect("positive"),
        None => limits.unlimited_total_tool_calls(),
    };
    limits.on_exceeded = m.on_exceeded;
    let cfg = ManagerConfig {
        limits: limits.clone(),
        processor: Processor::default(),
        fixes: m.fixes,
        ..ManagerConfig::default()
    };
    let mut c = ToolSpec::returning("c", "\"c\"");
    c.return_direct = m.direct;
    let mut toolbox = Toolbox::new(vec![
        ToolSpec::returning("a", "1"),
        ToolSpec::returning("b", "[2]"),
        c,
    ]);
    // The reference's own limit rule.
    let max_of = |name: &str| -> Option<u64> {
        if m.exclude_c && name == "c" {
            return None;
        }
        if name == "b" {
            if let Some(n) = m.override_b {
                return Some(u64::from(n));
            }
        }
        m.per_tool.map(u64::from)
    };
    let mut history = vec![Message::user("start")];
    let mut counts = Counts::recount(&history);
    let mut reference = RefCounts::default();
    let mut turn_over = false;
    let mut thrown = false;
    // Whether a call of the current turn breached (end-turn-after-breach).
    let mut turn_breached = false;
    for (step, op) in m.ops.iter().enumerate() {
        match op {
            Op::User => {
                history.push(Message::user(&format!("turn {step}")));
                counts = Counts::recount(&history);
                reference = RefCounts::default();
                turn_over = false;
                thrown = false;
                turn_breached = false;
                prop_assert!(
                    reference.matches(&counts),
                    "step {step}: a new turn starts from zero, got {counts:?}"
                );
            }
            Op::Answer => {
                // Precondition (re-checked because shrinking removes steps):
                // the model answers only in a live turn.
                if turn_over {
                    continue;
                }
                history.push(Message::assistant(Some("ok"), vec![]));
                turn_over = true;
            }
            Op::Batch(calls) => {
                // Precondition: a batch only in a live turn.
                if turn_over {
                    continue;
                }
                let calls: Vec<ToolCall> = calls
                    .iter()
                    .enumerate()
                    .map(|(i, (t, blank))| {
                        ToolCall::new(
                            &format!("s{step}-{i}"),
                            NAMES[*t],
                            if *blank { " " } else { "{}" },
                        )
                    })
                    .collect();
                let generations = vec![Generation {
                    tool_calls: calls.clone(),
                    ..Generation::default()
                }];
                let assistant = generations[0].to_message();
                // The loop's driver, on a copy of the tools.
                let mut driver_tools = toolbox.clone();
                let driver = execute_with_counts(
                    &cfg,
                    history.clone(),
                    &generations,
                    counts.clone(),
                    &mut driver_tools,
                );
                // The step engine, checked against the reference after every call.
                let before = reference.clone();
                let mut batch = Some(Batch::new(counts.clone()));
                let mut ended: Option<Result<(), toolcall_model::model::LimitExceeded>> = None;
                let mut first_breach = None;
                for (i, call) in calls.iter().enumerate() {
                    let name = call.name.clone();
                    let (n, _) = reference.add(&name);
                    let want_breach = max_of(&name).is_some_and(|mx| n > mx)
                        || m.total.is_some_and(|t| reference.total > u64::from(t));
                    if want_breach && first_breach.is_none() {
                        first_breach = Some(i);
                    }
                    let b = batch.take().expect("a live batch");
                    match b.call(call, &cfg, |x| toolbox.find(x, false)) {
                        Step::Answered(b) => {
                            prop_assert!(
                                want_breach && m.on_exceeded == OnExceeded::ReturnErrorResponse,
                                "step {step} call {i}: unexpected breach"
                            );
                            prop_assert!(
                                reference.matches(b.counts()),
                                "step {step} call {i}: {:?} vs {:?}",
                                b.counts(),
                                reference
                            );
                            batch = Some(b);
                        }
                        Step::Missing(_) => {
                            prop_assert!(
                                false,
                                "step {step} call {i}: a missing tool answered without the fix"
                            );
                        }
                        Step::Breached(b, breach) => {
                            prop_assert!(
                                want_breach && m.on_exceeded == OnExceeded::Throw,
                                "step {step} call {i}: unexpected breach"
                            );
                            prop_assert!(
                                reference.matches(b.counts()),
                                "step {step} call {i}: {:?} vs {:?}",
                                b.counts(),
                                reference
                            );
                            let per_tool = max_of(&name).is_some_and(|mx| n > mx);
                            prop_assert_eq!(
                                breach.tool_name.is_some(),
                                per_tool,
                                "the per-tool check wins"
                            );
                            ended = Some(Err(b.throw(
                                breach,
                                &calls[i + 1..],
                                history.clone(),
                                assistant.clone(),
                                &cfg,
                            )));
                            break;
                        }
                        Step::Invoke(p) => {
                            prop_assert!(!want_breach, "step {step} call {i}: a breach was due");
                            let result = toolbox.invoke(p.tool(), p.arguments());
                            let b = p
                                .complete(result, &cfg)
                                .map_err(|e| TestCaseError::fail(e.to_string()))?;
                            prop_assert!(
                                reference.matches(b.counts()),
                                "step {step} call {i}: {:?} vs {:?}",
                                b.counts(),
                                reference
                            );
                            batch = Some(b);
                        }
                        Step::Failed(e) => {
                            prop_assert!(
                                !want_breach && name == "d",
                                "step {step} call {i}: unexpected failure {e}"
                            );
                            ended = Some(Ok(()));
                            break;
                        }
                    }
                }
                prop_assert_eq!(
                    &driver_tools,
                    &toolbox,
                    "step {}: the driver and the step engine invoke alike",
                    step
                );
                // end-turn-after-breach: a second batch with a breach in
                // the turn, answered whole, ends it with a limit exception
                // at its first breach.
                let ends_turn = m.fixes.end_turn_after_breach
                    && m.on_exceeded == OnExceeded::ReturnErrorResponse
                    && turn_breached
                    && ended.is_none();
                turn_breached |= first_breach.is_some();
                if let (true, Some(k)) = (ends_turn, first_breach) {
                    let (result, after) = batch
                        .take()
                        .expect("a live batch")
                        .finish(history.clone(), assistant);
                    let Err(ManagerError::LimitExceeded(dl)) = &driver else {
                        return Err(TestCaseError::fail(format!(
                            "step {step}: a second breach in the turn did not end it: {driver:?}"
                        )));
                    };
                    prop_assert_eq!(&dl.partial, &result);
                    prop_assert_eq!(dl.breach_index, k);
                    prop_assert_eq!(&dl.counts, &after);
                    turn_over = true;
                    thrown = true;
                    continue;
                }
                match ended {
                    None => {
                        let (result, after) = batch
                            .take()
                            .expect("a live batch")
                            .finish(history.clone(), assistant);
                        let Ok((dr, dc)) = &driver else {
                            return Err(TestCaseError::fail(format!(
                                "step {step}: the driver failed: {driver:?}"
                            )));
                        };
                        prop_assert_eq!(dr, &result);
                        prop_assert_eq!(dc, &after);
                        prop_assert!(reference.matches(&after));
                        prop_assert_eq!(
                            &Counts::recount(&result.history),
                            &after,
                            "step {}: kept counts equal the recount",
                            step
                        );
                        history = result.history;
                        counts = after;
                        if result.return_direct {
                            turn_over = true;
                        }
                    }
                    Some(Err(limit)) => {
                        let Err(ManagerError::LimitExceeded(dl)) = &driver else {
                            return Err(TestCaseError::fail(format!(
                                "step {step}: the driver did not throw: {driver:?}"
                            )));
                        };
                        prop_assert_eq!(&**dl, &limit);
                        // The partial history recounts to the reference, plus
                        // one per closed call with close-dangling-calls.
                        let mut expected = reference.clone();
                        if m.fixes.close_dangling_calls {
                            for c in &calls[limit.breach_index + 1..] {
                                expected.add(&c.name);
                            }
                        }
                        prop_assert!(
                            expected.matches(&Counts::recount(&limit.partial.history)),
                            "step {step}: partial history recount"
                        );
                        turn_over = true;
                        thrown = true;
                    }
                    Some(Ok(_)) => {
                        prop_assert!(
                            matches!(driver, Err(ManagerError::Java(_))),
                            "step {step}: the driver failed alike"
                        );
                        // The batch is discarded: nothing was added.
                        reference = before;
                        prop_assert!(reference.matches(&counts));
                        turn_over = true;
                    }
                }
            }
        }
    }
    // Unless the last batch threw (its calls count but its history was
    // discarded), the recount of the whole history is the reference.
    if !thrown {
        prop_assert!(
            reference.matches(&Counts::recount(&history)),
            "final recount"
        );
    }
    Ok(())
}

#[test]
fn reference_state_machine() {
    let mut runner = TestRunner::new(Config {
        cases: cases() * 8,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(REGRESSIONS))),
        source_file: Some(file!()),
        ..Config::default()
    });
    if let Err(e) = runner.run(&machine(), |m| run_machine(&m)) {
        panic!("{e}");
    }
}
