//! Invariant 10, `turn-ends`: the model calls of a turn are bounded by what
//! the limits state.

use crate::verification::turn_bound::turn_bound;

use super::{Evidence, Judged, Locus, refuted};

/// The precondition: the limits bound the turn ([`turn_bound`]).
pub(super) fn bounded(ev: &Evidence<'_>) -> Option<usize> {
    turn_bound(&ev.scenario.config, &ev.scenario.model)
}

pub(super) fn turn_ends(ev: &Evidence<'_>) -> Judged {
    let Some(bound) = bounded(ev) else {
        return Judged::NotApplicable;
    };
    let calls = ev.run.requests.len();
    if ev.runaway || calls > bound {
        let how = if ev.runaway {
            "the model repeats its last reply and the turn was still going at that bound (it runs to the loop's guard of model calls)".to_owned()
        } else {
            format!("got {calls}")
        };
        return refuted(
            format!("at most {bound} model calls in the turn, as the limits bound it; {how}"),
            Locus::Unlocated,
        );
    }
    Judged::Holds
}
