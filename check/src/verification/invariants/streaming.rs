//! Invariant 10, `stream-as-call`: a streamed turn (`ChatClient.stream()`)
//! runs the tools and leaves the memory outside the loop as the same turn
//! through `call()` does. Judged by running the scenario again without
//! streaming, so what differs comes from the model of each path
//! (docs/BEHAVIOUR.md 6.3), never from a list of known differences.

use crate::verification::scenario::Scenario;
use toolcall_model::chat::{LoopRun, Memory};
use toolcall_model::model::Fixes;
use toolcall_model::model::{Generation, Message};
use toolcall_model::model::{Invocation, Toolbox};

use super::{Evidence, Judged, Locus, refuted};

/// Judged on the streamed run of `ev`, against the turn through `call()`
/// under the fixes and advisor `set` ([`super::check_as`]).
pub(super) fn stream_as_call(ev: &Evidence<'_>, set: (Fixes, bool)) -> Judged {
    let Some(blocking) = through_call(ev.scenario, set) else {
        return Judged::NotApplicable;
    };
    let Ok((call_run, call_box)) = blocking.run() else {
        return Judged::NotApplicable;
    };
    against(ev, &call_run, &call_box)
}

/// The turn of a streamed `scenario` through `call()` under the fixes and
/// advisor `set`; `None` for a turn that is not streamed.
pub(super) fn through_call(
    scenario: &Scenario,
    (fixes, advisor): (Fixes, bool),
) -> Option<Scenario> {
    scenario.config.stream?;
    let mut blocking = scenario.clone();
    blocking.config.stream = None;
    blocking.config.manager.fixes = fixes;
    blocking.config.gemini_tool_text = advisor;
    // Where the streamed turn ended early (a call it never saw), the
    // blocking one may go on past the script: a final answer ends it.
    blocking.model.push(vec![Generation {
        text: Some("(end)".into()),
        ..Generation::default()
    }]);
    Some(blocking)
}

/// The streamed run of `ev` against the run of its turn through `call()`
/// ([`through_call`]) and that run's toolbox.
pub(super) fn against(ev: &Evidence<'_>, call_run: &LoopRun, call_box: &Toolbox) -> Judged {
    let (streamed, called) = (ev.toolbox.invocations(), call_box.invocations());
    if streamed != called {
        return refuted(
            format!(
                "the tools invoked as call() invokes them, {}, got {}",
                show(called),
                show(streamed)
            ),
            Locus::Invocations(called.to_vec()),
        );
    }
    if ev.scenario.config.memory == Memory::Outside {
        let (s, c) = (plain(&ev.run.memory), plain(&call_run.memory));
        if s != c {
            let first = s.iter().zip(&c).position(|(a, b)| a != b);
            let at = first.unwrap_or(s.len().min(c.len()));
            return refuted(
                format!(
                    "the memory outside to store what call() stores ({} message(s)), but message {at} is {}, where call() stores {}",
                    c.len(),
                    describe(s.get(at)),
                    describe(c.get(at)),
                ),
                Locus::Unlocated,
            );
        }
    }
    Judged::Holds
}

/// The messages with a null assistant text read as `""`: the aggregate of a
/// streamed reply never has a null text, which says nothing lost.
fn plain(messages: &[Message]) -> Vec<Message> {
    messages
        .iter()
        .map(|m| match m {
            Message::Assistant {
                text: None,
                tool_calls,
                metadata,
            } => Message::Assistant {
                text: Some(Default::default()),
                tool_calls: tool_calls.clone(),
                metadata: metadata.clone(),
            },
            other => other.clone(),
        })
        .collect()
}

fn describe(m: Option<&Message>) -> String {
    match m {
        None => "nothing".to_owned(),
        Some(m) => super::clip(&serde_json::to_string(m).unwrap_or_default()),
    }
}

fn show(inv: &[Invocation]) -> String {
    let names: Vec<&str> = inv.iter().map(|i| i.tool.as_str()).collect();
    format!("[{}]", names.join(", "))
}

#[cfg(test)]
mod tests {
    use crate::verification::invariants::{Invariant, Verdict, check_scenario};
    use crate::verification::scenario::Scenario;
    use toolcall_model::chat::Split;
    use toolcall_model::chat::{LoopConfig, Memory};
    use toolcall_model::model::ToolSpec;
    use toolcall_model::model::{Generation, Message, ToolCall};

    fn text(t: &str) -> Generation {
        Generation {
            text: Some(t.into()),
            ..Generation::default()
        }
    }

    fn call() -> Generation {
        Generation {
            tool_calls: vec![ToolCall::new("c1", "x", "{}")].into(),
            ..Generation::default()
        }
    }

    fn scenario(memory: Memory, model: Vec<Vec<Generation>>, stream: bool) -> Scenario {
        Scenario {
            config: LoopConfig {
                memory,
                stream: stream.then(Split::default),
                ..LoopConfig::default()
            },
            tools: vec![ToolSpec::returning("x", "\"sunny\"")],
            history: vec![Message::user("u")],
            model,
        }
    }

    /// The two ways streaming parts from call() that docs/INVARIANTS.md
    /// reports, each refuted from the model's runs; a turn without either
    /// holds, and a blocking turn is outside the precondition.
    #[test]
    fn a_dropped_call_and_a_merged_memory_refute_and_a_plain_turn_holds() {
        let second_generation = vec![vec![text("a"), call()], vec![text("done")]];
        let Verdict::Refuted(why) = check_scenario(
            Invariant::StreamAsCall,
            &scenario(Memory::None, second_generation.clone(), true),
        ) else {
            panic!("a call in a second generation runs under call() only");
        };
        assert!(why.contains("invoked"), "{why}");
        let text_then_call = vec![
            vec![Generation {
                text: Some("Let me check".into()),
                ..call()
            }],
            vec![text("It is sunny")],
        ];
        let Verdict::Refuted(why) = check_scenario(
            Invariant::StreamAsCall,
            &scenario(Memory::Outside, text_then_call.clone(), true),
        ) else {
            panic!("the memory outside stores the tool round's text with the answer");
        };
        assert!(why.contains("Let me checkIt is sunny"), "{why}");
        // Without memory the same turn runs the same tools.
        assert_eq!(
            check_scenario(
                Invariant::StreamAsCall,
                &scenario(Memory::None, text_then_call.clone(), true)
            ),
            Verdict::Holds
        );
        let calls_only = vec![vec![call()], vec![text("It is sunny")]];
        assert_eq!(
            check_scenario(
                Invariant::StreamAsCall,
                &scenario(Memory::Outside, calls_only, true)
            ),
            Verdict::Holds
        );
        assert_eq!(
            check_scenario(
                Invariant::StreamAsCall,
                &scenario(Memory::Outside, text_then_call, false)
            ),
            Verdict::NotApplicable
        );
    }
}
