//! What the lenient parser hands its tokens to: the tree builder (objects
//! as `LinkedHashMap`s), the repeated-name check and the compact writer
//! that streams a payload without building it.

use super::inline_stack::InlineStack;
use super::lenient::{Parser, Scalar, Sink};
use super::{JValue, JacksonError, ReadConstraints, scalar_to_serde};
use crate::collections::{SmallMap, fnv};

use std::borrow::Cow;

/// A `LinkedHashMap` stand-in: insertion order, `put` replaces in place.
/// An object's first few names are compared, more are hashed.
pub(super) type ObjectBuilder = SmallMap<String, JValue, 8>;

pub(super) enum Frame {
    Array(Vec<JValue>),
    /// The builder and the name whose value is being read (the builder
    /// boxed: it holds its first entries in place).
    Object(Box<ObjectBuilder>, String),
}

impl Frame {
    fn finish(self) -> JValue {
        match self {
            Frame::Array(items) => JValue::Array(items),
            Frame::Object(builder, _) => JValue::Object(builder.into_entries()),
        }
    }
}

/// The whole value `parser` reads, as a tree.
pub(super) fn read_tree(parser: &mut Parser<'_>) -> Result<JValue, JacksonError> {
    let mut tree = TreeSink::default();
    parser.parse_root_into(&mut tree)?;
    tree.root
        .ok_or_else(|| super::stream_read("internal: no value was read"))
}

/// Builds the [`JValue`], objects as `LinkedHashMap`s.
#[derive(Default)]
pub(super) struct TreeSink {
    stack: Vec<Frame>,
    pub(super) root: Option<JValue>,
}

impl TreeSink {
    fn complete(&mut self, v: JValue) {
        match self.stack.last_mut() {
            None => self.root = Some(v),
            Some(Frame::Array(items)) => items.push(v),
            Some(Frame::Object(builder, name)) => builder.insert(std::mem::take(name), v),
        }
    }
}

impl<'a> Sink<'a> for TreeSink {
    fn open(&mut self, is_object: bool) {
        self.stack.push(if is_object {
            Frame::Object(Box::default(), String::new())
        } else {
            Frame::Array(Vec::new())
        });
    }
    fn empty(&mut self, is_object: bool) {
        self.complete(if is_object {
            JValue::Object(Vec::new())
        } else {
            JValue::Array(Vec::new())
        });
    }
    fn name(&mut self, name: Cow<'a, str>) {
        if let Some(Frame::Object(_, pending)) = self.stack.last_mut() {
            *pending = name.into_owned();
        }
    }
    fn string(&mut self, s: Cow<'a, str>) {
        self.complete(JValue::String(s.into_owned()));
    }
    fn scalar(&mut self, v: Scalar<'a>) {
        self.complete(v.into_jvalue());
    }
    fn close(&mut self) {
        if let Some(frame) = self.stack.pop() {
            self.complete(frame.finish());
        }
    }
}

/// Notes whether some object repeats a name (as the model decodes names:
/// an escaped lone surrogate is U+FFFD), keeping only a 64-bit hash of each
/// name of the objects still open. Equal hashes count as a repeat: at worst
/// a rare false alarm, which only costs the caller the tree it avoids.
#[derive(Default)]
pub(super) struct RepeatCheck {
    hashes: InlineStack<u64, 16>,
    /// Per open container, where its names start in `hashes` (objects).
    starts: InlineStack<Option<usize>, 8>,
    repeated: bool,
    /// Some number was read as an infinite double.
    non_finite: bool,
}

impl<'a> Sink<'a> for RepeatCheck {
    const KEEPS_STRINGS: bool = false;
    fn open(&mut self, is_object: bool) {
        self.starts.push(is_object.then_some(self.hashes.len()));
    }
    fn empty(&mut self, _: bool) {}
    fn name(&mut self, name: Cow<'a, str>) {
        if !self.repeated {
            self.hashes.push(fnv(name.as_bytes()));
        }
    }
    fn string(&mut self, _: Cow<'a, str>) {}
    fn scalar(&mut self, v: Scalar<'a>) {
        if let Scalar::Double(d) = v {
            self.non_finite |= !d.is_finite();
        }
    }
    fn close(&mut self) {
        if let Some(Some(start)) = self.starts.pop() {
            if self.repeated {
                return;
            }
            let names = &mut self.hashes.as_mut_slice()[start..];
            names.sort_unstable();
            if names.windows(2).any(|w| w[0] == w[1]) {
                self.repeated = true;
                self.hashes = InlineStack::default();
            } else {
                self.hashes.truncate(start);
            }
        }
    }
}

/// Writes the value as `serde_json::to_writer` writes
/// `JValue::to_serde()`'s value (compact; keys, strings and scalars through
/// serde_json itself), a root that is not an object under `key`. Exact only
/// for a value without repeated names: a repeat would be written twice.
pub(super) struct CompactWriter<'w, W: std::io::Write> {
    w: &'w mut W,
    key: &'static str,
    /// Per open container: whether it is an object, and whether something
    /// is written in it yet.
    open: Vec<(bool, bool)>,
    /// The root is not an object: `{"KEY":` was written, `}` is owed.
    wrapped: bool,
    started: bool,
    error: Option<std::io::Error>,
}

impl<W: std::io::Write> CompactWriter<'_, W> {
    fn put(&mut self, bytes: &[u8]) {
        if self.error.is_none()
            && let Err(e) = self.w.write_all(bytes)
        {
            self.error = Some(e);
        }
    }

    fn put_serde<T: serde::Serialize + ?Sized>(&mut self, v: &T) {
        if self.error.is_none()
            && let Err(e) = serde_json::to_writer(&mut *self.w, v)
        {
            self.error = Some(std::io::Error::from(e));
        }
    }

    /// Before a value: the root's wrapping, or an array's comma (in an
    /// object the name wrote it).
    fn before_value(&mut self, is_object: bool) {
        if !self.started {
            self.started = true;
            if !is_object {
                self.wrapped = true;
                self.put(b"{");
                let key = self.key;
                self.put_serde(key);
                self.put(b":");
            }
            return;
        }
        if let Some((false, any)) = self.open.last_mut() {
            let comma = *any;
            *any = true;
            if comma {
                self.put(b",");
            }
        }
    }

    /// The end of the root: the wrapping's `}`, and any write error.
    fn finish(mut self) -> std::io::Result<()> {
        if self.wrapped {
            self.put(b"}");
        }
        match self.error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl<'a, W: std::io::Write> Sink<'a> for CompactWriter<'_, W> {
    fn open(&mut self, is_object: bool) {
        self.before_value(is_object);
        self.put(if is_object { b"{" } else { b"[" });
        self.open.push((is_object, false));
    }
    fn empty(&mut self, is_object: bool) {
        self.before_value(is_object);
        self.put(if is_object { b"{}" } else { b"[]" });
    }
    fn name(&mut self, name: Cow<'a, str>) {
        if let Some((true, any)) = self.open.last_mut() {
            let comma = *any;
            *any = true;
            if comma {
                self.put(b",");
            }
        }
        self.put_serde(&*name);
        self.put(b":");
    }
    fn string(&mut self, s: Cow<'a, str>) {
        self.before_value(false);
        self.put_serde(&*s);
    }
    fn scalar(&mut self, v: Scalar<'a>) {
        self.before_value(false);
        self.put_serde(&scalar_to_serde(&v.into_jvalue()));
    }
    fn close(&mut self) {
        if let Some((is_object, _)) = self.open.pop() {
            self.put(if is_object { b"}" } else { b"]" });
        }
    }
}

/// What [`read_lenient`](super::read_lenient) makes of a text it accepts, found without
/// building the value (see [`lenient_shape`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LenientShape {
    /// Some object repeats a name (as far as 64-bit hashes of the names
    /// tell: a collision also says `true`).
    pub repeated_name: bool,
    /// Some number reads as an infinite double.
    pub non_finite: bool,
}

/// Whether [`read_lenient`](super::read_lenient) accepts `text` and, if so, whether some object
/// in it repeats a name and whether some number is infinite, without
/// building the value: names and strings are not copied. Memory: the
/// names' hashes of the objects open at a time.
pub(crate) fn lenient_shape(text: &str) -> Result<LenientShape, JacksonError> {
    lenient_shape_with(text, ReadConstraints::default())
}

/// [`lenient_shape`] under other limits (Jackson 2's, for Spring AI 1.1).
pub(crate) fn lenient_shape_with(
    text: &str,
    limits: ReadConstraints,
) -> Result<LenientShape, JacksonError> {
    let mut check = RepeatCheck::default();
    Parser::new(text, limits, false).parse_root_into(&mut check)?;
    Ok(LenientShape {
        repeated_name: check.repeated,
        non_finite: check.non_finite,
    })
}

/// Whether [`read_lenient`](super::read_lenient) accepts `text`, and if so whether some object
/// in it repeats a name, without building the value: `Ok(true)` when every
/// object's names are distinct (as far as 64-bit hashes tell; a collision
/// says `false`). Memory: the names' hashes of the objects open at a time.
///
/// ```
/// use toolcall_model::json::check_lenient;
/// assert_eq!(check_lenient(r#"{"a":1,"b":{"a":2}} trailing"#), Ok(true));
/// assert_eq!(check_lenient(r#"[{"a":1,"a":2}]"#), Ok(false));
/// assert!(check_lenient("[ERROR] disk full").is_err());
/// ```
pub fn check_lenient(text: &str) -> Result<bool, JacksonError> {
    lenient_shape(text).map(|s| !s.repeated_name)
}

/// Writes what `serde_json::to_writer` writes for
/// `read_lenient(text)?.to_serde()` (a root that is not an object as
/// `{KEY: VALUE}`), without building the value: one more lenient read,
/// straight to `w`. Only for a text [`check_lenient`] found `Ok(true)`: a
/// repeated name would be written at each place it occurs, where the tree
/// keeps one entry. A text the reader refuses writes what came before the
/// failure and returns an `InvalidData` error.
pub(crate) fn write_lenient_compact<W: std::io::Write>(
    text: &str,
    key: &'static str,
    w: &mut W,
) -> std::io::Result<()> {
    write_lenient_compact_with(text, key, w, ReadConstraints::default())
}

/// [`write_lenient_compact`] under other limits.
pub(crate) fn write_lenient_compact_with<W: std::io::Write>(
    text: &str,
    key: &'static str,
    w: &mut W,
    limits: ReadConstraints,
) -> std::io::Result<()> {
    let mut writer = CompactWriter {
        w,
        key,
        open: Vec::new(),
        wrapped: false,
        started: false,
        error: None,
    };
    let read = Parser::new(text, limits, false).parse_root_into(&mut writer);
    let written = writer.finish();
    read.map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()))?;
    written
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.
    #[test]
    fn example_lenient_shape() {
        use crate::json::jackson::stream::LenientShape;
        use crate::json::jackson::stream::lenient_shape;
        let plain = LenientShape {
            repeated_name: false,
            non_finite: false,
        };
        assert_eq!(lenient_shape(r#"{"a":1,"b":{"a":2}} trailing"#), Ok(plain));
        assert!(lenient_shape(r#"[{"a":1,"a":2}]"#).unwrap().repeated_name);
        assert!(lenient_shape("[1e400]").unwrap().non_finite);
        assert!(lenient_shape("[ERROR] disk full").is_err());
    }

    #[test]
    fn example_write_lenient_compact() {
        use crate::json::jackson::stream::write_lenient_compact;
        let mut out = Vec::new();
        write_lenient_compact("3.0 + 5.0 = 8.0", "result", &mut out).unwrap();
        assert_eq!(out, br#"{"result":3.0}"#);
        out.clear();
        write_lenient_compact(r#" {"a" : [1, 1e400, "é"]} x"#, "result", &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"a":[1,"Infinity","é"]}"#
        );
    }
}
