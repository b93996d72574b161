//! The `convert` target: tool output through the upstream and fixed
//! conversions.

use serde_json::{Value, json};

use crate::verification::oracle::scan_strict;
use toolcall_model::gemini::{convert_tool_response, parse_json_to_map, write_tool_response};
use toolcall_model::model::json_error_text;
use toolcall_model::model::{Fix, Fixes};

use super::compare::{exactly_same_json, serde_reference, wrapped};
use super::{MAX_BYTES, fail};

/// The behaviour sets the convert target runs, with `error` off and on.
pub(super) fn convert_fix_sets() -> [Fixes; 7] {
    let strict = Fixes::only(Fix::StrictJsonOrWrap);
    let key = Fixes::only(Fix::ErrorKey);
    [
        Fixes::upstream(),
        strict,
        key,
        strict.with(Fix::ErrorKey),
        Fixes::all(),
        Fixes::only(Fix::Pr6907WrapOnFailure),
        Fixes::only(Fix::Pr6049StrictWrap),
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
/// * with `pr-6907-wrap-on-failure` the conversion is upstream's where
///   upstream reads the text, and the text under `result` where it fails;
/// * with `pr-6049-strict-wrap` it is upstream's where the text is one whole
///   value for Jackson (trailing tokens refused), and the text under
///   `result` otherwise;
/// * the JSON-error processor's text is strict JSON that reads back as the text.
///
/// ```
/// toolcall_check::verification::fuzzing::convert(b"[ERROR] disk full");
/// ```
pub fn convert(data: &[u8]) {
    const T: &str = "convert";
    if data.len() > MAX_BYTES {
        return;
    }
    let text = String::from_utf8_lossy(data);
    let text = text.as_ref();
    let strict = toolcall_model::json::read_strict(text);
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
    let readings = Readings {
        text,
        strict: &strict,
        scanned_strict: reference.is_some(),
        serde_value: &serde_value,
        upstream: &upstream,
    };
    for fixes in convert_fix_sets() {
        for error in [false, true] {
            convert_under(&readings, fixes, error);
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
    match toolcall_model::json::read_strict(&error_text) {
        Some(v) if v.to_serde() == json!({ "error": text }) => {}
        other => fail(
            T,
            "read_strict misreads the JSON-error text",
            &(text, &error_text, other),
        ),
    }
}

/// What the convert target reads of one text before running it under each
/// behaviour set: the strict parser's value, whether the reference scanner
/// took it for one strict JSON value, serde_json's value and upstream's
/// conversion.
struct Readings<'a> {
    text: &'a str,
    strict: &'a Option<toolcall_model::json::JValue>,
    scanned_strict: bool,
    serde_value: &'a Option<Value>,
    upstream: &'a Result<toolcall_model::gemini::Payload, toolcall_model::model::JavaException>,
}

/// The convert target under one behaviour set, with `error` off or on: the
/// streamed conversion is the payload's bytes, and the conversion is what
/// the set's fixes promise (see [`convert`]).
fn convert_under(r: &Readings, fixes: Fixes, error: bool) {
    const T: &str = "convert";
    let Readings {
        text,
        strict,
        scanned_strict,
        serde_value,
        upstream,
    } = *r;
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
    let keyed = fixes.contains(Fix::ErrorKey) && error;
    if fixes.contains(Fix::Pr6907WrapOnFailure) || fixes.contains(Fix::Pr6049StrictWrap) {
        pull_request_conversion(text, upstream, fixes, error, &got);
        return;
    }
    if !keyed && !fixes.contains(Fix::StrictJsonOrWrap) {
        if got != *upstream {
            fail(
                T,
                "a set without the conversion fixes differs from upstream",
                &(text, fixes, error),
            );
        }
        return;
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
    let Some(v) = strict else {
        if got != json!({ key: text }) {
            fail(
                T,
                "non-JSON output is not kept byte for byte",
                &(text, fixes, error, got),
            );
        }
        return;
    };
    if !scanned_strict {
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
    let same = match serde_value {
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

/// A pull request's conversion (`pr-6907-wrap-on-failure` or
/// `pr-6049-strict-wrap`): upstream's where the pull request reads the
/// text as upstream does, else the text under `result`.
fn pull_request_conversion(
    text: &str,
    upstream: &Result<toolcall_model::gemini::Payload, toolcall_model::model::JavaException>,
    fixes: Fixes,
    error: bool,
    got: &Result<toolcall_model::gemini::Payload, toolcall_model::model::JavaException>,
) {
    const T: &str = "convert";
    let reads = if fixes.contains(Fix::Pr6049StrictWrap) {
        toolcall_model::json::read_lenient_whole(text).is_ok()
    } else {
        upstream.is_ok()
    };
    let want = if reads {
        upstream.clone()
    } else {
        Ok(toolcall_model::gemini::Payload::from_wrapped_text(text))
    };
    let same = match (&got, &want) {
        (Ok(g), Ok(w)) => g.to_value() == w.to_value(),
        _ => false,
    };
    if !same {
        fail(
            T,
            "a pull request's conversion is neither upstream's nor the text under result",
            &(text, fixes, error, got, want),
        );
    }
}
