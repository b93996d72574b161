//! A scenario played and judged: the turn, the next turn built from the
//! memory, and the mark when the setup does not survive.

use serde_json::Value;

use super::script::{
    ScenarioScript, carries, clip, configured, is_parse_failure, is_unresolved_tool,
    response_named, script, sent_response,
};
use super::{CheckScenario, CheckVerdict, Mark, Setup};
use toolcall_model::chat::{EndKind, LoopError, LoopRun, Memory, Provider, Sent, run_loop};
use toolcall_model::gemini::{Refusal, Rejection, Rule};
use toolcall_model::model::BehaviorSet;
use toolcall_model::model::JavaException;
use toolcall_model::model::Toolbox;
use toolcall_model::model::{Generation, Message, answered};

/// Plays `scenario` on `setup` under `set`.
///
/// ```
/// use toolcall_check::config::{evaluate, Mark, CheckScenario, Setup};
/// use toolcall_model::model::behavior_sets;
/// let upstream = behavior_sets()[0];
/// let v = evaluate(&Setup::default(), &upstream, CheckScenario::HalfJson);
/// assert_eq!(v.mark, Mark::Lost); // {"result":3.0}
/// ```
pub fn evaluate(setup: &Setup, set: &BehaviorSet, scenario: CheckScenario) -> CheckVerdict {
    let mut verdict = CheckVerdict {
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
            verdict.detail = if setup.version.has_limits() {
                format!(
                    "the turn never ends: the model, repeating its call, was called {n} times, past what the limits bound ({} model calls), and the loop calls it again",
                    n.saturating_sub(1)
                )
            } else {
                // No limit to name: the count is the model's own guard.
                format!(
                    "the turn never ends: the model, repeating its call, was called {n} times and the loop calls it again: Spring AI {} has no tool call limits to bound it",
                    setup.version.name()
                )
            };
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
pub(super) struct Played {
    /// What the loop did.
    run: LoopRun,
    /// The user's question, which every request should hold.
    question: Message,
    /// The tool whose output the scenario watches (the first one).
    watched_tool: Option<toolcall_model::model::SharedStr>,
    /// Which request carries the tool response the scenario is about.
    watch: usize,
    /// The scripted model replies.
    model: Vec<Vec<Generation>>,
}

/// Why a scenario was not played.
pub(super) enum Unplayed {
    /// It does not apply to the setup (the reason why).
    NotApplicable(String),
    /// The repeating model was still called at the loop's guard (this many
    /// model calls), past what the limits bound.
    Runaway(usize),
    /// Its own script failed, not the setup.
    Fault(toolcall_model::chat::LoopError),
}

/// Plays `scenario`'s turn on `setup` under `set`.
pub(super) fn play(
    setup: &Setup,
    set: &BehaviorSet,
    scenario: CheckScenario,
) -> Result<Played, Unplayed> {
    let ScenarioScript {
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
        // On 1.1, what only ToolCallingAdvisor has (the seed's advisor
        // inside the loop), and a streamed round whose order Java leaves
        // to its scheduler: the scenario does not apply, with the reason.
        e @ (LoopError::NotApplicable { .. } | LoopError::Unordered { .. }) => {
            Unplayed::NotApplicable(e.to_string())
        }
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
pub(super) fn next_turn(setup: &Setup, run: &LoopRun) -> Option<Result<(), NextRefused>> {
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
pub(super) fn judge_turn(
    setup: &Setup,
    scenario: CheckScenario,
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
pub(super) fn dropped_call(played: &Played) -> Option<String> {
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
pub(super) fn first_rejected(run: &LoopRun) -> Option<(usize, String)> {
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
pub(super) fn first_forgetful(run: &LoopRun, question: &Message) -> Option<usize> {
    run.requests.iter().zip(1..).find_map(|(r, i)| match r {
        Sent::Messages(m) => (!m.iter().any(|x| **x == *question)).then_some(i),
        Sent::Gemini(_) => None,
    })
}

/// The mark of an exception that reached the caller.
pub(super) fn error_mark(setup: &Setup, e: &JavaException) -> (Mark, String) {
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
pub(super) fn lost_output(scenario: CheckScenario, played: &Played) -> Option<String> {
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
pub(super) fn with_next_turn(
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
pub(super) const UNANSWERED: &str = "a tool call is not answered by the next message";

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
