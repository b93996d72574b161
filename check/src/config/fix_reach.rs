//! Where a turn can feel each fix of the model's table ([`Felt`]): read by
//! the checker's footprint (`verification::footprint`, one rule per kind) and
//! by the versions' rule of which fixes act where
//! (`config::survival::spring_ai`), so it lives in the lower of the two
//! layers. One row per fix in an exhaustive match: a row added to the
//! model's table does not compile until it has its row here.

use toolcall_model::chat::{LoopConfig, Memory};
use toolcall_model::model::{Counts, Fix, Fixes, Generation, Message, OnExceeded, ToolSpec, scan};

/// Where a turn can feel a fix ([`FixReach::felt`]): the checker's
/// footprint (`verification::footprint`) has one rule per kind that
/// decides, from a scenario and from its evaluation, that a fix of that
/// kind changes nothing in the turn. A new fix read where an existing
/// kind's fixes are read takes that kind and needs no rule of its own.
///
/// ```
/// use toolcall_check::config::{Felt, FixReach};
/// use toolcall_model::model::Fix;
/// assert_eq!(Fix::ErrorKey.felt(), Felt::Conversion);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Felt {
    /// In the Gemini conversion of tool responses and call arguments
    /// (`gemini::convert`), and the judges through it.
    Conversion,
    /// At a breach (`Batch::call`, `Batch::throw`), and by the limits judge
    /// on a batch that failed without running a tool.
    Breach,
    /// Where a call's lookup finds no tool (`Batch::call`).
    MissingTool,
    /// Where a batch follows a breach under `RETURN_ERROR_RESPONSE`
    /// (`Batch::ends_turn`).
    SecondBreach,
    /// After a breach under `THROW` (`Batch::throw`), and where a batch ends
    /// the turn with the memory inside the loop (`BatchEnd::closing`).
    DanglingCalls,
    /// Where an add to the memory passes its window (`chat::memory`,
    /// `window_keep_cut`).
    WindowCut,
    /// Where the memory stores a reply with tool calls
    /// (`ChatMemory::after`).
    StoredReply,
}

/// Where a turn can feel a [`Fix`].
pub trait FixReach {
    /// Where a turn can feel it ([`Felt`]): the checker's footprint
    /// decides by this kind's rule that a scenario never feels it.
    ///
    /// ```
    /// use toolcall_check::config::{Felt, FixReach};
    /// use toolcall_model::model::Fix;
    /// assert_eq!(Fix::KeepCurrentTurn.felt(), Felt::WindowCut);
    /// ```
    fn felt(self) -> Felt;
}

impl FixReach for Fix {
    fn felt(self) -> Felt {
        match self {
            Fix::BreachThroughProcessor => Felt::Breach,
            Fix::StrictJsonOrWrap | Fix::ErrorKey => Felt::Conversion,
            Fix::Pr6907WrapOnFailure | Fix::Pr6049StrictWrap => Felt::Conversion,
            Fix::CloseDanglingCalls => Felt::DanglingCalls,
            Fix::StoreAnsweredGeneration => Felt::StoredReply,
            Fix::KeepCurrentTurn | Fix::EvictOrphanResponses => Felt::WindowCut,
            Fix::EndTurnAfterBreach => Felt::SecondBreach,
            Fix::UnknownToolToProcessor => Felt::MissingTool,
        }
    }
}

/// What of a turn decides which fixes its evaluation can feel, read once
/// for all the behaviour sets: the verification's generated
/// scenarios (`verification::footprint`, whose rules these are) and `check`'s
/// searches for the fewest fixes (`config::survival::remedy`), which play one
/// scenario under many sets of fixes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Footprint {
    memory: Memory,
    one_generation: bool,
    window_never_fills: bool,
    every_call_found: bool,
    no_breach: bool,
    ends_at_no_breach: bool,
}

impl Footprint {
    /// The footprint of the turn that `config` runs with `tools`, the
    /// request's `history` and the scripted `model`.
    pub(crate) fn of_turn(
        config: &LoopConfig,
        tools: &[ToolSpec],
        history: &[Message],
        model: &[Vec<Generation>],
    ) -> Self {
        let c = config;
        let resolves = c.manager.resolves();
        Footprint {
            memory: c.memory,
            one_generation: model.iter().all(|reply| reply.len() <= 1),
            window_never_fills: window_never_fills(c, model),
            every_call_found: calls(model).all(|name| scan(tools, name, resolves).is_some()),
            no_breach: no_breach(c, history, model),
            ends_at_no_breach: c.manager.limits.on_exceeded == OnExceeded::Throw
                || !c.manager.version.has_limits(),
        }
    }

    /// `fixes` without the fixes the scenario's evaluation cannot feel,
    /// each by the rule of its kind ([`FixReach::felt`]).
    pub(crate) fn felt(&self, fixes: Fixes) -> Fixes {
        // `unknown-tool-to-processor` can hand a missing tool to a
        // processor that throws, which the breach kind's rule reads.
        let missing_felt =
            fixes.contains(Fix::UnknownToolToProcessor) && self.can_feel(Felt::MissingTool, false);
        Fix::ALL
            .into_iter()
            .filter(|fix| fixes.contains(*fix) && self.can_feel(fix.felt(), missing_felt))
            .collect()
    }

    /// Whether a fix of kind `felt` can change the scenario's evaluation;
    /// `missing_felt`: whether `unknown-tool-to-processor` is on and can.
    fn can_feel(&self, felt: Felt, missing_felt: bool) -> bool {
        // The memory's fixes are read only in `chat::memory`, which a turn
        // without a memory never reaches (its judges and their runs
        // neither).
        let memory = self.memory != Memory::None;
        match felt {
            Felt::Conversion => true,
            // `store-answered-generation` (`ChatMemory::after`) stores, of a
            // reply with tool calls, the first generation with calls
            // instead of every generation: the same message for a reply of
            // one generation. A streamed reply reaches the memory as the
            // one aggregate generation, and the runs the judges add end
            // with a one-generation answer.
            Felt::StoredReply => memory && !self.one_generation,
            // Read only where an add passes the window (`window_keep_cut`).
            Felt::WindowCut => memory && !self.window_never_fills,
            // Read where a call's lookup finds no tool (`Batch::call`); the
            // calls of every generation of every reply cover what a
            // streamed turn or a repeating model calls.
            Felt::MissingTool => !self.every_call_found,
            // Read at a breach (`Batch::call`, `Batch::throw`) and by the
            // limits judge on a batch that failed without running a tool,
            // which without a breach is a failed lookup, unless
            // `unknown-tool-to-processor` hands a missing tool to a
            // processor that throws.
            Felt::Breach => !self.no_breach || missing_felt,
            // Read after a breach under `THROW` (`Batch::throw`) and where a
            // batch ends the turn with the memory inside the loop
            // (`BatchEnd::closing`).
            Felt::DanglingCalls => !self.no_breach || self.memory == Memory::Inside,
            // `ends_turn_at_breach` ends a turn only at a second breach, and
            // answers nothing under `THROW` or without limits.
            Felt::SecondBreach => !self.no_breach && !self.ends_at_no_breach,
        }
    }
}

/// Whether no add to the memory can pass its window: the memory starts
/// with `memory_start` and each add appends at most the prompt's last
/// message at each model call (one a reply, and one more where a judge
/// merges the request with the memory), each reply's generations (a
/// streamed reply's one aggregate), what the loop builds at the end of the
/// turn (one generation, or one per call of a `returnDirect` batch) and a
/// closing tool message. A repeating model's turn has no such bound.
fn window_never_fills(c: &LoopConfig, model: &[Vec<Generation>]) -> bool {
    if c.repeat_last {
        return false;
    }
    let generations: usize = model.iter().map(|reply| reply.len().max(1)).sum();
    let widest = model
        .iter()
        .map(|reply| reply.iter().map(|g| g.tool_calls.len()).sum::<usize>())
        .max()
        .unwrap_or(0);
    let most = c.memory_start.len() + (model.len() + 2) + generations + widest.max(1) + 1;
    usize::try_from(c.memory_max_messages.get()).is_ok_and(|window| most <= window)
}

/// The names of every call of every generation of every reply.
fn calls(model: &[Vec<Generation>]) -> impl Iterator<Item = &str> {
    model
        .iter()
        .flatten()
        .flat_map(|g| g.tool_calls.iter().map(|c| c.name.as_str()))
}

/// Whether no limit check of the turn can find a breach: the counts it
/// checks never exceed every response the turn can start from (the
/// memory's and the request's) plus every call the model makes, and under
/// those the limits hold for every name. A repeating model's calls have no
/// bound.
fn no_breach(c: &LoopConfig, history: &[Message], model: &[Vec<Generation>]) -> bool {
    if !c.manager.version.has_limits() {
        return true;
    }
    if c.repeat_last {
        return false;
    }
    let responses = c
        .memory_start
        .iter()
        .chain(history)
        .flat_map(Message::responses)
        .map(|r| r.name.as_str());
    let names: Vec<&str> = responses.chain(calls(model)).collect();
    let mut counts = Counts::default();
    for name in &names {
        counts.add(*name);
    }
    names.iter().all(|name| {
        c.manager
            .limits
            .check(*name, counts.get(name), counts.total())
            .is_none()
    })
}
