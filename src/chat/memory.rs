//! The chat memory: `MessageWindowChatMemory` (its window, and the window
//! fixes) and `MessageChatMemoryAdvisor` (what it prepends to a request and
//! what it stores), for one conversation.

use std::borrow::Cow;
use std::num::NonZeroU32;

use crate::model::behavior::{Fix, Fixes, SpringAi};
use crate::model::manager::tool_call_message;
use crate::model::message::{Generation, Message};

/// `MessageWindowChatMemory`'s default `maxMessages`.
pub const DEFAULT_MEMORY_MAX_MESSAGES: NonZeroU32 = match NonZeroU32::new(20) {
    Some(n) => n,
    None => unreachable!(),
};

/// The message of `MessageWindowChatMemory`'s `Assert.isTrue(maxMessages > 0, ...)`.
pub(crate) const MEMORY_MAX_MESSAGES_NOT_POSITIVE: &str = "maxMessages must be greater than 0";

/// `MessageWindowChatMemory.process`: what the memory holds after
/// `add(conversationId, new)` to a memory holding `memory`, with window
/// `max_messages`:
///
/// 1. if `new` holds a system message not already in memory (Java
///    equality), the memory's system messages are dropped;
/// 2. `new` is appended;
/// 3. over the window, `cutIndex = size - maxMessages` indexes the list of
///    non-system positions; it moves forward to the next `USER` message (by
///    message type), is clamped to that list's length, and the non-system
///    messages before it are removed. System messages always stay, so the
///    result can still exceed the window, and with no user message after the
///    cut every non-system message goes.
///
/// ```
/// use toolcall_model::{model::Message, chat::message_window};
/// let a = |t: &str| Message::assistant(Some(t), vec![]);
/// let mem = vec![Message::user("u1"), a("a1"), Message::user("u2")];
/// // 4 > 3: the cut (1) is at a1, not a user message, so it moves to u2.
/// assert_eq!(message_window(mem.clone(), vec![a("a2")], 3), vec![Message::user("u2"), a("a2")]);
/// // no user message after the cut: every non-system message goes
/// assert!(message_window(vec![Message::user("u"), a("a1"), a("a2")], vec![a("a3")], 3).is_empty());
/// ```
#[cfg(test)]
pub(crate) fn message_window(
    memory: Vec<Message>,
    new: Vec<Message>,
    max_messages: usize,
) -> Vec<Message> {
    message_window_with(memory, new, max_messages, Fixes::upstream())
}

/// [`message_window`] under the window fixes of `fixes`:
///
/// * `keep-current-turn`: when no user message follows the cut, the cut
///   moves back to the last user message instead, so the current turn
///   stays whole (and with `evict-orphan-responses`, the count cut never
///   passes the last user message);
/// * `evict-orphan-responses` (spring-ai PR 6029, LangChain4j PR 666): the
///   cut is the plain count, not moved to a user message, and the tool
///   messages at the head of the kept non-system messages go too.
///
/// ```
/// use toolcall_model::{model::{Fix, Fixes}, model::{Message, ToolCall, ToolResponse}, chat::message_window_with};
/// let call = |id: &str| Message::assistant(None, vec![ToolCall::new(id, "x", "{}")]);
/// let resp = |id: &str| Message::Tool { responses: vec![ToolResponse::new(id, "x", "1")].into() };
/// let mem = vec![Message::user("q"), call("1"), resp("1"), call("2")];
/// // The fifth message passes a window of 4, and no user message follows the cut.
/// let up = message_window_with(mem.clone(), vec![resp("2")], 4, Fixes::upstream());
/// assert!(up.is_empty());
/// let keep = message_window_with(mem.clone(), vec![resp("2")], 4, Fixes::only(Fix::KeepCurrentTurn));
/// assert_eq!(keep.len(), 5);
/// let evict = message_window_with(mem, vec![resp("2")], 4, Fixes::only(Fix::EvictOrphanResponses));
/// assert_eq!(evict, vec![call("1"), resp("1"), call("2"), resp("2")]);
/// ```
#[cfg(test)]
pub(crate) fn message_window_with(
    memory: Vec<Message>,
    new: Vec<Message>,
    max_messages: usize,
    fixes: Fixes,
) -> Vec<Message> {
    let old = memory.len();
    let mut all = memory;
    all.extend(new);
    window_in_place(&mut all, old, max_messages, (fixes, true), 0);
    all
}

/// [`message_window_with`] over `messages`, of which the first `old` were
/// stored before this add and the rest are new, in place: the messages it
/// removes go and the others keep their order. Returns whether the window
/// cut anything (`false` when the messages fit in it, so that any larger
/// window keeps the same ones), and how many of the first `start` messages
/// stay. `rules` are the fixes and whether the window is 2.0's
/// ([`SpringAi::memory_of_2_0`]).
fn window_in_place(
    messages: &mut Vec<Message>,
    old: usize,
    max_messages: usize,
    rules: (Fixes, bool),
    start: usize,
) -> (bool, usize) {
    let is_system = |m: &Message| matches!(m, Message::System { .. });
    let (memory, new) = messages.split_at(old);
    let has_new_system = new.iter().any(|m| is_system(m) && !memory.contains(m));
    let dropped = match has_new_system {
        true => memory.iter().filter(|m| is_system(m)).count(),
        false => 0,
    };
    let processed = messages.len() - dropped;
    // Most adds fit in the window: counted before anything is indexed, and
    // nothing is removed unless a new system message replaces stored ones.
    let windowed = processed > max_messages;
    let cut = match windowed {
        true => window_cut(messages, processed - max_messages, rules),
        false => 0,
    };
    if dropped == 0 && cut == 0 {
        return (windowed, start);
    }
    // Removal in order: the stored system messages a new one replaces, and
    // the first `cut` non-system messages.
    let (mut i, mut non_system, mut start_kept) = (0, 0, 0);
    messages.retain(|m| {
        let system = is_system(m);
        let keep = match system {
            true => !(has_new_system && i < old),
            false => {
                non_system += 1;
                non_system > cut
            }
        };
        start_kept += usize::from(keep && i < start);
        i += 1;
        keep
    });
    (windowed, start_kept)
}

/// How many of the non-system messages the window removes from the front,
/// the count cut being `count` (`cutIndex`, over the window). 1.1's window
/// (`MessageWindowChatMemory#process`, lines 98-110 of v1.1.2) drops the
/// oldest `count` non-system messages one by one, wherever that cut falls,
/// as `evict-orphan-responses` cuts before it skips the orphaned responses.
fn window_cut(messages: &[Message], count: usize, (fixes, of_2_0): (Fixes, bool)) -> usize {
    let non_system: Vec<&Message> = messages
        .iter()
        .filter(|m| !matches!(m, Message::System { .. }))
        .collect();
    let mut cut = count;
    let last_user = non_system.iter().rposition(|m| m.is_user());
    if fixes.contains(Fix::EvictOrphanResponses) || !of_2_0 {
        // The plain count, then the tool messages it left without a call.
        cut = cut.min(non_system.len());
        if fixes.contains(Fix::KeepCurrentTurn) {
            cut = last_user.map_or(cut, |u| cut.min(u));
        }
        while fixes.contains(Fix::EvictOrphanResponses)
            && cut < non_system.len()
            && matches!(non_system[cut], Message::Tool { .. })
        {
            cut += 1;
        }
    } else {
        while cut < non_system.len() && !non_system[cut].is_user() {
            cut += 1;
        }
        if fixes.contains(Fix::KeepCurrentTurn) && cut >= non_system.len() {
            // No user message after the cut: keep the current turn whole.
            cut = last_user.unwrap_or(cut);
        }
    }
    cut.min(non_system.len())
}

/// Whether a message's metadata holds byte arrays in Java: Gemini's
/// `thoughtSignatures` (a `List<byte[]>`).
pub fn has_byte_metadata(m: &Message) -> bool {
    matches!(m, Message::Assistant { metadata, .. } if metadata.contains_key("thoughtSignatures"))
}

/// A `MessageChatMemoryAdvisor` over a `MessageWindowChatMemory` backed by an
/// `InMemoryChatMemoryRepository`, for one conversation.
#[derive(Debug, Clone)]
pub(crate) struct ChatMemory {
    pub(crate) messages: Vec<Message>,
    /// How many of the first messages were given as `memory_start`, so that
    /// each is a Java object of its own, never the one the request holds
    /// (see `already_in`). They stay first: every add appends, and the
    /// window only removes.
    from_start: usize,
    max_messages: usize,
    /// The window and storage fixes.
    fixes: Fixes,
    /// Whether the advisor and the window are 2.0's
    /// ([`SpringAi::memory_of_2_0`]).
    of_2_0: bool,
    /// Whether the window has cut anything (if not, the memory holds what
    /// a memory with any larger window would).
    pub(crate) windowed: bool,
}

impl ChatMemory {
    /// A memory holding `start` (messages of their own, never equal by
    /// reference to a request's), windowed at `max_messages`, as the
    /// memory of Spring AI `version` does.
    pub(crate) fn new(
        start: &[Message],
        max_messages: NonZeroU32,
        fixes: Fixes,
        version: SpringAi,
    ) -> Self {
        ChatMemory {
            messages: start.to_vec(),
            from_start: start.len(),
            max_messages: usize::try_from(max_messages.get()).unwrap_or(usize::MAX),
            fixes,
            of_2_0: version.memory_of_2_0(),
            windowed: false,
        }
    }

    /// `ChatMemory.add(conversationId, messages)`: one
    /// `MessageWindowChatMemory.process` over the stored messages.
    pub(crate) fn add(&mut self, new: impl IntoIterator<Item = Message>) {
        let old = self.messages.len();
        self.messages.extend(new);
        let (cut, from_start) = window_in_place(
            &mut self.messages,
            old,
            self.max_messages,
            (self.fixes, self.of_2_0),
            self.from_start,
        );
        self.windowed |= cut;
        self.from_start = from_start;
    }

    /// `MessageChatMemoryAdvisor.before`: `get()`, then memory + prompt
    /// (unless the prompt already holds the memory as a contiguous run), the
    /// first system message moved to the front; then the last user-or-tool
    /// message is stored with `add(conversationId, message)`. A borrowed
    /// prompt comes back borrowed when it goes on unchanged (the memory is
    /// in it and its system message, if any, is first), else it is copied
    /// once, into what is sent on.
    pub(crate) fn before<'p>(
        &mut self,
        prompt: impl Into<Cow<'p, [Message]>>,
    ) -> Cow<'p, [Message]> {
        let prompt = prompt.into();
        if !self.of_2_0 {
            return self.before_1_1(prompt);
        }
        let mut processed = if self.already_in(&prompt) {
            prompt
        } else {
            // The room the caller made in its prompt for what follows is
            // kept.
            let room = match &prompt {
                Cow::Owned(p) => p.capacity() - p.len(),
                Cow::Borrowed(_) => 0,
            };
            let mut v = Vec::with_capacity(self.messages.len() + prompt.len() + room);
            v.extend_from_slice(&self.messages);
            match prompt {
                Cow::Borrowed(p) => v.extend_from_slice(p),
                Cow::Owned(p) => v.extend(p),
            }
            Cow::Owned(v)
        };
        match processed
            .iter()
            .position(|m| matches!(m, Message::System { .. }))
        {
            Some(i) if i > 0 => processed.to_mut()[..=i].rotate_right(1),
            _ => {}
        }
        // Prompt.getLastUserOrToolResponseMessage(): an empty user message
        // when the prompt has neither.
        let last = processed
            .iter()
            .rev()
            .find(|m| matches!(m, Message::User { .. } | Message::Tool { .. }))
            .cloned()
            .unwrap_or_else(|| Message::user(""));
        self.add([last]);
        processed
    }

    /// 1.1's `MessageChatMemoryAdvisor#before` (lines 79-99 of v1.1.2): the
    /// memory, then the prompt's instructions, as they come; then
    /// `Prompt#getUserMessage()` (the last user message, else an empty one)
    /// is stored with `add(conversationId, message)`.
    fn before_1_1<'p>(&mut self, prompt: Cow<'p, [Message]>) -> Cow<'p, [Message]> {
        let processed = if self.messages.is_empty() {
            prompt
        } else {
            let mut v = Vec::with_capacity(self.messages.len() + prompt.len());
            v.extend_from_slice(&self.messages);
            v.extend_from_slice(&prompt);
            Cow::Owned(v)
        };
        let last = processed
            .iter()
            .rev()
            .find(|m| m.is_user())
            .cloned()
            .unwrap_or_else(|| Message::user(""));
        self.add([last]);
        processed
    }

    /// `isMemoryAlreadyInPrompt`: the memory is a contiguous run of the
    /// prompt, by `Message.equals`. `AbstractMessage.equals` compares the
    /// metadata maps, and Gemini's `thoughtSignatures` is a list of `byte[]`,
    /// equal only to itself: a message given as `memory_start` carrying them
    /// is a separate object from any message of the request, so never equal
    /// to one. (Messages stored during the turn are the request's own
    /// objects, so value equality is identity there.)
    pub(crate) fn already_in(&self, prompt: &[Message]) -> bool {
        let mem = &self.messages;
        let equal = |i: usize, m: &Message, p: &Message| {
            !(i < self.from_start && has_byte_metadata(m)) && m == p
        };
        mem.is_empty()
            || (prompt.len() >= mem.len()
                && prompt.windows(mem.len()).any(|w| {
                    mem.iter()
                        .zip(w)
                        .enumerate()
                        .all(|(i, (m, p))| equal(i, m, p))
                }))
    }

    /// `MessageChatMemoryAdvisor.after`: every generation's message, in one
    /// `add(conversationId, messages)`. With `store-answered-generation`, a
    /// reply with tool calls stores only the generation the manager answers
    /// (`DefaultToolCallingManager`: the first with tool calls).
    pub(crate) fn after(&mut self, generations: &[Generation]) {
        if self.fixes.contains(Fix::StoreAnsweredGeneration)
            && let Some(m) = tool_call_message(generations)
        {
            self.add([m]);
            return;
        }
        self.add(generations.iter().map(Generation::to_message));
    }

    /// `after` for generations the loop produced (`buildGeneration()`,
    /// returnDirect): their metadata is the generation's, not the message's,
    /// so the stored `AssistantMessage` carries the text alone.
    pub(crate) fn after_produced(&mut self, generations: &[Generation]) {
        self.add(generations.iter().map(|g| Message::Assistant {
            text: g.text.clone(),
            tool_calls: Default::default(),
            metadata: Default::default(),
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::message::ToolResponse;

    fn a(t: &str) -> Message {
        Message::assistant(Some(t), vec![])
    }

    fn sys(t: &str) -> Message {
        Message::System {
            text: Some(t.into()),
        }
    }

    #[test]
    fn within_the_window_nothing_goes() {
        let m = message_window(vec![Message::user("u")], vec![a("a")], 2);
        assert_eq!(m, vec![Message::user("u"), a("a")]);
    }

    #[test]
    fn a_new_system_message_replaces_the_stored_ones() {
        let m = message_window(
            vec![sys("old"), Message::user("u"), sys("older")],
            vec![sys("new")],
            20,
        );
        assert_eq!(m, vec![Message::user("u"), sys("new")]);
        // A system message equal to a stored one is not new: nothing is dropped.
        let m = message_window(vec![sys("s"), Message::user("u")], vec![sys("s")], 20);
        assert_eq!(m, vec![sys("s"), Message::user("u"), sys("s")]);
    }

    #[test]
    fn system_messages_stay_and_count() {
        // 5 messages, window 2: cut = 3 among the 3 non-system ones, i.e.
        // all of them; the two system messages stay, over the window.
        let m = message_window(
            vec![sys("s1"), Message::user("u"), sys("s2"), a("a1")],
            vec![a("a2")],
            2,
        );
        assert_eq!(m, vec![sys("s1"), sys("s2")]);
    }

    #[test]
    fn the_cut_moves_to_the_next_user_message() {
        let mem = vec![
            Message::user("u1"),
            a("a1"),
            Message::Tool {
                responses: vec![].into(),
            },
            Message::user("u2"),
            a("a2"),
        ];
        // 6 > 5: cut 1 (a1), then the tool message, then u2.
        let m = message_window(mem, vec![Message::user("u3")], 5);
        assert_eq!(m, vec![Message::user("u2"), a("a2"), Message::user("u3")]);
    }

    fn call(id: &str) -> Message {
        Message::assistant(
            None,
            vec![crate::model::message::ToolCall::new(id, "x", "{}")],
        )
    }

    fn resp(id: &str) -> Message {
        Message::Tool {
            responses: vec![ToolResponse::new(id, "x", "1")].into(),
        }
    }

    /// An answered turn, then a turn with one tool call answered.
    fn answered_then_one_call() -> Vec<Message> {
        vec![
            Message::user("u0"),
            a("a0"),
            Message::user("u1"),
            call("1"),
            resp("1"),
        ]
    }

    #[test]
    fn keep_current_turn_evicts_earlier_turns_whole_and_keeps_the_current_one() {
        use crate::model::behavior::Fix;
        let keep = Fixes::only(Fix::KeepCurrentTurn);
        let mem = [vec![sys("s")], answered_then_one_call()].concat();
        // 7 > 4: the cut (3) is past the last user message; upstream
        // removes every non-system message, the fix only the earlier turn.
        assert_eq!(
            message_window_with(mem.clone(), vec![call("2")], 4, Fixes::upstream()),
            vec![sys("s")]
        );
        assert_eq!(
            message_window_with(mem.clone(), vec![call("2")], 4, keep),
            vec![
                sys("s"),
                Message::user("u1"),
                call("1"),
                resp("1"),
                call("2")
            ]
        );
        // A user message after the cut: as upstream.
        assert_eq!(
            message_window_with(mem.clone(), vec![Message::user("u2")], 4, keep),
            message_window(mem, vec![Message::user("u2")], 4)
        );
        // No user message at all: as upstream, everything goes.
        assert!(message_window_with(vec![call("1"), resp("1")], vec![a("x")], 2, keep).is_empty());
    }

    #[test]
    fn evict_orphan_responses_cuts_at_the_count_and_drops_leading_responses() {
        use crate::model::behavior::Fix;
        let evict = Fixes::only(Fix::EvictOrphanResponses);
        let mem = answered_then_one_call();
        // 6 > 5: the count cut (1) keeps a0 without its question, where
        // upstream moves on to u1.
        assert_eq!(
            message_window_with(mem.clone(), vec![a("a1")], 5, evict),
            vec![a("a0"), Message::user("u1"), call("1"), resp("1"), a("a1")]
        );
        // 6 > 2: the cut (4) lands on resp 1, which goes with its call.
        assert_eq!(
            message_window_with(mem.clone(), vec![a("a1")], 2, evict),
            vec![a("a1")]
        );
        // With keep-current-turn too, the count cut stops at the last user message.
        let both = evict.with(Fix::KeepCurrentTurn);
        assert_eq!(
            message_window_with(mem, vec![a("a1")], 3, both),
            vec![Message::user("u1"), call("1"), resp("1"), a("a1")]
        );
    }

    #[test]
    fn an_empty_user_message_is_a_user_message() {
        let m = message_window(vec![a("a0"), Message::user("")], vec![a("a1")], 2);
        assert_eq!(m, vec![Message::user(""), a("a1")]);
    }
}
