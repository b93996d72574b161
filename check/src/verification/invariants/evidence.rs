//! What the judges look at: one turn run through the tool loop, with its
//! trace and the messages each request was built from, gathered once.

use std::borrow::Cow;
use std::cell::OnceCell;

use crate::verification::scenario::Scenario;
use toolcall_model::chat::{LoopError, LoopRun, Memory, Provider, RequestMessages, Sent};
use toolcall_model::gemini::build_request;
use toolcall_model::model::Fixes;
use toolcall_model::model::Message;
use toolcall_model::model::Toolbox;

use super::judgements::Judgements;
use super::trace::{Replays, Trace, trace};
use crate::verification::oracle::RefCounts;

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
    /// The model repeats its last reply (`repeat_last`) and the turn was
    /// still going at its bound (`crate::verification::turn_bound::turn_bound`, or, where the limits
    /// bound nothing, a probe of twice the script and 8 more): `run` is then
    /// the turn cut off there (the model answering with text at the next
    /// call), for `turn-ends` alone, instead of running to the loop's guard.
    pub runaway: bool,
    pub(super) trace: OnceCell<Trace>,
    /// Where the replay is shared, and this evidence's class there.
    shared: Option<(&'a Replays, u64)>,
    /// The messages of each request the run tried to send, as it recorded
    /// them.
    recorded: Option<RequestMessages>,
    /// The requests' messages of the same turn run with provider `none`,
    /// where the record does not hold them all.
    messages: OnceCell<Option<Vec<Vec<Message>>>>,
    /// The reference counts of the turn history, which the limits and
    /// counting judges both start from.
    start_counts: OnceCell<RefCounts>,
    /// The conversation the turn starts from (with a memory, what the
    /// memory makes of the request).
    conversation: OnceCell<Cow<'a, [Message]>>,
    /// Whether the memory holds the conversation so far: the precondition
    /// three judges share.
    memory_holds: OnceCell<bool>,
    /// What the payload judges learned of texts, shared with the caller's
    /// other evidences.
    judgements: Option<&'a Judgements>,
}

impl<'a> Evidence<'a> {
    /// Runs the scenario. Fails only if the scenario is not a valid turn
    /// (its model script ran out).
    ///
    /// ```
    /// use toolcall_check::{verification::invariants::Evidence, verification::scenario::Scenario};
    /// use toolcall_model::{model::Message, chat::LoopConfig};
    /// let s = Scenario { config: LoopConfig::new(Default::default()), tools: vec![],
    ///     history: vec![Message::user("hi")], model: vec![] };
    /// assert!(Evidence::gather(&s).is_err()); // no reply scripted
    /// ```
    pub fn gather(scenario: &'a Scenario) -> Result<Self, LoopError> {
        if scenario.config.repeat_last
            && let Some(cut) = Self::cut_off(scenario)?
        {
            return Ok(cut);
        }
        if scenario.config.provider == Provider::None {
            return Self::gather_with_second_run(scenario);
        }
        // The Gemini run records the request messages as it goes, so the
        // provider-none run is needed only where a conversion ended it.
        let (run, toolbox, messages) = scenario.run_with_messages()?;
        Ok(Self::of_run(scenario, run, toolbox, Some(messages)))
    }

    /// The evidence of a run the caller already made: `run` and `toolbox`
    /// from [`Scenario::run`] or [`Scenario::run_with_messages`] of
    /// `scenario`, with the latter's request messages if it has them (else
    /// they are taken, when asked for, from a run with provider `none`;
    /// give none for a run with provider `none`, whose requests are them).
    /// A fuzz target that runs the scenario for its own checks judges the
    /// invariants on that run instead of running it again.
    #[doc(hidden)]
    pub(crate) fn of_run(
        scenario: &'a Scenario,
        run: LoopRun,
        toolbox: Toolbox,
        messages: Option<RequestMessages>,
    ) -> Self {
        Evidence {
            scenario,
            run,
            toolbox,
            runaway: false,
            trace: OnceCell::new(),
            shared: None,
            recorded: messages,
            messages: OnceCell::new(),
            start_counts: OnceCell::new(),
            conversation: OnceCell::new(),
            memory_holds: OnceCell::new(),
            judgements: None,
        }
    }

    /// A repeating model's turn run up to its bound: `None` when it ends
    /// before (the ordinary run then describes it), else the cut-off
    /// evidence ([`Evidence::runaway`]).
    fn cut_off(scenario: &'a Scenario) -> Result<Option<Self>, LoopError> {
        let guard = scenario.config.max_rounds;
        let bound = crate::verification::turn_bound::turn_bound(&scenario.config, &scenario.model)
            .unwrap_or_else(|| scenario.model.len().saturating_mul(2).saturating_add(8));
        if bound >= guard {
            return Ok(None);
        }
        let mut capped = scenario.clone();
        capped.config.max_rounds = bound;
        match capped.run() {
            Err(LoopError::TooManyRounds(_)) => {}
            _ => return Ok(None),
        }
        // The same turn with the model answering in text at the call past
        // the bound: what the other drivers can read of it.
        let mut cut = scenario.clone();
        cut.config.repeat_last = false;
        cut.model = replies(scenario, bound);
        cut.model.push(vec![toolcall_model::model::Generation {
            text: Some("(cut off)".into()),
            ..Default::default()
        }]);
        let (run, toolbox, messages) = cut.run_with_messages()?;
        Ok(Some(Evidence {
            runaway: true,
            ..Self::of_run(scenario, run, toolbox, Some(messages))
        }))
    }

    /// As [`Evidence::gather`], with the request messages of a Gemini run
    /// always taken from a second run with provider `none` (the evaluator
    /// as it was, kept for the test that compares the two). A repeating
    /// model's turn is cut off at its bound as there.
    #[doc(hidden)]
    pub(crate) fn gather_with_second_run(scenario: &'a Scenario) -> Result<Self, LoopError> {
        if scenario.config.repeat_last
            && let Some(cut) = Self::cut_off(scenario)?
        {
            return Ok(Evidence {
                messages: OnceCell::new(),
                ..cut
            });
        }
        let (run, toolbox) = scenario.run()?;
        Ok(Self::of_run(scenario, run, toolbox, None))
    }

    /// The evidence taking its replay (and the verdicts of the judges that
    /// read only the replay) from `replays`, as one of class `class` there:
    /// the caller's promise that every evidence of `replays` under one class
    /// comes from the same scenario under behaviour sets that the manager
    /// sees alike, with the same turn history (see [`Replays`]).
    pub fn sharing(self, replays: &'a Replays, class: u64) -> Self {
        Evidence {
            shared: Some((replays, class)),
            ..self
        }
    }

    /// The evidence judging its payloads with what `judgements` learned of
    /// texts before, and adding what it learns (see [`Judgements`]).
    pub(crate) fn judging(self, judgements: &'a Judgements) -> Self {
        Evidence {
            judgements: Some(judgements),
            ..self
        }
    }

    pub(super) fn judgements(&self) -> Option<&'a Judgements> {
        self.judgements
    }

    /// Every batch of the turn replayed through the step engine.
    pub(crate) fn trace(&self) -> &Trace {
        self.trace.get_or_init(|| {
            trace(
                self.scenario,
                self.run.requests.len(),
                &self.toolbox,
                self.shared,
            )
        })
    }

    /// The message list each model call received (after the advisor and
    /// the memory), taken from the same turn run with provider `none`, which
    /// does not stop where a Gemini conversion fails. `None` if that run
    /// failed.
    pub fn request_messages(&self) -> Option<&[Vec<Message>]> {
        if let Some(r) = self.recorded.as_ref().filter(|r| !r.unconverted) {
            return Some(&r.attempted);
        }
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
                    // A repeating model's replies, as many as the Gemini
                    // run took, then the final answer.
                    s.model = replies(self.scenario, self.run.requests.len());
                    s.config.repeat_last = false;
                    // The script bounds this run; a repeating model's guard
                    // (just past its bound) would stop it short of the
                    // final answer.
                    s.config.max_rounds = s.config.max_rounds.max(s.model.len() + 1);
                    s.model.push(vec![toolcall_model::model::Generation {
                        text: Some("(end)".into()),
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

    /// The message list of each request the loop tried to send: those of
    /// [`Evidence::request_messages`] up to [`Evidence::attempted`]. The
    /// run's own record holds them (the one whose conversion failed
    /// included), so no second run is made where the run recorded them.
    pub(crate) fn attempted_messages(&self) -> Option<&[Vec<Message>]> {
        if let Some(r) = &self.recorded {
            return Some(&r.attempted);
        }
        let all = self.request_messages()?;
        if self.scenario.config.provider == Provider::None {
            return Some(all);
        }
        Some(&all[..self.attempted().min(all.len())])
    }

    /// How many requests the loop tried to send: the built ones, plus the
    /// one whose conversion failed, if any.
    pub(crate) fn attempted(&self) -> usize {
        if let Some(r) = &self.recorded {
            return r.attempted.len();
        }
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

    /// The reference counts of the turn history the batches start from
    /// (docs/BEHAVIOUR.md section 3.1).
    pub(super) fn start_counts(&self) -> &RefCounts {
        self.start_counts
            .get_or_init(|| RefCounts::of(self.turn_history()))
    }

    /// [`Scenario::conversation`], computed once.
    pub(super) fn conversation(&self) -> &[Message] {
        self.conversation
            .get_or_init(|| self.scenario.conversation())
    }

    /// [`Scenario::turn_history`], computed once: with a memory outside
    /// the loop it is the conversation.
    pub(super) fn turn_history(&self) -> &[Message] {
        match self.scenario.config.memory {
            Memory::Outside => self.conversation(),
            _ => &self.scenario.history,
        }
    }

    /// [`super::memory_holds_conversation`], asked once.
    pub(super) fn memory_holds_conversation(&self) -> bool {
        *self
            .memory_holds
            .get_or_init(|| super::memory_holds_conversation(self.scenario).is_ok())
    }

    pub(super) fn fixes(&self) -> Fixes {
        self.scenario.config.manager.fixes
    }

    /// The request built from memory after the turn, as messages.
    pub(super) fn next_turn(&self) -> Vec<Message> {
        let mut next = Vec::with_capacity(self.run.memory.len() + 1);
        next.extend_from_slice(&self.run.memory);
        next.push(Message::user("next question"));
        next
    }
}

/// The scenario's first `n` model replies, its last repeated past its
/// script when the model repeats it (at least the script itself).
fn replies(scenario: &Scenario, n: usize) -> Vec<Vec<toolcall_model::model::Generation>> {
    let mut out = scenario.model.clone();
    if scenario.config.repeat_last
        && let Some(last) = scenario.model.last()
    {
        while out.len() < n {
            out.push(last.clone());
        }
    }
    out
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.
    #[test]
    fn example_judging() {
        use crate::verification::invariants::Invariant;
        use crate::verification::invariants::check;
        use crate::verification::invariants::evidence::Evidence;
        use crate::verification::invariants::judgements::Judgements;
        use crate::verification::scenario::Scenario;
        use toolcall_model::model::ToolSpec;
        // Upstream reads "3.0 + 5.0 = 8.0" as the number 3.0: not recoverable.
        let s = Scenario::one_call(ToolSpec::returning("x", "3.0 + 5.0 = 8.0"));
        let judgements = Judgements::default();
        let alone = check(Invariant::Lossless, &Evidence::gather(&s).unwrap());
        assert!(alone.is_refuted());
        for _ in 0..2 {
            let ev = Evidence::gather(&s).unwrap().judging(&judgements);
            assert_eq!(check(Invariant::Lossless, &ev), alone);
        }
    }

    #[test]
    fn example_attempted_messages() {
        use crate::verification::{invariants::Evidence, scenario::Scenario};
        use toolcall_model::chat::LoopConfig;
        use toolcall_model::model::{Generation, Message, ToolCall, ToolSpec};
        // Upstream cannot convert the plain-text response: the second request fails.
        let s = Scenario {
            config: LoopConfig::default(),
            tools: vec![ToolSpec::returning("x", "disk full")],
            history: vec![Message::user("hi")],
            model: vec![vec![Generation {
                tool_calls: vec![ToolCall::new("1", "x", "{}")].into(),
                ..Default::default()
            }]],
        };
        let ev = Evidence::gather(&s).unwrap();
        assert_eq!(ev.attempted_messages().unwrap().len(), 2);
        assert_eq!(ev.attempted(), 2);
    }
}
