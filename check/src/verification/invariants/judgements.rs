//! What the payload judges learned of the texts they judged, shared by
//! the evidences of a run: the judges' speed, apart from their rules.

use std::cell::RefCell;
use std::collections::BTreeMap;

use toolcall_model::gemini::Payload;
use toolcall_model::model::Fixes;

/// What the payload judges learned of the texts they judged, kept across
/// the evidences that share it ([`Evidence::judging`](super::Evidence::judging)): how a text converts
/// under a set of fixes (Gemini-safe) and whether a payload recovers it
/// (lossless). Both are functions of the text, its error mark, the fixes
/// and the payload alone, so a caller that judges many turns of few
/// distinct texts (the exhaustive run) converts and compares each once.
/// It keeps at most [`Judgements::CAPACITY`] findings; past that, judges
/// work as without it.
#[derive(Debug, Default)]
pub(crate) struct Judgements {
    /// By text: what was learned of it.
    texts: RefCell<BTreeMap<Box<str>, Vec<Learned>>>,
    /// How many findings `texts` holds.
    held: std::cell::Cell<usize>,
}

/// One finding about a text.
#[derive(Debug)]
pub(super) enum Learned {
    /// How `convert_tool_response` came out: an object, a payload that is
    /// none, or an exception.
    Conversion {
        error: bool,
        fixes: Fixes,
        outcome: Converted,
    },
    /// Whether `payload` recovers the text.
    Recovery {
        error: bool,
        fixes: Fixes,
        payload: Payload,
        recovers: bool,
    },
}

/// How a tool response converts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Converted {
    Object,
    NotAnObject,
    Throws,
}

impl Judgements {
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.held.get()
    }

    /// The most findings kept: a run's texts are few, and a caller fed
    /// ever new ones keeps no more than this.
    pub(crate) const CAPACITY: usize = 4096;

    pub(super) fn find<T>(&self, text: &str, f: impl Fn(&Learned) -> Option<T>) -> Option<T> {
        self.texts.borrow().get(text)?.iter().find_map(f)
    }

    pub(super) fn learn(&self, text: &str, finding: Learned) {
        if self.held.get() >= Self::CAPACITY {
            return;
        }
        self.held.set(self.held.get() + 1);
        let mut texts = self.texts.borrow_mut();
        match texts.get_mut(text) {
            Some(known) => known.push(finding),
            None => {
                texts.insert(text.into(), vec![finding]);
            }
        }
    }
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.
    #[test]
    fn example_judgements() {
        use crate::verification::invariants::Invariant;
        use crate::verification::invariants::check;
        use crate::verification::invariants::evidence::Evidence;
        use crate::verification::invariants::judgements::Judgements;
        use crate::verification::scenario::Scenario;
        use toolcall_model::model::ToolSpec;
        let s = Scenario::one_call(ToolSpec::returning("x", "\"sunny\""));
        let judgements = Judgements::default();
        for _ in 0..2 {
            let ev = Evidence::gather(&s).unwrap().judging(&judgements);
            assert_eq!(
                check(Invariant::Lossless, &ev),
                check(Invariant::Lossless, &Evidence::gather(&s).unwrap())
            );
            assert_eq!(
                check(Invariant::GeminiSafe, &ev),
                check(Invariant::GeminiSafe, &Evidence::gather(&s).unwrap())
            );
        }
        assert_eq!(judgements.len(), 2);
    }

    #[test]
    fn example_capacity() {
        assert_eq!(crate::verification::invariants::Judgements::CAPACITY, 4096);
    }
}
