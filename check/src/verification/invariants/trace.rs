//! The trace: every batch of the turn replayed through the manager's step
//! engine ([`Batch::call`](toolcall_model::model::Batch::call)), call by call.
//!
//! A replay reads only the manager's configuration, the tools, the turn
//! history and the replies, so the evidences of one scenario under
//! behaviour sets that the manager sees alike share one ([`Replays`]), and
//! with it the verdicts of the judges that read nothing else.

use std::cell::{OnceCell, RefCell};
use std::rc::Rc;

use crate::verification::scenario::Scenario;
use toolcall_model::model::SharedList;
use toolcall_model::model::{
    Batch, Config, ExecResult, LimitExceeded, ManagerError, Step, answered_generation,
    execute_with_counts,
};
use toolcall_model::model::{Breach, Counts};
use toolcall_model::model::{Invocation, Toolbox};
use toolcall_model::model::{Message, ToolCall};

use super::Judged;

/// What one call of a batch did, as [`Batch::call`] and
/// [`toolcall_model::model::Pending::complete`] reported it, with the batch's counts
/// after the step (when the batch goes on).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum CallEvent {
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
    /// No such tool; the exception processor answered the call
    /// (`unknown-tool-to-processor`).
    Missing {
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
pub(crate) enum RoundEnd {
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
pub(crate) struct Round {
    /// The history the batch ran on.
    pub history: Vec<Message>,
    /// The counts the batch started from.
    pub before: Counts,
    /// The batch's calls (the reply's list, shared).
    pub calls: SharedList<ToolCall>,
    /// One event per call reached.
    pub events: Vec<CallEvent>,
    /// How the batch ended.
    pub end: RoundEnd,
    /// Whether `execute_with_counts` (the loop's driver) gave the same
    /// result and invocations; the difference otherwise.
    pub driver: Result<(), String>,
    /// How many tools the replay had invoked once the batch ended (its own
    /// and the earlier batches'): [`Trace::invocations`] up to here.
    pub invoked: usize,
}

/// The turn's batches replayed step by step, as the loop ran them.
#[derive(Debug, Clone)]
pub(crate) struct Trace {
    replayed: Rc<Replayed>,
    /// Whether the replay invoked the tools exactly as the loop did.
    pub mirror: Result<(), String>,
}

impl Trace {
    /// The batches, in order.
    pub(crate) fn rounds(&self) -> &[Round] {
        &self.replayed.rounds
    }

    /// The tools the replay invoked, in order ([`Round::invoked`] says
    /// where each batch's end).
    pub(crate) fn invocations(&self) -> &[Invocation] {
        &self.replayed.invocations
    }

    /// The verdict of the trace-only judge `judge` (one of the `*_JUDGE`
    /// slots), judged once for every evidence sharing this replay: such a
    /// judge reads the replay and the parts of the scenario that every
    /// sharer has alike (see [`Replays`]).
    pub(super) fn judged(&self, judge: usize, f: impl FnOnce() -> Judged) -> Judged {
        self.replayed.judged[judge].get_or_init(f).clone()
    }
}

/// The slots of the judges whose verdict the sharers of a replay have in
/// common.
pub(super) const ONE_RESPONSE_JUDGE: usize = 0;
pub(super) const LIMITS_JUDGE: usize = 1;
pub(super) const COUNTING_JUDGE: usize = 2;
pub(super) const JSON_SAFE_JUDGE: usize = 3;

/// One replay, with the replay's own invocations (each sharer compares
/// them with its loop's) and the shared verdicts.
#[derive(Debug)]
struct Replayed {
    rounds: Vec<Round>,
    invocations: Vec<Invocation>,
    judged: [OnceCell<Judged>; 4],
}

/// The replays of one scenario's turn, shared between the evidences of
/// that scenario under behaviour sets of one class: sets under which the
/// manager runs alike (the fixes it reads are the same) and the turn starts
/// from the same history. The caller names the class; a replay is shared
/// by the evidences of one class whose loops made as many model calls.
/// The trace-only judges (one response per call but for its mirror check,
/// the limits, the counting but for the loop's own final counts, JSON-safe)
/// read, besides the replay, only the manager's limits and processor, the
/// breach fix, the tools and the turn history, which such sets have alike.
///
/// ```
/// use toolcall_check::verification::invariants::{check, Evidence, Invariant, Replays};
/// use toolcall_check::verification::scenario::Scenario;
/// use toolcall_model::{model::{Generation, Message, ToolCall}, chat::LoopConfig, model::ToolSpec};
/// let s = Scenario { config: LoopConfig::new(Default::default()), tools: vec![ToolSpec::returning("x", "1")],
///     history: vec![Message::user("hi")], model: vec![
///         vec![Generation { tool_calls: vec![ToolCall::new("1", "x", "{}")].into(), ..Default::default() }],
///         vec![Generation { text: Some("done".into()), ..Default::default() }]] };
/// let replays = Replays::default();
/// let shared = Evidence::gather(&s).unwrap().sharing(&replays, 0);
/// let alone = Evidence::gather(&s).unwrap();
/// assert_eq!(check(Invariant::Counting, &shared), check(Invariant::Counting, &alone));
/// assert_eq!(replays.len(), 1);
/// ```
#[derive(Debug, Default)]
pub struct Replays {
    done: RefCell<Vec<(ReplayKey, Rc<Replayed>)>>,
}

/// A replay's class and the model calls it covers.
type ReplayKey = (u64, usize);

impl Replays {
    /// How many replays were made.
    pub fn len(&self) -> usize {
        self.done.borrow().len()
    }

    /// Whether none was.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn get(&self, class: u64, model_calls: usize, make: impl FnOnce() -> Replayed) -> Rc<Replayed> {
        let key = (class, model_calls);
        if let Some((_, r)) = self.done.borrow().iter().find(|(k, _)| *k == key) {
            return Rc::clone(r);
        }
        let r = Rc::new(make());
        self.done.borrow_mut().push((key, Rc::clone(&r)));
        r
    }
}

/// The trace of `scenario`'s first `model_calls` batches against the loop's
/// toolbox, replayed anew or taken from `shared` (a [`Replays`] and the
/// caller's class).
pub(super) fn trace(
    scenario: &Scenario,
    model_calls: usize,
    loop_toolbox: &Toolbox,
    shared: Option<(&Replays, u64)>,
) -> Trace {
    let replayed = match shared {
        Some((replays, class)) => replays.get(class, model_calls, || {
            replay(scenario, model_calls, loop_toolbox)
        }),
        None => Rc::new(replay(scenario, model_calls, loop_toolbox)),
    };
    let mirror = if replayed.invocations == loop_toolbox.invocations() {
        Ok(())
    } else {
        Err(format!(
            "replaying the turn's batches through the manager invoked {} tool(s), the loop {}",
            replayed.invocations.len(),
            loop_toolbox.invocations().len()
        ))
    };
    Trace { replayed, mirror }
}

/// The replay, on a toolbox of its own over the scenario's tools: shared
/// with `loop_toolbox` when it holds them (the loop ran the scenario),
/// rather than copied.
fn replay(scenario: &Scenario, model_calls: usize, loop_toolbox: &Toolbox) -> Replayed {
    let cfg = &scenario.config.manager;
    // As the manager looks a name up: 2.0.0 and 1.1 always ask the resolver.
    let fallback = cfg.resolves();
    let mut tb = if loop_toolbox.tools() == scenario.tools.as_slice() {
        loop_toolbox.fresh()
    } else {
        Toolbox::new(scenario.tools.clone())
    };
    // The driver's toolbox runs alongside the step engine's, equal to it at
    // the start of every batch (set back to it after a batch where they
    // part), rather than copied from it once a batch.
    let mut driver_tb = tb.clone();
    let mut full = scenario.turn_history().into_owned();
    let mut counts = Counts::recount(&full);
    let mut rounds = Vec::new();
    // A streamed turn goes on with each reply's aggregate; a repeating
    // model with its last reply, for ever.
    let scripted = scenario.replies();
    let repeated = scenario
        .config
        .repeat_last
        .then(|| scripted.last())
        .flatten();
    let replies = scripted
        .iter()
        .chain(std::iter::repeat(repeated).map_while(|r| r));
    for reply in replies.take(model_calls) {
        let Some(answered) = answered_generation(reply) else {
            break;
        };
        let assistant = answered.to_message();
        let calls = answered.tool_calls.clone();
        let driven =
            execute_with_counts(cfg, with_room(&full), reply, counts.clone(), &mut driver_tb);
        let stepped = step_calls(Batch::new(counts.clone()), &calls, cfg, &mut tb, fallback);
        let events = stepped.events;
        let ends_turn = Batch::ends_turn(cfg, &full, &calls, &counts);
        let end = end_round(stepped.stop, &calls, &full, assistant, ends_turn, cfg);
        let (same, driver) = same_as_driver(&driven, &end, &mut driver_tb, &tb);
        // Where the driver agrees, its own result is the next round's start
        // (taken, not copied).
        let next = match (&end, driven) {
            (RoundEnd::Done { result, .. }, Ok((r, c))) if same && !result.return_direct => {
                Some((r.history, c))
            }
            (RoundEnd::Done { result, counts }, _) if !result.return_direct => {
                Some((result.history.clone(), counts.clone()))
            }
            _ => None,
        };
        rounds.push(Round {
            history: std::mem::take(&mut full),
            before: std::mem::take(&mut counts),
            calls,
            events,
            end,
            driver,
            invoked: tb.invocations().len(),
        });
        match next {
            Some((h, c)) => {
                full = h;
                counts = c;
            }
            None => break,
        }
    }
    Replayed {
        rounds,
        invocations: tb.take_invocations(),
        judged: Default::default(),
    }
}

/// What the step engine did with a batch's calls: each call's event, and
/// where the batch stopped.
struct Stepped {
    events: Vec<CallEvent>,
    stop: Stop,
}

/// Where a batch's calls stopped.
enum Stop {
    /// A call ended the round.
    Ended(RoundEnd),
    /// A breach under THROW at the call of this index, to be thrown.
    Thrown(Batch, Breach, usize),
    /// Every call ran: the batch, to be finished.
    Held(Batch),
}

/// Steps `calls` through the batch `b` as the manager's step engine runs
/// them, invoking the tools of `tb`.
fn step_calls(
    b: Batch,
    calls: &[ToolCall],
    cfg: &Config,
    tb: &mut Toolbox,
    fallback: bool,
) -> Stepped {
    let mut batch = Some(b);
    let mut events = Vec::with_capacity(calls.len());
    let mut end = None;
    // A breach under THROW: the batch, the breach and the call's index,
    // ended by the caller, where the assistant message is moved, not copied.
    let mut thrown = None;
    for (i, call) in calls.iter().enumerate() {
        let Some(b) = batch.take() else { break };
        match b.call(call, cfg, |n| tb.find(n, fallback)) {
            Step::Answered(b) => {
                events.push(CallEvent::Answered {
                    counts: b.counts().clone(),
                });
                batch = Some(b);
            }
            Step::Missing(b) => {
                events.push(CallEvent::Missing {
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
                thrown = Some((b, breach, i));
                break;
            }
            Step::Failed(e) => {
                events.push(CallEvent::Failed(e.clone()));
                end = Some(RoundEnd::Failed(e));
                break;
            }
        }
    }
    let stop = match (end, thrown, batch) {
        (Some(e), _, _) => Stop::Ended(e),
        (None, Some((b, breach, i)), _) => Stop::Thrown(b, breach, i),
        (None, None, Some(b)) => Stop::Held(b),
        (None, None, None) => unreachable!("a batch that did not end is still held"),
    };
    Stepped { events, stop }
}

/// How the round ends: the end a call met, else the breach thrown, else
/// the batch finished on `history` (a breach `ends_turn` still ends the
/// turn there).
fn end_round(
    stop: Stop,
    calls: &[ToolCall],
    history: &[Message],
    assistant: Message,
    ends_turn: Option<(usize, Breach)>,
    cfg: &Config,
) -> RoundEnd {
    match stop {
        Stop::Ended(e) => e,
        Stop::Thrown(b, breach, i) => RoundEnd::Limit(Box::new(b.throw(
            breach,
            &calls[i + 1..],
            with_room(history),
            assistant,
            cfg,
        ))),
        Stop::Held(b) => {
            let (result, after) = b.finish(with_room(history), assistant);
            match ends_turn {
                Some((breach_index, breach)) => RoundEnd::Limit(Box::new(LimitExceeded {
                    breach,
                    partial: result,
                    breach_index,
                    counts: after,
                })),
                None => RoundEnd::Done {
                    result,
                    counts: after,
                },
            }
        }
    }
}

/// Whether the driver `execute_with_counts` ended the batch as the step
/// engine did (`same`), and the driver's verdict on the batch and the
/// tools; the driver's toolbox is set back to the engine's where they part.
fn same_as_driver(
    driven: &Result<(ExecResult, Counts), ManagerError>,
    end: &RoundEnd,
    driver_tb: &mut Toolbox,
    tb: &Toolbox,
) -> (bool, Result<(), String>) {
    let same = match (driven, end) {
        (Ok((r, c)), RoundEnd::Done { result, counts }) => r == result && c == counts,
        (Err(ManagerError::LimitExceeded(a)), RoundEnd::Limit(b)) => a == b,
        (Err(a), RoundEnd::Failed(b)) => a == b,
        _ => false,
    };
    let same_tools = *driver_tb == *tb;
    if !same_tools {
        driver_tb.clone_from(tb);
    }
    let driver = if !same {
        Err("execute_with_counts and the step engine end the batch differently".to_owned())
    } else if !same_tools {
        Err("execute_with_counts and the step engine invoke the tools differently".to_owned())
    } else {
        Ok(())
    };
    (same, driver)
}

/// A copy of a batch's history with room for the two messages the batch
/// appends, so that ending the batch does not copy it again.
fn with_room(history: &[Message]) -> Vec<Message> {
    let mut copy = Vec::with_capacity(history.len() + 2);
    copy.extend_from_slice(history);
    copy
}
