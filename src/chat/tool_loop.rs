//! The tool loop of `ToolCallingAdvisor.adviseCall` (blocking path), with a
//! scripted model, chat memory inside or outside the loop
//! (`MessageChatMemoryAdvisor` over a `MessageWindowChatMemory`, whose
//! window is [`super::memory::message_window`]), and the seed's workaround advisor
//! ([`super::advisor`]).
//!
//! The advisor chain inside the loop is, outermost first:
//! `ToolCallingAdvisor` → `GeminiToolTextAdvisor` (if on) → memory (if
//! inside) → the chat model. The loop keeps the turn's tool-call counts
//! incrementally from round to round instead of recounting the history.

use std::num::NonZeroU32;
use std::sync::Arc;

use serde_json::Value;

use super::advisor::gemini_tool_text;
use super::memory::{ChatMemory, DEFAULT_MEMORY_MAX_MESSAGES};
use crate::gemini::{
    build_request, validate, validate_from, verdict, IncrementalRequests, Refusal, Rejection,
    Request, ValidatorOptions,
};
use crate::model::behavior::Fixes;
use crate::model::java::{JavaException, TOOL_CALL_LIMIT_EXCEEDED};
use crate::model::limits::Counts;
use crate::model::manager::{
    execute_with_counts, limit_generation, tool_call_message, Config, ManagerError,
    NOT_EXECUTED_FAILED,
};
use crate::model::message::{Generation, Message, ToolResponse};
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

/// A request as sent to the provider. Each round's request repeats the
/// turn so far, so the messages and contents are shared between rounds
/// (`Arc`): the record of a loop grows with the rounds times the pointers,
/// not with the square of the messages.
#[derive(Debug, Clone, PartialEq)]
pub enum Sent {
    /// A Gemini request.
    Gemini(Request),
    /// The messages, for provider `none`.
    Messages(Vec<Arc<Message>>),
}

impl Sent {
    /// The vector shape.
    pub fn to_value(&self) -> Value {
        match self {
            Sent::Gemini(r) => r.to_value(),
            Sent::Messages(m) => Value::Array(
                m.iter()
                    .map(|m| serde_json::to_value(&**m).unwrap_or(Value::Null))
                    .collect(),
            ),
        }
    }
}

/// The messages of the last request sent, shared: the next request takes
/// the same `Arc` for each message equal to the one at its place.
#[derive(Default)]
struct SharedMessages(Vec<Arc<Message>>);

impl SharedMessages {
    fn share(&mut self, messages: &[Message]) -> Vec<Arc<Message>> {
        let shared: Vec<Arc<Message>> = messages
            .iter()
            .enumerate()
            .map(|(i, m)| match self.0.get(i) {
                Some(old) if **old == *m => Arc::clone(old),
                _ => Arc::new(m.clone()),
            })
            .collect();
        self.0.clone_from(&shared);
        shared
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
    pub verdicts: Vec<Result<(), Rejection>>,
    /// The transcript the memory holds at the end.
    pub memory: Vec<Message>,
    /// The verdict on a request built from the memory plus one new user
    /// message (`CLASS: MESSAGE` if it cannot be built).
    pub memory_verdict: Result<(), Refusal>,
    /// The turn's tool-call counts at the end: after the last batch that
    /// finished or breached a limit (the breached call counts); a batch that
    /// failed with an exception leaves the counts from before it.
    pub counts: Counts,
    /// Whether a memory's window (`memory_max_messages`) cut anything during
    /// the turn; when not, the same turn with any larger window runs the
    /// same.
    pub windowed: bool,
}

impl LoopRun {
    /// Accepted if every request was, else the first rejection.
    pub fn api(&self) -> Result<(), Rejection> {
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
    ChatMemory::new(&cfg.memory_start, cfg.memory_max_messages, cfg.fixes()).before(prompt)
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
    run_recording(cfg, history, model, toolbox, None)
}

/// As [`run_loop`], also returning the message list each model call
/// received (after the advisors and the memory): what the requests of the
/// same turn run with provider `none` hold. `None` when a Gemini
/// conversion failed and ended the turn, where a provider-`none` run goes
/// on.
///
/// ```
/// use toolcall_model::{model::message::{Generation, Message}, chat::tool_loop::*, model::tools::Toolbox};
/// let model = vec![vec![Generation { text: Some("done".into()), ..Default::default() }]];
/// let (run, messages) = run_loop_with_messages(&LoopConfig::default(), vec![Message::user("hi")], &model, &mut Toolbox::new(vec![])).unwrap();
/// assert_eq!(run.requests.len(), 1);
/// assert_eq!(messages, Some(vec![vec![Message::user("hi")]]));
/// ```
pub fn run_loop_with_messages(
    cfg: &LoopConfig,
    history: Vec<Message>,
    model: &[Vec<Generation>],
    toolbox: &mut Toolbox,
) -> Result<(LoopRun, Option<RequestMessages>), LoopError> {
    let mut rec = Recorded::default();
    let run = run_recording(cfg, history, model, toolbox, Some(&mut rec))?;
    Ok((run, (!rec.conversion_failed).then_some(rec.messages)))
}

/// The message list of each request of a turn, in order.
pub type RequestMessages = Vec<Vec<Message>>;

#[derive(Default)]
struct Recorded {
    messages: Vec<Vec<Message>>,
    conversion_failed: bool,
}

fn run_recording(
    cfg: &LoopConfig,
    history: Vec<Message>,
    model: &[Vec<Generation>],
    toolbox: &mut Toolbox,
    mut rec: Option<&mut Recorded>,
) -> Result<LoopRun, LoopError> {
    let fixes = cfg.fixes();
    let mut outside = ChatMemory::new(&cfg.memory_start, cfg.memory_max_messages, cfg.fixes());
    let mut inside = ChatMemory::new(&cfg.memory_start, cfg.memory_max_messages, cfg.fixes());
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
    let mut shared = SharedMessages::default();
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
            if let Some(r) = rec.as_deref_mut() {
                r.messages.push(full.clone());
            }
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
                Err(e) => {
                    if let Some(r) = rec.as_deref_mut() {
                        r.conversion_failed = true;
                    }
                    break (EndKind::Error, vec![], Some(e));
                }
            }
        } else {
            // Copied only where an advisor changes it: a loop of n rounds
            // would copy the turn n times.
            let mut instructions: std::borrow::Cow<'_, [Message]> =
                std::borrow::Cow::Borrowed(trimmed.as_deref().unwrap_or(&full));
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
                if let Err(e) = gemini_tool_text(instructions.to_mut()) {
                    break (EndKind::Error, vec![], Some(e));
                }
            }
            if cfg.memory == Memory::Inside {
                instructions = std::borrow::Cow::Owned(inside.before(instructions.into_owned()));
            }
            if let Some(r) = rec.as_deref_mut() {
                r.messages.push(instructions.to_vec());
            }
            match cfg.provider {
                Provider::Gemini => match build_request(&instructions, fixes) {
                    Ok(r) => {
                        verdicts.push(validate(&r, cfg.validator));
                        requests.push(Sent::Gemini(r));
                    }
                    Err(e) => {
                        if let Some(r) = rec.as_deref_mut() {
                            r.conversion_failed = true;
                        }
                        break (EndKind::Error, vec![], Some(e));
                    }
                },
                Provider::None => requests.push(Sent::Messages(shared.share(&instructions))),
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
                // ToolCallingAdvisor catches any ToolCallLimitExceededException:
                // the breach's cause, rethrown by the processor under
                // breach-through-processor, ends the turn as a breach, built
                // from its message (its partial result holds no responses).
                let caught = match &e {
                    ManagerError::Java(j) if j.class == TOOL_CALL_LIMIT_EXCEEDED => {
                        Some(limit_generation(j.message.clone().unwrap_or_default(), &[]))
                    }
                    _ => None,
                };
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
                match caught {
                    Some(g) => break (EndKind::LimitExceeded, vec![g], None),
                    None => break (EndKind::Error, vec![], Some(e.java())),
                }
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
    let windowed = inside.windowed || outside.windowed;
    let memory = match cfg.memory {
        Memory::None => vec![],
        Memory::Inside => inside.messages,
        Memory::Outside => outside.messages,
    };
    let mut next = memory.clone();
    next.push(Message::user("next question"));
    let memory_verdict = verdict(build_request(&next, fixes), cfg.validator);
    Ok(LoopRun {
        kind,
        generations,
        error,
        requests,
        verdicts,
        memory,
        memory_verdict,
        counts,
        windowed,
    })
}
