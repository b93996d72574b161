//! Typed scenario inputs (quinn/regex style): small indices into pools of
//! names, outputs and classes, decoded with [`arbitrary`] into scenarios.

use std::cell::OnceCell;
use std::fmt::Debug;

use arbitrary::{Arbitrary, Unstructured};
use serde_json::{Map, Value, json};

use crate::verification::scenario::Scenario;
use toolcall_model::chat::{LoopConfig, Memory, Provider};
use toolcall_model::model::Config;
use toolcall_model::model::SharedMap;
use toolcall_model::model::SharedStr;
use toolcall_model::model::{
    ClassTable, ILLEGAL_ARGUMENT, ILLEGAL_STATE, JavaException, RUNTIME_EXCEPTION, THROWABLE,
    TOOL_CALL_LIMIT_EXCEEDED,
};
use toolcall_model::model::{Fix, Fixes};
use toolcall_model::model::{Generation, Message, ToolCall, ToolResponse};
use toolcall_model::model::{OnExceeded, ToolCallLimits};
use toolcall_model::model::{Outcome, Registered, ToolSpec};
use toolcall_model::model::{Processor, ProcessorKind};

use super::{MAX_CALLS, MAX_CASE_BYTES, MAX_PRIOR, MAX_ROUNDS, MAX_TEXT_CHARS, MAX_TOOLS};

/// Tool names, weighted towards the tools that always exist (`a`, `b`, `c`:
/// see [`ManagerSetup::tools`]); `d` exists only if the input declares it, `ghost`
/// never, and the blank name is refused by the limit builder.
pub(super) const NAMES: &[&str] = &["a", "b", "c", "a", "b", "d", "ghost", " "];

/// The tools [`ManagerSetup::tools`] adds when the input declares none of that name.
pub(super) const DEFAULT_TOOLS: &[&str] = &["a", "b", "c"];

/// Tool outputs: method-tool JSON, the texts of the seeds and issue 5437,
/// blank and near-JSON texts.
pub(super) const OUTPUTS: &[&str] = &[
    "\"SPRING AI\"",
    "{\"a\":1}",
    "42",
    "3.0 + 5.0 = 8.0",
    "[ERROR] disk full",
    "",
    "   ",
    "null",
    "true",
    "{\"error\":\"x\"}",
    "[1,2]",
    "{\"a\":1} trailing",
    "42apples",
    "\"unterminated",
    "{}",
    "\u{feff}{}",
    "sunny",
    "{\"a\":1,\"a\":2}",
];

/// Argument texts: JSON, empty, Java and non-Java whitespace, non-JSON.
pub(super) const ARGUMENTS: &[&str] = &[
    "{}",
    "",
    "  ",
    "\u{2003}",
    "\u{a0}",
    "{\"text\":\"spring ai\"}",
    "not json",
    "[1]",
    "{\"a\":1} x",
    "42",
];

/// Exception classes: runtime, checked and error ones, two user-declared
/// ones (see [`class_table`]), the limit exception and `Throwable`.
pub(super) const CLASSES: &[&str] = &[
    ILLEGAL_STATE,
    ILLEGAL_ARGUMENT,
    "java.lang.NumberFormatException",
    "java.lang.NullPointerException",
    RUNTIME_EXCEPTION,
    "java.io.IOException",
    "java.io.FileNotFoundException",
    "java.lang.Exception",
    "java.lang.AssertionError",
    "java.lang.OutOfMemoryError",
    "com.acme.Oops",
    "com.acme.CheckedOops",
    TOOL_CALL_LIMIT_EXCEEDED,
    THROWABLE,
];

/// The built-in classes plus the two user-declared ones of the declarations the fuzz targets draw from.
pub(crate) fn class_table() -> ClassTable {
    let mut t = ClassTable::builtin();
    t.declare("com.acme.Oops", ILLEGAL_STATE)
        .expect("a fresh declaration");
    t.declare("com.acme.CheckedOops", "java.io.IOException")
        .expect("a fresh declaration");
    t
}

pub(super) fn pick<'a>(pool: &[&'a str], i: u8) -> &'a str {
    pool[usize::from(i) % pool.len()]
}

/// Call ids: `c0` to `c7`, so that ids repeat within and across replies.
const IDS: &[&str] = &["c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7"];

/// One pool's texts as shared strings, each allocated on its first use.
struct Cells<const N: usize>([OnceCell<SharedStr>; N]);

impl<const N: usize> Default for Cells<N> {
    fn default() -> Self {
        Cells(std::array::from_fn(|_| OnceCell::new()))
    }
}

impl<const N: usize> Cells<N> {
    /// `pool[i % N]`, `pool` being the `N` texts these cells hold.
    fn get(&self, pool: &[&str], i: usize) -> SharedStr {
        let k = i % N;
        self.0[k].get_or_init(|| pool[k].into()).clone()
    }
}

/// The pools' texts as shared strings for the decoding of one input: a
/// scenario repeats a few names, ids, arguments and outputs in every call,
/// response and outcome, and a fresh copy of each was most of the
/// decoder's allocations (two each: the `String`, then the shared copy).
#[derive(Default)]
pub(super) struct Strings {
    names: Cells<{ NAMES.len() }>,
    ids: Cells<{ IDS.len() }>,
    arguments: Cells<{ ARGUMENTS.len() }>,
    outputs: Cells<{ OUTPUTS.len() }>,
    function: OnceCell<SharedStr>,
    ok: OnceCell<SharedStr>,
    signatures: [OnceCell<SharedMap>; 4],
}

impl Strings {
    fn name(&self, i: u8) -> SharedStr {
        self.names.get(NAMES, usize::from(i))
    }

    fn id(&self, i: u8) -> SharedStr {
        self.ids.get(IDS, usize::from(i))
    }

    /// One of [`DEFAULT_TOOLS`], shared with the same name drawn from [`NAMES`].
    fn default_tool(&self, name: &str) -> SharedStr {
        match NAMES.iter().position(|n| *n == name) {
            Some(i) => self.names.get(NAMES, i),
            None => name.into(),
        }
    }

    /// A generation's metadata with `n % 4` thought signatures (none when
    /// `n` is 0).
    fn signatures(&self, n: u8) -> SharedMap {
        if n == 0 {
            return SharedMap::new();
        }
        let k = n % 4;
        self.signatures[usize::from(k)]
            .get_or_init(|| {
                let sigs = (0..k).map(|i| json!(format!("sig{i}")));
                let mut metadata = Map::new();
                metadata.insert("thoughtSignatures".into(), Value::Array(sigs.collect()));
                metadata.into()
            })
            .clone()
    }

    /// The default tools' output.
    fn ok(&self) -> SharedStr {
        self.ok.get_or_init(|| "\"ok\"".into()).clone()
    }

    fn function(&self) -> SharedStr {
        self.function.get_or_init(|| "function".into()).clone()
    }

    fn output(&self, t: &Text) -> SharedStr {
        t.resolve(|i| self.outputs.get(OUTPUTS, usize::from(i)))
    }

    fn argument(&self, t: &Text) -> SharedStr {
        t.resolve(|i| self.arguments.get(ARGUMENTS, usize::from(i)))
    }
}

pub(super) fn bounded<T>(v: &[T], max: usize) -> &[T] {
    &v[..v.len().min(max)]
}

/// A text: one of a pool, or a short free-form one.
#[derive(Debug, Clone, Arbitrary)]
pub(crate) enum Text {
    /// The pool's entry at this index (modulo its length).
    Pool(u8),
    /// Free text, cut to `MAX_TEXT_CHARS` characters.
    Raw(String),
}

impl Text {
    fn resolve(&self, pool: impl FnOnce(u8) -> SharedStr) -> SharedStr {
        match self {
            Text::Pool(i) => pool(*i),
            // Cut at the character boundary, copied once: collecting the
            // characters one by one grows the string as it goes.
            Text::Raw(s) => match s.char_indices().nth(MAX_TEXT_CHARS) {
                Some((end, _)) => s[..end].into(),
                None => s.as_str().into(),
            },
        }
    }
}

/// One limit-builder call; a call the builder refuses is skipped.
#[derive(Debug, Clone, Arbitrary)]
pub(crate) enum LimitOp {
    /// `maxCallsPerTool(n % 6)` (0 is refused).
    MaxPerTool(u8),
    /// `unlimitedCallsPerTool()`.
    UnlimitedPerTool,
    /// `maxCallsPerTool(name, n % 6)`.
    Override(u8, u8),
    /// `excludeToolFromLimit(name)`.
    Exclude(u8),
    /// `maxTotalToolCalls(n % 10)`.
    MaxTotal(u8),
    /// `unlimitedTotalToolCalls()`.
    UnlimitedTotal,
}

/// The manager's configuration.
#[derive(Debug, Clone, Arbitrary)]
pub(crate) struct ManagerSetup {
    /// Limit-builder calls, in order (at most 6).
    pub limits: Vec<LimitOp>,
    /// `RETURN_ERROR_RESPONSE` rather than `THROW`.
    pub return_error_response: bool,
    /// The JSON-error processor rather than the default one.
    pub json_error_processor: bool,
    /// `alwaysThrow`.
    pub always_throw: bool,
    /// Rethrow classes (indices into the class pool; at most 3).
    pub rethrow: Vec<u8>,
    /// Resolution fallback.
    pub resolution_fallback: bool,
    /// The fixes, in [`toolcall_model::model::Fix::ALL`] order.
    pub fixes: [bool; 4],
    /// The tools (at most [`MAX_TOOLS`]).
    pub tools: Vec<ToolInput>,
}

/// One tool.
#[derive(Debug, Clone, Arbitrary)]
pub(crate) struct ToolInput {
    /// Name index.
    pub name: u8,
    /// `returnDirect`.
    pub return_direct: bool,
    /// Registered with the resolver only.
    pub resolver: bool,
    /// Its script (at most 4 outcomes).
    pub outcomes: Vec<OutcomeInput>,
}

/// One scripted invocation.
#[derive(Debug, Clone, Arbitrary)]
pub(crate) enum OutcomeInput {
    /// Returns an output text.
    Returns(Text),
    /// Returns Java null.
    ReturnsNull,
    /// Returns its arguments.
    Echo,
    /// Throws.
    Throws {
        /// Class index.
        class: u8,
        /// The message (null when absent).
        message: Option<Text>,
        /// Wrapped in `ToolExecutionException`.
        wrapped: bool,
    },
}

/// One tool call.
#[derive(Debug, Clone, Arbitrary)]
pub(crate) struct CallInput {
    /// Call id index (ids may repeat).
    pub id: u8,
    /// Name index.
    pub name: u8,
    /// Arguments (null when absent).
    pub arguments: Option<Text>,
}

/// One generation of a model reply.
#[derive(Debug, Clone, Arbitrary)]
pub(crate) struct GenerationInput {
    /// The text.
    pub text: Option<Text>,
    /// The tool calls (at most [`MAX_CALLS`]).
    pub calls: Vec<CallInput>,
    /// How many thought signatures its metadata lists (0: none).
    pub signatures: u8,
}

/// One prior message.
#[derive(Debug, Clone, Arbitrary)]
pub(crate) enum MessageInput {
    /// A system message.
    System(Option<Text>),
    /// A user message.
    User(Option<Text>),
    /// An assistant message.
    Assistant(GenerationInput),
    /// A tool message (at most [`MAX_CALLS`] responses).
    Tool(Vec<ResponseInput>),
}

/// One prior tool response.
#[derive(Debug, Clone, Arbitrary)]
pub(crate) struct ResponseInput {
    /// Call id index.
    pub id: u8,
    /// Name index.
    pub name: u8,
    /// The data.
    pub data: Text,
    /// Marked as an error.
    pub error: bool,
}

fn call(c: &CallInput, s: &Strings) -> ToolCall {
    ToolCall {
        id: s.id(c.id),
        kind: s.function(),
        name: s.name(c.name),
        arguments: c.arguments.as_ref().map(|t| s.argument(t)),
    }
}

fn generation(g: &GenerationInput, s: &Strings) -> Generation {
    Generation {
        kind: None,
        text: g.text.as_ref().map(|t| s.output(t)),
        tool_calls: bounded(&g.calls, MAX_CALLS)
            .iter()
            .map(|c| call(c, s))
            .collect(),
        finish_reason: None,
        metadata: s.signatures(g.signatures),
    }
}

fn message(m: &MessageInput, s: &Strings) -> Message {
    let text = |t: &Option<Text>| t.as_ref().map(|t| s.output(t));
    match m {
        MessageInput::System(t) => Message::System { text: text(t) },
        MessageInput::User(t) => Message::User { text: text(t) },
        MessageInput::Assistant(g) => generation(g, s).to_message(),
        MessageInput::Tool(rs) => Message::Tool {
            responses: bounded(rs, MAX_CALLS)
                .iter()
                .map(|r| ToolResponse {
                    id: s.id(r.id),
                    name: s.name(r.name),
                    data: s.output(&r.data),
                    error: r.error,
                })
                .collect(),
        },
    }
}

impl ManagerSetup {
    /// The limits: the builder calls in order, refused ones skipped.
    pub(crate) fn limits(&self) -> ToolCallLimits {
        let mut l = ToolCallLimits::default();
        for op in bounded(&self.limits, 6) {
            let next = match op {
                LimitOp::MaxPerTool(n) => l.clone().max_calls_per_tool(i32::from(n % 6)),
                LimitOp::UnlimitedPerTool => Ok(l.clone().unlimited_calls_per_tool()),
                LimitOp::Override(i, n) => l
                    .clone()
                    .max_calls_per_tool_for(pick(NAMES, *i), i32::from(n % 6)),
                LimitOp::Exclude(i) => l.clone().exclude_tool_from_limit(pick(NAMES, *i)),
                LimitOp::MaxTotal(n) => l.clone().max_total_tool_calls(i32::from(n % 10)),
                LimitOp::UnlimitedTotal => Ok(l.clone().unlimited_total_tool_calls()),
            };
            if let Ok(next) = next {
                l = next;
            }
        }
        l.on_exceeded = if self.return_error_response {
            OnExceeded::ReturnErrorResponse
        } else {
            OnExceeded::Throw
        };
        l
    }

    /// The behaviour set.
    pub(crate) fn fixes(&self) -> Fixes {
        Fix::ALL
            .into_iter()
            .zip(self.fixes)
            .filter_map(|(fix, on)| on.then_some(fix))
            .collect()
    }

    /// The manager configuration.
    pub(crate) fn config(&self) -> Config {
        Config {
            limits: self.limits(),
            resolution_fallback: self.resolution_fallback,
            processor: Processor {
                kind: if self.json_error_processor {
                    ProcessorKind::JsonError
                } else {
                    ProcessorKind::Default
                },
                always_throw: self.always_throw,
                rethrow: bounded(&self.rethrow, 3)
                    .iter()
                    .map(|&i| pick(CLASSES, i).to_owned())
                    .collect(),
            },
            classes: class_table(),
            fixes: self.fixes(),
            version: Default::default(),
        }
    }

    fn tools_with(&self, s: &Strings) -> Vec<ToolSpec> {
        let mut out: Vec<ToolSpec> = Vec::new();
        for t in bounded(&self.tools, MAX_TOOLS) {
            let registered = if t.resolver {
                Registered::Resolver
            } else {
                Registered::Request
            };
            let n = s.name(t.name);
            if out
                .iter()
                .any(|o| o.name == n && o.registered == registered)
            {
                continue;
            }
            out.push(ToolSpec {
                name: n,
                return_direct: t.return_direct,
                registered,
                outcomes: bounded(&t.outcomes, 4)
                    .iter()
                    .map(|o| outcome(o, s))
                    .collect(),
            });
        }
        for n in DEFAULT_TOOLS {
            if !out
                .iter()
                .any(|o| o.name == *n && o.registered == Registered::Request)
            {
                out.push(ToolSpec {
                    name: s.default_tool(n),
                    return_direct: false,
                    registered: Registered::Request,
                    outcomes: vec![Outcome::Returns(Some(s.ok()))],
                });
            }
        }
        out
    }
}

fn outcome(o: &OutcomeInput, s: &Strings) -> Outcome {
    match o {
        OutcomeInput::Returns(t) => Outcome::Returns(Some(s.output(t))),
        OutcomeInput::ReturnsNull => Outcome::Returns(None),
        OutcomeInput::Echo => Outcome::EchoArguments,
        OutcomeInput::Throws {
            class,
            message,
            wrapped,
        } => Outcome::Throws {
            exception: JavaException {
                class: pick(CLASSES, *class).into(),
                message: message.as_ref().map(|t| s.output(t)),
                cause: None,
            },
            wrapped: *wrapped,
        },
    }
}

/// The manager target's input: a setup, a prior history and batches that
/// the model asks for in turn.
#[derive(Debug, Clone, Arbitrary)]
pub(crate) struct ManagerInput {
    /// The manager and its tools.
    pub(crate) setup: ManagerSetup,
    /// Prior messages (at most [`MAX_PRIOR`]); a user message is appended
    /// when `ask` is set.
    pub(crate) prior: Vec<MessageInput>,
    /// Append a user message to the prior history.
    pub(crate) ask: bool,
    /// The batches: one model reply each (at most [`MAX_ROUNDS`] replies of
    /// at most 3 generations).
    pub(crate) batches: Vec<Vec<GenerationInput>>,
}

impl ManagerInput {
    /// The tools, history and replies, decoded with one set of shared
    /// pool texts.
    pub(super) fn parts(&self) -> (Vec<ToolSpec>, Vec<Message>, Vec<Vec<Generation>>) {
        let s = Strings::default();
        (
            self.setup.tools_with(&s),
            self.history_with(&s),
            self.replies_with(&s),
        )
    }

    fn history_with(&self, s: &Strings) -> Vec<Message> {
        let prior = bounded(&self.prior, MAX_PRIOR);
        let mut h = Vec::with_capacity(prior.len() + usize::from(self.ask));
        h.extend(prior.iter().map(|m| message(m, s)));
        if self.ask {
            h.push(Message::user("question"));
        }
        h
    }

    fn replies_with(&self, s: &Strings) -> Vec<Vec<Generation>> {
        let batches = bounded(&self.batches, MAX_ROUNDS);
        // Room for the final answer the targets append.
        let mut out = Vec::with_capacity(batches.len() + 1);
        out.extend(
            batches
                .iter()
                .map(|gs| bounded(gs, 3).iter().map(|g| generation(g, s)).collect()),
        );
        out
    }
}

/// The tool_loop target's input: a [`ManagerInput`] run through the loop
/// with a provider, memory, the workaround advisor and a round bound.
#[derive(Debug, Clone, Arbitrary)]
pub(crate) struct LoopInput {
    /// The manager, tools, history and model replies.
    pub turn: ManagerInput,
    /// Shape the turn as a well-formed conversation: the history is an
    /// optional system message and one user message, and every reply is one
    /// generation whose text is not blank when it calls no tool.
    pub well_formed: bool,
    /// Force every fix on.
    pub all_fixes: bool,
    /// `conversationHistoryEnabled`.
    pub conversation_history: bool,
    /// Provider `none` rather than Gemini.
    pub provider_none: bool,
    /// Memory: 0 none, 1 inside, 2 outside (modulo 3).
    pub memory: u8,
    /// The seed's `GeminiToolTextAdvisor`.
    pub gemini_tool_text: bool,
    /// Validator rule 12 (thought signatures).
    pub thought_signatures: bool,
    /// Validator rule 14 (alternating roles).
    pub alternate_roles: bool,
    /// The round bound: 1 + this modulo 10.
    pub max_rounds: u8,
    /// Leave the script without a final answer (so it may run out).
    pub open_ended: bool,
}

impl LoopInput {
    /// The scenario.
    pub(crate) fn scenario(&self) -> Scenario {
        let mut manager = self.turn.setup.config();
        if self.all_fixes {
            manager.fixes = Fixes::all();
        }
        let config = LoopConfig {
            conversation_history: self.conversation_history,
            provider: if self.provider_none {
                Provider::None
            } else {
                Provider::Gemini
            },
            memory: match self.memory % 3 {
                0 => Memory::None,
                1 => Memory::Inside,
                _ => Memory::Outside,
            },
            gemini_tool_text: self.gemini_tool_text,
            validator: toolcall_model::gemini::ValidatorOptions {
                thought_signatures: self.thought_signatures,
                alternate_roles: self.alternate_roles,
            },
            max_rounds: 1 + usize::from(self.max_rounds % 10),
            ..LoopConfig::new(manager)
        };
        let (tools, mut history, mut model) = self.turn.parts();
        if !self.open_ended {
            model.push(vec![Generation {
                text: Some("done".into()),
                ..Generation::default()
            }]);
        }
        if self.well_formed {
            let system = history
                .iter()
                .find(|m| matches!(m, Message::System { text: Some(t) } if !t.is_empty()))
                .cloned();
            history = system
                .into_iter()
                .chain([Message::user("question")])
                .collect();
            for reply in &mut model {
                reply.truncate(1);
                if reply.is_empty() {
                    reply.push(Generation::default());
                }
                let g = &mut reply[0];
                if g.tool_calls.is_empty()
                    && !g
                        .text
                        .as_deref()
                        .is_some_and(toolcall_model::model::has_text)
                {
                    g.text = Some("done".into());
                }
            }
        }
        Scenario {
            config,
            tools,
            history,
            model,
        }
    }
}

/// A scenario as a replayable vector, for reproducers.
pub(super) fn vector_of(s: &Scenario) -> String {
    let v = s.to_vector(
        "fuzz-reproducer",
        "printed by a fuzz target; replay with `toolcall-model run`",
        json!({}),
    );
    serde_json::to_string_pretty(&v).unwrap_or_default()
}

/// Panics with a scenario reproducer: the decoded input and the scenario as
/// a vector that `toolcall-model run` replays.
#[track_caller]
pub(super) fn fail_scenario(target: &str, what: &str, input: &dyn Debug, scenario: &Scenario) -> ! {
    panic!(
        "fuzz target `{target}`: {what}\ninput: {input:#?}\nscenario as a vector:\n{}",
        vector_of(scenario)
    )
}

/// Decodes a typed input from the whole of `data`.
pub(super) fn decode<T: for<'a> Arbitrary<'a>>(data: &[u8]) -> Option<T> {
    if data.len() > MAX_CASE_BYTES {
        return None;
    }
    T::arbitrary_take_rest(Unstructured::new(data)).ok()
}
