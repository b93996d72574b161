//! `check --sarif FILE`: the verdict as a SARIF 2.1.0 log, so that
//! code-scanning tools annotate the line of `application.properties` or
//! `application.yml` that makes the setup unsafe. One rule per scenario
//! (its id is the scenario's column id), one result per scenario the setup
//! does not survive under the set asked for.

use serde_json::{json, Value};
use toolcall_model::config::binding::Entry;
use toolcall_model::config::check::{Scenario, SetReport, Setup};
use toolcall_model::model::limits::OnExceeded;

use super::check::Remedy;

/// The setting a failing scenario is owed to, as the key prefixes to look
/// for (first found wins): the breach answer under `RETURN_ERROR_RESPONSE`
/// is `on-limit-exceeded`'s doing, a dangling breach under `THROW` the
/// limit's; the other scenarios depend on the tools and the flags, not on
/// a line of the file.
fn culprit_keys(setup: &Setup, scenario: Scenario) -> &'static [&'static str] {
    match scenario {
        Scenario::BreachOneRound | Scenario::BreachAcrossRounds | Scenario::BreachThenRound => {
            match setup.limits.on_exceeded {
                OnExceeded::ReturnErrorResponse => &["spring.ai.tools.limits.on-limit-exceeded"],
                OnExceeded::Throw => &[
                    "spring.ai.tools.limits.max-calls-per-tool",
                    "spring.ai.tools.limits.max-total-tool-calls",
                ],
            }
        }
        Scenario::ToolThrows => &["spring.ai.tools.throw-exception-on-error"],
        _ => &[],
    }
}

/// A key in Spring's relaxed form: letters, digits and dots, lower case.
fn relaxed(key: &str) -> String {
    key.chars()
        .filter(|c| c.is_alphanumeric() || *c == '.')
        .flat_map(char::to_lowercase)
        .collect()
}

/// The entry Spring reads for a key prefix: the last document that has
/// one, its last such line.
fn find<'a>(docs: &'a [Vec<Entry>], prefix: &str) -> Option<&'a Entry> {
    let p = relaxed(prefix);
    docs.iter()
        .rev()
        .flat_map(|d| d.iter().rev())
        .find(|e| relaxed(&e.key).starts_with(&p))
}

fn rule(s: Scenario) -> Value {
    json!({
        "id": s.column(),
        "name": s.name(),
        "shortDescription": {"text": s.describe()},
        "help": {"text": format!("toolcall-model check plays this scenario on the setup the file and the flags state: {}", s.describe())},
        "defaultConfiguration": {"level": "error"},
    })
}

/// The SARIF log for the report of the set asked for.
pub(crate) fn log(
    file: &str,
    docs: &[Vec<Entry>],
    setup: &Setup,
    report: &SetReport,
    remedy: &Remedy,
) -> Value {
    let fix = {
        let props = remedy.properties();
        if props.is_empty() {
            String::new()
        } else {
            format!(
                " Fix it today: {} (the fix library {}).",
                props.join(", "),
                super::check::FIX_LIBRARY
            )
        }
    };
    let results: Vec<Value> = report
        .verdicts
        .iter()
        .filter(|v| !v.mark.survives())
        .map(|v| {
            let index = Scenario::ALL
                .iter()
                .position(|s| *s == v.scenario)
                .unwrap_or(0);
            let entry = culprit_keys(setup, v.scenario)
                .iter()
                .find_map(|k| find(docs, k));
            let mut physical = json!({"artifactLocation": {"uri": file}});
            if let Some(e) = entry {
                physical["region"] =
                    json!({"startLine": e.line.max(1), "startColumn": e.column.max(1)});
            }
            let because = entry
                .map(|e| format!(" (set by {} = {})", e.key, e.value.to_java_string()))
                .unwrap_or_default();
            json!({
                "ruleId": v.scenario.column(),
                "ruleIndex": index,
                "level": "error",
                "message": {"text": format!(
                    "{}: {}{because} under {}: {}.{fix}",
                    v.scenario.column(),
                    v.mark.meaning(),
                    report.set.name,
                    v.detail,
                )},
                "locations": [{"physicalLocation": physical}],
                "properties": {"mark": v.mark.word(), "set": report.set.name},
            })
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "toolcall-model",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": Scenario::ALL.iter().map(|s| rule(*s)).collect::<Vec<_>>(),
            }},
            "artifacts": [{"location": {"uri": file}}],
            "results": results,
        }],
    })
}
