//! One turn of the tool loop as a step machine: the state between model
//! calls ([`Turn`]), a request awaiting its reply ([`Asking`]), and how a
//! batch of tool calls ends the turn.

use std::borrow::Cow;

use super::cache::Kept;
use super::{EndKind, LoopConfig, LoopError, LoopRun, Memory, Provider, Sent, share_messages};
use super::{NULL_CONVERSATION_ID, TOOL_FEEDBACK};
use crate::chat::advisor::{advisor_rewrites, gemini_tool_text};
use crate::chat::memory::ChatMemory;
use crate::chat::stream::{aggregate, aggregate_chunks, reaches_client};
use crate::gemini::{Rejection, Request, validate};
use crate::model::behavior::{Fix, Fixes};
use crate::model::java::{
    ILLEGAL_ARGUMENT, ILLEGAL_STATE, JavaException, TOOL_CALL_LIMIT_EXCEEDED,
};
use crate::model::manager::{
    ExecResult, LimitExceeded, ManagerError, NOT_EXECUTED_FAILED, execute_with_counts,
    limit_generation, tool_call_message,
};
use crate::model::message::{Generation, Message, ToolResponse};
use crate::model::tools::{ToolSpec, Toolbox, duplicate_request_names};

/// `java.lang.UnsupportedOperationException`.
const UNSUPPORTED_OPERATION: &str = "java.lang.UnsupportedOperationException";

/// The message of the exception 1.1.2's `ToolCallAdvisor#adviseStream`
/// fails every stream with.
const UNIMPLEMENTED_ADVISE_STREAM: &str = "Unimplemented method 'adviseStream'";

/// Why 1.1's chat model loop refuses what sits inside an advisor's loop.
pub(crate) const NO_ADVISOR: &str =
    "has no ToolCallingAdvisor (its tool loop runs inside the chat model)";

/// Why 1.1's `ToolCallAdvisor` refuses conversation history off and an
/// advisor of this project inside it.
pub(crate) const IN_TOOL_CALL_ADVISOR: &str = "runs ToolCallAdvisor's loop, which always sends the whole history and is not modelled with another advisor inside it";

/// One user turn through the tool loop, between two model calls: the pure
/// state of `ToolCallingAdvisor.adviseCall`'s loop, in the mould of the
/// manager's [`Batch`](crate::model::Batch).
///
/// Each round is two steps that consume the state: `Turn::ask` builds
/// the next request (what the chat model receives, and the Gemini verdict
/// on it) or ends the turn before the call; `Asking::answer` takes the
/// model's reply and the toolbox, runs the batch of tool calls, and either
/// goes on to the next round or ends the turn with its [`LoopRun`].
/// [`run_loop`](super::run_loop) and `run_loop_with_messages` are thin drivers over a
/// script.
///
/// Everything a round depends on is in the state or passed in: the memories,
/// the turn's tool-call counts, the requests and verdicts so far, and the
/// incremental Gemini request builder with what the validator already
/// accepted; the toolbox, whose tools may answer differently call after
/// call, is the caller's and passed to each answer. So:
///
/// * a streaming loop (`ToolCallingAdvisor.adviseStream`) holds the
///   `Asking` while a reply's chunks arrive, aggregates them into the
///   reply's generations, and answers with those: tool execution and the
///   next round are the same steps;
/// * a checker that shares scenario prefixes clones the state after round
///   `k` (a [`Turn`], or the `Asking` with round `k + 1`'s request
///   already built) together with the toolbox, and continues each clone
///   with a different next reply: the state after `k` rounds is the same
///   for every scenario sharing the first `k` replies.
///
/// A driver of one turn by hand, the model scripted:
///
/// ```
/// use toolcall_model::chat::{Answer, Ask, EndKind, LoopConfig, Turn};
/// use toolcall_model::model::{Generation, Message, ToolCall, ToolSpec, Toolbox};
/// let cfg = LoopConfig::new(Default::default());
/// let mut toolbox = Toolbox::new(vec![ToolSpec::returning("weather", "\"sunny\"")]);
/// // The model's replies, one per call: a tool call, then the answer.
/// let replies = [
///     vec![Generation { tool_calls: vec![ToolCall::new("1", "weather", "{}")].into(), ..Default::default() }],
///     vec![Generation { text: Some("It is sunny.".into()), ..Default::default() }],
/// ];
/// let mut turn = Turn::new(&cfg, vec![Message::user("Weather?")], toolbox.tools());
/// let run = loop {
///     let asking = match turn.ask().unwrap() {
///         Ask::Model(asking) => asking,
///         Ask::End(run) | Ask::Unconverted(run, _) => break run,
///     };
///     // What the chat model receives: its messages, and for Gemini the request.
///     assert!(!asking.messages().is_empty());
///     let reply = &replies[asking.call() - 1];
///     match asking.answer(reply, &mut toolbox) {
///         Answer::Next(next) => turn = next,
///         Answer::End(run) => break run,
///     }
/// };
/// assert_eq!(run.kind, EndKind::Completed);
/// assert_eq!(run.requests.len(), 2);
/// ```
#[derive(Debug, Clone)]
pub struct Turn<'c> {
    cfg: &'c LoopConfig,
    /// The chat memory, inside or outside the loop as configured (neither
    /// read nor written with [`Memory::None`]).
    memory: ChatMemory,
    /// The turn history: the request's messages, then each round's call and
    /// responses.
    full: Vec<Message>,
    /// Some(the next prompt) only when conversation history is off.
    trimmed: Option<Vec<Message>>,
    requests: Vec<Sent>,
    verdicts: Vec<Result<(), Rejection>>,
    /// Model calls answered so far.
    calls: usize,
    /// What the turn keeps rather than computes again: its counts, and
    /// what the next request can share with the last.
    kept: Kept,
    /// The request's tools refused before any advisor ran (boxed: the
    /// state moves at every step, and this is rare).
    refused: Option<Box<JavaException>>,
    /// For a streamed turn, the responses the client received so far.
    streamed: Option<Vec<Vec<Generation>>>,
}

/// What [`Turn::ask`] leads to.
///
/// ```
/// use toolcall_model::chat::{Ask, LoopConfig, Turn};
/// use toolcall_model::model::Message;
/// let cfg = LoopConfig::new(Default::default());
/// let Ask::Model(asking) = Turn::new(&cfg, vec![Message::user("hi")], &[]).ask().unwrap() else {
///     panic!("a turn with a user message calls the model");
/// };
/// assert_eq!(asking.call(), 1);
/// ```
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
///
/// ```
/// use toolcall_model::chat::{Answer, Ask, EndKind, LoopConfig, Turn};
/// use toolcall_model::model::{Generation, Message, Toolbox};
/// let cfg = LoopConfig::new(Default::default());
/// let Ask::Model(asking) = Turn::new(&cfg, vec![Message::user("hi")], &[]).ask().unwrap() else {
///     unreachable!()
/// };
/// let reply = [Generation { text: Some("hello".into()), ..Default::default() }];
/// // A reply without tool calls ends the turn.
/// let Answer::End(run) = asking.answer(&reply, &mut Toolbox::new(vec![])) else { unreachable!() };
/// assert_eq!(run.kind, EndKind::Completed);
/// ```
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

/// A turn waiting for the model's reply to its request: what the chat
/// model receives ([`Asking::messages`], [`Asking::request`] and the
/// validator's [`Asking::verdict`]), then [`Asking::answer`] or
/// [`Asking::answer_chunks`] with the reply.
///
/// ```
/// use toolcall_model::chat::{Ask, LoopConfig, Sent, Turn};
/// use toolcall_model::model::Message;
/// let cfg = LoopConfig::new(Default::default());
/// let Ask::Model(asking) = Turn::new(&cfg, vec![Message::user("hi")], &[]).ask().unwrap() else {
///     unreachable!()
/// };
/// assert_eq!(asking.messages(), [Message::user("hi")]);
/// // The provider is Gemini: the request is Gemini's, and the validator accepts it.
/// assert!(matches!(asking.request(), Sent::Gemini(_)));
/// assert_eq!(asking.verdict(), Some(&Ok(())));
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
    /// (see [`with_memory`](crate::chat::with_memory)).
    ///
    /// ```
    /// use toolcall_model::chat::{Ask, EndKind, LoopConfig, Turn};
    /// use toolcall_model::model::{Message, ToolSpec};
    /// let cfg = LoopConfig::new(Default::default());
    /// assert_eq!(Turn::new(&cfg, vec![Message::user("hi")], &[]).calls(), 0);
    /// // DefaultChatClientUtils refuses two request tools of one name.
    /// let twice = [ToolSpec::returning("x", "1"), ToolSpec::returning("x", "2")];
    /// let Ok(Ask::End(run)) = Turn::new(&cfg, vec![Message::user("hi")], &twice).ask() else {
    ///     unreachable!()
    /// };
    /// assert_eq!(run.kind, EndKind::Error);
    /// ```
    pub fn new(cfg: &'c LoopConfig, history: Vec<Message>, tools: &[ToolSpec]) -> Self {
        let start = match cfg.memory {
            Memory::None => &[],
            Memory::Inside | Memory::Outside => &cfg.memory_start[..],
        };
        let version = cfg.manager.version;
        let mut memory = ChatMemory::new(start, cfg.memory_max_messages, cfg.fixes(), version);
        // DefaultChatClientUtils.toChatClientRequest validates the request's
        // tool callbacks before any advisor runs
        // (ToolCallingChatOptions.validateToolCallbacks; 1.1.2 as well,
        // DefaultChatClientUtils line 140, before GoogleGenAiChatModel's
        // own check in buildRequestPrompt).
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
            kept: Kept::new(&history),
            full: history,
            trimmed: None,
            requests: Vec::new(),
            verdicts: Vec::new(),
            calls: 0,
            refused,
            streamed: None,
        }
    }

    /// The same turn streamed (`ChatClient.stream()`): answer it with
    /// `Asking::answer_chunks`; the run records what the client received
    /// ([`LoopRun::streamed`]) and the memory outside stores its aggregate.
    ///
    /// ```
    /// use toolcall_model::chat::{Answer, Ask, LoopConfig, Turn};
    /// use toolcall_model::model::{Generation, Message, Toolbox};
    /// let cfg = LoopConfig::new(Default::default());
    /// let turn = Turn::new(&cfg, vec![Message::user("hi")], &[]).streaming();
    /// let Ok(Ask::Model(asking)) = turn.ask() else { unreachable!() };
    /// let chunk = |t: &str| vec![Generation { text: Some(t.into()), ..Default::default() }];
    /// let answer = asking.answer_chunks(&[chunk("hel"), chunk("lo")], &mut Toolbox::new(vec![]));
    /// let Answer::End(run) = answer else { unreachable!() };
    /// assert_eq!(run.streamed.map(|s| s.len()), Some(2));
    /// ```
    pub fn streaming(mut self) -> Self {
        self.streamed.get_or_insert_with(Vec::new);
        self
    }

    /// The model calls answered so far.
    ///
    /// ```
    /// use toolcall_model::chat::{Answer, Ask, LoopConfig, Turn};
    /// use toolcall_model::model::{Generation, Message, ToolCall, ToolSpec, Toolbox};
    /// let cfg = LoopConfig::new(Default::default());
    /// let mut toolbox = Toolbox::new(vec![ToolSpec::returning("x", "1")]);
    /// let turn = Turn::new(&cfg, vec![Message::user("hi")], toolbox.tools());
    /// let Ok(Ask::Model(asking)) = turn.ask() else { unreachable!() };
    /// let call = [Generation { tool_calls: vec![ToolCall::new("1", "x", "{}")].into(), ..Default::default() }];
    /// let Answer::Next(turn) = asking.answer(&call, &mut toolbox) else { unreachable!() };
    /// assert_eq!(turn.calls(), 1);
    /// ```
    pub fn calls(&self) -> usize {
        self.calls
    }

    /// The next model call's request, through the advisors inside the loop
    /// and the provider's conversion; or the end of the turn before it.
    /// Fails when the loop reaches its bound of model calls.
    ///
    /// ```
    /// use toolcall_model::chat::{LoopConfig, LoopError, Turn};
    /// use toolcall_model::model::Message;
    /// let mut cfg = LoopConfig::new(Default::default());
    /// cfg.max_rounds = 0;
    /// let turn = Turn::new(&cfg, vec![Message::user("hi")], &[]);
    /// assert!(matches!(turn.ask(), Err(LoopError::TooManyRounds(0))));
    /// ```
    pub fn ask(mut self) -> Result<Ask<'c>, LoopError> {
        self.applicable()?;
        if let Some(e) = self.refused.take() {
            return Ok(Ask::End(self.finish(EndKind::Error, vec![], Some(*e))));
        }
        if self.streamed.is_some() && self.cfg.tool_call_advisor_of_1_1() {
            // ToolCallAdvisor#adviseStream of v1.1.2 fails the stream before
            // the chain goes on: a memory inside it is never reached.
            let e = JavaException::new(UNSUPPORTED_OPERATION, Some(UNIMPLEMENTED_ADVISE_STREAM));
            return Ok(Ask::End(self.finish(EndKind::Error, vec![], Some(e))));
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

    /// Refuses, on a version whose loop runs inside the chat model, what
    /// only `ToolCallingAdvisor` has: no advisor sits between the loop and
    /// the model (`GoogleGenAiChatModel#internalCall` recurses on
    /// `new Prompt(conversationHistory, options)`, line 473 of v1.1.2).
    /// 1.1's `ToolCallAdvisor` takes a memory inside its loop, but always
    /// sends the whole history (its next instructions are the manager's
    /// `conversationHistory`, line 147 of v1.1.2), and this project's
    /// advisors inside it are not modelled.
    fn applicable(&self) -> Result<(), LoopError> {
        let cfg = self.cfg;
        let version = cfg.manager.version;
        if !version.loop_in_chat_model() {
            return Ok(());
        }
        let advisor = cfg.tool_call_advisor;
        let what = if cfg.memory == Memory::Inside && !advisor {
            "a memory inside the tool loop"
        } else if !cfg.conversation_history {
            "conversation history off"
        } else if cfg.gemini_tool_text {
            "an advisor inside the tool loop (gemini-tool-text)"
        } else if cfg.tool_feedback {
            "an advisor inside the tool loop (tool-feedback)"
        } else {
            return Ok(());
        };
        let why = match advisor {
            false => NO_ADVISOR,
            true => IN_TOOL_CALL_ADVISOR,
        };
        Err(LoopError::NotApplicable { version, what, why })
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
        let accepted = matches!(self.verdicts.last(), Some(Ok(())));
        match self.kept.extend_request(&self.full, cfg, accepted) {
            Ok((r, verdict)) => Ask::Model(Asking {
                turn: self,
                request: Sent::Gemini(r),
                verdict: Some(verdict),
                prompt: None,
                system: None,
            }),
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
    /// request where its messages are known.
    fn rebuild_request(&self, messages: &[Message]) -> Result<Request, JavaException> {
        self.kept.rebuild_request(
            &self.full,
            self.requests.last(),
            messages,
            self.cfg.fixes(),
            self.cfg.manager.version,
        )
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
        let end = match execute_with_counts(
            &cfg.manager,
            history,
            reply,
            self.kept.counts.clone(),
            toolbox,
        ) {
            Ok((result, after)) => {
                self.kept.counts = after;
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
                self.kept.counts = e.counts.clone();
                BatchEnd::Breach(e)
            }
            Err(e) => BatchEnd::Failed(e),
        };
        // close-dangling-calls closes the inside memory when the loop ends,
        // streamed or not: the fix library's FixingToolCallingAdvisor hands
        // the closing message over after adviseCall returns and when the
        // stream of adviseStream completes (docs/FIXES.md).
        if cfg.memory == Memory::Inside
            && let Some(m) = end.closing(reply, cfg.fixes())
        {
            self.memory.add([m]);
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
            kept: Kept { counts, .. },
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
        // 1.1's advisor falls back to the default conversation id.
        let (kind, generations, error) = match &streamed {
            Some(received)
                if received.is_empty()
                    && cfg.memory == Memory::Outside
                    && error.is_none()
                    && cfg.manager.version.memory_of_2_0() =>
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
            next_request: (cfg.fixes(), cfg.validator, cfg.manager.version),
            counts,
            windowed,
            streamed,
        }
    }
}

impl<'c> Asking<'c> {
    /// Which model call of the turn this is, from 1 (see [`Asking`]).
    pub fn call(&self) -> usize {
        self.turn.calls + 1
    }

    /// The request the chat model receives: Gemini's, or the messages for
    /// another provider (see [`Asking`]).
    pub fn request(&self) -> &Sent {
        &self.request
    }

    /// The Gemini validator's verdict on the request; `None` for another
    /// provider (see [`Asking`]).
    pub fn verdict(&self) -> Option<&Result<(), Rejection>> {
        self.verdict.as_ref()
    }

    /// The messages the chat model receives, after the advisors and the
    /// memory inside the loop (see [`Asking`]).
    pub fn messages(&self) -> &[Message] {
        match &self.prompt {
            Some(p) => p,
            None => self.turn.trimmed.as_deref().unwrap_or(&self.turn.full),
        }
    }

    /// The model's reply (its generations): the tool calls of the first
    /// generation that has any run against `toolbox`, and the loop goes on
    /// or the turn ends (see [`Turn`] for a whole loop).
    pub fn answer(self, reply: &[Generation], toolbox: &mut Toolbox) -> Answer<'c> {
        let Asking {
            mut turn,
            request,
            verdict,
            prompt,
            system,
        } = self;
        let trimmed = turn.trimmed.is_some();
        turn.kept.sent(prompt, &request, trimmed, turn.full.len());
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
    /// received (see [`Turn::streaming`]).
    ///
    /// On a version whose loop runs inside the chat model
    /// ([`SpringAi::loop_in_chat_model`](crate::model::SpringAi::loop_in_chat_model)),
    /// each chunk is a response of its own (`GoogleGenAiChatModel#internalStream`,
    /// lines 581-604 of v1.1.2): the chunks before the first one with a tool
    /// call reach the client, and the manager runs on that chunk itself, not
    /// on an aggregate; the chunks after it run concurrently with the
    /// manager in Java and are not modelled (the drivers refuse such a
    /// round, `LoopError::Unordered`).
    pub fn answer_chunks(
        mut self,
        chunks: &[Vec<Generation>],
        toolbox: &mut Toolbox,
    ) -> Answer<'c> {
        if self.turn.cfg.loop_in_chat_model()
            && let Some(i) = chunks.iter().position(|c| !reaches_client(c))
        {
            if let Some(received) = &mut self.turn.streamed {
                received.extend(chunks[..i].iter().cloned());
            }
            return self.answer(&chunks[i], toolbox);
        }
        if let Some(received) = &mut self.turn.streamed {
            received.extend(chunks.iter().filter(|c| reaches_client(c)).cloned());
        }
        let reply = [aggregate_chunks(chunks)];
        self.answer(&reply, toolbox)
    }
}

/// How a batch of tool calls ended the turn.
pub(super) enum BatchEnd {
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
    pub(super) fn closing(&self, reply: &[Generation], fixes: Fixes) -> Option<Message> {
        if !fixes.contains(Fix::CloseDanglingCalls) {
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
