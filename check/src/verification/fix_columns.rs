//! The checker's column of the model's fix table: per [`Fix`], the
//! invariants the fuzz targets claim only under it (where a turn can feel
//! a fix is `config::fix_reach`'s). The model does not read it; it lives
//! where it is read. One row per fix in an
//! exhaustive match: a row added to the model's table does not compile
//! until it has its row here.

use crate::verification::invariants::Invariant;
use toolcall_model::model::Fix;

/// A fix's row of the checker's columns.
struct Row {
    closes: &'static [Invariant],
}

/// The row of `fix`.
const fn row(fix: Fix) -> Row {
    use Invariant::{GeminiSafe, JsonSafe, Lossless, MemoryKeepsTurns, QuestionKept};
    use Invariant::{TranscriptValid, TurnEnds};
    let closes: &'static [Invariant] = match fix {
        Fix::BreachThroughProcessor => &[JsonSafe],
        Fix::StrictJsonOrWrap => &[GeminiSafe, Lossless],
        Fix::ErrorKey => &[],
        Fix::CloseDanglingCalls => &[TranscriptValid],
        Fix::StoreAnsweredGeneration => &[QuestionKept, MemoryKeepsTurns],
        Fix::KeepCurrentTurn => &[QuestionKept, MemoryKeepsTurns],
        Fix::EvictOrphanResponses => &[],
        Fix::Pr6907WrapOnFailure => &[],
        Fix::Pr6049StrictWrap => &[],
        Fix::EndTurnAfterBreach => &[TurnEnds],
        Fix::UnknownToolToProcessor => &[],
    };
    Row { closes }
}

/// The checker's columns of a [`Fix`].
pub trait CheckerColumns {
    /// The invariants (docs/INVARIANTS.md) that the fuzz targets claim
    /// only under this fix: an invariant named here is claimed when every
    /// fix that names it is on, under its other preconditions
    /// (`verification::fuzzing::claimed`).
    ///
    /// ```
    /// use toolcall_check::verification::{fix_columns::CheckerColumns, invariants::Invariant};
    /// use toolcall_model::model::Fix;
    /// assert_eq!(Fix::EndTurnAfterBreach.closes(), &[Invariant::TurnEnds]);
    /// ```
    fn closes(self) -> &'static [Invariant];
}

impl CheckerColumns for Fix {
    fn closes(self) -> &'static [Invariant] {
        row(self).closes
    }
}
