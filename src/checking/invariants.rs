//! The invariants of docs/INVARIANTS.md, and two of the chat memory's
//! window (docs/INVARIANTS.md), as pure checkers over one generated turn.
//!
//! [`Evidence::gather`] runs a [`Scenario`] through the tool loop and keeps
//! what the checkers need: the run itself, the toolbox after it, a replay of
//! every batch through the manager's step engine ([`Trace`]), and the
//! messages each request was built from. [`check`] then judges one
//! [`Invariant`] on that evidence; [`refutation`] says where a refuted one
//! failed, for building a counterexample vector.
//!
//! Every invariant is evaluated under every behaviour set; the ones docs/INVARIANTS.md
//! claims only "with" a fix are expected to be refuted without it.
//!
//! Each invariant has a precondition ([`Invariant::precondition`], with its
//! reason in docs/INVARIANTS.md); a turn outside it is
//! [`Verdict::NotApplicable`]. The memory's precondition is shared:
//! [`memory_holds_conversation`].
//!
//! The checkers share no code with what they check where it matters: JSON
//! validity and values come from an independent RFC 8259 reader
//! ([`is_whole_json`]), the reference counts are a plain `BTreeMap`
//! ([`RefCounts`]), both in [`crate::checking::oracle`]; the
//! limit rule and the pairing rule ([`pairing`]) are restated here.
//!
//! ```
//! use toolcall_model::checking::invariants::{check, Evidence, Invariant, Verdict};
//! use toolcall_model::{model::limits::{Limits, OnExceeded}, model::manager::Config, model::message::{Generation, Message, ToolCall},
//!     model::processor::{Processor, ProcessorKind}, checking::scenario::Scenario, chat::tool_loop::LoopConfig, model::tools::ToolSpec};
//! // Seed 000: two calls to a tool limited to one call, the JSON processor.
//! let limits = Limits { on_exceeded: OnExceeded::ReturnErrorResponse, ..Limits::default() }.max_calls_per_tool(1).unwrap();
//! let processor = Processor { kind: ProcessorKind::JsonError, ..Processor::default() };
//! let s = Scenario {
//!     config: LoopConfig::new(Config { limits, processor, ..Config::default() }),
//!     tools: vec![ToolSpec::returning("x", "\"sunny\"")],
//!     history: vec![Message::user("weather twice")],
//!     model: vec![
//!         vec![Generation { tool_calls: vec![ToolCall::new("1", "x", "{}"), ToolCall::new("2", "x", "{}")], ..Default::default() }],
//!         vec![Generation { text: Some("sunny".into()), ..Default::default() }],
//!     ],
//! };
//! let ev = Evidence::gather(&s).unwrap();
//! assert!(matches!(check(Invariant::JsonSafe, &ev), Verdict::Refuted(_)));
//! assert!(matches!(check(Invariant::GeminiSafe, &ev), Verdict::Refuted(_)));
//! assert_eq!(check(Invariant::Limits, &ev), Verdict::Holds);
//! ```

use std::cell::OnceCell;
use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::chat::tool_loop::{LoopError, LoopRun, Memory, Provider, Sent};
use crate::checking::oracle::json::{json_equals, json_to_value, read_whole, Whole};
use crate::checking::oracle::{is_whole_json, Json, RefCounts};
use crate::checking::scenario::Scenario;
use crate::gemini::{build_request, convert_tool_response, Part};
use crate::model::behavior::Fixes;
use crate::model::limits::{Counts, Limits, Max, OnExceeded};
use crate::model::manager::{
    execute_with_counts, tool_call_message, Batch, ExecResult, LimitExceeded, ManagerError, Step,
};
use crate::model::message::{Message, ToolCall, ToolResponse};
use crate::model::processor::{json_error_text, ProcessorKind};
use crate::model::table::enum_table;
use crate::model::tools::{Invocation, Outcome, Toolbox};

enum_table! {
    /// One invariant of docs/INVARIANTS.md: its row holds its name, its
    /// statement in one line, and its precondition (which turns it speaks
    /// about; a turn outside it is [`Verdict::NotApplicable`], and
    /// docs/INVARIANTS.md gives each one's reason; every invariant also
    /// needs a valid turn, where the model script does not run out). Its
    /// judge is the arm of `judge` below.
    ///
    /// ```
    /// use toolcall_model::checking::invariants::Invariant;
    /// assert_eq!(Invariant::ALL.len(), 9);
    /// assert_eq!("json-safe".parse::<Invariant>(), Ok(Invariant::JsonSafe));
    /// assert_eq!(Invariant::TranscriptValid.to_string(), "transcript-valid");
    /// assert_eq!(Invariant::OneResponsePerCall.name(), "one-response-per-call");
    /// assert!(Invariant::Lossless.statement().contains("recovered"));
    /// assert!(Invariant::JsonSafe.precondition().contains("JSON-error processor"));
    /// assert!(Invariant::ALL.iter().all(|i| !i.precondition().is_empty()));
    /// ```
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum Invariant (InvariantRow, parse UnknownInvariant) {
        fields {
            /// The statement checked, in one line.
            statement: &'static str,
            /// The precondition: which turns the invariant speaks about.
            precondition: &'static str,
        }
        /// 1. One response per executed-or-breached call, same id and name, in
        ///    call order; under `RETURN_ERROR_RESPONSE` exactly one per call.
        OneResponsePerCall = "one-response-per-call" {
            statement: "one response per executed-or-breached call, same id and name, in call order; exactly one per call under RETURN_ERROR_RESPONSE",
            precondition: EVERY_TURN,
        },
        /// 2. At most `max` invocations per name and `total` in all per turn;
        ///    no breach while under both.
        Limits = "limits" {
            statement: "per name at most max invocations per turn, at most total invocations per turn, no breach while under both",
            precondition: EVERY_TURN,
        },
        /// 3. Counts kept incrementally equal the counts rebuilt from the history.
        Counting = "counting" {
            statement: "counts kept incrementally across rounds equal the counts rebuilt from the history",
            precondition: EVERY_TURN,
        },
        /// 4. Every emitted tool response is one whole JSON value (claimed with
        ///    the JSON processor and tools that return JSON).
        JsonSafe = "json-safe" {
            statement: "every emitted tool response is one whole JSON value (with the JSON processor and tools that return JSON)",
            precondition: "the JSON-error processor, and every tool returns one whole JSON value or throws (method tools)",
        },
        /// 5. Every tool response conversion in the Gemini requests succeeds and
        ///    yields an object.
        GeminiSafe = "gemini-safe" {
            statement: "every tool response conversion in the Gemini requests succeeds and yields a JSON object",
            precondition: GEMINI,
        },
        /// 6. The tool's output can be recovered from the converted response.
        Lossless = "lossless" {
            statement: "the tool's output can be recovered from the converted response",
            precondition: GEMINI,
        },
        /// 7. Every request and stored transcript is well paired.
        TranscriptValid = "transcript-valid" {
            statement: "every request and stored transcript is well paired",
            precondition: "the request's history holds a message besides system messages and is well paired; conversation history is on, or a memory is inside the loop; with a memory, the memory holds the conversation so far (memory_holds_conversation)",
        },
        /// 8. Every request of the turn still holds the turn's user message.
        QuestionKept = "question-kept" {
            statement: "every request of the turn still holds the turn's user message, as its last user message",
            precondition: "the conversation has a user message; conversation history is on, or a memory is inside the loop; with a memory, the memory holds the conversation so far (memory_holds_conversation)",
        },
        /// 9. The memory loses no earlier turn: it keeps the current turn whole
        ///    and drops earlier turns only whole, oldest first, when the window
        ///    is full.
        MemoryKeepsTurns = "memory-keeps-turns" {
            statement: "the memory loses no earlier turn: it keeps the current turn whole, and drops earlier turns only whole, oldest first, when the window is full",
            precondition: "a memory, inside or outside the loop, that holds the conversation so far (memory_holds_conversation)",
        },
    }
}

/// The precondition of the invariants that speak about every turn.
const EVERY_TURN: &str = "none: every turn";

/// The precondition of the invariants about Gemini's requests.
const GEMINI: &str = "the provider is Gemini";

/// A name that is not an invariant.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown invariant '{0}' (known: {known})", known = Invariant::known())]
pub struct UnknownInvariant(pub String);

/// The verdict of one invariant on one scenario.
///
/// ```
/// let v = toolcall_model::checking::invariants::Verdict::Refuted("x".into());
/// assert!(v.is_refuted());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The invariant holds.
    Holds,
    /// The scenario does not meet the invariant's preconditions (or is not
    /// a valid turn: its script ran out).
    NotApplicable,
    /// Refuted; the text says what the invariant wanted and what happened.
    Refuted(String),
}

impl Verdict {
    /// Whether this is [`Verdict::Refuted`].
    ///
    /// ```
    /// assert!(!toolcall_model::checking::invariants::Verdict::Holds.is_refuted());
    /// ```
    pub fn is_refuted(&self) -> bool {
        matches!(self, Verdict::Refuted(_))
    }
}

/// Where in the `tool_loop` vector output a refutation shows, and what the
/// invariant wanted there.
#[derive(Debug, Clone, PartialEq)]
pub enum Locus {
    /// An emitted response whose data is this text; the invariant wanted
    /// `wanted` (JSON) in its place. Found wherever the text surfaces
    /// (generations, memory, provider-`none` requests).
    Text {
        /// The offending data.
        data: String,
        /// What the invariant wanted instead.
        wanted: String,
    },
    /// The loop should not have ended with an exception (`outcome.error`).
    OutcomeError,
    /// The request built from memory should have been accepted (`memory.api`).
    MemoryApi,
    /// Every request should have been accepted (`api`).
    Api,
    /// A built request's `functionResponse.response` should have been `wanted`.
    Payload {
        /// Index in `requests`.
        request: usize,
        /// Index in the request's `contents`.
        content: usize,
        /// Index in the content's `parts`.
        part: usize,
        /// The payload that recovers the tool's output.
        wanted: Value,
        /// The payload sent.
        got: Value,
    },
    /// The tools should have been invoked exactly so.
    Invocations(Vec<Invocation>),
    /// Not visible in the vector output.
    Unlocated,
}

/// A refuted invariant: what was wanted, and where it shows.
#[derive(Debug, Clone, PartialEq)]
pub struct Refutation {
    /// What the invariant wanted and what happened.
    pub wanted: String,
    /// Where it shows in the vector output.
    pub locus: Locus,
    /// The tool response the refutation is about, if it is about one
    /// (JSON-safe, Gemini-safe, lossless).
    pub response: Option<ToolResponse>,
    /// The index of the model call whose request the refutation is about
    /// (Gemini-safe, lossless, transcript-valid), if it is about one.
    pub request: Option<usize>,
}

fn wrap(key: &str, v: Value) -> Value {
    let mut m = Map::new();
    m.insert(key.to_owned(), v);
    Value::Object(m)
}

/// Whether `payload` recovers `data` (invariant 6), and if not, the payload
/// that would have.
///
/// * An error response under `error-key`: a whole JSON object as is, any
///   other data verbatim under `error` (that fix's design: error data is
///   never parsed).
/// * Otherwise: one whole JSON value as an equal value (an object as is,
///   anything else under `result`); any other text verbatim under `result`.
///   A value Jackson or Rust cannot carry faithfully (deeper than 500, an
///   unpaired surrogate escape) may also come back verbatim.
fn recovered(data: &str, error: bool, fixes: Fixes, payload: &Value) -> Result<(), Value> {
    let verbatim = |key: &str| wrap(key, Value::String(data.to_owned()));
    let whole = read_whole(data, true);
    if fixes.error_key && error {
        return match whole {
            Whole::Value {
                value: v @ Json::Obj(_),
                beyond,
            } => {
                if json_equals(&v, payload) || (beyond && *payload == verbatim("error")) {
                    Ok(())
                } else {
                    Err(json_to_value(&v))
                }
            }
            _ if *payload == verbatim("error") => Ok(()),
            _ => Err(verbatim("error")),
        };
    }
    match whole {
        Whole::Value { value, beyond } => {
            let ok = match (&value, payload) {
                (Json::Obj(_), p) => json_equals(&value, p),
                (v, Value::Object(m)) => {
                    m.len() == 1 && m.get("result").is_some_and(|r| json_equals(v, r))
                }
                _ => false,
            };
            if ok || (beyond && *payload == verbatim("result")) {
                Ok(())
            } else if matches!(value, Json::Obj(_)) {
                Err(json_to_value(&value))
            } else {
                Err(wrap("result", json_to_value(&value)))
            }
        }
        Whole::TooDeep | Whole::NotJson => {
            if *payload == verbatim("result") {
                Ok(())
            } else {
                Err(verbatim("result"))
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Pairing (invariant 7).

pub use crate::model::message::pairing;

// ---------------------------------------------------------------------------
// The trace: every batch of the turn replayed through the step engine.

/// What one call of a batch did, as [`Batch::call`] and
/// [`crate::model::manager::Pending::complete`] reported it, with the batch's counts
/// after the step (when the batch goes on).
#[derive(Debug, Clone, PartialEq)]
pub enum CallEvent {
    /// The tool ran; `failed` when its result failed the batch.
    Invoked {
        /// The batch's counts after the call (none if the batch failed).
        counts: Option<Counts>,
        /// The failure its result caused, if any.
        failed: Option<ManagerError>,
    },
    /// A breach answered with an error response (`RETURN_ERROR_RESPONSE`).
    Answered {
        /// The batch's counts after the call.
        counts: Counts,
    },
    /// A breach under `THROW`: the batch stopped.
    Thrown {
        /// The batch's counts after the call.
        counts: Counts,
    },
    /// The step failed the batch without running a tool: the lookup failed,
    /// or (with `breach-through-processor`) the processor threw on a breach.
    Failed(ManagerError),
}

/// How a batch ended.
#[derive(Debug, Clone, PartialEq)]
pub enum RoundEnd {
    /// Every call answered.
    Done {
        /// The result.
        result: ExecResult,
        /// The counts after the batch.
        counts: Counts,
    },
    /// `ToolCallLimitExceededException`.
    Limit(Box<LimitExceeded>),
    /// Another exception.
    Failed(ManagerError),
}

/// One batch of the turn.
#[derive(Debug, Clone, PartialEq)]
pub struct Round {
    /// The history the batch ran on.
    pub history: Vec<Message>,
    /// The counts the batch started from.
    pub before: Counts,
    /// The batch's calls.
    pub calls: Vec<ToolCall>,
    /// One event per call reached.
    pub events: Vec<CallEvent>,
    /// How the batch ended.
    pub end: RoundEnd,
    /// Whether `execute_with_counts` (the loop's driver) gave the same
    /// result and invocations; the difference otherwise.
    pub driver: Result<(), String>,
}

/// The turn's batches replayed step by step, as the loop ran them.
#[derive(Debug, Clone, PartialEq)]
pub struct Trace {
    /// The batches, in order.
    pub rounds: Vec<Round>,
    /// Whether the replay invoked the tools exactly as the loop did.
    pub mirror: Result<(), String>,
}

fn replay(scenario: &Scenario, model_calls: usize, loop_toolbox: &Toolbox) -> Trace {
    let cfg = &scenario.config.manager;
    let fallback = cfg.resolution_fallback;
    let mut tb = Toolbox::new(scenario.tools.clone());
    let mut full = turn_history(scenario);
    let mut counts = Counts::recount(&full);
    let mut rounds = Vec::new();
    for reply in scenario.model.iter().take(model_calls) {
        let Some(assistant) = tool_call_message(reply) else {
            break;
        };
        let calls = assistant.tool_calls().to_vec();
        let mut driver_tb = tb.clone();
        let driver = execute_with_counts(cfg, full.clone(), reply, counts.clone(), &mut driver_tb);
        let mut batch = Some(Batch::new(counts.clone()));
        let mut events = Vec::new();
        let mut end = None;
        for (i, call) in calls.iter().enumerate() {
            let Some(b) = batch.take() else { break };
            match b.call(call, cfg, |n| tb.find(n, fallback)) {
                Step::Answered(b) => {
                    events.push(CallEvent::Answered {
                        counts: b.counts().clone(),
                    });
                    batch = Some(b);
                }
                Step::Invoke(p) => {
                    let result = tb.invoke(p.tool(), p.arguments());
                    match p.complete(result, cfg) {
                        Ok(b) => {
                            events.push(CallEvent::Invoked {
                                counts: Some(b.counts().clone()),
                                failed: None,
                            });
                            batch = Some(b);
                        }
                        Err(e) => {
                            events.push(CallEvent::Invoked {
                                counts: None,
                                failed: Some(e.clone()),
                            });
                            end = Some(RoundEnd::Failed(e));
                            break;
                        }
                    }
                }
                Step::Breached(b, breach) => {
                    events.push(CallEvent::Thrown {
                        counts: b.counts().clone(),
                    });
                    let e = b.throw(
                        breach,
                        &calls[i + 1..],
                        full.clone(),
                        assistant.clone(),
                        cfg,
                    );
                    end = Some(RoundEnd::Limit(Box::new(e)));
                    break;
                }
                Step::Failed(e) => {
                    events.push(CallEvent::Failed(e.clone()));
                    end = Some(RoundEnd::Failed(e));
                    break;
                }
            }
        }
        let end = match (end, batch) {
            (Some(e), _) => e,
            (None, Some(b)) => {
                let (result, counts) = b.finish(full.clone(), assistant.clone());
                RoundEnd::Done { result, counts }
            }
            (None, None) => unreachable!("a batch that did not end is still held"),
        };
        let same = match (&driver, &end) {
            (Ok((r, c)), RoundEnd::Done { result, counts }) => r == result && c == counts,
            (Err(ManagerError::LimitExceeded(a)), RoundEnd::Limit(b)) => a == b,
            (Err(a), RoundEnd::Failed(b)) => a == b,
            _ => false,
        };
        let driver = if !same {
            Err("execute_with_counts and the step engine end the batch differently".to_owned())
        } else if driver_tb != tb {
            Err("execute_with_counts and the step engine invoke the tools differently".to_owned())
        } else {
            Ok(())
        };
        let next = match &end {
            RoundEnd::Done { result, counts } if !result.return_direct => {
                Some((result.history.clone(), counts.clone()))
            }
            _ => None,
        };
        rounds.push(Round {
            history: std::mem::take(&mut full),
            before: counts.clone(),
            calls,
            events,
            end,
            driver,
        });
        match next {
            Some((h, c)) => {
                full = h;
                counts = c;
            }
            None => break,
        }
    }
    let mirror = if tb.invocations() == loop_toolbox.invocations() {
        Ok(())
    } else {
        Err(format!(
            "replaying the turn's batches through the manager invoked {} tool(s), the loop {}",
            tb.invocations().len(),
            loop_toolbox.invocations().len()
        ))
    };
    Trace { rounds, mirror }
}

// ---------------------------------------------------------------------------
// Evidence.

/// What the checkers look at: the scenario, its run, and (computed on first
/// use) the step-by-step replay of its batches and the messages each
/// request was built from.
#[derive(Debug)]
pub struct Evidence<'a> {
    /// The scenario.
    pub scenario: &'a Scenario,
    /// The loop's run.
    pub run: LoopRun,
    /// The toolbox after the run (its invocations).
    pub toolbox: Toolbox,
    trace: OnceCell<Trace>,
    messages: OnceCell<Option<Vec<Vec<Message>>>>,
}

impl<'a> Evidence<'a> {
    /// Runs the scenario. Fails only if the scenario is not a valid turn
    /// (its model script ran out).
    ///
    /// ```
    /// use toolcall_model::{checking::invariants::Evidence, model::message::Message, checking::scenario::Scenario, chat::tool_loop::LoopConfig};
    /// let s = Scenario { config: LoopConfig::new(Default::default()), tools: vec![],
    ///     history: vec![Message::user("hi")], model: vec![] };
    /// assert!(Evidence::gather(&s).is_err()); // no reply scripted
    /// ```
    pub fn gather(scenario: &'a Scenario) -> Result<Self, LoopError> {
        let (run, toolbox) = scenario.run()?;
        Ok(Evidence {
            scenario,
            run,
            toolbox,
            trace: OnceCell::new(),
            messages: OnceCell::new(),
        })
    }

    /// Every batch of the turn replayed through the step engine.
    pub fn trace(&self) -> &Trace {
        self.trace
            .get_or_init(|| replay(self.scenario, self.run.requests.len(), &self.toolbox))
    }

    /// The message list each model call received (after the advisor and
    /// the memory), taken from the same turn run with provider `none`, which
    /// does not stop where a Gemini conversion fails. `None` if that run
    /// failed.
    pub fn request_messages(&self) -> Option<&[Vec<Message>]> {
        self.messages
            .get_or_init(|| {
                let none_run;
                let run = if self.scenario.config.provider == Provider::None {
                    &self.run
                } else {
                    // Past the point where the Gemini run stopped, the
                    // provider-none run may need a reply the script lacks:
                    // a final answer is appended, which only ever comes
                    // after every request the Gemini run made.
                    let mut s = self.scenario.clone();
                    s.config.provider = Provider::None;
                    s.model.push(vec![crate::model::message::Generation {
                        text: Some("(end)".to_owned()),
                        ..Default::default()
                    }]);
                    none_run = s.run().ok()?.0;
                    &none_run
                };
                Some(
                    run.requests
                        .iter()
                        .filter_map(|r| match r {
                            Sent::Messages(m) => Some(m.iter().map(|m| (**m).clone()).collect()),
                            Sent::Gemini(_) => None,
                        })
                        .collect(),
                )
            })
            .as_deref()
    }

    /// How many requests the loop tried to send: the built ones, plus the
    /// one whose conversion failed, if any.
    pub fn attempted(&self) -> usize {
        let built = self.run.requests.len();
        match self.request_messages() {
            Some(m) if self.scenario.config.provider == Provider::Gemini && built < m.len() => {
                if build_request(&m[built], self.fixes()).is_err() {
                    built + 1
                } else {
                    built
                }
            }
            _ => built,
        }
    }

    fn fixes(&self) -> Fixes {
        self.scenario.config.manager.fixes
    }

    /// The request built from memory after the turn, as messages.
    fn next_turn(&self) -> Vec<Message> {
        let mut next = self.run.memory.clone();
        next.push(Message::user("next question"));
        next
    }
}

/// Judges `invariant` on the evidence.
///
/// ```
/// use toolcall_model::{checking::invariants::{check, Evidence, Invariant, Verdict}, model::message::{Generation, Message}, checking::scenario::Scenario, chat::tool_loop::LoopConfig};
/// let s = Scenario { config: LoopConfig::new(Default::default()), tools: vec![],
///     history: vec![Message::user("hi")], model: vec![vec![Generation { text: Some("hello".into()), ..Default::default() }]] };
/// let ev = Evidence::gather(&s).unwrap();
/// for inv in Invariant::ALL {
///     assert!(!check(inv, &ev).is_refuted());
/// }
/// ```
pub fn check(invariant: Invariant, evidence: &Evidence<'_>) -> Verdict {
    match judge(invariant, evidence) {
        Judged::Holds => Verdict::Holds,
        Judged::NotApplicable => Verdict::NotApplicable,
        Judged::Refuted(r) => Verdict::Refuted(r.wanted),
    }
}

/// Runs the scenario and judges `invariant`; a scenario that is not a valid
/// turn is [`Verdict::NotApplicable`].
///
/// ```
/// use toolcall_model::{checking::invariants::{check_scenario, Invariant, Verdict}, model::message::Message, checking::scenario::Scenario, chat::tool_loop::LoopConfig};
/// let s = Scenario { config: LoopConfig::new(Default::default()), tools: vec![],
///     history: vec![Message::user("hi")], model: vec![] };
/// assert_eq!(check_scenario(Invariant::Counting, &s), Verdict::NotApplicable);
/// ```
pub fn check_scenario(invariant: Invariant, scenario: &Scenario) -> Verdict {
    match Evidence::gather(scenario) {
        Ok(ev) => check(invariant, &ev),
        Err(_) => Verdict::NotApplicable,
    }
}

/// Where and how `invariant` is refuted on the evidence; `None` if it is not.
///
/// ```
/// use toolcall_model::{checking::invariants::{refutation, Evidence, Invariant}, model::message::{Generation, Message}, checking::scenario::Scenario, chat::tool_loop::LoopConfig};
/// let s = Scenario { config: LoopConfig::new(Default::default()), tools: vec![],
///     history: vec![Message::user("hi")], model: vec![vec![Generation::default()]] };
/// assert!(refutation(Invariant::Lossless, &Evidence::gather(&s).unwrap()).is_none());
/// ```
pub fn refutation(invariant: Invariant, evidence: &Evidence<'_>) -> Option<Refutation> {
    match judge(invariant, evidence) {
        Judged::Refuted(r) => Some(*r),
        _ => None,
    }
}

enum Judged {
    Holds,
    NotApplicable,
    Refuted(Box<Refutation>),
}

fn refuted(wanted: String, locus: Locus) -> Judged {
    Judged::Refuted(Box::new(Refutation {
        wanted,
        locus,
        response: None,
        request: None,
    }))
}

fn refuted_on(wanted: String, locus: Locus, response: &ToolResponse) -> Judged {
    Judged::Refuted(Box::new(Refutation {
        wanted,
        locus,
        response: Some(response.clone()),
        request: None,
    }))
}

fn in_request(judged: Judged, k: usize) -> Judged {
    match judged {
        Judged::Refuted(mut r) => {
            r.request = Some(k);
            Judged::Refuted(r)
        }
        other => other,
    }
}

fn judge(invariant: Invariant, ev: &Evidence<'_>) -> Judged {
    match invariant {
        Invariant::OneResponsePerCall => one_response_per_call(ev),
        Invariant::Limits => limits(ev),
        Invariant::Counting => counting(ev),
        Invariant::JsonSafe => json_safe(ev),
        Invariant::GeminiSafe => gemini_safe(ev),
        Invariant::Lossless => lossless(ev),
        Invariant::TranscriptValid => transcript_valid(ev),
        Invariant::QuestionKept => question_kept(ev),
        Invariant::MemoryKeepsTurns => memory_keeps_turns(ev),
    }
}

fn clip(s: &str) -> String {
    const N: usize = 80;
    if s.chars().count() <= N {
        format!("{s:?}")
    } else {
        let t: String = s.chars().take(N).collect();
        format!("{t:?}… ({} bytes)", s.len())
    }
}

fn one_response_per_call(ev: &Evidence<'_>) -> Judged {
    let trace = ev.trace();
    if let Err(e) = &trace.mirror {
        return refuted(
            format!("the loop to run its batches as the manager does, but {e}"),
            Locus::Unlocated,
        );
    }
    let throw = ev.scenario.config.manager.limits.on_exceeded == OnExceeded::Throw;
    for (r, round) in trace.rounds.iter().enumerate() {
        if let Err(e) = &round.driver {
            return refuted(format!("batch {r}: {e}"), Locus::Unlocated);
        }
        let calls = &round.calls;
        let (responses, answered) = match &round.end {
            RoundEnd::Done { result, .. } => {
                if !matches!(result.history.last(), Some(Message::Tool { .. })) {
                    return refuted(
                        format!("batch {r}: the result to end with a tool message"),
                        Locus::Unlocated,
                    );
                }
                (result.last_responses(), calls.len())
            }
            RoundEnd::Limit(e) => {
                let k = round.events.len().saturating_sub(1);
                if !throw || !matches!(round.events.last(), Some(CallEvent::Thrown { .. })) {
                    return refuted(
                        format!("batch {r}: a limit exception only from a breach under THROW"),
                        Locus::Unlocated,
                    );
                }
                if e.breach_index != k {
                    return refuted(
                        format!(
                            "batch {r}: the breach response at index {k}, not {}",
                            e.breach_index
                        ),
                        Locus::Unlocated,
                    );
                }
                (e.partial.last_responses(), k + 1)
            }
            RoundEnd::Failed(_) => continue,
        };
        if responses.len() < answered || responses.len() > calls.len() {
            return refuted(
                format!(
                    "batch {r}: {answered} response(s) for {} call(s) executed or breached (of {}), got {}",
                    answered,
                    calls.len(),
                    responses.len()
                ),
                Locus::Unlocated,
            );
        }
        if !throw && responses.len() != calls.len() {
            return refuted(
                format!(
                    "batch {r}: exactly one response per call under RETURN_ERROR_RESPONSE ({}), got {}",
                    calls.len(),
                    responses.len()
                ),
                Locus::Unlocated,
            );
        }
        for (i, (resp, call)) in responses.iter().zip(calls).enumerate() {
            if resp.id != call.id || resp.name != call.name {
                return refuted(
                    format!(
                        "batch {r}: response {i} for call {:?} ({}), got one for {:?} ({})",
                        call.id, call.name, resp.id, resp.name
                    ),
                    Locus::Unlocated,
                );
            }
        }
    }
    Judged::Holds
}

fn show_counts(c: &Counts) -> String {
    let parts: Vec<String> = c.sorted().iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{{{}}} total {}", parts.join(", "), c.total())
}

/// The per-tool maximum, restated from docs/BEHAVIOUR.md section 3.2: none when excluded, the
/// override, else the default.
fn max_for(l: &Limits, name: &str) -> Max {
    if l.excluded.contains(name) {
        Max::Unlimited
    } else {
        l.overrides
            .get(name)
            .map_or(l.default_max_per_tool, |&n| Max::Limited(n))
    }
}

fn over(m: Max, n: u64) -> bool {
    matches!(m, Max::Limited(max) if n > u64::from(max))
}

fn limits(ev: &Evidence<'_>) -> Judged {
    let l = &ev.scenario.config.manager.limits;
    let btp = ev.scenario.config.manager.fixes.breach_through_processor;
    let trace = ev.trace();
    let mut reference = RefCounts::of(&turn_history(ev.scenario));
    let prior = reference.clone();
    let mut invoked: BTreeMap<String, u64> = BTreeMap::new();
    let mut expected_invocations = Vec::new();
    for (r, round) in trace.rounds.iter().enumerate() {
        for (i, (call, event)) in round.calls.iter().zip(&round.events).enumerate() {
            let (count, total) = reference.add(&call.name);
            let per_tool = max_for(l, &call.name);
            let want_breach = over(per_tool, count) || over(l.max_total, total);
            let breached = match event {
                CallEvent::Answered { .. } | CallEvent::Thrown { .. } => true,
                CallEvent::Invoked { .. } => false,
                CallEvent::Failed(e) => {
                    // A failed lookup: no tool, or (with resolution
                    // fallback) the resolver refusing a blank name.
                    let j = e.java();
                    let lookup = j
                        .message
                        .as_deref()
                        .is_some_and(|m| m.starts_with("No ToolCallback found for tool name"))
                        || (j.class == crate::model::java::ILLEGAL_ARGUMENT
                            && j.message.as_deref()
                                == Some(crate::model::manager::BLANK_TOOL_NAME));
                    // With breach-through-processor a breach can fail the
                    // batch when the processor throws.
                    !lookup && btp
                }
            };
            if !want_breach && !matches!(event, CallEvent::Failed(_)) {
                expected_invocations.push(Invocation {
                    tool: call.name.clone(),
                    arguments: match &call.arguments {
                        Some(a) if crate::model::limits::has_text(a) => a.clone(),
                        _ => "{}".to_owned(),
                    },
                });
            }
            if breached != want_breach {
                let show = |m: Max| match m {
                    Max::Limited(n) => n.to_string(),
                    Max::Unlimited => "unlimited".to_owned(),
                };
                return refuted(
                    format!(
                        "batch {r}, call {i} ({}): {} with {} call(s) to it (max {}) and {} in all (max {}), got {}",
                        call.name,
                        if want_breach { "a breach" } else { "no breach" },
                        count,
                        show(per_tool),
                        total,
                        show(l.max_total),
                        if breached { "a breach" } else { "none" }
                    ),
                    Locus::Invocations(expected_invocations),
                );
            }
            if matches!(event, CallEvent::Invoked { .. }) {
                *invoked.entry(call.name.clone()).or_insert(0) += 1;
            }
        }
    }
    for (name, n) in &invoked {
        if let Max::Limited(max) = max_for(l, name) {
            if *n > u64::from(max).saturating_sub(prior.get(name)) {
                return refuted(
                    format!(
                        "at most {max} call(s) to {name} in the turn ({} before this request), got {n} invocation(s)",
                        prior.get(name)
                    ),
                    Locus::Unlocated,
                );
            }
        }
    }
    let all: u64 = invoked.values().sum();
    if let Max::Limited(max) = l.max_total {
        if all > u64::from(max).saturating_sub(prior.total) {
            return refuted(
                format!(
                    "at most {max} tool call(s) in the turn ({} before this request), got {all} invocation(s)",
                    prior.total
                ),
                Locus::Unlocated,
            );
        }
    }
    Judged::Holds
}

fn counting(ev: &Evidence<'_>) -> Judged {
    let trace = ev.trace();
    let mut reference = RefCounts::of(&turn_history(ev.scenario));
    for (r, round) in trace.rounds.iter().enumerate() {
        let rebuilt = RefCounts::of(&round.history);
        if !rebuilt.matches(&round.before) || rebuilt != reference {
            return refuted(
                format!(
                    "batch {r}: to start from the counts rebuilt from its history, {}, got {}",
                    rebuilt,
                    show_counts(&round.before)
                ),
                Locus::Unlocated,
            );
        }
        for (i, (call, event)) in round.calls.iter().zip(&round.events).enumerate() {
            reference.add(&call.name);
            let counts = match event {
                CallEvent::Answered { counts } | CallEvent::Thrown { counts } => Some(counts),
                CallEvent::Invoked { counts, .. } => counts.as_ref(),
                CallEvent::Failed(_) => None,
            };
            if let Some(c) = counts {
                if !reference.matches(c) {
                    return refuted(
                        format!(
                            "batch {r}, after call {i}: counts {}, got {}",
                            reference,
                            show_counts(c)
                        ),
                        Locus::Unlocated,
                    );
                }
            }
        }
        if let RoundEnd::Done { result, counts } = &round.end {
            let rebuilt = Counts::recount(&result.history);
            if *counts != rebuilt || !reference.matches(counts) {
                return refuted(
                    format!(
                        "after batch {r}: the kept counts {} to equal the recount of the history, {}",
                        show_counts(counts),
                        show_counts(&rebuilt)
                    ),
                    Locus::Unlocated,
                );
            }
        }
    }
    // The loop's own counts at the end of a turn that ended normally.
    let last_ok = match trace.rounds.last() {
        None => Some(Counts::recount(&turn_history(ev.scenario))),
        Some(Round {
            end: RoundEnd::Done { counts, .. },
            ..
        }) => Some(counts.clone()),
        Some(_) => None,
    };
    if let Some(expected) = last_ok {
        if ev.run.error.is_none()
            && matches!(
                ev.run.kind,
                crate::chat::tool_loop::EndKind::Completed
                    | crate::chat::tool_loop::EndKind::ReturnDirect
            )
            && ev.run.counts != expected
        {
            return refuted(
                format!(
                    "the loop's counts at the end of the turn, {}, got {}",
                    show_counts(&expected),
                    show_counts(&ev.run.counts)
                ),
                Locus::Unlocated,
            );
        }
    }
    Judged::Holds
}

fn json_safe(ev: &Evidence<'_>) -> Judged {
    let cfg = &ev.scenario.config.manager;
    if cfg.processor.kind != ProcessorKind::JsonError {
        return Judged::NotApplicable;
    }
    let method_tools = ev.scenario.tools.iter().all(|t| {
        !t.outcomes.is_empty()
            && t.outcomes.iter().all(|o| match o {
                Outcome::Returns(Some(text)) => is_whole_json(text),
                Outcome::Throws { .. } => true,
                Outcome::Returns(None) | Outcome::EchoArguments => false,
            })
    });
    if !method_tools {
        return Judged::NotApplicable;
    }
    for (r, round) in ev.trace().rounds.iter().enumerate() {
        let responses = match &round.end {
            RoundEnd::Done { result, .. } => result.last_responses(),
            RoundEnd::Limit(e) => e.partial.last_responses(),
            RoundEnd::Failed(_) => continue,
        };
        for (i, resp) in responses.iter().enumerate() {
            if !is_whole_json(&resp.data) {
                return refuted_on(
                    format!(
                        "batch {r}: response {i} (tool '{}') to be one whole JSON value, got {}",
                        resp.name,
                        clip(&resp.data)
                    ),
                    Locus::Text {
                        data: resp.data.clone(),
                        wanted: json_error_text(&resp.data),
                    },
                    resp,
                );
            }
        }
    }
    Judged::Holds
}

fn tool_responses(messages: &[Message]) -> impl Iterator<Item = &ToolResponse> {
    messages.iter().flat_map(|m| m.responses().iter())
}

/// A conversion that succeeds but does not read back as a JSON object.
fn not_an_object(r: &ToolResponse, fixes: Fixes, k: usize) -> Option<Judged> {
    let p = convert_tool_response(&r.data, r.error, fixes).ok()?;
    if p.to_value().is_object() {
        return None;
    }
    Some(in_request(
        refuted_on(
            format!(
                "request {k}: the response of tool '{}', {}, to convert to a JSON object; got {}",
                r.name,
                clip(&r.data),
                p.to_value()
            ),
            Locus::Unlocated,
            r,
        ),
        k,
    ))
}

fn gemini_safe(ev: &Evidence<'_>) -> Judged {
    if ev.scenario.config.provider != Provider::Gemini {
        return Judged::NotApplicable;
    }
    let fixes = ev.fixes();
    let Some(all) = ev.request_messages() else {
        return Judged::NotApplicable;
    };
    let attempted = ev.attempted().min(all.len());
    for (k, msgs) in all[..attempted].iter().enumerate() {
        for r in tool_responses(msgs) {
            if let Some(judged) = not_an_object(r, fixes, k) {
                return judged;
            }
            if let Err(e) = convert_tool_response(&r.data, r.error, fixes) {
                return in_request(
                    refuted_on(
                        format!(
                            "request {k}: the response of tool '{}', {}, to convert to a JSON object; got {e}",
                            r.name,
                            clip(&r.data)
                        ),
                        Locus::OutcomeError,
                        r,
                    ),
                    k,
                );
            }
        }
    }
    for r in tool_responses(&ev.run.memory) {
        if let Err(e) = convert_tool_response(&r.data, r.error, fixes) {
            return refuted_on(
                format!(
                    "the next turn's request, built from memory: the response of tool '{}', {}, to convert to a JSON object; got {e}",
                    r.name,
                    clip(&r.data)
                ),
                Locus::MemoryApi,
                r,
            );
        }
    }
    Judged::Holds
}

/// Pairs each tool response of `messages` with its converted payload in
/// `contents` (the request built from them): (content index, part index,
/// response, payload).
#[allow(clippy::type_complexity)]
fn aligned<'m>(
    messages: &'m [Message],
    contents: &'m [Arc<crate::gemini::Content>],
) -> Result<Vec<(usize, usize, &'m ToolResponse, Value)>, String> {
    let ms: Vec<&Message> = messages
        .iter()
        .filter(|m| !matches!(m, Message::System { .. }))
        .collect();
    if ms.len() != contents.len() {
        return Err(format!(
            "{} messages but {} contents",
            ms.len(),
            contents.len()
        ));
    }
    let mut out = Vec::new();
    for (c, (m, content)) in ms.iter().zip(contents).enumerate() {
        if let Message::Tool { responses } = m {
            if responses.len() != content.parts.len() {
                return Err(format!("content {c}: parts do not match the responses"));
            }
            for (p, (r, part)) in responses.iter().zip(&content.parts).enumerate() {
                match part {
                    Part::FunctionResponse { response, .. } => {
                        out.push((c, p, r, response.to_value()))
                    }
                    _ => return Err(format!("content {c} part {p} is not a function response")),
                }
            }
        }
    }
    Ok(out)
}

fn lossless(ev: &Evidence<'_>) -> Judged {
    if ev.scenario.config.provider != Provider::Gemini {
        return Judged::NotApplicable;
    }
    let fixes = ev.fixes();
    let Some(all) = ev.request_messages() else {
        return Judged::NotApplicable;
    };
    for (k, sent) in ev.run.requests.iter().enumerate() {
        let (Sent::Gemini(req), Some(msgs)) = (sent, all.get(k)) else {
            return refuted(
                format!("request {k} to be a Gemini request built from the loop's messages"),
                Locus::Unlocated,
            );
        };
        let pairs = match aligned(msgs, &req.contents) {
            Ok(p) => p,
            Err(e) => {
                return refuted(
                    format!("request {k} to be built from the loop's messages: {e}"),
                    Locus::Unlocated,
                )
            }
        };
        for (c, p, r, payload) in pairs {
            if let Err(want) = recovered(&r.data, r.error, fixes, &payload) {
                let locus = if depth_of(&want) <= 100 {
                    Locus::Payload {
                        request: k,
                        content: c,
                        part: p,
                        wanted: want.clone(),
                        got: payload.clone(),
                    }
                } else {
                    Locus::Unlocated
                };
                return in_request(
                    refuted_on(
                        format!(
                            "request {k}: the response of tool '{}', {}, to come through recoverable as {}, got {}",
                            r.name,
                            clip(&r.data),
                            clip(&want.to_string()),
                            clip(&payload.to_string())
                        ),
                        locus,
                        r,
                    ),
                    k,
                );
            }
        }
    }
    let next = ev.next_turn();
    if let Ok(req) = build_request(&next, fixes) {
        if let Ok(pairs) = aligned(&next, &req.contents) {
            for (_, _, r, payload) in pairs {
                if let Err(want) = recovered(&r.data, r.error, fixes, &payload) {
                    return refuted_on(
                        format!(
                            "the next turn's request, built from memory: the response of tool '{}', {}, to come through recoverable as {}, got {}",
                            r.name,
                            clip(&r.data),
                            clip(&want.to_string()),
                            clip(&payload.to_string())
                        ),
                        Locus::Unlocated,
                        r,
                    );
                }
            }
        }
    }
    Judged::Holds
}

fn depth_of(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(depth_of).max().unwrap_or(0),
        Value::Object(o) => 1 + o.values().map(depth_of).max().unwrap_or(0),
        _ => 0,
    }
}

fn transcript_valid(ev: &Evidence<'_>) -> Judged {
    if pairing(&conversation(ev.scenario)).is_err() {
        // The conversation the turn starts from is not well paired: nothing
        // the loop does can make its requests so.
        return Judged::NotApplicable;
    }
    if non_system(&ev.scenario.history).is_empty()
        || !history_restored(ev.scenario)
        || memory_holds_conversation(ev.scenario).is_err()
    {
        // An empty request asks nothing: the model's first call would open
        // the conversation, which no pairing rule allows.
        return Judged::NotApplicable;
    }
    let Some(all) = ev.request_messages() else {
        return Judged::NotApplicable;
    };
    let gemini = ev.scenario.config.provider == Provider::Gemini;
    let attempted = if gemini { ev.attempted() } else { all.len() };
    for (k, msgs) in all.iter().take(attempted).enumerate() {
        if let Err(e) = pairing(msgs) {
            let locus = if !gemini {
                Locus::Unlocated
            } else if k < ev.run.requests.len() {
                Locus::Api
            } else {
                Locus::OutcomeError
            };
            return in_request(
                refuted(format!("request {k} to be well paired, but {e}"), locus),
                k,
            );
        }
    }
    if ev.scenario.config.memory != Memory::None {
        if let Err(e) = pairing(&ev.next_turn()) {
            return refuted(
                format!(
                    "the stored transcript (plus the next user message) to be well paired, but {e}"
                ),
                Locus::MemoryApi,
            );
        }
    }
    Judged::Holds
}

// ---------------------------------------------------------------------------
// The memory: its precondition and invariants 8 and 9.

/// The turn history the loop starts from: the request, or with a memory
/// outside the loop, what the memory advisor makes of it.
fn turn_history(s: &Scenario) -> Vec<Message> {
    match s.config.memory {
        Memory::Outside => crate::chat::tool_loop::with_memory(&s.config, s.history.clone()),
        _ => s.history.clone(),
    }
}

/// The conversation the turn starts from: the request, with what the
/// memory holds before it (unless the request holds it).
fn conversation(s: &Scenario) -> Vec<Message> {
    match s.config.memory {
        Memory::None => s.history.clone(),
        _ => crate::chat::tool_loop::with_memory(&s.config, s.history.clone()),
    }
}

/// Whether the loop's requests carry the turn: conversation history is on,
/// or a memory inside the loop restores it. With history off the loop sends
/// only the system message and the last message
/// (`doGetNextInstructionsForToolCall`), which is meant for a memory inside
/// the loop (`ChatClient` turns history off only then).
fn history_restored(s: &Scenario) -> bool {
    s.config.conversation_history || s.config.memory == Memory::Inside
}

/// The messages without the system messages.
fn non_system(messages: &[Message]) -> Vec<&Message> {
    messages
        .iter()
        .filter(|m| !matches!(m, Message::System { .. }))
        .collect()
}

/// The memory's precondition, "the memory holds the conversation so far";
/// `Err` says which part a scenario misses. Met when there is no memory, or:
///
/// 1. the request's last non-system message is a user or tool message: the
///    one `MessageChatMemoryAdvisor.before` stores
///    (`Prompt.getLastUserOrToolResponseMessage`);
/// 2. the memory's non-system messages followed by that message start with
///    a user message: the memory holds whole turns, and a turn that already
///    ran tool rounds has its start, and its calls, in the memory (the
///    advisor stores only the request's last message, so a memory that
///    lacks them stores responses to calls it never saw);
/// 3. the request holds either that message alone besides system messages
///    (the memory holds the rest: `.user(question)` with a memory advisor)
///    or, exactly before that message, the memory's whole content (the
///    request holds the conversation and the memory finds itself in it; a
///    message carrying Gemini thought signatures never equals a copy in
///    Java, so it does not count as found); the first way not with a memory
///    inside the loop that holds something while conversation history is on
///    (the loop then sends its own history every round, which lacks the
///    memory's messages, so the memory is prepended again every round and
///    repeats the turn's calls; `ChatClient` turns history off when it puts
///    the loop in front of a memory advisor);
/// 4. with a memory inside the loop, the request's system messages come
///    first (the advisor moves the first system message to the front of
///    what it sends, the loop keeps the request's order, and a system
///    message inside the memory's run in the loop's prompt splits it, so
///    the memory is prepended again).
///
/// ```
/// use toolcall_model::{checking::invariants::memory_holds_conversation, model::message::{Message, ToolCall, ToolResponse},
///     checking::scenario::Scenario, chat::tool_loop::{LoopConfig, Memory}};
/// let mut s = Scenario { config: LoopConfig { memory: Memory::Outside, ..LoopConfig::default() }, tools: vec![],
///     history: vec![Message::user("q")], model: vec![] };
/// assert!(memory_holds_conversation(&s).is_ok());
/// // A request that already holds a tool round, with an empty memory.
/// s.history.push(Message::assistant(None, vec![ToolCall::new("1", "x", "{}")]));
/// s.history.push(Message::Tool { responses: vec![ToolResponse::new("1", "x", "1")] });
/// assert!(memory_holds_conversation(&s).is_err());
/// // The memory holds the turn's start: the request holds it too, right before its last message.
/// s.config.memory_start = s.history[..2].to_vec();
/// assert!(memory_holds_conversation(&s).is_ok());
/// ```
pub fn memory_holds_conversation(s: &Scenario) -> Result<(), String> {
    let c = &s.config;
    if c.memory == Memory::None {
        return Ok(());
    }
    let Some(at) = s
        .history
        .iter()
        .rposition(|m| !matches!(m, Message::System { .. }))
    else {
        return Err("the request has no message for the memory to store".into());
    };
    let last = &s.history[at];
    if !matches!(last, Message::User { .. } | Message::Tool { .. }) {
        return Err("the request does not end with a user or tool message".into());
    }
    let memory = non_system(&c.memory_start);
    if !memory.first().copied().unwrap_or(last).is_user() {
        return Err(
            "the memory and the request's last message do not start with a user message: the memory misses the start of a turn".into(),
        );
    }
    let alone = non_system(&s.history).len() == 1;
    let alone_ok =
        alone && !(c.memory == Memory::Inside && c.conversation_history && !memory.is_empty());
    let n = c.memory_start.len();
    let held = at >= n
        && s.history[at - n..at] == c.memory_start[..]
        && !c
            .memory_start
            .iter()
            .any(crate::chat::memory::has_byte_metadata);
    if !alone_ok && !held {
        return Err(if alone {
            "the memory, inside the loop with conversation history on, holds messages the request does not".into()
        } else {
            "the request holds more than its last message, but not the memory's content right before it".into()
        });
    }
    if c.memory == Memory::Inside {
        let is_system = |m: &&Message| matches!(m, Message::System { .. });
        if !s
            .history
            .iter()
            .skip_while(is_system)
            .all(|m| !is_system(&m))
        {
            return Err("a system message follows another message of the request, with the memory inside the loop".into());
        }
    }
    Ok(())
}

/// The turn's user message: the last user message of the request, else of
/// the memory (a request that resumes a turn with its tool message alone).
fn turn_question(s: &Scenario) -> Option<&Message> {
    s.history
        .iter()
        .rev()
        .find(|m| m.is_user())
        .or_else(|| s.config.memory_start.iter().rev().find(|m| m.is_user()))
}

fn show_message(m: &Message) -> String {
    match m {
        Message::User { text } => format!(
            "the user message {}",
            clip(text.as_deref().unwrap_or("null"))
        ),
        Message::System { .. } => "a system message".into(),
        Message::Assistant { tool_calls, .. } if !tool_calls.is_empty() => {
            format!(
                "an assistant message with {} tool call(s)",
                tool_calls.len()
            )
        }
        Message::Assistant { .. } => "an assistant message".into(),
        Message::Tool { .. } => "a tool message".into(),
    }
}

fn question_kept(ev: &Evidence<'_>) -> Judged {
    let s = ev.scenario;
    if !history_restored(s) || memory_holds_conversation(s).is_err() {
        return Judged::NotApplicable;
    }
    let Some(q) = turn_question(s) else {
        return Judged::NotApplicable;
    };
    let Some(all) = ev.request_messages() else {
        return Judged::NotApplicable;
    };
    let attempted = if s.config.provider == Provider::Gemini {
        ev.attempted()
    } else {
        all.len()
    };
    for (k, msgs) in all.iter().take(attempted).enumerate() {
        let last = msgs.iter().rev().find(|m| m.is_user());
        if last != Some(q) {
            return in_request(
                refuted(
                    format!(
                        "request {k} to hold the turn's question, {}, as its last user message, but {}",
                        show_message(q),
                        match last {
                            None => "it holds no user message".to_owned(),
                            Some(m) => format!("its last one is {}", show_message(m)),
                        }
                    ),
                    Locus::Unlocated,
                ),
                k,
            );
        }
    }
    Judged::Holds
}

fn memory_keeps_turns(ev: &Evidence<'_>) -> Judged {
    let s = ev.scenario;
    if s.config.memory == Memory::None || memory_holds_conversation(s).is_err() {
        return Judged::NotApplicable;
    }
    // What the memory would hold with no window: the same turn, since the
    // window changes what is evicted, never what is stored.
    let mut open = s.clone();
    open.config.memory_max_messages = std::num::NonZeroU32::MAX;
    let Ok((unbounded, _)) = open.run() else {
        return Judged::NotApplicable;
    };
    let unbounded = unbounded.memory;
    let window = usize::try_from(s.config.memory_max_messages.get()).unwrap_or(usize::MAX);
    let kept = &ev.run.memory;
    if unbounded.len() <= window {
        if *kept != unbounded {
            return refuted(
                format!(
                    "the memory, whose window ({window}) never filled, to hold all {} message(s) stored, but it holds {}",
                    unbounded.len(),
                    kept.len()
                ),
                Locus::Unlocated,
            );
        }
        return Judged::Holds;
    }
    // The memory's view of the conversation: its earlier turns, then the
    // current turn from its user message on.
    let start = non_system(&s.config.memory_start);
    let mut view = start.clone();
    view.extend(non_system(&s.history).last());
    let Some(q) = view.iter().rposition(|m| m.is_user()) else {
        return Judged::NotApplicable;
    };
    let earlier = &start[..q];
    let unbounded = non_system(&unbounded);
    if unbounded.len() < q || unbounded[..q] != *earlier {
        // Not reachable: a memory only appends to what it holds.
        return Judged::NotApplicable;
    }
    let current = &unbounded[q..];
    let kept = non_system(kept);
    if !kept.ends_with(current) {
        let how = match kept.first() {
            None => "nothing".to_owned(),
            Some(m) => format!("{} message(s), the first {}", kept.len(), show_message(m)),
        };
        return refuted(
            format!(
                "the memory to keep the current turn whole ({} message(s) from {}), but it holds {how}",
                current.len(),
                current.first().map_or_else(|| "its start".to_owned(), |m| show_message(m))
            ),
            Locus::Unlocated,
        );
    }
    let before = &kept[..kept.len() - current.len()];
    // Earlier turns start at their user messages; the memory may keep only
    // the last whole ones.
    let starts: Vec<usize> = (0..earlier.len())
        .filter(|&i| earlier[i].is_user())
        .chain([earlier.len()])
        .collect();
    if !starts.iter().any(|&i| earlier[i..] == *before) {
        return refuted(
            format!(
                "the memory to drop earlier turns only whole, oldest first, but of their {} message(s) it keeps {} that are not the last whole turns",
                earlier.len(),
                before.len()
            ),
            Locus::Unlocated,
        );
    }
    Judged::Holds
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairing_rules() {
        use crate::model::message::ToolResponse;
        let call = |n: usize| {
            Message::assistant(
                None,
                (0..n)
                    .map(|i| ToolCall::new(&i.to_string(), "x", "{}"))
                    .collect(),
            )
        };
        let answer = |n: usize| Message::Tool {
            responses: (0..n)
                .map(|i| ToolResponse::new(&i.to_string(), "x", "1"))
                .collect(),
        };
        let sys = Message::System { text: None };
        assert!(pairing(&[sys.clone(), Message::user("q"), call(2), answer(2)]).is_ok());
        assert!(pairing(&[Message::user("q"), call(2), answer(1)]).is_err());
        assert!(pairing(&[Message::user("q"), answer(1)]).is_err());
        assert!(pairing(&[call(1), answer(1)]).is_err());
        assert!(pairing(&[Message::user("q"), call(1), answer(1), call(1), answer(1)]).is_ok());
        assert!(pairing(&[
            Message::user("q"),
            Message::assistant(Some("t"), vec![]),
            call(1),
            answer(1)
        ])
        .is_err());
    }

    #[test]
    fn decimals_compare_exactly() {
        use crate::json::decimal::same_number as numbers_equal;
        assert!(numbers_equal("1.50", "1.5"));
        assert!(numbers_equal("1e2", "100"));
        assert!(numbers_equal("-0", "0.0"));
        assert!(!numbers_equal("0.1000000000000000000001", "0.1"));
    }

    #[test]
    fn recovery_rules() {
        let up = Fixes::upstream();
        let v = |s: &str| serde_json::from_str::<Value>(s).unwrap();
        assert!(recovered("3.0 + 5.0 = 8.0", false, up, &v(r#"{"result":3.0}"#)).is_err());
        assert!(recovered("42", false, up, &v(r#"{"result":42}"#)).is_ok());
        assert!(recovered("x", true, Fixes::all(), &v(r#"{"error":"x"}"#)).is_ok());
        assert!(recovered("42", true, Fixes::all(), &v(r#"{"error":"42"}"#)).is_ok());
    }
}
