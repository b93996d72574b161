//! The checker's columns of the model's fix table: per [`Fix`], where a
//! turn can feel it ([`Felt`], the kind of the footprint's rule) and the
//! invariants the fuzz targets claim only under it. The model reads
//! neither; they live where they are read. One row per fix in an
//! exhaustive match: a row added to the model's table does not compile
//! until it has its row here.

use crate::checking::invariants::Invariant;
use toolcall_model::model::Fix;

/// Where a turn can feel a fix ([`CheckerColumns::felt`]): the checker's
/// footprint ([`crate::checking::footprint`]) has one rule per kind that
/// decides, from a scenario and from its evaluation, that a fix of that
/// kind changes nothing in the turn. A new fix read where an existing
/// kind's fixes are read takes that kind and needs no rule of its own.
///
/// ```
/// use toolcall_check::checking::fix_columns::{CheckerColumns, Felt};
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

/// A fix's row of the checker's columns.
struct Row {
    closes: &'static [Invariant],
    felt: Felt,
}

/// The row of `fix`.
const fn row(fix: Fix) -> Row {
    use Invariant::{GeminiSafe, JsonSafe, Lossless, MemoryKeepsTurns, QuestionKept};
    use Invariant::{TranscriptValid, TurnEnds};
    let (closes, felt): (&'static [Invariant], Felt) = match fix {
        Fix::BreachThroughProcessor => (&[JsonSafe], Felt::Breach),
        Fix::StrictJsonOrWrap => (&[GeminiSafe, Lossless], Felt::Conversion),
        Fix::ErrorKey => (&[], Felt::Conversion),
        Fix::CloseDanglingCalls => (&[TranscriptValid], Felt::DanglingCalls),
        Fix::StoreAnsweredGeneration => (&[QuestionKept, MemoryKeepsTurns], Felt::StoredReply),
        Fix::KeepCurrentTurn => (&[QuestionKept, MemoryKeepsTurns], Felt::WindowCut),
        Fix::EvictOrphanResponses => (&[], Felt::WindowCut),
        Fix::Pr6907WrapOnFailure => (&[], Felt::Conversion),
        Fix::Pr6049StrictWrap => (&[], Felt::Conversion),
        Fix::EndTurnAfterBreach => (&[TurnEnds], Felt::SecondBreach),
        Fix::UnknownToolToProcessor => (&[], Felt::MissingTool),
    };
    Row { closes, felt }
}

/// The checker's columns of a [`Fix`].
pub trait CheckerColumns {
    /// The invariants (docs/INVARIANTS.md) that the fuzz targets claim
    /// only under this fix: an invariant named here is claimed when every
    /// fix that names it is on, under its other preconditions
    /// (`checking::fuzzing::claimed`).
    ///
    /// ```
    /// use toolcall_check::checking::{fix_columns::CheckerColumns, invariants::Invariant};
    /// use toolcall_model::model::Fix;
    /// assert_eq!(Fix::EndTurnAfterBreach.closes(), &[Invariant::TurnEnds]);
    /// ```
    fn closes(self) -> &'static [Invariant];

    /// Where a turn can feel it ([`Felt`]): the checker's footprint
    /// decides by this kind's rule that a scenario never feels it.
    ///
    /// ```
    /// use toolcall_check::checking::fix_columns::{CheckerColumns, Felt};
    /// use toolcall_model::model::Fix;
    /// assert_eq!(Fix::KeepCurrentTurn.felt(), Felt::WindowCut);
    /// ```
    fn felt(self) -> Felt;
}

impl CheckerColumns for Fix {
    fn closes(self) -> &'static [Invariant] {
        row(self).closes
    }

    fn felt(self) -> Felt {
        row(self).felt
    }
}
