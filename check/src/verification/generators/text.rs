//! Texts: numbers, words, whitespace, JSON values and the texts built
//! from them, long and deeply nested ones included.

use proptest::collection::vec;
use proptest::prelude::*;

use super::s;
use crate::verification::oracle::Json;

/// A JSON number's text: small and big integers, decimals, exponents
/// (some overflowing a double), and decimals with more digits than a
/// double holds.
///
/// ```
/// use proptest::{strategy::{Strategy, ValueTree}, test_runner::TestRunner};
/// let t = toolcall_check::verification::generators::number().new_tree(&mut TestRunner::deterministic()).unwrap().current();
/// assert!(toolcall_check::verification::oracle::is_whole_json(&t));
/// ```
pub fn number() -> BoxedStrategy<String> {
    prop_oneof![
        6 => "-?(0|[1-9][0-9]{0,3})",
        4 => "-?(0|[1-9][0-9]{0,2})\\.[0-9]{1,3}",
        2 => "-?[1-9](\\.[0-9]{1,2})?[eE][+-]?[0-9]{1,3}",
        1 => "-?[1-9][0-9]{17,30}",
        1 => "-?[0-9]\\.[0-9]{16,30}",
    ]
    .boxed()
}

/// A word: ASCII letters, upper case, or a non-ASCII or JSON-ish word.
pub fn word() -> BoxedStrategy<String> {
    prop_oneof![
        6 => "[a-z]{1,6}",
        2 => "[A-Z][A-Za-z]{0,5}",
        2 => s(&["größe", "日本語", "naïve", "😀", "Ωmega", "NaN", "Infinity", "nullable", "e", "x1"]),
    ]
    .boxed()
}

/// Whitespace of every kind: JSON's four, Java-only ones, non-breaking and
/// other Unicode spaces, a BOM.
pub(crate) fn whitespace() -> BoxedStrategy<String> {
    vec(
        s(&[
            " ", "\t", "\n", "\r", "\u{a0}", "\u{2003}", "\u{3000}", "\u{b}", "\u{c}", "\u{feff}",
            "\u{1c}",
        ]),
        1..4,
    )
    .prop_map(|v| v.concat())
    .boxed()
}

/// The content of a JSON string literal, already escaped: plain text,
/// escapes of every kind, non-ASCII characters.
fn string_content() -> BoxedStrategy<String> {
    vec(
        prop_oneof![
            5 => "[a-z ]{0,6}",
            2 => s(&["\\\"", "\\\\", "\\n", "\\t", "\\/", "\\u00e9", "\\ud83d\\ude00", "\\u0000"]),
            1 => s(&["é", "日本", "😀", "\u{7f}", "\u{2028}"]),
        ],
        0..4,
    )
    .prop_map(|v| v.concat())
    .boxed()
}

/// A JSON value as a tree, its strings as literal text; rendered by
/// [`render`].
fn json_tree() -> BoxedStrategy<Json> {
    let leaf = prop_oneof![
        3 => number().prop_map(Json::Num),
        3 => string_content().prop_map(Json::Str),
        1 => any::<bool>().prop_map(Json::Bool),
        1 => Just(Json::Null),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(Json::Arr),
            // A small pool of keys so that duplicate keys arise.
            vec((s(&["a", "b", "k", "result", "error"]), inner), 0..4).prop_map(Json::Obj),
        ]
    })
    .boxed()
}

fn render(j: &Json, spaced: bool, out: &mut String) {
    let sep = if spaced { ", " } else { "," };
    let colon = if spaced { ": " } else { ":" };
    match j {
        Json::Null => out.push_str("null"),
        Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Json::Num(n) => out.push_str(n),
        Json::Str(c) => {
            out.push('"');
            out.push_str(c);
            out.push('"');
        }
        Json::Arr(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(sep);
                }
                render(x, spaced, out);
            }
            out.push(']');
        }
        Json::Obj(entries) => {
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(sep);
                }
                out.push('"');
                out.push_str(k);
                out.push('"');
                out.push_str(colon);
                render(v, spaced, out);
            }
            out.push('}');
        }
    }
}

/// One whole JSON value of any type, compact or spaced, sometimes with JSON
/// whitespace around it.
pub(crate) fn json_text() -> BoxedStrategy<String> {
    (
        json_tree(),
        any::<bool>(),
        prop_oneof![8 => Just(String::new()), 1 => s(&[" ", "\n", "\t", "\r\n"])],
        prop_oneof![8 => Just(String::new()), 1 => s(&[" ", "\n", "\r\n  "])],
    )
        .prop_map(|(j, spaced, lead, trail)| {
            let mut out = lead;
            render(&j, spaced, &mut out);
            out.push_str(&trail);
            out
        })
        .boxed()
}

/// A JSON object's text (for arguments).
pub(crate) fn json_object_text() -> BoxedStrategy<String> {
    (
        vec((s(&["q", "city", "n", "q"]), json_tree()), 0..3),
        any::<bool>(),
    )
        .prop_map(|(entries, spaced)| {
            let mut out = String::new();
            render(&Json::Obj(entries), spaced, &mut out);
            out
        })
        .boxed()
}

/// One piece of free text.
fn token() -> BoxedStrategy<String> {
    prop_oneof![
        4 => number(),
        3 => word(),
        2 => s(&["+", "-", "*", "/", "=", "%", ":", ",", ".", "!", "?", "#", "$"]),
        2 => s(&["[", "]", "{", "}", "(", ")", "\"", "'"]),
        1 => s(&["true", "false", "null"]),
        1 => string_content().prop_map(|c| format!("\"{c}\"")),
    ]
    .boxed()
}

/// Free text built from pieces with a separator after each: numbers,
/// words, operators, brackets, quotes, literals. `3.0 + 5.0 = 8.0` and
/// `[ERROR] disk full` are two of the texts this builds.
pub(crate) fn expression() -> BoxedStrategy<String> {
    vec((token(), s(&[" ", "", " ", "\n", ", ", "\t"])), 1..6)
        .prop_map(|pieces| {
            let n = pieces.len();
            let mut out = String::new();
            for (i, (t, sep)) in pieces.into_iter().enumerate() {
                out.push_str(&t);
                if i + 1 < n {
                    out.push_str(&sep);
                }
            }
            out
        })
        .boxed()
}

/// A very long text: a repeated word (2 to 60 thousand bytes), sometimes
/// as a JSON string.
pub(crate) fn long_text() -> BoxedStrategy<String> {
    (word(), 1000usize..6000, any::<bool>())
        .prop_map(|(t, n, quoted)| {
            let body = format!("{t} ").repeat(n.max(1));
            if quoted { format!("\"{body}\"") } else { body }
        })
        .boxed()
}

/// A deeply nested text, balanced or not, up to 700 levels (Jackson's limit
/// is 500).
pub(crate) fn deep_text(balanced_only: bool) -> BoxedStrategy<String> {
    (1usize..700, 0u8..4)
        .prop_map(move |(d, kind)| {
            let kind = if balanced_only { kind % 2 } else { kind };
            match kind {
                0 => format!("{}1{}", "[".repeat(d), "]".repeat(d)),
                1 => format!("{}1{}", "{\"a\":".repeat(d), "}".repeat(d)),
                2 => format!("{} x", "[".repeat(d)),
                _ => format!("{}{} tail", "[".repeat(d), "]".repeat(d)),
            }
        })
        .boxed()
}

/// Any text a tool, a model or an exception may produce.
pub fn text() -> BoxedStrategy<String> {
    prop_oneof![
        30 => json_text(),
        20 => expression(),
        10 => (json_text(), s(&["", " ", "\n"]), expression())
            .prop_map(|(j, sep, tail)| format!("{j}{sep}{tail}")),
        8 => vec(word(), 1..4).prop_map(|w| w.join(" ")),
        4 => Just(String::new()),
        4 => whitespace(),
        1 => long_text(),
        1 => deep_text(false),
    ]
    .boxed()
}

/// Text a method tool returns: one whole JSON value.
pub(crate) fn json_only_text() -> BoxedStrategy<String> {
    prop_oneof![
        30 => json_text(),
        1 => long_text().prop_map(|t| format!("\"{}\"", t.trim_matches('"'))),
        1 => deep_text(true),
    ]
    .boxed()
}
