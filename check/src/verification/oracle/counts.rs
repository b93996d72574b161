//! The reference counts of the tool-call limits: an ordered map and a
//! total, restated from docs/BEHAVIOUR.md section 3.1 apart from
//! [`toolcall_model::model::Counts`].

use std::collections::BTreeMap;
use std::fmt;

use toolcall_model::model::Counts;
use toolcall_model::model::SharedStr;
use toolcall_model::model::{Message, ToolResponse};

/// Calls counted per tool name, and in all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RefCounts {
    /// Calls per tool name (each name shared with the call it came from).
    per_name: BTreeMap<SharedStr, u64>,
    /// Calls in all.
    pub total: u64,
}

/// The responses that count for the limits: every response of every tool
/// message from the last user message on (or everything).
fn counted(history: &[Message]) -> impl Iterator<Item = &ToolResponse> + Clone {
    let start = history
        .iter()
        .rposition(|m| matches!(m, Message::User { .. }))
        .unwrap_or(0);
    history[start..].iter().flat_map(Message::responses)
}

impl RefCounts {
    /// docs/BEHAVIOUR.md section 3.1, restated: from the last user message
    /// on (or everything), every response of every tool message counts for
    /// its name.
    pub(crate) fn of(history: &[Message]) -> Self {
        let mut c = RefCounts::default();
        for r in counted(history) {
            c.add(&r.name);
        }
        c
    }

    /// Whether these are the counts [`RefCounts::of`] rebuilds from
    /// `history`, told without building them: the totals agree and every
    /// name here counts as often there (names missing here would add to
    /// the total).
    pub(crate) fn is_of(&self, history: &[Message]) -> bool {
        let responses = counted(history);
        let total = u64::try_from(responses.clone().count()).unwrap_or(u64::MAX);
        total == self.total
            && self.per_name.iter().all(|(name, &n)| {
                u64::try_from(responses.clone().filter(|r| r.name == *name).count())
                    .is_ok_and(|c| c == n)
            })
    }

    /// Counts one call of `name`: its count and the total after it.
    pub fn add(&mut self, name: &SharedStr) -> (u64, u64) {
        self.total += 1;
        let n = match self.per_name.get_mut(name.as_str()) {
            Some(n) => n,
            None => self.per_name.entry(name.clone()).or_insert(0),
        };
        *n += 1;
        (*n, self.total)
    }

    /// The count of `name`.
    pub(crate) fn get(&self, name: &str) -> u64 {
        self.per_name.get(name).copied().unwrap_or(0)
    }

    /// The counts per name, sorted by name.
    pub(crate) fn names(&self) -> impl Iterator<Item = (&SharedStr, u64)> {
        self.per_name.iter().map(|(k, n)| (k, *n))
    }

    /// Whether the model's counts are these.
    ///
    /// ```
    /// use toolcall_check::verification::oracle::RefCounts;
    /// use toolcall_model::model::{Counts, SharedStr};
    /// let (mut reference, mut model) = (RefCounts::default(), Counts::default());
    /// reference.add(&SharedStr::from("a"));
    /// model.add("a");
    /// assert!(reference.matches(&model));
    /// model.add("b");
    /// assert!(!reference.matches(&model));
    /// ```
    pub fn matches(&self, c: &Counts) -> bool {
        // Compared name by name, without a sorted copy of the model's.
        c.total() == self.total
            && c.names() == self.per_name.len()
            && self.per_name.iter().all(|(k, &v)| c.get(k) == v)
    }
}

impl fmt::Display for RefCounts {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self
            .per_name
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        write!(f, "{{{}}} total {}", parts.join(", "), self.total)
    }
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.
    #[test]
    fn example_is_of() {
        use crate::verification::oracle::RefCounts;
        use toolcall_model::model::{Message, ToolResponse};
        let answer = |name: &str| Message::Tool {
            responses: vec![ToolResponse::new("1", name, "1")].into(),
        };
        let history = [Message::user("q"), answer("a"), answer("b")];
        assert!(RefCounts::of(&history).is_of(&history));
        assert!(!RefCounts::of(&history[..2]).is_of(&history));
        assert!(!RefCounts::of(&[Message::user("q"), answer("a"), answer("a")]).is_of(&history));
    }

    #[test]
    fn example_of() {
        use crate::verification::oracle::RefCounts;
        use toolcall_model::model::{Message, ToolResponse};
        let answer = |name: &str| Message::Tool {
            responses: vec![ToolResponse::new("1", name, "1")].into(),
        };
        let c = RefCounts::of(&[
            answer("a"),
            Message::user("q"),
            answer("b"),
            answer("a"),
            answer("b"),
        ]);
        assert_eq!((c.get("a"), c.get("b"), c.total), (1, 2, 3));
    }

    #[test]
    fn example_get() {
        use crate::verification::oracle::RefCounts;
        use toolcall_model::model::SharedStr;
        let mut c = RefCounts::default();
        c.add(&SharedStr::from("a"));
        assert_eq!((c.get("a"), c.get("b")), (1, 0));
    }

    #[test]
    fn example_names() {
        use crate::verification::oracle::RefCounts;
        use toolcall_model::model::SharedStr;
        let mut c = RefCounts::default();
        for name in ["e", "d", "c", "b", "a", "c"] {
            c.add(&SharedStr::from(name));
        }
        let names: Vec<(&str, u64)> = c.names().map(|(k, n)| (k.as_str(), n)).collect();
        assert_eq!(names, [("a", 1), ("b", 1), ("c", 2), ("d", 1), ("e", 1)]);
    }

    #[test]
    fn example_add() {
        use crate::verification::oracle::RefCounts;
        use toolcall_model::model::SharedStr;
        let mut c = RefCounts::default();
        c.add(&SharedStr::from("b"));
        c.add(&SharedStr::from("a"));
        assert_eq!(c.add(&SharedStr::from("a")), (2, 3));
        assert_eq!(c.get("a"), 2);
        assert_eq!(c.to_string(), "{a=2, b=1} total 3");
    }
}
