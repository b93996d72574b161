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

use std::num::NonZeroU32;
use std::sync::Arc;

use serde_json::Value;

use super::memory::ChatMemory;
use super::memory::DEFAULT_MEMORY_MAX_MESSAGES;
use super::stream::{Chunks, Script, Split, reaches_client};
use crate::gemini::{Refusal, Rejection, Request, ValidatorOptions, build_request_at, verdict};
use crate::model::behavior::{Fixes, SpringAi};
use crate::model::java::JavaException;
use crate::model::limits::Counts;
use crate::model::manager::Config;
use crate::model::message::{Generation, Message};
use crate::model::tools::Toolbox;

mod cache;
#[cfg(test)]
mod tests;
mod turn;

pub use turn::{Answer, Ask, Asking, Turn};
pub(crate) use turn::{IN_TOOL_CALL_ADVISOR, NO_ADVISOR};

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
    /// `None` for `call()`. A script of chunks (`run_script`) streams
    /// whatever this says.
    pub stream: Option<Split>,
    /// Whether the application's `ToolCallingAdvisor` appends
    /// `TOOL_FEEDBACK` to the next instructions after each tool round
    /// (docs/BEHAVIOUR.md section 6.4, spring-ai issue 6842).
    pub tool_feedback: bool,
    /// On a version whose tool loop is the chat model's own
    /// ([`SpringAi::loop_in_chat_model`], 1.1), whether the application
    /// registers 1.1's opt-in `ToolCallAdvisor`, whose loop then runs
    /// instead, over the chat model with internal tool execution off: the
    /// same rounds as `ToolCallingAdvisor`'s, with the history always on,
    /// a memory inside it at its default order, and no stream
    /// (docs/BEHAVIOUR.md section 13.1). On 2.0 the loop is always the
    /// advisor's, and this changes nothing.
    pub tool_call_advisor: bool,
}

/// The user message the `tool-feedback` advisor appends after each tool
/// round.
pub(crate) const TOOL_FEEDBACK: &str = "tool feedback";

/// The message of the `IllegalArgumentException` a memory outside the loop
/// throws at the end of a streamed turn whose client received nothing
/// (`BaseChatMemoryAdvisor.getConversationId` on an empty context).
pub(crate) const NULL_CONVERSATION_ID: &str = "conversationId cannot be null";

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
            tool_call_advisor: false,
        }
    }

    fn fixes(&self) -> Fixes {
        self.manager.fixes
    }

    /// Whether the tool loop is the chat model's own: on a version where it
    /// is ([`SpringAi::loop_in_chat_model`]) unless `ToolCallAdvisor` runs
    /// it ([`LoopConfig::tool_call_advisor`]).
    ///
    /// ```
    /// use toolcall_model::chat::LoopConfig;
    /// use toolcall_model::model::SpringAi;
    /// let mut cfg = LoopConfig::default();
    /// cfg.manager.version = SpringAi::V1_1_2;
    /// assert!(cfg.loop_in_chat_model());
    /// cfg.tool_call_advisor = true;
    /// assert!(!cfg.loop_in_chat_model());
    /// ```
    pub fn loop_in_chat_model(&self) -> bool {
        self.manager.version.loop_in_chat_model() && !self.tool_call_advisor
    }

    /// Whether on `version` a memory at `memory` runs inside 1.1's opt-in
    /// `ToolCallAdvisor`: where the tool loop is the chat model's own
    /// ([`SpringAi::loop_in_chat_model`]), a memory inside the loop can
    /// only be inside that advisor's loop.
    ///
    /// ```
    /// use toolcall_model::chat::{LoopConfig, Memory};
    /// use toolcall_model::model::SpringAi;
    /// assert!(LoopConfig::memory_in_tool_call_advisor(SpringAi::V1_1_2, Memory::Inside));
    /// assert!(!LoopConfig::memory_in_tool_call_advisor(SpringAi::V1_1_2, Memory::Outside));
    /// assert!(!LoopConfig::memory_in_tool_call_advisor(SpringAi::V2_0_1, Memory::Inside));
    /// ```
    pub fn memory_in_tool_call_advisor(version: SpringAi, memory: Memory) -> bool {
        version.loop_in_chat_model() && memory == Memory::Inside
    }

    /// The configuration as its Spring AI version (`manager.version`) runs
    /// it: where the tool loop is the chat model's own (1.1), a memory
    /// inside the loop is inside `ToolCallAdvisor`'s
    /// ([`LoopConfig::memory_in_tool_call_advisor`]), and every request
    /// carries the whole conversation, since neither 1.1 loop has a
    /// conversation history switch. Unchanged on 2.0.
    ///
    /// ```
    /// use toolcall_model::chat::{LoopConfig, Memory};
    /// use toolcall_model::model::SpringAi;
    /// let cfg = LoopConfig { memory: Memory::Inside, conversation_history: false, ..LoopConfig::default() };
    /// assert_eq!(cfg.clone().on_its_version(), cfg);
    /// let mut on_1_1 = cfg;
    /// on_1_1.manager.version = SpringAi::V1_1_2;
    /// let on_1_1 = on_1_1.on_its_version();
    /// assert!(on_1_1.tool_call_advisor && on_1_1.conversation_history);
    /// ```
    pub fn on_its_version(self) -> LoopConfig {
        let version = self.manager.version;
        if !version.loop_in_chat_model() {
            return self;
        }
        LoopConfig {
            tool_call_advisor: LoopConfig::memory_in_tool_call_advisor(version, self.memory),
            conversation_history: true,
            ..self
        }
    }

    /// Whether the loop is 1.1's `ToolCallAdvisor`'s, whose `adviseStream`
    /// is not implemented (`Flux.error(new
    /// UnsupportedOperationException("Unimplemented method
    /// 'adviseStream'"))`, v1.1.2) and which has no conversation history
    /// switch.
    pub(crate) fn tool_call_advisor_of_1_1(&self) -> bool {
        self.manager.version.loop_in_chat_model() && self.tool_call_advisor
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
    next_request: (Fixes, ValidatorOptions, SpringAi),
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
    pub fn memory_verdict(&self) -> Result<(), Refusal> {
        let (fixes, validator, version) = self.next_request;
        let mut next = self.memory.clone();
        next.push(Message::user("next question"));
        verdict(build_request_at(&next, fixes, version), validator)
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
    /// The configuration asks for something the version's loop does not
    /// have: on Spring AI 1.1 the loop runs inside the chat model
    /// ([`SpringAi::loop_in_chat_model`]), so no advisor runs inside it;
    /// its opt-in `ToolCallAdvisor` ([`LoopConfig::tool_call_advisor`])
    /// has no conversation history switch, and an advisor of this project
    /// inside it is not modelled.
    #[error("{what}: Spring AI {version} {why}: not applicable")]
    NotApplicable {
        /// The version.
        version: SpringAi,
        /// What the configuration asks for.
        what: &'static str,
        /// What the version's loop is instead.
        why: &'static str,
    },
    /// A streamed round of a loop inside the chat model whose order Java
    /// does not decide: `GoogleGenAiChatModel#internalStream` runs the
    /// manager on each chunk with a tool call in a `flatMap` on
    /// `Schedulers.boundedElastic()` (lines 581-604 of v1.1.2), concurrently
    /// with the chunks after it; only a round whose one chunk with a call is
    /// its last has one order.
    #[error(
        "model call {call}: on Spring AI {version} a streamed round runs a chunk with a tool call concurrently with the chunks after it; only a round whose one chunk with a call is its last is modelled"
    )]
    Unordered {
        /// The version.
        version: SpringAi,
        /// The 1-based model call.
        call: usize,
    },
}

/// What `MessageChatMemoryAdvisor.before` sends on for `prompt`, from a
/// memory holding `cfg.memory_start` (whatever the memory's placement): the
/// memory's messages, then the prompt's (unless the prompt already holds
/// the memory as one contiguous run), the first system message moved to
/// the front. With the memory outside the loop, this is the turn history
/// the loop starts from.
pub fn with_memory(cfg: &LoopConfig, prompt: Vec<Message>) -> Vec<Message> {
    ChatMemory::new(
        &cfg.memory_start,
        cfg.memory_max_messages,
        cfg.fixes(),
        cfg.manager.version,
    )
    .before(prompt)
    .into_owned()
}

/// Runs one user turn through the tool loop: a thin driver over `Turn`,
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
pub(crate) fn run_script(
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

    /// Whether reply `i` streams a round with a chunk holding a tool call
    /// that is not its last chunk, or with two such chunks (see
    /// [`LoopError::Unordered`]).
    fn unordered(&self, i: usize) -> bool {
        let unordered = |chunks: &[Vec<Generation>]| {
            let mut calls = chunks
                .iter()
                .enumerate()
                .filter(|(_, c)| !reaches_client(c));
            match (calls.next(), calls.next()) {
                (None, _) => false,
                (Some((k, _)), None) => k + 1 != chunks.len(),
                (Some(_), Some(_)) => true,
            }
        };
        match self {
            Replies::Whole(_) => false,
            Replies::Split(m, split) => m.get(i).is_some_and(|r| unordered(&split.chunks(r))),
            Replies::Chunked(c) => c.get(i).is_some_and(|r| unordered(r)),
        }
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
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RequestMessages {
    /// One list per model call, then, when a Gemini conversion ended the
    /// turn, the list whose conversion threw.
    pub attempted: Vec<Vec<Message>>,
    /// Whether the last of `attempted` failed to convert and was never sent.
    pub unconverted: bool,
}

#[cfg(test)]
impl RequestMessages {
    fn sent(&self) -> &[Vec<Message>] {
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
        let version = cfg.manager.version;
        if cfg.loop_in_chat_model() && model.unordered(reply) {
            return Err(LoopError::Unordered {
                version,
                call: done + 1,
            });
        }
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

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.
    use super::*;

    #[test]
    fn example_null_conversation_id() {
        use crate::chat::{EndKind, LoopConfig, Memory, Script};
        use crate::model::{Generation, Message, ToolCall, Toolbox};
        let text = Generation {
            text: Some("g0".into()),
            ..Default::default()
        };
        let call = Generation {
            tool_calls: vec![ToolCall::new("1", "x", "{}")].into(),
            ..Default::default()
        };
        // One chunk, hidden from the client: its second generation holds a call.
        let script = Script::Streamed(vec![vec![vec![text, call]]]);
        let cfg = LoopConfig {
            memory: Memory::Outside,
            ..LoopConfig::default()
        };
        let run = run_script(
            &cfg,
            vec![Message::user("u")],
            &script,
            &mut Toolbox::new(vec![]),
        )
        .unwrap();
        assert_eq!(run.kind, EndKind::Error);
        assert_eq!(
            run.error.unwrap().message.as_deref(),
            Some(NULL_CONVERSATION_ID)
        );
        assert_eq!(run.memory, vec![Message::user("u")]);
    }

    #[test]
    fn example_memory_verdict() {
        use crate::chat::*;
        use crate::model::{Generation, Message, Toolbox};
        let cfg = LoopConfig {
            memory: Memory::Outside,
            ..LoopConfig::default()
        };
        let model = vec![vec![Generation {
            text: Some("done".into()),
            ..Default::default()
        }]];
        let run = run_loop(
            &cfg,
            vec![Message::user("hi")],
            &model,
            &mut Toolbox::new(vec![]),
        )
        .unwrap();
        assert_eq!(run.memory.len(), 2);
        assert_eq!(run.memory_verdict(), Ok(()));
    }

    #[test]
    fn example_with_memory() {
        use crate::chat::LoopConfig;
        use crate::model::Message;
        let cfg = LoopConfig {
            memory_start: vec![Message::user("u0")],
            ..LoopConfig::default()
        };
        assert_eq!(
            with_memory(&cfg, vec![Message::user("u1")]),
            vec![Message::user("u0"), Message::user("u1")]
        );
    }

    #[test]
    fn example_run_script() {
        use crate::chat::{Script, *};
        use crate::model::{Generation, Message, ToolCall, ToolSpec, Toolbox};
        let text = |t: &str| Generation {
            text: Some(t.into()),
            ..Default::default()
        };
        let call = Generation {
            tool_calls: vec![ToolCall::new("1", "x", "{}")].into(),
            ..Default::default()
        };
        // A round of text then a call, then an answer in two chunks.
        let script = Script::Streamed(vec![
            vec![vec![text("Let me check")], vec![call]],
            vec![vec![text("It is ")], vec![text("sunny")]],
        ]);
        let mut tb = Toolbox::new(vec![ToolSpec::returning("x", "\"sunny\"")]);
        let run = run_script(
            &LoopConfig::default(),
            vec![Message::user("u")],
            &script,
            &mut tb,
        )
        .unwrap();
        assert_eq!(run.streamed.unwrap().len(), 3);
    }

    #[test]
    fn example_run_loop_with_messages() {
        use crate::chat::*;
        use crate::model::Toolbox;
        use crate::model::{Generation, Message};
        let model = vec![vec![Generation {
            text: Some("done".into()),
            ..Default::default()
        }]];
        let (run, messages) = run_loop_with_messages(
            &LoopConfig::default(),
            vec![Message::user("hi")],
            &model,
            &mut Toolbox::new(vec![]),
        )
        .unwrap();
        assert_eq!(run.requests.len(), 1);
        assert_eq!(messages.attempted, vec![vec![Message::user("hi")]]);
        assert!(!messages.unconverted);
    }

    #[test]
    fn example_requestmessages() {
        use crate::chat::*;
        use crate::model::{Generation, Message, ToolCall};
        use crate::model::{ToolSpec, Toolbox};
        // Plain text from a tool: upstream's Gemini conversion throws on the second request.
        let mut tb = Toolbox::new(vec![ToolSpec::returning("x", "disk full")]);
        let model = vec![vec![Generation {
            tool_calls: vec![ToolCall::new("1", "x", "{}")].into(),
            ..Default::default()
        }]];
        let (run, messages) = run_loop_with_messages(
            &LoopConfig::default(),
            vec![Message::user("hi")],
            &model,
            &mut tb,
        )
        .unwrap();
        assert_eq!((run.requests.len(), messages.attempted.len()), (1, 2));
        assert!(messages.unconverted);
        assert_eq!(messages.sent().len(), 1);
    }
}
