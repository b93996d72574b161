//! Whether a Spring AI 2.0.1 setup survives the situations that break tool
//! calling, under every behaviour set: the engine of `toolcall-model check`
//! and of the main job's table.
//!
//! A [`Setup`] is what an application configures: the limits and processor
//! flags its `spring.ai.tools.*` properties give (see [`crate::config::bind`]),
//! plus what properties cannot say (which exception processor bean, its
//! rethrow list, where the chat memory advisor stands, its window, the
//! provider). A [`CheckScenario`] is one situation, played as a scripted tool loop
//! ([`toolcall_model::chat::run_loop`]) on the setup; [`evaluate`] says whether
//! the setup survives it and, if not, how it breaks.
//!
//! "Survives" means: the turn ends the way the setup intends (the model's
//! answer, the limit's own generation under `THROW`, or an exception the
//! configuration asked for: `throw-exception-on-error`, a rethrow class),
//! every request the provider received was accepted, no tool output reached
//! the model altered, and, with a chat memory, the next turn built from it is
//! accepted.
//!
//! Pure: no IO, no global state.

use std::num::NonZeroU32;

use serde_json::{Value, json};

use crate::config::binding::{BoundProperties, property_under, same_property};
use toolcall_model::chat::DEFAULT_MEMORY_MAX_MESSAGES;
use toolcall_model::chat::Split;
use toolcall_model::chat::{LoopConfig, Memory, Provider};
use toolcall_model::enum_table;
use toolcall_model::model::Config;
use toolcall_model::model::{BehaviorSet, SpringAi};
use toolcall_model::model::{Max, OnExceeded, ToolCallLimits};
use toolcall_model::model::{Processor, ProcessorKind};

mod answer;
mod gate;
mod judge;
mod library;
mod open;
mod remedy;
mod script;
mod sources;
mod spring_ai;
mod stop;

pub use answer::{Answer, Options, Sources, answer};

pub(crate) use gate::defaulted;
pub(crate) use gate::written_names;
pub use gate::{Accepted, Defaulted, Gate};
pub use judge::{NextRefused, evaluate};
pub use library::Installed;
pub(crate) use open::{Lenient, bind_open, evaluate_sets, worst_open};
pub use open::{OpenAnswer, OpenProperty};
pub use remedy::{Change, Remedy, SetReport, report, safe_sets};
pub(crate) use remedy::{
    breaks_under, report_sets, smallest_fixes, upstream_change, verdicts_under,
};
pub use script::{ScenarioScript, UNKNOWN_TOOL_NAME, script};
pub(crate) use sources::clip_lines;
pub use sources::{BuildVersion, Format, ProfileFiles, Text};
pub use spring_ai::{
    Match, answered_for, fix_acts_on, fix_library, library_has, on_its_version, sets_on,
    spring_ai_named,
};
pub(crate) use spring_ai::{not_on_version, wrong_starter_note};
pub use stop::{Refusal, Stop};

/// The largest limit a breach scenario plays out call by call; past it the
/// scenario is reported as not played (the outcome does not depend on the
/// number, but a test turn of millions of calls says nothing more).
pub(crate) const MAX_PLAYED_LIMIT: u32 = 200;

/// Tool rounds of the long-turn scenario: a dozen.
pub(crate) const LONG_TURN_ROUNDS: usize = 12;

/// The model calls [`CheckScenario::Runaway`] allows a turn when no limit bounds
/// it: past them the turn is taken to run away.
pub(crate) const RUNAWAY_PROBE: usize = 50;

/// The values `check` tries for a property whose placeholder nothing
/// resolves, besides leaving it unset (its default): the ones that can
/// change a verdict. The other constant of `ToolCallLimitBehavior`, the
/// other boolean, and for a maximum the tightest (`1`) and none (`-1`, the
/// auto-configuration's unlimited); nothing for the excluded tools, which
/// Spring binds as written, for `observations.include-content`, which no
/// scenario reads, nor for an unknown key.
pub(crate) fn open_values(property: &str) -> &'static [&'static str] {
    // Compared as Spring's relaxed binding compares names (a refusal names
    // `maxCallsPerTool.other` as `maxcallspertool.other`).
    let per_tool = "spring.ai.tools.limits.max-calls-per-tool";
    let java_type = if property_under(property, per_tool) && !same_property(property, per_tool) {
        "java.lang.Integer"
    } else {
        crate::config::KNOWN_KEYS
            .iter()
            .find(|(k, _)| same_property(k, property))
            .map_or("", |(_, t)| t)
    };
    match java_type {
        "java.lang.Integer" => &["1", "-1"],
        "org.springframework.ai.model.tool.ToolCallLimitBehavior" => &["RETURN_ERROR_RESPONSE"],
        "boolean" if !same_property(property, "spring.ai.tools.observations.include-content") => {
            &["true"]
        }
        _ => &[],
    }
}

/// An application's tool-calling setup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setup {
    /// The limits (`spring.ai.tools.limits.*`).
    pub limits: ToolCallLimits,
    /// `spring.ai.tools.resolution.fallback.enabled`.
    pub resolution_fallback: bool,
    /// The exception processor: its kind (a bean of the application's, or
    /// the auto-configured default), `alwaysThrow`
    /// (`spring.ai.tools.throw-exception-on-error`) and rethrow list.
    pub processor: Processor,
    /// Where `MessageChatMemoryAdvisor` stands.
    pub memory: Memory,
    /// `MessageWindowChatMemory`'s `maxMessages`.
    pub memory_max_messages: NonZeroU32,
    /// `ToolCallingAdvisor.conversationHistoryEnabled`. `None` is what
    /// `ChatClient` registers by itself: off when a memory advisor stands
    /// inside the loop (a higher order than the tool advisor's), else on.
    pub conversation_history: Option<bool>,
    /// The chat model.
    pub provider: Provider,
    /// What the application's tools return: which tool-output scenarios
    /// apply.
    pub tool_output: ToolOutput,
    /// The Spring AI version the setup runs on (2.0.1 unless a build file
    /// names 2.0.0, which has no tool call limits).
    pub version: SpringAi,
    /// Whether the application streams its turns (`ChatClient.stream()`):
    /// each scenario's replies then come in chunks ([`Split::default`]:
    /// the text in two, each call apart) and the verdict is on what a
    /// streaming client and its memory see.
    pub stream: bool,
}

/// What a tool returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputKind {
    /// Always one JSON value (an object, a list, a quoted string, ...).
    Json,
    /// Plain text.
    Text,
    /// Either (the default: nothing is known).
    #[default]
    Mixed,
}

impl OutputKind {
    fn parse(s: &str) -> Option<OutputKind> {
        match s {
            "json" => Some(OutputKind::Json),
            "text" => Some(OutputKind::Text),
            "mixed" => Some(OutputKind::Mixed),
            _ => None,
        }
    }
}

/// What the application's tools return, for every tool and per tool name.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ToolOutput {
    /// Every tool not named in `per_tool`.
    pub default: OutputKind,
    /// Per tool name.
    pub per_tool: std::collections::BTreeMap<String, OutputKind>,
}

impl ToolOutput {
    /// Reads `json`, `text`, `mixed`, or a comma-separated list of one of
    /// them (every tool) and `NAME=KIND` entries (one tool).
    pub fn parse(spec: &str) -> Result<ToolOutput, String> {
        let mut t = ToolOutput::default();
        for item in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let bad = || format!("'{item}': use json, text, mixed or NAME=json|text|mixed");
            match item.split_once('=') {
                Some((name, kind)) if !name.trim().is_empty() => {
                    let kind = OutputKind::parse(kind.trim()).ok_or_else(bad)?;
                    t.per_tool.insert(name.trim().to_owned(), kind);
                }
                Some(_) => return Err(bad()),
                None => t.default = OutputKind::parse(item).ok_or_else(bad)?,
            }
        }
        Ok(t)
    }

    /// The tool the plain-output scenarios play: `weather` when any other
    /// tool may return text, else the first named tool that may; `None`
    /// when every tool returns JSON.
    pub(crate) fn text_tool(&self) -> Option<&str> {
        if self.default != OutputKind::Json {
            return Some("weather");
        }
        self.per_tool
            .iter()
            .find(|(_, k)| **k != OutputKind::Json)
            .map(|(n, _)| n.as_str())
    }
}

impl Default for Setup {
    /// Spring AI 2.0.1's defaults on Gemini with no chat memory.
    fn default() -> Self {
        Setup {
            limits: ToolCallLimits::default(),
            resolution_fallback: false,
            processor: Processor::default(),
            memory: Memory::None,
            memory_max_messages: DEFAULT_MEMORY_MAX_MESSAGES,
            conversation_history: None,
            provider: Provider::Gemini,
            tool_output: ToolOutput::default(),
            version: SpringAi::default(),
            stream: false,
        }
    }
}

/// What an application decides outside `spring.ai.tools.*`: its beans and
/// advisors, its chat model, its tools and how it calls the client. With
/// the bound properties it makes a [`Setup`] ([`Setup::of`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Application {
    /// The exception processor bean's kind.
    pub processor: ProcessorKind,
    /// The processor's rethrow list (Java class names).
    pub rethrow: Vec<String>,
    /// Where `MessageChatMemoryAdvisor` stands.
    pub memory: Memory,
    /// `MessageWindowChatMemory`'s `maxMessages`.
    pub memory_max_messages: NonZeroU32,
    /// `ToolCallingAdvisor.conversationHistoryEnabled` (`None`: as
    /// `ChatClient` registers it).
    pub conversation_history: Option<bool>,
    /// The chat model.
    pub provider: Provider,
    /// What the tools return.
    pub tool_output: ToolOutput,
    /// `ChatClient.stream()` rather than `call()`.
    pub stream: bool,
}

impl Default for Application {
    /// The auto-configured processor, no memory, Gemini, `call()`.
    fn default() -> Self {
        let s = Setup::default();
        Application {
            processor: s.processor.kind,
            rethrow: s.processor.rethrow,
            memory: s.memory,
            memory_max_messages: s.memory_max_messages,
            conversation_history: s.conversation_history,
            provider: s.provider,
            tool_output: s.tool_output,
            stream: s.stream,
        }
    }
}

impl Setup {
    /// The setup the auto-configuration builds from the bound properties
    /// (limits, fallback, `alwaysThrow`) for an application on a Spring AI
    /// version: the one place where properties and application meet.
    ///
    /// ```
    /// use toolcall_check::config::{bind, parse_properties, Application, Setup};
    /// use toolcall_model::model::{Max, SpringAi};
    /// let bound = bind(&parse_properties(
    ///     b"spring.ai.tools.limits.max-calls-per-tool-default=2\nspring.ai.tools.throw-exception-on-error=true\n",
    /// ).unwrap()).unwrap();
    /// let setup = Setup::of(&bound, &Application::default(), SpringAi::default());
    /// assert_eq!(setup.limits.max_for("any"), Some(Max::Limited(2)));
    /// assert!(setup.processor.always_throw);
    /// ```
    pub fn of(bound: &BoundProperties, app: &Application, version: SpringAi) -> Setup {
        // On 1.1, what the application states of the advisors is read as
        // 1.1 runs it.
        on_its_version(&Setup {
            limits: bound.limits.clone(),
            resolution_fallback: bound.resolution_fallback,
            processor: Processor {
                kind: app.processor,
                always_throw: bound.always_throw,
                rethrow: app.rethrow.clone(),
            },
            memory: app.memory,
            memory_max_messages: app.memory_max_messages,
            conversation_history: app.conversation_history,
            provider: app.provider,
            tool_output: app.tool_output.clone(),
            version,
            stream: app.stream,
        })
    }

    /// The conversation-history switch in force: explicit, or what
    /// `DefaultChatClient.autoRegisterToolCallingAdvisor` chooses
    /// (`!hasDownstreamMemoryAdvisor`).
    ///
    /// ```
    /// use toolcall_check::config::Setup;
    /// use toolcall_model::chat::Memory;
    /// assert!(Setup::default().history());
    /// assert!(!Setup { memory: Memory::Inside, ..Setup::default() }.history());
    /// ```
    pub fn history(&self) -> bool {
        self.conversation_history
            .unwrap_or(self.memory != Memory::Inside)
    }

    fn loop_config(&self, set: &BehaviorSet) -> LoopConfig {
        let manager = Config {
            limits: self.limits.clone(),
            resolution_fallback: self.resolution_fallback,
            processor: self.processor.clone(),
            fixes: set.fixes,
            version: self.version,
            ..Config::default()
        };
        LoopConfig {
            conversation_history: self.history(),
            provider: self.provider,
            memory: self.memory,
            gemini_tool_text: set.gemini_tool_text,
            memory_max_messages: self.memory_max_messages,
            stream: self.stream.then(Split::default),
            ..LoopConfig::new(manager)
        }
        .on_its_version()
    }
}

enum_table! {
    /// A situation a setup must survive: its row holds its name (in
    /// reports and JSON), its column id (the same in the text table's
    /// header and in the JSON verdicts' `column`) and a one-line
    /// description. The turn it plays is built in `CheckScenario::turn`.
    ///
    /// ```
    /// use toolcall_check::config::CheckScenario;
    /// assert_eq!(CheckScenario::HalfJson.name(), "half-json");
    /// assert_eq!(CheckScenario::BreachThenRound.column(), "breach+1");
    /// ```
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum CheckScenario (CheckScenarioRow) {
        fields {
            /// The column id.
            column: &'static str,
            /// A one-line description.
            describe: &'static str,
        }
        /// The model calls one tool once more than its limit in one round
        /// (seed 000's breach).
        BreachOneRound = "breach-one-round" {
            column: "breach-1",
            describe: "the model calls the tightest-limited tool once past its limit, in one round (issue 6902 under RETURN_ERROR_RESPONSE)",
        },
        /// The model calls one tool once per round until the limit breaks.
        BreachAcrossRounds = "breach-across-rounds" {
            column: "breach-n",
            describe: "the model calls that tool once per round until its limit breaks",
        },
        /// The breach of one round, then one more tool round (another tool,
        /// within its limits) before the answer: the breach text is then no
        /// longer the request's last message.
        BreachThenRound = "breach-then-round" {
            column: "breach+1",
            describe: "the breach of breach-1, then one more tool round (another tool) before the answer",
        },
        /// A tool returns plain text (`Sunny, 22 °C`).
        PlainText = "plain-text" {
            column: "plain",
            describe: "a tool returns plain text (Sunny, 22 °C), then one more tool round (issue 5437)",
        },
        /// A tool returns text that starts like JSON (`3.0 + 5.0 = 8.0`).
        HalfJson = "half-json" {
            column: "half-json",
            describe: "a tool returns half-JSON (3.0 + 5.0 = 8.0), then one more tool round (issue 5437)",
        },
        /// A tool returns the empty string.
        EmptyText = "empty-text" {
            column: "empty",
            describe: "a tool returns the empty string, then one more tool round",
        },
        /// A tool callback returns null.
        NullResult = "null-result" {
            column: "null",
            describe: "a tool callback returns null, then one more tool round",
        },
        /// A tool throws (`IllegalStateException: Service unavailable`, wrapped
        /// in a `ToolExecutionException` as method tools do).
        ToolThrows = "tool-throws" {
            column: "throws",
            describe: "a tool throws IllegalStateException(\"Service unavailable\"), then one more tool round",
        },
        /// The model calls a tool name no tool has (`getWether`; spring-ai
        /// issues 6816, 6869).
        UnknownTool = "unknown-tool" {
            column: "no-tool",
            describe: "the model calls getWether, a tool name that does not exist (issues 6816, 6869)",
        },
        /// One reply of two generations: a text (`Let me check.`) and a tool
        /// call, as Gemini answers with a text part beside a function call.
        TextAndCall = "text-and-call" {
            column: "text+call",
            describe: "one reply holds a text (Let me check.) and a tool call, as two generations",
        },
        /// A long turn: a dozen tool rounds, one call each, within the limits.
        LongTurn = "long-turn" {
            column: "12-rounds",
            describe: "a dozen tool rounds in one turn, within the limits",
        },
        /// A model that never stops calling a tool: its reply, one call to the
        /// most limited tool, repeated past the limit (spring-ai issues 3333,
        /// 5754, 6462).
        Runaway = "runaway" {
            column: "repeats",
            describe: "the model keeps calling a tool past its limit (it repeats its reply); the turn must end within the limit's calls and two more model calls",
        },
    }
}

impl CheckScenario {
    /// The tool output the scenario feeds, for the scenarios that feed one.
    fn tool_text(self) -> Option<Option<&'static str>> {
        match self {
            CheckScenario::PlainText => Some(Some("Sunny, 22 °C")),
            CheckScenario::HalfJson => Some(Some("3.0 + 5.0 = 8.0")),
            CheckScenario::EmptyText => Some(Some("")),
            CheckScenario::NullResult => Some(None),
            _ => None,
        }
    }
}

/// The behaviour set of `fixes` (and the seed's advisor): the report's set
/// of those fixes, else one named after them (`error-key+keep-current-turn`),
/// its name leaked once for the run.
///
/// ```
/// use toolcall_check::config::set_of;
/// use toolcall_model::model::Fixes;
/// assert_eq!(set_of(Fixes::upstream(), false).name, "upstream");
/// ```
pub fn set_of(fixes: toolcall_model::model::Fixes, advisor: bool) -> BehaviorSet {
    if let Some(s) = toolcall_model::model::behavior_sets()
        .into_iter()
        .find(|s| s.fixes == fixes && s.gemini_tool_text == advisor)
    {
        return s;
    }
    let name = match (fixes.is_upstream(), advisor) {
        (_, false) => fixes.to_string(),
        (true, true) => "gemini-tool-text".to_owned(),
        (false, true) => format!("{fixes}+gemini-tool-text"),
    };
    BehaviorSet {
        name: Box::leak(name.into_boxed_str()),
        fixes,
        gemini_tool_text: advisor,
    }
}

/// How a scenario ended for a setup.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mark {
    /// Survived.
    Ok,
    /// Survived, with an exception the configuration asked for.
    Thrown,
    /// Survived once caught: the exception Spring AI throws by design for a
    /// tool name it cannot resolve (`IllegalStateException: No
    /// ToolCallback found for tool name: ...`) reached the caller, under
    /// every behaviour set; the conversation is left usable.
    Raised,
    /// Not played (no limit to breach, or one too large to play).
    NotApplicable,
    /// A conversion failure (`Failed to parse JSON: ...`) reached the caller.
    ParseError,
    /// Another exception reached the caller, which nothing configured.
    Error,
    /// The provider rejected a request of the turn.
    Rejected,
    /// A tool's output reached the model altered.
    Lost,
    /// A request of the turn no longer holds the user's question (the
    /// memory window evicted it), and the provider took it.
    Forgot,
    /// The next turn, built from the memory, is rejected: calls without responses.
    Dangling,
    /// The next turn, built from the memory, fails to convert.
    NextParse,
    /// The next turn, built from the memory, is rejected otherwise.
    NextRejected,
    /// The turn ended with the model's answer though the model's last
    /// reply asked for a tool: a call never ran (a streamed reply is read
    /// from each chunk's first generation only).
    Dropped,
    /// The turn never ends: a model that keeps calling a tool is called
    /// again and again, past what the limits bound.
    Runaway,
}

impl Mark {
    /// Every mark, in table order.
    ///
    /// ```
    /// use toolcall_check::config::Mark;
    /// assert!(Mark::ALL.iter().any(|m| m.word() == "dropped"));
    /// ```
    pub const ALL: [Mark; 14] = [
        Mark::Ok,
        Mark::Thrown,
        Mark::Raised,
        Mark::NotApplicable,
        Mark::ParseError,
        Mark::Error,
        Mark::Rejected,
        Mark::Lost,
        Mark::Forgot,
        Mark::Dangling,
        Mark::NextParse,
        Mark::NextRejected,
        Mark::Dropped,
        Mark::Runaway,
    ];

    /// Whether the setup survived.
    pub fn survives(self) -> bool {
        matches!(
            self,
            Mark::Ok | Mark::Thrown | Mark::Raised | Mark::NotApplicable
        )
    }

    /// A short word for tables.
    ///
    /// ```
    /// assert_eq!(toolcall_check::config::Mark::Dangling.word(), "dangling");
    /// assert!(toolcall_check::config::Mark::NextParse.word().len() <= 9);
    /// ```
    pub fn word(self) -> &'static str {
        match self {
            Mark::Ok => "ok",
            Mark::Thrown => "thrown",
            Mark::Raised => "raised",
            Mark::NotApplicable => "n/a",
            Mark::ParseError => "parse",
            Mark::Error => "error",
            Mark::Rejected => "rejected",
            Mark::Lost => "lost",
            Mark::Forgot => "forgot",
            Mark::Dangling => "dangling",
            Mark::NextParse => "next-json",
            Mark::NextRejected => "next-rej",
            Mark::Dropped => "dropped",
            Mark::Runaway => "runaway",
        }
    }

    /// What the word means, for legends.
    pub(crate) fn meaning(self) -> &'static str {
        match self {
            Mark::Ok => "survives",
            Mark::Thrown => "survives; an exception the configuration asked for reached the caller",
            Mark::Raised => {
                "survives once caught: Spring AI throws IllegalStateException (No ToolCallback found) for a tool name it cannot resolve, under every behaviour set; catch it around the call"
            }
            Mark::NotApplicable => {
                "not played: no finite limit, one too large to play, or every tool returns JSON (--tools json)"
            }
            Mark::ParseError => "\"Failed to parse JSON: ...\" reached the caller",
            Mark::Error => "an exception nothing configured reached the caller",
            Mark::Rejected => {
                "the provider rejected a request of the turn (Gemini by its rules; another provider, --provider none, when a call is not answered at once)"
            }
            Mark::Lost => "a tool's output reached the model altered",
            Mark::Forgot => {
                "a request of the turn no longer holds the user's question: the memory window evicted it"
            }
            Mark::Dangling => "the next turn is rejected: a call without a response in memory",
            Mark::NextParse => "the next turn fails: a stored response does not convert for Gemini",
            Mark::NextRejected => "the next turn is rejected by Gemini for another reason",
            Mark::Dropped => {
                "a tool call the model asked for never ran: the turn ended with the model's answer (a streamed reply is read from each chunk's first generation only)"
            }
            Mark::Runaway => {
                "the turn never ends: a model that keeps calling a tool past its limit is called again and again (and billed) past what the limits bound"
            }
        }
    }
}

/// One scenario's result for one setup and behaviour set.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckVerdict {
    /// The scenario.
    pub scenario: CheckScenario,
    /// The behaviour set's name.
    pub set: &'static str,
    /// The mark.
    pub mark: Mark,
    /// What happened, in one sentence with the texts in full.
    pub detail: String,
    /// How the turn ended (`completed`, `limit_exceeded`, `error`, ...).
    pub ended: &'static str,
    /// What the provider received for the response that matters, if sent.
    pub sent: Option<Value>,
    /// The next turn's verdict, with a memory.
    pub next_turn: Option<Result<(), NextRefused>>,
    /// A fault of the scenario itself (its script ran out): the model, not
    /// the setup, failed.
    pub fault: Option<String>,
}

impl CheckVerdict {
    /// The verdict as JSON.
    pub fn to_value(&self) -> Value {
        json!({
            "scenario": self.scenario.name(),
            "set": self.set,
            "survives": self.mark.survives(),
            "mark": self.mark.word(),
            "detail": self.detail,
            "ended": self.ended,
            "sent": self.sent,
            "next_turn": self.next_turn.as_ref().map(|r| match r {
                Ok(()) => "accepted".to_owned(),
                Err(e) => format!("rejected: {e}"),
            }),
        })
    }
}

/// Describes a setup in one line (`Gemini, Spring's processor, memory inside the loop, ...`).
pub(crate) fn describe_setup(s: &Setup) -> String {
    let max = |m: Max| match m {
        Max::Limited(n) => n.to_string(),
        Max::Unlimited => "unlimited".into(),
    };
    let mut parts = vec![
        match s.provider {
            Provider::Gemini => "Gemini".to_owned(),
            Provider::None => "a provider that takes messages as they are".to_owned(),
        },
        format!(
            "on-limit-exceeded={}",
            match s.limits.on_exceeded {
                OnExceeded::Throw => "THROW",
                OnExceeded::ReturnErrorResponse => "RETURN_ERROR_RESPONSE",
            }
        ),
        format!(
            "per tool {}{}",
            max(s.limits.default_max_per_tool),
            s.limits
                .overrides
                .iter()
                .map(|(k, v)| format!(", {k} {v}"))
                .collect::<String>()
        ),
    ];
    if !s.limits.excluded.is_empty() {
        parts.push(format!(
            "excluded {}",
            s.limits
                .excluded
                .iter()
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    parts.push(format!("total {}", max(s.limits.max_total)));
    if !s.version.has_limits() {
        // Spring AI 2.0.0's and 1.1's managers have no limits to describe.
        parts.truncate(1);
        parts.push("no tool call limits".into());
    }
    parts.push(match s.processor.kind {
        ProcessorKind::Default => "Spring's default processor".into(),
        ProcessorKind::JsonError => "a JSON-error processor".into(),
    });
    if s.processor.always_throw {
        parts.push("throw-exception-on-error".into());
    }
    if !s.processor.rethrow.is_empty() {
        parts.push(format!("rethrow {}", s.processor.rethrow.join(", ")));
    }
    parts.push(match s.memory {
        Memory::None => "no chat memory".into(),
        Memory::Outside => format!("memory outside the loop (window {})", s.memory_max_messages),
        Memory::Inside => format!("memory inside the loop (window {})", s.memory_max_messages),
    });
    if s.version.loop_in_chat_model() && s.memory == Memory::Inside {
        // 1.1: ToolCallAdvisor, which has no history switch.
        parts.push("the tool loop in ToolCallAdvisor".into());
    } else if s.version.loop_in_chat_model() {
        // 1.1: no ToolCallingAdvisor, whose switch the history would be.
        parts.push("the tool loop inside the chat model".into());
    } else {
        parts.push(format!(
            "conversation history {}{}",
            if s.history() { "on" } else { "off" },
            if s.conversation_history.is_none() {
                " (ChatClient's choice)"
            } else {
                ""
            }
        ));
    }
    parts.push(describe_tool_output(&s.tool_output));
    if s.stream {
        parts.push("streamed (ChatClient.stream())".into());
    }
    parts.join(", ")
}

/// The tool-output assumption, as `--tools` states it: it decides which
/// plain-output scenarios apply, so the setup line says it.
fn describe_tool_output(t: &ToolOutput) -> String {
    let kind = |k: OutputKind| match k {
        OutputKind::Json => "JSON",
        OutputKind::Text => "plain text",
        OutputKind::Mixed => "JSON or plain text",
    };
    let flag = |k: OutputKind| match k {
        OutputKind::Json => "json",
        OutputKind::Text => "text",
        OutputKind::Mixed => "mixed",
    };
    let mut spec = vec![flag(t.default).to_owned()];
    spec.extend(t.per_tool.iter().map(|(n, k)| format!("{n}={}", flag(*k))));
    let mut out = format!("tools return {}", kind(t.default));
    for (n, k) in &t.per_tool {
        out.push_str(&format!(", {n} {}", kind(*k)));
    }
    format!("{out} (--tools {})", spec.join(","))
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.

    #[test]
    fn example_open_values() {
        use super::open_values;
        assert_eq!(
            open_values("spring.ai.tools.limits.on-limit-exceeded"),
            ["RETURN_ERROR_RESPONSE"]
        );
        assert_eq!(
            open_values("spring.ai.tools.limits.max-calls-per-tool[search]"),
            ["1", "-1"]
        );
        assert_eq!(
            open_values("spring.ai.tools.limits.maxcallspertool.search"),
            ["1", "-1"]
        );
        assert!(open_values("spring.ai.tools.limits.max-calls-per-tool-default").len() == 2);
        assert_eq!(
            open_values("spring.ai.tools.throw-exception-on-error"),
            ["true"]
        );
        assert!(open_values("spring.ai.tools.limits.excluded-tools").is_empty());
        assert!(open_values("spring.ai.tools.observations.includeContent").is_empty());
    }

    #[test]
    fn example_parse() {
        use crate::config::{OutputKind, ToolOutput};
        let t = ToolOutput::parse("json,getWeather=text").unwrap();
        assert_eq!(t.default, OutputKind::Json);
        assert_eq!(t.text_tool(), Some("getWeather"));
        assert_eq!(ToolOutput::parse("json").unwrap().text_tool(), None);
        assert!(ToolOutput::parse("xml").is_err());
    }

    #[test]
    fn example_text_tool() {
        use crate::config::ToolOutput;
        assert_eq!(ToolOutput::default().text_tool(), Some("weather"));
    }
}
