//! Matching what a run produced against `expect`: the comparison rules of
//! docs/VECTORS.md (payload numbers, thought signatures as Java's Base64).

use serde_json::{Map, Value};

use crate::model::text::cut_bytes;

use super::{VectorError, err};

/// Whole-value equality (payloads): same keys (any order), same values,
/// numbers by value.
pub(super) fn equal_whole(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => numbers_equal(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| equal_whole(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| equal_whole(v, w)))
        }
        _ => a == b,
    }
}

/// How much of a value a difference line shows, in bytes.
pub(super) const SHORT: usize = 300;

pub(super) fn short(v: &Value) -> String {
    let s = v.to_string();
    match cut_bytes(&s, SHORT) {
        Some(head) => format!("{head}…"),
        None => s,
    }
}

/// `functionCall.args`, `functionResponse.response` and the
/// `convert_tool_response` op's `response` are payloads: equal as a whole.
pub(super) fn is_payload(path: &str, key: &str) -> bool {
    (key == "args" && path.ends_with("/functionCall"))
        || (key == "response" && (path.ends_with("/functionResponse") || path.is_empty()))
}

/// Matches `expected` against `actual` with the vector rules, pushing one
/// line per difference (JSON pointer, expected, actual).
pub(crate) fn match_value(expected: &Value, actual: &Value, path: &str, diffs: &mut Vec<String>) {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (k, ev) in e {
                match_key(k, ev, a, path, diffs);
            }
        }
        (Value::Array(e), Value::Array(a)) => {
            if e.len() != a.len() {
                diffs.push(format!(
                    "{path}: expected {} elements, got {}: {}",
                    e.len(),
                    a.len(),
                    short(actual)
                ));
                return;
            }
            for (i, (x, y)) in e.iter().zip(a).enumerate() {
                match_value(x, y, &format!("{path}/{i}"), diffs);
            }
        }
        (Value::Number(x), Value::Number(y)) if numbers_equal(x, y) => {}
        (e, a) if e == a => {}
        (e, a) => diffs.push(format!(
            "{}: expected {}, got {}",
            if path.is_empty() { "/" } else { path },
            short(e),
            short(a)
        )),
    }
}

/// One expected key of an object against the actual object.
pub(super) fn match_key(
    k: &str,
    ev: &Value,
    a: &Map<String, Value>,
    path: &str,
    diffs: &mut Vec<String>,
) {
    let p = format!("{path}/{k}");
    if k == "history_tail"
        && let (Value::Array(tail), Some(Value::Array(h))) = (ev, a.get("history"))
    {
        if tail.len() > h.len() {
            diffs.push(format!(
                "{p}: expected the last {} messages, the history has {}",
                tail.len(),
                h.len()
            ));
        } else {
            let actual_tail = Value::Array(h[h.len() - tail.len()..].to_vec());
            match_value(ev, &actual_tail, &p, diffs);
        }
        return;
    }
    match a.get(k) {
        None => diffs.push(format!("{p}: expected {}, got nothing", short(ev))),
        Some(av) if is_payload(path, k) => {
            if !equal_whole(ev, av) {
                diffs.push(format!("{p}: expected {}, got {}", short(ev), short(av)));
            }
        }
        Some(av) => match_value(ev, av, &p, diffs),
    }
}

/// `java.util.Base64.getDecoder().decode`: the standard alphabet, padding
/// optional but correct when present, bits past the last whole byte
/// ignored; `None` where Java throws `IllegalArgumentException`.
pub(super) fn java_base64_decode(s: &str) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(u32::from(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        }))
    };
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len() / 4 * 3 + 2);
    let (mut bits, mut shift) = (0u32, 18i32);
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        i += 1;
        if c == b'=' {
            if shift == 18 {
                return None;
            }
            if shift == 6 {
                if i == b.len() || b[i] != b'=' {
                    return None;
                }
                i += 1;
            }
            break;
        }
        bits |= value(c)? << shift;
        shift -= 6;
        if shift < 0 {
            out.extend_from_slice(&[(bits >> 16) as u8, (bits >> 8) as u8, bits as u8]);
            bits = 0;
            shift = 18;
        }
    }
    match shift {
        6 => out.push((bits >> 16) as u8),
        0 => out.extend_from_slice(&[(bits >> 16) as u8, (bits >> 8) as u8]),
        12 => return None,
        _ => {}
    }
    (i == b.len()).then_some(out)
}

/// `java.util.Base64.getEncoder().encodeToString`.
pub(super) fn java_base64_encode(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (k, &b)| n | u32::from(b) << (16 - 8 * k));
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(A[(n >> (18 - 6 * k)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Gemini thought signatures are bytes (`List<byte[]>` in the assistant
/// message's metadata); a vector writes them in base64. Each is read as
/// Java's decoder reads it and written back in canonical form, so that the
/// model prints what the real classes print; one Java cannot decode makes
/// the vector invalid.
///
/// ```
/// use toolcall_model::vectors::Vector;
/// let v = |sig: &str| Vector::parse(format!(r#"{{"format":"toolcall-model/1","name":"n","op":"gemini_request",
///     "input":{{"history":[{{"type":"assistant","text":null,"tool_calls":[{{"id":"1","name":"x","arguments":"{{}}"}}],
///     "metadata":{{"thoughtSignatures":["{sig}"]}}}}]}},"expect":{{"request":{{}}}}}}"#).as_bytes());
/// let run = v("c2l").unwrap().run().unwrap();
/// assert_eq!(run["request"]["contents"][0]["parts"][0]["thoughtSignature"], "c2k=");
/// assert!(v("sig-1").is_err());
/// ```
pub(super) fn canonical_signatures(
    input: &Map<String, Value>,
) -> Result<Option<Map<String, Value>>, VectorError> {
    // Copy the input (which may hold a 100 MB text) only when it carries
    // signatures at all.
    let has = |m: &Value| {
        m.get("metadata")
            .and_then(|x| x.get("thoughtSignatures"))
            .is_some()
    };
    let any = ["history", "memory_start", "generations", "model"]
        .iter()
        .filter_map(|k| input.get(*k).and_then(Value::as_array))
        .flatten()
        .any(|m| has(m) || m.as_array().is_some_and(|gs| gs.iter().any(has)));
    if !any {
        return Ok(None);
    }
    pub(super) fn fix(v: &mut Value, place: &str) -> Result<(), VectorError> {
        let Some(sigs) = v
            .get_mut("metadata")
            .and_then(|m| m.get_mut("thoughtSignatures"))
        else {
            return Ok(());
        };
        let Value::Array(sigs) = sigs else {
            return Err(err(
                format!("{place}/metadata/thoughtSignatures"),
                format!(
                    "must be an array of base64 strings (Gemini's List<byte[]>), not {}",
                    short(sigs)
                ),
            ));
        };
        for (k, sig) in sigs.iter_mut().enumerate() {
            let at = format!("{place}/metadata/thoughtSignatures/{k}");
            let Value::String(text) = sig else {
                return Err(err(&at, "a thought signature is a base64 string"));
            };
            let bytes = java_base64_decode(text).ok_or_else(|| {
                err(
                    &at,
                    "not base64 (java.util.Base64 refuses it): a thought signature is bytes",
                )
            })?;
            *text = java_base64_encode(&bytes);
        }
        Ok(())
    }
    let mut out = input.clone();
    for key in ["history", "memory_start", "generations"] {
        if let Some(Value::Array(list)) = out.get_mut(key) {
            for (i, m) in list.iter_mut().enumerate() {
                fix(m, &format!("/input/{key}/{i}"))?;
            }
        }
    }
    if let Some(Value::Array(rounds)) = out.get_mut("model") {
        for (r, round) in rounds.iter_mut().enumerate() {
            if let Value::Array(gs) = round {
                for (i, g) in gs.iter_mut().enumerate() {
                    fix(g, &format!("/input/model/{r}/{i}"))?;
                }
            }
        }
    }
    Ok(Some(out))
}

/// Numbers by value (the vectors' rule, shared with `conformance`).
pub(crate) fn numbers_equal(a: &serde_json::Number, b: &serde_json::Number) -> bool {
    crate::json::decimal::same_number(&a.to_string(), &b.to_string())
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.
    #[test]
    fn example_match_value() {
        use serde_json::json;
        let mut d = vec![];
        crate::vectors::match_value(&json!({"a": 1.0}), &json!({"a": 1, "b": 2}), "", &mut d);
        assert!(d.is_empty());
        crate::vectors::match_value(&json!({"a": [1]}), &json!({"a": [1, 2]}), "", &mut d);
        assert_eq!(d.len(), 1);
    }
}
