//! The tool-calling manager: `DefaultToolCallingManager.executeToolCalls`
//! as a pure state machine.
//!
//! A [`Batch`] is the state of one batch of tool calls (the turn's counts, the
//! responses so far and the `returnDirect` accumulated so far). Each call is
//! one step, [`Batch::call`], which consumes the state and says what happens
//! next: the call was answered without running the tool, the tool must run
//! (the caller runs it and hands the result to [`Pending::complete`]), or the
//! batch stops. [`execute_tool_calls`] is the thin driver that runs a whole
//! batch against a scripted [`Toolbox`].

use crate::model::behavior::{Fix, Fixes, SpringAi};
use crate::model::java::{
    ClassTable, ILLEGAL_ARGUMENT, ILLEGAL_STATE, JavaException, TOOL_CALL_LIMIT_EXCEEDED, has_text,
};
use crate::model::limits::{Breach, Counts, OnExceeded, ToolCallLimits, current_turn, decimal};
use crate::model::message::{Generation, Message, ToolCall, ToolResponse};
use crate::model::processor::{Handling, Piece, Processor, tool_execution_exception};
use crate::model::shared_str::SharedStr;
use crate::model::tools::{ToolRef, ToolResult, Toolbox};
use serde_json::{Map, Value};

/// The data of a call closed by `close-dangling-calls`.
pub const NOT_EXECUTED: &str =
    "Not executed: a tool call limit was exceeded earlier in this batch.";
/// The data of a call closed by `close-dangling-calls` when its batch failed
/// with an exception (this project's extension of the fix; the exception
/// still reaches the caller).
pub(crate) const NOT_EXECUTED_FAILED: &str = "Not executed: the batch of tool calls failed.";
/// The message of `Assert.hasText(toolName, ...)` in
/// `DelegatingToolCallbackResolver.resolve` (and in the builder's
/// `maxCallsPerTool(String, int)` and `excludeToolFromLimit`).
pub const BLANK_TOOL_NAME: &str = "toolName cannot be null or empty";
/// `ToolCallLimitExceededException.FINISH_REASON`.
pub const FINISH_REASON_LIMIT: &str = "toolCallLimitExceeded";
/// `ToolCallLimitExceededException.METADATA_PARTIAL_TOOL_RESPONSES`.
pub(crate) const METADATA_PARTIAL_TOOL_RESPONSES: &str = "partialToolResponses";

/// Everything that configures the manager.
///
/// ```
/// let cfg = toolcall_model::model::Config::default();
/// assert!(!cfg.resolution_fallback);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Config {
    /// The limits.
    pub limits: ToolCallLimits,
    /// Whether a name not among the request's tools is looked up in the resolver.
    pub resolution_fallback: bool,
    /// The exception processor.
    pub processor: Processor,
    /// The exception classes the processor reasons about.
    pub classes: ClassTable,
    /// The behaviour set.
    pub fixes: Fixes,
    /// The Spring AI version whose manager this is.
    pub version: SpringAi,
}

impl Config {
    /// Whether a name not among the request's tools is looked up through
    /// the resolver: `resolution_fallback` on 2.0.1, always on 2.0.0.
    pub fn resolves(&self) -> bool {
        self.resolution_fallback || !self.version.has_resolution_switch()
    }
}

/// `ToolExecutionResult`: the conversation history after the batch and the
/// `returnDirect` flag.
///
/// ```
/// let r = toolcall_model::model::ExecResult { history: vec![], return_direct: false };
/// assert!(r.last_responses().is_empty());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ExecResult {
    /// `instructions` + the assistant message + one tool message.
    pub history: Vec<Message>,
    /// Whether the loop should hand the responses to the client directly.
    pub return_direct: bool,
}

impl ExecResult {
    /// The responses of the last message if it is a tool message.
    ///
    /// ```
    /// use toolcall_model::model::{ExecResult, Message, ToolResponse};
    /// let r = ExecResult { history: vec![Message::Tool { responses: vec![ToolResponse::new("1", "x", "")].into() }], return_direct: true };
    /// assert_eq!(r.last_responses().len(), 1);
    /// ```
    pub fn last_responses(&self) -> &[ToolResponse] {
        self.history.last().map_or(&[], Message::responses)
    }

    /// `ToolExecutionResult.buildGenerations`: one generation per response of
    /// the last tool message: text = data, finish reason `returnDirect`,
    /// metadata `toolId` and `toolName`.
    pub(crate) fn build_generations(&self) -> Vec<Generation> {
        self.last_responses()
            .iter()
            .map(|r| {
                let mut metadata = Map::new();
                metadata.insert("toolId".into(), Value::String(r.id.to_string()));
                metadata.insert("toolName".into(), Value::String(r.name.to_string()));
                Generation {
                    kind: None,
                    text: Some(r.data.clone()),
                    tool_calls: vec![].into(),
                    finish_reason: Some("returnDirect".into()),
                    metadata: metadata.into(),
                }
            })
            .collect()
    }
}

/// `ToolCallLimitExceededException`.
#[derive(Debug, Clone, PartialEq)]
pub struct LimitExceeded {
    /// Which limit broke.
    pub breach: Breach,
    /// `getPartialToolExecutionResult()`.
    pub partial: ExecResult,
    /// Index of the breach response in the partial result's last message
    /// (upstream: always the last; with `close-dangling-calls` the closed
    /// calls follow it).
    pub breach_index: usize,
    /// The turn's counts at the breach, the breached call included (not
    /// part of the Java exception: the model's record for the loop).
    pub counts: Counts,
}

impl LimitExceeded {
    /// `getMessage()`.
    pub fn message(&self) -> String {
        self.breach.exception_message()
    }

    /// `buildGeneration()`: text = the breach response's data (or the
    /// exception message when the partial result ends without responses),
    /// finish reason `toolCallLimitExceeded`, metadata `partialToolResponses`
    /// = the responses before the breach one.
    pub(crate) fn build_generation(&self) -> Generation {
        let responses = self.partial.last_responses();
        match responses.get(self.breach_index) {
            Some(r) => limit_generation(r.data.clone(), &responses[..self.breach_index]),
            None => limit_generation(self.message().into(), &[]),
        }
    }
}

/// `buildGeneration()`'s generation: `text`, finish reason
/// `toolCallLimitExceeded`, metadata `partialToolResponses` = `partial`.
/// A `ToolCallLimitExceededException` whose partial result holds no
/// responses (as the cause `breach-through-processor` gives the processor)
/// builds it from its message and no responses.
pub(crate) fn limit_generation(text: SharedStr, partial: &[ToolResponse]) -> Generation {
    let partial = partial
        .iter()
        .map(|r| serde_json::to_value(r).unwrap_or(Value::Null))
        .collect();
    let mut metadata = Map::new();
    metadata.insert(
        METADATA_PARTIAL_TOOL_RESPONSES.into(),
        Value::Array(partial),
    );
    Generation {
        kind: None,
        text: Some(text),
        tool_calls: vec![].into(),
        finish_reason: Some(FINISH_REASON_LIMIT.into()),
        metadata: metadata.into(),
    }
}

/// Why `executeToolCalls` did not return a result.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ManagerError {
    /// A Java exception escaped (lookup failure, processor rethrow, an
    /// unwrapped tool exception, no tool call requested).
    #[error("{0}")]
    Java(JavaException),
    /// `ToolCallLimitExceededException` under `THROW`.
    #[error("{}: {}", TOOL_CALL_LIMIT_EXCEEDED, .0.message())]
    LimitExceeded(Box<LimitExceeded>),
}

impl ManagerError {
    /// The Java exception as class and message.
    ///
    /// ```
    /// use toolcall_model::model::{JavaException, ManagerError};
    /// let e = ManagerError::Java(JavaException::new("java.lang.IllegalStateException", Some("x")));
    /// assert_eq!(e.java().class, "java.lang.IllegalStateException");
    /// ```
    pub fn java(&self) -> JavaException {
        match self {
            ManagerError::Java(e) => e.clone(),
            ManagerError::LimitExceeded(l) => {
                JavaException::new(TOOL_CALL_LIMIT_EXCEEDED, Some(&l.message()))
            }
        }
    }
}

fn illegal_state(message: SharedStr) -> ManagerError {
    ManagerError::Java(JavaException {
        class: ILLEGAL_STATE.into(),
        message: Some(message),
        cause: None,
    })
}

/// The state of one batch: the turn's counts (including every call of the
/// batch checked so far), the responses so far, and `returnDirect` so far
/// (`None` until a tool runs).
///
/// ```
/// use toolcall_model::model::{Batch, Config, Step, ToolCall, Toolbox};
/// let b = Batch::new(Default::default());
/// let tb = Toolbox::new(vec![]);
/// // an unknown tool fails the batch
/// let step = b.call(&ToolCall::new("1", "nope", "{}"), &Config::default(), |n| tb.find(n, false));
/// assert!(matches!(step, Step::Failed(_)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    counts: Counts,
    responses: Vec<ToolResponse>,
    return_direct: Option<bool>,
    /// The batch's last breach and its response: a batch past a limit
    /// breaches it again at every later call to the tool (or any call,
    /// past the total), and the same breach gets the same text, shared
    /// rather than written again.
    last_breach: Option<(Breach, SharedStr)>,
}

/// What one call step leads to.
#[derive(Debug)]
pub enum Step {
    /// The call was answered without running a tool (a breach under
    /// `RETURN_ERROR_RESPONSE`); go on with the next call.
    Answered(Batch),
    /// The tool must run; hand its result to [`Pending::complete`].
    Invoke(Pending),
    /// No such tool, and (under `unknown-tool-to-processor`) the
    /// exception processor answered the call; go on with the next call.
    Missing(Batch),
    /// A breach under `THROW`: the batch stops. The batch holds the breach
    /// response as its last response.
    Breached(Batch, Breach),
    /// The batch failed; earlier responses are discarded.
    Failed(ManagerError),
}

/// A call whose tool must run before the batch can go on.
#[derive(Debug)]
pub struct Pending {
    batch: Batch,
    id: SharedStr,
    name: SharedStr,
    arguments: SharedStr,
    tool: ToolRef,
}

impl Pending {
    /// The tool to run.
    pub fn tool(&self) -> ToolRef {
        self.tool
    }

    /// The argument text the tool receives (blank became `{}`).
    pub fn arguments(&self) -> &SharedStr {
        &self.arguments
    }

    /// Feeds the tool's result back: a returned value (null as `""`) or the
    /// processor's text becomes the response; what the processor throws, or
    /// an exception that is not a `ToolExecutionException`, fails the batch.
    ///
    /// `DefaultToolCallingManager.executeToolCall` wraps the callback in
    /// `catch (ToolExecutionException ex)`: what the callback threw (built
    /// by `ClassTable::instantiate`,
    /// wrapped once more if the outcome says so) is caught when its class is
    /// `ToolExecutionException` or a subclass, whoever threw it, and handed
    /// to the exception processor; anything else escapes unchanged.
    pub fn complete(self, result: ToolResult, cfg: &Config) -> Result<Batch, ManagerError> {
        let Pending {
            mut batch,
            id,
            name,
            ..
        } = self;
        batch.record(id, name, result, cfg)?;
        Ok(batch)
    }
}

/// What one call step leads to, the batch kept where it is: [`Step`]
/// without the batch, so that the driver steps one batch in place rather
/// than moving it through every step.
enum Next<'c> {
    Answered,
    /// The tool to run and the call's argument text (`None`: blank, so `{}`).
    Invoke(ToolRef, Option<&'c SharedStr>),
    Missing,
    Breached(Breach),
    Failed(ManagerError),
}

/// The argument text a tool receives: blank became `{}`.
fn normalised(arguments: Option<&SharedStr>) -> SharedStr {
    arguments.map_or_else(|| "{}".into(), SharedStr::clone)
}

impl Batch {
    /// A batch starting from the turn's prior counts.
    pub fn new(prior: Counts) -> Self {
        Batch::with_room(prior, 0)
    }

    /// What the manager decides of a batch from the turn before it runs
    /// its calls: the breach (its index among `calls`, counted from
    /// `prior`) at which the batch, once answered whole, ends the turn as
    /// `THROW` does, or `None` when the turn goes on. The driver
    /// ([`execute_with_counts`]) and every step-by-step replay of a batch
    /// ask here, beside the steps: a fix that ends a turn after a batch is
    /// written here alone. Today `end-turn-after-breach`
    /// ([`ends_turn_at_breach`]).
    ///
    /// ```
    /// use toolcall_model::model::{Batch, Config, Counts, Message, ToolCall};
    /// let turn = [Message::user("q")];
    /// let calls = [ToolCall::new("1", "x", "{}")];
    /// assert!(Batch::ends_turn(&Config::default(), &turn, &calls, &Counts::default()).is_none());
    /// ```
    pub fn ends_turn(
        cfg: &Config,
        instructions: &[Message],
        calls: &[ToolCall],
        prior: &Counts,
    ) -> Option<(usize, Breach)> {
        ends_turn_at_breach(cfg, instructions, calls, prior)
    }

    /// A batch with room for `calls` responses.
    fn with_room(prior: Counts, calls: usize) -> Self {
        Batch {
            counts: prior,
            responses: Vec::with_capacity(calls),
            return_direct: None,
            last_breach: None,
        }
    }

    /// The counts so far (prior calls plus every call of this batch checked so far).
    pub fn counts(&self) -> &Counts {
        &self.counts
    }

    /// The responses so far.
    pub fn responses(&self) -> &[ToolResponse] {
        &self.responses
    }

    /// One step of `DefaultToolCallingManager.executeToolCall`'s loop, in its
    /// order: count, check the limits, then normalise arguments, look the
    /// tool up among the request's callbacks (exact name), then ask the
    /// resolver when resolution fallback is on, and ask for the tool to run.
    ///
    /// `find` is the lookup (request tools, then the resolver when
    /// `cfg.resolution_fallback` is on). When it finds nothing, the batch
    /// fails: with fallback on and a name without text
    /// (`!StringUtils.hasText`), the resolver's own assertion fails first
    /// (`IllegalArgumentException: toolName cannot be null or empty`,
    /// `DelegatingToolCallbackResolver.resolve`); otherwise
    /// `IllegalStateException: No ToolCallback found for tool name: NAME`.
    pub fn call(
        mut self,
        call: &ToolCall,
        cfg: &Config,
        find: impl FnOnce(&str) -> Option<ToolRef>,
    ) -> Step {
        match self.step(call, cfg, find) {
            Next::Answered => Step::Answered(self),
            Next::Invoke(tool, arguments) => Step::Invoke(Pending {
                batch: self,
                id: call.id.clone(),
                name: call.name.clone(),
                arguments: normalised(arguments),
                tool,
            }),
            Next::Missing => Step::Missing(self),
            Next::Breached(breach) => Step::Breached(self, breach),
            Next::Failed(e) => Step::Failed(e),
        }
    }

    /// [`Batch::call`] on the batch in place.
    fn step<'c>(
        &mut self,
        call: &'c ToolCall,
        cfg: &Config,
        find: impl FnOnce(&str) -> Option<ToolRef>,
    ) -> Next<'c> {
        let (count, total) = self.counts.add(&call.name);
        // Spring AI 2.0.0 has no limits to check.
        let breach = if cfg.version.has_limits() {
            cfg.limits.check(&call.name, count, total)
        } else {
            None
        };
        if let Some(breach) = breach {
            let data = match &self.last_breach {
                Some((last, text)) if *last == breach => text.clone(),
                _ => match breach_response(cfg, &breach) {
                    Ok(t) => {
                        self.last_breach = Some((breach.clone(), t.clone()));
                        t
                    }
                    Err(thrown) => return Next::Failed(ManagerError::Java(thrown)),
                },
            };
            self.responses.push(ToolResponse {
                id: call.id.clone(),
                name: call.name.clone(),
                data,
                error: true,
            });
            return match cfg.limits.on_exceeded {
                OnExceeded::Throw => Next::Breached(breach),
                OnExceeded::ReturnErrorResponse => Next::Answered,
            };
        }
        let arguments = call.arguments.as_ref().filter(|a| has_text(a));
        let Some(tool) = find(&call.name) else {
            if cfg.resolves() && !has_text(&call.name) {
                // Not among the request's callbacks, so the resolver was
                // asked: DelegatingToolCallbackResolver.resolve (like
                // StaticToolCallbackResolver.resolve) starts with
                // Assert.hasText(toolName, ...).
                return Next::Failed(ManagerError::Java(JavaException::new(
                    ILLEGAL_ARGUMENT,
                    Some(BLANK_TOOL_NAME),
                )));
            }
            let missing = SharedStr::concat(["No ToolCallback found for tool name: ", &call.name]);
            if !cfg.fixes.contains(Fix::UnknownToolToProcessor) {
                return Next::Failed(illegal_state(missing));
            }
            // The fix: the refusal becomes the call's ToolExecutionException,
            // processed as a tool's failure; a call that runs no tool makes
            // the batch no returnDirect one, as a tool without it would.
            let cause = JavaException {
                class: ILLEGAL_STATE.into(),
                message: Some(missing),
                cause: None,
            };
            return match cfg.processor.process(&call.name, &cause, &cfg.classes) {
                Ok(data) => {
                    self.return_direct = Some(false);
                    self.responses.push(ToolResponse {
                        id: call.id.clone(),
                        name: call.name.clone(),
                        data,
                        error: true,
                    });
                    Next::Missing
                }
                Err(thrown) => Next::Failed(ManagerError::Java(thrown)),
            };
        };
        self.return_direct = Some(self.return_direct.unwrap_or(true) && tool.return_direct);
        Next::Invoke(tool, arguments)
    }

    /// [`Pending::complete`] on the batch in place, for the call `id` to
    /// the tool `name`.
    fn record(
        &mut self,
        id: SharedStr,
        name: SharedStr,
        result: ToolResult,
        cfg: &Config,
    ) -> Result<(), ManagerError> {
        let (data, error) = match result {
            ToolResult::Returned(t) => (t.unwrap_or_default(), false),
            ToolResult::Threw { exception, wrapped } => {
                let thrown = cfg.classes.instantiate(&exception);
                let processed = if wrapped {
                    // A `ToolExecutionException` around `thrown`, which the
                    // manager catches: the processor builds it only to
                    // rethrow it.
                    cfg.processor.process(&name, &thrown, &cfg.classes)
                } else if cfg.classes.is_tool_execution_exception(&thrown.class) {
                    cfg.processor
                        .process_exception(&name, &thrown, &cfg.classes)
                } else {
                    return Err(ManagerError::Java(thrown));
                };
                match processed {
                    Ok(text) => (text, true),
                    Err(e) => return Err(ManagerError::Java(e)),
                }
            }
        };
        self.responses.push(ToolResponse {
            id,
            name,
            data,
            error,
        });
        Ok(())
    }

    /// Ends the batch: `instructions` + the assistant message + one tool
    /// message with the responses; `returnDirect` false when no tool ran.
    pub fn finish(self, instructions: Vec<Message>, assistant: Message) -> (ExecResult, Counts) {
        // Taking the history by value keeps a batch O(its own calls): the
        // turn's earlier messages are moved, never copied.
        let mut history = instructions;
        history.push(assistant);
        history.push(Message::Tool {
            responses: self.responses.into(),
        });
        (
            ExecResult {
                history,
                return_direct: self.return_direct.unwrap_or(false),
            },
            self.counts,
        )
    }

    /// Ends a batch stopped by a breach under `THROW`: with
    /// `close-dangling-calls`, every later call gets a [`NOT_EXECUTED`]
    /// error response after the breach response. With
    /// `breach-through-processor` too, that text is shaped by the exception
    /// processor like the breach text (the default processor leaves it as
    /// it is; the JSON-error one makes it `{"error":...}`), so that a
    /// processor chosen for provider safety reaches every text the manager
    /// writes. The processor accepted the breach, whose cause has the same
    /// class, so it accepts these too; should it not, the plain text stands.
    pub fn throw(
        mut self,
        breach: Breach,
        later_calls: &[ToolCall],
        instructions: Vec<Message>,
        assistant: Message,
        cfg: &Config,
    ) -> LimitExceeded {
        let breach_index = self.responses.len().saturating_sub(1);
        if cfg.fixes.contains(Fix::CloseDanglingCalls) && !later_calls.is_empty() {
            // One text, shared by every closed call.
            let data = not_executed_response(cfg);
            self.responses
                .extend(later_calls.iter().map(|c| ToolResponse {
                    id: c.id.clone(),
                    name: c.name.clone(),
                    data: data.clone(),
                    error: true,
                }));
        }
        let (partial, counts) = self.finish(instructions, assistant);
        LimitExceeded {
            breach,
            partial,
            breach_index,
            counts,
        }
    }
}

/// The response to a call that breached a limit: the breach's text, or
/// with `breach-through-processor` what the exception processor makes of
/// it (the fix wraps the breach as a `ToolExecutionException` whose cause
/// carries the text, so the user's processor shapes it); what the
/// processor throws fails the batch.
pub(crate) fn breach_response(cfg: &Config, breach: &Breach) -> Result<SharedStr, JavaException> {
    if !cfg.fixes.contains(Fix::BreachThroughProcessor) {
        return Ok(breach.message());
    }
    // What the processor does reads the cause's class alone, and a
    // breach's text has text (so the tool's name, which only the
    // processor's fallback text shows, is not read): no exception is built
    // unless one is thrown, and the answer is written from the text's pieces.
    let mut digits = [0u8; 10];
    let digits = decimal(breach.limit, &mut digits);
    match cfg
        .processor
        .handling(TOOL_CALL_LIMIT_EXCEEDED, &cfg.classes)
    {
        Handling::Answer => Ok(cfg.processor.answer(&breach.pieces(digits))),
        Handling::RethrowCause => Err(limit_cause(breach.message())),
        Handling::RethrowException => Err(tool_execution_exception(&limit_cause(breach.message()))),
    }
}

/// Whether `breach-through-processor` leaves every text the manager
/// writes at a breach as it is under `cfg`'s processor (whether `cfg` has
/// the fix on or not): the breach's text (`breach_response`) and
/// [`NOT_EXECUTED`] for the calls a breach under `THROW` closes. The
/// processor's answer reads the cause's class alone, so this holds for
/// every breach or for none: the default processor answering a
/// `ToolCallLimitExceededException` gives its text back.
pub fn breaches_pass_unshaped(cfg: &Config) -> bool {
    cfg.processor.kind == crate::model::processor::ProcessorKind::Default
        && cfg
            .processor
            .handling(TOOL_CALL_LIMIT_EXCEEDED, &cfg.classes)
            == Handling::Answer
}

/// The `ToolCallLimitExceededException` that `breach-through-processor`
/// hands the processor as the cause, carrying `text`.
fn limit_cause(text: SharedStr) -> JavaException {
    JavaException {
        class: TOOL_CALL_LIMIT_EXCEEDED.into(),
        message: Some(text),
        cause: None,
    }
}

/// The response `close-dangling-calls` gives a call after a breach under
/// `THROW`: [`NOT_EXECUTED`], shaped by the exception processor under
/// `breach-through-processor` like the breach text. The processor accepted
/// the breach, whose cause has the same class, so it accepts this too;
/// should it not, the plain text stands.
pub(crate) fn not_executed_response(cfg: &Config) -> SharedStr {
    if cfg.fixes.contains(Fix::BreachThroughProcessor)
        && cfg
            .processor
            .handling(TOOL_CALL_LIMIT_EXCEEDED, &cfg.classes)
            == Handling::Answer
    {
        return cfg.processor.answer(&[Piece::Plain(NOT_EXECUTED)]);
    }
    NOT_EXECUTED.into()
}

/// The first generation with at least one tool call, as an assistant message.
///
/// ```
/// use toolcall_model::model::{tool_call_message, Generation, ToolCall};
/// let gens = [Generation::default(), Generation { tool_calls: vec![ToolCall::new("1", "x", "")].into(), ..Default::default() }];
/// assert!(tool_call_message(&gens).is_some());
/// ```
pub fn tool_call_message(generations: &[Generation]) -> Option<Message> {
    answered_generation(generations).map(Generation::to_message)
}

/// The generation whose tool calls the manager runs: the first with any.
pub fn answered_generation(generations: &[Generation]) -> Option<&Generation> {
    generations.iter().find(|g| !g.tool_calls.is_empty())
}

/// `executeToolCalls(prompt, chatResponse)`: counts are rebuilt from the
/// history, as upstream does on every batch.
///
/// ```
/// use toolcall_model::model::{execute_tool_calls, Config, Generation, Message, ToolCall, Toolbox, ToolSpec};
/// let mut tb = Toolbox::new(vec![ToolSpec::returning("echo", "\"HI\"")]);
/// let gens = [Generation { tool_calls: vec![ToolCall::new("c1", "echo", "{}")].into(), ..Default::default() }];
/// let r = execute_tool_calls(&Config::default(), &[Message::user("hi")], &gens, &mut tb).unwrap();
/// assert_eq!(r.history.len(), 3);
/// assert_eq!(r.last_responses()[0].data, "\"HI\"");
/// ```
pub fn execute_tool_calls(
    cfg: &Config,
    instructions: &[Message],
    generations: &[Generation],
    toolbox: &mut Toolbox,
) -> Result<ExecResult, ManagerError> {
    let prior = Counts::recount(instructions);
    // Room for the assistant message and the tool message the batch
    // appends, so that ending it does not copy the history again.
    let mut history = Vec::with_capacity(instructions.len() + 2);
    history.extend_from_slice(instructions);
    execute_with_counts(cfg, history, generations, prior, toolbox).map(|(r, _)| r)
}

/// `executeToolCalls` with the turn's prior counts given rather than rebuilt:
/// the incremental path the tool loop uses. Returns the counts after the
/// batch too. `prior` must equal `Counts::recount(&instructions)`.
pub fn execute_with_counts(
    cfg: &Config,
    instructions: Vec<Message>,
    generations: &[Generation],
    prior: Counts,
    toolbox: &mut Toolbox,
) -> Result<(ExecResult, Counts), ManagerError> {
    let Some(assistant) = tool_call_message(generations) else {
        return Err(illegal_state(
            "No tool call requested by the chat model".into(),
        ));
    };
    let calls = assistant.tool_calls();
    let ends_turn = Batch::ends_turn(cfg, &instructions, calls, &prior);
    let mut batch = Batch::with_room(prior, calls.len());
    toolbox.reserve(calls.len());
    let fallback = cfg.resolves();
    for (i, call) in calls.iter().enumerate() {
        match batch.step(call, cfg, |n| toolbox.find(n, fallback)) {
            Next::Answered | Next::Missing => {}
            Next::Invoke(tool, arguments) => {
                let result = toolbox.invoke(tool, normalised(arguments));
                batch.record(call.id.clone(), call.name.clone(), result, cfg)?;
            }
            Next::Breached(breach) => {
                let later = &calls[i + 1..];
                let e = batch.throw(breach, later, instructions, assistant.clone(), cfg);
                return Err(ManagerError::LimitExceeded(Box::new(e)));
            }
            Next::Failed(e) => return Err(e),
        }
    }
    let (result, counts) = batch.finish(instructions, assistant);
    match ends_turn {
        Some((breach_index, breach)) => Err(ManagerError::LimitExceeded(Box::new(LimitExceeded {
            breach,
            partial: result,
            breach_index,
            counts,
        }))),
        None => Ok((result, counts)),
    }
}

/// `end-turn-after-breach`: under `RETURN_ERROR_RESPONSE`, a batch with a
/// breach whose turn already had one (a tool response of the current turn
/// of `instructions` that breached, the limit check replayed over them in
/// order, each counting as the call it answers, as Spring counts) is
/// answered whole and then ends the turn as `THROW` does: a
/// [`LimitExceeded`] whose partial result is the whole batch and whose
/// breach response is the batch's first. This gives the batch's first
/// breach (its index among `calls`, counted from `prior`) when the batch
/// will end so; `None` otherwise.
pub fn ends_turn_at_breach(
    cfg: &Config,
    instructions: &[Message],
    calls: &[ToolCall],
    prior: &Counts,
) -> Option<(usize, Breach)> {
    if !cfg.fixes.contains(Fix::EndTurnAfterBreach)
        || cfg.limits.on_exceeded != OnExceeded::ReturnErrorResponse
        || !cfg.version.has_limits()
    {
        return None;
    }
    let breached_before = cfg
        .limits
        .first_breach(
            &mut Counts::default(),
            current_turn(instructions)
                .iter()
                .flat_map(Message::responses)
                .map(|r| &r.name),
        )
        .is_some();
    if !breached_before {
        return None;
    }
    cfg.limits
        .first_breach(&mut prior.clone(), calls.iter().map(|c| &c.name))
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.
    #[test]
    fn example_build_generations() {
        use crate::model::ExecResult;
        use crate::model::Message;
        use crate::model::ToolResponse;
        let r = ExecResult {
            history: vec![Message::Tool {
                responses: vec![ToolResponse::new("1", "x", "hi")].into(),
            }],
            return_direct: true,
        };
        assert_eq!(
            r.build_generations()[0].finish_reason.as_deref(),
            Some("returnDirect")
        );
    }

    #[test]
    fn example_limitexceeded() {
        use crate::model::Breach;
        use crate::model::ExecResult;
        use crate::model::LimitExceeded;
        let e = LimitExceeded {
            breach: Breach {
                tool_name: None,
                limit: 2,
            },
            partial: ExecResult {
                history: vec![],
                return_direct: false,
            },
            breach_index: 0,
            counts: Default::default(),
        };
        assert_eq!(
            e.message(),
            "Total tool call limit (2) exceeded for this turn"
        );
        assert_eq!(
            e.build_generation().text.as_deref(),
            Some("Total tool call limit (2) exceeded for this turn")
        );
    }

    #[test]
    fn example_limit_generation() {
        use crate::model::manager::limit_generation;
        let g = limit_generation("limit".into(), &[]);
        assert_eq!(g.finish_reason.as_deref(), Some("toolCallLimitExceeded"));
        assert_eq!(g.metadata["partialToolResponses"], serde_json::json!([]));
    }

    #[test]
    fn example_answered_generation() {
        use crate::model::Generation;
        use crate::model::ToolCall;
        use crate::model::manager::answered_generation;
        let gens = [
            Generation::default(),
            Generation {
                tool_calls: vec![ToolCall::new("1", "x", "")].into(),
                ..Default::default()
            },
        ];
        assert_eq!(answered_generation(&gens), Some(&gens[1]));
    }

    #[test]
    fn example_ends_turn_at_breach() {
        use crate::model::Config;
        use crate::model::Counts;
        use crate::model::Fix;
        use crate::model::Fixes;
        use crate::model::Message;
        use crate::model::OnExceeded;
        use crate::model::ToolCall;
        use crate::model::ToolCallLimits;
        use crate::model::ToolResponse;
        use crate::model::manager::ends_turn_at_breach;
        let limits = ToolCallLimits {
            on_exceeded: OnExceeded::ReturnErrorResponse,
            ..ToolCallLimits::default()
        }
        .max_calls_per_tool(1)
        .unwrap();
        let cfg = Config {
            limits,
            fixes: Fixes::only(Fix::EndTurnAfterBreach),
            ..Config::default()
        };
        let turn = [
            Message::user("q"),
            Message::Tool {
                responses: vec![
                    ToolResponse::new("1", "x", "{}"),
                    ToolResponse::new("2", "x", "breach"),
                ]
                .into(),
            },
        ];
        let calls = [ToolCall::new("3", "x", "{}")];
        let prior = Counts::recount(&turn);
        assert_eq!(
            ends_turn_at_breach(&cfg, &turn, &calls, &prior).map(|(i, _)| i),
            Some(0)
        );
        assert!(ends_turn_at_breach(&cfg, &turn[..1], &calls, &Counts::default()).is_none());
    }

    #[test]
    fn example_resolves() {
        use crate::model::Config;
        use crate::model::SpringAi;
        assert!(!Config::default().resolves());
        assert!(
            Config {
                version: SpringAi::V2_0_0,
                ..Config::default()
            }
            .resolves()
        );
    }
}
