//! Where a turn can feel each fix of the model's table ([`Felt`]): read by
//! the checker's footprint (`verification::footprint`, one rule per kind) and
//! by the versions' rule of which fixes act where
//! (`config::survival::spring_ai`), so it lives in the lower of the two
//! layers. One row per fix in an exhaustive match: a row added to the
//! model's table does not compile until it has its row here.

use toolcall_model::model::Fix;

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
