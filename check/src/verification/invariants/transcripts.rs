//! The judges of the transcripts: well paired (7), the question kept (8)
//! and the memory's turns kept (9), with the memory's precondition.

use std::borrow::Cow;

use crate::verification::scenario::Scenario;
use toolcall_model::chat::{Memory, Provider};
use toolcall_model::model::{Message, pairing};

use super::evidence::Evidence;
use super::{Judged, Locus, clip, in_request, refuted};

pub(super) fn transcript_valid(ev: &Evidence<'_>) -> Judged {
    // Each failed precondition makes the turn not applicable: the cheap
    // ones are asked first.
    if non_system(&ev.scenario.history).next().is_none()
        || !history_restored(ev.scenario)
        || !ev.memory_holds_conversation()
    {
        // An empty request asks nothing: the model's first call would open
        // the conversation, which no pairing rule allows.
        return Judged::NotApplicable;
    }
    if pairing(ev.conversation()).is_err() {
        // The conversation the turn starts from is not well paired: nothing
        // the loop does can make its requests so.
        return Judged::NotApplicable;
    }
    let Some(all) = ev.attempted_messages() else {
        return Judged::NotApplicable;
    };
    let gemini = ev.scenario.config.provider == Provider::Gemini;
    for (k, msgs) in all.iter().enumerate() {
        if let Err(e) = pairing(msgs) {
            let locus = if !gemini {
                Locus::Unlocated
            } else if k < ev.run.requests.len() {
                Locus::Api
            } else {
                Locus::OutcomeError
            };
            return in_request(
                refuted(format!("request {k} to be well paired, but {e}"), locus),
                k,
            );
        }
    }
    if ev.scenario.config.memory != Memory::None
        && let Err(e) = pairing(&ev.next_turn())
    {
        return refuted(
            format!(
                "the stored transcript (plus the next user message) to be well paired, but {e}"
            ),
            Locus::MemoryApi,
        );
    }
    Judged::Holds
}

// ---------------------------------------------------------------------------
// The memory: its precondition and invariants 8 and 9.

/// Whether the loop's requests carry the turn: conversation history is on,
/// or a memory inside the loop restores it. With history off the loop sends
/// only the system message and the last message
/// (`doGetNextInstructionsForToolCall`), which is meant for a memory inside
/// the loop (`ChatClient` turns history off only then).
pub(super) fn history_restored(s: &Scenario) -> bool {
    s.config.conversation_history || s.config.memory == Memory::Inside
}

/// The messages without the system messages.
pub(super) fn non_system(messages: &[Message]) -> impl Iterator<Item = &Message> + Clone {
    messages
        .iter()
        .filter(|m| !matches!(m, Message::System { .. }))
}

/// The memory's precondition, "the memory holds the conversation so far";
/// `Err` says which part a scenario misses. Met when there is no memory, or:
///
/// 1. the request's last non-system message is a user or tool message: the
///    one `MessageChatMemoryAdvisor.before` stores
///    (`Prompt.getLastUserOrToolResponseMessage`);
/// 2. the memory's non-system messages followed by that message start with
///    a user message: the memory holds whole turns, and a turn that already
///    ran tool rounds has its start, and its calls, in the memory (the
///    advisor stores only the request's last message, so a memory that
///    lacks them stores responses to calls it never saw);
/// 3. the request holds either that message alone besides system messages
///    (the memory holds the rest: `.user(question)` with a memory advisor)
///    or, exactly before that message, the memory's whole content (the
///    request holds the conversation and the memory finds itself in it; a
///    message carrying Gemini thought signatures never equals a copy in
///    Java, so it does not count as found); the first way not with a memory
///    inside the loop that holds something while conversation history is on
///    (the loop then sends its own history every round, which lacks the
///    memory's messages, so the memory is prepended again every round and
///    repeats the turn's calls; `ChatClient` turns history off when it puts
///    the loop in front of a memory advisor);
/// 4. with a memory inside the loop, the request's system messages come
///    first (the advisor moves the first system message to the front of
///    what it sends, the loop keeps the request's order, and a system
///    message inside the memory's run in the loop's prompt splits it, so
///    the memory is prepended again).
///
/// ```
/// use toolcall_check::verification::{invariants::memory_holds_conversation, scenario::Scenario};
/// use toolcall_model::{model::{Message, ToolCall, ToolResponse}, chat::{LoopConfig, Memory}};
/// let mut s = Scenario { config: LoopConfig { memory: Memory::Outside, ..LoopConfig::default() }, tools: vec![],
///     history: vec![Message::user("q")], model: vec![] };
/// assert!(memory_holds_conversation(&s).is_ok());
/// // A request that already holds a tool round, with an empty memory.
/// s.history.push(Message::assistant(None, vec![ToolCall::new("1", "x", "{}")]));
/// s.history.push(Message::Tool { responses: vec![ToolResponse::new("1", "x", "1")].into() });
/// assert!(memory_holds_conversation(&s).is_err());
/// // The memory holds the turn's start: the request holds it too, right before its last message.
/// s.config.memory_start = s.history[..2].to_vec();
/// assert!(memory_holds_conversation(&s).is_ok());
/// ```
pub fn memory_holds_conversation(s: &Scenario) -> Result<(), String> {
    let c = &s.config;
    if c.memory == Memory::None {
        return Ok(());
    }
    let Some(at) = s
        .history
        .iter()
        .rposition(|m| !matches!(m, Message::System { .. }))
    else {
        return Err("the request has no message for the memory to store".into());
    };
    let last = &s.history[at];
    if !matches!(last, Message::User { .. } | Message::Tool { .. }) {
        return Err("the request does not end with a user or tool message".into());
    }
    let mut memory = non_system(&c.memory_start).peekable();
    if !memory.peek().copied().unwrap_or(last).is_user() {
        return Err(
            "the memory and the request's last message do not start with a user message: the memory misses the start of a turn".into(),
        );
    }
    let alone = non_system(&s.history).nth(1).is_none();
    let alone_ok =
        alone && !(c.memory == Memory::Inside && c.conversation_history && memory.peek().is_some());
    let n = c.memory_start.len();
    let held = at >= n
        && s.history[at - n..at] == c.memory_start[..]
        && !c
            .memory_start
            .iter()
            .any(toolcall_model::chat::has_byte_metadata);
    if !alone_ok && !held {
        return Err(if alone {
            "the memory, inside the loop with conversation history on, holds messages the request does not".into()
        } else {
            "the request holds more than its last message, but not the memory's content right before it".into()
        });
    }
    if c.memory == Memory::Inside {
        let is_system = |m: &&Message| matches!(m, Message::System { .. });
        if !s
            .history
            .iter()
            .skip_while(is_system)
            .all(|m| !is_system(&m))
        {
            return Err("a system message follows another message of the request, with the memory inside the loop".into());
        }
    }
    Ok(())
}

/// The turn's user message: the last user message of the request, else of
/// the memory (a request that resumes a turn with its tool message alone).
pub(super) fn turn_question(s: &Scenario) -> Option<&Message> {
    s.history
        .iter()
        .rev()
        .find(|m| m.is_user())
        .or_else(|| s.config.memory_start.iter().rev().find(|m| m.is_user()))
}

pub(super) fn show_message(m: &Message) -> String {
    match m {
        Message::User { text } => format!(
            "the user message {}",
            clip(text.as_deref().unwrap_or("null"))
        ),
        Message::System { .. } => "a system message".into(),
        Message::Assistant { tool_calls, .. } if !tool_calls.is_empty() => {
            format!(
                "an assistant message with {} tool call(s)",
                tool_calls.len()
            )
        }
        Message::Assistant { .. } => "an assistant message".into(),
        Message::Tool { .. } => "a tool message".into(),
    }
}

pub(super) fn question_kept(ev: &Evidence<'_>) -> Judged {
    let s = ev.scenario;
    if !history_restored(s) || !ev.memory_holds_conversation() {
        return Judged::NotApplicable;
    }
    let Some(q) = turn_question(s) else {
        return Judged::NotApplicable;
    };
    let Some(all) = ev.attempted_messages() else {
        return Judged::NotApplicable;
    };
    for (k, msgs) in all.iter().enumerate() {
        let last = msgs.iter().rev().find(|m| m.is_user());
        if last != Some(q) {
            return in_request(
                refuted(
                    format!(
                        "request {k} to hold the turn's question, {}, as its last user message, but {}",
                        show_message(q),
                        match last {
                            None => "it holds no user message".to_owned(),
                            Some(m) => format!("its last one is {}", show_message(m)),
                        }
                    ),
                    Locus::Unlocated,
                ),
                k,
            );
        }
    }
    Judged::Holds
}

pub(super) fn memory_keeps_turns(ev: &Evidence<'_>) -> Judged {
    let s = ev.scenario;
    if s.config.memory == Memory::None || !ev.memory_holds_conversation() {
        return Judged::NotApplicable;
    }
    // What the memory would hold with no window: the same turn, since the
    // window changes what is evicted, never what is stored.
    // Where the window cut nothing, that is this run's memory.
    let unbounded = if ev.run.windowed {
        let mut open = s.clone();
        open.config.memory_max_messages = std::num::NonZeroU32::MAX;
        let Ok((unbounded, _)) = open.run() else {
            return Judged::NotApplicable;
        };
        Cow::Owned(unbounded.memory)
    } else {
        Cow::Borrowed(&ev.run.memory[..])
    };
    let window = usize::try_from(s.config.memory_max_messages.get()).unwrap_or(usize::MAX);
    let kept = &ev.run.memory;
    if unbounded.len() <= window {
        if kept[..] != *unbounded {
            return refuted(
                format!(
                    "the memory, whose window ({window}) never filled, to hold all {} message(s) stored, but it holds {}",
                    unbounded.len(),
                    kept.len()
                ),
                Locus::Unlocated,
            );
        }
        return Judged::Holds;
    }
    // The memory's view of the conversation: its earlier turns, then the
    // current turn from its user message on.
    let start: Vec<&Message> = non_system(&s.config.memory_start).collect();
    let mut view = start.clone();
    view.extend(non_system(&s.history).last());
    let Some(q) = view.iter().rposition(|m| m.is_user()) else {
        return Judged::NotApplicable;
    };
    let earlier = &start[..q];
    let unbounded: Vec<&Message> = non_system(&unbounded).collect();
    if unbounded.len() < q || unbounded[..q] != *earlier {
        // Not reachable: a memory only appends to what it holds.
        return Judged::NotApplicable;
    }
    let current = &unbounded[q..];
    let kept: Vec<&Message> = non_system(kept).collect();
    if !kept.ends_with(current) {
        let how = match kept.first() {
            None => "nothing".to_owned(),
            Some(m) => format!("{} message(s), the first {}", kept.len(), show_message(m)),
        };
        return refuted(
            format!(
                "the memory to keep the current turn whole ({} message(s) from {}), but it holds {how}",
                current.len(),
                current
                    .first()
                    .map_or_else(|| "its start".to_owned(), |m| show_message(m))
            ),
            Locus::Unlocated,
        );
    }
    let before = &kept[..kept.len() - current.len()];
    // Earlier turns start at their user messages; the memory may keep only
    // the last whole ones.
    let starts: Vec<usize> = (0..earlier.len())
        .filter(|&i| earlier[i].is_user())
        .chain([earlier.len()])
        .collect();
    if !starts.iter().any(|&i| earlier[i..] == *before) {
        return refuted(
            format!(
                "the memory to drop earlier turns only whole, oldest first, but of their {} message(s) it keeps {} that are not the last whole turns",
                earlier.len(),
                before.len()
            ),
            Locus::Unlocated,
        );
    }
    Judged::Holds
}
