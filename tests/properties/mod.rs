//! The property suite: the invariants of docs/INVARIANTS.md, each
//! evaluated under every behaviour set of `behavior::behavior_sets()`, on turns
//! drawn from `toolcall_check::verification::generators` (nothing known to fail is fed in by
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

use proptest::test_runner::{Config, FileFailurePersistence, TestCaseError, TestError, TestRunner};
use toolcall_check::verification::generators::with_set;
use toolcall_check::verification::invariants::{Invariant, Verdict, check_scenario};
use toolcall_check::verification::random::{CellOutcome, MatrixCell, Options, rng, run_cell};
use toolcall_check::verification::scenario::Scenario;
use toolcall_model::model::{BehaviorSet, behavior_sets};

const REGRESSIONS: &str = "proptest-regressions/properties.txt";

/// The seed of the runs that must find a refutation.
const SEED: u64 = 20_260_430;

/// The cells expected to be refuted, with the reason. Every other cell
/// must hold (under its precondition, docs/INVARIANTS.md): under `all`,
/// every invariant holds but `stream-as-call`, which no fix is about.
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
                ..Options::default()
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
                CellOutcome::Aborted(e) | CellOutcome::NotApplicable(e) => {
                    panic!("{} × {inv}: {e}", set.name)
                }
            }
        } else {
            match holding_runner().run(&toolcall_check::verification::generators::scenario(), test)
            {
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

mod classes;
mod generators;
mod reference;
