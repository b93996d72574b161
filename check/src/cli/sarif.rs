//! `check --sarif FILE`: the verdict as a SARIF 2.1.0 log, so that
//! code-scanning tools annotate the line of `application.properties` or
//! `application.yml` that makes the setup unsafe. One rule per scenario
//! (its id is the scenario's column id, stable across releases), one
//! result per scenario the setup does not survive under the set asked
//! for (level `error`; an accepted one carries a suppression), and one
//! per key Spring ignores (rule `unknown-key`, level `warning`, `error`
//! with `--strict-keys`). docs/CI.md describes the log.

use std::path::Path;

use crate::config::binding::property_under;
use crate::config::{CheckScenario, CheckVerdict, Gate, SetReport, Setup, Unknown};
use crate::config::{Entry, Mark, Remedy, fix_library};
use serde_json::{Value, json};
use toolcall_model::model::OnExceeded;

/// The setting a failing scenario is owed to, as groups of properties to
/// look for (the first group found wins; within a group, the last entry
/// of any): the breach answer under `RETURN_ERROR_RESPONSE` is
/// `on-limit-exceeded`'s doing, a dangling breach under `THROW` the
/// limit's (a per-tool maximum or its default, else the total); the other
/// scenarios depend on the tools and the flags, not on a line of the file.
fn culprit_keys(setup: &Setup, scenario: CheckScenario) -> &'static [&'static [&'static str]] {
    match scenario {
        CheckScenario::BreachOneRound
        | CheckScenario::BreachAcrossRounds
        | CheckScenario::BreachThenRound
        | CheckScenario::Runaway => match setup.limits.on_exceeded {
            OnExceeded::ReturnErrorResponse => &[&["spring.ai.tools.limits.on-limit-exceeded"]],
            OnExceeded::Throw => &[
                &[
                    "spring.ai.tools.limits.max-calls-per-tool",
                    "spring.ai.tools.limits.max-calls-per-tool-default",
                ],
                &["spring.ai.tools.limits.max-total-tool-calls"],
            ],
        },
        CheckScenario::ToolThrows => &[&["spring.ai.tools.throw-exception-on-error"]],
        _ => &[],
    }
}

/// The entry Spring reads for a group of properties (each one or a
/// property under it), with its file: the last source that has one, its
/// last such line.
fn find<'a>(sources: &'a [(String, Vec<Entry>)], group: &[&str]) -> Option<(&'a str, &'a Entry)> {
    sources.iter().rev().find_map(|(origin, d)| {
        d.iter()
            .rev()
            .find(|e| group.iter().any(|p| property_under(&e.key, p)))
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

/// The rule of a key Spring ignores.
const UNKNOWN_KEY: &str = "unknown-key";

fn unknown_rule() -> Value {
    json!({
        "id": UNKNOWN_KEY,
        "name": "spring-ignores-the-key",
        "shortDescription": {"text": "Spring Boot ignores this spring.ai.tools key (misspelt or unknown): the setting it meant is not applied"},
        "help": {"text": "Spring Boot binds spring.ai.tools.* into ToolCallingProperties and drops a key none of its fields takes, without a word. Spell the key as docs/CHECK.md lists (relaxed names: kebab-case, camelCase, underscores and upper case bind alike), or remove it; --strict-keys makes such a key fail the gate."},
        "defaultConfiguration": {"level": "warning"},
    })
}

/// `; did you mean 'KEY'?` for an unknown key near a known one.
pub(crate) fn did_you_mean(u: &Unknown) -> String {
    u.suggestion
        .as_ref()
        .map_or(String::new(), |s| format!("; did you mean '{s}'?"))
}

/// What the log reports: the answer for the set asked for, the accepted
/// findings, and the keys Spring ignores.
pub(crate) struct Findings<'a> {
    pub sources: &'a [(String, Vec<Entry>)],
    pub setup: &'a Setup,
    pub report: &'a SetReport,
    pub remedy: &'a Remedy,
    pub gate: &'a Gate,
    pub unknown: &'a [Unknown],
    pub strict_keys: bool,
    /// The open properties, when the answer is for values the environment
    /// may set.
    pub open: Option<&'a crate::config::OpenAnswer>,
}

/// A file name as an RFC 3986 URI reference: every byte outside the
/// unreserved characters, the sub-delimiters, `@` and `/` percent-encoded
/// (`#`, `?`, `%`, a space, a control character, a `:` that would read
/// as a scheme, and every non-ASCII byte of its UTF-8): `my app#1/a`
/// is `my%20app%231/a` (`tests/check_model.rs` holds it).
pub(crate) fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        let keep = b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'-' | b'.'
                    | b'_'
                    | b'~'
                    | b'!'
                    | b'$'
                    | b'&'
                    | b'\''
                    | b'('
                    | b')'
                    | b'*'
                    | b'+'
                    | b','
                    | b';'
                    | b'='
                    | b'@'
                    | b'/'
            );
        if keep {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The SARIF log for the report of the set asked for.
pub(crate) fn log(f: &Findings) -> Value {
    let file = f
        .sources
        .first()
        .map_or("application.properties", |(o, _)| o.as_str());
    let mut artifacts: Vec<&str> = Vec::new();
    for (o, _) in f.sources {
        if !artifacts.contains(&o.as_str()) && o != "--set" && o != "the environment" {
            artifacts.push(o);
        }
    }
    let fix = fix_sentence(f.remedy);
    let mut results: Vec<Value> = f
        .report
        .verdicts
        .iter()
        .filter(|v| !v.mark.survives())
        .map(|v| scenario_result(f, v, file, &artifacts, &fix))
        .collect();
    for u in f.unknown {
        results.push(unknown_result(f, u, file, &artifacts));
    }
    let mut rules: Vec<Value> = CheckScenario::ALL.iter().map(|s| rule(*s)).collect();
    rules.push(unknown_rule());
    let artifacts = artifacts
        .iter()
        .map(|a| json!({"location": {"uri": uri(a)}}))
        .collect();
    envelope(rules, artifacts, results)
}

/// Every remedy, as the sentence each result ends with: the configuration
/// change under upstream, and the fix library's switches.
fn fix_sentence(remedy: &Remedy) -> String {
    let mut ways = Vec::new();
    if let Some(c) = remedy.change.as_ref().filter(|c| !c.is_empty()) {
        ways.push(format!(
            "without a new library, {}",
            c.iter()
                .map(|x| x.describe())
                .collect::<Vec<_>>()
                .join(" and ")
        ));
    }
    let props = remedy.properties();
    if !props.is_empty() {
        ways.push(format!(
            "with the fix library {}, {}",
            fix_library(remedy.version),
            props.join(", ")
        ));
    }
    if ways.is_empty() {
        String::new()
    } else {
        format!(" Fix it today: {}.", ways.join("; or "))
    }
}

/// The result of a scenario the setup does not survive: on the line of
/// the setting it is owed to, when a file has one.
fn scenario_result(
    f: &Findings,
    v: &CheckVerdict,
    file: &str,
    artifacts: &[&str],
    fix: &str,
) -> Value {
    let (setup, report, remedy) = (f.setup, f.report, f.remedy);
    let index = CheckScenario::ALL
        .iter()
        .position(|s| *s == v.scenario)
        .unwrap_or(0);
    // A setting given with --set or the environment has no file.
    let entry = culprit_keys(setup, v.scenario)
        .iter()
        .find_map(|k| find(f.sources, k))
        .filter(|(o, _)| artifacts.contains(o));
    // Without a setting of its own, the result stands on the file the
    // answer is about.
    let mut physical = json!({"artifactLocation": {"uri": uri(file)}});
    if let Some((origin, e)) = entry {
        physical["artifactLocation"]["uri"] = json!(uri(origin));
        if e.line > 0 {
            physical["region"] = json!({"startLine": e.line, "startColumn": e.column.max(1)});
        }
    }
    let because = entry
        .map(|(_, e)| format!(" (set by {} = {})", e.key, e.value.to_java_string()))
        .unwrap_or_default();
    let mut result = json!({
        "ruleId": v.scenario.column(),
        "ruleIndex": index,
        "level": level(v.mark),
        "message": {"text": format!(
            "{}{}: {}{because} under {}: {}.{fix}",
            open_values(f.open),
            v.scenario.column(),
            v.mark.meaning(),
            report.set.name,
            v.detail,
        )},
        "locations": [{"physicalLocation": physical}],
        "partialFingerprints": {"scenario/set/mark": format!("{}/{}/{}", v.scenario.column(), report.set.name, v.mark.word())},
        "properties": {
            "mark": v.mark.word(),
            "set": report.set.name,
            "configuration": remedy.change.as_ref().map(|c| c.iter().map(|x| x.key()).collect::<Vec<_>>()),
            "library": remedy.properties(),
        },
    });
    if let Some((_, a)) = f.gate.accepted.iter().find(|(s, _)| *s == v.scenario) {
        result["suppressions"] = json!([{
            "kind": "external",
            "status": "accepted",
            "justification": format!("{} ({})", a.reason, a.origin).trim().to_owned(),
        }]);
    }
    result
}

/// `For the value the environment may set (KEY=VALUE, ...): ` when the
/// answer is for values of open properties, not those of the files.
fn open_values(open: Option<&crate::config::OpenAnswer>) -> String {
    let Some(o) = open else {
        return String::new();
    };
    let Some((values, _)) = o.tried.first() else {
        return String::new();
    };
    let set: Vec<String> = o
        .properties
        .iter()
        .zip(values)
        .filter_map(|(p, v)| v.map(|v| format!("{}={v}", p.key)))
        .collect();
    if set.is_empty() {
        return String::new();
    }
    format!(
        "For the value the environment may set ({}), not the one the files give: ",
        set.join(", ")
    )
}

/// The result of a key Spring ignores, on its line.
fn unknown_result(f: &Findings, u: &Unknown, file: &str, artifacts: &[&str]) -> Value {
    // The key's entry: the last source that has it on that line.
    let origin = f
        .sources
        .iter()
        .rev()
        .find(|(o, d)| {
            artifacts.contains(&o.as_str()) && d.iter().any(|e| e.key == u.key && e.line == u.line)
        })
        .map_or(file, |(o, _)| o.as_str());
    let mut physical = json!({"artifactLocation": {"uri": uri(origin)}});
    if u.line > 0 {
        physical["region"] = json!({"startLine": u.line});
    }
    json!({
        "ruleId": UNKNOWN_KEY,
        "ruleIndex": CheckScenario::ALL.len(),
        "level": if f.strict_keys { "error" } else { "warning" },
        "message": {"text": format!("Spring Boot ignores '{}': the setting is not applied{}", u.key, did_you_mean(u))},
        "locations": [{"physicalLocation": physical}],
        "properties": {"key": u.key, "suggestion": u.suggestion},
    })
}

/// Every mark a scenario breaks with is an error: the application fails
/// a user's turn (or bills without end); `raised` and the surviving marks
/// make no result.
fn level(m: Mark) -> &'static str {
    if m.survives() { "none" } else { "error" }
}

/// Writes the log through [`super::out_file::write`]: never over one of
/// `inputs`, a link or anything but a regular file.
pub(crate) fn write(path: &Path, log: &Value, inputs: &[std::path::PathBuf]) -> Result<(), String> {
    let text = serde_json::to_string_pretty(log).unwrap_or_default() + "\n";
    super::out_file::write("--sarif", path, text.as_bytes(), inputs)
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

/// The rule of a run with no verdict: an input not read, not checked,
/// or a build file not understood.
const NO_VERDICT: &str = "no-verdict";

/// The SARIF log of a run that gave no verdict (exit 2): one result, at
/// `file` when there is one, saying why; a CI that uploads the log
/// whatever the exit finds one.
pub(crate) fn stop_log(file: &str, message: &str) -> Value {
    let mut result = json!({
        "ruleId": NO_VERDICT,
        "ruleIndex": 0,
        "level": "error",
        "message": {"text": format!("no verdict: {message}")},
    });
    let mut artifacts = vec![];
    if !file.is_empty() && file != "<stdin>" {
        let uri = uri(file);
        result["locations"] = json!([{"physicalLocation": {"artifactLocation": {"uri": uri}}}]);
        artifacts.push(json!({"location": {"uri": uri}}));
    }
    envelope(
        vec![json!({
            "id": NO_VERDICT,
            "name": "no-verdict",
            "shortDescription": {"text": "toolcall-model check gave no verdict: an input could not be read or checked"},
            "help": {"text": "The check stopped before a verdict (exit 2): the message says which input and why. Fix the input or the flag and run again."},
            "defaultConfiguration": {"level": "error"},
        })],
        artifacts,
        vec![result],
    )
}

/// The rule of a configuration Spring Boot refuses: the application would
/// not start.
const REFUSED: &str = "spring-refuses";

/// The SARIF log of a configuration Spring Boot refuses: one result at the
/// file and line of the refused setting (no region when the refusal has no
/// line).
pub(crate) fn refusal_log(file: &str, line: usize, message: &str) -> Value {
    let uri = uri(file);
    let mut physical = json!({"artifactLocation": {"uri": uri}});
    if line > 0 {
        physical["region"] = json!({"startLine": line});
    }
    envelope(
        vec![json!({
            "id": REFUSED,
            "name": "spring-boot-refuses-the-configuration",
            "shortDescription": {"text": "Spring Boot refuses this configuration: the application would not start"},
            "help": {"text": "Spring Boot cannot bind this value (a value outside its type, an enum constant it does not know, a placeholder with no value): the context fails to start. The message is Spring's own; fix the value at this line."},
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
