//! The trace: every batch of the turn replayed through the manager's step
//! engine ([`Batch::call`](crate::model::manager::Batch::call)), call by call.

use crate::checking::scenario::Scenario;
use crate::model::limits::Counts;
use crate::model::manager::{
    ends_turn_at_breach, execute_with_counts, tool_call_message, Batch, ExecResult, LimitExceeded,
    ManagerError, Step,
};
use crate::model::message::{Message, ToolCall};
use crate::model::tools::Toolbox;

use super::transcripts::turn_history;

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

pub(super) fn replay(scenario: &Scenario, model_calls: usize, loop_toolbox: &Toolbox) -> Trace {
    let cfg = &scenario.config.manager;
    let fallback = cfg.resolution_fallback;
    let mut tb = Toolbox::new(scenario.tools.clone());
    let mut full = turn_history(scenario);
    let mut counts = Counts::recount(&full);
    let mut rounds = Vec::new();
    let repeated = scenario
        .config
        .repeat_last
        .then(|| scenario.model.last())
        .flatten();
    let replies = scenario
        .model
        .iter()
        .chain(std::iter::repeat(repeated).map_while(|r| r));
    for reply in replies.take(model_calls) {
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
        let ends_turn = ends_turn_at_breach(cfg, &full, &calls, &counts);
        let end = match (end, batch) {
            (Some(e), _) => e,
            (None, Some(b)) => {
                let (result, after) = b.finish(full.clone(), assistant.clone());
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
