//! The checker's one JSON reader (RFC 8259), written independently of
//! [`toolcall_model::json::read_lenient`]: iterative, so that no depth overflows the
//! stack; it builds a [`Json`] tree when asked and measures what Jackson's
//! limits look at ([`Scan`]). The JSON-safe and lossless invariants, the
//! fuzz bodies' reference for the Jackson-faithful parser and the property
//! tests all read JSON through it.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::limits::{JACKSON_MAX_DEPTH, JACKSON_MAX_NAME_LEN, JACKSON_MAX_NUMBER_LEN};

/// A JSON value as a tree. Objects hold each key once: a repeated key
/// replaces the value at the key's first position, as Jackson's
/// `LinkedHashMap.put` does. The reader holds a string's decoded content in
/// [`Json::Str`]; the generators hold the literal's text between its quotes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as written.
    Num(String),
    /// A string.
    Str(String),
    /// An array.
    Arr(Vec<Json>),
    /// An object, in order of first appearance.
    Obj(Vec<(String, Json)>),
}

/// What the reader learned about one JSON value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Scan {
    /// Byte offset just after the value.
    pub end: usize,
    /// Deepest nesting of `[`/`{` (0 for a scalar).
    pub depth: usize,
    /// Digits of the longest number (integer, fraction and exponent digits).
    pub longest_number: usize,
    /// UTF-16 units of the longest object key.
    pub longest_key: usize,
    /// Whether a `\u` escape leaves a lone surrogate (Jackson keeps it; a
    /// Rust string cannot).
    pub lone_surrogate: bool,
}

impl Scan {
    /// Whether Jackson's limits certainly accept this value: depth at most
    /// 500, numbers at most 1000 digits, names at most 50,000 units.
    pub(crate) fn within_limits(&self) -> bool {
        self.depth <= JACKSON_MAX_DEPTH
            && self.longest_number <= JACKSON_MAX_NUMBER_LEN
            && self.longest_key <= JACKSON_MAX_NAME_LEN
    }

    /// Whether Jackson certainly rejects this value on its limits (the
    /// number-length quirk of docs/JSON.md A.13 lets a float through with up
    /// to two more digits, so those are neither).
    pub(crate) fn beyond_limits(&self) -> bool {
        self.depth > JACKSON_MAX_DEPTH
            || self.longest_number > JACKSON_MAX_NUMBER_LEN + 2
            || self.longest_key > JACKSON_MAX_NAME_LEN
    }
}

/// Deepest nesting the reader builds a tree for; deeper texts are only
/// validated.
pub(crate) const REF_MAX_DEPTH: usize = 2000;

/// What the reader made of a whole text.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Whole {
    /// One whole value. `beyond` says Jackson's limits or Rust strings cannot
    /// carry it faithfully (deeper than 500, or an unpaired surrogate
    /// escape held as U+FFFD), so a verbatim wrap also counts as recovered.
    Value { value: Json, beyond: bool },
    /// Valid, but deeper than [`REF_MAX_DEPTH`]: no tree was built.
    TooDeep,
    /// Not one whole JSON value.
    NotJson,
}

enum Frame {
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>, HashMap<String, usize>, String),
}

struct Reader<'a> {
    b: &'a [u8],
    s: &'a str,
    i: usize,
    build: bool,
    scan: Scan,
}

impl<'a> Reader<'a> {
    fn new(s: &'a str, i: usize, build: bool) -> Self {
        Reader {
            b: s.as_bytes(),
            s,
            i,
            build,
            scan: Scan::default(),
        }
    }

    fn ws(&mut self) {
        while matches!(self.b.get(self.i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.i += 1;
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while self.b.get(self.i).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> Option<Json> {
        let start = self.i;
        if self.b.get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        let mut count = match self.b.get(self.i) {
            Some(b'0') => {
                self.i += 1;
                1
            }
            Some(b'1'..=b'9') => self.digits(),
            _ => return None,
        };
        if self.b.get(self.i) == Some(&b'.') {
            self.i += 1;
            match self.digits() {
                0 => return None,
                n => count += n,
            }
        }
        if matches!(self.b.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.b.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            match self.digits() {
                0 => return None,
                n => count += n,
            }
        }
        self.scan.longest_number = self.scan.longest_number.max(count);
        Some(if self.build {
            Json::Num(self.s[start..self.i].to_owned())
        } else {
            Json::Null
        })
    }

    fn hex4(&mut self) -> Option<u32> {
        let h = self.s.get(self.i..self.i + 4)?;
        if !h.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        self.i += 4;
        u32::from_str_radix(h, 16).ok()
    }

    /// A string literal; `self.i` is at the opening quote. Its content (when
    /// building) and its length in UTF-16 units.
    fn string(&mut self) -> Option<(String, usize)> {
        self.i += 1;
        let mut out = String::new();
        let mut units = 0usize;
        loop {
            let start = self.i;
            while let Some(&c) = self.b.get(self.i) {
                if c == b'"' || c == b'\\' || c < 0x20 {
                    break;
                }
                units += match c {
                    0x80..=0xBF => 0,
                    0xF0..=0xFF => 2,
                    _ => 1,
                };
                self.i += 1;
            }
            if self.build {
                out.push_str(&self.s[start..self.i]);
            }
            match self.b.get(self.i)? {
                b'"' => {
                    self.i += 1;
                    return Some((out, units));
                }
                b'\\' => {
                    self.i += 1;
                    let e = *self.b.get(self.i)?;
                    self.i += 1;
                    units += 1;
                    let c = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let u = self.hex4()?;
                            if (0xD800..0xDC00).contains(&u) && self.s[self.i..].starts_with("\\u")
                            {
                                let save = self.i;
                                self.i += 2;
                                match self.hex4() {
                                    Some(l) if (0xDC00..0xE000).contains(&l) => {
                                        units += 1;
                                        let cp = 0x10000 + ((u - 0xD800) << 10) + (l - 0xDC00);
                                        char::from_u32(cp).unwrap_or('\u{fffd}')
                                    }
                                    _ => {
                                        self.i = save;
                                        self.scan.lone_surrogate = true;
                                        '\u{fffd}'
                                    }
                                }
                            } else {
                                char::from_u32(u).unwrap_or_else(|| {
                                    self.scan.lone_surrogate = true;
                                    '\u{fffd}'
                                })
                            }
                        }
                        _ => return None,
                    };
                    if self.build {
                        out.push(c);
                    }
                }
                _ => return None,
            }
        }
    }

    fn literal(&mut self, word: &str, v: Json) -> Option<Json> {
        if self.s[self.i..].starts_with(word) {
            self.i += word.len();
            Some(v)
        } else {
            None
        }
    }

    /// One value from `self.i` (after JSON whitespace); with `whole`, only
    /// JSON whitespace may follow it. `self.scan` holds what was measured,
    /// its `end` just after the value.
    fn value(&mut self, whole: bool) -> Option<Json> {
        let mut stack: Vec<Frame> = Vec::new();
        'value: loop {
            self.ws();
            let mut value = match *self.b.get(self.i)? {
                open @ (b'{' | b'[') => {
                    let obj = open == b'{';
                    self.i += 1;
                    self.scan.depth = self.scan.depth.max(stack.len() + 1);
                    if self.build && stack.len() >= REF_MAX_DEPTH {
                        // Validate the rest without building.
                        self.build = false;
                    }
                    self.ws();
                    let close = if obj { b'}' } else { b']' };
                    if self.b.get(self.i) == Some(&close) {
                        self.i += 1;
                        if obj {
                            Json::Obj(vec![])
                        } else {
                            Json::Arr(vec![])
                        }
                    } else if obj {
                        let key = self.key()?;
                        stack.push(Frame::Obj(vec![], HashMap::new(), key));
                        continue 'value;
                    } else {
                        stack.push(Frame::Arr(vec![]));
                        continue 'value;
                    }
                }
                b'"' => Json::Str(self.string()?.0),
                b't' => self.literal("true", Json::Bool(true))?,
                b'f' => self.literal("false", Json::Bool(false))?,
                b'n' => self.literal("null", Json::Null)?,
                b'-' | b'0'..=b'9' => self.number()?,
                _ => return None,
            };
            loop {
                let Some(top) = stack.last_mut() else {
                    self.scan.end = self.i;
                    if whole {
                        self.ws();
                        if self.i != self.b.len() {
                            return None;
                        }
                    }
                    return Some(value);
                };
                match top {
                    Frame::Arr(items) => {
                        if self.build {
                            items.push(value);
                        }
                    }
                    Frame::Obj(entries, index, key) => {
                        if self.build {
                            let k = std::mem::take(key);
                            match index.get(&k) {
                                Some(&at) => entries[at].1 = value,
                                None => {
                                    index.insert(k.clone(), entries.len());
                                    entries.push((k, value));
                                }
                            }
                        }
                    }
                }
                self.ws();
                let is_obj = matches!(top, Frame::Obj(..));
                match *self.b.get(self.i)? {
                    b',' => {
                        self.i += 1;
                        if is_obj {
                            let k = self.key()?;
                            if let Some(Frame::Obj(_, _, key)) = stack.last_mut() {
                                *key = k;
                            }
                        }
                        continue 'value;
                    }
                    b']' if !is_obj => {
                        self.i += 1;
                        value = match stack.pop() {
                            Some(Frame::Arr(items)) => Json::Arr(items),
                            _ => Json::Null,
                        };
                    }
                    b'}' if is_obj => {
                        self.i += 1;
                        value = match stack.pop() {
                            Some(Frame::Obj(entries, _, _)) => Json::Obj(entries),
                            _ => Json::Null,
                        };
                    }
                    _ => return None,
                }
            }
        }
    }

    /// `"key" :` inside an object.
    fn key(&mut self) -> Option<String> {
        self.ws();
        if self.b.get(self.i) != Some(&b'"') {
            return None;
        }
        let (k, units) = self.string()?;
        self.scan.longest_key = self.scan.longest_key.max(units);
        self.ws();
        if self.b.get(self.i) != Some(&b':') {
            return None;
        }
        self.i += 1;
        Some(k)
    }
}

/// `text` read whole, with a tree when `build` (up to [`REF_MAX_DEPTH`]).
pub(crate) fn read_whole(text: &str, build: bool) -> Whole {
    let mut r = Reader::new(text, 0, build);
    match r.value(true) {
        Some(_) if build && r.scan.depth > REF_MAX_DEPTH => Whole::TooDeep,
        Some(value) => Whole::Value {
            value,
            beyond: r.scan.depth > JACKSON_MAX_DEPTH || r.scan.lone_surrogate,
        },
        None => Whole::NotJson,
    }
}

/// Whether `text` is one whole JSON value by RFC 8259: one value, only
/// space, tab, LF and CR around it, any nesting depth, unpaired surrogate
/// escapes allowed (the RFC's grammar allows them). Written independently of
/// [`toolcall_model::json::read_lenient`], as the oracle for the JSON-safe invariant.
///
/// ```
/// use toolcall_check::verification::oracle::is_whole_json;
/// assert!(is_whole_json(" {\"a\": [1, -2.5e3, \"\\ud800\"]}\n"));
/// assert!(!is_whole_json("3.0 + 5.0 = 8.0"));
/// assert!(!is_whole_json(""));
/// assert!(!is_whole_json("Tool call limit (1) exceeded for tool 'x'."));
/// assert!(is_whole_json(&format!("{}{}", "[".repeat(10_000), "]".repeat(10_000))));
/// ```
pub fn is_whole_json(text: &str) -> bool {
    !matches!(read_whole(text, false), Whole::NotJson)
}

/// One strict JSON value starting at byte `start` of `text` (after any
/// whitespace): `None` if it is not one.
pub(crate) fn scan_value(text: &str, start: usize) -> Option<Scan> {
    let mut r = Reader::new(text, start, false);
    r.value(false).map(|_| r.scan)
}

/// Whether `text` is one whole JSON value with only RFC whitespace around
/// it; the scan (with `end` relative to `text`).
pub(crate) fn scan_strict(text: &str) -> Option<Scan> {
    let mut r = Reader::new(text, 0, false);
    r.value(true).map(|_| r.scan)
}

/// The tree as a `serde_json` value (numbers `serde_json` cannot hold as
/// strings).
pub(crate) fn json_to_value(j: &Json) -> Value {
    match j {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Num(n) => n
            .parse::<serde_json::Number>()
            .map_or_else(|_| Value::String(n.clone()), Value::Number),
        Json::Str(s) => Value::String(s.clone()),
        Json::Arr(a) => Value::Array(a.iter().map(json_to_value).collect()),
        Json::Obj(o) => {
            let mut m = Map::new();
            for (k, v) in o {
                m.insert(k.clone(), json_to_value(v));
            }
            Value::Object(m)
        }
    }
}

/// Whether the payload value equals the reference value: numbers as exact
/// decimals, objects as key sets.
pub(crate) fn json_equals(a: &Json, b: &Value) -> bool {
    match (a, b) {
        (Json::Null, Value::Null) => true,
        (Json::Bool(x), Value::Bool(y)) => x == y,
        (Json::Num(x), Value::Number(y)) => toolcall_model::json::same_number(x, &y.to_string()),
        (Json::Str(x), Value::String(y)) => x == y,
        (Json::Arr(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_equals(p, q))
        }
        (Json::Obj(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equals(v, w)))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reader_agrees_with_serde_on_simple_texts() {
        for t in [
            "1",
            "-0",
            "1.5e3",
            "\"a\\u00e9\"",
            "[1,2]",
            "{\"a\":1}",
            " true ",
            "null",
            "[]",
            "{}",
            "01",
            "1.",
            "[1,]",
            "{\"a\"}",
            "nul",
            "\"\\x\"",
            "1 2",
            "",
        ] {
            assert_eq!(
                is_whole_json(t),
                serde_json::from_str::<Value>(t).is_ok(),
                "{t:?}"
            );
        }
    }

    #[test]
    fn deep_texts_are_validated_without_a_tree() {
        let deep = format!("{}1{}", "[".repeat(3000), "]".repeat(3000));
        assert!(is_whole_json(&deep));
        assert_eq!(read_whole(&deep, true), Whole::TooDeep);
        let v = format!("{}1{}", "[".repeat(600), "]".repeat(600));
        assert!(matches!(
            read_whole(&v, true),
            Whole::Value { beyond: true, .. }
        ));
        assert!(!is_whole_json(&"[".repeat(100_000)));
    }

    #[test]
    fn duplicate_keys_keep_the_first_position_and_the_last_value() {
        let Whole::Value { value, .. } = read_whole(r#"{"a":1,"b":2,"a":3}"#, true) else {
            panic!()
        };
        assert_eq!(
            json_to_value(&value).to_string(),
            r#"{"a":3,"b":2}"#.to_owned()
        );
    }

    #[test]
    fn scanner_measures_depth_numbers_and_keys() {
        let sc = scan_strict(r#" {"ab":[1.25e10,[]],"😀":-0} "#).unwrap();
        assert_eq!((sc.depth, sc.longest_number, sc.longest_key), (3, 5, 2));
        assert!(scan_strict(r#"{"a":1,}"#).is_none());
        assert!(scan_strict("\"\u{1}\"").is_none());
        assert!(scan_strict(r#""\ud83d\ude00""#).is_some_and(|s| !s.lone_surrogate));
        assert_eq!(scan_strict(" 1 ").map(|s| s.end), Some(2));
        assert_eq!(scan_value("[1] x", 0).map(|s| s.end), Some(3));
    }
}
