//! The reference counts of the tool-call limits: a plain map and a total,
//! restated from docs/BEHAVIOUR.md section 3.1 apart from
//! [`crate::model::Counts`].

use std::collections::BTreeMap;
use std::fmt;

use crate::model::limits::Counts;
use crate::model::message::Message;
use crate::model::shared_str::SharedStr;

/// Calls counted per tool name, and in all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RefCounts {
    /// Calls per tool name (each name shared with the call it came from).
    pub per_name: BTreeMap<SharedStr, u64>,
    /// Calls in all.
    pub total: u64,
}

impl RefCounts {
    /// docs/BEHAVIOUR.md section 3.1, restated: from the last user message
    /// on (or everything), every response of every tool message counts for
    /// its name.
    pub fn of(history: &[Message]) -> Self {
        let start = history
            .iter()
            .rposition(|m| matches!(m, Message::User { .. }))
            .unwrap_or(0);
        let mut c = RefCounts::default();
        for m in &history[start..] {
            if let Message::Tool { responses } = m {
                for r in responses {
                    c.add(&r.name);
                }
            }
        }
        c
    }

    /// Counts one call of `name`: its count and the total after it.
    ///
    /// ```
    /// use toolcall_model::{checking::oracle::RefCounts, model::SharedStr};
    /// let mut c = RefCounts::default();
    /// c.add(&SharedStr::from("a"));
    /// assert_eq!(c.add(&SharedStr::from("a")), (2, 2));
    /// assert_eq!(c.get("a"), 2);
    /// ```
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
    pub fn get(&self, name: &str) -> u64 {
        self.per_name.get(name).copied().unwrap_or(0)
    }

    /// Whether the model's counts are these.
    pub fn matches(&self, c: &Counts) -> bool {
        // Compared name by name, without a sorted copy of the model's.
        c.total() == self.total
            && c.names() == self.per_name.len()
            && self.per_name.iter().all(|(k, v)| c.get(k) == *v)
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
