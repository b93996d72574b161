//! Each scenario made concrete for a setup and a behaviour set: the model's
//! replies, the tools' outputs and what the turn is meant to end with.

use serde_json::Value;

use super::{CheckScenario, LONG_TURN_ROUNDS, MAX_PLAYED_LIMIT, RUNAWAY_PROBE, Setup};
use toolcall_model::chat::{LoopConfig, LoopRun, Sent};
use toolcall_model::gemini::{Part, Request};
use toolcall_model::model::BehaviorSet;
use toolcall_model::model::cut;
use toolcall_model::model::{Generation, Message, ToolCall};
use toolcall_model::model::{JavaException, TOOL_EXECUTION_EXCEPTION};
use toolcall_model::model::{Max, ToolCallLimits};
use toolcall_model::model::{Outcome, ToolSpec};

/// The tool a breach scenario calls, and the number of calls that breaks a
/// limit: the tool with the smallest per-tool limit (an override, else any
/// other name under the default), or the total limit if smaller; `None`
/// when every limit is off for it.
pub(super) fn breach_target(limits: &ToolCallLimits) -> Option<(String, u32)> {
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
        if let Some(n) = n
            && !matches!(&best, Some((_, m)) if *m <= n)
        {
            best = Some((name.to_owned(), n));
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

pub(super) fn calls(prefix: &str, tool: &str, n: usize) -> Vec<ToolCall> {
    (1..=n)
        .map(|i| ToolCall::new(&format!("{prefix}-{i}"), tool, "{}"))
        .collect()
}

pub(super) fn reply_calls(c: Vec<ToolCall>) -> Vec<Generation> {
    vec![Generation {
        tool_calls: c.into(),
        ..Generation::default()
    }]
}

pub(super) fn reply_text(t: &str) -> Vec<Generation> {
    vec![Generation {
        text: Some(t.into()),
        ..Generation::default()
    }]
}

/// The response part the scenario is about: the last function response of
/// the request sent after the first batch (the breach scenarios: after the
/// breaching batch, i.e. the last request).
pub(super) fn sent_response(run: &LoopRun, which: usize) -> Option<Value> {
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
pub(super) fn response_named(sent: &Sent, name: &str) -> Option<Value> {
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
pub(super) fn carries(text: &str, payload: &Value) -> bool {
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

pub(super) fn is_parse_failure(e: &JavaException) -> bool {
    e.message
        .as_deref()
        .is_some_and(|m| m.starts_with("Failed to parse JSON"))
}

/// `DefaultToolCallingManager.executeToolCall`'s refusal of a name no
/// callback answers to: by design, whatever the configuration.
pub(super) fn is_unresolved_tool(e: &JavaException) -> bool {
    e.class == toolcall_model::model::ILLEGAL_STATE
        && e.message
            .as_deref()
            .is_some_and(|m| m.starts_with("No ToolCallback found for tool name: "))
}

/// Whether the setup asked for `e` to reach the caller.
pub(super) fn configured(setup: &Setup, e: &JavaException) -> bool {
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

pub(super) fn clip(s: &str, n: usize) -> String {
    match cut(s, n, n.saturating_sub(1)) {
        None => s.to_owned(),
        Some((head, _)) => format!("{head}…"),
    }
}

/// One scenario made concrete for a setup and a behaviour set: what
/// [`evaluate`](super::evaluate) plays. Public so that the verification machinery can judge the
/// very same turn with its invariants (no verdict of `check` may call a
/// set safe where an invariant is refuted on this turn).
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioScript {
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
/// [`CheckScenario::UnknownTool`].
///
/// ```
/// use toolcall_check::config::{evaluate, Mark, CheckScenario, Setup, UNKNOWN_TOOL_NAME};
/// use toolcall_model::model::behavior_sets;
/// let v = evaluate(&Setup::default(), &behavior_sets()[0], CheckScenario::UnknownTool);
/// assert_eq!(v.mark, Mark::Raised);
/// assert!(v.detail.contains(UNKNOWN_TOOL_NAME));
/// ```
pub const UNKNOWN_TOOL_NAME: &str = "getWether";

/// The turn `scenario` plays on `setup` under `set`; `Err` with the reason
/// when it is not played (no limit to breach, one too large to play, a
/// total limit below the long turn).
///
/// ```
/// use toolcall_check::config::{script, CheckScenario, Setup};
/// use toolcall_model::model::behavior_sets;
/// let up = behavior_sets()[0];
/// // The default limits (40 per tool) are breached at call 41.
/// let s = script(&Setup::default(), &up, CheckScenario::BreachThenRound).unwrap();
/// assert_eq!(s.model[0][0].tool_calls.len(), 41);
/// assert_eq!(s.model.len(), 3);
/// ```
pub fn script(
    setup: &Setup,
    set: &BehaviorSet,
    scenario: CheckScenario,
) -> Result<ScenarioScript, String> {
    let config = setup.loop_config(set);
    let history = vec![Message::user("What is the weather?")];
    let (tools, model, watch) = match scenario {
        CheckScenario::BreachOneRound
        | CheckScenario::BreachAcrossRounds
        | CheckScenario::BreachThenRound => breach(setup, scenario)?,
        CheckScenario::PlainText
        | CheckScenario::HalfJson
        | CheckScenario::EmptyText
        | CheckScenario::NullResult => {
            let Some(name) = setup.tool_output.text_tool() else {
                return Err("every tool returns JSON (--tools json): not played".into());
            };
            let text = scenario.tool_text().flatten();
            let tools = vec![ToolSpec {
                outcomes: vec![Outcome::Returns(text.map(Into::into))],
                ..ToolSpec::returning(name, "")
            }];
            one_call(setup, tools, name)
        }
        CheckScenario::ToolThrows => {
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
            one_call(setup, tools, "weather")
        }
        CheckScenario::UnknownTool => one_call(
            setup,
            vec![ToolSpec::returning("weather", "{\"temp\":22}")],
            UNKNOWN_TOOL_NAME,
        ),
        CheckScenario::TextAndCall => {
            let tools = vec![ToolSpec::returning("weather", "{\"temp\":22}")];
            let mut reply = reply_text("Let me check.");
            reply.extend(reply_calls(calls("call", "weather", 1)));
            (tools, vec![reply, reply_text("Done.")], 1)
        }
        CheckScenario::Runaway => return runaway(setup, config, history),
        CheckScenario::LongTurn => long_turn(setup)?,
    };
    Ok(ScenarioScript {
        config,
        tools,
        history,
        model,
        watch,
    })
}

/// A scenario's tools, its scripted model replies, and which request
/// carries the tool response the scenario is about.
type Played = (Vec<ToolSpec>, Vec<Vec<Generation>>, usize);

/// A tool's output, then one more round (another tool, returning JSON)
/// before the answer: agents go on calling tools, and what a rewriting
/// advisor fixed in one request is raw again in the next.
fn one_call(setup: &Setup, mut tools: Vec<ToolSpec>, name: &str) -> Played {
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
}

/// The three breach scenarios: the smallest limit's tool called once past
/// its limit in one round, across rounds, or in one round followed by a
/// round of another tool.
fn breach(setup: &Setup, scenario: CheckScenario) -> Result<Played, String> {
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
    Ok(match scenario {
        CheckScenario::BreachOneRound => (
            tools,
            vec![
                reply_calls(calls("call", &tool, n + 1)),
                reply_text("Done."),
            ],
            1,
        ),
        CheckScenario::BreachThenRound => {
            // Another tool, one call: within its own limit (every limit is
            // at least 1).
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
    })
}

/// The runaway scenario: the model calls the same tool for ever.
fn runaway(
    setup: &Setup,
    mut config: LoopConfig,
    history: Vec<Message>,
) -> Result<ScenarioScript, String> {
    // The turn must end within the limit's calls and two more model calls
    // (docs/INVARIANTS.md, turn-ends): the loop's guard is set one past
    // that, so that a turn that goes on is caught there, not after 1000
    // calls. Without a limit to bound it, a probe.
    let target = breach_target(&setup.limits).filter(|_| setup.version.has_limits());
    let (tool, bound) = match target {
        Some((tool, n)) if n > MAX_PLAYED_LIMIT => {
            return Err(format!(
                "the smallest limit ({n}, tool '{tool}') is past {MAX_PLAYED_LIMIT} calls: not played"
            ));
        }
        Some((tool, n)) => (tool, n as usize + 2),
        None => ("weather".to_owned(), RUNAWAY_PROBE),
    };
    config.repeat_last = true;
    config.max_rounds = bound + 1;
    Ok(ScenarioScript {
        config,
        tools: vec![ToolSpec::returning(&tool, "{\"temp\":22}")],
        history,
        model: vec![reply_calls(calls("call", &tool, 1))],
        watch: 1,
    })
}

/// The long turn: one call per round, each to a tool of its own (within
/// any per-tool limit).
fn long_turn(setup: &Setup) -> Result<Played, String> {
    if let Max::Limited(n) = setup.limits.max_total
        && (n as usize) < LONG_TURN_ROUNDS
    {
        return Err(format!(
            "the total limit ({n}) is below {LONG_TURN_ROUNDS} calls: not played"
        ));
    }
    let name = |r: usize| format!("step{r}");
    let tools = (1..=LONG_TURN_ROUNDS)
        .map(|r| ToolSpec::returning(&name(r), "{\"temp\":22}"))
        .collect();
    let mut model: Vec<_> = (1..=LONG_TURN_ROUNDS)
        .map(|r| reply_calls(calls(&format!("r{r}"), &name(r), 1)))
        .collect();
    model.push(reply_text("Done."));
    Ok((tools, model, LONG_TURN_ROUNDS))
}

/// A tool name none of `taken` is and no override or exclusion names: it
/// stands for any other tool, under the default per-tool limit.
pub(super) fn other_tool(limits: &ToolCallLimits, taken: &[&str]) -> String {
    let mut other = "weather".to_owned();
    while taken.contains(&other.as_str())
        || limits.overrides.contains_key(&other)
        || limits.excluded.contains(&other)
    {
        other.push('x');
    }
    other
}
