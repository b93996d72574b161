//! `check`'s verdicts against the invariant checker (what `explore`
//! judges) on the very same turns: no behaviour set may be shown safe for a
//! scenario where an invariant that `check`'s notion of "survives" covers is
//! refuted on that turn.

use std::num::NonZeroU32;

use toolcall_model::chat::tool_loop::{Memory, Provider};
use toolcall_model::checking::invariants::{check_scenario, Invariant, Verdict as Inv};
use toolcall_model::checking::scenario::Scenario as Turn;
use toolcall_model::config::check::{evaluate, script, Mark, Scenario, Setup};
use toolcall_model::model::behavior::behavior_sets;
use toolcall_model::model::limits::{Limits, OnExceeded};
use toolcall_model::model::processor::{Processor, ProcessorKind};

/// Setups a team can state with `check`: both limit behaviours, both
/// processors, every memory placement, history as ChatClient chooses and
/// forced, both providers.
fn setups() -> Vec<Setup> {
    let mut v = Vec::new();
    for on in [OnExceeded::Throw, OnExceeded::ReturnErrorResponse] {
        for kind in [ProcessorKind::Default, ProcessorKind::JsonError] {
            for memory in [Memory::None, Memory::Outside, Memory::Inside] {
                for history in [None, Some(true), Some(false)] {
                    for provider in [Provider::Gemini, Provider::None] {
                        v.push(Setup {
                            limits: Limits {
                                on_exceeded: on,
                                ..Limits::default().max_calls_per_tool(1).unwrap()
                            },
                            processor: Processor {
                                kind,
                                ..Processor::default()
                            },
                            memory,
                            memory_max_messages: NonZeroU32::new(20).unwrap(),
                            conversation_history: history,
                            provider,
                            ..Setup::default()
                        });
                    }
                }
            }
        }
    }
    v
}

/// The invariants a surviving verdict promises: every Gemini request
/// converts (gemini-safe), every stored transcript and request is paired
/// (transcript-valid, which the next turn needs), and the question stays in
/// the turn (question-kept).
const PROMISED: [Invariant; 3] = [
    Invariant::GeminiSafe,
    Invariant::TranscriptValid,
    Invariant::QuestionKept,
];

#[test]
fn no_set_is_shown_safe_where_an_invariant_is_refuted() {
    let mut disagreements = Vec::new();
    let mut compared = 0usize;
    for setup in setups() {
        for set in behavior_sets() {
            for scenario in Scenario::ALL {
                let v = evaluate(&setup, &set, scenario);
                let Ok(s) = script(&setup, &set, scenario) else {
                    assert_eq!(v.mark, Mark::NotApplicable);
                    continue;
                };
                if !v.mark.survives() {
                    continue;
                }
                let turn = Turn {
                    config: s.config,
                    tools: s.tools,
                    history: s.history,
                    model: s.model,
                };
                for inv in PROMISED {
                    compared += 1;
                    if let Inv::Refuted(why) = check_scenario(inv, &turn) {
                        // Another provider is promised the pairing every
                        // chat API requires, not Gemini's turn order.
                        if setup.provider == Provider::None
                            && why.contains("does not follow a user or tool message")
                        {
                            continue;
                        }
                        disagreements.push(format!(
                            "{} / {} / {:?}: check says {} but {inv} is refuted: {why}\n  {}",
                            set.name,
                            scenario.column(),
                            setup,
                            v.mark.word(),
                            v.detail
                        ));
                    }
                }
            }
        }
    }
    assert!(compared > 1000, "{compared}");
    assert!(
        disagreements.is_empty(),
        "{} disagreements, the first ones:\n{}",
        disagreements.len(),
        disagreements[..disagreements.len().min(8)].join("\n")
    );
}

/// The seed's workaround is not safe once a breach is followed by another
/// tool round (docs/BEHAVIOUR.md section 7), and the invariant checker
/// agrees.
#[test]
fn the_workaround_fails_when_a_breach_is_followed_by_another_round() {
    let setup = Setup {
        limits: Limits {
            on_exceeded: OnExceeded::ReturnErrorResponse,
            ..Limits::default().max_calls_per_tool(1).unwrap()
        },
        ..Setup::default()
    };
    let set = behavior_sets()
        .into_iter()
        .find(|s| s.name == "gemini-tool-text")
        .unwrap();
    assert_eq!(
        evaluate(&setup, &set, Scenario::BreachOneRound).mark,
        Mark::Ok
    );
    let v = evaluate(&setup, &set, Scenario::BreachThenRound);
    assert_eq!(v.mark, Mark::ParseError, "{}", v.detail);
    assert!(v
        .detail
        .contains("Failed to parse JSON: Tool call limit (1)"));
    let s = script(&setup, &set, Scenario::BreachThenRound).unwrap();
    let turn = Turn {
        config: s.config,
        tools: s.tools,
        history: s.history,
        model: s.model,
    };
    assert!(check_scenario(Invariant::GeminiSafe, &turn).is_refuted());
}
