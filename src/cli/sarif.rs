//! `check --sarif FILE`: the verdict as a SARIF 2.1.0 log, so that
//! code-scanning tools annotate the line of `application.properties` or
//! `application.yml` that makes the setup unsafe. One rule per scenario
//! (its id is the scenario's column id), one result per scenario the setup
//! does not survive under the set asked for.

use serde_json::{json, Value};
use toolcall_model::config::relaxed;
use toolcall_model::config::Entry;
use toolcall_model::config::{CheckScenario, SetReport, Setup};
use toolcall_model::model::OnExceeded;

use super::check::Remedy;

/// The setting a failing scenario is owed to, as the key prefixes to look
/// for (first found wins): the breach answer under `RETURN_ERROR_RESPONSE`
/// is `on-limit-exceeded`'s doing, a dangling breach under `THROW` the
/// limit's; the other scenarios depend on the tools and the flags, not on
/// a line of the file.
fn culprit_keys(setup: &Setup, scenario: CheckScenario) -> &'static [&'static str] {
    match scenario {
        CheckScenario::BreachOneRound
        | CheckScenario::BreachAcrossRounds
        | CheckScenario::BreachThenRound => match setup.limits.on_exceeded {
            OnExceeded::ReturnErrorResponse => &["spring.ai.tools.limits.on-limit-exceeded"],
            OnExceeded::Throw => &[
                "spring.ai.tools.limits.max-calls-per-tool",
                "spring.ai.tools.limits.max-total-tool-calls",
            ],
        },
        CheckScenario::ToolThrows => &["spring.ai.tools.throw-exception-on-error"],
        _ => &[],
    }
}

/// The entry Spring reads for a key prefix, with its file: the last
/// source that has one, its last such line.
fn find<'a>(sources: &'a [(String, Vec<Entry>)], prefix: &str) -> Option<(&'a str, &'a Entry)> {
    let p = relaxed(prefix);
    sources.iter().rev().find_map(|(origin, d)| {
        d.iter()
            .rev()
            .find(|e| relaxed(&e.key).starts_with(&p))
            .map(|e| (origin.as_str(), e))
    })
}

fn rule(s: CheckScenario) -> Value {
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
    sources: &[(String, Vec<Entry>)],
    setup: &Setup,
    report: &SetReport,
    remedy: &Remedy,
) -> Value {
    let file = sources
        .first()
        .map_or("application.properties", |(o, _)| o.as_str());
    let mut artifacts: Vec<&str> = Vec::new();
    for (o, _) in sources {
        if !artifacts.contains(&o.as_str()) && o != "--set" && o != "the environment" {
            artifacts.push(o);
        }
    }
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
            let index = CheckScenario::ALL
                .iter()
                .position(|s| *s == v.scenario)
                .unwrap_or(0);
            // A setting given with --set or the environment has no file.
            let entry = culprit_keys(setup, v.scenario)
                .iter()
                .find_map(|k| find(sources, k))
                .filter(|(o, _)| artifacts.contains(o));
            // Without a setting of its own, the result stands on the file
            // the answer is about.
            let mut physical = json!({"artifactLocation": {"uri": file}});
            if let Some((origin, e)) = entry {
                physical["artifactLocation"]["uri"] = json!(origin);
                if e.line > 0 {
                    physical["region"] =
                        json!({"startLine": e.line, "startColumn": e.column.max(1)});
                }
            }
            let because = entry
                .map(|(_, e)| format!(" (set by {} = {})", e.key, e.value.to_java_string()))
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
    let rules = CheckScenario::ALL.iter().map(|s| rule(*s)).collect();
    let artifacts = artifacts
        .iter()
        .map(|a| json!({"location": {"uri": a}}))
        .collect();
    envelope(rules, artifacts, results)
}

/// A SARIF 2.1.0 log of one run of this tool.
fn envelope(rules: Vec<Value>, artifacts: Vec<Value>, results: Vec<Value>) -> Value {
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "toolcall-model",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "artifacts": artifacts,
            "results": results,
        }],
    })
}

/// The rule of a configuration Spring Boot refuses: the application would
/// not start.
const REFUSED: &str = "spring-refuses";

/// The SARIF log of a configuration Spring Boot refuses: one result at the
/// file and line of the refused setting (no region when the refusal has no
/// line).
pub(crate) fn refusal_log(uri: &str, line: usize, message: &str) -> Value {
    let mut physical = json!({"artifactLocation": {"uri": uri}});
    if line > 0 {
        physical["region"] = json!({"startLine": line});
    }
    envelope(
        vec![json!({
            "id": REFUSED,
            "name": "spring-boot-refuses-the-configuration",
            "shortDescription": {"text": "Spring Boot refuses this configuration: the application would not start"},
            "defaultConfiguration": {"level": "error"},
        })],
        vec![json!({"location": {"uri": uri}})],
        vec![json!({
            "ruleId": REFUSED,
            "ruleIndex": 0,
            "level": "error",
            "message": {"text": format!("Spring Boot refuses this configuration; the application would not start: {message}")},
            "locations": [{"physicalLocation": physical}],
        })],
    )
}
