//! The immutable, shared lists that messages hold: an assistant message's
//! tool calls and a tool message's responses.
//!
//! A message is copied into every history the manager returns, every
//! request the loop sends, every chat memory and every replay a checker
//! makes. Its strings are shared ([`SharedStr`](super::SharedStr)); with
//! its lists owned, each copy still allocated a new list and counted every
//! element's strings again. A list never changes once a message holds it
//! (the one rewrite, the Gemini advisor's, copies it first), so a
//! reference count does.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An immutable list whose clones share one allocation. An empty list
/// holds no allocation.
///
/// It reads as a `&[T]` (through `Deref`), compares equal to slices,
/// arrays and `Vec`s of the same elements, and is written and read by
/// serde exactly as a `Vec` is.
pub struct SharedList<T>(Option<Arc<[T]>>);

impl<T> SharedList<T> {
    /// The elements as a slice.
    ///
    /// ```
    /// assert_eq!(toolcall_model::model::SharedList::from(vec!['x']).as_slice(), &['x']);
    /// ```
    pub fn as_slice(&self) -> &[T] {
        self.0.as_deref().unwrap_or(&[])
    }

    /// Whether the list has no element (`skip_serializing_if` reads it).
    ///
    /// ```
    /// assert!(!toolcall_model::model::SharedList::from(vec![()]).is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.as_slice().is_empty()
    }

    /// Whether the two share one allocation (a clone of the other), or are
    /// both empty.
    pub(crate) fn ptr_eq(a: &Self, b: &Self) -> bool {
        match (&a.0, &b.0) {
            (Some(x), Some(y)) => Arc::ptr_eq(x, y),
            (None, None) => true,
            _ => false,
        }
    }
}

impl<T: Clone> SharedList<T> {
    /// The elements, to change in place: copied first if another list
    /// shares them.
    pub(crate) fn make_mut(&mut self) -> &mut [T] {
        match &mut self.0 {
            Some(a) => Arc::make_mut(a),
            None => &mut [],
        }
    }
}

impl<T> Clone for SharedList<T> {
    fn clone(&self) -> Self {
        SharedList(self.0.clone())
    }
}

impl<T> Default for SharedList<T> {
    fn default() -> Self {
        SharedList(None)
    }
}

impl<T> Deref for SharedList<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T> AsRef<[T]> for SharedList<T> {
    fn as_ref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T> From<Vec<T>> for SharedList<T> {
    fn from(v: Vec<T>) -> Self {
        if v.is_empty() {
            SharedList(None)
        } else {
            SharedList(Some(Arc::from(v)))
        }
    }
}

impl<T: Clone> From<&[T]> for SharedList<T> {
    fn from(v: &[T]) -> Self {
        if v.is_empty() {
            SharedList(None)
        } else {
            SharedList(Some(Arc::from(v)))
        }
    }
}

impl<T, const N: usize> From<[T; N]> for SharedList<T> {
    fn from(v: [T; N]) -> Self {
        SharedList::from(Vec::from(v))
    }
}

impl<T> FromIterator<T> for SharedList<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let iter = iter.into_iter();
        if iter.size_hint().1 == Some(0) {
            return SharedList(None);
        }
        // Collected straight into the shared list: one allocation when the
        // iterator knows its length, rather than a vector copied into it.
        let list: Arc<[T]> = iter.collect();
        if list.is_empty() {
            SharedList(None)
        } else {
            SharedList(Some(list))
        }
    }
}

impl<'a, T> IntoIterator for &'a SharedList<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl<T: fmt::Debug> fmt::Debug for SharedList<T> {
    // Written as the list itself, so that a message prints as it did when
    // it held `Vec`s.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_slice(), f)
    }
}

impl<T: PartialEq> PartialEq for SharedList<T> {
    fn eq(&self, other: &Self) -> bool {
        SharedList::ptr_eq(self, other) || self.as_slice() == other.as_slice()
    }
}

impl<T: Eq> Eq for SharedList<T> {}

impl<T: std::hash::Hash> std::hash::Hash for SharedList<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state)
    }
}

impl<T: PartialEq> PartialEq<[T]> for SharedList<T> {
    fn eq(&self, other: &[T]) -> bool {
        self.as_slice() == other
    }
}

impl<T: PartialEq> PartialEq<Vec<T>> for SharedList<T> {
    fn eq(&self, other: &Vec<T>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: PartialEq, const N: usize> PartialEq<[T; N]> for SharedList<T> {
    fn eq(&self, other: &[T; N]) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Serialize> Serialize for SharedList<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.as_slice().serialize(serializer)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for SharedList<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Vec::<T>::deserialize(deserializer).map(SharedList::from)
    }
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.
    #[test]
    fn example_sharedlist() {
        use crate::model::SharedList;
        let a = SharedList::from(vec![1, 2]);
        let b = a.clone();
        assert_eq!(a, [1, 2]);
        assert!(SharedList::ptr_eq(&a, &b));
        assert_eq!(serde_json::to_string(&a).unwrap(), "[1,2]");
        assert_eq!(serde_json::from_str::<SharedList<i32>>("[1,2]").unwrap(), b);
        assert!(SharedList::<i32>::default().is_empty());
    }

    #[test]
    fn example_ptr_eq() {
        use crate::model::SharedList;
        let a = SharedList::from(vec![1]);
        assert!(!SharedList::ptr_eq(&a, &SharedList::from(vec![1])));
    }

    #[test]
    fn example_make_mut() {
        use crate::model::SharedList;
        let a = SharedList::from(vec![1, 2]);
        let mut b = a.clone();
        b.make_mut()[0] = 7;
        assert_eq!(
            (a, b),
            (SharedList::from(vec![1, 2]), SharedList::from(vec![7, 2]))
        );
    }
}
