//! The `lenient_parser` target and its reference: the compact decision
//! procedure of `docs/JSON.md` for the root, written apart from
//! [`toolcall_model::json::read_lenient`], and the depth limit's boundary.

use std::fmt::Debug;

use serde_json::Value;

use crate::verification::oracle::{JACKSON_MAX_DEPTH, Scan, scan_strict, scan_value};
use toolcall_model::json;

use super::compare::{same_json, serde_reference};
use super::{MAX_BYTES, fail};

pub(super) fn skip_ws(s: &[u8], mut i: usize) -> usize {
    while matches!(s.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// The reference's verdict on a root-level lenient read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Lenient {
    /// Accepted: the value is the strict JSON text `text[start..end]`.
    Accept {
        /// Where the value starts.
        start: usize,
        /// What the scan found.
        scan: Scan,
    },
    /// Rejected.
    Reject,
    /// The reference does not decide (a rule it does not model: the Unicode
    /// identifier table, lone surrogates, the limits' edges).
    Unknown,
}

/// `Character.isJavaIdentifierPart` for ASCII at or above `'0'`; `None` for
/// non-ASCII (the reference has no Unicode table).
pub(super) fn ascii_identifier_part(c: char) -> Option<bool> {
    c.is_ascii()
        .then(|| c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '\u{7f}')
}

/// the compact decision procedure of `docs/JSON.md` for the root, written
/// independently of `jackson.rs`.
pub(crate) fn lenient_reference(text: &str) -> Lenient {
    let s = text.as_bytes();
    let start = skip_ws(s, 0);
    let Some(&first) = s.get(start) else {
        return Lenient::Reject;
    };
    let decided = |scan: Scan| {
        if scan.beyond_limits() {
            Lenient::Reject
        } else if scan.within_limits() && !scan.lone_surrogate {
            Lenient::Accept { start, scan }
        } else {
            Lenient::Unknown
        }
    };
    match first {
        b'{' | b'[' | b'"' => match scan_value(text, start) {
            Some(scan) => decided(scan),
            None => Lenient::Reject,
        },
        b't' | b'f' | b'n' => {
            let lit = match first {
                b't' => "true",
                b'f' => "false",
                _ => "null",
            };
            if !text[start..].starts_with(lit) {
                return Lenient::Reject;
            }
            let end = start + lit.len();
            let accept = Lenient::Accept {
                start,
                scan: Scan {
                    end,
                    ..Scan::default()
                },
            };
            match text[end..].chars().next() {
                None => accept,
                Some(c) if c < '0' || c == ']' || c == '}' => accept,
                Some(c) => match ascii_identifier_part(c) {
                    Some(true) => Lenient::Reject,
                    Some(false) => accept,
                    None => Lenient::Unknown,
                },
            }
        }
        b'-' | b'0'..=b'9' => match scan_value(text, start) {
            Some(scan) => {
                if !matches!(s.get(scan.end), None | Some(b' ' | b'\t' | b'\n' | b'\r')) {
                    return Lenient::Reject;
                }
                decided(scan)
            }
            None => Lenient::Reject,
        },
        _ => Lenient::Reject,
    }
}
// ---------------------------------------------------------------------------
// Target: lenient_parser
// ---------------------------------------------------------------------------

/// The lenient_parser target: arbitrary text through
/// [`json::read_lenient`] and [`json::read_strict`].
///
/// * neither panics nor overflows the stack, at any depth;
/// * `is_strict_json` and `strict_shape` agree with `read_strict`, and all with the reference
///   scanner (one whole RFC 8259 value, nesting at most 500, no lone
///   surrogate);
/// * where `read_strict` accepts, `read_lenient` gives the same value;
/// * `read_lenient` accepts exactly what the decision procedure of docs/JSON.md
///   accepts (where the reference decides), with the value of the accepted
///   prefix read strictly, and serde_json's value where it can read it;
/// * the depth limit is exact: the accepted value wrapped to depth 500 is
///   accepted with trailing text kept unread, and to depth 501 rejected.
///
/// ```
/// toolcall_check::verification::fuzzing::lenient_parser(b"3.0 + 5.0 = 8.0");
/// ```
pub fn lenient_parser(data: &[u8]) {
    const T: &str = "lenient_parser";
    if data.len() > MAX_BYTES {
        return;
    }
    let text = String::from_utf8_lossy(data);
    let text = text.as_ref();
    let lenient = json::read_lenient(text);
    let strict = json::read_strict(text);
    if json::is_strict_json(text) != strict.is_some() {
        fail(T, "is_strict_json disagrees with read_strict", &text);
    }
    let shape = json::strict_shape(text);
    let shape_ok = match (&shape, &strict) {
        (json::StrictShape::Invalid, None) => true,
        (json::StrictShape::Object { .. }, Some(v)) => matches!(v, json::JValue::Object(_)),
        (json::StrictShape::Value { .. }, Some(v)) => !matches!(v, json::JValue::Object(_)),
        _ => false,
    };
    if !shape_ok {
        fail(
            T,
            "strict_shape disagrees with read_strict",
            &(text, shape, &strict),
        );
    }
    // read_strict's contract: one whole RFC 8259 value, nesting at most
    // 500, no lone surrogate, no length limits.
    let expected_strict =
        scan_strict(text).is_some_and(|sc| sc.depth <= JACKSON_MAX_DEPTH && !sc.lone_surrogate);
    if expected_strict != strict.is_some() {
        fail(
            T,
            "read_strict disagrees with the reference scanner",
            &(text, &strict),
        );
    }
    if let Some(v) = &strict {
        match &lenient {
            Ok(l) if l == v => {}
            Ok(l) => fail(
                T,
                "read_lenient and read_strict differ on strict JSON",
                &(text, l, v),
            ),
            Err(e) => fail(
                T,
                "read_lenient refused what read_strict accepts",
                &(text, e),
            ),
        }
    }
    match lenient_reference(text) {
        Lenient::Accept { start, scan } => {
            let Ok(got) = &lenient else {
                fail(
                    T,
                    "read_lenient refused a text docs/JSON.md accepts",
                    &(text, &lenient),
                );
            };
            let prefix = &text[start..scan.end];
            match json::read_strict(prefix) {
                Some(p) if &p == got => {}
                other => fail(
                    T,
                    "the lenient value is not the accepted prefix read strictly",
                    &(text, prefix, got, other),
                ),
            }
            if let Some(reference) = serde_reference(prefix)
                && !same_json(&reference, &got.to_serde())
            {
                fail(
                    T,
                    "the lenient value differs from serde_json's",
                    &(text, reference, got),
                );
            }
            depth_boundary(text, start, scan, data.len().is_multiple_of(2));
        }
        Lenient::Reject => {
            if let Ok(v) = &lenient {
                fail(
                    T,
                    "read_lenient accepted a text docs/JSON.md refuses",
                    &(text, v),
                );
            }
        }
        Lenient::Unknown => {}
    }
}

/// Wraps the accepted value in arrays (or objects) up to depth exactly 500
/// and 501, with the original trailing text after the close brackets.
pub(super) fn depth_boundary(text: &str, start: usize, scan: Scan, objects: bool) {
    const T: &str = "lenient_parser";
    let value = &text[start..scan.end];
    let rest = &text[scan.end..];
    let Some(inner) = json::read_strict(value) else {
        return; // already reported by the caller
    };
    let (open, close) = if objects {
        ("{\"k\":", "}")
    } else {
        ("[", "]")
    };
    for n in [
        JACKSON_MAX_DEPTH - scan.depth,
        JACKSON_MAX_DEPTH + 1 - scan.depth,
    ] {
        let mut w = String::with_capacity(value.len() + rest.len() + n * (open.len() + 1));
        for _ in 0..n {
            w.push_str(open);
        }
        w.push_str(value);
        for _ in 0..n {
            w.push_str(close);
        }
        // After the outermost close bracket nothing is read (rule 5).
        if n > 0 {
            w.push_str(rest);
        }
        let got = json::read_lenient(&w);
        let depth = n + scan.depth;
        match got {
            Ok(v) if depth <= JACKSON_MAX_DEPTH => {
                // Unwrap n levels without recursion.
                let mut cur = v.to_serde();
                for _ in 0..n {
                    cur = match cur {
                        Value::Array(mut a) if !objects && a.len() == 1 => a.remove(0),
                        Value::Object(mut m) if objects && m.len() == 1 => {
                            m.remove("k").unwrap_or(Value::Null)
                        }
                        other => fail(T, "a wrapped value lost its wrapping", &(n, other)),
                    };
                }
                if cur != inner.to_serde() {
                    fail(T, "a wrapped value changed", &(text, n, cur, &inner));
                }
            }
            Ok(_) => fail(T, "nesting deeper than 500 was accepted", &(text, depth)),
            Err(e) if depth <= JACKSON_MAX_DEPTH => {
                fail(T, "nesting of at most 500 was refused", &(text, depth, e))
            }
            Err(_) => {}
        }
    }
}
