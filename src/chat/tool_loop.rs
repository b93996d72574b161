//! The tool loop of `ToolCallingAdvisor.adviseCall` (blocking path) and,
//! on the same steps, of `adviseStream` ([`super::stream`]), with a
//! scripted model, chat memory inside or outside the loop
//! (`MessageChatMemoryAdvisor` over a `MessageWindowChatMemory`, whose
//! window is [`super::memory::message_window`]), and the seed's workaround advisor
//! ([`super::advisor`]).
//!
//! The advisor chain inside the loop is, outermost first:
//! `ToolCallingAdvisor` → `GeminiToolTextAdvisor` (if on) → memory (if
//! inside) → the chat model. The loop keeps the turn's tool-call counts
//! incrementally from round to round instead of recounting the history.
//!
//! The loop is a pure step machine: a [`Turn`] is its state between model
//! calls, [`Turn::ask`] builds the next request and [`Asking::answer`] takes
//! one reply; [`run_loop`] drives it over a script. The state is `Clone`
//! and the toolbox is passed to each step, so that other drivers can share
//! it: a streaming loop (`ToolCallingAdvisor.adviseStream`) answers with the
//! aggregate of a reply's chunks, and a checker that shares scenario
//! prefixes continues clones of the state after round `k` (with clones of
//! the toolbox) with different next replies (see [`Turn`]).

use std::borrow::Cow;
use std::num::NonZeroU32;
use std::sync::Arc;

use serde_json::Value;

use super::advisor::{advisor_rewrites, gemini_tool_text};
use super::memory::{ChatMemory, DEFAULT_MEMORY_MAX_MESSAGES};
use super::stream::{aggregate, aggregate_chunks, reaches_client, Chunks, Script, Split};
use crate::gemini::{
    build_request, build_request_reusing, validate, validate_from, verdict, IncrementalRequests,
    Refusal, Rejection, Request, ValidatorOptions,
};
use crate::model::behavior::Fixes;
use crate::model::java::{
    JavaException, ILLEGAL_ARGUMENT, ILLEGAL_STATE, TOOL_CALL_LIMIT_EXCEEDED,
};
use crate::model::limits::Counts;
use crate::model::manager::{
    execute_with_counts, limit_generation, tool_call_message, Config, ExecResult, LimitExceeded,
    ManagerError, NOT_EXECUTED_FAILED,
};
use crate::model::message::{Generation, Message, ToolResponse};
use crate::model::tools::{duplicate_request_names, ToolSpec, Toolbox};

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
    /// At most this many model calls: a guard, reaching it is a fault of
    /// the scenario ([`LoopError::TooManyRounds`]), not an outcome.
    pub max_rounds: usize,
    /// The scripted model, once its script is used up, repeats its last
    /// reply for every further call instead of running out (a model that
    /// never stops calling tools). A property of the script, not of Spring:
    /// the Java runner's scripted model does the same. An empty script
    /// still runs out at the first call.
    pub repeat_last: bool,
    /// The memory's window: `MessageWindowChatMemory.builder().maxMessages(n)`
    /// (default 20; the builder refuses anything not > 0).
    pub memory_max_messages: NonZeroU32,
    /// What the memory's `InMemoryChatMemoryRepository` holds for the
    /// conversation before the turn (stored as is, as `saveAll` does; the
    /// window applies from the first `add`).
    pub memory_start: Vec<Message>,
    /// Whether the turn streams (`ChatClient.stream()`), and how the
    /// scripted model cuts each reply of a [`run_loop`] script into chunks;
    /// `None` for `call()`. A script of chunks ([`run_script`]) streams
    /// whatever this says.
    pub stream: Option<Split>,
    /// Whether the application's `ToolCallingAdvisor` appends
    /// [`TOOL_FEEDBACK`] to the next instructions after each tool round
    /// (docs/BEHAVIOUR.md section 6.4, spring-ai issue 6842).
    pub tool_feedback: bool,
}

/// The user message the `tool-feedback` advisor appends after each tool
/// round.
pub const TOOL_FEEDBACK: &str = "tool feedback";

/// The message of the `IllegalArgumentException` a memory outside the loop
/// throws at the end of a streamed turn whose client received nothing
/// (`BaseChatMemoryAdvisor.getConversationId` on an empty context).
///
/// ```
/// use toolcall_model::{chat::{run_script, EndKind, LoopConfig, Memory, Script, NULL_CONVERSATION_ID},
///     model::{Generation, Message, ToolCall, Toolbox}};
/// let text = Generation { text: Some("g0".into()), ..Default::default() };
/// let call = Generation { tool_calls: vec![ToolCall::new("1", "x", "{}")].into(), ..Default::default() };
/// // One chunk, hidden from the client: its second generation holds a call.
/// let script = Script::Streamed(vec![vec![vec![text, call]]]);
/// let cfg = LoopConfig { memory: Memory::Outside, ..LoopConfig::default() };
/// let run = run_script(&cfg, vec![Message::user("u")], &script, &mut Toolbox::new(vec![])).unwrap();
/// assert_eq!(run.kind, EndKind::Error);
/// assert_eq!(run.error.unwrap().message.as_deref(), Some(NULL_CONVERSATION_ID));
/// assert_eq!(run.memory, vec![Message::user("u")]);
/// ```
pub const NULL_CONVERSATION_ID: &str = "conversationId cannot be null";

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
    /// let c = toolcall_model::chat::LoopConfig::new(Default::default());
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
            repeat_last: false,
            memory_max_messages: DEFAULT_MEMORY_MAX_MESSAGES,
            memory_start: Vec::new(),
            stream: None,
            tool_feedback: false,
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

/// The messages of a provider-`none` request, sharing those of the last
/// request sent (`last`): the same `Arc` for each message equal to the one
/// at its place.
fn share_messages(last: Option<&Sent>, messages: &[Message]) -> Vec<Arc<Message>> {
    let last = match last {
        Some(Sent::Messages(m)) => &m[..],
        _ => &[],
    };
    messages
        .iter()
        .enumerate()
        .map(|(i, m)| match last.get(i) {
            Some(old) if **old == *m => Arc::clone(old),
            _ => Arc::new(m.clone()),
        })
        .collect()
}

/// What a loop run produced.
#[derive(Debug, Clone)]
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
    /// What the request built from the memory is converted and validated
    /// with ([`LoopRun::memory_verdict`]): judged on demand, since a turn's
    /// checkers mostly do not ask.
    next_request: (Fixes, ValidatorOptions),
    /// The turn's tool-call counts at the end: after the last batch that
    /// finished or breached a limit (the breached call counts); a batch that
    /// failed with an exception leaves the counts from before it.
    pub counts: Counts,
    /// Whether a memory's window (`memory_max_messages`) cut anything during
    /// the turn; when not, the same turn with any larger window runs the
    /// same.
    pub windowed: bool,
    /// For a streamed turn, every response the client received, in order
    /// (each its generations): the model's chunks without a tool call, then
    /// the response the loop built on a breach or `returnDirect`. `None`
    /// for `call()`.
    pub streamed: Option<Vec<Vec<Generation>>>,
}

/// Runs are equal when what they produced is: the memory's next-turn
/// verdict compares as a verdict, whatever fixes gave it.
impl PartialEq for LoopRun {
    fn eq(&self, other: &Self) -> bool {
        // Destructured so that a new field cannot be left out.
        let LoopRun {
            kind,
            generations,
            error,
            requests,
            verdicts,
            memory,
            next_request,
            counts,
            windowed,
            streamed,
        } = self;
        *kind == other.kind
            && *generations == other.generations
            && *error == other.error
            && *requests == other.requests
            && *verdicts == other.verdicts
            && *memory == other.memory
            && *counts == other.counts
            && *windowed == other.windowed
            && *streamed == other.streamed
            && (*next_request == other.next_request
                || self.memory_verdict() == other.memory_verdict())
    }
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

    /// The verdict on a Gemini request built from the memory plus one new
    /// user message (`CLASS: MESSAGE` if it cannot be built), under the
    /// run's fixes and validator.
    ///
    /// ```
    /// use toolcall_model::{chat::*, model::{Generation, Message, Toolbox}};
    /// let cfg = LoopConfig { memory: Memory::Outside, ..LoopConfig::default() };
    /// let model = vec![vec![Generation { text: Some("done".into()), ..Default::default() }]];
    /// let run = run_loop(&cfg, vec![Message::user("hi")], &model, &mut Toolbox::new(vec![])).unwrap();
    /// assert_eq!(run.memory.len(), 2);
    /// assert_eq!(run.memory_verdict(), Ok(()));
    /// ```
    pub fn memory_verdict(&self) -> Result<(), Refusal> {
        let (fixes, validator) = self.next_request;
        let mut next = self.memory.clone();
        next.push(Message::user("next question"));
        verdict(build_request(&next, fixes), validator)
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
/// use toolcall_model::{model::Message, chat::{with_memory, LoopConfig}};
/// let cfg = LoopConfig { memory_start: vec![Message::user("u0")], ..LoopConfig::default() };
/// assert_eq!(with_memory(&cfg, vec![Message::user("u1")]), vec![Message::user("u0"), Message::user("u1")]);
/// ```
pub fn with_memory(cfg: &LoopConfig, prompt: Vec<Message>) -> Vec<Message> {
    ChatMemory::new(&cfg.memory_start, cfg.memory_max_messages, cfg.fixes())
        .before(prompt)
        .into_owned()
}

/// Runs one user turn through the tool loop: a thin driver over [`Turn`],
/// taking the replies from a script.
///
/// `history` is the request's messages, `model` the scripted replies (one
/// generation list per model call), `toolbox` the tools.
///
/// ```
/// use toolcall_model::{model::{Generation, Message, ToolCall}, chat::*, model::{Toolbox, ToolSpec}};
/// let mut tb = Toolbox::new(vec![ToolSpec::returning("x", "\"sunny\"")]);
/// let model = vec![
///     vec![Generation { tool_calls: vec![ToolCall::new("1", "x", "{}")].into(), ..Default::default() }],
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
    drive(cfg, history, Replies::of(cfg, model), toolbox, |_| {}).map(|(run, _)| run)
}

/// As [`run_loop`] over a script of either kind: a script of chunks
/// streams (`ChatClient.stream()`), a script of replies streams only when
/// `cfg.stream` says how to cut them.
///
/// ```
/// use toolcall_model::{chat::{Script, *}, model::{Generation, Message, ToolCall, Toolbox, ToolSpec}};
/// let text = |t: &str| Generation { text: Some(t.into()), ..Default::default() };
/// let call = Generation { tool_calls: vec![ToolCall::new("1", "x", "{}")].into(), ..Default::default() };
/// // A round of text then a call, then an answer in two chunks.
/// let script = Script::Streamed(vec![vec![vec![text("Let me check")], vec![call]], vec![vec![text("It is ")], vec![text("sunny")]]]);
/// let mut tb = Toolbox::new(vec![ToolSpec::returning("x", "\"sunny\"")]);
/// let run = run_script(&LoopConfig::default(), vec![Message::user("u")], &script, &mut tb).unwrap();
/// assert_eq!(run.streamed.unwrap().len(), 3);
/// ```
pub fn run_script(
    cfg: &LoopConfig,
    history: Vec<Message>,
    script: &Script,
    toolbox: &mut Toolbox,
) -> Result<LoopRun, LoopError> {
    let replies = match script {
        Script::Replies(model) => Replies::of(cfg, model),
        Script::Streamed(chunks) => Replies::Chunked(chunks),
    };
    drive(cfg, history, replies, toolbox, |_| {}).map(|(run, _)| run)
}

/// The replies a driver hands the step machine, call after call.
#[derive(Clone, Copy)]
enum Replies<'m> {
    /// `call()`.
    Whole(&'m [Vec<Generation>]),
    /// `stream()` over replies cut by a [`Split`].
    Split(&'m [Vec<Generation>], Split),
    /// `stream()` over chunks.
    Chunked(&'m [Chunks]),
}

impl<'m> Replies<'m> {
    fn of(cfg: &LoopConfig, model: &'m [Vec<Generation>]) -> Self {
        match cfg.stream {
            Some(split) => Replies::Split(model, split),
            None => Replies::Whole(model),
        }
    }

    fn len(&self) -> usize {
        match self {
            Replies::Whole(m) | Replies::Split(m, _) => m.len(),
            Replies::Chunked(c) => c.len(),
        }
    }

    fn streams(&self) -> bool {
        !matches!(self, Replies::Whole(_))
    }

    /// Answers `asking` with reply `i`, if the script has one.
    fn answer<'c>(
        &self,
        i: usize,
        asking: Asking<'c>,
        toolbox: &mut Toolbox,
    ) -> Option<Answer<'c>> {
        Some(match self {
            Replies::Whole(m) => asking.answer(m.get(i)?, toolbox),
            Replies::Split(m, split) => asking.answer_chunks(&split.chunks(m.get(i)?), toolbox),
            Replies::Chunked(c) => asking.answer_chunks(c.get(i)?, toolbox),
        })
    }
}

/// As [`run_loop`], also returning the message list each model call
/// received (after the advisors and the memory): what the requests of the
/// same turn run with provider `none` hold, up to the one whose Gemini
/// conversion failed and ended the turn, where a provider-`none` run goes
/// on.
///
/// ```
/// use toolcall_model::{model::{Generation, Message}, chat::*, model::Toolbox};
/// let model = vec![vec![Generation { text: Some("done".into()), ..Default::default() }]];
/// let (run, messages) = run_loop_with_messages(&LoopConfig::default(), vec![Message::user("hi")], &model, &mut Toolbox::new(vec![])).unwrap();
/// assert_eq!(run.requests.len(), 1);
/// assert_eq!(messages.attempted, vec![vec![Message::user("hi")]]);
/// assert!(!messages.unconverted);
/// ```
pub fn run_loop_with_messages(
    cfg: &LoopConfig,
    history: Vec<Message>,
    model: &[Vec<Generation>],
    toolbox: &mut Toolbox,
) -> Result<(LoopRun, RequestMessages), LoopError> {
    let mut attempted = Vec::new();
    let (run, unconverted) = drive(cfg, history, Replies::of(cfg, model), toolbox, |m| {
        attempted.push(m.to_vec())
    })?;
    let failed = unconverted.is_some();
    attempted.extend(unconverted);
    Ok((
        run,
        RequestMessages {
            attempted,
            unconverted: failed,
        },
    ))
}

/// The message list of each request a turn tried to send, in order.
///
/// ```
/// use toolcall_model::{model::{Generation, Message, ToolCall}, chat::*, model::{Toolbox, ToolSpec}};
/// // Plain text from a tool: upstream's Gemini conversion throws on the second request.
/// let mut tb = Toolbox::new(vec![ToolSpec::returning("x", "disk full")]);
/// let model = vec![vec![Generation { tool_calls: vec![ToolCall::new("1", "x", "{}")].into(), ..Default::default() }]];
/// let (run, messages) = run_loop_with_messages(&LoopConfig::default(), vec![Message::user("hi")], &model, &mut tb).unwrap();
/// assert_eq!((run.requests.len(), messages.attempted.len()), (1, 2));
/// assert!(messages.unconverted);
/// assert_eq!(messages.sent().len(), 1);
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RequestMessages {
    /// One list per model call, then, when a Gemini conversion ended the
    /// turn, the list whose conversion threw.
    pub attempted: Vec<Vec<Message>>,
    /// Whether the last of `attempted` failed to convert and was never sent.
    pub unconverted: bool,
}

impl RequestMessages {
    /// The lists of the requests sent: one per model call.
    pub fn sent(&self) -> &[Vec<Message>] {
        let n = self
            .attempted
            .len()
            .saturating_sub(usize::from(self.unconverted));
        &self.attempted[..n]
    }
}

/// The loop over a script: each request's messages go to `seen`; when a
/// Gemini conversion ended the turn, the messages it failed on come back
/// with the run.
fn drive(
    cfg: &LoopConfig,
    history: Vec<Message>,
    model: Replies<'_>,
    toolbox: &mut Toolbox,
    mut seen: impl FnMut(&[Message]),
) -> Result<(LoopRun, Option<Vec<Message>>), LoopError> {
    let mut turn = Turn::new(cfg, history, toolbox.tools());
    if model.streams() {
        turn = turn.streaming();
    }
    loop {
        let done = turn.calls();
        let asking = match turn.ask()? {
            Ask::Model(asking) => asking,
            Ask::End(run) => return Ok((run, None)),
            Ask::Unconverted(run, messages) => return Ok((run, Some(messages))),
        };
        seen(asking.messages());
        // A repeating model answers every call past its script with its
        // last reply; an empty script still runs out at the first call.
        let reply = match done.checked_sub(model.len()) {
            Some(_) if cfg.repeat_last && model.len() > 0 => model.len() - 1,
            _ => done,
        };
        let Some(answer) = model.answer(reply, asking, toolbox) else {
            return Err(LoopError::ScriptExhausted {
                call: done + 1,
                len: model.len(),
            });
        };
        turn = match answer {
            Answer::Next(next) => next,
            Answer::End(run) => return Ok((run, None)),
        };
    }
}

/// One user turn through the tool loop, between two model calls: the pure
/// state of `ToolCallingAdvisor.adviseCall`'s loop, in the mould of the
/// manager's [`Batch`](crate::model::Batch).
///
/// Each round is two steps that consume the state: [`Turn::ask`] builds
/// the next request (what the chat model receives, and the Gemini verdict
/// on it) or ends the turn before the call; [`Asking::answer`] takes the
/// model's reply and the toolbox, runs the batch of tool calls, and either
/// goes on to the next round or ends the turn with its [`LoopRun`].
/// [`run_loop`] and [`run_loop_with_messages`] are thin drivers over a
/// script.
///
/// Everything a round depends on is in the state or passed in: the memories,
/// the turn's tool-call counts, the requests and verdicts so far, and the
/// incremental Gemini request builder with what the validator already
/// accepted; the toolbox, whose tools may answer differently call after
/// call, is the caller's and passed to each answer. So:
///
/// * a streaming loop (`ToolCallingAdvisor.adviseStream`) holds the
///   [`Asking`] while a reply's chunks arrive, aggregates them into the
///   reply's generations, and answers with those: tool execution and the
///   next round are the same steps;
/// * a checker that shares scenario prefixes clones the state after round
///   `k` (a [`Turn`], or the [`Asking`] with round `k + 1`'s request
///   already built) together with the toolbox, and continues each clone
///   with a different next reply: the state after `k` rounds is the same
///   for every scenario sharing the first `k` replies.
///
/// ```
/// use toolcall_model::{chat::*, model::{Generation, Message, ToolCall, Toolbox, ToolSpec}};
/// let cfg = LoopConfig::default();
/// let mut tb = Toolbox::new(vec![ToolSpec::returning("x", "1")]);
/// let call = vec![Generation { tool_calls: vec![ToolCall::new("1", "x", "{}")].into(), ..Default::default() }];
/// let Ok(Ask::Model(asking)) = Turn::new(&cfg, vec![Message::user("hi")], tb.tools()).ask() else { panic!() };
/// let Answer::Next(after_one) = asking.answer(&call, &mut tb) else { panic!() };
/// // Two continuations of the same first round.
/// let done = vec![Generation { text: Some("done".into()), ..Default::default() }];
/// let Ok(Ask::Model(a)) = after_one.clone().ask() else { panic!() };
/// let Answer::End(run) = a.answer(&done, &mut tb.clone()) else { panic!() };
/// assert_eq!((run.kind, run.requests.len()), (EndKind::Completed, 2));
/// let Ok(Ask::Model(a)) = after_one.ask() else { panic!() };
/// assert_eq!(a.call(), 2);
/// ```
#[derive(Debug, Clone)]
pub struct Turn<'c> {
    cfg: &'c LoopConfig,
    /// The chat memory, inside or outside the loop as configured (neither
    /// read nor written with [`Memory::None`]).
    memory: ChatMemory,
    /// The turn's tool-call counts, kept from batch to batch rather than
    /// recounted from the history.
    counts: Counts,
    /// The turn history: the request's messages, then each round's call and
    /// responses.
    full: Vec<Message>,
    /// Some(the next prompt) only when conversation history is off.
    trimmed: Option<Vec<Message>>,
    requests: Vec<Sent>,
    verdicts: Vec<Result<(), Rejection>>,
    /// Model calls answered so far.
    calls: usize,
    incremental: IncrementalRequests,
    /// How many contents of the last request the validator accepted.
    accepted_len: usize,
    /// The messages the last Gemini request was built from, if the next
    /// request built whole can share their contents.
    converted: Converted,
    /// The request's tools refused before any advisor ran (boxed: the
    /// state moves at every step, and this is rare).
    refused: Option<Box<JavaException>>,
    /// For a streamed turn, the responses the client received so far.
    streamed: Option<Vec<Vec<Generation>>>,
}

/// The messages the last Gemini request of a turn was built from.
#[derive(Debug, Clone)]
enum Converted {
    /// Unknown, or not a Gemini request.
    None,
    /// The first `n` messages of the turn history.
    History(usize),
    /// A prompt an advisor or the memory inside made.
    Prompt(Vec<Message>),
}

/// What [`Turn::ask`] leads to.
#[derive(Debug, Clone)]
// The model call is the path of every round and the ends happen once a
// turn: boxing the state would allocate once a round.
#[allow(clippy::large_enum_variant)]
pub enum Ask<'c> {
    /// The chat model is called: see the request, then answer it.
    Model(Asking<'c>),
    /// The turn ended before the model call: the request's tools were
    /// refused, or an advisor threw.
    End(LoopRun),
    /// The Gemini conversion of the prompt threw and ended the turn, where
    /// the same turn with provider `none` goes on: the run, and the
    /// messages the chat model would have received.
    Unconverted(LoopRun, Vec<Message>),
}

/// What [`Asking::answer`] leads to.
#[derive(Debug, Clone)]
// As for `Ask`: the next round is the path of every round, boxing it would
// allocate once a round.
#[allow(clippy::large_enum_variant)]
pub enum Answer<'c> {
    /// The batch ran and the loop calls the model again.
    Next(Turn<'c>),
    /// The turn ended.
    End(LoopRun),
}

/// A turn waiting for the model's reply to its request.
///
/// ```
/// use toolcall_model::{chat::*, model::{Message, Toolbox}};
/// let cfg = LoopConfig::default();
/// let Ok(Ask::Model(a)) = Turn::new(&cfg, vec![Message::user("hi")], &[]).ask() else { panic!() };
/// assert_eq!(a.messages(), &[Message::user("hi")]);
/// assert!(matches!(a.request(), Sent::Gemini(_)));
/// assert_eq!(a.verdict(), Some(&Ok(())));
/// ```
#[derive(Debug, Clone)]
pub struct Asking<'c> {
    turn: Turn<'c>,
    request: Sent,
    /// The validator's verdict, for a Gemini request.
    verdict: Option<Result<(), Rejection>>,
    /// The prompt as an advisor or the inside memory made it; `None` when
    /// it is the turn's own prompt unchanged.
    prompt: Option<Vec<Message>>,
    /// `Prompt.getSystemMessage()` of the loop's own prompt (an empty one if
    /// none), before the nested advisors touch it: kept only when
    /// conversation history is off, for the trimmed next prompt.
    system: Option<Message>,
}

impl<'c> Turn<'c> {
    /// A turn starting from the request's messages and tools. With the
    /// memory outside the loop, the history it starts from is the memory's
    /// (see [`with_memory`]).
    ///
    /// ```
    /// use toolcall_model::{chat::*, model::{Message, ToolSpec}};
    /// let cfg = LoopConfig::default();
    /// let twice = [ToolSpec::returning("x", "1"), ToolSpec::returning("x", "2")];
    /// // DefaultChatClientUtils refuses two request tools of one name.
    /// let Ok(Ask::End(run)) = Turn::new(&cfg, vec![Message::user("hi")], &twice).ask() else { panic!() };
    /// assert_eq!(run.kind, EndKind::Error);
    /// ```
    pub fn new(cfg: &'c LoopConfig, history: Vec<Message>, tools: &[ToolSpec]) -> Self {
        let start = match cfg.memory {
            Memory::None => &[],
            Memory::Inside | Memory::Outside => &cfg.memory_start[..],
        };
        let mut memory = ChatMemory::new(start, cfg.memory_max_messages, cfg.fixes());
        // DefaultChatClientUtils.toChatClientRequest validates the request's
        // tool callbacks before any advisor runs
        // (ToolCallingChatOptions.validateToolCallbacks).
        let duplicates = duplicate_request_names(tools);
        let refused = (!duplicates.is_empty()).then(|| {
            Box::new(JavaException::new(
                ILLEGAL_STATE,
                Some(&format!(
                    "Multiple tools with the same name ({}) found in ToolCallingChatOptions",
                    duplicates.join(", ")
                )),
            ))
        });
        let history = match cfg.memory {
            Memory::Outside if refused.is_none() => memory.before(history).into_owned(),
            _ => history,
        };
        Turn {
            cfg,
            memory,
            counts: Counts::recount(&history),
            full: history,
            trimmed: None,
            requests: Vec::new(),
            verdicts: Vec::new(),
            calls: 0,
            incremental: IncrementalRequests::default(),
            accepted_len: 0,
            converted: Converted::None,
            refused,
            streamed: None,
        }
    }

    /// The same turn streamed (`ChatClient.stream()`): answer it with
    /// [`Asking::answer_chunks`]; the run records what the client received
    /// ([`LoopRun::streamed`]) and the memory outside stores its aggregate.
    ///
    /// ```
    /// use toolcall_model::{chat::*, model::{Generation, Message, Toolbox}};
    /// let cfg = LoopConfig::default();
    /// let Ok(Ask::Model(a)) = Turn::new(&cfg, vec![Message::user("hi")], &[]).streaming().ask() else { panic!() };
    /// let chunk = vec![Generation { text: Some("done".into()), ..Default::default() }];
    /// let Answer::End(run) = a.answer_chunks(&[chunk.clone()], &mut Toolbox::new(vec![])) else { panic!() };
    /// assert_eq!(run.streamed, Some(vec![chunk]));
    /// ```
    pub fn streaming(mut self) -> Self {
        self.streamed.get_or_insert_with(Vec::new);
        self
    }

    /// The model calls answered so far.
    ///
    /// ```
    /// use toolcall_model::chat::{LoopConfig, Turn};
    /// assert_eq!(Turn::new(&LoopConfig::default(), vec![], &[]).calls(), 0);
    /// ```
    pub fn calls(&self) -> usize {
        self.calls
    }

    /// The next model call's request, through the advisors inside the loop
    /// and the provider's conversion; or the end of the turn before it.
    /// Fails when the loop reaches its bound of model calls.
    ///
    /// ```
    /// use toolcall_model::{chat::*, model::Message};
    /// let cfg = LoopConfig { max_rounds: 0, ..LoopConfig::default() };
    /// let err = Turn::new(&cfg, vec![Message::user("hi")], &[]).ask().unwrap_err();
    /// assert_eq!(err, LoopError::TooManyRounds(0));
    /// ```
    pub fn ask(mut self) -> Result<Ask<'c>, LoopError> {
        if let Some(e) = self.refused.take() {
            return Ok(Ask::End(self.finish(EndKind::Error, vec![], Some(*e))));
        }
        if self.calls >= self.cfg.max_rounds {
            return Err(LoopError::TooManyRounds(self.cfg.max_rounds));
        }
        Ok(if self.prompt_is_history() {
            self.ask_incrementally()
        } else {
            self.ask_rebuilt()
        })
    }

    /// Whether each prompt is the turn history unchanged, so that requests
    /// can be built incrementally (no trimming, no rewriting advisor, no
    /// memory merging inside the loop).
    fn prompt_is_history(&self) -> bool {
        let cfg = self.cfg;
        cfg.provider == Provider::Gemini
            && cfg.conversation_history
            && !self.gemini_tool_text()
            && !cfg.tool_feedback
            && cfg.memory != Memory::Inside
    }

    /// Whether the seed's advisor runs: it is a `CallAdvisor` only, which
    /// `ChatClient.stream()`'s advisor chain leaves out.
    fn gemini_tool_text(&self) -> bool {
        self.cfg.gemini_tool_text && self.streamed.is_none()
    }

    /// Whether this prompt is the turn history plus the `tool-feedback`
    /// message, which the history never holds: 2.0.1's manager runs on
    /// `fullTurnHistory`, the last batch's history (with conversation
    /// history off the message is in the trimmed prompt itself).
    fn feedback_outside_history(&self) -> bool {
        let cfg = self.cfg;
        cfg.tool_feedback
            && self.calls > 0
            && cfg.conversation_history
            && cfg.manager.version.manager_runs_on_turn_history()
    }

    /// The prompt is the turn history itself, which only grows: convert just
    /// the new messages.
    fn ask_incrementally(mut self) -> Ask<'c> {
        let cfg = self.cfg;
        match self.incremental.build(&self.full, cfg.fixes()) {
            Ok(r) => {
                // This request extends the last one; if that one was
                // accepted, only its last content and the new ones can
                // break a rule.
                let verdict = match self.verdicts.last() {
                    Some(Ok(())) => {
                        validate_from(&r, self.accepted_len.saturating_sub(1), cfg.validator)
                    }
                    _ => validate(&r, cfg.validator),
                };
                self.accepted_len = r.contents.len();
                Ask::Model(Asking {
                    turn: self,
                    request: Sent::Gemini(r),
                    verdict: Some(verdict),
                    prompt: None,
                    system: None,
                })
            }
            Err(e) => {
                let messages = std::mem::take(&mut self.full);
                Ask::Unconverted(self.finish(EndKind::Error, vec![], Some(e)), messages)
            }
        }
    }

    /// The prompt (the history, or its trimmed form) through the advisors
    /// inside the loop, converted whole.
    fn ask_rebuilt(mut self) -> Ask<'c> {
        let cfg = self.cfg;
        let own = self.trimmed.as_deref().unwrap_or(&self.full);
        let system = (!cfg.conversation_history).then(|| {
            own.iter()
                .find(|m| matches!(m, Message::System { .. }))
                .cloned()
                .unwrap_or(Message::System {
                    text: Some(Default::default()),
                })
        });
        // Copied only where an advisor changes it: a loop of n rounds would
        // copy the turn n times.
        let mut prompt = None;
        if self.feedback_outside_history() {
            let mut next = own.to_vec();
            next.push(Message::user(TOOL_FEEDBACK));
            prompt = Some(next);
        }
        if self.gemini_tool_text() && advisor_rewrites(prompt.as_deref().unwrap_or(own)) {
            let mut rewritten = prompt.take().unwrap_or_else(|| own.to_vec());
            if let Err(e) = gemini_tool_text(&mut rewritten) {
                return Ask::End(self.finish(EndKind::Error, vec![], Some(e)));
            }
            prompt = Some(rewritten);
        }
        if cfg.memory == Memory::Inside {
            prompt = match prompt.take() {
                Some(p) => Some(self.memory.before(p).into_owned()),
                None => match self.memory.before(own) {
                    Cow::Borrowed(_) => None,
                    Cow::Owned(p) => Some(p),
                },
            };
        }
        let messages = prompt.as_deref().unwrap_or(own);
        let (request, verdict) = match cfg.provider {
            Provider::Gemini => match self.rebuild_request(messages) {
                Ok(r) => {
                    let verdict = validate(&r, cfg.validator);
                    (Sent::Gemini(r), Some(verdict))
                }
                Err(e) => {
                    let messages = messages.to_vec();
                    let run = self.finish(EndKind::Error, vec![], Some(e));
                    return Ask::Unconverted(run, messages);
                }
            },
            Provider::None => (
                Sent::Messages(share_messages(self.requests.last(), messages)),
                None,
            ),
        };
        Ask::Model(Asking {
            turn: self,
            request,
            verdict,
            prompt,
            system,
        })
    }

    /// The Gemini request of `messages`, sharing the contents of the last
    /// request where its messages are known ([`Converted`]).
    fn rebuild_request(&self, messages: &[Message]) -> Result<Request, JavaException> {
        let earlier = match &self.converted {
            Converted::None => None,
            // The history only grows: its first `n` messages are those the
            // request was built from.
            Converted::History(n) => self.full.get(..*n),
            Converted::Prompt(p) => Some(&p[..]),
        };
        match (earlier, self.requests.last()) {
            (Some(earlier), Some(Sent::Gemini(r))) => {
                build_request_reusing(messages, self.cfg.fixes(), earlier, r)
            }
            _ => build_request(messages, self.cfg.fixes()),
        }
    }

    /// One reply: the inside memory stores it, then the batch of tool calls
    /// runs (or the turn completes when there is none).
    fn reply(
        mut self,
        reply: &[Generation],
        toolbox: &mut Toolbox,
        system: Option<Message>,
    ) -> Answer<'c> {
        let cfg = self.cfg;
        if cfg.memory == Memory::Inside {
            self.memory.after(reply);
        }
        if reply.iter().all(|g| g.tool_calls.is_empty()) {
            return Answer::End(self.finish(EndKind::Completed, reply.to_vec(), None));
        }
        let history = std::mem::take(&mut self.full);
        // A failing batch ends the turn without handing its counts back; the
        // clone (one entry per tool name) keeps the last good ones.
        let end =
            match execute_with_counts(&cfg.manager, history, reply, self.counts.clone(), toolbox) {
                Ok((result, after)) => {
                    self.counts = after;
                    if !result.return_direct {
                        self.full = result.history;
                        let feedback = cfg.tool_feedback.then(|| Message::user(TOOL_FEEDBACK));
                        if !cfg.conversation_history {
                            // doGetNextInstructionsForToolCall: the prompt's
                            // system message (an empty one if none) and the last
                            // message, then what the application adds.
                            let last = self.full.last().cloned();
                            self.trimmed =
                                Some(system.into_iter().chain(last).chain(feedback).collect());
                        } else if !cfg.manager.version.manager_runs_on_turn_history() {
                            // 2.0.0's manager runs on the forwarded prompt,
                            // which holds what the application added.
                            self.full.extend(feedback);
                        }
                        return Answer::Next(self);
                    } else {
                        BatchEnd::ReturnDirect(result)
                    }
                }
                Err(ManagerError::LimitExceeded(e)) => {
                    self.counts = e.counts.clone();
                    BatchEnd::Breach(e)
                }
                Err(e) => BatchEnd::Failed(e),
            };
        // close-dangling-calls closes the inside memory when the loop ends,
        // streamed or not: the fix library's FixingToolCallingAdvisor hands
        // the closing message over after adviseCall returns and when the
        // stream of adviseStream completes (docs/FIXES.md).
        if cfg.memory == Memory::Inside {
            if let Some(m) = end.closing(reply, cfg.fixes()) {
                self.memory.add([m]);
            }
        }
        let (kind, generations, error) = end.outcome();
        Answer::End(self.finish(kind, generations, error))
    }

    /// The end of the turn: the outside memory stores what the caller
    /// received, and the memory's next request is judged.
    fn finish(
        self,
        kind: EndKind,
        generations: Vec<Generation>,
        error: Option<JavaException>,
    ) -> LoopRun {
        let Turn {
            cfg,
            mut memory,
            counts,
            requests,
            verdicts,
            mut streamed,
            ..
        } = self;
        // What the loop built reaches a streaming client as one more response.
        let built = !matches!(kind, EndKind::Completed | EndKind::Error);
        if let Some(received) = streamed.as_mut().filter(|_| built) {
            received.push(generations.clone());
        }
        // The memory outside reads the conversation id off its aggregate's
        // context, which ChatClientMessageAggregator gathers from the
        // responses the client received: with none (every chunk of the
        // turn held a call), its `after` fails the stream.
        let (kind, generations, error) = match &streamed {
            Some(received)
                if received.is_empty() && cfg.memory == Memory::Outside && error.is_none() =>
            {
                let e = JavaException::new(ILLEGAL_ARGUMENT, Some(NULL_CONVERSATION_ID));
                (EndKind::Error, vec![], Some(e))
            }
            _ => (kind, generations, error),
        };
        if cfg.memory == Memory::Outside && error.is_none() {
            match (&streamed, kind) {
                // The memory's aggregate of everything the client received:
                // each response's first generation, a built one's message
                // carrying its text alone.
                (Some(received), _) => {
                    let plain: Vec<Option<Generation>> = received
                        .iter()
                        .enumerate()
                        .map(|(i, r)| {
                            let first = r.first()?;
                            Some(if built && i + 1 == received.len() {
                                Generation {
                                    text: first.text.clone(),
                                    ..Generation::default()
                                }
                            } else {
                                first.clone()
                            })
                        })
                        .collect();
                    memory.after(&[aggregate(plain.iter().map(Option::as_ref))]);
                }
                (None, EndKind::Completed) => memory.after(&generations),
                (None, _) => memory.after_produced(&generations),
            }
        }
        let windowed = memory.windowed;
        let memory = match cfg.memory {
            Memory::None => vec![],
            Memory::Inside | Memory::Outside => memory.messages,
        };
        LoopRun {
            kind,
            generations,
            error,
            requests,
            verdicts,
            memory,
            next_request: (cfg.fixes(), cfg.validator),
            counts,
            windowed,
            streamed,
        }
    }
}

impl<'c> Asking<'c> {
    /// The 1-based number of this model call in the turn.
    ///
    /// ```
    /// use toolcall_model::{chat::*, model::Message};
    /// let cfg = LoopConfig::default();
    /// let Ok(Ask::Model(a)) = Turn::new(&cfg, vec![Message::user("hi")], &[]).ask() else { panic!() };
    /// assert_eq!(a.call(), 1);
    /// ```
    pub fn call(&self) -> usize {
        self.turn.calls + 1
    }

    /// The request as sent to the provider.
    ///
    /// ```
    /// use toolcall_model::{chat::*, model::Message};
    /// let cfg = LoopConfig { provider: Provider::None, ..LoopConfig::default() };
    /// let Ok(Ask::Model(a)) = Turn::new(&cfg, vec![Message::user("hi")], &[]).ask() else { panic!() };
    /// assert!(matches!(a.request(), Sent::Messages(m) if m.len() == 1));
    /// ```
    pub fn request(&self) -> &Sent {
        &self.request
    }

    /// The validator's verdict on a Gemini request; `None` for provider
    /// `none`.
    ///
    /// ```
    /// use toolcall_model::{chat::*, model::Message};
    /// let cfg = LoopConfig { provider: Provider::None, ..LoopConfig::default() };
    /// let Ok(Ask::Model(a)) = Turn::new(&cfg, vec![Message::user("hi")], &[]).ask() else { panic!() };
    /// assert_eq!(a.verdict(), None);
    /// ```
    pub fn verdict(&self) -> Option<&Result<(), Rejection>> {
        self.verdict.as_ref()
    }

    /// The messages the chat model receives, after the advisors and the
    /// memory inside the loop.
    ///
    /// ```
    /// use toolcall_model::{chat::*, model::Message};
    /// let cfg = LoopConfig { memory: Memory::Inside, memory_start: vec![Message::user("u0")], ..LoopConfig::default() };
    /// let Ok(Ask::Model(a)) = Turn::new(&cfg, vec![Message::user("u1")], &[]).ask() else { panic!() };
    /// assert_eq!(a.messages(), &[Message::user("u0"), Message::user("u1")]);
    /// ```
    pub fn messages(&self) -> &[Message] {
        match &self.prompt {
            Some(p) => p,
            None => self.turn.trimmed.as_deref().unwrap_or(&self.turn.full),
        }
    }

    /// The model's reply (its generations): the tool calls of the first
    /// generation that has any run against `toolbox`, and the loop goes on
    /// or the turn ends.
    ///
    /// ```
    /// use toolcall_model::{chat::*, model::{Generation, Message, Toolbox}};
    /// let cfg = LoopConfig::default();
    /// let Ok(Ask::Model(a)) = Turn::new(&cfg, vec![Message::user("hi")], &[]).ask() else { panic!() };
    /// let text = vec![Generation { text: Some("done".into()), ..Default::default() }];
    /// let Answer::End(run) = a.answer(&text, &mut Toolbox::new(vec![])) else { panic!() };
    /// assert_eq!(run.generations, text);
    /// ```
    pub fn answer(self, reply: &[Generation], toolbox: &mut Toolbox) -> Answer<'c> {
        let Asking {
            mut turn,
            request,
            verdict,
            prompt,
            system,
        } = self;
        turn.converted = match (prompt, &request) {
            (_, Sent::Messages(_)) => Converted::None,
            (Some(p), Sent::Gemini(_)) => Converted::Prompt(p),
            (None, Sent::Gemini(_)) if turn.trimmed.is_none() => {
                Converted::History(turn.full.len())
            }
            // A trimmed prompt is not kept past its round.
            (None, Sent::Gemini(_)) => Converted::None,
        };
        turn.requests.push(request);
        turn.verdicts.extend(verdict);
        turn.calls += 1;
        turn.reply(reply, toolbox, system)
    }

    /// The model's reply streamed as chunks (`adviseStream`): each chunk
    /// without a tool call reaches the client as it arrives, and the loop
    /// goes on with the chunks' aggregate, one generation, as
    /// [`Asking::answer`] does with a reply (docs/BEHAVIOUR.md 6.3). On a
    /// turn that is not [`Turn::streaming`], nothing is recorded as
    /// received.
    ///
    /// ```
    /// use toolcall_model::{chat::*, model::{Generation, Message, ToolCall, Toolbox}};
    /// let cfg = LoopConfig::default();
    /// let Ok(Ask::Model(a)) = Turn::new(&cfg, vec![Message::user("hi")], &[]).streaming().ask() else { panic!() };
    /// let call = Generation { tool_calls: vec![ToolCall::new("1", "x", "{}")].into(), ..Default::default() };
    /// // A call in a chunk's second generation: hidden, and never executed.
    /// let chunk = vec![Generation { text: Some("a".into()), ..Default::default() }, call];
    /// let Answer::End(run) = a.answer_chunks(&[chunk], &mut Toolbox::new(vec![])) else { panic!() };
    /// assert_eq!((run.kind, run.streamed), (EndKind::Completed, Some(vec![])));
    /// ```
    pub fn answer_chunks(
        mut self,
        chunks: &[Vec<Generation>],
        toolbox: &mut Toolbox,
    ) -> Answer<'c> {
        if let Some(received) = &mut self.turn.streamed {
            received.extend(chunks.iter().filter(|c| reaches_client(c)).cloned());
        }
        let reply = [aggregate_chunks(chunks)];
        self.answer(&reply, toolbox)
    }
}

/// How a batch of tool calls ended the turn.
enum BatchEnd {
    /// A limit was breached under `THROW`.
    Breach(Box<LimitExceeded>),
    /// An exception escaped the manager.
    Failed(ManagerError),
    /// Every tool that ran is `returnDirect`.
    ReturnDirect(ExecResult),
}

impl BatchEnd {
    /// What the memory inside the loop receives besides the reply, which
    /// already holds the batch's calls: under `close-dangling-calls`, the
    /// tool message that answers each of them (the partial result's on a
    /// breach, the responses on `returnDirect`, and a [`NOT_EXECUTED_FAILED`]
    /// error response for each call of a failed batch), so that the stored
    /// transcript stays paired.
    fn closing(&self, reply: &[Generation], fixes: Fixes) -> Option<Message> {
        if !fixes.close_dangling_calls {
            return None;
        }
        match self {
            BatchEnd::Breach(e) => e.partial.history.last().cloned(),
            BatchEnd::ReturnDirect(result) => result.history.last().cloned(),
            BatchEnd::Failed(_) => tool_call_message(reply).map(|calls| Message::Tool {
                responses: calls
                    .tool_calls()
                    .iter()
                    .map(|c| ToolResponse {
                        id: c.id.clone(),
                        name: c.name.clone(),
                        data: NOT_EXECUTED_FAILED.into(),
                        error: true,
                    })
                    .collect(),
            }),
        }
    }

    /// How the turn ends: its kind, what the caller receives, and the
    /// exception that reaches it.
    fn outcome(self) -> (EndKind, Vec<Generation>, Option<JavaException>) {
        match self {
            BatchEnd::Breach(e) => (EndKind::LimitExceeded, vec![e.build_generation()], None),
            BatchEnd::ReturnDirect(result) => {
                (EndKind::ReturnDirect, result.build_generations(), None)
            }
            // ToolCallingAdvisor catches any ToolCallLimitExceededException:
            // the breach's cause, rethrown by the processor under
            // breach-through-processor, ends the turn as a breach, built
            // from its message (its partial result holds no responses).
            BatchEnd::Failed(ManagerError::Java(j)) if j.class == TOOL_CALL_LIMIT_EXCEEDED => {
                let text = j.message.unwrap_or_default();
                (
                    EndKind::LimitExceeded,
                    vec![limit_generation(text, &[])],
                    None,
                )
            }
            BatchEnd::Failed(e) => (EndKind::Error, vec![], Some(e.java())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::behavior::Fix;
    use crate::model::limits::ToolCallLimits;
    use crate::model::message::ToolCall;
    use crate::model::tools::Outcome;

    fn calls(names: &[&str]) -> Vec<Generation> {
        vec![Generation {
            tool_calls: names
                .iter()
                .enumerate()
                .map(|(i, n)| ToolCall::new(&format!("c{i}"), n, "{}"))
                .collect(),
            ..Generation::default()
        }]
    }

    fn text(t: &str) -> Vec<Generation> {
        vec![Generation {
            text: Some(t.into()),
            ..Generation::default()
        }]
    }

    /// Drives a turn on from `turn` over `replies`, as `drive` does.
    fn continue_turn(
        mut turn: Turn<'_>,
        replies: &[Vec<Generation>],
        toolbox: &mut Toolbox,
    ) -> Result<LoopRun, LoopError> {
        let mut replies = replies.iter();
        loop {
            let asking = match turn.ask()? {
                Ask::Model(asking) => asking,
                Ask::End(run) | Ask::Unconverted(run, _) => return Ok(run),
            };
            let Some(reply) = replies.next() else {
                return Err(LoopError::ScriptExhausted { call: 0, len: 0 });
            };
            turn = match asking.answer(reply, toolbox) {
                Answer::Next(next) => next,
                Answer::End(run) => return Ok(run),
            };
        }
    }

    /// A checker sharing scenario prefixes clones the state after the first
    /// round (and the toolbox, whose tool answers differently call after
    /// call) and continues each clone with other replies: each continuation
    /// must give exactly the run of the whole script from the start.
    #[test]
    fn a_clone_after_a_round_continues_as_a_run_from_the_start() {
        let toolbox = Toolbox::new(vec![ToolSpec {
            outcomes: vec![
                Outcome::Returns(Some("1".into())),
                Outcome::Returns(Some("plain text".into())),
                Outcome::Throws {
                    exception: JavaException::new(ILLEGAL_STATE, Some("boom")),
                    wrapped: true,
                },
            ],
            ..ToolSpec::returning("x", "1")
        }]);
        let limited = Config {
            limits: ToolCallLimits::default()
                .max_calls_per_tool(2)
                .unwrap_or_default(),
            fixes: Fixes::all(),
            ..Config::default()
        };
        let configs = [
            LoopConfig::default(),
            LoopConfig::new(limited.clone()),
            LoopConfig {
                memory: Memory::Inside,
                memory_max_messages: NonZeroU32::MIN.saturating_add(2),
                ..LoopConfig::new(limited.clone())
            },
            LoopConfig {
                memory: Memory::Outside,
                ..LoopConfig::new(limited)
            },
            LoopConfig {
                conversation_history: false,
                gemini_tool_text: true,
                ..LoopConfig::default()
            },
            LoopConfig {
                provider: Provider::None,
                manager: Config {
                    fixes: Fixes::only(Fix::CloseDanglingCalls),
                    ..Config::default()
                },
                memory: Memory::Inside,
                ..LoopConfig::default()
            },
        ];
        let first = calls(&["x"]);
        let continuations = [
            vec![text("done")],
            vec![calls(&["x", "x"]), text("done")],
            vec![calls(&["x"]), calls(&["x"]), text("done")],
            vec![calls(&["y"])],
            vec![calls(&["x"])],
        ];
        let history = vec![Message::user("hi")];
        let mut kinds = Vec::new();
        for cfg in &configs {
            let mut shared_box = toolbox.clone();
            let Ok(Ask::Model(asking)) = Turn::new(cfg, history.clone(), toolbox.tools()).ask()
            else {
                panic!("the first round asks the model under {cfg:?}");
            };
            let Answer::Next(after_one) = asking.answer(&first, &mut shared_box) else {
                panic!("the first round goes on under {cfg:?}");
            };
            for rest in &continuations {
                let mut script = vec![first.clone()];
                script.extend(rest.iter().cloned());
                let mut fresh_box = toolbox.clone();
                let fresh = run_loop(cfg, history.clone(), &script, &mut fresh_box);
                let mut cloned_box = shared_box.clone();
                let continued = continue_turn(after_one.clone(), rest, &mut cloned_box);
                match (fresh, continued) {
                    (Ok(f), Ok(c)) => {
                        assert_eq!(f, c, "{cfg:?} {rest:?}");
                        kinds.push(f.kind);
                    }
                    (Err(LoopError::ScriptExhausted { .. }), Err(_)) => {}
                    (f, c) => panic!("{cfg:?} {rest:?}: {f:?} against {c:?}"),
                }
                assert_eq!(fresh_box, cloned_box, "{cfg:?} {rest:?}");
            }
        }
        // The continuations reach each way a batch or a reply ends a turn.
        for kind in [EndKind::Completed, EndKind::LimitExceeded, EndKind::Error] {
            assert!(kinds.contains(&kind), "no continuation ends {kind:?}");
        }
    }

    /// The one close-dangling path answers every call the inside memory
    /// holds, however the batch ended, and nothing without the fix.
    #[test]
    fn the_inside_memory_is_closed_after_a_breach_a_failure_and_return_direct() {
        let close = Fixes::only(Fix::CloseDanglingCalls);
        let reply = calls(&["x", "y"]);
        let failed = BatchEnd::Failed(ManagerError::Java(JavaException::new(ILLEGAL_STATE, None)));
        let Some(Message::Tool { responses }) = failed.closing(&reply, close) else {
            panic!("a failed batch is closed");
        };
        assert_eq!(responses.len(), 2);
        assert!(responses
            .iter()
            .all(|r| r.error && r.data == NOT_EXECUTED_FAILED));
        assert_eq!(failed.closing(&reply, Fixes::upstream()), None);
        let answered = Message::Tool {
            responses: vec![ToolResponse::new("c0", "x", "1")].into(),
        };
        let direct = BatchEnd::ReturnDirect(ExecResult {
            history: vec![Message::user("hi"), answered.clone()],
            return_direct: true,
        });
        assert_eq!(direct.closing(&reply, close), Some(answered.clone()));
        assert_eq!(direct.closing(&reply, Fixes::upstream()), None);
        let breach = BatchEnd::Breach(Box::new(LimitExceeded {
            breach: crate::model::limits::Breach {
                tool_name: None,
                limit: 1,
            },
            partial: ExecResult {
                history: vec![answered.clone()],
                return_direct: false,
            },
            breach_index: 0,
            counts: Counts::default(),
        }));
        assert_eq!(breach.closing(&reply, close), Some(answered));
    }
}
