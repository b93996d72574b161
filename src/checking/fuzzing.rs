//! Fuzz target bodies, kept in the library (as rustls' `internal::fuzzing`)
//! so that each target in `fuzz/` is one line and `tests/fuzz_replay.rs`
//! replays the checked-in corpus and every saved crash through the very same
//! functions on stable Rust.
//!
//! Every target takes the raw input bytes, rejects oversized inputs at once,
//! and asserts an invariant, not just "no panic":
//!
//! * [`convert`]: tool output through the upstream and fixed conversions;
//! * [`lenient_parser`]: text through the Jackson-faithful parser, checked
//!   against an independent reading of the decision procedure of `docs/JSON.md`;
//! * [`manager`]: an [`arbitrary`] scenario through the manager, batch by batch;
//! * [`tool_loop`]: an [`arbitrary`] multi-round loop with memory;
//! * [`vector_file`]: bytes as a vector file;
//! * [`config`]: bytes as an `application.properties` and an
//!   `application.yml`, through the binding and `check`'s setup.
//!
//! A failed check panics with a reproducer: the decoded case (`Debug`) and,
//! for the scenario targets, the scenario as a vector that
//! `toolcall-model run` replays.

use std::fmt::Debug;

use arbitrary::{Arbitrary, Unstructured};
use serde_json::{json, Map, Value};

use crate::chat::tool_loop::{EndKind, LoopConfig, LoopError, Memory, Provider};
use crate::checking::invariants::{check, Evidence, Invariant, Verdict};
use crate::checking::oracle::{scan_strict, scan_value, Scan, JACKSON_MAX_DEPTH};
use crate::checking::scenario::Scenario;
use crate::gemini::{convert_tool_response, parse_json_to_map, write_tool_response};
use crate::json::decimal::decimal;
use crate::json::jackson;
use crate::model::behavior::Fixes;
use crate::model::java::{
    ClassTable, JavaException, ILLEGAL_ARGUMENT, ILLEGAL_STATE, RUNTIME_EXCEPTION,
};
use crate::model::java::{THROWABLE, TOOL_CALL_LIMIT_EXCEEDED};
use crate::model::limits::{Counts, Limits, OnExceeded};
use crate::model::manager::{execute_tool_calls, execute_with_counts, Config, ManagerError};
use crate::model::message::{Generation, Message, ToolCall, ToolResponse};
use crate::model::processor::{json_error_text, Processor, ProcessorKind};
use crate::model::tools::{Outcome, Registered, ToolSpec};
use crate::vectors::{Op, Vector};

/// Largest input of the byte targets ([`convert`], [`lenient_parser`],
/// [`vector_file`], [`config`]); longer inputs are ignored.
pub const MAX_BYTES: usize = 64 * 1024;

/// Largest input of the scenario targets ([`manager`], [`tool_loop`]); the
/// decoded scenarios are bounded anyway (see [`MAX_CALLS`] and friends).
pub const MAX_CASE_BYTES: usize = 16 * 1024;

/// At most this many tool calls per generation.
pub const MAX_CALLS: usize = 8;
/// At most this many model replies (rounds) in a scenario.
pub const MAX_ROUNDS: usize = 8;
/// At most this many tools.
pub const MAX_TOOLS: usize = 5;
/// At most this many prior messages.
pub const MAX_PRIOR: usize = 8;
/// At most this many characters in a free-form text.
pub const MAX_TEXT_CHARS: usize = 48;

/// Panics with the target's name, what broke, and a reproducer.
#[track_caller]
fn fail(target: &str, what: &str, repro: &dyn Debug) -> ! {
    panic!("fuzz target `{target}`: {what}\nreproducer: {repro:#?}")
}

fn skip_ws(s: &[u8], mut i: usize) -> usize {
    while matches!(s.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// The reference's verdict on a root-level lenient read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lenient {
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
fn ascii_identifier_part(c: char) -> Option<bool> {
    c.is_ascii()
        .then(|| c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '\u{7f}')
}

/// the compact decision procedure of `docs/JSON.md` for the root, written
/// independently of `jackson.rs`.
pub fn lenient_reference(text: &str) -> Lenient {
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
// Value comparison: numbers as Jackson reads them.
// ---------------------------------------------------------------------------

/// Whether `got` is the number that Jackson reads from the lexeme
/// `expected`: an integer exactly; a float as the same `f64` (or, for an
/// infinity, the string Jackson writes for it).
fn same_number(expected: &serde_json::Number, got: &Value) -> bool {
    let e = expected.to_string();
    let is_float = e.contains(['.', 'e', 'E']);
    match got {
        Value::Number(g) if !is_float => {
            let g = g.to_string();
            match (decimal(&e), decimal(&g)) {
                (Some(x), Some(y)) => x == y,
                _ => e == g,
            }
        }
        Value::Number(g) => match (e.parse::<f64>(), g.to_string().parse::<f64>()) {
            (Ok(x), Ok(y)) => x == y,
            _ => false,
        },
        Value::String(s) if is_float => match e.parse::<f64>() {
            Ok(x) if x == f64::INFINITY => s == "Infinity",
            Ok(x) if x == f64::NEG_INFINITY => s == "-Infinity",
            _ => false,
        },
        _ => false,
    }
}

/// Whether `got` equals the reference value `expected`: same structure, keys
/// in the same order, numbers by value (as `same_number` compares them). Iterative.
pub fn same_json(expected: &Value, got: &Value) -> bool {
    compare_json(expected, got, false)
}

/// Whether `got` equals `expected` with every number equal as an exact
/// decimal (docs/INVARIANTS.md invariant 6's reading). Iterative.
pub fn exactly_same_json(expected: &Value, got: &Value) -> bool {
    compare_json(expected, got, true)
}

fn compare_json(expected: &Value, got: &Value, exact: bool) -> bool {
    let mut work = vec![(expected, got)];
    while let Some((e, g)) = work.pop() {
        match (e, g) {
            (Value::Number(n), Value::Number(m)) if exact => {
                let (n, m) = (n.to_string(), m.to_string());
                match (decimal(&n), decimal(&m)) {
                    (Some(x), Some(y)) if x == y => {}
                    // An exponent beyond i64: only the same text is surely equal.
                    (None, _) | (_, None) if n == m => {}
                    _ => return false,
                }
            }
            (Value::Number(n), g) => {
                if exact || !same_number(n, g) {
                    return false;
                }
            }
            (Value::Array(x), Value::Array(y)) => {
                if x.len() != y.len() {
                    return false;
                }
                work.extend(x.iter().zip(y));
            }
            (Value::Object(x), Value::Object(y)) => {
                if x.len() != y.len() || !x.keys().eq(y.keys()) {
                    return false;
                }
                work.extend(x.values().zip(y.values()));
            }
            (e, g) => {
                if e != g {
                    return false;
                }
            }
        }
    }
    true
}

/// The reference value of a strict JSON text nested at most 500 deep (the
/// strict reader's bound), read by serde_json (`arbitrary_precision`,
/// `preserve_order`, no recursion limit); `None` for other texts and for
/// lone surrogates, which serde_json refuses.
fn serde_reference(text: &str) -> Option<Value> {
    use serde::Deserialize;
    if scan_strict(text)?.depth > JACKSON_MAX_DEPTH {
        return None;
    }
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let v = Value::deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(v)
}

/// The payload the fixed conversion must produce for a value: an object as
/// is, anything else under `key`.
fn wrapped(v: Value, key: &str) -> Value {
    match v {
        Value::Object(_) => v,
        other => json!({ key: other }),
    }
}

// ---------------------------------------------------------------------------
// Target: lenient_parser
// ---------------------------------------------------------------------------

/// The lenient_parser target: arbitrary text through
/// [`jackson::read_lenient`] and [`jackson::read_strict`].
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
/// toolcall_model::checking::fuzzing::lenient_parser(b"3.0 + 5.0 = 8.0");
/// ```
pub fn lenient_parser(data: &[u8]) {
    const T: &str = "lenient_parser";
    if data.len() > MAX_BYTES {
        return;
    }
    let text = String::from_utf8_lossy(data);
    let text = text.as_ref();
    let lenient = jackson::read_lenient(text);
    let strict = jackson::read_strict(text);
    if jackson::is_strict_json(text) != strict.is_some() {
        fail(T, "is_strict_json disagrees with read_strict", &text);
    }
    let shape = jackson::strict_shape(text);
    let shape_ok = match (&shape, &strict) {
        (jackson::StrictShape::Invalid, None) => true,
        (jackson::StrictShape::Object { .. }, Some(v)) => matches!(v, jackson::JValue::Object(_)),
        (jackson::StrictShape::Value { .. }, Some(v)) => !matches!(v, jackson::JValue::Object(_)),
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
            match jackson::read_strict(prefix) {
                Some(p) if &p == got => {}
                other => fail(
                    T,
                    "the lenient value is not the accepted prefix read strictly",
                    &(text, prefix, got, other),
                ),
            }
            if let Some(reference) = serde_reference(prefix) {
                if !same_json(&reference, &got.to_serde()) {
                    fail(
                        T,
                        "the lenient value differs from serde_json's",
                        &(text, reference, got),
                    );
                }
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
fn depth_boundary(text: &str, start: usize, scan: Scan, objects: bool) {
    const T: &str = "lenient_parser";
    let value = &text[start..scan.end];
    let rest = &text[scan.end..];
    let Some(inner) = jackson::read_strict(value) else {
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
        let got = jackson::read_lenient(&w);
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

// ---------------------------------------------------------------------------
// Target: convert
// ---------------------------------------------------------------------------

/// The behaviour sets the convert target runs, with `error` off and on.
fn convert_fix_sets() -> [Fixes; 5] {
    let strict = Fixes {
        strict_json_or_wrap: true,
        ..Fixes::default()
    };
    let key = Fixes {
        error_key: true,
        ..Fixes::default()
    };
    [
        Fixes::upstream(),
        strict,
        key,
        Fixes {
            error_key: true,
            ..strict
        },
        Fixes::all(),
    ]
}

/// The convert target: arbitrary bytes (lossily decoded) as a tool's output.
///
/// * upstream never panics and, wherever the text is strict JSON, gives the
///   strict parser's value (an object as is, anything else under `result`);
/// * with `strict-json-or-wrap` the conversion never fails, always yields an
///   object and loses nothing (invariant 6): one whole JSON value is kept,
///   its numbers as exact decimals (serde_json's reading is the reference),
///   any other text is under `result` byte for byte;
/// * with `error-key` a failure's output is an object as is, or `{"error": TEXT}`;
/// * the JSON-error processor's text is strict JSON that reads back as the text.
///
/// ```
/// toolcall_model::checking::fuzzing::convert(b"[ERROR] disk full");
/// ```
pub fn convert(data: &[u8]) {
    const T: &str = "convert";
    if data.len() > MAX_BYTES {
        return;
    }
    let text = String::from_utf8_lossy(data);
    let text = text.as_ref();
    let strict = jackson::read_strict(text);
    let reference = scan_strict(text);
    let serde_value = reference.and_then(|_| serde_reference(text));
    let upstream = parse_json_to_map(Some(text));
    if let Some(v) = &strict {
        match &upstream {
            Ok(p) if p.to_value() == wrapped(v.to_serde(), "result") => {}
            other => fail(
                T,
                "upstream disagrees with the strict parser on strict JSON",
                &(text, other, v),
            ),
        }
    }
    for fixes in convert_fix_sets() {
        for error in [false, true] {
            let got = convert_tool_response(text, error, fixes);
            // The command's streaming writer: the payload's own bytes, or
            // the same failure with nothing written.
            let mut streamed = Vec::new();
            let wrote = write_tool_response(text, error, fixes, &mut streamed);
            let same_bytes = match (&got, wrote) {
                (Ok(p), Ok(Ok(()))) => {
                    let mut want = Vec::new();
                    p.write_compact(&mut want).is_ok() && want == streamed
                }
                (Err(e), Ok(Err(f))) => *e == f && streamed.is_empty(),
                _ => false,
            };
            if !same_bytes {
                fail(
                    T,
                    "the streamed conversion differs from the payload's bytes",
                    &(text, fixes, error, String::from_utf8_lossy(&streamed)),
                );
            }
            let keyed = fixes.error_key && error;
            if !keyed && !fixes.strict_json_or_wrap {
                if got != upstream {
                    fail(
                        T,
                        "a set without the conversion fixes differs from upstream",
                        &(text, fixes, error),
                    );
                }
                continue;
            }
            let got = match got {
                Ok(p) => p.to_value(),
                Err(e) => fail(T, "a fixed conversion failed", &(text, fixes, error, e)),
            };
            if !got.is_object() {
                fail(
                    T,
                    "a fixed conversion is not an object",
                    &(text, fixes, error, got),
                );
            }
            let key = if keyed { "error" } else { "result" };
            let Some(v) = &strict else {
                if got != json!({ key: text }) {
                    fail(
                        T,
                        "non-JSON output is not kept byte for byte",
                        &(text, fixes, error, got),
                    );
                }
                continue;
            };
            if reference.is_none() {
                fail(
                    T,
                    "read_strict accepted text that is not one whole JSON value",
                    &text,
                );
            }
            let v = v.to_serde();
            let as_payload = |w: Value| match (w, keyed) {
                (w @ Value::Object(_), _) => w,
                (w, false) => json!({ "result": w }),
                (_, true) => json!({ "error": text }),
            };
            // Invariant 6: numbers come through as exact decimals, with
            // serde_json (arbitrary_precision) as the reference at every
            // depth the strict reader accepts.
            let same = match &serde_value {
                Some(sv) => exactly_same_json(&as_payload(sv.clone()), &got),
                None => as_payload(v) == got,
            };
            if !same {
                let want = serde_value.clone().map(as_payload);
                fail(
                    T,
                    "strict JSON output did not keep its value",
                    &(text, fixes, error, got, want),
                );
            }
        }
    }
    let error_text = json_error_text(text);
    match serde_json::from_str::<Value>(&error_text) {
        Ok(v) if v == json!({ "error": text }) => {}
        other => fail(
            T,
            "the JSON-error text does not read back",
            &(text, &error_text, other),
        ),
    }
    match jackson::read_strict(&error_text) {
        Some(v) if v.to_serde() == json!({ "error": text }) => {}
        other => fail(
            T,
            "read_strict misreads the JSON-error text",
            &(text, &error_text, other),
        ),
    }
}

// ---------------------------------------------------------------------------
// Target: vector_file
// ---------------------------------------------------------------------------

/// The vector_file target: arbitrary bytes as a vector file.
///
/// * `Vector::parse` gives a clear error (a place and a reason) or a vector;
/// * running a vector gives the same result twice (a run is a function of
///   the vector), and `check` never panics;
/// * a `tool_loop` vector printed back through [`Scenario::to_vector`] loads
///   and runs to the same result.
///
/// ```
/// toolcall_model::checking::fuzzing::vector_file(br#"{"format":"toolcall-model/1","op":"convert_tool_response","input":{"text":"42"},"expect":{}}"#);
/// ```
pub fn vector_file(data: &[u8]) {
    const T: &str = "vector_file";
    if data.len() > MAX_BYTES {
        return;
    }
    let v = match Vector::parse(data) {
        Ok(v) => v,
        Err(e) => {
            if e.place.is_empty() || e.reason.is_empty() || e.to_string().is_empty() {
                fail(T, "an unclear vector error", &e);
            }
            return;
        }
    };
    let first = v.run();
    if v.run() != first {
        fail(T, "running a vector twice gave two results", &v);
    }
    let _ = v.check();
    if let (
        Op::ToolLoop {
            history,
            model,
            provider,
            memory,
            memory_max_messages,
            memory_start,
        },
        Ok(cfg),
    ) = (&v.op, &v.config)
    {
        // A window the builder refuses has no scenario.
        let Some(max) = u32::try_from(*memory_max_messages)
            .ok()
            .and_then(std::num::NonZeroU32::new)
        else {
            return;
        };
        let scenario = Scenario {
            config: LoopConfig {
                provider: *provider,
                memory: *memory,
                memory_max_messages: max,
                memory_start: memory_start.clone(),
                ..cfg.clone()
            },
            tools: v.tools.clone(),
            history: history.clone(),
            model: model.clone(),
        };
        let printed = scenario.to_vector(&v.name, &v.about, v.expect.clone());
        let again = match Vector::from_value(&printed) {
            Ok(a) => a,
            Err(e) => fail(T, "a printed scenario does not load", &(e, printed)),
        };
        if again.run() != first {
            fail(
                T,
                "a printed scenario runs differently",
                &(printed, first, again.run()),
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Typed scenario inputs (quinn/regex style): small indices into pools of
// interesting values, bounded when a scenario is built from them.
// ---------------------------------------------------------------------------

/// Tool names, weighted towards the tools that always exist (`a`, `b`, `c`:
/// see [`Setup::tools`]); `d` exists only if the input declares it, `ghost`
/// never, and the blank name is refused by the limit builder.
const NAMES: &[&str] = &["a", "b", "c", "a", "b", "d", "ghost", " "];

/// The tools [`Setup::tools`] adds when the input declares none of that name.
const DEFAULT_TOOLS: &[&str] = &["a", "b", "c"];

/// Tool outputs: method-tool JSON, the texts of the seeds and issue 5437,
/// blank and near-JSON texts.
const OUTPUTS: &[&str] = &[
    "\"SPRING AI\"",
    "{\"a\":1}",
    "42",
    "3.0 + 5.0 = 8.0",
    "[ERROR] disk full",
    "",
    "   ",
    "null",
    "true",
    "{\"error\":\"x\"}",
    "[1,2]",
    "{\"a\":1} trailing",
    "42apples",
    "\"unterminated",
    "{}",
    "\u{feff}{}",
    "sunny",
    "{\"a\":1,\"a\":2}",
];

/// Argument texts: JSON, empty, Java and non-Java whitespace, non-JSON.
const ARGUMENTS: &[&str] = &[
    "{}",
    "",
    "  ",
    "\u{2003}",
    "\u{a0}",
    "{\"text\":\"spring ai\"}",
    "not json",
    "[1]",
    "{\"a\":1} x",
    "42",
];

/// Exception classes: runtime, checked and error ones, two user-declared
/// ones (see [`class_table`]), the limit exception and `Throwable`.
const CLASSES: &[&str] = &[
    ILLEGAL_STATE,
    ILLEGAL_ARGUMENT,
    "java.lang.NumberFormatException",
    "java.lang.NullPointerException",
    RUNTIME_EXCEPTION,
    "java.io.IOException",
    "java.io.FileNotFoundException",
    "java.lang.Exception",
    "java.lang.AssertionError",
    "java.lang.OutOfMemoryError",
    "com.acme.Oops",
    "com.acme.CheckedOops",
    TOOL_CALL_LIMIT_EXCEEDED,
    THROWABLE,
];

/// The built-in classes plus the two user-declared ones of the declarations the fuzz targets draw from.
pub fn class_table() -> ClassTable {
    let mut t = ClassTable::builtin();
    t.declare("com.acme.Oops", ILLEGAL_STATE)
        .expect("a fresh declaration");
    t.declare("com.acme.CheckedOops", "java.io.IOException")
        .expect("a fresh declaration");
    t
}

fn pick<'a>(pool: &[&'a str], i: u8) -> &'a str {
    pool[usize::from(i) % pool.len()]
}

fn name(i: u8) -> String {
    pick(NAMES, i).to_owned()
}

fn bounded<T>(v: &[T], max: usize) -> &[T] {
    &v[..v.len().min(max)]
}

/// A text: one of a pool, or a short free-form one.
#[derive(Debug, Clone, Arbitrary)]
pub enum Text {
    /// The pool's entry at this index (modulo its length).
    Pool(u8),
    /// Free text, cut to [`MAX_TEXT_CHARS`] characters.
    Raw(String),
}

impl Text {
    fn resolve(&self, pool: &[&str]) -> String {
        match self {
            Text::Pool(i) => pick(pool, *i).to_owned(),
            Text::Raw(s) => s.chars().take(MAX_TEXT_CHARS).collect(),
        }
    }
}

/// One limit-builder call; a call the builder refuses is skipped.
#[derive(Debug, Clone, Arbitrary)]
pub enum LimitOp {
    /// `maxCallsPerTool(n % 6)` (0 is refused).
    MaxPerTool(u8),
    /// `unlimitedCallsPerTool()`.
    UnlimitedPerTool,
    /// `maxCallsPerTool(name, n % 6)`.
    Override(u8, u8),
    /// `excludeToolFromLimit(name)`.
    Exclude(u8),
    /// `maxTotalToolCalls(n % 10)`.
    MaxTotal(u8),
    /// `unlimitedTotalToolCalls()`.
    UnlimitedTotal,
}

/// The manager's configuration.
#[derive(Debug, Clone, Arbitrary)]
pub struct Setup {
    /// Limit-builder calls, in order (at most 6).
    pub limits: Vec<LimitOp>,
    /// `RETURN_ERROR_RESPONSE` rather than `THROW`.
    pub return_error_response: bool,
    /// The JSON-error processor rather than the default one.
    pub json_error_processor: bool,
    /// `alwaysThrow`.
    pub always_throw: bool,
    /// Rethrow classes (indices into the class pool; at most 3).
    pub rethrow: Vec<u8>,
    /// Resolution fallback.
    pub resolution_fallback: bool,
    /// The fixes, in [`crate::model::behavior::Fix::ALL`] order.
    pub fixes: [bool; 4],
    /// The tools (at most [`MAX_TOOLS`]).
    pub tools: Vec<ToolInput>,
}

/// One tool.
#[derive(Debug, Clone, Arbitrary)]
pub struct ToolInput {
    /// Name index.
    pub name: u8,
    /// `returnDirect`.
    pub return_direct: bool,
    /// Registered with the resolver only.
    pub resolver: bool,
    /// Its script (at most 4 outcomes).
    pub outcomes: Vec<OutcomeInput>,
}

/// One scripted invocation.
#[derive(Debug, Clone, Arbitrary)]
pub enum OutcomeInput {
    /// Returns an output text.
    Returns(Text),
    /// Returns Java null.
    ReturnsNull,
    /// Returns its arguments.
    Echo,
    /// Throws.
    Throws {
        /// Class index.
        class: u8,
        /// The message (null when absent).
        message: Option<Text>,
        /// Wrapped in `ToolExecutionException`.
        wrapped: bool,
    },
}

/// One tool call.
#[derive(Debug, Clone, Arbitrary)]
pub struct CallInput {
    /// Call id index (ids may repeat).
    pub id: u8,
    /// Name index.
    pub name: u8,
    /// Arguments (null when absent).
    pub arguments: Option<Text>,
}

/// One generation of a model reply.
#[derive(Debug, Clone, Arbitrary)]
pub struct GenerationInput {
    /// The text.
    pub text: Option<Text>,
    /// The tool calls (at most [`MAX_CALLS`]).
    pub calls: Vec<CallInput>,
    /// How many thought signatures its metadata lists (0: none).
    pub signatures: u8,
}

/// One prior message.
#[derive(Debug, Clone, Arbitrary)]
pub enum MessageInput {
    /// A system message.
    System(Option<Text>),
    /// A user message.
    User(Option<Text>),
    /// An assistant message.
    Assistant(GenerationInput),
    /// A tool message (at most [`MAX_CALLS`] responses).
    Tool(Vec<ResponseInput>),
}

/// One prior tool response.
#[derive(Debug, Clone, Arbitrary)]
pub struct ResponseInput {
    /// Call id index.
    pub id: u8,
    /// Name index.
    pub name: u8,
    /// The data.
    pub data: Text,
    /// Marked as an error.
    pub error: bool,
}

fn call(c: &CallInput) -> ToolCall {
    ToolCall {
        id: format!("c{}", c.id % 8),
        kind: "function".to_owned(),
        name: name(c.name),
        arguments: c.arguments.as_ref().map(|t| t.resolve(ARGUMENTS)),
    }
}

fn generation(g: &GenerationInput) -> Generation {
    let mut metadata = Map::new();
    if g.signatures > 0 {
        let sigs = (0..g.signatures % 4).map(|i| json!(format!("sig{i}")));
        metadata.insert("thoughtSignatures".into(), Value::Array(sigs.collect()));
    }
    Generation {
        kind: None,
        text: g.text.as_ref().map(|t| t.resolve(OUTPUTS)),
        tool_calls: bounded(&g.calls, MAX_CALLS).iter().map(call).collect(),
        finish_reason: None,
        metadata,
    }
}

fn message(m: &MessageInput) -> Message {
    let text = |t: &Option<Text>| t.as_ref().map(|t| t.resolve(OUTPUTS));
    match m {
        MessageInput::System(t) => Message::System { text: text(t) },
        MessageInput::User(t) => Message::User { text: text(t) },
        MessageInput::Assistant(g) => generation(g).to_message(),
        MessageInput::Tool(rs) => Message::Tool {
            responses: bounded(rs, MAX_CALLS)
                .iter()
                .map(|r| ToolResponse {
                    id: format!("c{}", r.id % 8),
                    name: name(r.name),
                    data: r.data.resolve(OUTPUTS),
                    error: r.error,
                })
                .collect(),
        },
    }
}

impl Setup {
    /// The limits: the builder calls in order, refused ones skipped.
    pub fn limits(&self) -> Limits {
        let mut l = Limits::default();
        for op in bounded(&self.limits, 6) {
            let next = match op {
                LimitOp::MaxPerTool(n) => l.clone().max_calls_per_tool(i32::from(n % 6)),
                LimitOp::UnlimitedPerTool => Ok(l.clone().unlimited_calls_per_tool()),
                LimitOp::Override(i, n) => l
                    .clone()
                    .max_calls_per_tool_for(&name(*i), i32::from(n % 6)),
                LimitOp::Exclude(i) => l.clone().exclude_tool_from_limit(&name(*i)),
                LimitOp::MaxTotal(n) => l.clone().max_total_tool_calls(i32::from(n % 10)),
                LimitOp::UnlimitedTotal => Ok(l.clone().unlimited_total_tool_calls()),
            };
            if let Ok(next) = next {
                l = next;
            }
        }
        l.on_exceeded = if self.return_error_response {
            OnExceeded::ReturnErrorResponse
        } else {
            OnExceeded::Throw
        };
        l
    }

    /// The behaviour set.
    pub fn fixes(&self) -> Fixes {
        let [a, b, c, d] = self.fixes;
        Fixes {
            breach_through_processor: a,
            strict_json_or_wrap: b,
            error_key: c,
            close_dangling_calls: d,
            ..Fixes::default()
        }
    }

    /// The manager configuration.
    pub fn config(&self) -> Config {
        Config {
            limits: self.limits(),
            resolution_fallback: self.resolution_fallback,
            processor: Processor {
                kind: if self.json_error_processor {
                    ProcessorKind::JsonError
                } else {
                    ProcessorKind::Default
                },
                always_throw: self.always_throw,
                rethrow: bounded(&self.rethrow, 3)
                    .iter()
                    .map(|&i| pick(CLASSES, i).to_owned())
                    .collect(),
            },
            classes: class_table(),
            fixes: self.fixes(),
            version: Default::default(),
        }
    }

    /// The tools; a second tool with the same name and registration is dropped
    /// (the vector format refuses it), and each of `a`, `b`, `c` that the
    /// input does not declare as a request tool returns `"ok"`.
    pub fn tools(&self) -> Vec<ToolSpec> {
        let mut out: Vec<ToolSpec> = Vec::new();
        for t in bounded(&self.tools, MAX_TOOLS) {
            let registered = if t.resolver {
                Registered::Resolver
            } else {
                Registered::Request
            };
            let n = name(t.name);
            if out
                .iter()
                .any(|o| o.name == n && o.registered == registered)
            {
                continue;
            }
            out.push(ToolSpec {
                name: n,
                return_direct: t.return_direct,
                registered,
                outcomes: bounded(&t.outcomes, 4).iter().map(outcome).collect(),
            });
        }
        for n in DEFAULT_TOOLS {
            if !out
                .iter()
                .any(|o| o.name == *n && o.registered == Registered::Request)
            {
                out.push(ToolSpec::returning(n, "\"ok\""));
            }
        }
        out
    }
}

fn outcome(o: &OutcomeInput) -> Outcome {
    match o {
        OutcomeInput::Returns(t) => Outcome::Returns(Some(t.resolve(OUTPUTS))),
        OutcomeInput::ReturnsNull => Outcome::Returns(None),
        OutcomeInput::Echo => Outcome::EchoArguments,
        OutcomeInput::Throws {
            class,
            message,
            wrapped,
        } => Outcome::Throws {
            exception: JavaException {
                class: pick(CLASSES, *class).to_owned(),
                message: message.as_ref().map(|t| t.resolve(OUTPUTS)),
                cause: None,
            },
            wrapped: *wrapped,
        },
    }
}

/// The manager target's input: a setup, a prior history and batches that
/// the model asks for in turn.
#[derive(Debug, Clone, Arbitrary)]
pub struct ManagerInput {
    /// The manager and its tools.
    pub setup: Setup,
    /// Prior messages (at most [`MAX_PRIOR`]); a user message is appended
    /// when `ask` is set.
    pub prior: Vec<MessageInput>,
    /// Append a user message to the prior history.
    pub ask: bool,
    /// The batches: one model reply each (at most [`MAX_ROUNDS`] replies of
    /// at most 3 generations).
    pub batches: Vec<Vec<GenerationInput>>,
}

impl ManagerInput {
    /// The prior history.
    pub fn history(&self) -> Vec<Message> {
        let mut h: Vec<Message> = bounded(&self.prior, MAX_PRIOR)
            .iter()
            .map(message)
            .collect();
        if self.ask {
            h.push(Message::user("question"));
        }
        h
    }

    /// The model replies, one per batch.
    pub fn replies(&self) -> Vec<Vec<Generation>> {
        bounded(&self.batches, MAX_ROUNDS)
            .iter()
            .map(|gs| bounded(gs, 3).iter().map(generation).collect())
            .collect()
    }
}

/// The tool_loop target's input: a [`ManagerInput`] run through the loop
/// with a provider, memory, the workaround advisor and a round bound.
#[derive(Debug, Clone, Arbitrary)]
pub struct LoopInput {
    /// The manager, tools, history and model replies.
    pub turn: ManagerInput,
    /// Shape the turn as a well-formed conversation: the history is an
    /// optional system message and one user message, and every reply is one
    /// generation whose text is not blank when it calls no tool.
    pub well_formed: bool,
    /// Force every fix on.
    pub all_fixes: bool,
    /// `conversationHistoryEnabled`.
    pub conversation_history: bool,
    /// Provider `none` rather than Gemini.
    pub provider_none: bool,
    /// Memory: 0 none, 1 inside, 2 outside (modulo 3).
    pub memory: u8,
    /// The seed's `GeminiToolTextAdvisor`.
    pub gemini_tool_text: bool,
    /// Validator rule 12 (thought signatures).
    pub thought_signatures: bool,
    /// Validator rule 14 (alternating roles).
    pub alternate_roles: bool,
    /// The round bound: 1 + this modulo 10.
    pub max_rounds: u8,
    /// Leave the script without a final answer (so it may run out).
    pub open_ended: bool,
}

impl LoopInput {
    /// The scenario.
    pub fn scenario(&self) -> Scenario {
        let mut manager = self.turn.setup.config();
        if self.all_fixes {
            manager.fixes = Fixes::all();
        }
        let config = LoopConfig {
            conversation_history: self.conversation_history,
            provider: if self.provider_none {
                Provider::None
            } else {
                Provider::Gemini
            },
            memory: match self.memory % 3 {
                0 => Memory::None,
                1 => Memory::Inside,
                _ => Memory::Outside,
            },
            gemini_tool_text: self.gemini_tool_text,
            validator: crate::gemini::ValidatorOptions {
                thought_signatures: self.thought_signatures,
                alternate_roles: self.alternate_roles,
            },
            max_rounds: 1 + usize::from(self.max_rounds % 10),
            ..LoopConfig::new(manager)
        };
        let mut history = self.turn.history();
        let mut model = self.turn.replies();
        if !self.open_ended {
            model.push(vec![Generation {
                text: Some("done".to_owned()),
                ..Generation::default()
            }]);
        }
        if self.well_formed {
            let system = history
                .iter()
                .find(|m| matches!(m, Message::System { text: Some(t) } if !t.is_empty()))
                .cloned();
            history = system
                .into_iter()
                .chain([Message::user("question")])
                .collect();
            for reply in &mut model {
                reply.truncate(1);
                if reply.is_empty() {
                    reply.push(Generation::default());
                }
                let g = &mut reply[0];
                if g.tool_calls.is_empty()
                    && !g
                        .text
                        .as_deref()
                        .is_some_and(crate::model::limits::has_text)
                {
                    g.text = Some("done".to_owned());
                }
            }
        }
        Scenario {
            config,
            tools: self.turn.setup.tools(),
            history,
            model,
        }
    }
}

/// A scenario as a replayable vector, for reproducers.
fn vector_of(s: &Scenario) -> String {
    let v = s.to_vector(
        "fuzz-reproducer",
        "printed by a fuzz target; replay with `toolcall-model run`",
        json!({}),
    );
    serde_json::to_string_pretty(&v).unwrap_or_default()
}

/// Panics with a scenario reproducer: the decoded input and the scenario as
/// a vector that `toolcall-model run` replays.
#[track_caller]
fn fail_scenario(target: &str, what: &str, input: &dyn Debug, scenario: &Scenario) -> ! {
    panic!(
        "fuzz target `{target}`: {what}\ninput: {input:#?}\nscenario as a vector:\n{}",
        vector_of(scenario)
    )
}

/// Decodes a typed input from the whole of `data`.
fn decode<T: for<'a> Arbitrary<'a>>(data: &[u8]) -> Option<T> {
    if data.len() > MAX_CASE_BYTES {
        return None;
    }
    T::arbitrary_take_rest(Unstructured::new(data)).ok()
}

// ---------------------------------------------------------------------------
// Target: manager
// ---------------------------------------------------------------------------

/// The manager target: a [`ManagerInput`] through the manager, batch by
/// batch, as the loop would thread the history.
///
/// * `execute_tool_calls` (counts rebuilt from the history) and
///   `execute_with_counts` (counts given) agree on every batch, on the result,
///   the error and the tools run; the counts after a batch equal the recount
///   of its history (invariant 3);
/// * the same turn through the tool loop (provider `none`, no memory) runs
///   the same tools and ends as the batches did;
/// * the invariants of docs/INVARIANTS.md that hold for the behaviour
///   set hold on that run.
///
/// ```
/// toolcall_model::checking::fuzzing::manager(&[0u8; 64]);
/// ```
pub fn manager(data: &[u8]) {
    const T: &str = "manager";
    let Some(input) = decode::<ManagerInput>(data) else {
        return;
    };
    let cfg = input.setup.config();
    let tools = input.setup.tools();
    let replies = input.replies();
    let mut model = replies.clone();
    model.push(vec![Generation {
        text: Some("done".to_owned()),
        ..Generation::default()
    }]);
    let scenario = Scenario {
        config: LoopConfig {
            provider: Provider::None,
            ..LoopConfig::new(cfg.clone())
        },
        tools: tools.clone(),
        history: input.history(),
        model,
    };
    let fail = |what: &str| -> ! { fail_scenario(T, what, &input, &scenario) };

    let mut history = input.history();
    let mut by_recount = crate::model::tools::Toolbox::new(tools.clone());
    let mut by_counts = crate::model::tools::Toolbox::new(tools);
    // How the turn ends when run batch by batch.
    let mut end = EndKind::Completed;
    for gens in &replies {
        let prior = Counts::recount(&history);
        let a = execute_tool_calls(&cfg, &history, gens, &mut by_recount);
        let b = execute_with_counts(&cfg, history.clone(), gens, prior, &mut by_counts);
        if by_recount.invocations() != by_counts.invocations() {
            fail("the recounting and incremental paths ran different tools");
        }
        match (a, b) {
            (Ok(ra), Ok((rb, after))) => {
                if ra != rb {
                    fail("the recounting and incremental paths gave different results");
                }
                if after != Counts::recount(&rb.history) {
                    fail("the counts after a batch differ from the recount of its history");
                }
                if ra.return_direct {
                    end = EndKind::ReturnDirect;
                    break;
                }
                history = ra.history;
            }
            (Err(ea), Err(eb)) => {
                if ea != eb {
                    fail("the recounting and incremental paths failed differently");
                }
                end = match ea {
                    ManagerError::LimitExceeded(_) => EndKind::LimitExceeded,
                    _ if gens.iter().all(|g| g.tool_calls.is_empty()) => EndKind::Completed,
                    _ => EndKind::Error,
                };
                break;
            }
            _ => fail("one path failed and the other did not"),
        }
    }

    let (run, toolbox) = match scenario.run() {
        Ok(r) => r,
        Err(e) => fail(&format!("the loop did not run: {e}")),
    };
    if toolbox.invocations() != by_recount.invocations() {
        fail("the loop ran different tools than the batches");
    }
    if run.kind != end {
        fail(&format!(
            "the loop ended as {:?}, the batches as {end:?}",
            run.kind
        ));
    }
    check_invariants(T, &input, &scenario);
}

/// Whether the fuzz targets claim `invariant` for the scenario and its run:
/// the invariants docs/INVARIANTS.md states for its behaviour set,
/// under the preconditions documented in `fuzz/README.md`.
pub fn claimed(invariant: Invariant, evidence: &Evidence<'_>) -> bool {
    let s = evidence.scenario;
    let f = s.config.manager.fixes;
    match invariant {
        Invariant::OneResponsePerCall | Invariant::Limits | Invariant::Counting => true,
        Invariant::JsonSafe => f.breach_through_processor,
        Invariant::GeminiSafe | Invariant::Lossless => f.strict_json_or_wrap,
        // The memory's window: with the fixes that keep the current turn
        // and store the generation the loop continues with (the seed's
        // advisor, which rewrites what the memory stores, aside).
        Invariant::QuestionKept | Invariant::MemoryKeepsTurns => {
            f.keep_current_turn && f.store_answered_generation && !s.config.gemini_tool_text
        }
        // Preconditions: the request is a new turn (its last non-system
        // message is a user message) whose system messages lead it; without conversation history the loop
        // sends the last message alone, so only a memory inside the loop
        // restores the pairs; and an inside memory stores every generation
        // of a reply, so a reply holds at most one (Gemini's default
        // candidate count): a second one is a message no fix answers.
        Invariant::TranscriptValid => {
            let new_turn = s
                .history
                .iter()
                .rev()
                .find(|m| !matches!(m, Message::System { .. }))
                .is_some_and(Message::is_user);
            // An inside memory finds itself in the prompt only as one
            // contiguous run; a system message after the first non-system
            // one breaks the run, and so does the seed's workaround advisor,
            // which rewrites a tool message the memory then stores while the
            // loop's own history keeps it raw. The memory is then prepended
            // again.
            let is_system = |m: &&Message| matches!(m, Message::System { .. });
            let system_leads = s
                .history
                .iter()
                .skip_while(is_system)
                .all(|m| !is_system(&m));
            let inside = s.config.memory == Memory::Inside;
            f.close_dangling_calls
                && new_turn
                && (!inside || (system_leads && !s.config.gemini_tool_text))
                && (s.config.conversation_history || inside)
                && (!inside || s.model.iter().all(|reply| reply.len() <= 1))
        }
    }
}

/// The invariants of docs/INVARIANTS.md that hold for the scenario's
/// behaviour set ([`claimed`]), judged by [`crate::checking::invariants::check`].
fn check_invariants(target: &str, input: &dyn Debug, scenario: &Scenario) {
    let Ok(evidence) = Evidence::gather(scenario) else {
        return; // not a valid turn: the script ran out
    };
    for invariant in Invariant::ALL {
        if !claimed(invariant, &evidence) {
            continue;
        }
        if let Verdict::Refuted(why) = check(invariant, &evidence) {
            fail_scenario(
                target,
                &format!(
                    "invariant {invariant} refuted under {}: {why}",
                    scenario.config.manager.fixes
                ),
                input,
                scenario,
            );
        }
    }
}

// ---------------------------------------------------------------------------
// Target: tool_loop
// ---------------------------------------------------------------------------

/// The tool_loop target: a [`LoopInput`] through the tool loop with memory.
///
/// * no panic, and a run is a function of its scenario (two runs agree);
/// * the round bound holds: at most `max_rounds` model calls and no more than
///   the script has; the loop's own errors say so exactly;
/// * the outcome is well formed for its kind, and there is one verdict per
///   Gemini request;
/// * the invariants of docs/INVARIANTS.md that hold for the behaviour
///   set hold (with every fix on: every stored transcript is well paired).
///
/// ```
/// toolcall_model::checking::fuzzing::tool_loop(&[1u8; 64]);
/// ```
pub fn tool_loop(data: &[u8]) {
    const T: &str = "tool_loop";
    let Some(input) = decode::<LoopInput>(data) else {
        return;
    };
    let scenario = input.scenario();
    let fail = |what: &str| -> ! { fail_scenario(T, what, &input, &scenario) };
    let result = scenario.run();
    if scenario.run() != result {
        fail("two runs of one scenario differ");
    }
    let bound = scenario.config.max_rounds;
    let script = scenario.model.len();
    let (run, _) = match result {
        Ok(r) => r,
        Err(LoopError::TooManyRounds(n)) => {
            if n != bound || script < bound {
                fail("TooManyRounds without max_rounds replies");
            }
            return;
        }
        Err(LoopError::ScriptExhausted { call, len }) => {
            if len != script || call != len + 1 || call > bound {
                fail("ScriptExhausted does not describe the script");
            }
            return;
        }
    };
    let calls = run.requests.len();
    if calls > bound || calls > script {
        fail("more model calls than the round bound or the script allow");
    }
    if scenario.config.provider == Provider::Gemini && run.verdicts.len() != calls {
        fail("not one verdict per Gemini request");
    }
    let shape_ok = match run.kind {
        EndKind::Error => run.error.is_some() && run.generations.is_empty(),
        EndKind::Completed => {
            run.error.is_none() && calls > 0 && run.generations == scenario.model[calls - 1]
        }
        EndKind::LimitExceeded => {
            run.error.is_none()
                && run.generations.len() == 1
                && run.generations[0].finish_reason.as_deref()
                    == Some(crate::model::manager::FINISH_REASON_LIMIT)
        }
        EndKind::ReturnDirect => {
            run.error.is_none()
                && !run.generations.is_empty()
                && run
                    .generations
                    .iter()
                    .all(|g| g.finish_reason.as_deref() == Some("returnDirect"))
        }
    };
    if !shape_ok {
        fail(&format!("a malformed {:?} outcome", run.kind));
    }
    if scenario.config.memory == Memory::None && !run.memory.is_empty() {
        fail("no memory, yet a stored transcript");
    }
    check_invariants(T, &input, &scenario);
}

/// The `config` target: bytes read as an `application.properties` and
/// (when UTF-8, with the `yaml` feature) as an `application.yml`, then bound
/// as Spring Boot binds `spring.ai.tools.*` and, when Spring would start,
/// made into `check`'s setup and report. Asserts: no panic and no overflow
/// (the campaign's `-rss_limit_mb` and `-timeout` turn a blow-up into a
/// crash); reading and binding are deterministic; every entry has a line;
/// every refusal says something; what binds is read from
/// `spring.ai.tools` keys only (in any relaxed spelling).
///
/// ```
/// toolcall_model::checking::fuzzing::config(b"spring.ai.tools.limits.max-total-tool-calls=${a:3}\n");
/// ```
pub fn config(data: &[u8]) {
    use crate::chat::tool_loop::{Memory, Provider};
    use crate::config::binding::{bind, parse_properties, Entry};
    use crate::config::check::{describe_setup, report, Setup};
    const T: &str = "config";
    if data.len() > MAX_BYTES {
        return;
    }
    #[cfg_attr(not(feature = "yaml"), allow(unused_mut))]
    let mut readings: Vec<Result<Vec<Vec<Entry>>, String>> =
        vec![parse_properties(data).map_err(|e| e.to_string())];
    if readings[0] != parse_properties(data).map_err(|e| e.to_string()) {
        fail(T, "reading a .properties twice gave two results", &data);
    }
    #[cfg(feature = "yaml")]
    if let Ok(text) = std::str::from_utf8(data) {
        readings.push(crate::config::yaml::read(text));
    }
    for docs in readings {
        let docs = match docs {
            Ok(d) => d,
            Err(e) if e.trim().is_empty() => fail(T, "a file refused without a word", &data),
            Err(_) => continue,
        };
        if let Some(e) = docs.iter().flatten().find(|e| e.line == 0) {
            fail(T, "an entry without a line", e);
        }
        let bound = bind(&docs);
        if bind(&docs) != bound {
            fail(T, "binding twice gave two results", &docs);
        }
        let bound = match bound {
            Ok(b) => b,
            Err(e) if e.to_string().trim().is_empty() => {
                fail(T, "a binding refused without a word", &docs)
            }
            Err(_) => continue,
        };
        // Relaxed names: `sp---ring.ai.tools...` is `spring.ai.tools` too.
        let under_tools = |k: &str| {
            let letters: String = k
                .chars()
                .filter(char::is_ascii_alphanumeric)
                .take(13)
                .collect();
            letters.eq_ignore_ascii_case("springaitools")
        };
        if let Some(k) = bound.read.keys().find(|k| !under_tools(k)) {
            fail(T, "a key read from outside spring.ai.tools", k);
        }
        let setup = Setup {
            limits: bound.limits.clone(),
            resolution_fallback: bound.resolution_fallback,
            processor: Processor {
                kind: ProcessorKind::Default,
                always_throw: bound.always_throw,
                rethrow: Vec::new(),
            },
            memory: Memory::None,
            memory_max_messages: crate::chat::memory::DEFAULT_MEMORY_MAX_MESSAGES,
            conversation_history: None,
            provider: Provider::Gemini,
            tool_output: Default::default(),
            version: Default::default(),
        };
        if describe_setup(&setup).is_empty() {
            fail(T, "a setup described as nothing", &setup);
        }
        // The report plays every scenario under every behaviour set (some
        // ten milliseconds): only for limits the file changed, so that the
        // campaign spends its time on the reader and the binding.
        if setup.limits != crate::model::limits::Limits::default() && report(&setup).is_empty() {
            fail(T, "a report of no behaviour set", &setup);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accepted_prefix(text: &str) -> Option<&str> {
        match lenient_reference(text) {
            Lenient::Accept { start, scan } => Some(&text[start..scan.end]),
            _ => None,
        }
    }

    #[test]
    fn reference_follows_jackson_md_examples() {
        for (text, prefix) in [
            ("3.0 + 5.0 = 8.0", "3.0"),
            ("42 apples", "42"),
            ("1 000", "1"),
            ("null pointer", "null"),
            ("null$x", "null"),
            ("true/false", "true"),
            ("null:", "null"),
            ("null}", "null"),
            ("\t{\"a\":1}}", "{\"a\":1}"),
            ("[1,2]x", "[1,2]"),
            ("\"a\"\"b\"", "\"a\""),
            ("-0e0", "-0e0"),
        ] {
            assert_eq!(accepted_prefix(text), Some(prefix), "{text:?}");
        }
        for text in [
            "",
            "  ",
            "42apples",
            "42,",
            "nullable",
            "null1",
            "null_value",
            "null\u{7f}",
            "True",
            "[1,]",
            "+1",
            ".5",
            "1.",
            "01",
            "NaN",
            "]",
            "\u{b}1",
            "'a'",
            "\"abc",
            "1.5.2",
            "[ERROR] disk full",
        ] {
            assert_eq!(lenient_reference(text), Lenient::Reject, "{text:?}");
        }
        for text in [
            "null\u{a0}",
            "null\u{200b}",
            "\"\\ud800\"",
            "{\"a\":\"\\udc00\"}",
        ] {
            assert_eq!(lenient_reference(text), Lenient::Unknown, "{text:?}");
        }
        let deep = "[".repeat(501) + &"]".repeat(501);
        assert_eq!(lenient_reference(&deep), Lenient::Reject);
        let ok = "[".repeat(500) + &"]".repeat(500);
        assert!(accepted_prefix(&ok).is_some());
    }

    #[test]
    fn numbers_compare_as_jackson_reads_them() {
        let n = |s: &str| s.parse::<serde_json::Number>().unwrap();
        assert!(same_number(&n("1E2"), &json!(100)));
        assert!(same_number(&n("1.0"), &Value::Number(n("1.0"))));
        assert!(same_number(
            &n("0.1"),
            &Value::Number(n("0.10000000000000000001"))
        ));
        assert!(same_number(&n("1e400"), &json!("Infinity")));
        assert!(!same_number(
            &n("12345678901234567890123"),
            &Value::Number(n("12345678901234567890124"))
        ));
        assert!(!same_json(
            &json!({"a": 1, "b": 2}),
            &json!({"b": 2, "a": 1})
        ));
    }

    #[test]
    fn scenario_inputs_build() {
        let data: Vec<u8> = (0..2048u32).map(|i| (i * 37 % 251) as u8).collect();
        let input = decode::<LoopInput>(&data).expect("decodes");
        let s = input.scenario();
        assert!(s.tools.iter().any(|t| t.name == "a"));
        assert!(s.config.max_rounds >= 1);
    }
}
