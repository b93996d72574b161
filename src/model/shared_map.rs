//! The immutable, shared metadata map that assistant messages and
//! generations hold.
//!
//! A message is copied into every history the manager returns, every
//! request the loop sends, every chat memory and every replay a checker
//! makes. Its strings and lists are shared ([`SharedStr`](super::SharedStr),
//! [`SharedList`](super::SharedList)); a metadata map held by value was
//! still copied key by key and value by value with each of them (Gemini's
//! `thoughtSignatures`: the map, its key, the list and every signature). A
//! map never changes once a message holds it (a merge builds a new one),
//! so a reference count does.

use std::fmt;
use std::ops::Index;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// A JSON object shared between copies; the empty map allocates nothing.
#[derive(Clone, Default)]
pub struct SharedMap(Option<Arc<Map<String, Value>>>);

impl SharedMap {
    #[cfg(test)]
    pub(crate) fn ptr_eq(a: &Self, b: &Self) -> bool {
        match (&a.0, &b.0) {
            (None, None) => true,
            (Some(x), Some(y)) => Arc::ptr_eq(x, y),
            _ => false,
        }
    }

    /// The empty map.
    ///
    /// ```
    /// assert_eq!(toolcall_model::model::SharedMap::new().len(), 0);
    /// ```
    pub fn new() -> Self {
        SharedMap(None)
    }

    /// Whether the map has no entry.
    ///
    /// ```
    /// assert!(toolcall_model::model::SharedMap::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many entries the map has.
    ///
    /// ```
    /// let m = toolcall_model::model::SharedMap::from(serde_json::json!({"a": 1, "b": 2}).as_object().unwrap().clone());
    /// assert_eq!(m.len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |m| m.len())
    }

    /// The value under `key`.
    ///
    /// ```
    /// let m = toolcall_model::model::SharedMap::from(serde_json::json!({"a": 1}).as_object().unwrap().clone());
    /// assert_eq!(m.get("a"), Some(&serde_json::json!(1)));
    /// assert_eq!(m.get("b"), None);
    /// ```
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.as_ref().and_then(|m| m.get(key))
    }

    /// Whether the map has `key`.
    pub(crate) fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// The entries, in the map's order.
    ///
    /// ```
    /// let m = toolcall_model::model::SharedMap::from(serde_json::json!({"b": 1, "a": 2}).as_object().unwrap().clone());
    /// assert_eq!(m.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(), ["b", "a"]);
    /// ```
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.0.iter().flat_map(|m| m.iter())
    }
}

impl From<Map<String, Value>> for SharedMap {
    fn from(m: Map<String, Value>) -> Self {
        if m.is_empty() {
            SharedMap(None)
        } else {
            SharedMap(Some(Arc::new(m)))
        }
    }
}

impl Index<&str> for SharedMap {
    type Output = Value;

    /// The value under `key`, or JSON null when there is none, as
    /// `serde_json::Value` reads a missing key (rather than panicking).
    fn index(&self, key: &str) -> &Value {
        static NULL: Value = Value::Null;
        self.get(key).unwrap_or(&NULL)
    }
}

impl PartialEq for SharedMap {
    fn eq(&self, other: &Self) -> bool {
        // As `serde_json::Map` compares: the same entries, in any order.
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b) || a == b,
            _ => false,
        }
    }
}

impl Eq for SharedMap {}

impl fmt::Debug for SharedMap {
    // Written as the map itself, so that a message prints as it did when it
    // held a `Map`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl Serialize for SharedMap {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

impl<'de> Deserialize<'de> for SharedMap {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Map::deserialize(deserializer).map(SharedMap::from)
    }
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.
    #[test]
    fn example_sharedmap() {
        use crate::model::SharedMap;
        let mut m = serde_json::Map::new();
        m.insert("k".into(), serde_json::json!(1));
        let a = SharedMap::from(m);
        let b = a.clone();
        assert!(SharedMap::ptr_eq(&a, &b));
        assert_eq!(b["k"], serde_json::json!(1));
        assert!(SharedMap::default().is_empty());
    }

    #[test]
    fn example_contains_key() {
        let m =
            crate::model::SharedMap::from(serde_json::json!({"a": 1}).as_object().unwrap().clone());
        assert!(m.contains_key("a"));
    }
}
