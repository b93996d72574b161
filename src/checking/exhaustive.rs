//! Exhaustive small-scope exploration: every scenario within a stated bound,
//! every invariant under every behaviour set, on all cores.
//!
//! Where `explore`'s random mode says "not refuted in N generated cases",
//! this module says "proved for every scenario of bound B": it enumerates
//! the whole of a finite space of turns ([`Bound`]), runs each one under
//! every behaviour set of [`crate::model::behavior_sets`] through the same
//! [`Scenario`] model, and judges it with the same checkers
//! ([`crate::checking::invariants::check`]) as the random suite. A refuted cell keeps
//! its first counterexample in order of size ([`Space::size`], then
//! enumeration order), printed as a vector by [`crate::checking::explore`]'s
//! counterexample builder.
//!
//! # The space
//!
//! A bound is a union of [`Family`]s; a family is a product of ranges:
//!
//! * the calls: up to `max_rounds` tool rounds (at least `min_rounds`),
//!   each a batch of 1 to `max_batch` calls, at most `max_turn_calls` calls
//!   in all, every call naming tool `a`, tool `b` or a name no tool has
//!   (`d`); each round is one model reply with one generation (the calls,
//!   or with [`RoundReply::TextWithCalls`] a text and the calls), followed
//!   by a final text answer, or, in a family whose model repeats
//!   (`repeat_last`), by the last round again for every further call;
//! * the tools: exactly the tools the calls name, each returning one
//!   [`OutcomeClass`] on every invocation; the classes hold one
//!   representative of every kind of tool output and failure the random
//!   generator ([`crate::checking::gen`]) produces;
//! * the request: a user message, then (when there are prior calls) one
//!   round of this turn already done, with 0 to `max_prior` calls to each
//!   tool, answered with a JSON object;
//! * the manager: the per-tool and total maxima (`None` is absent: Spring's
//!   defaults, 40 and 150), the behaviour on a breach, the exception
//!   processor;
//! * the loop: Gemini, or provider `none` where a family says so; the memory
//!   ([`MemorySetup`]: none, inside or outside the loop, its window,
//!   conversation history, and whether the turn streams); a memory holds the
//!   conversation so far (the request without its last message) when the
//!   request already holds a round of this turn.
//!
//! Texts are not varied here (one representative per class); random
//! generation ([`crate::checking::gen`], `explore --cases`) stays for their contents.
//!
//! # Symmetry
//!
//! Tools `a` and `b` are interchangeable: swapping the two names everywhere
//! (calls, prior calls, outcomes) maps a scenario to one with the same
//! verdicts (nothing in the model or the checkers depends on which of two
//! tool names is which; a test checks it on a small bound). Only the
//! smaller scenario of each pair is run, and it counts for both; a scenario
//! equal to its own swap (no call names a tool, so no outcome is chosen)
//! counts once. Equal outcomes are therefore never permuted, and no
//! dimension is cut: every scenario of the bound is either run or the swap
//! of one that is.
//!
//! ```
//! use toolcall_model::checking::exhaustive::{Bound, Space};
//! let space = Space::new(&Bound::tiny());
//! assert!(space.evaluated() < space.scenarios());
//! ```

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use serde_json::{json, Value};

use crate::chat::memory::DEFAULT_MEMORY_MAX_MESSAGES;
use crate::chat::stream::Split;
use crate::chat::tool_loop::{LoopConfig, Memory, Provider};
use crate::checking::explore::{counterexample_vector, MatrixCell};
use crate::checking::footprint::{evaluates_alike, Conversions, Footprint};
use crate::checking::gen::{class_table, with_set, UNKNOWN_TOOL};
use crate::checking::invariants::{check, repeating_guard, Evidence, Invariant, Replays, Verdict};
use crate::checking::scenario::Scenario;
use crate::model::behavior::{behavior_sets, BehaviorSet, Fix, Fixes};
use crate::model::java::{ClassTable, JavaException, TOOL_EXECUTION_EXCEPTION};
use crate::model::limits::{OnExceeded, ToolCallLimits};
use crate::model::manager::Config;
use crate::model::message::{Generation, Message, ToolCall, ToolResponse};
use crate::model::processor::{Processor, ProcessorKind};
use crate::model::tools::{Outcome, Registered, ToolSpec};

/// A name a call uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Name {
    /// Tool `a`.
    A,
    /// Tool `b`.
    B,
    /// A name no tool has (`d`).
    Unknown,
}

impl Name {
    const ALL: [Name; 3] = [Name::A, Name::B, Name::Unknown];

    /// The tool name in the scenario.
    ///
    /// ```
    /// assert_eq!(toolcall_model::checking::exhaustive::Name::Unknown.tool(), "d");
    /// ```
    pub fn tool(self) -> &'static str {
        match self {
            Name::A => "a",
            Name::B => "b",
            Name::Unknown => UNKNOWN_TOOL,
        }
    }

    fn swapped(self) -> Name {
        match self {
            Name::A => Name::B,
            Name::B => Name::A,
            Name::Unknown => Name::Unknown,
        }
    }
}

/// One class of tool outcome, with its representative.
#[derive(Debug, Clone, PartialEq)]
pub struct OutcomeClass {
    /// A short label (`json-object`, `runtime-wrapped`, ...).
    pub label: &'static str,
    /// What every invocation of the tool does.
    pub outcome: Outcome,
}

fn returns(text: Option<&str>) -> Outcome {
    Outcome::Returns(text.map(str::to_owned))
}

fn throws(class: &str, message: Option<&str>, wrapped: bool) -> Outcome {
    Outcome::Throws {
        exception: JavaException::new(class, message),
        wrapped,
    }
}

/// The outcome classes, one representative each, in the order the
/// enumeration tries them: what a tool returns (a JSON object, other JSON,
/// half JSON, plain text, empty, null), what it throws (a runtime
/// exception, a checked exception and an error, each wrapped in a
/// `ToolExecutionException` as method tools do and unwrapped), and a
/// callback's own `ToolExecutionException` (its cause a runtime exception
/// with a null message, so the processor's fallback text is covered).
///
/// ```
/// let c = toolcall_model::checking::exhaustive::outcome_classes();
/// assert_eq!(c.len(), 13);
/// assert_eq!(c[0].label, "json-object");
/// ```
pub fn outcome_classes() -> Vec<OutcomeClass> {
    let c = |label, outcome| OutcomeClass { label, outcome };
    vec![
        c("json-object", returns(Some(r#"{"temp":21}"#))),
        c("json-other", returns(Some("\"sunny\""))),
        c("half-json", returns(Some("3.0 + 5.0 = 8.0"))),
        c("plain-text", returns(Some("disk full"))),
        c("empty", returns(Some(""))),
        c("null", returns(None)),
        c(
            "runtime-wrapped",
            throws("java.lang.IllegalStateException", Some("boom"), true),
        ),
        c(
            "runtime-unwrapped",
            throws("java.lang.IllegalStateException", Some("boom"), false),
        ),
        c(
            "checked-wrapped",
            throws("java.io.IOException", Some("io failed"), true),
        ),
        c(
            "checked-unwrapped",
            throws("java.io.IOException", Some("io failed"), false),
        ),
        c(
            "error-wrapped",
            throws("java.lang.AssertionError", Some("assertion"), true),
        ),
        c(
            "error-unwrapped",
            throws("java.lang.AssertionError", Some("assertion"), false),
        ),
        c(
            "own-tool-execution-exception",
            Outcome::Throws {
                exception: JavaException::caused(
                    TOOL_EXECUTION_EXCEPTION,
                    JavaException::new("java.lang.IllegalArgumentException", None),
                ),
                wrapped: false,
            },
        ),
    ]
}

/// Where the memory stands, its window, the conversation-history switch of
/// the tool loop, and whether the turn streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemorySetup {
    /// None, inside or outside the loop.
    pub memory: Memory,
    /// `ToolCallingAdvisor.conversationHistoryEnabled`.
    pub conversation_history: bool,
    /// The memory's window (`maxMessages`).
    pub window: NonZeroU32,
    /// Whether the turn streams (`ChatClient.stream()`, each reply cut by
    /// [`Split::default`]).
    pub stream: bool,
}

impl MemorySetup {
    /// A short label: `none`, `outside`, `inside`, `inside/no-history`,
    /// with `/window N` when the window is not the default.
    ///
    /// ```
    /// use toolcall_model::checking::exhaustive::MemorySetup;
    /// assert_eq!(MemorySetup::none().label(), "none");
    /// ```
    pub fn label(&self) -> String {
        let mut s = match self.memory {
            Memory::None => "none".to_owned(),
            Memory::Inside => "inside".to_owned(),
            Memory::Outside => "outside".to_owned(),
        };
        if !self.conversation_history {
            s.push_str("/no-history");
        }
        if self.memory != Memory::None && self.window != DEFAULT_MEMORY_MAX_MESSAGES {
            s.push_str(&format!("/window {}", self.window));
        }
        if self.stream {
            s.push_str("/streamed");
        }
        s
    }

    /// No memory, conversation history on.
    pub fn none() -> Self {
        MemorySetup {
            memory: Memory::None,
            conversation_history: true,
            window: DEFAULT_MEMORY_MAX_MESSAGES,
            stream: false,
        }
    }

    fn with(memory: Memory, conversation_history: bool, window: u32) -> Self {
        MemorySetup {
            memory,
            conversation_history,
            window: NonZeroU32::new(window).unwrap_or(DEFAULT_MEMORY_MAX_MESSAGES),
            stream: false,
        }
    }

    fn streamed(self) -> Self {
        MemorySetup {
            stream: true,
            ..self
        }
    }

    /// How far from the simplest setup (counted in [`Space::size`]).
    fn knobs(&self) -> usize {
        usize::from(self.memory != Memory::None)
            + usize::from(!self.conversation_history)
            + usize::from(self.memory != Memory::None && self.window != DEFAULT_MEMORY_MAX_MESSAGES)
            + usize::from(self.stream)
    }
}

/// One product of ranges (see the module doc).
#[derive(Debug, Clone, PartialEq)]
pub struct Family {
    /// Its name in reports.
    pub name: &'static str,
    /// Calls per batch, at most.
    pub max_batch: usize,
    /// Tool rounds, at least.
    pub min_rounds: usize,
    /// Tool rounds, at most.
    pub max_rounds: usize,
    /// Calls in all the turn's rounds, at most.
    pub max_turn_calls: usize,
    /// Prior calls to each tool in the turn, at most.
    pub max_prior: usize,
    /// Per-tool maxima (`None`: absent, Spring's default of 40).
    pub per_tool: Vec<Option<i32>>,
    /// Total maxima (`None`: absent, Spring's default of 150).
    pub total: Vec<Option<i32>>,
    /// Behaviours on a breach.
    pub breach: Vec<OnExceeded>,
    /// Exception processors.
    pub processors: Vec<Processor>,
    /// Outcome classes, as indices into [`outcome_classes`].
    pub outcomes: Vec<usize>,
    /// Memory setups.
    pub memories: Vec<MemorySetup>,
    /// Where the requests go. Provider `none` takes any tool response, so a
    /// turn goes on where Gemini's conversion of a breach text would end it.
    pub provider: Provider,
    /// What each tool round's reply holds besides its calls.
    pub round_reply: RoundReply,
    /// The model repeats its last tool round for every further call instead
    /// of answering in text ([`LoopConfig::repeat_last`]): the turn ends
    /// only where the loop ends it.
    pub repeat_last: bool,
}

/// What a tool round's reply holds besides its calls: one generation.
///
/// ```
/// use toolcall_model::checking::exhaustive::{Bound, RoundReply};
/// let b = Bound::default_bound();
/// let streamed = b.families.iter().find(|f| f.name == "streamed").unwrap();
/// assert_eq!(streamed.round_reply, RoundReply::TextWithCalls);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RoundReply {
    /// The calls alone.
    CallsOnly,
    /// A text ([`ROUND_TEXT`]) with the calls: a model that says what it is
    /// about to do. A streamed round sends the text to the client before
    /// the calls (docs/BEHAVIOUR.md 6.3).
    TextWithCalls,
}

/// The text of a [`RoundReply::TextWithCalls`] round.
///
/// ```
/// use toolcall_model::checking::exhaustive::{Bound, Space, ROUND_TEXT};
/// let space = Space::new(&Bound::tiny());
/// let texts = (0..space.scenarios())
///     .map(|i| space.scenario(&space.item(i).unwrap()))
///     .filter(|s| s.model[0][0].text.as_deref() == Some(ROUND_TEXT))
///     .count();
/// assert!(texts > 0);
/// ```
pub const ROUND_TEXT: &str = "Let me check";

/// The rethrow list the bounds use.
pub const RETHROW: &str = "java.lang.IllegalStateException";

/// Every processor: default and JSON-error, with and without `alwaysThrow`,
/// with and without a rethrow list ([`RETHROW`]), in that order.
///
/// ```
/// assert_eq!(toolcall_model::checking::exhaustive::all_processors().len(), 8);
/// ```
pub fn all_processors() -> Vec<Processor> {
    let mut v = Vec::new();
    for kind in [ProcessorKind::Default, ProcessorKind::JsonError] {
        for always_throw in [false, true] {
            for rethrow in [vec![], vec![RETHROW.to_owned()]] {
                v.push(Processor {
                    kind,
                    always_throw,
                    rethrow,
                });
            }
        }
    }
    v
}

fn both_breaches() -> Vec<OnExceeded> {
    vec![OnExceeded::Throw, OnExceeded::ReturnErrorResponse]
}

fn maxima() -> Vec<Option<i32>> {
    vec![None, Some(1), Some(2), Some(3)]
}

impl Family {
    fn describe(&self) -> String {
        let max = |v: &[Option<i32>]| {
            v.iter()
                .map(|m| m.map_or("absent".to_owned(), |n| n.to_string()))
                .collect::<Vec<_>>()
                .join(",")
        };
        let classes = outcome_classes();
        let outcomes: Vec<&str> = self
            .outcomes
            .iter()
            .filter_map(|&i| classes.get(i).map(|c| c.label))
            .collect();
        let procs: Vec<String> = self.processors.iter().map(processor_label).collect();
        let mems: Vec<String> = self.memories.iter().map(MemorySetup::label).collect();
        let breach: Vec<&str> = self
            .breach
            .iter()
            .map(|b| match b {
                OnExceeded::Throw => "THROW",
                OnExceeded::ReturnErrorResponse => "RETURN_ERROR_RESPONSE",
            })
            .collect();
        let mut model = String::new();
        if self.round_reply == RoundReply::TextWithCalls {
            model.push_str(&format!(
                "; each round's calls come with the text {ROUND_TEXT:?}"
            ));
        }
        if self.repeat_last {
            model.push_str("; the model repeats its last round for ever");
        }
        if self.provider == Provider::None {
            model.push_str("; provider none");
        }
        format!(
            "{}: {}..{} tool rounds of 1..{} calls over a, b and an unknown name (at most {} calls in the turn); \
             prior calls 0..{} per tool; per-tool max {{{}}}; total max {{{}}}; {}; processors {{{}}}; \
             outcomes {{{}}}; memory {{{}}}{}",
            self.name,
            self.min_rounds,
            self.max_rounds,
            self.max_batch,
            self.max_turn_calls,
            self.max_prior,
            max(&self.per_tool),
            max(&self.total),
            breach.join(" and "),
            procs.join(", "),
            outcomes.join(", "),
            mems.join(", "),
            model
        )
    }
}

fn processor_label(p: &Processor) -> String {
    let mut s = match p.kind {
        ProcessorKind::Default => "default".to_owned(),
        ProcessorKind::JsonError => "json".to_owned(),
    };
    if p.always_throw {
        s.push_str("+alwaysThrow");
    }
    if !p.rethrow.is_empty() {
        s.push_str("+rethrow");
    }
    s
}

/// A bound: a name and the families whose union it is.
#[derive(Debug, Clone, PartialEq)]
pub struct Bound {
    /// The name reports give (`default`, `wide`, `tiny`).
    pub name: &'static str,
    /// The families.
    pub families: Vec<Family>,
}

/// The names [`Bound::named`] knows.
pub const BOUND_NAMES: [&str; 4] = ["tiny", "default", "wide", "deep"];

impl Bound {
    /// A bound by name: `tiny`, `default`, `wide` or `deep`.
    ///
    /// ```
    /// assert!(toolcall_model::checking::exhaustive::Bound::named("default").is_some());
    /// assert!(toolcall_model::checking::exhaustive::Bound::named("huge").is_none());
    /// ```
    pub fn named(name: &str) -> Option<Bound> {
        match name {
            "tiny" => Some(Bound::tiny()),
            "default" => Some(Bound::default_bound()),
            "wide" => Some(Bound::wide()),
            "deep" => Some(Bound::deep()),
            _ => None,
        }
    }

    /// The default bound (about two minutes on two idle cores): the union of
    /// three products, each varying every dimension, each widest where its
    /// invariants look, and two small ones for the turn that never ends and
    /// the streamed turn:
    ///
    /// * `limits` (counting and breaches): one tool round of 1 to 3 calls
    ///   over `a`, `b` and an unknown name; per-tool and total maxima from
    ///   {absent, 1, 2, 3}; both breach behaviours; 0 to 2 prior calls per
    ///   tool; the default and JSON processors; outcomes JSON object, plain
    ///   text, wrapped runtime exception; no memory;
    /// * `outcomes` (every failure through every processor): one round of
    ///   1 or 2 calls; per-tool and total maxima from {absent, 1}; both
    ///   breach behaviours; all eight processors (default and JSON, with and
    ///   without `alwaysThrow` and a rethrow list); 0 or 1 prior call per
    ///   tool; every outcome class, for each tool; no memory;
    /// * `loop` (memory and rounds): 0 to 2 tool rounds of 1 or 2 calls (at
    ///   most 3 in the turn); per-tool maxima from {absent, 1}, total from
    ///   {absent, 2}; both breach behaviours; the default and JSON
    ///   processors; 0 or 1 prior call per tool; outcomes JSON object, half
    ///   JSON, plain text, empty, wrapped and unwrapped runtime exception;
    ///   memory none, outside, inside with and without conversation
    ///   history, windows of 20 and 4 messages;
    /// * `runaway` (turn-ends, 376 scenarios): 1 or 2 tool rounds of 1 or 2
    ///   calls (at most 2 in the turn), the model repeating its last round
    ///   for every further call instead of answering; per-tool maximum 1,
    ///   total from {absent, 1}; both breach behaviours; the default and
    ///   JSON processors; no prior call; outcomes JSON object and wrapped
    ///   runtime exception; no memory; provider `none`, which takes the
    ///   breach text that Gemini's conversion refuses upstream (ending the
    ///   turn before it can run away);
    /// * `streamed` (stream-as-call, 416 scenarios): turns through
    ///   `ChatClient.stream()`, one tool round of 1 or 2 calls that come
    ///   with the text "Let me check", each reply cut into chunks (the text
    ///   in two, each call apart); per-tool maxima from {absent, 1}, total
    ///   absent; both breach behaviours; the default and JSON processors;
    ///   no prior call; outcomes JSON object and plain text; no memory, or
    ///   the memory outside the loop (window 20).
    ///
    /// ```
    /// use toolcall_model::checking::exhaustive::{Bound, Space};
    /// assert_eq!(Space::new(&Bound::default_bound()).scenarios(), 793_944);
    /// ```
    pub fn default_bound() -> Bound {
        let procs = all_processors();
        let plain = vec![procs[0].clone(), procs[4].clone()];
        let every = (0..outcome_classes().len()).collect::<Vec<_>>();
        Bound {
            name: "default",
            families: vec![
                Family {
                    name: "limits",
                    max_batch: 3,
                    min_rounds: 1,
                    max_rounds: 1,
                    max_turn_calls: 3,
                    max_prior: 2,
                    per_tool: maxima(),
                    total: maxima(),
                    breach: both_breaches(),
                    processors: plain.clone(),
                    outcomes: vec![0, 3, 6],
                    memories: vec![MemorySetup::none()],
                    provider: Provider::Gemini,
                    round_reply: RoundReply::CallsOnly,
                    repeat_last: false,
                },
                Family {
                    name: "outcomes",
                    max_batch: 2,
                    min_rounds: 1,
                    max_rounds: 1,
                    max_turn_calls: 2,
                    max_prior: 1,
                    per_tool: vec![None, Some(1)],
                    total: vec![None, Some(1)],
                    breach: both_breaches(),
                    processors: procs,
                    outcomes: every,
                    memories: vec![MemorySetup::none()],
                    provider: Provider::Gemini,
                    round_reply: RoundReply::CallsOnly,
                    repeat_last: false,
                },
                Family {
                    name: "loop",
                    max_batch: 2,
                    min_rounds: 0,
                    max_rounds: 2,
                    max_turn_calls: 3,
                    max_prior: 1,
                    per_tool: vec![None, Some(1)],
                    total: vec![None, Some(2)],
                    breach: both_breaches(),
                    processors: plain,
                    outcomes: vec![0, 2, 3, 4, 6, 7],
                    memories: all_memories(),
                    provider: Provider::Gemini,
                    round_reply: RoundReply::CallsOnly,
                    repeat_last: false,
                },
                runaway(),
                streamed(),
            ],
        }
    }

    /// A wider bound (13.2 million scenarios, 17 times the default: about 14
    /// minutes on two idle cores): the union of
    ///
    /// * `manager`: the issue's manager-level ranges as one product: one
    ///   tool round of 1 to 3 calls over `a`, `b` and an unknown name;
    ///   per-tool and total maxima from {absent, 1, 2, 3}; both breach
    ///   behaviours; all eight processors; 0 to 2 prior calls per tool;
    ///   every outcome class; no memory;
    /// * `loop`: 0 to 2 tool rounds of 1 or 2 calls (at most 3 in the
    ///   turn); per-tool maxima from {absent, 1, 2}, total from {absent, 2};
    ///   both breach behaviours; default and JSON processors with and
    ///   without `alwaysThrow`; 0 or 1 prior call per tool; every outcome
    ///   class; every memory setup.
    pub fn wide() -> Bound {
        let procs = all_processors();
        let every = (0..outcome_classes().len()).collect::<Vec<_>>();
        Bound {
            name: "wide",
            families: vec![
                Family {
                    name: "manager",
                    max_batch: 3,
                    min_rounds: 1,
                    max_rounds: 1,
                    max_turn_calls: 3,
                    max_prior: 2,
                    per_tool: maxima(),
                    total: maxima(),
                    breach: both_breaches(),
                    processors: procs.clone(),
                    outcomes: every.clone(),
                    memories: vec![MemorySetup::none()],
                    provider: Provider::Gemini,
                    round_reply: RoundReply::CallsOnly,
                    repeat_last: false,
                },
                Family {
                    name: "loop",
                    max_batch: 2,
                    min_rounds: 0,
                    max_rounds: 2,
                    max_turn_calls: 3,
                    max_prior: 1,
                    per_tool: vec![None, Some(1), Some(2)],
                    total: vec![None, Some(2)],
                    breach: both_breaches(),
                    processors: vec![
                        procs[0].clone(),
                        procs[2].clone(),
                        procs[4].clone(),
                        procs[6].clone(),
                    ],
                    outcomes: every,
                    memories: all_memories()
                        .into_iter()
                        .chain(streamed_memories())
                        .collect(),
                    provider: Provider::Gemini,
                    round_reply: RoundReply::CallsOnly,
                    repeat_last: false,
                },
            ],
        }
    }

    /// A deeper bound for the loop and its memory (125,792 scenarios): 1
    /// to 3 tool rounds of 1 to 3 calls over `a`, `b` and an unknown name
    /// (at most 4 in the turn); per-tool maxima from {absent, 1}, total from
    /// {absent, 2}; both breach behaviours; the default and JSON
    /// processors; no prior call; outcomes JSON object, plain text, wrapped
    /// runtime exception; a memory of 4 messages inside the loop and
    /// outside it.
    ///
    /// ```
    /// use toolcall_model::checking::exhaustive::{Bound, Space};
    /// assert_eq!(Space::new(&Bound::deep()).scenarios(), 125_792);
    /// ```
    pub fn deep() -> Bound {
        let procs = all_processors();
        Bound {
            name: "deep",
            families: vec![Family {
                name: "deep",
                max_batch: 3,
                min_rounds: 1,
                max_rounds: 3,
                max_turn_calls: 4,
                max_prior: 0,
                per_tool: vec![None, Some(1)],
                total: vec![None, Some(2)],
                breach: both_breaches(),
                processors: vec![procs[0].clone(), procs[4].clone()],
                outcomes: vec![0, 3, 6],
                memories: vec![
                    MemorySetup::with(Memory::Inside, true, 4),
                    MemorySetup::with(Memory::Outside, true, 4),
                ],
                provider: Provider::Gemini,
                round_reply: RoundReply::CallsOnly,
                repeat_last: false,
            }],
        }
    }

    /// A bound small enough for a unit test (a few thousand scenarios) that
    /// still holds seed 000's two failures, upstream's four refutations of
    /// the first invariants, and, with the default bound's `runaway` and
    /// `streamed` families, the turn that never ends and the streamed turn
    /// that parts from `call()`.
    ///
    /// ```
    /// use toolcall_model::checking::exhaustive::{Bound, Space};
    /// assert_eq!(Space::new(&Bound::tiny()).scenarios(), 1_848);
    /// ```
    pub fn tiny() -> Bound {
        Bound {
            name: "tiny",
            families: vec![
                Family {
                    name: "tiny",
                    max_batch: 2,
                    min_rounds: 1,
                    max_rounds: 1,
                    max_turn_calls: 2,
                    max_prior: 0,
                    per_tool: vec![None, Some(1)],
                    total: vec![None],
                    breach: both_breaches(),
                    processors: vec![
                        Processor::default(),
                        Processor {
                            kind: ProcessorKind::JsonError,
                            ..Processor::default()
                        },
                    ],
                    outcomes: vec![0, 2, 3, 6],
                    memories: vec![
                        MemorySetup::none(),
                        MemorySetup::with(Memory::Inside, true, 20),
                    ],
                    provider: Provider::Gemini,
                    round_reply: RoundReply::CallsOnly,
                    repeat_last: false,
                },
                runaway(),
                streamed(),
            ],
        }
    }

    /// One line per family.
    ///
    /// ```
    /// assert!(toolcall_model::checking::exhaustive::Bound::tiny().describe().starts_with("tiny:"));
    /// ```
    pub fn describe(&self) -> String {
        self.families
            .iter()
            .map(Family::describe)
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The bound as JSON (for `--json`).
    pub fn to_json(&self) -> Value {
        let classes = outcome_classes();
        json!({
            "name": self.name,
            "families": self.families.iter().map(|f| json!({
                "name": f.name,
                "max_batch": f.max_batch,
                "rounds": [f.min_rounds, f.max_rounds],
                "max_turn_calls": f.max_turn_calls,
                "max_prior_per_tool": f.max_prior,
                "per_tool_max": f.per_tool,
                "total_max": f.total,
                "on_limit_exceeded": f.breach.iter().map(|b| match b {
                    OnExceeded::Throw => "THROW",
                    OnExceeded::ReturnErrorResponse => "RETURN_ERROR_RESPONSE",
                }).collect::<Vec<_>>(),
                "processors": f.processors.iter().map(processor_label).collect::<Vec<_>>(),
                "outcomes": f.outcomes.iter().filter_map(|&i| classes.get(i).map(|c| c.label)).collect::<Vec<_>>(),
                "memories": f.memories.iter().map(MemorySetup::label).collect::<Vec<_>>(),
                "provider": match f.provider { Provider::Gemini => "gemini", Provider::None => "none" },
                "round_text": (f.round_reply == RoundReply::TextWithCalls).then_some(ROUND_TEXT),
                "repeat_last": f.repeat_last,
            })).collect::<Vec<_>>(),
        })
    }
}

/// The family `runaway` of the default and tiny bounds (described at
/// [`Bound::default_bound`]): a model that never stops calling tools. Its
/// limits bind every name it calls, so every turn is within `turn-ends`'s
/// precondition, under `THROW` too; small, since under every set that lets
/// a turn run away it runs to its bound
/// ([`crate::checking::invariants::turn_bound`], at most 4 model calls).
fn runaway() -> Family {
    let procs = all_processors();
    Family {
        name: "runaway",
        max_batch: 2,
        min_rounds: 1,
        max_rounds: 2,
        max_turn_calls: 2,
        max_prior: 0,
        per_tool: vec![Some(1)],
        total: vec![None, Some(1)],
        breach: both_breaches(),
        processors: vec![procs[0].clone(), procs[4].clone()],
        outcomes: vec![0, 6],
        memories: vec![MemorySetup::none()],
        provider: Provider::None,
        round_reply: RoundReply::CallsOnly,
        repeat_last: true,
    }
}

/// The family `streamed` of the default and tiny bounds (described at
/// [`Bound::default_bound`]): turns through `ChatClient.stream()` whose
/// tool round says something before its calls, the reply on which the
/// streaming path parts from `call()` with the memory outside the loop.
fn streamed() -> Family {
    let procs = all_processors();
    Family {
        name: "streamed",
        max_batch: 2,
        min_rounds: 1,
        max_rounds: 1,
        max_turn_calls: 2,
        max_prior: 0,
        per_tool: vec![None, Some(1)],
        total: vec![None],
        breach: both_breaches(),
        processors: vec![procs[0].clone(), procs[4].clone()],
        outcomes: vec![0, 3],
        memories: vec![
            MemorySetup::none().streamed(),
            MemorySetup::with(Memory::Outside, true, 20).streamed(),
        ],
        provider: Provider::Gemini,
        round_reply: RoundReply::TextWithCalls,
        repeat_last: false,
    }
}

/// Memory none, outside, inside with and without conversation history,
/// each memory with a window of 20 (the default) and of 4 messages.
fn all_memories() -> Vec<MemorySetup> {
    let mut v = vec![MemorySetup::none()];
    for (memory, history) in [
        (Memory::Outside, true),
        (Memory::Inside, true),
        (Memory::Inside, false),
    ] {
        for window in [20, 4] {
            v.push(MemorySetup::with(memory, history, window));
        }
    }
    v
}

/// The streamed turns of the wide bound's loop family: no memory, the
/// memory outside and inside the loop (window 20). Not in the default
/// bound's loop family: streaming doubles what it touches, and replies of
/// calls only part from `call()` only where the memory outside aggregates
/// what the client received (the default bound's `streamed` family gives
/// its rounds a text, where they part).
fn streamed_memories() -> Vec<MemorySetup> {
    vec![
        MemorySetup::none().streamed(),
        MemorySetup::with(Memory::Outside, true, 20).streamed(),
        MemorySetup::with(Memory::Inside, true, 20).streamed(),
    ]
}

// ---------------------------------------------------------------------------
// The space.

/// The call structure of a scenario: its rounds and prior calls.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct ShapeKey {
    family: usize,
    rounds: Vec<Vec<Name>>,
    prior: [usize; 2],
}

impl ShapeKey {
    fn swapped(&self) -> ShapeKey {
        ShapeKey {
            family: self.family,
            rounds: self
                .rounds
                .iter()
                .map(|r| r.iter().map(|n| n.swapped()).collect())
                .collect(),
            prior: [self.prior[1], self.prior[0]],
        }
    }

    /// Which of `a`, `b` the calls name (the tools the scenario has).
    fn named(&self) -> [bool; 2] {
        let mut n = [false; 2];
        for c in self.rounds.iter().flatten() {
            match c {
                Name::A => n[0] = true,
                Name::B => n[1] = true,
                Name::Unknown => {}
            }
        }
        n
    }

    fn calls(&self) -> usize {
        self.rounds.iter().map(Vec::len).sum()
    }
}

#[derive(Debug, Clone)]
struct Shape {
    key: ShapeKey,
    /// The swapped shape's index.
    swap: usize,
    /// Where the outcome digits come: `[a, b]` as present.
    named: [bool; 2],
    /// Prior calls + calls + rounds.
    size: usize,
    /// Scenarios of this shape.
    configs: u64,
    /// Global index of its first scenario.
    start: u64,
}

/// The enumerated space of a bound: every scenario has a global index.
#[derive(Debug, Clone)]
pub struct Space {
    bound: Bound,
    shapes: Vec<Shape>,
    total: u64,
    evaluated: u64,
    /// The outcome classes and the exception class table every scenario
    /// takes: built once, not once a scenario (the table copies itself on
    /// each declaration).
    classes: Vec<OutcomeClass>,
    table: ClassTable,
}

/// One scenario of the space, by its digits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// Global index.
    pub index: u64,
    shape: usize,
    memory: usize,
    processor: usize,
    breach: usize,
    total: usize,
    per_tool: usize,
    /// Outcome class per tool `[a, b]` (index into the family's list);
    /// unused for a tool the calls do not name.
    outcomes: [usize; 2],
}

fn batches(max_batch: usize) -> Vec<Vec<Name>> {
    let mut out: Vec<Vec<Name>> = Vec::new();
    let mut level: Vec<Vec<Name>> = vec![vec![]];
    for _ in 0..max_batch {
        let mut next = Vec::new();
        for b in &level {
            for n in Name::ALL {
                let mut x = b.clone();
                x.push(n);
                next.push(x);
            }
        }
        out.extend(next.iter().cloned());
        level = next;
    }
    out
}

fn scripts(f: &Family) -> Vec<Vec<Vec<Name>>> {
    let bs = batches(f.max_batch);
    let mut all: Vec<Vec<Vec<Name>>> = vec![vec![]];
    let mut level: Vec<Vec<Vec<Name>>> = vec![vec![]];
    for _ in 0..f.max_rounds {
        let mut next = Vec::new();
        for s in &level {
            let used: usize = s.iter().map(Vec::len).sum();
            for b in &bs {
                if used + b.len() <= f.max_turn_calls {
                    let mut x = s.clone();
                    x.push(b.clone());
                    next.push(x);
                }
            }
        }
        all.extend(next.iter().cloned());
        level = next;
    }
    all.retain(|s| s.len() >= f.min_rounds);
    all
}

impl Space {
    /// Enumerates the shapes of `bound` (cheap: no scenario is built).
    pub fn new(bound: &Bound) -> Space {
        let mut keys = Vec::new();
        for (fi, f) in bound.families.iter().enumerate() {
            for rounds in scripts(f) {
                for pa in 0..=f.max_prior {
                    for pb in 0..=f.max_prior {
                        keys.push(ShapeKey {
                            family: fi,
                            rounds: rounds.clone(),
                            prior: [pa, pb],
                        });
                    }
                }
            }
        }
        let size = |k: &ShapeKey| k.prior[0] + k.prior[1] + k.calls() + k.rounds.len();
        // Smallest first; within a size, by family, then by the order of
        // construction (which lists `a` before `b` before the unknown name).
        let mut order: Vec<usize> = (0..keys.len()).collect();
        order.sort_by_key(|&i| (size(&keys[i]), keys[i].family, i));
        let keys: Vec<ShapeKey> = order.into_iter().map(|i| keys[i].clone()).collect();
        let index: HashMap<&ShapeKey, usize> =
            keys.iter().enumerate().map(|(i, k)| (k, i)).collect();
        let mut shapes = Vec::with_capacity(keys.len());
        let mut start = 0u64;
        for k in &keys {
            let f = &bound.families[k.family];
            let named = k.named();
            let outcomes =
                (f.outcomes.len() as u64).pow(named.iter().filter(|x| **x).count() as u32);
            let configs = (f.memories.len()
                * f.processors.len()
                * f.breach.len()
                * f.total.len()
                * f.per_tool.len()) as u64
                * outcomes;
            shapes.push(Shape {
                key: k.clone(),
                swap: index[&k.swapped()],
                named,
                size: size(k),
                configs,
                start,
            });
            start += configs;
        }
        let mut space = Space {
            bound: bound.clone(),
            shapes,
            total: start,
            evaluated: 0,
            classes: outcome_classes(),
            table: class_table(),
        };
        space.evaluated = space.count_canonical();
        space
    }

    fn count_canonical(&self) -> u64 {
        // A scenario is run unless its swap has a smaller index. A shape
        // whose swap comes later runs all its scenarios, one whose swap comes
        // earlier none. A shape equal to its own swap names neither tool
        // (the swap turns every `a` into `b`), so each of its scenarios is
        // its own swap, and runs.
        self.shapes
            .iter()
            .enumerate()
            .filter(|(i, s)| s.swap >= *i)
            .map(|(_, s)| s.configs)
            .sum()
    }

    /// Scenarios in the bound.
    pub fn scenarios(&self) -> u64 {
        self.total
    }

    /// Scenarios actually run (one per symmetry class).
    pub fn evaluated(&self) -> u64 {
        self.evaluated
    }

    /// The bound.
    pub fn bound(&self) -> &Bound {
        &self.bound
    }

    /// The scenario with global index `index`.
    ///
    /// ```
    /// use toolcall_model::checking::exhaustive::{Bound, Space};
    /// let space = Space::new(&Bound::tiny());
    /// assert_eq!(space.item(0).unwrap().index, 0);
    /// assert!(space.item(space.scenarios()).is_none());
    /// ```
    pub fn item(&self, index: u64) -> Option<Item> {
        if index >= self.total {
            return None;
        }
        let si = self.shapes.partition_point(|s| s.start <= index) - 1;
        let s = &self.shapes[si];
        let f = &self.bound.families[s.key.family];
        let mut r = index - s.start;
        let k = f.outcomes.len() as u64;
        let mut outcomes = [0usize; 2];
        // Least significant first: b's outcome, a's outcome, per-tool max,
        // total max, breach, processor, memory.
        for t in [1, 0] {
            if s.named[t] {
                outcomes[t] = (r % k) as usize;
                r /= k;
            }
        }
        let mut digit = |n: usize| {
            let d = (r % n as u64) as usize;
            r /= n as u64;
            d
        };
        let per_tool = digit(f.per_tool.len());
        let total = digit(f.total.len());
        let breach = digit(f.breach.len());
        let processor = digit(f.processors.len());
        let memory = digit(f.memories.len());
        Some(Item {
            index,
            shape: si,
            memory,
            processor,
            breach,
            total,
            per_tool,
            outcomes,
        })
    }

    fn index_of(&self, shape: usize, item: &Item) -> u64 {
        let s = &self.shapes[shape];
        let f = &self.bound.families[s.key.family];
        let k = f.outcomes.len() as u64;
        let mut r = item.memory as u64;
        r = r * f.processors.len() as u64 + item.processor as u64;
        r = r * f.breach.len() as u64 + item.breach as u64;
        r = r * f.total.len() as u64 + item.total as u64;
        r = r * f.per_tool.len() as u64 + item.per_tool as u64;
        for t in [0, 1] {
            if s.named[t] {
                r = r * k + item.outcomes[t] as u64;
            }
        }
        s.start + r
    }

    /// The index of the item's swap (a and b exchanged everywhere).
    fn swap_index(&self, item: &Item) -> u64 {
        let swapped = Item {
            outcomes: [item.outcomes[1], item.outcomes[0]],
            ..item.clone()
        };
        self.index_of(self.shapes[item.shape].swap, &swapped)
    }

    /// Whether the item is run (its swap's index is not smaller), and how
    /// many scenarios of the bound it stands for (1 or 2).
    ///
    /// ```
    /// use toolcall_model::checking::exhaustive::{Bound, Space};
    /// let space = Space::new(&Bound::tiny());
    /// let weight: u64 = (0..space.scenarios())
    ///     .filter_map(|i| space.canonical(&space.item(i).unwrap()))
    ///     .sum();
    /// assert_eq!(weight, space.scenarios());
    /// ```
    pub fn canonical(&self, item: &Item) -> Option<u64> {
        let j = self.swap_index(item);
        match j.cmp(&item.index) {
            std::cmp::Ordering::Less => None,
            std::cmp::Ordering::Equal => Some(1),
            std::cmp::Ordering::Greater => Some(2),
        }
    }

    /// The swap of the item (for tests of the symmetry).
    pub fn swap(&self, item: &Item) -> Item {
        self.item(self.swap_index(item))
            .unwrap_or_else(|| item.clone())
    }

    /// The item's size: prior calls, calls and rounds, plus one for each
    /// setting away from the simplest (a maximum present, `RETURN_ERROR_RESPONSE`,
    /// the JSON processor, `alwaysThrow`, a rethrow list, a memory, a small
    /// window, conversation history off, a streamed turn, a text with the
    /// calls, a repeating model). Counterexamples are reported smallest
    /// first.
    pub fn size(&self, item: &Item) -> usize {
        let s = &self.shapes[item.shape];
        let f = &self.bound.families[s.key.family];
        let p = &f.processors[item.processor];
        s.size
            + usize::from(f.per_tool[item.per_tool].is_some())
            + usize::from(f.total[item.total].is_some())
            + usize::from(f.breach[item.breach] == OnExceeded::ReturnErrorResponse)
            + usize::from(p.kind == ProcessorKind::JsonError)
            + usize::from(p.always_throw)
            + usize::from(!p.rethrow.is_empty())
            + f.memories[item.memory].knobs()
            + usize::from(f.round_reply != RoundReply::CallsOnly)
            + usize::from(f.repeat_last)
    }

    /// The family an item belongs to.
    pub fn family(&self, item: &Item) -> &Family {
        &self.bound.families[self.shapes[item.shape].key.family]
    }

    /// The item as a scenario, under upstream.
    ///
    /// ```
    /// use toolcall_model::checking::exhaustive::{Bound, Space};
    /// let space = Space::new(&Bound::tiny());
    /// let s = space.scenario(&space.item(0).unwrap());
    /// assert!(s.run().is_ok());
    /// ```
    pub fn scenario(&self, item: &Item) -> Scenario {
        let shape = &self.shapes[item.shape];
        let f = &self.bound.families[shape.key.family];
        let classes = &self.classes;
        let mut limits = ToolCallLimits::default();
        if let Some(n) = f.per_tool[item.per_tool] {
            limits = limits.max_calls_per_tool(n).unwrap_or_default();
        }
        if let Some(n) = f.total[item.total] {
            limits = limits.max_total_tool_calls(n).unwrap_or_default();
        }
        limits.on_exceeded = f.breach[item.breach];
        let manager = Config {
            limits,
            resolution_fallback: false,
            processor: f.processors[item.processor].clone(),
            classes: self.table.clone(),
            fixes: Default::default(),
            version: Default::default(),
        };
        let mem = f.memories[item.memory];
        let tools: Vec<ToolSpec> = [Name::A, Name::B]
            .into_iter()
            .enumerate()
            .filter(|(t, _)| shape.named[*t])
            .map(|(t, n)| ToolSpec {
                name: n.tool().to_owned(),
                return_direct: false,
                registered: Registered::Request,
                outcomes: vec![classes[f.outcomes[item.outcomes[t]]].outcome.clone()],
            })
            .collect();
        let mut history = vec![Message::user("q")];
        let prior: Vec<Name> = std::iter::repeat_n(Name::A, shape.key.prior[0])
            .chain(std::iter::repeat_n(Name::B, shape.key.prior[1]))
            .collect();
        if !prior.is_empty() {
            let calls = calls_of("prior", &prior);
            let responses = calls
                .iter()
                .map(|c| ToolResponse::new(&c.id, &c.name, r#"{"ok":true}"#))
                .collect();
            history.push(Message::assistant(None, calls));
            history.push(Message::Tool { responses });
        }
        let text = match f.round_reply {
            RoundReply::CallsOnly => None,
            RoundReply::TextWithCalls => Some(ROUND_TEXT.to_owned()),
        };
        let mut model: Vec<Vec<Generation>> = shape
            .key
            .rounds
            .iter()
            .enumerate()
            .map(|(r, names)| {
                vec![Generation {
                    text: text.clone(),
                    tool_calls: calls_of(&format!("call-{r}"), names),
                    ..Generation::default()
                }]
            })
            .collect();
        // A repeating model never answers: its last round comes back.
        if !f.repeat_last || model.is_empty() {
            model.push(vec![Generation {
                text: Some("done".to_owned()),
                ..Generation::default()
            }]);
        }
        let memory_start = if mem.memory != Memory::None && history.len() > 1 {
            // The memory has seen the conversation so far: everything but
            // the message the advisor stores on this request.
            history[..history.len() - 1].to_vec()
        } else {
            vec![]
        };
        let mut config = LoopConfig {
            conversation_history: mem.conversation_history,
            provider: f.provider,
            memory: mem.memory,
            memory_max_messages: mem.window,
            memory_start,
            stream: mem.stream.then(Split::default),
            repeat_last: f.repeat_last && !shape.key.rounds.is_empty(),
            ..LoopConfig::new(manager)
        };
        if config.repeat_last {
            config.max_rounds = repeating_guard(&config, &model);
        }
        Scenario {
            config,
            tools,
            history,
            model,
        }
    }
}

fn calls_of(prefix: &str, names: &[Name]) -> Vec<ToolCall> {
    names
        .iter()
        .enumerate()
        .map(|(i, n)| ToolCall::new(&format!("{prefix}-{i}"), n.tool(), "{}"))
        .collect()
}

// ---------------------------------------------------------------------------
// Running.

/// How a cell came out.
#[derive(Debug, Clone, PartialEq)]
pub enum Proof {
    /// No scenario of the bound refutes it.
    Proved,
    /// Refuted; the first counterexample in order of size.
    Refuted {
        /// Its size ([`Space::size`]).
        size: usize,
        /// Its global index.
        index: u64,
        /// What the invariant wanted.
        wanted: String,
        /// The counterexample as a vector.
        counterexample: Value,
        /// Whether `verify` on the vector shows the failure.
        replays: bool,
    },
}

/// One cell of the exhaustive matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct CellProof {
    /// The behaviour set's name.
    pub set: &'static str,
    /// The invariant.
    pub invariant: Invariant,
    /// Scenarios judged (all of the bound's when proved).
    pub scenarios: u64,
    /// Of those, the ones that met the invariant's preconditions.
    pub applicable: u64,
    /// How it came out.
    pub proof: Proof,
}

impl CellProof {
    /// `proved`, `vacuous` (proved, but no scenario of the bound is
    /// applicable) or `refuted`.
    pub fn verdict(&self) -> &'static str {
        match self.proof {
            Proof::Proved if self.applicable == 0 => "vacuous",
            Proof::Proved => "proved",
            Proof::Refuted { .. } => "refuted",
        }
    }
}

/// The result of an exhaustive run.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The bound.
    pub bound: Bound,
    /// Scenarios in the bound.
    pub scenarios: u64,
    /// Scenarios run (one per symmetry class).
    pub evaluated: u64,
    /// Every cell, set by set, invariants in order.
    pub cells: Vec<CellProof>,
}

const NONE: u64 = u64::MAX;

fn key(size: usize, index: u64) -> u64 {
    ((size as u64) << 44) | index
}

/// Items handed to a worker at a time.
const CHUNK: u64 = 64;

/// Runs every scenario of `space` under every behaviour set on `jobs`
/// threads, judging every invariant. `progress(done, total)` is called as
/// items finish (from worker threads). When the system refuses a thread,
/// the ones started do the work (the report does not depend on how many);
/// when it refuses the first, the error says so.
///
/// ```
/// use toolcall_model::checking::exhaustive::{run, Bound, Space};
/// let space = Space::new(&Bound::tiny());
/// let r = run(&space, 2, &|_, _| {}).unwrap();
/// let up = r.cells.iter().find(|c| c.set == "upstream" && c.invariant.name() == "limits").unwrap();
/// assert_eq!(up.verdict(), "proved");
/// assert_eq!(up.scenarios, space.scenarios());
/// ```
pub fn run(
    space: &Space,
    jobs: usize,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Report, String> {
    Ok(finish(
        space,
        &run_part(space, Shard::WHOLE, jobs, progress)?,
    ))
}

/// Which blocks of the space a run covers: shard `k` of `n` (1-based)
/// runs the blocks of 64 scenarios (`CHUNK`) whose number is `k - 1` modulo
/// `n`, so that every shard gets small and large scenarios alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This shard, from 1 to `n`.
    pub k: u64,
    /// Shards in all.
    pub n: u64,
}

impl Shard {
    /// The whole space: shard 1 of 1.
    pub const WHOLE: Shard = Shard { k: 1, n: 1 };

    /// Reads `K/N` with 1 <= K <= N.
    ///
    /// ```
    /// use toolcall_model::checking::exhaustive::Shard;
    /// assert_eq!(Shard::parse("2/3"), Ok(Shard { k: 2, n: 3 }));
    /// assert!(Shard::parse("0/3").is_err() && Shard::parse("4/3").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("'{text}' is not a shard K/N with 1 <= K <= N");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let k: u64 = k.trim().parse().map_err(|_| bad())?;
        let n: u64 = n.trim().parse().map_err(|_| bad())?;
        if k == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }

    /// The scenarios of `space` this shard covers.
    pub fn scenarios(&self, space: &Space) -> u64 {
        let total = space.scenarios();
        let mut sum = 0;
        let mut from = (self.k - 1) * CHUNK;
        while from < total {
            sum += (from + CHUNK).min(total) - from;
            from += self.n * CHUNK;
        }
        sum
    }
}

/// What a run of part of a space found, per cell (as
/// [`crate::checking::explore::cells`] orders them): scenarios judged,
/// applicable ones, and the key (size, then index) of the first refuting
/// scenario, if any. [`finish`] turns it into a [`Report`]; partial runs
/// of disjoint shards combine by adding the counts and taking the least key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// The shard run.
    pub shard: Shard,
    /// Per cell: scenarios, applicable.
    pub totals: Vec<(u64, u64)>,
    /// Per cell: the first refuting scenario as `(size, index)`.
    pub first: Vec<Option<(usize, u64)>>,
}

/// Runs the scenarios of `shard` (see [`run`]); `progress(done, total)`
/// counts the shard's scenarios.
pub fn run_part(
    space: &Space,
    shard: Shard,
    jobs: usize,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Part, String> {
    let sets = behavior_sets();
    let cells: Vec<MatrixCell> = crate::checking::explore::cells();
    let n_inv = Invariant::ALL.len();
    let best: Vec<AtomicU64> = cells.iter().map(|_| AtomicU64::new(NONE)).collect();
    let next = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let totals: Mutex<Vec<(u64, u64)>> = Mutex::new(vec![(0, 0); cells.len()]);
    let total = space.scenarios();
    let shard_total = shard.scenarios(space);
    let started = std::thread::scope(|scope| {
        for n in 0..jobs.max(1) {
            let worker = || {
                let mut local = vec![(0u64, 0u64); cells.len()];
                let mut memo = Conversions::default();
                loop {
                    let block = next.fetch_add(1, Ordering::Relaxed) * shard.n + (shard.k - 1);
                    let from = block.saturating_mul(CHUNK);
                    if from >= total {
                        break;
                    }
                    let to = (from + CHUNK).min(total);
                    for index in from..to {
                        let Some(item) = space.item(index) else { break };
                        let Some(weight) = space.canonical(&item) else {
                            continue;
                        };
                        let k = key(space.size(&item), index);
                        // One scenario for every set: only the two fields
                        // `with_set` writes differ between the sets.
                        let mut s = space.scenario(&item);
                        let cells = Cells {
                            n_inv,
                            k,
                            weight,
                            best: &best,
                        };
                        judge_scenario(&mut s, &sets, &cells, &mut local, &mut memo);
                    }
                    let d = done.fetch_add(to - from, Ordering::Relaxed) + (to - from);
                    progress(d, shard_total);
                }
                if let Ok(mut t) = totals.lock() {
                    for (a, b) in t.iter_mut().zip(&local) {
                        a.0 += b.0;
                        a.1 += b.1;
                    }
                }
            };
            if let Err(e) = std::thread::Builder::new()
                .stack_size(16 << 20)
                .spawn_scoped(scope, worker)
            {
                return if n == 0 {
                    Err(format!("cannot start a worker thread: {e}"))
                } else {
                    Ok(())
                };
            }
        }
        Ok(())
    });
    started?;
    Ok(Part {
        shard,
        totals: totals.into_inner().unwrap_or_default(),
        first: best
            .iter()
            .map(|b| match b.load(Ordering::Relaxed) {
                NONE => None,
                k => Some(((k >> 44) as usize, k & ((1 << 44) - 1))),
            })
            .collect(),
    })
}

/// The report of a run from what it found: each refuted cell's first
/// counterexample is built (and replayed) here.
pub fn finish(space: &Space, part: &Part) -> Report {
    let cells = crate::checking::explore::cells()
        .iter()
        .enumerate()
        .map(|(c, cell)| {
            let (scenarios, applicable) = part.totals.get(c).copied().unwrap_or_default();
            let proof = match part.first.get(c).copied().flatten() {
                None => Proof::Proved,
                Some((size, index)) => refuted(space, cell, key(size, index)),
            };
            CellProof {
                set: cell.set.name,
                invariant: cell.invariant,
                scenarios,
                applicable,
                proof,
            }
        })
        .collect();
    Report {
        bound: space.bound.clone(),
        scenarios: space.scenarios(),
        evaluated: space.evaluated(),
        cells,
    }
}

/// The fixes whose switches only the chat memory reads ([`crate::chat::message_window`]):
/// with the memory outside the loop they shape the turn history the
/// manager starts from.
const MEMORY_FIXES: [Fix; 3] = [
    Fix::StoreAnsweredGeneration,
    Fix::KeepCurrentTurn,
    Fix::EvictOrphanResponses,
];

/// Sets that a turn runs and is judged alike under: indices into the
/// behaviour sets, in order, the first evaluated for all.
#[derive(Debug)]
struct Group {
    sets: Vec<usize>,
    /// The class of its replay ([`Replays`]).
    class: u64,
    /// The fixes the turn can feel ([`Footprint::felt`]), and the advisor.
    felt: Fixes,
    advisor: bool,
}

/// The behaviour sets grouped by what the turn of `s` can feel of them
/// ([`Footprint::felt`]: the fixes it can feel, and the advisor): the sets of one
/// group give the same run and the same verdicts, so the first is
/// evaluated for all. Groups alike in the felt fixes the manager reads
/// and, with the memory outside the loop (which makes the turn history the
/// batches start from), in the memory's fixes, replay alike.
fn set_groups(s: &Scenario, sets: &[BehaviorSet]) -> Vec<Group> {
    let footprint = Footprint::of(s);
    let mut groups: Vec<Group> = Vec::new();
    for (si, set) in sets.iter().enumerate() {
        let felt = footprint.felt(set.fixes);
        match groups
            .iter_mut()
            .find(|g| g.felt == felt && g.advisor == set.gemini_tool_text)
        {
            Some(g) => g.sets.push(si),
            None => groups.push(Group {
                sets: vec![si],
                class: 0,
                felt,
                advisor: set.gemini_tool_text,
            }),
        }
    }
    let outside = s.config.memory == Memory::Outside;
    for g in &mut groups {
        g.class = Fix::ALL
            .into_iter()
            .enumerate()
            .filter(|&(_, fix)| {
                g.felt.has(fix)
                    && (fix.read_by_manager() || (outside && MEMORY_FIXES.contains(&fix)))
            })
            .fold(0u64, |bits, (i, _)| bits | 1 << i);
    }
    groups
}

/// Where the verdicts of one scenario go: the cells' first refuting keys,
/// and what the scenario is worth.
struct Cells<'b> {
    n_inv: usize,
    /// The scenario's key (size, then index).
    k: u64,
    /// The scenarios of the bound it stands for.
    weight: u64,
    best: &'b [AtomicU64],
}

impl Cells<'_> {
    /// Whether some set of `sets` still needs invariant `i` judged: its cell
    /// holds no counterexample smaller than this scenario.
    fn live(&self, sets: &[usize], i: usize) -> bool {
        sets.iter()
            .any(|si| self.best[si * self.n_inv + i].load(Ordering::Relaxed) > self.k)
    }
}

/// Judges the scenario under every behaviour set: each group of
/// [`set_groups`] whose cells still need it runs once, under its first
/// set, and the later groups whose conversions of the turn's texts agree
/// with it ([`evaluates_alike`]) take its verdicts too. Each invariant is
/// judged once for all the sets that share a run; the replays of the
/// turn's batches are shared by class.
fn judge_scenario(
    s: &mut Scenario,
    sets: &[BehaviorSet],
    cells: &Cells<'_>,
    local: &mut [(u64, u64)],
    memo: &mut Conversions,
) {
    let n_inv = cells.n_inv;
    let groups = set_groups(s, sets);
    let replays = Replays::default();
    let mut taken = vec![false; groups.len()];
    for (gi, g) in groups.iter().enumerate() {
        if taken[gi] || !(0..n_inv).any(|i| cells.live(&g.sets, i)) {
            continue;
        }
        let set = &sets[g.sets[0]];
        // What `with_set` does, without a copy of the scenario.
        s.config.manager.fixes = set.fixes;
        s.config.gemini_tool_text = set.gemini_tool_text;
        let ev = Evidence::gather(s).map(|ev| ev.sharing(&replays, g.class));
        let mut members = g.sets.clone();
        if let Ok(ev) = &ev {
            for (hj, h) in groups.iter().enumerate().skip(gi + 1) {
                if !taken[hj]
                    && (0..n_inv).any(|i| cells.live(&h.sets, i))
                    && evaluates_alike(ev, (g.felt, g.advisor), (h.felt, h.advisor), memo)
                {
                    taken[hj] = true;
                    members.extend(&h.sets);
                }
            }
        }
        for i in (0..n_inv).filter(|&i| cells.live(&members, i)) {
            let verdict = match &ev {
                Ok(ev) => check(Invariant::ALL[i], ev),
                Err(_) => Verdict::NotApplicable,
            };
            for c in members.iter().map(|si| si * n_inv + i) {
                if cells.best[c].load(Ordering::Relaxed) <= cells.k {
                    continue;
                }
                match verdict {
                    Verdict::Holds => {
                        local[c].0 += cells.weight;
                        local[c].1 += cells.weight;
                    }
                    Verdict::NotApplicable => local[c].0 += cells.weight,
                    Verdict::Refuted(_) => {
                        cells.best[c].fetch_min(cells.k, Ordering::Relaxed);
                    }
                }
            }
        }
    }
}

fn refuted(space: &Space, cell: &MatrixCell, k: u64) -> Proof {
    let index = k & ((1 << 44) - 1);
    let size = (k >> 44) as usize;
    let item = space.item(index).expect("a recorded index is in the space");
    let s = with_set(&space.scenario(&item), &cell.set);
    let found_by = format!(
        "`toolcall-model explore --exhaustive --bound {}` (scenario {index}, size {size}, the first in order of size)",
        space.bound.name
    );
    match counterexample_vector(cell, &s, &found_by) {
        Some((counterexample, wanted, replays)) => Proof::Refuted {
            size,
            index,
            wanted,
            counterexample,
            replays,
        },
        None => Proof::Refuted {
            size,
            index,
            wanted: "(the refutation did not recur on a rerun)".to_owned(),
            counterexample: s.to_vector(
                &format!("exhaustive-{}-{}", cell.set.name, cell.invariant.name()),
                "the refutation did not recur on a rerun",
                json!({"refuted": "see about"}),
            ),
            replays: false,
        },
    }
}

impl Report {
    /// The cell for `set` and `invariant`.
    pub fn cell(&self, set: &str, invariant: Invariant) -> Option<&CellProof> {
        self.cells
            .iter()
            .find(|c| c.set == set && c.invariant == invariant)
    }

    /// The report as text: the bound, a table whose cells say `proved A/N`
    /// (A applicable of N scenarios), `vacuous 0/N` or `REFUTED (size S)`,
    /// then each cell in words: `proved (N scenarios, bound B)` or its
    /// first counterexample in order of size, as a vector.
    pub fn to_text(&self) -> String {
        let sets = behavior_sets();
        let mut out = format!(
            "toolcall-model explore --exhaustive: {} invariants under {} behaviour sets, every scenario of bound {}: \
             {} scenarios ({} run, the rest their mirror images with tools a and b swapped)\n",
            Invariant::ALL.len(),
            sets.len(),
            self.bound.name,
            self.scenarios,
            self.evaluated
        );
        for line in self.bound.describe().lines() {
            out.push_str("  ");
            out.push_str(line);
            out.push('\n');
        }
        out.push_str(
            "A cell shows `proved A/N`: no scenario of the bound refutes it, A of its N scenarios met the precondition; \
             `REFUTED (size S)`: the smallest counterexample has size S.\n\n",
        );
        out.push_str(&crate::checking::explore::table(&|set, inv| {
            self.cell(set, inv).map(|c| match &c.proof {
                Proof::Proved => format!(
                    "{} {}/{}",
                    c.verdict(),
                    crate::checking::explore::compact(c.applicable),
                    crate::checking::explore::compact(c.scenarios)
                ),
                Proof::Refuted { size, .. } => format!("REFUTED (size {size})"),
            })
        }));
        out.push('\n');
        for c in &self.cells {
            match &c.proof {
                Proof::Proved if c.applicable == 0 => out.push_str(&format!(
                    "{} × {}: vacuous: no scenario of bound {} meets the precondition ({})\n",
                    c.set,
                    c.invariant,
                    self.bound.name,
                    c.invariant.precondition()
                )),
                Proof::Proved => out.push_str(&format!(
                    "{} × {}: proved ({} scenarios, bound {}; {} applicable)\n",
                    c.set, c.invariant, c.scenarios, self.bound.name, c.applicable
                )),
                Proof::Refuted {
                    size,
                    index,
                    wanted,
                    counterexample,
                    replays,
                } => {
                    out.push_str(&format!(
                        "{} × {}: refuted; the first counterexample in order of size is scenario {index} (size {size})\n  wanted: {wanted}\n",
                        c.set, c.invariant
                    ));
                    crate::checking::explore::push_counterexample(
                        &mut out,
                        counterexample,
                        *replays,
                    );
                }
            }
        }
        out
    }

    /// The report as JSON: `{"mode": "exhaustive", "bound": {...},
    /// "scenarios", "evaluated", "results": [{"set", "invariant", "verdict",
    /// "scenarios", "applicable", "precondition", "size", "wanted",
    /// "counterexample"}]}`; `verdict` is `proved`, `vacuous` or `refuted`.
    pub fn to_json(&self) -> Value {
        json!({
            "mode": "exhaustive",
            "bound": self.bound.to_json(),
            "scenarios": self.scenarios,
            "evaluated": self.evaluated,
            "results": self.cells.iter().map(|c| {
                let (size, wanted, cx) = match &c.proof {
                    Proof::Proved => (Value::Null, Value::Null, Value::Null),
                    Proof::Refuted { size, wanted, counterexample, .. } => (json!(size), json!(wanted), counterexample.clone()),
                };
                json!({
                    "set": c.set,
                    "invariant": c.invariant.name(),
                    "verdict": c.verdict(),
                    "scenarios": c.scenarios,
                    "applicable": c.applicable,
                    "precondition": c.invariant.precondition(),
                    "size": size,
                    "wanted": wanted,
                    "counterexample": cx,
                })
            }).collect::<Vec<_>>(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checking::invariants::check_scenario;

    fn small(outcomes: Vec<usize>, max_batch: usize) -> Bound {
        Bound {
            name: "test",
            families: vec![Family {
                name: "test",
                max_batch,
                min_rounds: 1,
                max_rounds: 1,
                max_turn_calls: max_batch,
                max_prior: 0,
                per_tool: vec![None],
                total: vec![None],
                breach: vec![OnExceeded::Throw],
                processors: vec![Processor::default()],
                outcomes,
                memories: vec![MemorySetup::none()],
                provider: Provider::Gemini,
                round_reply: RoundReply::CallsOnly,
                repeat_last: false,
            }],
        }
    }

    #[test]
    fn counts_with_and_without_symmetry() {
        // One call: a or b with one of 2 outcomes, or the unknown name.
        let s = Space::new(&small(vec![0, 1], 1));
        assert_eq!(s.scenarios(), 2 + 2 + 1);
        assert_eq!(s.evaluated(), 2 + 1);
        // Up to two calls: 12 call lists; 26 scenarios; by Burnside's lemma
        // (26 + 2 fixed by the swap: `d` and `d d`) / 2 = 14 classes.
        let s = Space::new(&small(vec![0, 1], 2));
        assert_eq!(s.scenarios(), 26);
        assert_eq!(s.evaluated(), 14);
    }

    #[test]
    fn the_canonical_count_matches_the_enumeration_and_swaps_are_involutions() {
        for b in [Bound::tiny(), small(vec![0, 1, 2], 3)] {
            let s = Space::new(&b);
            let mut run = 0u64;
            let mut weight = 0u64;
            for i in 0..s.scenarios() {
                let item = s.item(i).unwrap();
                assert_eq!(s.index_of(item.shape, &item), i);
                let sw = s.swap(&item);
                assert_eq!(s.swap(&sw), item);
                assert_eq!(s.size(&sw), s.size(&item));
                if let Some(w) = s.canonical(&item) {
                    run += 1;
                    weight += w;
                }
            }
            assert_eq!(run, s.evaluated());
            assert_eq!(weight, s.scenarios());
        }
    }

    #[test]
    fn swapped_scenarios_have_the_same_verdicts() {
        let s = Space::new(&Bound::tiny());
        let sets = behavior_sets();
        for i in 0..s.scenarios() {
            let item = s.item(i).unwrap();
            if s.canonical(&item) != Some(2) {
                continue;
            }
            let (x, y) = (s.scenario(&item), s.scenario(&s.swap(&item)));
            for set in &sets {
                let (x, y) = (with_set(&x, set), with_set(&y, set));
                let (ex, ey) = (Evidence::gather(&x).unwrap(), Evidence::gather(&y).unwrap());
                for inv in Invariant::ALL {
                    assert_eq!(
                        std::mem::discriminant(&check(inv, &ex)),
                        std::mem::discriminant(&check(inv, &ey)),
                        "{} × {inv} on scenario {i} and its swap",
                        set.name
                    );
                }
            }
        }
    }

    #[test]
    fn the_tiny_bound_refutes_upstream_and_proves_all() {
        let space = Space::new(&Bound::tiny());
        let r = run(&space, 2, &|_, _| {}).unwrap();
        for inv in [
            Invariant::JsonSafe,
            Invariant::GeminiSafe,
            Invariant::Lossless,
            Invariant::TranscriptValid,
            Invariant::StreamAsCall,
            Invariant::TurnEnds,
        ] {
            let c = r.cell("upstream", inv).unwrap();
            let Proof::Refuted {
                counterexample,
                replays,
                ..
            } = &c.proof
            else {
                panic!("upstream × {inv} should be refuted")
            };
            assert!(replays, "upstream × {inv}");
            let v = crate::vectors::Vector::from_value(counterexample).unwrap();
            assert!(matches!(
                v.verify(),
                crate::vectors::Verification::Failed(_)
            ));
        }
        // No fix is about the streaming path.
        for inv in Invariant::ALL {
            let c = r.cell("all", inv).unwrap();
            if inv == Invariant::StreamAsCall {
                assert_eq!(c.verdict(), "refuted");
                continue;
            }
            assert_eq!(c.proof, Proof::Proved, "all × {inv}");
            assert_eq!(c.scenarios, space.scenarios());
        }
    }

    /// Stream-as-call within the streamed family: a tool round's text
    /// reaches a streaming client, and the memory outside the loop stores
    /// it merged with the answer, where `call()` stores the answer alone;
    /// without a memory the same turns invoke the tools as `call()` does.
    #[test]
    fn a_streamed_round_with_text_parts_from_call_only_in_the_memory_outside() {
        let space = Space::new(&Bound::tiny());
        let (mut held, mut merged) = (0, 0);
        for i in 0..space.scenarios() {
            let item = space.item(i).unwrap();
            if space.family(&item).name != "streamed" {
                continue;
            }
            let s = space.scenario(&item);
            assert!(s.config.stream.is_some());
            let v = check_scenario(Invariant::StreamAsCall, &s);
            if s.config.memory == Memory::None {
                assert_eq!(v, Verdict::Holds, "scenario {i}");
                held += 1;
                continue;
            }
            let mut blocking = s.clone();
            blocking.config.stream = None;
            let (Ok((streamed, _)), Ok((called, _))) = (s.run(), blocking.run()) else {
                panic!("scenario {i} runs both ways");
            };
            let text = |run: &crate::chat::tool_loop::LoopRun| match run.memory.last() {
                Some(Message::Assistant { text, .. }) => text.clone(),
                _ => None,
            };
            if text(&streamed) != text(&called) {
                assert!(v.is_refuted(), "scenario {i}");
                assert_eq!(
                    text(&streamed),
                    text(&called).map(|t| format!("{ROUND_TEXT}{t}"))
                );
                merged += 1;
            }
        }
        assert!(held > 0 && merged > 0, "{held} {merged}");
    }

    /// Turn-ends within the runaway family: refuted for upstream by a
    /// repeating model under `RETURN_ERROR_RESPONSE` whose turn is still
    /// going at its bound, proved for the fix. Under `THROW` every turn of
    /// the family ends (its limits bind every name it calls, the
    /// invariant's precondition).
    #[test]
    fn a_repeating_model_refutes_turn_ends_upstream_and_the_fix_ends_its_turn() {
        let space = Space::new(&Bound::tiny());
        let r = run(&space, 2, &|_, _| {}).unwrap();
        let sets = behavior_sets();
        let set = |name: &str| sets.iter().find(|s| s.name == name).unwrap();
        let c = r.cell("upstream", Invariant::TurnEnds).unwrap();
        let Proof::Refuted { index, replays, .. } = &c.proof else {
            panic!("upstream × turn-ends should be refuted: {:?}", c.proof)
        };
        assert!(replays);
        let item = space.item(*index).unwrap();
        assert_eq!(space.family(&item).name, "runaway");
        let s = space.scenario(&item);
        assert_eq!(
            s.config.manager.limits.on_exceeded,
            OnExceeded::ReturnErrorResponse
        );
        let bound = crate::checking::invariants::turn_bound(&s.config, &s.model).unwrap();
        // The smallest: one call repeated, a limit of one, three model calls.
        assert_eq!((s.model.len(), bound), (1, 3));
        // Upstream the turn is still calling the model at the guard past its
        // bound; under the fix the same turn ends within the bound.
        assert_eq!(
            s.run().map(|_| ()),
            Err(crate::chat::tool_loop::LoopError::TooManyRounds(bound + 1))
        );
        for fixed in ["end-turn-after-breach", "all"] {
            let (run, _) = with_set(&s, set(fixed)).run().unwrap();
            assert!(run.requests.len() <= bound, "{fixed}: {run:?}");
            let c = r.cell(fixed, Invariant::TurnEnds).unwrap();
            assert_eq!(c.proof, Proof::Proved, "{fixed}");
            assert_eq!(c.applicable, space.scenarios(), "{fixed}");
        }
        // Under THROW, upstream ends every turn of the family; under
        // RETURN_ERROR_RESPONSE some run away.
        let (mut ended, mut ran_away) = (0, 0);
        for i in 0..space.scenarios() {
            let item = space.item(i).unwrap();
            if space.family(&item).name != "runaway" {
                continue;
            }
            let s = space.scenario(&item);
            let v = check_scenario(Invariant::TurnEnds, &s);
            match s.config.manager.limits.on_exceeded {
                OnExceeded::Throw => {
                    assert_eq!(v, Verdict::Holds, "scenario {i}");
                    ended += 1;
                }
                OnExceeded::ReturnErrorResponse => ran_away += usize::from(v.is_refuted()),
            }
        }
        assert!(ended > 0 && ran_away > 0, "{ended} {ran_away}");
    }

    /// The evaluator as it was before the run shared one scenario between
    /// the behaviour sets and took the request messages from the Gemini
    /// run: a fresh `with_set` copy per set, a second run with provider
    /// `none` for the messages, every invariant judged on every scenario,
    /// no cell skipped once refuted.
    /// Returns per cell (scenarios, applicable, first refuting key).
    fn reference(space: &Space) -> Vec<(u64, u64, u64)> {
        let sets = behavior_sets();
        let n_inv = Invariant::ALL.len();
        let mut cells = vec![(0u64, 0u64, NONE); sets.len() * n_inv];
        for index in 0..space.scenarios() {
            let item = space.item(index).unwrap();
            let Some(weight) = space.canonical(&item) else {
                continue;
            };
            let k = key(space.size(&item), index);
            let base = space.scenario(&item);
            for (si, set) in sets.iter().enumerate() {
                let s = with_set(&base, set);
                let ev = Evidence::gather_with_second_run(&s);
                for (i, inv) in Invariant::ALL.iter().enumerate() {
                    let c = &mut cells[si * n_inv + i];
                    match ev.as_ref().map(|ev| check(*inv, ev)) {
                        Ok(Verdict::Holds) => {
                            c.0 += weight;
                            c.1 += weight;
                        }
                        Ok(Verdict::Refuted(_)) => c.2 = c.2.min(k),
                        _ => c.0 += weight,
                    }
                }
            }
        }
        cells
    }

    #[test]
    fn the_gemini_run_records_the_messages_of_the_provider_none_run() {
        let space = Space::new(&Bound::tiny());
        let (mut recorded, mut rerun) = (0, 0);
        for index in 0..space.scenarios() {
            let base = space.scenario(&space.item(index).unwrap());
            for set in &behavior_sets() {
                let s = with_set(&base, set);
                let (Ok(new), Ok(old)) =
                    (Evidence::gather(&s), Evidence::gather_with_second_run(&s))
                else {
                    continue;
                };
                assert_eq!(new.run, old.run, "scenario {index}");
                assert_eq!(
                    new.request_messages(),
                    old.request_messages(),
                    "scenario {index}"
                );
                assert_eq!(new.attempted(), old.attempted(), "scenario {index}");
                assert_eq!(
                    new.attempted_messages(),
                    old.attempted_messages(),
                    "scenario {index}"
                );
                if new.run.requests.len() == old.request_messages().map_or(0, <[_]>::len) {
                    recorded += 1;
                } else {
                    rerun += 1;
                }
            }
        }
        assert!(recorded > 0 && rerun > 0, "{recorded} {rerun}");
    }

    #[test]
    fn a_turn_whose_window_cut_nothing_runs_the_same_with_no_window() {
        // memory-keeps-turns reruns a turn with an unbounded window only
        // where the window cut something: elsewhere the two runs are equal.
        let mut f = Bound::default_bound().families[2].clone();
        f.processors.truncate(1);
        f.per_tool = vec![None];
        f.total = vec![None];
        f.breach = vec![OnExceeded::ReturnErrorResponse];
        f.outcomes = vec![0, 3];
        f.memories.retain(|m| m.window.get() == 4);
        let space = Space::new(&Bound {
            name: "window",
            families: vec![f],
        });
        let sets = behavior_sets();
        let (mut same, mut cut) = (0, 0);
        for index in 0..space.scenarios() {
            let item = space.item(index).unwrap();
            if space.canonical(&item).is_none() {
                continue;
            }
            let base = space.scenario(&item);
            for set in [&sets[0], &sets[sets.len() - 2]] {
                let s = with_set(&base, set);
                let Ok((run, _)) = s.run() else { continue };
                if run.windowed {
                    cut += 1;
                    continue;
                }
                let mut open = s.clone();
                open.config.memory_max_messages = NonZeroU32::MAX;
                assert_eq!(
                    open.run().unwrap().0,
                    run,
                    "scenario {index} under {}",
                    set.name
                );
                same += 1;
            }
        }
        assert!(same > 0 && cut > 0, "{same} {cut}");
    }

    #[test]
    fn the_run_gives_the_reference_evaluators_verdicts_and_counterexamples() {
        let space = Space::new(&Bound::tiny());
        let r = run(&space, 2, &|_, _| {}).unwrap();
        let want = reference(&space);
        assert_eq!(r.cells.len(), want.len());
        for (c, (scenarios, applicable, best)) in r.cells.iter().zip(want) {
            let name = format!("{} × {}", c.set, c.invariant);
            match &c.proof {
                Proof::Proved => {
                    assert_eq!(best, NONE, "{name}");
                    assert_eq!(
                        (c.scenarios, c.applicable),
                        (scenarios, applicable),
                        "{name}"
                    );
                }
                Proof::Refuted { size, index, .. } => {
                    assert_eq!(key(*size, *index), best, "{name}");
                }
            }
        }
    }

    /// The default bound's families cut down, memories and breaches kept.
    fn cut_down() -> Vec<Space> {
        Bound::default_bound()
            .families
            .into_iter()
            .map(|mut f| {
                f.per_tool.truncate(2);
                f.total.truncate(2);
                f.outcomes.truncate(4);
                f.processors.truncate(2);
                Space::new(&Bound {
                    name: "cut-down",
                    families: vec![f],
                })
            })
            .collect()
    }

    /// Every `step`-th scenario of `space` (canonical ones) under every
    /// behaviour set on its own, against the evaluation it shares in the
    /// run: the group of its felt fixes ([`set_groups`]), and the later
    /// groups the first evaluation of a group finds alike
    /// ([`evaluates_alike`]). Returns (scenarios, shared evaluations), the
    /// latter those with memory.
    fn check_shared_evaluations(space: &Space, step: u64) -> (usize, usize, usize) {
        let sets = behavior_sets();
        let mut memo = Conversions::default();
        let (mut scenarios, mut shared, mut with_memory) = (0, 0, 0);
        for index in (0..space.scenarios()).step_by(step as usize) {
            let item = space.item(index).unwrap();
            if space.canonical(&item).is_none() {
                continue;
            }
            scenarios += 1;
            let base = space.scenario(&item);
            let alone = |si: usize| {
                let s = with_set(&base, &sets[si]);
                let verdicts = Evidence::gather(&s).map(|ev| {
                    let v: Vec<Verdict> = Invariant::ALL.iter().map(|&i| check(i, &ev)).collect();
                    (ev.run, ev.toolbox, v)
                });
                verdicts
            };
            let groups = set_groups(&base, &sets);
            for (gi, g) in groups.iter().enumerate() {
                let first = with_set(&base, &sets[g.sets[0]]);
                let ev = Evidence::gather(&first);
                let mut members = g.sets.clone();
                for h in &groups[gi + 1..] {
                    let alike = ev.as_ref().is_ok_and(|ev| {
                        evaluates_alike(ev, (g.felt, g.advisor), (h.felt, h.advisor), &mut memo)
                    });
                    if alike {
                        members.extend(&h.sets);
                    }
                }
                let want = alone(members[0]);
                for &si in &members[1..] {
                    let name = format!("scenario {index} under {}", sets[si].name);
                    match (&want, alone(si)) {
                        (Ok((run, toolbox, verdicts)), Ok((r, t, v))) => {
                            assert_eq!(*run, r, "{name}");
                            assert_eq!(*toolbox, t, "{name}");
                            assert_eq!(*verdicts, v, "{name}");
                        }
                        (Err(a), Err(b)) => assert_eq!(*a, b, "{name}"),
                        _ => panic!("{name}: one run failed"),
                    }
                    shared += 1;
                    with_memory += usize::from(base.config.memory != Memory::None);
                }
            }
        }
        (scenarios, shared, with_memory)
    }

    #[test]
    fn the_sets_that_share_an_evaluation_run_and_are_judged_alike() {
        // What the run leaves to another set's evaluation is never felt:
        // on the default bound's families cut down, every set that shares
        // one runs and is judged on its own as the set it shares with.
        let (mut shared, mut with_memory) = (0, 0);
        for space in cut_down() {
            let (_, s, m) = check_shared_evaluations(&space, 61);
            shared += s;
            with_memory += m;
        }
        assert!(shared > 0 && with_memory > 0, "{shared} {with_memory}");
    }

    /// As above on every 7th scenario of the default bound (about 57,000
    /// run, a million shared evaluations; under a minute in release):
    /// `cargo test --release --lib shared_evaluations_of_the_default -- --ignored`.
    #[test]
    #[ignore]
    fn the_shared_evaluations_of_the_default_bound_are_the_sets_own() {
        let (scenarios, shared, _) =
            check_shared_evaluations(&Space::new(&Bound::default_bound()), 7);
        assert!(
            scenarios > 50_000 && shared > scenarios,
            "{scenarios} {shared}"
        );
    }

    #[test]
    fn sets_of_one_replay_class_replay_alike() {
        // Each set's own replay of the turn equals the one its class
        // shares, on the loop family (memories inside and outside the
        // loop, two rounds) cut down, and every invariant's verdict is the
        // one an evidence replaying on its own gives.
        let sets = behavior_sets();
        let mut f = Bound::default_bound().families[2].clone();
        f.per_tool = vec![Some(1)];
        f.total = vec![Some(2)];
        f.outcomes = vec![0, 3, 6];
        let space = Space::new(&Bound {
            name: "replays",
            families: vec![f],
        });
        let (mut shared, mut replays_made) = (0, 0);
        for index in (0..space.scenarios()).step_by(5) {
            let base = space.scenario(&space.item(index).unwrap());
            let replays = Replays::default();
            for g in set_groups(&base, &sets) {
                let class = g.class;
                for si in g.sets {
                    let s = with_set(&base, &sets[si]);
                    let (Ok(alone), Ok(ev)) = (Evidence::gather(&s), Evidence::gather(&s)) else {
                        continue;
                    };
                    let ev = ev.sharing(&replays, class);
                    assert_eq!(ev.trace().rounds(), alone.trace().rounds(), "{index} {si}");
                    assert_eq!(ev.trace().mirror, alone.trace().mirror, "{index} {si}");
                    for inv in Invariant::ALL {
                        assert_eq!(check(inv, &ev), check(inv, &alone), "{index} {si} {inv}");
                    }
                    shared += 1;
                }
            }
            replays_made += replays.len();
        }
        // Sets that only the manager tells apart (four of its fixes) each
        // replay on their own; the others share: about one replay for two
        // evaluations.
        assert!(replays_made * 3 < shared * 2, "{replays_made} {shared}");
    }

    #[test]
    fn sizes_grow_along_the_shapes() {
        let s = Space::new(&Bound::default_bound());
        assert!(s.shapes.windows(2).all(|w| w[0].size <= w[1].size));
        assert_eq!(s.shapes[0].size, 0); // no tool round, no prior call
        let one_call = s.shapes.iter().find(|x| x.key.calls() == 1).unwrap();
        assert_eq!(one_call.size, 2); // one call in one round
    }
}
