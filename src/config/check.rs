//! Whether a Spring AI 2.0.1 setup survives the situations that break tool
//! calling, under every behaviour set: the engine of `toolcall-model check`
//! and of the main job's table.
//!
//! A [`Setup`] is what an application configures: the limits and processor
//! flags its `spring.ai.tools.*` properties give (see [`crate::config::binding`]),
//! plus what properties cannot say (which exception processor bean, its
//! rethrow list, where the chat memory advisor stands, its window, the
//! provider). A [`Scenario`] is one situation, played as a scripted tool loop
//! ([`crate::chat::tool_loop::run_loop`]) on the setup; [`evaluate`] says whether
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

use serde_json::{json, Value};

use crate::chat::memory::DEFAULT_MEMORY_MAX_MESSAGES;
use crate::chat::stream::Split;
use crate::chat::tool_loop::{
    run_loop, EndKind, LoopConfig, LoopError, LoopRun, Memory, Provider, Sent,
};
use crate::gemini::{Part, Refusal, Rejection, Request, Rule};
use crate::model::behavior::{behavior_sets, BehaviorSet, Fix, Fixes, SpringAi};
use crate::model::java::{JavaException, TOOL_EXECUTION_EXCEPTION};
use crate::model::limits::{Limits, Max, OnExceeded};
use crate::model::manager::Config;
use crate::model::message::{answered, Generation, Message, ToolCall};
use crate::model::processor::{Processor, ProcessorKind};
use crate::model::table::enum_table;
use crate::model::text::cut;
use crate::model::tools::{Outcome, ToolSpec, Toolbox};

/// The largest limit a breach scenario plays out call by call; past it the
/// scenario is reported as not played (the outcome does not depend on the
/// number, but a test turn of millions of calls says nothing more).
pub const MAX_PLAYED_LIMIT: u32 = 200;

/// Tool rounds of the long-turn scenario: a dozen.
pub const LONG_TURN_ROUNDS: usize = 12;

/// The model calls [`Scenario::Runaway`] allows a turn when no limit bounds
/// it: past them the turn is taken to run away.
pub const RUNAWAY_PROBE: usize = 50;

/// An application's tool-calling setup.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setup {
    /// The limits (`spring.ai.tools.limits.*`).
    pub limits: Limits,
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
    ///
    /// ```
    /// use toolcall_model::config::check::{OutputKind, ToolOutput};
    /// let t = ToolOutput::parse("json,getWeather=text").unwrap();
    /// assert_eq!(t.default, OutputKind::Json);
    /// assert_eq!(t.text_tool(), Some("getWeather"));
    /// assert_eq!(ToolOutput::parse("json").unwrap().text_tool(), None);
    /// assert!(ToolOutput::parse("xml").is_err());
    /// ```
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
    ///
    /// ```
    /// use toolcall_model::config::check::ToolOutput;
    /// assert_eq!(ToolOutput::default().text_tool(), Some("weather"));
    /// ```
    pub fn text_tool(&self) -> Option<&str> {
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
            limits: Limits::default(),
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

impl Setup {
    /// The conversation-history switch in force: explicit, or what
    /// `DefaultChatClient.autoRegisterToolCallingAdvisor` chooses
    /// (`!hasDownstreamMemoryAdvisor`).
    ///
    /// ```
    /// use toolcall_model::{config::check::Setup, chat::tool_loop::Memory};
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
    }
}

enum_table! {
    /// A situation a setup must survive: its row holds its name (in
    /// reports and JSON), its column id (the same in the text table's
    /// header and in the JSON verdicts' `column`) and a one-line
    /// description. The turn it plays is built in `Scenario::turn`.
    ///
    /// ```
    /// use toolcall_model::config::check::Scenario;
    /// assert_eq!(Scenario::HalfJson.name(), "half-json");
    /// assert_eq!(Scenario::BreachThenRound.column(), "breach+1");
    /// ```
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum Scenario (ScenarioRow) {
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

impl Scenario {
    /// The tool output the scenario feeds, for the scenarios that feed one.
    fn tool_text(self) -> Option<Option<&'static str>> {
        match self {
            Scenario::PlainText => Some(Some("Sunny, 22 °C")),
            Scenario::HalfJson => Some(Some("3.0 + 5.0 = 8.0")),
            Scenario::EmptyText => Some(Some("")),
            Scenario::NullResult => Some(None),
            _ => None,
        }
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
    /// assert_eq!(toolcall_model::config::check::Mark::Dangling.word(), "dangling");
    /// assert!(toolcall_model::config::check::Mark::NextParse.word().len() <= 9);
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
    pub fn meaning(self) -> &'static str {
        match self {
            Mark::Ok => "survives",
            Mark::Thrown => "survives; an exception the configuration asked for reached the caller",
            Mark::Raised => "survives once caught: Spring AI throws IllegalStateException (No ToolCallback found) for a tool name it cannot resolve, under every behaviour set; catch it around the call",
            Mark::NotApplicable => "not played: no finite limit, one too large to play, or every tool returns JSON (--tools json)",
            Mark::ParseError => "\"Failed to parse JSON: ...\" reached the caller",
            Mark::Error => "an exception nothing configured reached the caller",
            Mark::Rejected => "the provider rejected a request of the turn (Gemini by its rules; another provider, --provider none, when a call is not answered at once)",
            Mark::Lost => "a tool's output reached the model altered",
            Mark::Forgot => "a request of the turn no longer holds the user's question: the memory window evicted it",
            Mark::Dangling => "the next turn is rejected: a call without a response in memory",
            Mark::NextParse => "the next turn fails: a stored response does not convert for Gemini",
            Mark::NextRejected => "the next turn is rejected by Gemini for another reason",
            Mark::Dropped => "a tool call the model asked for never ran: the turn ended with the model's answer (a streamed reply is read from each chunk's first generation only)",
            Mark::Runaway => "the turn never ends: a model that keeps calling a tool past its limit is called again and again (and billed) past what the limits bound",
        }
    }
}

/// One scenario's result for one setup and behaviour set.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The scenario.
    pub scenario: Scenario,
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

impl Verdict {
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

/// The tool a breach scenario calls, and the number of calls that breaks a
/// limit: the tool with the smallest per-tool limit (an override, else any
/// other name under the default), or the total limit if smaller; `None`
/// when every limit is off for it.
fn breach_target(limits: &Limits) -> Option<(String, u32)> {
    let mut best: Option<(String, u32)> = None;
    let mut consider = |name: &str, max: Option<Max>| {
        let per = match max {
            Some(Max::Limited(n)) => Some(n),
            _ => None,
        };
        let total = match limits.max_total {
            Max::Limited(n) => Some(n),
            Max::Unlimited => None,
        };
        let n = match (per, total) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        if let Some(n) = n {
            if !matches!(&best, Some((_, m)) if *m <= n) {
                best = Some((name.to_owned(), n));
            }
        }
    };
    for name in limits.overrides.keys() {
        consider(name, limits.max_for(name));
    }
    // A name with no override and not excluded stands for every other tool.
    let mut other = "x".to_owned();
    while limits.overrides.contains_key(&other) || limits.excluded.contains(&other) {
        other.push('x');
    }
    consider(&other, limits.max_for(&other));
    best
}

fn calls(prefix: &str, tool: &str, n: usize) -> Vec<ToolCall> {
    (1..=n)
        .map(|i| ToolCall::new(&format!("{prefix}-{i}"), tool, "{}"))
        .collect()
}

fn reply_calls(c: Vec<ToolCall>) -> Vec<Generation> {
    vec![Generation {
        tool_calls: c,
        ..Generation::default()
    }]
}

fn reply_text(t: &str) -> Vec<Generation> {
    vec![Generation {
        text: Some(t.to_owned()),
        ..Generation::default()
    }]
}

/// The response part the scenario is about: the last function response of
/// the request sent after the first batch (the breach scenarios: after the
/// breaching batch, i.e. the last request).
fn sent_response(run: &LoopRun, which: usize) -> Option<Value> {
    let req: &Request = match run.requests.get(which)? {
        Sent::Gemini(r) => r,
        Sent::Messages(_) => return None,
    };
    req.contents.iter().rev().find_map(|c| {
        c.parts.iter().rev().find_map(|p| match p {
            Part::FunctionResponse { response, .. } => Some(response.to_value()),
            _ => None,
        })
    })
}

/// The first function response of tool `name` in a Gemini request.
fn response_named(sent: &Sent, name: &str) -> Option<Value> {
    let Sent::Gemini(req) = sent else {
        return None;
    };
    req.contents.iter().find_map(|c| {
        c.parts.iter().find_map(|p| match p {
            Part::FunctionResponse { name: n, response } if n == name => Some(response.to_value()),
            _ => None,
        })
    })
}

/// Whether `payload` carries `text` whole: the JSON value the text is (an
/// object as is, another value as its one entry), or the text itself as one
/// string entry.
fn carries(text: &str, payload: &Value) -> bool {
    let whole = serde_json::from_str::<Value>(text).ok();
    match (whole, payload) {
        (Some(v @ Value::Object(_)), p) => &v == p,
        (Some(v), Value::Object(m)) if m.len() == 1 => m.values().next() == Some(&v),
        (_, Value::Object(m)) if m.len() == 1 => {
            m.values().next() == Some(&Value::String(text.to_owned()))
        }
        _ => false,
    }
}

fn is_parse_failure(e: &JavaException) -> bool {
    e.message
        .as_deref()
        .is_some_and(|m| m.starts_with("Failed to parse JSON"))
}

/// `DefaultToolCallingManager.executeToolCall`'s refusal of a name no
/// callback answers to: by design, whatever the configuration.
fn is_unresolved_tool(e: &JavaException) -> bool {
    e.class == crate::model::java::ILLEGAL_STATE
        && e.message
            .as_deref()
            .is_some_and(|m| m.starts_with("No ToolCallback found for tool name: "))
}

/// Whether the setup asked for `e` to reach the caller.
fn configured(setup: &Setup, e: &JavaException) -> bool {
    let asked = |class: &str| {
        setup
            .processor
            .rethrow
            .iter()
            .any(|r| r == class || r == "java.lang.RuntimeException")
    };
    (setup.processor.always_throw && e.class == TOOL_EXECUTION_EXCEPTION)
        || asked(&e.class)
        || e.cause.as_deref().is_some_and(|c| asked(&c.class))
}

fn clip(s: &str, n: usize) -> String {
    match cut(s, n, n.saturating_sub(1)) {
        None => s.to_owned(),
        Some((head, _)) => format!("{head}…"),
    }
}

/// One scenario made concrete for a setup and a behaviour set: what
/// [`evaluate`] plays. Public so that the checking machinery can judge the
/// very same turn with its invariants (no verdict of `check` may call a
/// set safe where an invariant is refuted on this turn).
#[derive(Debug, Clone, PartialEq)]
pub struct Script {
    /// The loop's configuration.
    pub config: LoopConfig,
    /// The tools.
    pub tools: Vec<ToolSpec>,
    /// The request's messages.
    pub history: Vec<Message>,
    /// The scripted model replies.
    pub model: Vec<Vec<Generation>>,
    /// Which request carries the tool response the scenario is about.
    pub watch: usize,
}

/// A tool name no tool of the scenarios has: what the model calls in
/// [`Scenario::UnknownTool`].
///
/// ```
/// use toolcall_model::{config::check::{evaluate, Mark, Scenario, Setup, UNKNOWN_TOOL_NAME}, model::behavior::behavior_sets};
/// let v = evaluate(&Setup::default(), &behavior_sets()[0], Scenario::UnknownTool);
/// assert_eq!(v.mark, Mark::Raised);
/// assert!(v.detail.contains(UNKNOWN_TOOL_NAME));
/// ```
pub const UNKNOWN_TOOL_NAME: &str = "getWether";

/// The turn `scenario` plays on `setup` under `set`; `Err` with the reason
/// when it is not played (no limit to breach, one too large to play, a
/// total limit below the long turn).
///
/// ```
/// use toolcall_model::{config::check::{script, Scenario, Setup}, model::behavior::behavior_sets};
/// let up = behavior_sets()[0];
/// // The default limits (40 per tool) are breached at call 41.
/// let s = script(&Setup::default(), &up, Scenario::BreachThenRound).unwrap();
/// assert_eq!(s.model[0][0].tool_calls.len(), 41);
/// assert_eq!(s.model.len(), 3);
/// ```
pub fn script(setup: &Setup, set: &BehaviorSet, scenario: Scenario) -> Result<Script, String> {
    let config = setup.loop_config(set);
    let history = vec![Message::user("What is the weather?")];
    // A tool's output, then one more round (another tool, returning JSON)
    // before the answer: agents go on calling tools, and what a rewriting
    // advisor fixed in one request is raw again in the next.
    let one_call = |mut tools: Vec<ToolSpec>, name: &str| {
        let mut taken: Vec<&str> = tools.iter().map(|t: &ToolSpec| t.name.as_str()).collect();
        taken.push(name);
        let other = other_tool(&setup.limits, &taken);
        tools.push(ToolSpec::returning(&other, "{\"rain\":false}"));
        (
            tools,
            vec![
                reply_calls(calls("call", name, 1)),
                reply_calls(calls("next", &other, 1)),
                reply_text("Done."),
            ],
            1,
        )
    };
    // (tools, model script, which request carries the response that matters)
    let (tools, model, watch) = match scenario {
        Scenario::BreachOneRound | Scenario::BreachAcrossRounds | Scenario::BreachThenRound => {
            if !setup.version.has_limits() {
                return Err(format!(
                    "Spring AI {} has no tool call limits: nothing to breach",
                    setup.version
                ));
            }
            let Some((tool, n)) = breach_target(&setup.limits) else {
                return Err("no limit applies to any tool: nothing to breach".into());
            };
            if n > MAX_PLAYED_LIMIT {
                return Err(format!(
                    "the smallest limit ({n}, tool '{tool}') is past {MAX_PLAYED_LIMIT} calls: not played"
                ));
            }
            let n = n as usize;
            let mut tools = vec![ToolSpec::returning(&tool, "{\"temp\":22}")];
            match scenario {
                Scenario::BreachOneRound => (
                    tools,
                    vec![
                        reply_calls(calls("call", &tool, n + 1)),
                        reply_text("Done."),
                    ],
                    1,
                ),
                Scenario::BreachThenRound => {
                    // Another tool, one call: within its own limit (every
                    // limit is at least 1).
                    let other = other_tool(&setup.limits, &[tool.as_str()]);
                    tools.push(ToolSpec::returning(&other, "{\"rain\":false}"));
                    (
                        tools,
                        vec![
                            reply_calls(calls("call", &tool, n + 1)),
                            reply_calls(calls("next", &other, 1)),
                            reply_text("Done."),
                        ],
                        1,
                    )
                }
                _ => {
                    let mut model: Vec<_> = (1..=n + 1)
                        .map(|r| reply_calls(calls(&format!("r{r}"), &tool, 1)))
                        .collect();
                    model.push(reply_text("Done."));
                    (tools, model, n + 1)
                }
            }
        }
        Scenario::PlainText | Scenario::HalfJson | Scenario::EmptyText | Scenario::NullResult => {
            let Some(name) = setup.tool_output.text_tool() else {
                return Err("every tool returns JSON (--tools json): not played".into());
            };
            let text = scenario.tool_text().flatten();
            let tools = vec![ToolSpec {
                outcomes: vec![Outcome::Returns(text.map(str::to_owned))],
                ..ToolSpec::returning(name, "")
            }];
            one_call(tools, name)
        }
        Scenario::ToolThrows => {
            let tools = vec![ToolSpec {
                outcomes: vec![Outcome::Throws {
                    exception: JavaException::new(
                        "java.lang.IllegalStateException",
                        Some("Service unavailable"),
                    ),
                    wrapped: true,
                }],
                ..ToolSpec::returning("weather", "")
            }];
            one_call(tools, "weather")
        }
        Scenario::UnknownTool => one_call(
            vec![ToolSpec::returning("weather", "{\"temp\":22}")],
            UNKNOWN_TOOL_NAME,
        ),
        Scenario::TextAndCall => {
            let tools = vec![ToolSpec::returning("weather", "{\"temp\":22}")];
            let mut reply = reply_text("Let me check.");
            reply.extend(reply_calls(calls("call", "weather", 1)));
            (tools, vec![reply, reply_text("Done.")], 1)
        }
        Scenario::Runaway => {
            // The turn must end within the limit's calls and two more model
            // calls (docs/INVARIANTS.md, turn-ends): the loop's guard is set
            // one past that, so that a turn that goes on is caught there,
            // not after 1000 calls. Without a limit to bound it, a probe.
            let target = breach_target(&setup.limits).filter(|_| setup.version.has_limits());
            let (tool, bound) = match target {
                Some((tool, n)) => (tool, n as usize + 2),
                None => ("weather".to_owned(), RUNAWAY_PROBE),
            };
            let mut config = config;
            config.repeat_last = true;
            config.max_rounds = bound + 1;
            return Ok(Script {
                config,
                tools: vec![ToolSpec::returning(&tool, "{\"temp\":22}")],
                history,
                model: vec![reply_calls(calls("call", &tool, 1))],
                watch: 1,
            });
        }
        Scenario::LongTurn => {
            if let Max::Limited(n) = setup.limits.max_total {
                if (n as usize) < LONG_TURN_ROUNDS {
                    return Err(format!(
                        "the total limit ({n}) is below {LONG_TURN_ROUNDS} calls: not played"
                    ));
                }
            }
            // One call per round, each to a tool of its own: within any
            // per-tool limit.
            let name = |r: usize| format!("step{r}");
            let tools = (1..=LONG_TURN_ROUNDS)
                .map(|r| ToolSpec::returning(&name(r), "{\"temp\":22}"))
                .collect();
            let mut model: Vec<_> = (1..=LONG_TURN_ROUNDS)
                .map(|r| reply_calls(calls(&format!("r{r}"), &name(r), 1)))
                .collect();
            model.push(reply_text("Done."));
            (tools, model, LONG_TURN_ROUNDS)
        }
    };
    Ok(Script {
        config,
        tools,
        history,
        model,
        watch,
    })
}

/// A tool name none of `taken` is and no override or exclusion names: it
/// stands for any other tool, under the default per-tool limit.
fn other_tool(limits: &Limits, taken: &[&str]) -> String {
    let mut other = "weather".to_owned();
    while taken.contains(&other.as_str())
        || limits.overrides.contains_key(&other)
        || limits.excluded.contains(&other)
    {
        other.push('x');
    }
    other
}

/// Plays `scenario` on `setup` under `set`.
///
/// ```
/// use toolcall_model::{config::check::{evaluate, Mark, Scenario, Setup}, model::behavior::behavior_sets};
/// let upstream = behavior_sets()[0];
/// let v = evaluate(&Setup::default(), &upstream, Scenario::HalfJson);
/// assert_eq!(v.mark, Mark::Lost); // {"result":3.0}
/// ```
pub fn evaluate(setup: &Setup, set: &BehaviorSet, scenario: Scenario) -> Verdict {
    let mut verdict = Verdict {
        scenario,
        set: set.name,
        mark: Mark::NotApplicable,
        detail: String::new(),
        ended: "-",
        sent: None,
        next_turn: None,
        fault: None,
    };
    let played = match play(setup, set, scenario) {
        Ok(played) => played,
        Err(Unplayed::NotApplicable(why)) => {
            verdict.detail = why;
            return verdict;
        }
        Err(Unplayed::Runaway(n)) => {
            verdict.mark = Mark::Runaway;
            verdict.detail = format!(
                "the turn never ends: the model, repeating its call, was called {n} times, past what the limits bound ({} model calls), and the loop calls it again",
                n.saturating_sub(1)
            );
            return verdict;
        }
        Err(Unplayed::Fault(e)) => {
            verdict.mark = Mark::Error;
            verdict.detail = format!("the scenario could not be played: {e}");
            verdict.fault = Some(e.to_string());
            return verdict;
        }
    };
    verdict.ended = played.run.kind.name();
    verdict.sent = sent_response(&played.run, played.watch);
    verdict.next_turn = next_turn(setup, &played.run);
    let (mark, detail) = judge_turn(setup, scenario, &played, verdict.sent.as_ref());
    let (mark, detail) = with_next_turn(mark, detail, verdict.next_turn.as_ref());
    verdict.mark = mark;
    verdict.detail = clip(&detail, 2000);
    verdict
}

/// A scenario's turn, played.
struct Played {
    /// What the loop did.
    run: LoopRun,
    /// The user's question, which every request should hold.
    question: Message,
    /// The tool whose output the scenario watches (the first one).
    watched_tool: Option<String>,
    /// Which request carries the tool response the scenario is about.
    watch: usize,
    /// The scripted model replies.
    model: Vec<Vec<Generation>>,
}

/// Why a scenario was not played.
enum Unplayed {
    /// It does not apply to the setup (the reason why).
    NotApplicable(String),
    /// The repeating model was still called at the loop's guard (this many
    /// model calls), past what the limits bound.
    Runaway(usize),
    /// Its own script failed, not the setup.
    Fault(crate::chat::tool_loop::LoopError),
}

/// Plays `scenario`'s turn on `setup` under `set`.
fn play(setup: &Setup, set: &BehaviorSet, scenario: Scenario) -> Result<Played, Unplayed> {
    let Script {
        config,
        tools,
        history,
        model,
        watch,
    } = script(setup, set, scenario).map_err(Unplayed::NotApplicable)?;
    let question = history.last().cloned().unwrap_or_else(|| Message::user(""));
    let watched_tool = tools.first().map(|t| t.name.clone());
    let mut toolbox = Toolbox::new(tools);
    let run = run_loop(&config, history, &model, &mut toolbox).map_err(|e| match e {
        LoopError::TooManyRounds(n) if config.repeat_last => Unplayed::Runaway(n),
        e => Unplayed::Fault(e),
    })?;
    Ok(Played {
        run,
        question,
        watched_tool,
        watch,
        model,
    })
}

/// With a memory, how the request of the next turn (the memory and a new
/// question) fares.
fn next_turn(setup: &Setup, run: &LoopRun) -> Option<Result<(), NextRefused>> {
    if setup.memory == Memory::None {
        return None;
    }
    Some(match setup.provider {
        Provider::Gemini => run.memory_verdict().map_err(NextRefused::Gemini),
        Provider::None => {
            let mut next = run.memory.clone();
            next.push(Message::user("next question"));
            answered(&next).map_err(NextRefused::Unanswered)
        }
    })
}

/// The turn's own mark and what happened, the first fault in this order: a
/// request refused, a request without the question, an exception at the
/// caller, a tool output altered.
fn judge_turn(
    setup: &Setup,
    scenario: Scenario,
    played: &Played,
    sent: Option<&Value>,
) -> (Mark, String) {
    let run = &played.run;
    // Gemini judges its requests by its own rules; any other provider is
    // held to what every chat API requires: each call answered at once.
    let provider = match setup.provider {
        Provider::Gemini => "Gemini",
        Provider::None => "the provider",
    };
    if let Some((i, e)) = first_rejected(run) {
        return (
            Mark::Rejected,
            format!("{provider} rejects request {} of the turn: {e}", i + 1),
        );
    }
    if let Some(i) = first_forgetful(run, &played.question) {
        return (
            Mark::Forgot,
            format!("request {i} of the turn does not hold the user's question"),
        );
    }
    if let (EndKind::Error, Some(e)) = (run.kind, &run.error) {
        return error_mark(setup, e);
    }
    if let Some(d) = lost_output(scenario, played) {
        return (Mark::Lost, d);
    }
    if let Some(d) = dropped_call(played) {
        return (Mark::Dropped, d);
    }
    let detail = match (sent, run.kind) {
        (_, EndKind::LimitExceeded) => format!(
            "the turn ends with the limit's answer: {}",
            run.generations
                .first()
                .and_then(|g| g.text.clone())
                .unwrap_or_default()
        ),
        (Some(p), _) => format!("Gemini got {p}"),
        (None, k) => format!("the turn ends: {}", k.name()),
    };
    (Mark::Ok, detail)
}

/// A call the model's last reply asked for that never ran: the loop ends on
/// a reply without calls, so a completed turn whose last scripted reply asks
/// for a tool dropped it.
fn dropped_call(played: &Played) -> Option<String> {
    let run = &played.run;
    (run.kind == EndKind::Completed)
        .then(|| played.model.get(run.requests.len().saturating_sub(1)))
        .flatten()
        .and_then(|reply| reply.iter().flat_map(|g| &g.tool_calls).next())
        .map(|c| {
            format!(
                "the model's reply {} asked for {} and the turn ended without running it",
                run.requests.len(),
                c.name
            )
        })
}

/// The first request the provider refuses (0-based) and why.
fn first_rejected(run: &LoopRun) -> Option<(usize, String)> {
    run.requests.iter().zip(0..).find_map(|(r, i)| match r {
        Sent::Gemini(_) => run
            .verdicts
            .get(i)
            .and_then(|v| v.as_ref().err())
            .map(|e| (i, e.to_string())),
        Sent::Messages(m) => {
            let m: Vec<Message> = m.iter().map(|x| Message::clone(x)).collect();
            answered(&m)
                .err()
                .map(|e| (i, format!("{UNANSWERED}: {e}")))
        }
    })
}

/// The first request (1-based) without the user's question, for a provider
/// that takes the messages as they are.
fn first_forgetful(run: &LoopRun, question: &Message) -> Option<usize> {
    run.requests.iter().zip(1..).find_map(|(r, i)| match r {
        Sent::Messages(m) => (!m.iter().any(|x| **x == *question)).then_some(i),
        Sent::Gemini(_) => None,
    })
}

/// The mark of an exception that reached the caller.
fn error_mark(setup: &Setup, e: &JavaException) -> (Mark, String) {
    if is_parse_failure(e) {
        (Mark::ParseError, format!("the caller gets {e}"))
    } else if is_unresolved_tool(e) {
        (Mark::Raised, format!("the caller gets {e}"))
    } else if configured(setup, e) {
        (Mark::Thrown, format!("the caller gets {e}, as configured"))
    } else {
        (Mark::Error, format!("the caller gets {e}"))
    }
}

/// Where the watched tool's text output reached Gemini altered: every
/// request from the one that first carries the output on, as each request
/// converts the history again (an advisor that fixed one request leaves the
/// next as upstream converts it).
fn lost_output(scenario: Scenario, played: &Played) -> Option<String> {
    let (Some(Some(text)), Some(tool)) = (scenario.tool_text(), played.watched_tool.as_deref())
    else {
        return None;
    };
    played
        .run
        .requests
        .iter()
        .enumerate()
        .skip(played.watch)
        .find_map(|(i, r)| {
            let p = response_named(r, tool)?;
            (!carries(text, &p)).then(|| {
                format!(
                    "the tool returned {} and Gemini got {p} (request {} of the turn)",
                    Value::String(text.to_owned()),
                    i + 1
                )
            })
        })
}

/// A turn that survived still fails when the next turn is refused.
fn with_next_turn(
    mark: Mark,
    detail: String,
    next_turn: Option<&Result<(), NextRefused>>,
) -> (Mark, String) {
    let Some(Err(e)) = next_turn.filter(|_| mark.survives()) else {
        return (mark, detail);
    };
    let mark = match e {
        NextRefused::Gemini(Refusal::Rejected(Rejection {
            rule: Rule::CountsMatch,
            ..
        }))
        | NextRefused::Unanswered(_) => Mark::Dangling,
        NextRefused::Gemini(Refusal::NotBuilt(j)) if is_parse_failure(j) => Mark::NextParse,
        NextRefused::Gemini(_) => Mark::NextRejected,
    };
    (mark, format!("{detail}; the next turn: {e}"))
}

/// How a provider other than Gemini refuses a request whose calls are not
/// answered at once (OpenAI, Anthropic and the others all do).
const UNANSWERED: &str = "a tool call is not answered by the next message";

/// Why the request of the turn after a scenario's fails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NextRefused {
    /// Gemini's: the request cannot be built, or the API rejects it.
    Gemini(Refusal),
    /// Another provider's: a tool call is not answered at once (the
    /// pairing fault).
    Unanswered(String),
}

impl std::fmt::Display for NextRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NextRefused::Gemini(r) => write!(f, "{r}"),
            NextRefused::Unanswered(e) => write!(f, "{UNANSWERED}: {e}"),
        }
    }
}

/// A change to a setup that a team can make without a new Spring AI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// `spring.ai.tools.limits.on-limit-exceeded=...`.
    OnLimitExceeded(OnExceeded),
    /// Another exception processor bean.
    Processor(ProcessorKind),
    /// `spring.ai.tools.throw-exception-on-error=false`.
    NoAlwaysThrow,
    /// An empty rethrow list.
    NoRethrow,
    /// The memory advisor elsewhere.
    Memory(Memory),
    /// A larger memory window.
    MemoryWindow(NonZeroU32),
    /// Register `ToolCallingAdvisor` yourself with conversation history on or off.
    History(bool),
}

impl Change {
    /// Applies the change.
    pub fn apply(&self, s: &Setup) -> Setup {
        let mut s = s.clone();
        match self {
            Change::OnLimitExceeded(b) => s.limits.on_exceeded = *b,
            Change::Processor(k) => s.processor.kind = *k,
            Change::NoAlwaysThrow => s.processor.always_throw = false,
            Change::NoRethrow => s.processor.rethrow.clear(),
            Change::Memory(m) => s.memory = *m,
            Change::MemoryWindow(n) => s.memory_max_messages = *n,
            Change::History(h) => s.conversation_history = Some(*h),
        }
        s
    }

    /// How to make the change, in the user's terms.
    pub fn describe(&self) -> String {
        match self {
            Change::OnLimitExceeded(OnExceeded::Throw) => {
                "spring.ai.tools.limits.on-limit-exceeded=THROW".into()
            }
            Change::OnLimitExceeded(OnExceeded::ReturnErrorResponse) => {
                "spring.ai.tools.limits.on-limit-exceeded=RETURN_ERROR_RESPONSE".into()
            }
            Change::Processor(ProcessorKind::Default) => {
                "drop your ToolExecutionExceptionProcessor bean (--processor default)".into()
            }
            Change::Processor(ProcessorKind::JsonError) => {
                "a ToolExecutionExceptionProcessor bean that writes {\"error\":MESSAGE} (--processor json-error)".into()
            }
            Change::NoAlwaysThrow => "spring.ai.tools.throw-exception-on-error=false".into(),
            Change::NoRethrow => "rethrow no exception class (--rethrow none)".into(),
            Change::Memory(Memory::Outside) => {
                "MessageChatMemoryAdvisor at its default order, outside the tool loop (--memory outside)".into()
            }
            Change::Memory(Memory::None) => "no chat memory advisor (--memory none)".into(),
            Change::Memory(Memory::Inside) => {
                "MessageChatMemoryAdvisor inside the tool loop (--memory inside)".into()
            }
            Change::MemoryWindow(n) => {
                format!("MessageWindowChatMemory.builder().maxMessages({n}) (--memory-window {n})")
            }
            Change::History(true) => "register ToolCallingAdvisor yourself with conversationHistoryEnabled(true) (--history on)".into(),
            Change::History(false) => "register ToolCallingAdvisor yourself with conversationHistoryEnabled(false) (--history off)".into(),
        }
    }

    /// A short name for JSON.
    pub fn key(&self) -> String {
        match self {
            Change::OnLimitExceeded(OnExceeded::Throw) => "on-limit-exceeded=THROW".into(),
            Change::OnLimitExceeded(OnExceeded::ReturnErrorResponse) => {
                "on-limit-exceeded=RETURN_ERROR_RESPONSE".into()
            }
            Change::Processor(ProcessorKind::Default) => "processor=default".into(),
            Change::Processor(ProcessorKind::JsonError) => "processor=json-error".into(),
            Change::NoAlwaysThrow => "throw-exception-on-error=false".into(),
            Change::NoRethrow => "rethrow=none".into(),
            Change::Memory(Memory::None) => "memory=none".into(),
            Change::Memory(Memory::Inside) => "memory=inside".into(),
            Change::Memory(Memory::Outside) => "memory=outside".into(),
            Change::MemoryWindow(n) => format!("memory-window={n}"),
            Change::History(h) => format!("history={}", if *h { "on" } else { "off" }),
        }
    }
}

/// The changes worth trying on `s`: each differs from it.
fn candidate_changes(s: &Setup) -> Vec<Change> {
    let mut v = Vec::new();
    v.push(Change::OnLimitExceeded(match s.limits.on_exceeded {
        OnExceeded::Throw => OnExceeded::ReturnErrorResponse,
        OnExceeded::ReturnErrorResponse => OnExceeded::Throw,
    }));
    v.push(Change::Processor(match s.processor.kind {
        ProcessorKind::Default => ProcessorKind::JsonError,
        ProcessorKind::JsonError => ProcessorKind::Default,
    }));
    if s.processor.always_throw {
        v.push(Change::NoAlwaysThrow);
    }
    if !s.processor.rethrow.is_empty() {
        v.push(Change::NoRethrow);
    }
    for m in [Memory::Outside, Memory::None] {
        if s.memory != m && s.memory != Memory::None {
            v.push(Change::Memory(m));
        }
    }
    if s.memory != Memory::None {
        // Room for the long turn: the user message, two messages per round
        // and the answer, with some to spare.
        let room =
            NonZeroU32::new(4 * LONG_TURN_ROUNDS as u32).unwrap_or(DEFAULT_MEMORY_MAX_MESSAGES);
        if s.memory_max_messages < room {
            v.push(Change::MemoryWindow(room));
        }
    }
    // History matters with the memory inside (ChatClient turns it off
    // there) and wherever it was set by hand: off, the loop sends Gemini a
    // lone function response.
    if s.memory == Memory::Inside || s.conversation_history.is_some() {
        v.push(Change::History(!s.history()));
    }
    v
}

/// One behaviour set's report for a setup.
#[derive(Debug, Clone, PartialEq)]
pub struct SetReport {
    /// The behaviour set.
    pub set: BehaviorSet,
    /// One verdict per scenario, in [`Scenario::ALL`] order.
    pub verdicts: Vec<Verdict>,
    /// The smallest change (at most two) that makes every scenario
    /// survive; `Some(vec![])` when the setup already does; `None` when no
    /// such change exists.
    pub smallest_change: Option<Vec<Change>>,
}

impl SetReport {
    /// Whether every scenario survives.
    pub fn safe(&self) -> bool {
        self.verdicts.iter().all(|v| v.mark.survives())
    }
}

fn survives_all(setup: &Setup, set: &BehaviorSet, scenarios: &[Scenario]) -> bool {
    scenarios
        .iter()
        .all(|s| evaluate(setup, set, *s).mark.survives())
}

/// The smallest set of [`Change`]s (none, one, or two, in candidate order)
/// after which `setup` survives every scenario under `set`.
pub fn smallest_change(setup: &Setup, set: &BehaviorSet) -> Option<Vec<Change>> {
    let all = Scenario::ALL;
    if survives_all(setup, set, &all) {
        return Some(vec![]);
    }
    let cands = candidate_changes(setup);
    for c in &cands {
        if survives_all(&c.apply(setup), set, &all) {
            return Some(vec![c.clone()]);
        }
    }
    for (i, a) in cands.iter().enumerate() {
        for b in &cands[i + 1..] {
            if std::mem::discriminant(a) == std::mem::discriminant(b) {
                continue;
            }
            if survives_all(&b.apply(&a.apply(setup)), set, &all) {
                return Some(vec![a.clone(), b.clone()]);
            }
        }
    }
    None
}

/// `setup` with only the overrides and exclusions of the tools the
/// scenarios call (the breach target, the names `breach_target` tries for
/// any other tool, `weather`, `step1`...): the same verdicts, and a file of
/// a hundred thousand overrides is not copied into every scenario run. No
/// [`Change`] touches the per-tool limits, so this holds for the smallest
/// change too.
fn scenario_setup(setup: &Setup) -> Setup {
    let l = &setup.limits;
    let mut names: Vec<String> = (1..=LONG_TURN_ROUNDS).map(|r| format!("step{r}")).collect();
    names.push("weather".into());
    names.extend(setup.tool_output.text_tool().map(str::to_owned));
    if let Some((tool, _)) = breach_target(l) {
        names.push(tool);
    }
    let mut other = "x".to_owned();
    loop {
        names.push(other.clone());
        if !(l.overrides.contains_key(&other) || l.excluded.contains(&other)) {
            break;
        }
        other.push('x');
    }
    let mut s = setup.clone();
    s.limits.overrides = names
        .iter()
        .filter_map(|n| l.overrides.get(n).map(|v| (n.clone(), *v)))
        .collect();
    s.limits.excluded = names
        .iter()
        .filter(|n| l.excluded.contains(*n))
        .cloned()
        .collect();
    s
}

/// The whole report for a setup: every behaviour set, every scenario.
pub fn report(setup: &Setup) -> Vec<SetReport> {
    report_sets(setup, &behavior_sets())
}

/// The report for a setup under the given behaviour sets.
///
/// ```
/// use toolcall_model::{config::check::{report_sets, Setup}, model::behavior::{BehaviorSet, Fixes}};
/// let set = BehaviorSet { name: "mine", fixes: Fixes::all(), gemini_tool_text: false };
/// let r = report_sets(&Setup::default(), &[set]);
/// assert!(r[0].safe());
/// ```
pub fn report_sets(setup: &Setup, sets: &[BehaviorSet]) -> Vec<SetReport> {
    let setup = &scenario_setup(setup);
    sets.iter()
        .copied()
        .map(|set| {
            let verdicts = Scenario::ALL
                .iter()
                .map(|s| evaluate(setup, &set, *s))
                .collect::<Vec<_>>();
            let smallest_change = if verdicts.iter().all(|v| v.mark.survives()) {
                Some(vec![])
            } else {
                smallest_change(setup, &set)
            };
            SetReport {
                set,
                verdicts,
                smallest_change,
            }
        })
        .collect()
}

/// The fewest fixes (in [`Fix::ALL`] order among equals) under which
/// `setup` survives every scenario, found by playing each combination;
/// `Some` of no fix when upstream already survives, `None` when no
/// combination does.
///
/// ```
/// use toolcall_model::{config::check::{smallest_fixes, Setup}, model::{behavior::Fix, limits::{Limits, OnExceeded}}};
/// let setup = Setup {
///     limits: Limits { on_exceeded: OnExceeded::ReturnErrorResponse, ..Limits::default().max_calls_per_tool(1).unwrap() },
///     ..Setup::default()
/// };
/// // Breach text and plain tool text both need the strict conversion; once
/// // the loop goes on, a model that keeps calling past the limit needs the
/// // turn to end.
/// assert_eq!(smallest_fixes(&setup).unwrap().enabled(), vec![Fix::StrictJsonOrWrap, Fix::EndTurnAfterBreach]);
/// ```
pub fn smallest_fixes(setup: &Setup) -> Option<Fixes> {
    let setup = &scenario_setup(setup);
    let n = Fix::ALL.len();
    let mut combos: Vec<u32> = (0..1u32 << n).collect();
    // Fewest fixes first, and of as many, those with fewer upstream
    // proposals (this project's own fixes are the ones it recommends).
    let proposals = |m: u32| {
        (0..n)
            .filter(|i| m & (1 << i) != 0 && !Fix::ALL[*i].in_all())
            .count()
    };
    combos.sort_by_key(|m| (m.count_ones(), proposals(*m), m.reverse_bits()));
    combos.into_iter().find_map(|m| {
        let fixes = (0..n)
            .filter(|i| m & (1 << i) != 0)
            .fold(Fixes::upstream(), |f, i| f.with(Fix::ALL[i]));
        let set = BehaviorSet {
            name: "candidate",
            fixes,
            gemini_tool_text: false,
        };
        survives_all(setup, &set, &Scenario::ALL).then_some(fixes)
    })
}

/// Which fixes the setup needs: the names of the behaviour sets under
/// which it is safe as it is.
pub fn safe_sets(reports: &[SetReport]) -> Vec<&'static str> {
    reports
        .iter()
        .filter(|r| r.safe())
        .map(|r| r.set.name)
        .collect()
}

/// Describes a setup in one line (`Gemini, Spring's processor, memory inside the loop, ...`).
pub fn describe_setup(s: &Setup) -> String {
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
        // Spring AI 2.0.0's manager has no limits to describe.
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
    parts.push(format!(
        "conversation history {}{}",
        if s.history() { "on" } else { "off" },
        if s.conversation_history.is_none() {
            " (ChatClient's choice)"
        } else {
            ""
        }
    ));
    if s.stream {
        parts.push("streamed (ChatClient.stream())".into());
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reduced setup gives every scenario the same verdict as the full one.
    #[test]
    fn scenario_setup_changes_no_verdict() {
        let mut limits = Limits::default()
            .max_calls_per_tool(5)
            .unwrap()
            .max_total_tool_calls(30)
            .unwrap();
        for (name, n) in [
            ("weather", 1),
            ("step3", 1),
            ("x", 2),
            ("xx", 4),
            ("aaa", 3),
        ] {
            limits = limits.max_calls_per_tool_for(name, n).unwrap();
        }
        for i in 0..500 {
            limits = limits.max_calls_per_tool_for(&format!("t{i}"), 7).unwrap();
        }
        limits = limits.exclude_tool_from_limit("step7").unwrap();
        for on in [OnExceeded::Throw, OnExceeded::ReturnErrorResponse] {
            limits.on_exceeded = on;
            let full = Setup {
                limits: limits.clone(),
                ..Setup::default()
            };
            let reduced = scenario_setup(&full);
            assert!(reduced.limits.overrides.len() < 10);
            for set in behavior_sets() {
                for s in Scenario::ALL {
                    let a = evaluate(&full, &set, s);
                    let b = evaluate(&reduced, &set, s);
                    assert_eq!(format!("{a:?}"), format!("{b:?}"), "{} {s:?}", set.name);
                }
            }
        }
    }
}
