//! The immutable, shared text that messages, tool results and invocations
//! hold: a copy of a message shares its strings instead of allocating them
//! again.
//!
//! A turn's messages are copied into every history the manager returns,
//! every request the loop sends, every chat memory and every replay a
//! checker makes; with owned `String`s each copy allocated and freed every
//! id, name, argument text and response text again, and that allocation was
//! most of the work on every hot path. The text never changes once a
//! message holds it, so a reference count does.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An immutable string whose clones share one allocation.
///
/// It reads as a `&str` (through `Deref`), compares equal to `str`,
/// `&str` and `String`, and is written and read by serde exactly as a
/// string is.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct SharedStr(Arc<str>);

impl SharedStr {
    #[cfg(test)]
    pub(crate) fn ptr_eq(a: &Self, b: &Self) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }

    /// The text as a `&str`.
    ///
    /// ```
    /// assert_eq!(toolcall_model::model::SharedStr::from("x").as_str(), "x");
    /// ```
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The pieces written one after another, with one allocation: a text
    /// built of a few pieces (a limit breach's, the processor's JSON
    /// answer) is written into a buffer on the stack and shared from there,
    /// rather than built as a `String` and copied again.
    pub(crate) fn concat<'a>(pieces: impl IntoIterator<Item = &'a str> + Clone) -> SharedStr {
        const ROOM: usize = 256;
        let mut buf = [0u8; ROOM];
        let mut len = 0;
        for piece in pieces.clone() {
            let Some(room) = buf.get_mut(len..len + piece.len()) else {
                // Too long for the stack: built on the heap.
                return SharedStr::from(pieces.into_iter().collect::<String>());
            };
            room.copy_from_slice(piece.as_bytes());
            len += piece.len();
        }
        // Whole `str`s one after another are UTF-8; should that ever fail,
        // the heap path gives the same text.
        match std::str::from_utf8(&buf[..len]) {
            Ok(s) => SharedStr::from(s),
            Err(_) => SharedStr::from(pieces.into_iter().collect::<String>()),
        }
    }
}

impl Deref for SharedStr {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for SharedStr {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for SharedStr {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl From<&str> for SharedStr {
    fn from(s: &str) -> Self {
        SharedStr(Arc::from(s))
    }
}

impl From<&SharedStr> for SharedStr {
    fn from(s: &SharedStr) -> Self {
        s.clone()
    }
}

impl From<&String> for SharedStr {
    fn from(s: &String) -> Self {
        SharedStr(Arc::from(s.as_str()))
    }
}

impl From<String> for SharedStr {
    fn from(s: String) -> Self {
        SharedStr(Arc::from(s))
    }
}

impl From<Arc<str>> for SharedStr {
    fn from(s: Arc<str>) -> Self {
        SharedStr(s)
    }
}

impl From<SharedStr> for String {
    fn from(s: SharedStr) -> Self {
        s.as_str().to_owned()
    }
}

impl fmt::Debug for SharedStr {
    // Written as the string itself, so that a message prints as it did
    // when it held `String`s.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for SharedStr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl PartialEq<str> for SharedStr {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for SharedStr {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for SharedStr {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<SharedStr> for str {
    fn eq(&self, other: &SharedStr) -> bool {
        self == other.as_str()
    }
}

impl PartialEq<SharedStr> for &str {
    fn eq(&self, other: &SharedStr) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<SharedStr> for String {
    fn eq(&self, other: &SharedStr) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Serialize for SharedStr {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for SharedStr {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;

        impl serde::de::Visitor<'_> for Visitor {
            type Value = SharedStr;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }

            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<SharedStr, E> {
                Ok(SharedStr::from(v))
            }

            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<SharedStr, E> {
                Ok(SharedStr::from(v))
            }
        }

        deserializer.deserialize_str(Visitor)
    }
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.
    #[test]
    fn example_sharedstr() {
        use crate::model::SharedStr;
        let a = SharedStr::from("echo");
        let b = a.clone();
        assert_eq!(a, "echo");
        assert!(SharedStr::ptr_eq(&a, &b));
        assert_eq!(serde_json::to_string(&a).unwrap(), "\"echo\"");
        assert_eq!(serde_json::from_str::<SharedStr>("\"echo\"").unwrap(), b);
    }

    #[test]
    fn example_concat() {
        use crate::model::SharedStr;
        assert_eq!(SharedStr::concat(["a", "", "bc"]), "abc");
        assert_eq!(SharedStr::concat(["é"; 200]).len(), 400);
    }
}
