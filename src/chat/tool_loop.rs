//! The tool loop of `ToolCallingAdvisor.adviseCall` (blocking path), with a
//! scripted model, chat memory inside or outside the loop
//! (`MessageChatMemoryAdvisor` over a `MessageWindowChatMemory`, whose
//! window is [`message_window`]), and the seed's workaround advisor
//! (`GeminiToolTextAdvisor`).
//!
//! The advisor chain inside the loop is, outermost first:
//! `ToolCallingAdvisor` → `GeminiToolTextAdvisor` (if on) → memory (if
//! inside) → the chat model. The loop keeps the turn's tool-call counts
//! incrementally from round to round instead of recounting the history.

use std::num::NonZeroU32;

use serde_json::Value;

use crate::gemini::{
    build_request, validate, validate_from, IncrementalRequests, Request, ValidatorOptions,
};
use crate::model::behavior::Fixes;
use crate::model::java::JavaException;
use crate::model::limits::Counts;
use crate::model::manager::{
    execute_with_counts, tool_call_message, Config, ManagerError, NOT_EXECUTED_FAILED,
};
use crate::model::message::{Generation, Message, ToolResponse};
use crate::model::processor::json_error_text;
use crate::model::tools::Toolbox;

/// Where the chat model's requests go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Provider {
    /// `GoogleGenAiChatModel`: every call builds and validates a Gemini request.
    #[default]
    Gemini,
    /// A provider that takes the messages as they are.
    None,
}

/// Where a `MessageChatMemoryAdvisor` stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Memory {
    /// No memory.
    #[default]
    None,
    /// Inside the tool loop: sees every model call.
    Inside,
    /// Outside the tool loop (Spring's default order): sees the turn once.
    Outside,
}

/// `MessageWindowChatMemory`'s default `maxMessages`.
pub const DEFAULT_MEMORY_MAX_MESSAGES: NonZeroU32 = match NonZeroU32::new(20) {
    Some(n) => n,
    None => unreachable!(),
};

/// The message of `MessageWindowChatMemory`'s `Assert.isTrue(maxMessages > 0, ...)`.
pub const MEMORY_MAX_MESSAGES_NOT_POSITIVE: &str = "maxMessages must be greater than 0";

/// Everything that configures a loop run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopConfig {
    /// The manager.
    pub manager: Config,
    /// `ToolCallingAdvisor.conversationHistoryEnabled` (default true).
    pub conversation_history: bool,
    /// The provider.
    pub provider: Provider,
    /// The memory placement.
    pub memory: Memory,
    /// Whether the seed's `GeminiToolTextAdvisor` runs inside the loop.
    pub gemini_tool_text: bool,
    /// The validator's optional rules.
    pub validator: ValidatorOptions,
    /// At most this many model calls (a guard; the script bounds it anyway).
    pub max_rounds: usize,
    /// The memory's window: `MessageWindowChatMemory.builder().maxMessages(n)`
    /// (default 20; the builder refuses anything not > 0).
    pub memory_max_messages: NonZeroU32,
    /// What the memory's `InMemoryChatMemoryRepository` holds for the
    /// conversation before the turn (stored as is, as `saveAll` does; the
    /// window applies from the first `add`).
    pub memory_start: Vec<Message>,
}

impl Default for LoopConfig {
    /// [`LoopConfig::new`] with the default manager.
    fn default() -> Self {
        LoopConfig::new(Config::default())
    }
}

impl LoopConfig {
    /// Defaults: history on, Gemini, no memory (a window of 20 messages,
    /// empty at the start, when there is one), no advisor, 1000 rounds at most.
    ///
    /// ```
    /// let c = toolcall_model::chat::tool_loop::LoopConfig::new(Default::default());
    /// assert!(c.conversation_history);
    /// ```
    pub fn new(manager: Config) -> Self {
        LoopConfig {
            manager,
            conversation_history: true,
            provider: Provider::Gemini,
            memory: Memory::None,
            gemini_tool_text: false,
            validator: ValidatorOptions::default(),
            max_rounds: 1000,
            memory_max_messages: DEFAULT_MEMORY_MAX_MESSAGES,
            memory_start: Vec::new(),
        }
    }

    fn fixes(&self) -> Fixes {
        self.manager.fixes
    }
}

/// How the loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndKind {
    /// The model answered without tool calls.
    Completed,
    /// A `returnDirect` batch handed the responses to the client.
    ReturnDirect,
    /// `ToolCallLimitExceededException` became `buildGeneration()`.
    LimitExceeded,
    /// An exception reached the caller.
    Error,
}

impl EndKind {
    /// The vector name.
    pub fn name(self) -> &'static str {
        match self {
            EndKind::Completed => "completed",
            EndKind::ReturnDirect => "return_direct",
            EndKind::LimitExceeded => "limit_exceeded",
            EndKind::Error => "error",
        }
    }
}

/// A request as sent to the provider.
#[derive(Debug, Clone, PartialEq)]
pub enum Sent {
    /// A Gemini request.
    Gemini(Request),
    /// The messages, for provider `none`.
    Messages(Vec<Message>),
}

impl Sent {
    /// The vector shape.
    pub fn to_value(&self) -> Value {
        match self {
            Sent::Gemini(r) => r.to_value(),
            Sent::Messages(m) => serde_json::to_value(m).unwrap_or(Value::Null),
        }
    }
}

/// What a loop run produced.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopRun {
    /// How it ended.
    pub kind: EndKind,
    /// The generations the caller received (empty on error).
    pub generations: Vec<Generation>,
    /// The exception that reached the caller, on error.
    pub error: Option<JavaException>,
    /// The requests sent, one per model call.
    pub requests: Vec<Sent>,
    /// The validator's verdict on each Gemini request, in order.
    pub verdicts: Vec<Result<(), String>>,
    /// The transcript the memory holds at the end.
    pub memory: Vec<Message>,
    /// The verdict on a request built from the memory plus one new user
    /// message (`CLASS: MESSAGE` if it cannot be built).
    pub memory_verdict: Result<(), String>,
    /// The turn's tool-call counts at the end: after the last batch that
    /// finished or breached a limit (the breached call counts); a batch that
    /// failed with an exception leaves the counts from before it.
    pub counts: Counts,
}

impl LoopRun {
    /// Accepted if every request was, else the first rejection.
    pub fn api(&self) -> Result<(), String> {
        self.verdicts
            .iter()
            .find(|v| v.is_err())
            .cloned()
            .unwrap_or(Ok(()))
    }
}

/// A fault of the scenario itself, not of the modelled system.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LoopError {
    /// The model was called more times than the script has replies.
    #[error(
        "the model script ran out: model call {call} has no scripted reply (the script has {len})"
    )]
    ScriptExhausted {
        /// The 1-based model call that found no reply.
        call: usize,
        /// The script's length.
        len: usize,
    },
    /// The loop reached `max_rounds` model calls.
    #[error("the loop reached its bound of {0} model calls")]
    TooManyRounds(usize),
}

/// `GeminiToolTextAdvisor.isJson`: non-empty and starting with `{`, `[` or `"`.
///
/// ```
/// assert!(toolcall_model::chat::tool_loop::advisor_thinks_json("[ERROR] disk full"));
/// assert!(!toolcall_model::chat::tool_loop::advisor_thinks_json("42"));
/// ```
pub fn advisor_thinks_json(text: &str) -> bool {
    matches!(text.chars().next(), Some('{' | '[' | '"'))
}

/// The workaround advisor's rewrite of a request: if its last message is a
/// tool message, each response its test calls non-JSON becomes
/// `{"error":DATA}` (`JsonHelper.toJson(Map.of("error", data))`). The seed's
/// advisor reads `messages.getLast()`, which throws
/// `java.util.NoSuchElementException` (no message) on an empty request.
///
/// ```
/// use toolcall_model::{model::message::{Message, ToolResponse}, chat::tool_loop::gemini_tool_text};
/// let mut m = vec![Message::Tool { responses: vec![ToolResponse::new("1", "x", "plain")] }];
/// gemini_tool_text(&mut m).unwrap();
/// assert_eq!(m[0].responses()[0].data, r#"{"error":"plain"}"#);
/// assert_eq!(gemini_tool_text(&mut []).unwrap_err().class, "java.util.NoSuchElementException");
/// ```
pub fn gemini_tool_text(messages: &mut [Message]) -> Result<(), JavaException> {
    if messages.is_empty() {
        return Err(JavaException::new("java.util.NoSuchElementException", None));
    }
    if let Some(Message::Tool { responses }) = messages.last_mut() {
        for r in responses.iter_mut() {
            if !advisor_thinks_json(&r.data) {
                *r = ToolResponse {
                    id: r.id.clone(),
                    name: r.name.clone(),
                    data: json_error_text(&r.data),
                    // Spring's ToolResponse has no error mark: the rewritten
                    // response is an ordinary one.
                    error: false,
                };
            }
        }
    }
    Ok(())
}

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
/// use toolcall_model::{model::message::Message, chat::tool_loop::message_window};
/// let a = |t: &str| Message::assistant(Some(t), vec![]);
/// let mem = vec![Message::user("u1"), a("a1"), Message::user("u2")];
/// // 4 > 3: the cut (1) is at a1, not a user message, so it moves to u2.
/// assert_eq!(message_window(mem.clone(), vec![a("a2")], 3), vec![Message::user("u2"), a("a2")]);
/// // no user message after the cut: every non-system message goes
/// assert!(message_window(vec![Message::user("u"), a("a1"), a("a2")], vec![a("a3")], 3).is_empty());
/// ```
pub fn message_window(
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
/// use toolcall_model::{model::behavior::{Fix, Fixes}, model::message::{Message, ToolCall, ToolResponse}, chat::tool_loop::message_window_with};
/// let call = |id: &str| Message::assistant(None, vec![ToolCall::new(id, "x", "{}")]);
/// let resp = |id: &str| Message::Tool { responses: vec![ToolResponse::new(id, "x", "1")] };
/// let mem = vec![Message::user("q"), call("1"), resp("1"), call("2")];
/// // The fifth message passes a window of 4, and no user message follows the cut.
/// let up = message_window_with(mem.clone(), vec![resp("2")], 4, Fixes::upstream());
/// assert!(up.is_empty());
/// let keep = message_window_with(mem.clone(), vec![resp("2")], 4, Fixes::only(Fix::KeepCurrentTurn));
/// assert_eq!(keep.len(), 5);
/// let evict = message_window_with(mem, vec![resp("2")], 4, Fixes::only(Fix::EvictOrphanResponses));
/// assert_eq!(evict, vec![call("1"), resp("1"), call("2"), resp("2")]);
/// ```
pub fn message_window_with(
    memory: Vec<Message>,
    new: Vec<Message>,
    max_messages: usize,
    fixes: Fixes,
) -> Vec<Message> {
    let keep = window_keep(&memory, &new, max_messages, fixes);
    memory
        .into_iter()
        .chain(new)
        .zip(keep)
        .filter_map(|(m, k)| k.then_some(m))
        .collect()
}

/// [`message_window_with`] as keep flags over `memory` followed by `new`, so
/// that what travels with each message (where it came from) can follow it.
fn window_keep(
    memory: &[Message],
    new: &[Message],
    max_messages: usize,
    fixes: Fixes,
) -> Vec<bool> {
    let is_system = |m: &Message| matches!(m, Message::System { .. });
    let has_new_system = new.iter().any(|m| is_system(m) && !memory.contains(m));
    let mut keep: Vec<bool> = memory
        .iter()
        .map(|m| !(has_new_system && is_system(m)))
        .chain(new.iter().map(|_| true))
        .collect();
    let all: Vec<&Message> = memory.iter().chain(new).collect();
    let processed: Vec<usize> = (0..all.len()).filter(|&i| keep[i]).collect();
    if processed.len() <= max_messages {
        return keep;
    }
    let non_system: Vec<usize> = processed
        .iter()
        .copied()
        .filter(|&i| !is_system(all[i]))
        .collect();
    let mut cut = processed.len() - max_messages;
    let last_user = non_system.iter().rposition(|&i| all[i].is_user());
    if fixes.evict_orphan_responses {
        // The plain count, then the tool messages it left without a call.
        cut = cut.min(non_system.len());
        if fixes.keep_current_turn {
            cut = last_user.map_or(cut, |u| cut.min(u));
        }
        while cut < non_system.len() && matches!(all[non_system[cut]], Message::Tool { .. }) {
            cut += 1;
        }
    } else {
        while cut < non_system.len() && !all[non_system[cut]].is_user() {
            cut += 1;
        }
        if fixes.keep_current_turn && cut >= non_system.len() {
            // No user message after the cut: keep the current turn whole.
            cut = last_user.unwrap_or(cut);
        }
    }
    for &i in &non_system[..cut.min(non_system.len())] {
        keep[i] = false;
    }
    keep
}

/// Whether a message's metadata holds byte arrays in Java: Gemini's
/// `thoughtSignatures` (a `List<byte[]>`).
pub(crate) fn has_byte_metadata(m: &Message) -> bool {
    matches!(m, Message::Assistant { metadata, .. } if metadata.contains_key("thoughtSignatures"))
}

/// A `MessageChatMemoryAdvisor` over a `MessageWindowChatMemory` backed by an
/// `InMemoryChatMemoryRepository`, for one conversation.
#[derive(Debug, Clone)]
struct ChatMemory {
    messages: Vec<Message>,
    /// Per message: it was given as `memory_start`, so it is a Java object of
    /// its own, never the one the request holds (see `already_in`).
    from_start: Vec<bool>,
    max_messages: usize,
    /// The window and storage fixes.
    fixes: Fixes,
}

impl ChatMemory {
    fn new(cfg: &LoopConfig) -> Self {
        ChatMemory {
            messages: cfg.memory_start.clone(),
            from_start: vec![true; cfg.memory_start.len()],
            max_messages: usize::try_from(cfg.memory_max_messages.get()).unwrap_or(usize::MAX),
            fixes: cfg.fixes(),
        }
    }

    /// `ChatMemory.add(conversationId, messages)`: one
    /// `MessageWindowChatMemory.process` over the stored messages.
    fn add(&mut self, new: Vec<Message>) {
        let keep = window_keep(&self.messages, &new, self.max_messages, self.fixes);
        let memory = std::mem::take(&mut self.messages);
        let tags = std::mem::take(&mut self.from_start);
        for ((m, tag), k) in memory
            .into_iter()
            .zip(tags)
            .chain(new.into_iter().map(|m| (m, false)))
            .zip(keep)
        {
            if k {
                self.messages.push(m);
                self.from_start.push(tag);
            }
        }
    }

    /// `MessageChatMemoryAdvisor.before`: `get()`, then memory + prompt
    /// (unless the prompt already holds the memory as a contiguous run), the
    /// first system message moved to the front; then the last user-or-tool
    /// message is stored with `add(conversationId, message)`.
    fn before(&mut self, prompt: Vec<Message>) -> Vec<Message> {
        let mut processed = if self.already_in(&prompt) {
            prompt
        } else {
            let mut v = self.messages.clone();
            v.extend(prompt);
            v
        };
        if let Some(i) = processed
            .iter()
            .position(|m| matches!(m, Message::System { .. }))
        {
            let s = processed.remove(i);
            processed.insert(0, s);
        }
        // Prompt.getLastUserOrToolResponseMessage(): an empty user message
        // when the prompt has neither.
        let last = processed
            .iter()
            .rev()
            .find(|m| matches!(m, Message::User { .. } | Message::Tool { .. }))
            .cloned()
            .unwrap_or_else(|| Message::user(""));
        self.add(vec![last]);
        processed
    }

    /// `isMemoryAlreadyInPrompt`: the memory is a contiguous run of the
    /// prompt, by `Message.equals`. `AbstractMessage.equals` compares the
    /// metadata maps, and Gemini's `thoughtSignatures` is a list of `byte[]`,
    /// equal only to itself: a message given as `memory_start` carrying them
    /// is a separate object from any message of the request, so never equal
    /// to one. (Messages stored during the turn are the request's own
    /// objects, so value equality is identity there.)
    fn already_in(&self, prompt: &[Message]) -> bool {
        let mem = &self.messages;
        let equal = |(m, start): (&Message, &bool), p: &Message| {
            !(*start && has_byte_metadata(m)) && m == p
        };
        mem.is_empty()
            || (prompt.len() >= mem.len()
                && prompt.windows(mem.len()).any(|w| {
                    mem.iter()
                        .zip(&self.from_start)
                        .zip(w)
                        .all(|(ms, p)| equal(ms, p))
                }))
    }

    /// `MessageChatMemoryAdvisor.after`: every generation's message, in one
    /// `add(conversationId, messages)`. With `store-answered-generation`, a
    /// reply with tool calls stores only the generation the manager answers
    /// (`DefaultToolCallingManager`: the first with tool calls).
    fn after(&mut self, generations: &[Generation]) {
        if self.fixes.store_answered_generation {
            if let Some(m) = tool_call_message(generations) {
                self.add(vec![m]);
                return;
            }
        }
        self.add(generations.iter().map(Generation::to_message).collect());
    }

    /// `after` for generations the loop produced (`buildGeneration()`,
    /// returnDirect): their metadata is the generation's, not the message's,
    /// so the stored `AssistantMessage` carries the text alone.
    fn after_produced(&mut self, generations: &[Generation]) {
        self.add(
            generations
                .iter()
                .map(|g| Message::Assistant {
                    text: g.text.clone(),
                    tool_calls: vec![],
                    metadata: Default::default(),
                })
                .collect(),
        );
    }
}

fn verdict_of(build: Result<Request, JavaException>, opts: ValidatorOptions) -> Result<(), String> {
    match build {
        Ok(r) => validate(&r, opts),
        Err(e) => Err(e.to_string()),
    }
}

/// What `MessageChatMemoryAdvisor.before` sends on for `prompt`, from a
/// memory holding `cfg.memory_start` (whatever the memory's placement): the
/// memory's messages, then the prompt's (unless the prompt already holds
/// the memory as one contiguous run), the first system message moved to
/// the front. With the memory outside the loop, this is the turn history
/// the loop starts from.
///
/// ```
/// use toolcall_model::{model::message::Message, chat::tool_loop::{with_memory, LoopConfig}};
/// let cfg = LoopConfig { memory_start: vec![Message::user("u0")], ..LoopConfig::default() };
/// assert_eq!(with_memory(&cfg, vec![Message::user("u1")]), vec![Message::user("u0"), Message::user("u1")]);
/// ```
pub fn with_memory(cfg: &LoopConfig, prompt: Vec<Message>) -> Vec<Message> {
    ChatMemory::new(cfg).before(prompt)
}

/// Runs one user turn through the tool loop.
///
/// `history` is the request's messages, `model` the scripted replies (one
/// generation list per model call), `toolbox` the tools.
///
/// ```
/// use toolcall_model::{model::message::{Generation, Message, ToolCall}, chat::tool_loop::*, model::tools::{Toolbox, ToolSpec}};
/// let mut tb = Toolbox::new(vec![ToolSpec::returning("x", "\"sunny\"")]);
/// let model = vec![
///     vec![Generation { tool_calls: vec![ToolCall::new("1", "x", "{}")], ..Default::default() }],
///     vec![Generation { text: Some("done".into()), ..Default::default() }],
/// ];
/// let run = run_loop(&LoopConfig::new(Default::default()), vec![Message::user("hi")], &model, &mut tb).unwrap();
/// assert_eq!(run.kind, EndKind::Completed);
/// assert_eq!(run.requests.len(), 2);
/// ```
pub fn run_loop(
    cfg: &LoopConfig,
    history: Vec<Message>,
    model: &[Vec<Generation>],
    toolbox: &mut Toolbox,
) -> Result<LoopRun, LoopError> {
    let fixes = cfg.fixes();
    let mut outside = ChatMemory::new(cfg);
    let mut inside = ChatMemory::new(cfg);
    // DefaultChatClientUtils.toChatClientRequest validates the request's
    // tool callbacks before any advisor runs
    // (ToolCallingChatOptions.validateToolCallbacks).
    let duplicates = crate::model::tools::duplicate_request_names(toolbox.tools());
    let refused = (!duplicates.is_empty()).then(|| {
        JavaException::new(
            crate::model::java::ILLEGAL_STATE,
            Some(&format!(
                "Multiple tools with the same name ({}) found in ToolCallingChatOptions",
                duplicates.join(", ")
            )),
        )
    });
    let history = match cfg.memory {
        Memory::Outside if refused.is_none() => outside.before(history),
        _ => history,
    };
    let mut counts = Counts::recount(&history);
    let mut full = history;
    // Some(trimmed) only when conversation history is off.
    let mut trimmed: Option<Vec<Message>> = None;
    let mut requests = Vec::new();
    let mut verdicts = Vec::new();
    let mut call = 0usize;
    // Whether each prompt is the turn history unchanged, so that requests
    // can be built incrementally (no trimming, no rewriting advisor, no
    // memory merging inside the loop).
    let reuse = cfg.provider == Provider::Gemini
        && cfg.conversation_history
        && !cfg.gemini_tool_text
        && cfg.memory != Memory::Inside;
    let mut incremental = IncrementalRequests::default();
    let mut accepted_len = 0usize;
    let (kind, generations, error) = loop {
        if let Some(e) = &refused {
            break (EndKind::Error, vec![], Some(e.clone()));
        }
        if call >= cfg.max_rounds {
            return Err(LoopError::TooManyRounds(cfg.max_rounds));
        }
        // Prompt.getSystemMessage() of the loop's own prompt, before the
        // nested advisors touch it; an empty one if there is none. Only the
        // trimmed next-round prompt (history off) needs it.
        let mut system = None;
        if reuse {
            // The prompt is the turn history itself, which only grows:
            // convert just the new messages.
            match incremental.build(&full, fixes) {
                Ok(r) => {
                    // This request extends the last one; if that one was
                    // accepted, only its last content and the new ones can
                    // break a rule.
                    let verdict = match verdicts.last() {
                        Some(Ok(())) => {
                            validate_from(&r, accepted_len.saturating_sub(1), cfg.validator)
                        }
                        _ => validate(&r, cfg.validator),
                    };
                    accepted_len = r.contents.len();
                    verdicts.push(verdict);
                    requests.push(Sent::Gemini(r));
                }
                Err(e) => break (EndKind::Error, vec![], Some(e)),
            }
        } else {
            let mut instructions = trimmed.clone().unwrap_or_else(|| full.clone());
            system = Some(
                instructions
                    .iter()
                    .find(|m| matches!(m, Message::System { .. }))
                    .cloned()
                    .unwrap_or(Message::System {
                        text: Some(String::new()),
                    }),
            );
            if cfg.gemini_tool_text {
                if let Err(e) = gemini_tool_text(&mut instructions) {
                    break (EndKind::Error, vec![], Some(e));
                }
            }
            if cfg.memory == Memory::Inside {
                instructions = inside.before(instructions);
            }
            match cfg.provider {
                Provider::Gemini => match build_request(&instructions, fixes) {
                    Ok(r) => {
                        verdicts.push(validate(&r, cfg.validator));
                        requests.push(Sent::Gemini(r));
                    }
                    Err(e) => break (EndKind::Error, vec![], Some(e)),
                },
                Provider::None => requests.push(Sent::Messages(instructions)),
            }
        }
        let Some(reply) = model.get(call) else {
            return Err(LoopError::ScriptExhausted {
                call: call + 1,
                len: model.len(),
            });
        };
        call += 1;
        if cfg.memory == Memory::Inside {
            inside.after(reply);
        }
        if reply.iter().all(|g| g.tool_calls.is_empty()) {
            break (EndKind::Completed, reply.clone(), None);
        }
        let turn = std::mem::take(&mut full);
        match execute_with_counts(
            &cfg.manager,
            turn,
            reply,
            // A failing batch ends the turn without handing its counts back;
            // the clone (one entry per tool name) keeps the last good ones.
            counts.clone(),
            toolbox,
        ) {
            Err(ManagerError::LimitExceeded(e)) => {
                counts = e.counts.clone();
                if fixes.close_dangling_calls && cfg.memory == Memory::Inside {
                    if let Some(m) = e.partial.history.last() {
                        inside.add(vec![m.clone()]);
                    }
                }
                break (EndKind::LimitExceeded, vec![e.build_generation()], None);
            }
            Err(e) => {
                if fixes.close_dangling_calls && cfg.memory == Memory::Inside {
                    // The batch failed, yet the inside memory already holds
                    // the calls: answer each so the transcript stays paired.
                    if let Some(calls) = tool_call_message(reply) {
                        inside.add(vec![Message::Tool {
                            responses: calls
                                .tool_calls()
                                .iter()
                                .map(|c| ToolResponse {
                                    id: c.id.clone(),
                                    name: c.name.clone(),
                                    data: NOT_EXECUTED_FAILED.to_owned(),
                                    error: true,
                                })
                                .collect(),
                        }]);
                    }
                }
                break (EndKind::Error, vec![], Some(e.java()));
            }
            Ok((result, after)) => {
                counts = after;
                if result.return_direct {
                    if fixes.close_dangling_calls && cfg.memory == Memory::Inside {
                        if let Some(m) = result.history.last() {
                            inside.add(vec![m.clone()]);
                        }
                    }
                    break (EndKind::ReturnDirect, result.build_generations(), None);
                }
                full = result.history;
                if !cfg.conversation_history {
                    // doGetNextInstructionsForToolCall: the prompt's system
                    // message (an empty one if none) and the last message.
                    let last = full.last().cloned();
                    trimmed = Some(system.into_iter().chain(last).collect());
                }
            }
        }
    };
    if cfg.memory == Memory::Outside && error.is_none() {
        match kind {
            EndKind::Completed => outside.after(&generations),
            _ => outside.after_produced(&generations),
        }
    }
    let memory = match cfg.memory {
        Memory::None => vec![],
        Memory::Inside => inside.messages,
        Memory::Outside => outside.messages,
    };
    let mut next = memory.clone();
    next.push(Message::user("next question"));
    let memory_verdict = verdict_of(build_request(&next, fixes), cfg.validator);
    Ok(LoopRun {
        kind,
        generations,
        error,
        requests,
        verdicts,
        memory,
        memory_verdict,
        counts,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn a(t: &str) -> Message {
        Message::assistant(Some(t), vec![])
    }

    fn sys(t: &str) -> Message {
        Message::System {
            text: Some(t.to_owned()),
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
            Message::Tool { responses: vec![] },
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
            responses: vec![ToolResponse::new(id, "x", "1")],
        }
    }

    #[test]
    fn keep_current_turn_evicts_earlier_turns_whole_and_keeps_the_current_one() {
        use crate::model::behavior::Fix;
        let keep = Fixes::only(Fix::KeepCurrentTurn);
        let mem = vec![
            sys("s"),
            Message::user("u0"),
            a("a0"),
            Message::user("u1"),
            call("1"),
            resp("1"),
        ];
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
        let mem = vec![
            Message::user("u0"),
            a("a0"),
            Message::user("u1"),
            call("1"),
            resp("1"),
        ];
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
