//! The bounds: the families of scenarios they join, and the classes of
//! tool output, memory and processor a family ranges over.

use std::num::NonZeroU32;

use serde_json::{Value, json};

use crate::verification::generators::UNKNOWN_TOOL;
use toolcall_model::chat::DEFAULT_MEMORY_MAX_MESSAGES;
use toolcall_model::chat::{Memory, Provider};
use toolcall_model::model::OnExceeded;
use toolcall_model::model::Outcome;
use toolcall_model::model::{JavaException, TOOL_EXECUTION_EXCEPTION};
use toolcall_model::model::{Processor, ProcessorKind};

/// A name a call uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Name {
    /// Tool `a`.
    A,
    /// Tool `b`.
    B,
    /// A name no tool has (`d`).
    Unknown,
}

impl Name {
    pub(super) const ALL: [Name; 3] = [Name::A, Name::B, Name::Unknown];

    /// The tool name in the scenario.
    pub(crate) fn tool(self) -> &'static str {
        match self {
            Name::A => "a",
            Name::B => "b",
            Name::Unknown => UNKNOWN_TOOL,
        }
    }

    pub(super) fn swapped(self) -> Name {
        match self {
            Name::A => Name::B,
            Name::B => Name::A,
            Name::Unknown => Name::Unknown,
        }
    }
}

/// One class of tool outcome, with its representative.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct OutcomeClass {
    /// A short label (`json-object`, `runtime-wrapped`, ...).
    pub label: &'static str,
    /// What every invocation of the tool does.
    pub outcome: Outcome,
}

fn returns(text: Option<&str>) -> Outcome {
    Outcome::Returns(text.map(Into::into))
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
pub(crate) fn outcome_classes() -> Vec<OutcomeClass> {
    let c = |label, outcome| OutcomeClass { label, outcome };
    let mut classes = vec![
        c("json-object", returns(Some(r#"{"temp":21}"#))),
        c("json-other", returns(Some("\"sunny\""))),
        c("half-json", returns(Some("3.0 + 5.0 = 8.0"))),
        c("plain-text", returns(Some("disk full"))),
        c("empty", returns(Some(""))),
        c("null", returns(None)),
    ];
    // Each kind of exception comes wrapped in `ToolExecutionException`, then bare.
    let (runtime, checked, error) = (
        "java.lang.IllegalStateException",
        "java.io.IOException",
        "java.lang.AssertionError",
    );
    for (wrapped, bare, class, message) in [
        ("runtime-wrapped", "runtime-unwrapped", runtime, "boom"),
        ("checked-wrapped", "checked-unwrapped", checked, "io failed"),
        ("error-wrapped", "error-unwrapped", error, "assertion"),
    ] {
        classes.push(c(wrapped, throws(class, Some(message), true)));
        classes.push(c(bare, throws(class, Some(message), false)));
    }
    classes.push(c(
        "own-tool-execution-exception",
        Outcome::Throws {
            exception: JavaException::caused(
                TOOL_EXECUTION_EXCEPTION,
                JavaException::new("java.lang.IllegalArgumentException", None),
            ),
            wrapped: false,
        },
    ));
    classes
}

/// Where the memory stands, its window, the conversation-history switch of
/// the tool loop, and whether the turn streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MemorySetup {
    /// None, inside or outside the loop.
    pub memory: Memory,
    /// `ToolCallingAdvisor.conversationHistoryEnabled`.
    pub conversation_history: bool,
    /// The memory's window (`maxMessages`).
    pub window: NonZeroU32,
    /// Whether the turn streams (`ChatClient.stream()`, each reply cut by
    /// [`Split::default`](toolcall_model::chat::Split::default)).
    pub stream: bool,
}

impl MemorySetup {
    /// A short label: `none`, `outside`, `inside`, `inside/no-history`,
    /// with `/window N` when the window is not the default.
    pub(crate) fn label(&self) -> String {
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
    pub(crate) fn none() -> Self {
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
    pub(super) fn knobs(&self) -> usize {
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
    /// Outcome classes, as indices into `outcome_classes`.
    pub outcomes: Vec<usize>,
    /// Memory setups.
    pub(crate) memories: Vec<MemorySetup>,
    /// Where the requests go. Provider `none` takes any tool response, so a
    /// turn goes on where Gemini's conversion of a breach text would end it.
    pub provider: Provider,
    /// What each tool round's reply holds besides its calls.
    pub(crate) round_reply: RoundReply,
    /// The model repeats its last tool round for every further call instead
    /// of answering in text ([`LoopConfig::repeat_last`](toolcall_model::chat::LoopConfig::repeat_last)): the turn ends
    /// only where the loop ends it.
    pub repeat_last: bool,
}

/// What a tool round's reply holds besides its calls: one generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RoundReply {
    /// The calls alone.
    CallsOnly,
    /// A text ([`ROUND_TEXT`]) with the calls: a model that says what it is
    /// about to do. A streamed round sends the text to the client before
    /// the calls (docs/BEHAVIOUR.md 6.3).
    TextWithCalls,
}

/// The text of a [`RoundReply::TextWithCalls`] round.
pub(crate) const ROUND_TEXT: &str = "Let me check";

/// The rethrow list the bounds use.
pub(crate) const RETHROW: &str = "java.lang.IllegalStateException";

/// Every processor: default and JSON-error, with and without `alwaysThrow`,
/// with and without a rethrow list ([`RETHROW`]), in that order.
pub(crate) fn all_processors() -> Vec<Processor> {
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

/// The default and JSON-error processors, without `alwaysThrow` or a
/// rethrow list.
fn plain_processors() -> Vec<Processor> {
    let procs = all_processors();
    vec![procs[0].clone(), procs[4].clone()]
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
pub(crate) const BOUND_NAMES: [&str; 4] = ["tiny", "default", "wide", "deep"];

impl Bound {
    /// A bound by name: `tiny`, `default`, `wide` or `deep`.
    ///
    /// ```
    /// assert!(toolcall_check::verification::exhaustive::Bound::named("default").is_some());
    /// assert!(toolcall_check::verification::exhaustive::Bound::named("huge").is_none());
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

    /// The default bound (about 4 s on two idle cores): the union of
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
    /// * `streamed` (stream-as-call, transcript-valid on streams, 624
    ///   scenarios): turns through
    ///   `ChatClient.stream()`, one tool round of 1 or 2 calls that come
    ///   with the text "Let me check", each reply cut into chunks (the text
    ///   in two, each call apart); per-tool maxima from {absent, 1}, total
    ///   absent; both breach behaviours; the default and JSON processors;
    ///   no prior call; outcomes JSON object and plain text; no memory, the
    ///   memory outside the loop, or inside it with the history off
    ///   (window 20).
    pub(crate) fn default_bound() -> Bound {
        let procs = all_processors();
        let every = (0..outcome_classes().len()).collect::<Vec<_>>();
        Bound {
            name: "default",
            families: vec![
                limits(),
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
                rounds_and_memory(),
                runaway(),
                streamed(),
            ],
        }
    }

    /// A wider bound (16.3 million scenarios, 20 times the default: about
    /// 70 s on two idle cores): the union of
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
    ///   class; every memory setup;
    /// * the default bound's `runaway` and `streamed` families.
    pub(crate) fn wide() -> Bound {
        let procs = all_processors();
        let every = (0..outcome_classes().len()).collect::<Vec<_>>();
        Bound {
            name: "wide",
            families: vec![
                // The default bound's `limits`, through every processor
                // and outcome.
                Family {
                    name: "manager",
                    processors: procs.clone(),
                    outcomes: every.clone(),
                    ..limits()
                },
                // The default bound's `loop`, with a per-tool maximum of 2,
                // the processors with and without `alwaysThrow`, every
                // outcome and streamed turns.
                Family {
                    per_tool: vec![None, Some(1), Some(2)],
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
                    ..rounds_and_memory()
                },
                // The default bound's two small families, so that no row
                // the default bound refutes is proved here for want of
                // its scenarios.
                runaway(),
                streamed(),
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
    /// use toolcall_check::verification::exhaustive::{Bound, Space};
    /// assert_eq!(Space::new(&Bound::deep()).scenarios(), 125_792);
    /// ```
    pub fn deep() -> Bound {
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
                processors: plain_processors(),
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
    /// use toolcall_check::verification::exhaustive::{Bound, Space};
    /// assert_eq!(Space::new(&Bound::tiny()).scenarios(), 2_056);
    /// ```
    pub fn tiny() -> Bound {
        Bound {
            name: "tiny",
            families: vec![
                Family {
                    outcomes: vec![0, 2, 3, 6],
                    memories: vec![
                        MemorySetup::none(),
                        MemorySetup::with(Memory::Inside, true, 20),
                    ],
                    ..one_short_round("tiny")
                },
                runaway(),
                streamed(),
            ],
        }
    }

    /// One line per family.
    pub(crate) fn describe(&self) -> String {
        self.families
            .iter()
            .map(Family::describe)
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The bound as JSON (for `--json`).
    pub(crate) fn to_json(&self) -> Value {
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

/// The family `limits` of the default bound (described at
/// [`Bound::default_bound`]), which the wide bound's `manager` widens.
fn limits() -> Family {
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
        processors: plain_processors(),
        outcomes: vec![0, 3, 6],
        memories: vec![MemorySetup::none()],
        provider: Provider::Gemini,
        round_reply: RoundReply::CallsOnly,
        repeat_last: false,
    }
}

/// The family `loop` of the default bound (described at
/// [`Bound::default_bound`]), which the wide bound's `loop` widens.
fn rounds_and_memory() -> Family {
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
        processors: plain_processors(),
        outcomes: vec![0, 2, 3, 4, 6, 7],
        memories: all_memories(),
        provider: Provider::Gemini,
        round_reply: RoundReply::CallsOnly,
        repeat_last: false,
    }
}

/// The family `runaway` of the default and tiny bounds (described at
/// [`Bound::default_bound`]): a model that never stops calling tools. Its
/// limits bind every name it calls, so every turn is within `turn-ends`'s
/// precondition, under `THROW` too; small, since under every set that lets
/// a turn run away it runs to its bound
/// ([`crate::verification::turn_bound::turn_bound`], at most 4 model calls).
fn runaway() -> Family {
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
        processors: plain_processors(),
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
    Family {
        outcomes: vec![0, 3],
        memories: vec![
            MemorySetup::none().streamed(),
            MemorySetup::with(Memory::Outside, true, 20).streamed(),
            // ChatClient's choice with the memory inside: no history.
            MemorySetup::with(Memory::Inside, false, 20).streamed(),
        ],
        round_reply: RoundReply::TextWithCalls,
        ..one_short_round("streamed")
    }
}

/// The manager's smallest product, which the tiny bound and the
/// `streamed` family widen elsewhere: one tool round of 1 or 2 calls, no
/// prior call, per-tool maxima from {absent, 1}, total absent, both breach
/// behaviours, the default and JSON processors; a tool returning a JSON
/// object, no memory, on Gemini.
fn one_short_round(name: &'static str) -> Family {
    Family {
        name,
        max_batch: 2,
        min_rounds: 1,
        max_rounds: 1,
        max_turn_calls: 2,
        max_prior: 0,
        per_tool: vec![None, Some(1)],
        total: vec![None],
        breach: both_breaches(),
        processors: plain_processors(),
        outcomes: vec![0],
        memories: vec![MemorySetup::none()],
        provider: Provider::Gemini,
        round_reply: RoundReply::CallsOnly,
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

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.

    #[test]
    fn example_describe() {
        assert!(
            crate::verification::exhaustive::Bound::tiny()
                .describe()
                .starts_with("tiny:")
        );
    }
    use super::*;

    #[test]
    fn example_tool() {
        assert_eq!(Name::Unknown.tool(), "d");
    }

    #[test]
    fn example_outcome_classes() {
        let c = crate::verification::exhaustive::bound::outcome_classes();
        assert_eq!(c.len(), 13);
        assert_eq!(c[0].label, "json-object");
    }

    #[test]
    fn example_label() {
        use crate::verification::exhaustive::bound::MemorySetup;
        assert_eq!(MemorySetup::none().label(), "none");
    }

    #[test]
    fn example_roundreply() {
        use crate::verification::exhaustive::bound::Bound;
        use crate::verification::exhaustive::bound::RoundReply;
        let b = Bound::default_bound();
        let streamed = b.families.iter().find(|f| f.name == "streamed").unwrap();
        assert_eq!(streamed.round_reply, RoundReply::TextWithCalls);
    }

    #[test]
    fn example_round_text() {
        use crate::verification::exhaustive::bound::Bound;
        use crate::verification::exhaustive::bound::ROUND_TEXT;
        use crate::verification::exhaustive::space::Space;
        let space = Space::new(&Bound::tiny());
        let texts = (0..space.scenarios())
            .map(|i| space.scenario(&space.item(i).unwrap()))
            .filter(|s| s.model[0][0].text.as_deref() == Some(ROUND_TEXT))
            .count();
        assert!(texts > 0);
    }

    #[test]
    fn example_all_processors() {
        assert_eq!(
            crate::verification::exhaustive::bound::all_processors().len(),
            8
        );
    }

    #[test]
    fn example_default_bound() {
        use crate::verification::exhaustive::bound::Bound;
        use crate::verification::exhaustive::space::Space;
        assert_eq!(Space::new(&Bound::default_bound()).scenarios(), 794_152);
    }
}
