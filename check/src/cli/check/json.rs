//! `check --json`: the answer as one JSON object (docs/CHECK.md
//! describes its fields).

use crate::config::{Answer, BoundProperties, Gate, OpenAnswer, SetReport, Setup, describe_setup};
use serde_json::{Value, json};
use toolcall_model::model::{Max, OnExceeded};

/// The answer as JSON, its exit `code` in `asked.exit`.
pub(super) fn answer(name: &str, a: &Answer, strict_keys: bool, code: u8) -> Value {
    let mut v = to_json(name, &a.bound, &a.setup, &a.reports);
    v["asked"] = asked_json(a.asked(), &a.gate, strict_keys, code);
    v["legend"] = legend_json(&a.reports);
    v["fix_it_today"] = a.remedy.to_value();
    v["files"] = json!(a.files);
    v["profiles"] = json!(a.active);
    v["notes"] = json!(a.notes);
    v["fix_library"] = match &a.installed {
        Some(i) => json!({
            "installs": i.fixes.iter().map(|f| f.name()).collect::<Vec<_>>(),
            "json_error_processor": i.json_error_processor,
            "reasons": i.reasons,
        }),
        None => Value::Null,
    };
    v["unresolved"] = json!(a.unresolved);
    v["open"] = a.open.as_ref().map_or(Value::Null, OpenAnswer::to_value);
    v["spring_ai_version"] = json!(a.build.as_ref().map(super::text::version_line));
    v["spring_ai"] = json!(a.setup.version.name());
    v
}

/// The gate for the set asked for (`asked`), its exit `code` in `exit`.
pub(super) fn asked_json(mine: &SetReport, gate: &Gate, strict_keys: bool, code: u8) -> Value {
    let accepted: Vec<Value> = gate
        .accepted
        .iter()
        .map(|(s, a)| json!({"scenario": s.column(), "mark": a.mark, "set": a.set, "reason": a.reason, "origin": a.origin}))
        .collect();
    json!({
        "set": mine.set.name,
        "safe": mine.safe(),
        "breaks": mine.breaks(),
        "accepted": accepted,
        "not_accepted": gate.open.iter().map(|s| s.column()).collect::<Vec<_>>(),
        "stale_accepted": gate.stale.iter().map(|a| json!({"scenario": a.scenario.column(), "mark": a.mark, "set": a.set, "origin": a.origin})).collect::<Vec<_>>(),
        "strict_keys": strict_keys,
        "exit": code,
    })
}

pub(super) fn legend_json(reports: &[SetReport]) -> Value {
    let mut m = serde_json::Map::new();
    for mark in super::text::marks_used(reports) {
        m.insert(mark.word().to_owned(), json!(mark.meaning()));
    }
    Value::Object(m)
}

/// What the auto-configuration built: the limits, the processor's
/// `alwaysThrow`, the manager's resolution fallback and
/// `observations.include-content`.
fn bound_json(bound: &BoundProperties) -> Value {
    let max = |m: Max| match m {
        Max::Limited(n) => json!(n),
        Max::Unlimited => json!("unlimited"),
    };
    let l = &bound.limits;
    json!({
        "max_calls_per_tool_default": max(l.default_max_per_tool),
        "max_calls_per_tool": l.overrides,
        "excluded_tools": l.excluded,
        "max_total_tool_calls": max(l.max_total),
        "on_limit_exceeded": match l.on_exceeded {
            OnExceeded::Throw => "THROW",
            OnExceeded::ReturnErrorResponse => "RETURN_ERROR_RESPONSE",
        },
        "throw_exception_on_error": bound.always_throw,
        "resolution_fallback_enabled": bound.resolution_fallback,
        "include_content": bound.include_content,
    })
}

fn to_json(name: &str, bound: &BoundProperties, setup: &Setup, reports: &[SetReport]) -> Value {
    json!({
        "file": name,
        "read": bound.read,
        "bound": bound_json(bound),
        "unknown_keys": bound.unknown.iter().map(|u| json!({"key": u.key, "line": u.line, "suggestion": u.suggestion})).collect::<Vec<_>>(),
        "placeholders_not_in_file": bound.placeholders_not_in_file,
        "setup": describe_setup(setup),
        "sets": sets_json(reports),
    })
}

/// Every set's verdicts and smallest change (`sets`).
pub(super) fn sets_json(reports: &[SetReport]) -> Value {
    json!(reports.iter().map(|r| json!({
        "set": r.set.name,
        "safe": r.safe(),
        "verdicts": r.verdicts.iter().map(|v| {
            let mut o = v.to_value();
            o["column"] = json!(v.scenario.column());
            o
        }).collect::<Vec<_>>(),
        "smallest_change": r.smallest_change.as_ref().map(|c| c.iter().map(|x| json!({"change": x.key(), "how": x.describe()})).collect::<Vec<_>>()),
    })).collect::<Vec<_>>())
}
