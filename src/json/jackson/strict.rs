//! The strict scanner of the `strict-json-or-wrap` fix: one whole RFC 8259
//! value, checked without building anything (the tree, when asked for, is
//! [`read_strict`](super::read_strict)'s), and the scanning steps the
//! lenient parser shares.

use super::MAX_TREE_DEPTH;
use super::inline_stack::InlineStack;
use crate::collections::fnv;

/// Validation-only strict check, no tree built: true iff read_strict would return Some. Must be fast (this is a hot path benchmarked against serde_json IgnoredAny).
///
/// Unlike serde_json's `IgnoredAny`, which skips `\u` escapes without
/// pairing surrogates, this refuses an unpaired surrogate escape, as
/// decoding into a `String` or `serde_json::Value` does.
///
/// ```
/// use toolcall_model::json::is_strict_json;
/// assert!(is_strict_json(r#" {"a": [1, -2.5e3, "x\n", null]} "#));
/// assert!(!is_strict_json(r#"{"a":1} trailing"#));
/// assert!(!is_strict_json("[1,]"));
/// assert!(!is_strict_json(&"[".repeat(501)));
/// ```
#[must_use]
pub fn is_strict_json(text: &str) -> bool {
    scan_strict(text.as_bytes(), &mut NoKeys)
}

/// What the strict scanner found, for a conversion that wants to pass a
/// value on without building it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StrictShape {
    /// Not one whole strict value ([`read_strict`](super::read_strict) gives `None`).
    Invalid,
    /// One whole object.
    Object {
        /// No object in it repeats a key and no key holds an escape, so its
        /// text means exactly what [`read_strict`](super::read_strict) builds (Jackson keeps the
        /// last of repeated keys; the text would keep them all).
        plain: bool,
    },
    /// One whole value that is not an object (`plain` as for objects
    /// nested in it).
    Value {
        /// No object in it repeats a key or escapes one.
        plain: bool,
    },
}

/// One pass of the strict scanner that also says whether the text can be
/// passed on as it is. Same acceptance as [`is_strict_json`]; keys are
/// compared by their raw text, and a key with an escape counts as a
/// possible repeat (the caller then builds the value).
pub fn strict_shape(text: &str) -> StrictShape {
    let b = text.as_bytes();
    let mut keys = DistinctKeys::default();
    if !scan_strict(b, &mut keys) {
        return StrictShape::Invalid;
    }
    let plain = !keys.repeated;
    if b.get(skip_plain_ws(b, 0)) == Some(&b'{') {
        StrictShape::Object { plain }
    } else {
        StrictShape::Value { plain }
    }
}

/// What the strict scanner tells about object keys as it passes them.
pub(super) trait KeySink<'a> {
    fn open(&mut self);
    fn key(&mut self, raw: &'a [u8]);
    fn close(&mut self);
}

/// Passes an already mixed `u64` through as its own hash.
#[derive(Default)]
pub(super) struct Prehashed(u64);

impl std::hash::Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, _: &[u8]) {
        unreachable!("only u64 keys are hashed")
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// For plain validation: keys are not looked at.
pub(super) struct NoKeys;

impl KeySink<'_> for NoKeys {
    #[inline(always)]
    fn open(&mut self) {}
    #[inline(always)]
    fn key(&mut self, _: &[u8]) {}
    #[inline(always)]
    fn close(&mut self) {}
}

/// Records the keys of the open objects on one shared stack, each with its
/// hash, and checks each object's keys for repeats when it closes: hashes
/// are compared first, bytes only when hashes meet.
#[derive(Default)]
pub(super) struct DistinctKeys<'a> {
    keys: InlineStack<(u64, &'a [u8]), 16>,
    starts: InlineStack<usize, 8>,
    repeated: bool,
}

impl<'a> KeySink<'a> for DistinctKeys<'a> {
    #[inline]
    fn open(&mut self) {
        self.starts.push(self.keys.len());
    }
    #[inline]
    fn key(&mut self, raw: &'a [u8]) {
        if self.repeated {
            return;
        }
        // An escape can spell a key two ways; let the tree decide.
        if raw.contains(&b'\\') {
            self.repeated = true;
        } else {
            // FNV-1a: keys are short and come from one document, so a keyed
            // hash buys nothing here.
            self.keys.push((fnv(raw), raw));
        }
    }
    fn close(&mut self) {
        let start = self.starts.pop().unwrap_or(0);
        if !self.repeated {
            let seg = &self.keys.as_slice()[start..];
            self.repeated = if seg.len() <= 16 {
                seg.iter()
                    .enumerate()
                    .any(|(i, k)| seg[..i].iter().any(|j| j.0 == k.0 && j.1 == k.1))
            } else {
                // Large objects: one probe per key. Two different keys with
                // one hash count as a repeat: rare, and the tree is right.
                let mut seen: std::collections::HashSet<
                    u64,
                    std::hash::BuildHasherDefault<Prehashed>,
                > = std::collections::HashSet::with_capacity_and_hasher(
                    seg.len(),
                    Default::default(),
                );
                !seg.iter().all(|k| seen.insert(k.0))
            };
        }
        self.keys.truncate(start);
    }
}

/// `"name"` then `:`, reporting the name's raw text to `sink`.
#[inline]
pub(super) fn scan_key_into<'a, S: KeySink<'a>>(
    b: &'a [u8],
    i: usize,
    sink: &mut S,
) -> Option<usize> {
    let q = skip_plain_ws(b, i);
    if b.get(q) != Some(&b'"') {
        return None;
    }
    let end = scan_string(b, q + 1)?;
    sink.key(&b[q + 1..end - 1]);
    let i = skip_plain_ws(b, end);
    if b.get(i) != Some(&b':') {
        return None;
    }
    Some(i + 1)
}

/// The strict scanner: one whole RFC 8259 value, plain whitespace around it,
/// at most [`MAX_TREE_DEPTH`] deep, escapes checked as `read_strict` does.
pub(super) fn scan_strict<'a, S: KeySink<'a>>(b: &'a [u8], sink: &mut S) -> bool {
    let mut i = 0;
    let mut depth = 0usize;
    // One bit per open container, set for objects; 512 bits cover MAX_TREE_DEPTH.
    let mut kinds = [0u64; 8];
    loop {
        i = skip_plain_ws(b, i);
        let Some(&c) = b.get(i) else { return false };
        match c {
            b'{' | b'[' => {
                if depth == MAX_TREE_DEPTH {
                    return false;
                }
                let obj = c == b'{';
                let (word, bit) = (depth / 64, 1u64 << (depth % 64));
                if obj {
                    kinds[word] |= bit;
                } else {
                    kinds[word] &= !bit;
                }
                depth += 1;
                if obj {
                    sink.open();
                }
                i = skip_plain_ws(b, i + 1);
                let close = if obj { b'}' } else { b']' };
                if b.get(i) == Some(&close) {
                    depth -= 1;
                    i += 1;
                    if obj {
                        sink.close();
                    }
                } else if obj {
                    match scan_key_into(b, i, sink) {
                        Some(n) => {
                            i = n;
                            continue;
                        }
                        None => return false,
                    }
                } else {
                    continue;
                }
            }
            b'"' => match scan_string(b, i + 1) {
                Some(n) => i = n,
                None => return false,
            },
            b't' | b'f' | b'n' => {
                let word: &[u8] = match c {
                    b't' => b"true",
                    b'f' => b"false",
                    _ => b"null",
                };
                if !b[i..].starts_with(word) {
                    return false;
                }
                i += word.len();
            }
            b'-' | b'0'..=b'9' => match scan_number(b, i) {
                Some(n) => i = n,
                None => return false,
            },
            _ => return false,
        }
        // A value just ended: close containers until a comma asks for the next one.
        loop {
            i = skip_plain_ws(b, i);
            if depth == 0 {
                return i == b.len();
            }
            let obj = kinds[(depth - 1) / 64] & (1u64 << ((depth - 1) % 64)) != 0;
            match b.get(i) {
                Some(b',') => {
                    if obj {
                        match scan_key_into(b, i + 1, sink) {
                            Some(n) => i = n,
                            None => return false,
                        }
                    } else {
                        i += 1;
                    }
                    break;
                }
                Some(b']') if !obj => {
                    depth -= 1;
                    i += 1;
                }
                Some(b'}') if obj => {
                    depth -= 1;
                    i += 1;
                    sink.close();
                }
                _ => return false,
            }
        }
    }
}

#[inline]
pub(super) fn skip_plain_ws(b: &[u8], mut i: usize) -> usize {
    while let Some(&c) = b.get(i) {
        if !matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
            break;
        }
        i += 1;
        // Pretty-printed text indents with runs of spaces: take 8 at a time.
        while b.get(i..i + 8) == Some(b"        ") {
            i += 8;
        }
    }
    i
}

pub(super) const ONES: u64 = 0x0101_0101_0101_0101;
pub(super) const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Whether any of the 8 bytes is '"', '\\' or a control char; exact as to
/// existence, which is all the caller needs before a bytewise look.
#[inline]
pub(super) fn has_string_special(x: u64) -> bool {
    let q = x ^ (ONES * u64::from(b'"'));
    let bs = x ^ (ONES * u64::from(b'\\'));
    let zero_q = q.wrapping_sub(ONES) & !q;
    let zero_bs = bs.wrapping_sub(ONES) & !bs;
    let ctrl = x.wrapping_sub(ONES * 0x20) & !x;
    (zero_q | zero_bs | ctrl) & HIGHS != 0
}

/// Scans a string body starting after the opening quote; returns the index
/// after the closing quote.
#[inline]
pub(super) fn scan_string(b: &[u8], mut i: usize) -> Option<usize> {
    loop {
        while let Some(chunk) = b.get(i..i + 8) {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            if has_string_special(u64::from_le_bytes(word)) {
                break;
            }
            i += 8;
        }
        loop {
            let c = *b.get(i)?;
            if c == b'"' {
                return Some(i + 1);
            }
            if c == b'\\' {
                i = scan_escape(b, i + 1)?;
                break;
            }
            if c < 0x20 {
                return None;
            }
            i += 1;
        }
    }
}

#[inline]
pub(super) fn hex4(b: &[u8], i: usize) -> Option<u16> {
    let digits = b.get(i..i + 4)?;
    let mut v = 0u16;
    for &d in digits {
        v = (v << 4) | u16::from(hex_value(d)?);
    }
    Some(v)
}

#[inline]
pub(super) fn hex_value(d: u8) -> Option<u8> {
    match d {
        b'0'..=b'9' => Some(d - b'0'),
        b'a'..=b'f' => Some(d - b'a' + 10),
        b'A'..=b'F' => Some(d - b'A' + 10),
        _ => None,
    }
}

/// Escape after the backslash; a high surrogate must be paired with a low one.
#[inline]
pub(super) fn scan_escape(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(i + 1),
        b'u' => {
            let v = hex4(b, i + 1)?;
            let i = i + 5;
            match v {
                0xD800..=0xDBFF => {
                    if b.get(i) == Some(&b'\\') && b.get(i + 1) == Some(&b'u') {
                        match hex4(b, i + 2)? {
                            0xDC00..=0xDFFF => Some(i + 6),
                            _ => None,
                        }
                    } else {
                        None
                    }
                }
                0xDC00..=0xDFFF => None,
                _ => Some(i),
            }
        }
        _ => None,
    }
}

#[inline]
pub(super) fn scan_number(b: &[u8], mut i: usize) -> Option<usize> {
    if b[i] == b'-' {
        i += 1;
    }
    match *b.get(i)? {
        b'0' => i += 1,
        b'1'..=b'9' => i = skip_digits(b, i + 1),
        _ => return None,
    }
    if b.get(i) == Some(&b'.') {
        let start = i + 1;
        i = skip_digits(b, start);
        if i == start {
            return None;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let start = i;
        i = skip_digits(b, start);
        if i == start {
            return None;
        }
    }
    Some(i)
}

#[inline]
pub(super) fn skip_digits(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b'0'..=b'9')) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.
    #[test]
    fn example_strictshape() {
        use crate::json::jackson::strict::StrictShape;
        use crate::json::jackson::strict::strict_shape;
        assert_eq!(
            strict_shape(r#" {"a":1,"b":{"a":2}} "#),
            StrictShape::Object { plain: true }
        );
        assert_eq!(
            strict_shape(r#"{"a":1,"a":2}"#),
            StrictShape::Object { plain: false }
        );
        assert_eq!(strict_shape("[1e400]"), StrictShape::Value { plain: true });
        assert_eq!(strict_shape("3.0 + 5.0 = 8.0"), StrictShape::Invalid);
    }
}
