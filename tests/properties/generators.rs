//! The generators stay wide.

use std::collections::BTreeMap;

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use toolcall_check::verification::generators::{self};
use toolcall_check::verification::invariants::memory_holds_conversation;
use toolcall_check::verification::oracle::is_whole_json;
use toolcall_model::chat::{EndKind, Memory, Provider};
use toolcall_model::model::Message;
use toolcall_model::model::OnExceeded;
use toolcall_model::model::Outcome;
use toolcall_model::model::ProcessorKind;

use super::seeded_runner;

#[test]
fn generators_reach_every_kind_of_turn() {
    let strategy = generators::scenario();
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
                .any(|c| c.name == generators::UNKNOWN_TOOL),
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
        hit("checked exception", outcomes.iter().any(|o| matches!(o, Outcome::Throws { exception, .. } if exception.class.contains("IOException") || exception.class == generators::CUSTOM_CHECKED)));
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
