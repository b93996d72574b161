//! Which fixes a turn's evaluation can feel: a fix whose switch the
//! evaluation never reads, or reads only where both of its values do the
//! same, changes nothing in the turn (its run, the replay of its batches,
//! the judges and the runs they make again). Under two behaviour sets that
//! differ only in such fixes a turn is evaluated once for both
//! ([`crate::checking::exhaustive`]).
//!
//! Each rule below names the places that read the fix's switch and says
//! why the scenario never reaches them with an effect. The model is
//! deterministic, so a run under a fix that is never read with an effect
//! takes the same path, step by step, as the run without it.

use crate::chat::tool_loop::Memory;
use crate::checking::scenario::Scenario;
use crate::model::behavior::Fixes;
use crate::model::limits::{Counts, OnExceeded};
use crate::model::message::Message;
use crate::model::tools::Toolbox;

/// `fixes` without the fixes the evaluation of `scenario` cannot feel: the
/// turn runs and is judged under the result exactly as under `fixes`.
///
/// ```
/// use toolcall_model::checking::{footprint::felt, scenario::Scenario};
/// use toolcall_model::{chat::tool_loop::LoopConfig, model::{behavior::{Fix, Fixes}, message::{Generation, Message, ToolCall}, tools::ToolSpec}};
/// // One call to a tool that exists, far under Spring's default limits.
/// let s = Scenario { config: LoopConfig::default(), tools: vec![ToolSpec::returning("x", "1")],
///     history: vec![Message::user("hi")], model: vec![
///         vec![Generation { tool_calls: vec![ToolCall::new("1", "x", "{}")], ..Default::default() }],
///         vec![Generation { text: Some("done".into()), ..Default::default() }]] };
/// // No breach, no missing tool, no memory: only the conversion fix is felt.
/// let all = Fixes::all().with(Fix::UnknownToolToProcessor);
/// assert_eq!(felt(&s, all).enabled(), vec![Fix::StrictJsonOrWrap, Fix::ErrorKey]);
/// ```
pub fn felt(scenario: &Scenario, fixes: Fixes) -> Fixes {
    let mut f = fixes;
    let c = &scenario.config;
    // The three memory fixes are read only in `chat::memory`, which a turn
    // without a memory never reaches (its judges and their runs neither).
    if c.memory == Memory::None {
        f.store_answered_generation = false;
        f.keep_current_turn = false;
        f.evict_orphan_responses = false;
    }
    // `store-answered-generation` (`ChatMemory::after`) stores, of a reply
    // with tool calls, the first generation with calls instead of every
    // generation: the same message for a reply of one generation. A
    // streamed reply reaches the memory as the one aggregate generation,
    // and the runs the judges add end with a one-generation answer.
    if scenario.model.iter().all(|reply| reply.len() <= 1) {
        f.store_answered_generation = false;
    }
    // `unknown-tool-to-processor` is read where a call's lookup finds no
    // tool (`Batch::call`); the calls of every generation of every reply
    // cover what a streamed turn or a repeating model calls.
    let tools = Toolbox::new(scenario.tools.clone());
    let resolves = c.manager.resolves();
    if calls(scenario).all(|name| tools.find(name, resolves).is_some()) {
        f.unknown_tool_to_processor = false;
    }
    if no_breach(scenario) {
        // `breach-through-processor` is read at a breach (`Batch::call`,
        // `Batch::throw`) and by the limits judge on a batch that failed
        // without running a tool, which without a breach is a failed
        // lookup, unless `unknown-tool-to-processor` hands a missing tool
        // to a processor that throws.
        if !f.unknown_tool_to_processor {
            f.breach_through_processor = false;
        }
        // `close-dangling-calls` is read after a breach under `THROW`
        // (`Batch::throw`) and where a batch ends the turn with the memory
        // inside the loop (`BatchEnd::closing`).
        if c.memory != Memory::Inside {
            f.close_dangling_calls = false;
        }
        // `end-turn-after-breach` ends a turn only at a second breach
        // (`ends_turn_at_breach`).
        f.end_turn_after_breach = false;
    }
    if c.manager.limits.on_exceeded == OnExceeded::Throw || !c.manager.version.has_limits() {
        // `ends_turn_at_breach` answers nothing under `THROW`, or without limits.
        f.end_turn_after_breach = false;
    }
    f
}

/// The names of every call of every generation of every reply.
fn calls(scenario: &Scenario) -> impl Iterator<Item = &str> {
    scenario
        .model
        .iter()
        .flatten()
        .flat_map(|g| g.tool_calls.iter().map(|c| c.name.as_str()))
}

/// Whether no limit check of the turn can find a breach: the counts it
/// checks never exceed every response the turn can start from (the
/// memory's and the request's) plus every call the model makes, and under
/// those the limits hold for every name. A repeating model's calls have no
/// bound.
fn no_breach(scenario: &Scenario) -> bool {
    let c = &scenario.config;
    if !c.manager.version.has_limits() {
        return true;
    }
    if c.repeat_last {
        return false;
    }
    let responses = c
        .memory_start
        .iter()
        .chain(&scenario.history)
        .flat_map(Message::responses)
        .map(|r| r.name.as_str());
    let names: Vec<&str> = responses.chain(calls(scenario)).collect();
    let mut counts = Counts::default();
    for name in &names {
        counts.add(name);
    }
    names.iter().all(|name| {
        c.manager
            .limits
            .check(name, counts.get(name), counts.total())
            .is_none()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::tool_loop::LoopConfig;
    use crate::model::behavior::Fix;
    use crate::model::limits::Limits;
    use crate::model::manager::Config;
    use crate::model::message::{Generation, ToolCall};
    use crate::model::tools::ToolSpec;

    fn scenario(names: &[&str], limits: Limits, memory: Memory) -> Scenario {
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
        let every = Fix::ALL.into_iter().fold(Fixes::default(), Fixes::with);
        let one = Limits {
            on_exceeded: OnExceeded::ReturnErrorResponse,
            ..Limits::default()
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
            assert!(!calm.has(fix), "{fix}");
        }
        let breach = felt(&scenario(&["x", "x"], one.clone(), Memory::None), every);
        assert!(breach.has(Fix::BreachThroughProcessor) && breach.has(Fix::EndTurnAfterBreach));
        let missing = felt(&scenario(&["y"], one.clone(), Memory::Inside), every);
        assert!(missing.has(Fix::UnknownToolToProcessor) && missing.has(Fix::KeepCurrentTurn));
        // A missing tool handed to a processor: its failure reaches the
        // limits judge, which reads breach-through-processor.
        assert!(missing.has(Fix::BreachThroughProcessor));
        assert!(missing.has(Fix::CloseDanglingCalls));
        assert!(!missing.has(Fix::StoreAnsweredGeneration));
    }
}
