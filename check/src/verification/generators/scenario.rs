//! Whole turns: memory, streaming, the loop's configuration and the
//! scenario that puts them together.

use proptest::option;
use proptest::prelude::*;

use super::class_table;
use super::conversation::{history, model, phrase};
use super::tools::{limits, processor, tools};
use crate::verification::scenario::Scenario;
use toolcall_model::chat::{LoopConfig, Memory, Provider};
use toolcall_model::chat::{Split, may_hang_a_stream};
use toolcall_model::model::Config;
use toolcall_model::model::Message;

/// The memory's window: Spring's default of 20 mostly, else 2 to 8
/// messages, small enough for a turn of a few rounds to pass it.
fn memory_window() -> BoxedStrategy<std::num::NonZeroU32> {
    prop_oneof![
        3 => Just(toolcall_model::chat::DEFAULT_MEMORY_MAX_MESSAGES),
        2 => (2u32..=8).prop_map(|n| std::num::NonZeroU32::new(n).expect("positive")),
    ]
    .boxed()
}

/// What the memory holds before the turn, and how the request relates to
/// it (see [`crate::verification::invariants::memory_holds_conversation`]).
#[derive(Debug, Clone)]
enum MemoryStart {
    /// Nothing.
    Empty,
    /// The request holds the conversation, and the memory its messages
    /// right before the request's last one, from one of their user
    /// messages on (the whole conversation, or the last turns a window
    /// kept).
    Held(proptest::sample::Index),
    /// The memory holds the conversation before the request's last
    /// message, and the request only that message (after its system
    /// message): `.user(question)` with a memory advisor.
    Rest,
    /// An earlier turn the request knows nothing of (a user message and the
    /// answer, sometimes after a system message).
    Other(Vec<Message>),
}

fn memory_start() -> BoxedStrategy<MemoryStart> {
    prop_oneof![
        6 => Just(MemoryStart::Empty),
        2 => any::<proptest::sample::Index>().prop_map(MemoryStart::Held),
        2 => Just(MemoryStart::Rest),
        1 => (option::weighted(0.3, phrase()), phrase(), phrase()).prop_map(|(sys, u, a)| {
            let mut m = Vec::new();
            if let Some(t) = sys {
                m.push(Message::System { text: Some(t.into()) });
            }
            m.push(Message::user(&u));
            m.push(Message::assistant(Some(&a), vec![]));
            MemoryStart::Other(m)
        }),
    ]
    .boxed()
}

/// The memory's starting content and the request, for a memory.
fn apply_memory_start(start: MemoryStart, history: Vec<Message>) -> (Vec<Message>, Vec<Message>) {
    let is_system = |m: &Message| matches!(m, Message::System { .. });
    let Some(last) = history.iter().rposition(|m| !is_system(m)) else {
        return (vec![], history);
    };
    match start {
        MemoryStart::Empty => (vec![], history),
        MemoryStart::Other(m) => (m, history),
        MemoryStart::Held(i) => {
            let users: Vec<usize> = (0..last).filter(|&k| history[k].is_user()).collect();
            if users.is_empty() {
                return (vec![], history);
            }
            let from = users[i.index(users.len())];
            (history[from..last].to_vec(), history)
        }
        MemoryStart::Rest => {
            let memory: Vec<Message> = history[..last]
                .iter()
                .filter(|m| !is_system(m))
                .cloned()
                .collect();
            let request: Vec<Message> = history[..last]
                .iter()
                .filter(|m| is_system(m))
                .chain(&history[last..])
                .cloned()
                .collect();
            (memory, request)
        }
    }
}

/// Whether the turn streams, one in four, and how the scripted model cuts
/// its replies: the text in one to three chunks, the calls apart or with
/// the last text chunk.
fn stream() -> BoxedStrategy<Option<Split>> {
    prop_oneof![
        3 => Just(None),
        1 => (1u8..=3, any::<bool>()).prop_map(|(pieces, calls_apart)| Some(Split {
            pieces: std::num::NonZeroU8::new(pieces).unwrap_or(std::num::NonZeroU8::MIN),
            calls_apart,
        })),
    ]
    .boxed()
}

/// Memory placement and the conversation-history switch, off only with a
/// memory inside the loop (see the module doc), as often as on: that is how
/// `ChatClient` registers the loop in front of a memory advisor.
fn memory_and_history() -> BoxedStrategy<(Memory, bool)> {
    prop_oneof![
        6 => Just((Memory::None, true)),
        2 => Just((Memory::Outside, true)),
        3 => any::<bool>().prop_map(|h| (Memory::Inside, h)),
    ]
    .boxed()
}

/// A whole turn under upstream (see the module doc for what varies).
///
/// ```
/// use proptest::{strategy::{Strategy, ValueTree}, test_runner::TestRunner};
/// let mut runner = TestRunner::deterministic();
/// let s = toolcall_check::verification::generators::scenario().new_tree(&mut runner).unwrap().current();
/// assert!(s.config.manager.fixes.is_upstream());
/// assert!(s.run().is_ok());
/// ```
pub fn scenario() -> BoxedStrategy<Scenario> {
    (
        limits(),
        processor(),
        any::<bool>(),
        memory_and_history(),
        prop_oneof![9 => Just(Provider::Gemini), 1 => Just(Provider::None)],
        tools(),
        history(),
        model(),
        memory_window(),
        memory_start(),
        stream(),
    )
        .prop_map(
            |(
                limits,
                processor,
                resolution_fallback,
                (memory, conversation_history),
                provider,
                tools,
                history,
                model,
                window,
                start,
                stream,
            )| {
                let manager = Config {
                    limits,
                    resolution_fallback,
                    processor,
                    classes: class_table(),
                    fixes: Default::default(),
                    version: Default::default(),
                };
                let (memory_start, history) = if memory == Memory::None {
                    (vec![], history)
                } else {
                    apply_memory_start(start, history)
                };
                // A streamed turn whose tool may throw a JVM-fatal error
                // never ends on the jars: not modelled, not streamed.
                let stream = stream.filter(|_| !may_hang_a_stream(&tools, &manager.classes));
                let mut model = model;
                // A repeating model (about one turn in eleven): the script's
                // final answer dropped, its last reply with calls repeated
                // for ever. Drawn from the window where no memory reads it,
                // so that every other generated turn stays as it was, and
                // only for turns through call().
                let repeat_last = memory == Memory::None
                    && window.get() <= 4
                    && model.len() > 1
                    && stream.is_none();
                if repeat_last {
                    model.pop();
                }
                let mut scenario = Scenario {
                    config: LoopConfig {
                        repeat_last,
                        conversation_history,
                        provider,
                        memory,
                        memory_max_messages: if memory == Memory::None {
                            toolcall_model::chat::DEFAULT_MEMORY_MAX_MESSAGES
                        } else {
                            window
                        },
                        memory_start,
                        stream,
                        ..LoopConfig::new(manager)
                    },
                    tools,
                    history,
                    model,
                };
                if repeat_last {
                    scenario.config.max_rounds = crate::verification::turn_bound::repeating_guard(
                        &scenario.config,
                        &scenario.model,
                    );
                }
                scenario
            },
        )
        .boxed()
}
