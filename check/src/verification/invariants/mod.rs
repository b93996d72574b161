//! The invariants of docs/INVARIANTS.md, and two of the chat memory's
//! window (docs/INVARIANTS.md), as pure checkers over one generated turn.
//!
//! [`Evidence::gather`] runs a [`Scenario`] through the tool loop and keeps
//! what the checkers need: the run itself, the toolbox after it, a replay of
//! every batch through the manager's step engine (`Trace`), and the
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
//! ([`is_whole_json`](crate::verification::oracle::is_whole_json)), the reference counts are a plain sorted list
//! ([`RefCounts`](crate::verification::oracle::RefCounts)), both in [`crate::verification::oracle`]; the
//! limit rule and the pairing rule ([`pairing`]) are restated here.
//!
//! The files: this one holds the table of invariants, the verdicts and the
//! dispatch to the judges; `evidence.rs` gathers a turn, `trace.rs` replays
//! its batches, and the judges sit by what they look at: `calls.rs` (1 to
//! 3), `payloads.rs` (4 to 6), `transcripts.rs` (7 to 9), `streaming.rs`
//! (10) and `rounds.rs` (11).
//!
//! ```
//! use toolcall_check::verification::invariants::{check, Evidence, Invariant, Verdict};
//! use toolcall_check::verification::scenario::Scenario;
//! use toolcall_model::{model::{ToolCallLimits, OnExceeded}, model::Config, model::{Generation, Message, ToolCall},
//!     model::{Processor, ProcessorKind}, chat::LoopConfig, model::ToolSpec};
//! // Seed 000: two calls to a tool limited to one call, the JSON processor.
//! let limits = ToolCallLimits { on_exceeded: OnExceeded::ReturnErrorResponse, ..ToolCallLimits::default() }.max_calls_per_tool(1).unwrap();
//! let processor = Processor { kind: ProcessorKind::JsonError, ..Processor::default() };
//! let s = Scenario {
//!     config: LoopConfig::new(Config { limits, processor, ..Config::default() }),
//!     tools: vec![ToolSpec::returning("x", "\"sunny\"")],
//!     history: vec![Message::user("weather twice")],
//!     model: vec![
//!         vec![Generation { tool_calls: vec![ToolCall::new("1", "x", "{}"), ToolCall::new("2", "x", "{}")].into(), ..Default::default() }],
//!         vec![Generation { text: Some("sunny".into()), ..Default::default() }],
//!     ],
//! };
//! let ev = Evidence::gather(&s).unwrap();
//! assert!(matches!(check(Invariant::JsonSafe, &ev), Verdict::Refuted(_)));
//! assert!(matches!(check(Invariant::GeminiSafe, &ev), Verdict::Refuted(_)));
//! assert_eq!(check(Invariant::Limits, &ev), Verdict::Holds);
//! ```

mod calls;
mod evidence;
mod judgements;
mod payloads;
mod rounds;
mod streaming;
mod trace;
mod transcripts;

pub use self::evidence::Evidence;
pub(crate) use self::judgements::Judgements;
pub(crate) use self::payloads::recovered;
pub use self::trace::Replays;
pub(crate) use self::trace::{CallEvent, Round, RoundEnd};
pub use self::transcripts::memory_holds_conversation;

use serde_json::Value;

use crate::verification::scenario::Scenario;
use toolcall_model::enum_table;
use toolcall_model::model::Fixes;
use toolcall_model::model::Invocation;
use toolcall_model::model::ToolResponse;
use toolcall_model::model::cut;

use self::calls::{counting, limits, one_response_per_call};
use self::payloads::{gemini_safe, json_safe, lossless};
use self::rounds::turn_ends;
use self::streaming::{against, stream_as_call};
use self::transcripts::{memory_keeps_turns, question_kept, transcript_valid};

enum_table! {
    /// One invariant of docs/INVARIANTS.md: its row holds its name, its
    /// statement in one line, and its precondition (which turns it speaks
    /// about; a turn outside it is [`Verdict::NotApplicable`], and
    /// docs/INVARIANTS.md gives each one's reason; every invariant also
    /// needs a valid turn, where the model script does not run out). Its
    /// judge is the arm of `judge` below.
    ///
    /// ```
    /// use toolcall_check::verification::invariants::Invariant;
    /// assert_eq!(Invariant::ALL.len(), 11);
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
        /// 10. A streamed turn invokes the tools, and leaves the memory
        ///     outside the loop, as the same turn through `call()`.
        StreamAsCall = "stream-as-call" {
            statement: "a streamed turn (ChatClient.stream()) invokes the tools as the same turn through call() does, and the memory outside the loop stores what call() stores",
            precondition: "the turn streams",
        },
        /// 11. Every turn ends: its model calls are bounded by what the
        ///     limits state (`turn_bound`).
        TurnEnds = "turn-ends" {
            statement: "every turn ends: at most C + 2 model calls, C being the tool calls the limits let run without a breach",
            precondition: "the limits bound the tool calls (a total limit, or a per-tool limit on every name the model calls, none excluded or unlimited; Spring AI 2.0.1)",
        },
    }
}

impl Invariant {
    /// Whether a turn on `version` can meet the invariant's precondition:
    /// `limits`, `counting` (the counts `ToolCallLimits` keeps) and
    /// `turn-ends` (the bound the limits state) speak of tool call limits,
    /// which only 2.0.1 has; every other invariant arises on every version.
    ///
    /// ```
    /// use toolcall_check::verification::invariants::Invariant;
    /// use toolcall_model::model::SpringAi;
    /// assert!(!Invariant::Limits.arises_on(SpringAi::V1_1_2));
    /// assert!(Invariant::JsonSafe.arises_on(SpringAi::V1_1_2));
    /// assert!(Invariant::ALL.iter().all(|i| i.arises_on(SpringAi::V2_0_1)));
    /// ```
    pub fn arises_on(self, version: toolcall_model::model::SpringAi) -> bool {
        match self {
            Invariant::Limits | Invariant::Counting | Invariant::TurnEnds => version.has_limits(),
            _ => true,
        }
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
/// let v = toolcall_check::verification::invariants::Verdict::Refuted("x".into());
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
    /// assert!(!toolcall_check::verification::invariants::Verdict::Holds.is_refuted());
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

// ---------------------------------------------------------------------------
// Pairing (invariant 7).

pub use toolcall_model::model::pairing;

/// Judges `invariant` on the evidence.
///
/// ```
/// use toolcall_check::{verification::invariants::{check, Evidence, Invariant, Verdict}, verification::scenario::Scenario};
/// use toolcall_model::{model::{Generation, Message}, chat::LoopConfig};
/// let s = Scenario { config: LoopConfig::new(Default::default()), tools: vec![],
///     history: vec![Message::user("hi")], model: vec![vec![Generation { text: Some("hello".into()), ..Default::default() }]] };
/// let ev = Evidence::gather(&s).unwrap();
/// for inv in Invariant::ALL {
///     assert!(!check(inv, &ev).is_refuted());
/// }
/// ```
pub fn check(invariant: Invariant, evidence: &Evidence<'_>) -> Verdict {
    check_as(invariant, evidence, own_set(evidence))
}

/// The fixes and advisor the evidence's turn ran under.
fn own_set(ev: &Evidence<'_>) -> (Fixes, bool) {
    let c = &ev.scenario.config;
    (c.manager.fixes, c.gemini_tool_text)
}

/// Judges `invariant` on the evidence as that of the same run under the
/// fixes and advisor `set`: the judges read the run as it is, and the one
/// run a judge makes that the turn's own does not tell (`stream-as-call`
/// runs a streamed turn again through `call()`, which may run calls the
/// stream never ran) is made under `set`. For sets under which the turn
/// evaluates alike up to that run ([`crate::verification::footprint::evaluates_alike`]),
/// this is the set's own verdict, without running the turn again.
pub(crate) fn check_as(
    invariant: Invariant,
    evidence: &Evidence<'_>,
    set: (Fixes, bool),
) -> Verdict {
    verdict(judge(invariant, evidence, set))
}

fn verdict(judged: Judged) -> Verdict {
    match judged {
        Judged::Holds => Verdict::Holds,
        Judged::NotApplicable => Verdict::NotApplicable,
        Judged::Refuted(r) => Verdict::Refuted(r.wanted),
    }
}

/// The turn `stream-as-call` runs through `call()` to judge the streamed
/// turn of `ev` under the fixes and advisor `set`: `None` where it runs
/// none (a turn not streamed, or cut off at its bound). A caller that runs
/// it itself judges with [`stream_as_call_against`].
pub(crate) fn through_call(ev: &Evidence<'_>, set: (Fixes, bool)) -> Option<Scenario> {
    if ev.runaway {
        return None;
    }
    streaming::through_call(ev.scenario, set)
}

/// `stream-as-call` judged on `ev` against `call`, the run and toolbox of
/// its [`through_call`] turn (`None` where that run failed): the verdict
/// [`check_as`] gives under the set the turn was built for.
pub(crate) fn stream_as_call_against(
    ev: &Evidence<'_>,
    call: Option<(
        &toolcall_model::chat::LoopRun,
        &toolcall_model::model::Toolbox,
    )>,
) -> Verdict {
    verdict(match call {
        Some((run, tools)) if !ev.runaway && ev.scenario.config.stream.is_some() => {
            against(ev, run, tools)
        }
        _ => Judged::NotApplicable,
    })
}

/// Runs the scenario and judges `invariant`; a scenario that is not a valid
/// turn is [`Verdict::NotApplicable`].
///
/// ```
/// use toolcall_check::{verification::invariants::{check_scenario, Invariant, Verdict}, verification::scenario::Scenario};
/// use toolcall_model::{model::Message, chat::LoopConfig};
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
/// use toolcall_check::{verification::invariants::{refutation, Evidence, Invariant}, verification::scenario::Scenario};
/// use toolcall_model::{model::{Generation, Message}, chat::LoopConfig};
/// let s = Scenario { config: LoopConfig::new(Default::default()), tools: vec![],
///     history: vec![Message::user("hi")], model: vec![vec![Generation::default()]] };
/// assert!(refutation(Invariant::Lossless, &Evidence::gather(&s).unwrap()).is_none());
/// ```
pub fn refutation(invariant: Invariant, evidence: &Evidence<'_>) -> Option<Refutation> {
    match judge(invariant, evidence, own_set(evidence)) {
        Judged::Refuted(r) => Some(*r),
        _ => None,
    }
}

#[derive(Debug, Clone)]
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

fn judge(invariant: Invariant, ev: &Evidence<'_>, set: (Fixes, bool)) -> Judged {
    // A turn cut off at its bound is judged by turn-ends alone: the run the
    // other judges would see is not the scenario's.
    if ev.runaway && invariant != Invariant::TurnEnds {
        return Judged::NotApplicable;
    }
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
        Invariant::StreamAsCall => stream_as_call(ev, set),
        Invariant::TurnEnds => turn_ends(ev),
    }
}

fn clip(s: &str) -> String {
    const N: usize = 80;
    match cut(s, N, N) {
        None => format!("{s:?}"),
        Some((head, _)) => format!("{head:?}… ({} bytes)", s.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::payloads::recovered;
    use super::*;
    use toolcall_model::model::Fixes;
    use toolcall_model::model::{Message, ToolCall};

    #[test]
    fn pairing_rules() {
        use toolcall_model::model::ToolResponse;
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
        assert!(
            pairing(&[
                Message::user("q"),
                Message::assistant(Some("t"), vec![]),
                call(1),
                answer(1)
            ])
            .is_err()
        );
    }

    #[test]
    fn decimals_compare_exactly() {
        use toolcall_model::json::same_number as numbers_equal;
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

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.
    use crate::verification::scenario::Scenario;
    use toolcall_model::chat::LoopConfig;
    use toolcall_model::model::{Generation, Message};

    /// "hi" answered "hello" under `config`.
    fn answered_hi(config: LoopConfig) -> Scenario {
        Scenario {
            config,
            tools: vec![],
            history: vec![Message::user("hi")],
            model: vec![vec![Generation {
                text: Some("hello".into()),
                ..Default::default()
            }]],
        }
    }

    #[test]
    fn example_check_as() {
        use crate::verification::invariants::{Evidence, Invariant, check, check_as};
        use toolcall_model::model::Fixes;
        let s = answered_hi(LoopConfig::new(Default::default()));
        let ev = Evidence::gather(&s).unwrap();
        assert_eq!(
            check_as(Invariant::StreamAsCall, &ev, (Fixes::all(), false)),
            check(Invariant::StreamAsCall, &ev)
        );
    }

    #[test]
    fn example_through_call() {
        use crate::verification::invariants::{
            Evidence, Invariant, check_as, stream_as_call_against, through_call,
        };
        use toolcall_model::chat::Split;
        use toolcall_model::model::Fixes;
        let s = answered_hi(LoopConfig {
            stream: Some(Split::default()),
            ..Default::default()
        });
        let ev = Evidence::gather(&s).unwrap();
        let set = (Fixes::all(), false);
        let blocking = through_call(&ev, set).unwrap();
        assert!(blocking.config.stream.is_none());
        let (run, tools) = blocking.run().unwrap();
        assert_eq!(
            stream_as_call_against(&ev, Some((&run, &tools))),
            check_as(Invariant::StreamAsCall, &ev, set)
        );
    }
}
