//! Proptest generators of whole turns ([`Scenario`]s) for the property suite
//! and `toolcall-model explore`.
//!
//! The generators are wide on purpose: nothing known to break upstream is fed
//! in by hand. Texts are built from pieces (numbers, operators, words,
//! brackets, quotes, literals, JSON values, whitespace of every kind), so
//! that tool outputs such as `3.0 + 5.0 = 8.0` or `[ERROR] disk full`, and
//! limit breaches, dangling calls and the like, arise from random generation
//! and shrinking alone.
//!
//! What a generated scenario varies:
//!
//! * batches of 1 to 4 calls over a pool of three tool names (plus, rarely, a
//!   name no tool has), with small maxima so that limits bite, both
//!   behaviours on breach, both processors, `alwaysThrow` and rethrow lists;
//! * arguments that are `{}`, JSON objects, other JSON, blank, null or broken;
//! * tool outcomes of every kind: JSON of each type, JSON followed by text,
//!   text that starts like JSON, empty, whitespace, non-ASCII, very long,
//!   deeply nested (past Jackson's depth limit), null, echoed arguments, and
//!   exceptions of each kind (runtime, checked, error, user-declared) with
//!   null, blank or generated messages, wrapped and unwrapped;
//! * about half the scenarios use "method tools": every tool returns JSON
//!   text or throws a wrapped exception, as Spring's method tools do (the
//!   precondition of the JSON-safe invariant);
//! * request histories with a system message, prior turns and prior rounds
//!   of the current turn (and, rarely, no user message at all);
//! * scripted multi-round loops (0 to 3 tool rounds and a final answer; a
//!   reply rarely holds two generations), memory none, inside or outside,
//!   provider Gemini (mostly) or none, the `returnDirect` flag;
//! * one turn in four streamed (`ChatClient.stream()`), each reply cut into
//!   chunks by a [`Split`](toolcall_model::chat::Split): its text in one to
//!   three chunks, its calls apart or with the last text chunk, its other
//!   generations in the last chunk;
//! * the memory: its window (the default 20, or 2 to 8 messages, so that a
//!   turn of a few rounds passes it), and what it holds before the turn:
//!   nothing; the request's conversation, which the request holds too (from
//!   one of its user messages on); the conversation before the request's
//!   last message, which alone is sent; or an earlier turn the request knows
//!   nothing of (outside the memory's precondition, see
//!   [`crate::verification::invariants::memory_holds_conversation`]).
//!
//! Scenarios are generated under upstream; [`with_set`] puts one under a
//! behaviour set.
//!
//! `conversation_history: false` is generated only together with a memory
//! inside the loop, as often as `true` there: that is how `ChatClient`
//! registers the loop in front of a memory advisor (the
//! loop then sends only the system message and the last message, and relies
//! on the memory for the rest). Without such a memory every request after
//! the first is a lone tool message, which no fix is meant to address.

mod conversation;
mod scenario;
mod text;
mod tools;
mod vectors;

pub use conversation::{arguments, history, model};
pub use scenario::scenario;
pub use text::{number, text, word};
pub use tools::{exception, limits, outcome, processor, tools};
pub use vectors::{VectorOp, vector, vectors};
pub(crate) use vectors::{vector_name, vectors_iter};

use proptest::prelude::*;
use proptest::sample::select;

use crate::verification::scenario::Scenario;
use toolcall_model::model::BehaviorSet;
use toolcall_model::model::ClassTable;

/// The tool names every generated scenario registers.
pub(crate) const TOOL_NAMES: [&str; 3] = ["a", "b", "c"];

/// A name the model sometimes calls that no tool has.
pub const UNKNOWN_TOOL: &str = "d";

/// A user-declared runtime exception class (extends `IllegalStateException`).
pub(crate) const CUSTOM_RUNTIME: &str = "com.example.QuotaExceededException";

/// A user-declared checked exception class (extends `java.io.IOException`).
pub const CUSTOM_CHECKED: &str = "com.example.RemoteCallException";

/// Puts a scenario under a behaviour set: its fixes and whether the
/// workaround advisor runs. Nothing else changes.
///
/// ```
/// use toolcall_check::{verification::generators::with_set, verification::scenario::Scenario};
/// use toolcall_model::{model::Fix, model::Message, model::behavior_sets, chat::LoopConfig};
/// let s = Scenario { config: LoopConfig::new(Default::default()), tools: vec![],
///     history: vec![Message::user("hi")], model: vec![] };
/// let all = behavior_sets().into_iter().find(|b| b.name == "all").unwrap();
/// assert!(with_set(&s, &all).config.manager.fixes.contains(Fix::ErrorKey));
/// ```
pub fn with_set(scenario: &Scenario, set: &BehaviorSet) -> Scenario {
    let mut s = scenario.clone();
    s.config.manager.fixes = set.fixes;
    s.config.gemini_tool_text = set.gemini_tool_text;
    s
}

/// The exception classes generated scenarios use: the built-in ones plus
/// [`CUSTOM_RUNTIME`] and [`CUSTOM_CHECKED`].
pub(crate) fn class_table() -> ClassTable {
    let mut t = ClassTable::builtin();
    t.declare(CUSTOM_RUNTIME, "java.lang.IllegalStateException")
        .expect("a valid declaration");
    t.declare(CUSTOM_CHECKED, "java.io.IOException")
        .expect("a valid declaration");
    t
}

fn s(v: &[&'static str]) -> BoxedStrategy<String> {
    select(v.to_vec()).prop_map(str::to_owned).boxed()
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.

    #[test]
    fn example_class_table() {
        let t = crate::verification::generators::class_table();
        assert!(t.is_assignable(
            "java.lang.RuntimeException",
            crate::verification::generators::CUSTOM_RUNTIME
        ));
    }
}
