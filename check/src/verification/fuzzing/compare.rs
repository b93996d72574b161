//! Value comparison: numbers as Jackson reads them.

use serde_json::{Value, json};

use crate::verification::oracle::{JACKSON_MAX_DEPTH, scan_strict};
use toolcall_model::json::decimal;

/// Whether `got` is the number that Jackson reads from the lexeme
/// `expected`: an integer exactly; a float as the same `f64` (or, for an
/// infinity, the string Jackson writes for it).
pub(super) fn same_number(expected: &serde_json::Number, got: &Value) -> bool {
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
pub(crate) fn same_json(expected: &Value, got: &Value) -> bool {
    compare_json(expected, got, false)
}

/// Whether `got` equals `expected` with every number equal as an exact
/// decimal (docs/INVARIANTS.md invariant 6's reading). Iterative.
pub(crate) fn exactly_same_json(expected: &Value, got: &Value) -> bool {
    compare_json(expected, got, true)
}

pub(super) fn compare_json(expected: &Value, got: &Value, exact: bool) -> bool {
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
pub(super) fn serde_reference(text: &str) -> Option<Value> {
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
pub(super) fn wrapped(v: Value, key: &str) -> Value {
    match v {
        Value::Object(_) => v,
        other => json!({ key: other }),
    }
}
