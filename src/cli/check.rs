//! `toolcall-model check`: reads an `application.properties` or
//! `application.yml`, binds its `spring.ai.tools.*` keys as Spring Boot
//! would, and prints per behaviour set whether the setup survives each
//! scenario and the smallest change that makes it safe. The logic is the
//! library's (`spring_config`, `check`); this file reads the file and prints.

use std::num::NonZeroU32;
use std::path::Path;
use std::process::ExitCode;

use serde_json::{json, Value};
use toolcall_model::chat::tool_loop::{Memory, Provider};
use toolcall_model::config::binding::{
    bind, parse_properties, too_large, BindFailure, Bound, MAX_CONFIG_BYTES,
};
use toolcall_model::config::check::{describe_setup, report, Scenario, SetReport, Setup};
use toolcall_model::model::limits::{Max, OnExceeded};
use toolcall_model::model::processor::{Processor, ProcessorKind};

/// What properties cannot say, from the command line.
pub struct Flags {
    pub processor: String,
    pub rethrow: String,
    pub memory: String,
    pub memory_window: u32,
    pub history: String,
    pub provider: String,
    pub json: bool,
    pub format: Option<String>,
}

fn fail(msg: &str) -> ExitCode {
    errln!("error: {msg}");
    ExitCode::FAILURE
}

fn usage(msg: &str) -> ExitCode {
    errln!("error: {msg}");
    ExitCode::from(2)
}

pub fn command(file: &Path, f: &Flags) -> ExitCode {
    let kind = match f.format.as_deref() {
        Some("properties") => "properties",
        Some("yaml" | "yml") => "yaml",
        Some(other) => return usage(&format!("--format {other}: use properties or yaml")),
        None => match file.extension().and_then(|e| e.to_str()) {
            Some("yml" | "yaml") => "yaml",
            Some("properties") => "properties",
            _ => {
                return usage(&format!(
                    "{}: cannot tell properties from YAML by its name; add --format properties or --format yaml",
                    file.display()
                ))
            }
        },
    };
    let processor = match f.processor.as_str() {
        "default" => ProcessorKind::Default,
        "json-error" => ProcessorKind::JsonError,
        p => return usage(&format!("--processor {p}: use default or json-error")),
    };
    let memory = match f.memory.as_str() {
        "none" => Memory::None,
        "inside" => Memory::Inside,
        "outside" => Memory::Outside,
        m => return usage(&format!("--memory {m}: use none, outside or inside")),
    };
    let history = match f.history.as_str() {
        "auto" => None,
        "on" => Some(true),
        "off" => Some(false),
        h => return usage(&format!("--history {h}: use auto, on or off")),
    };
    let provider = match f.provider.as_str() {
        "gemini" => Provider::Gemini,
        "none" => Provider::None,
        p => return usage(&format!("--provider {p}: use gemini or none")),
    };
    let Some(window) = NonZeroU32::new(f.memory_window) else {
        return usage("--memory-window 0: java.lang.IllegalArgumentException: maxMessages must be greater than 0");
    };
    let rethrow: Vec<String> = if f.rethrow == "none" {
        vec![]
    } else {
        f.rethrow
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect()
    };
    if let Some(bad) = rethrow.iter().find(|c| {
        !c.split('.').all(|p| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        })
    }) {
        return usage(&format!("--rethrow: '{bad}' is not a Java class name"));
    }
    // At most one byte past the limit is read: a larger file is refused
    // without reading it all.
    let bytes = match std::fs::File::open(file).and_then(|fh| {
        let mut b = Vec::new();
        std::io::Read::read_to_end(
            &mut std::io::Read::take(fh, MAX_CONFIG_BYTES as u64 + 1),
            &mut b,
        )
        .map(|_| b)
    }) {
        Ok(b) => b,
        Err(e) => return fail(&format!("{}: cannot read: {e}", file.display())),
    };
    if bytes.len() > MAX_CONFIG_BYTES {
        // A device or a pipe has no size (/dev/zero says 0): at least what was read.
        let size =
            std::fs::metadata(file).map_or(bytes.len() as u64, |m| m.len().max(bytes.len() as u64));
        let size = usize::try_from(size).unwrap_or(usize::MAX);
        let message = too_large(size).message;
        if f.json {
            outln!(
                "{}",
                serde_json::to_string_pretty(
                    &json!({"file": file.display().to_string(), "not_read": message})
                )
                .unwrap_or_default()
            );
        }
        return fail(&format!(
            "{}: {message} (check reads an application.properties or application.yml of up to {MAX_CONFIG_BYTES} bytes)",
            file.display()
        ));
    }
    let docs = if kind == "properties" {
        match parse_properties(&bytes) {
            Ok(d) => d,
            Err(e) if e.not_modelled => return not_checked(file, &e.to_string(), f.json),
            Err(e) => return cannot_load(file, &e.to_string(), f.json),
        }
    } else {
        // SnakeYAML reads UTF-8 (a BOM picks UTF-16 or UTF-32).
        let text = match std::str::from_utf8(&bytes) {
            Ok(t) => t,
            Err(e) => {
                return fail(&format!(
                    "{}: not valid UTF-8 (byte {})",
                    file.display(),
                    e.valid_up_to()
                ))
            }
        };
        match toolcall_model::config::yaml::read(text.strip_prefix('\u{feff}').unwrap_or(text)) {
            Ok(d) => d,
            Err(e) => {
                if let Some(why) = e.strip_prefix(toolcall_model::config::yaml::NOT_MODELLED) {
                    return not_checked(file, why, f.json);
                }
                return cannot_load(file, &e, f.json);
            }
        }
    };
    let bound = match bind(&docs) {
        Ok(b) => b,
        Err(e) => {
            let head = match &e {
                BindFailure::Bind { line, .. } => format!("{}:{line}", file.display()),
                BindFailure::Unbound { line, .. } => format!("{}:{line}", file.display()),
                BindFailure::Limit { message } => {
                    if f.json {
                        outln!(
                            "{}",
                            serde_json::to_string_pretty(&json!({
                                "file": file.display().to_string(),
                                "not_checked": message,
                            }))
                            .unwrap_or_default()
                        );
                    }
                    return fail(&format!(
                        "{}: not checked: {}",
                        file.display(),
                        clip(message)
                    ));
                }
                BindFailure::Convert { .. } | BindFailure::Builder { .. } => {
                    file.display().to_string()
                }
            };
            if f.json {
                outln!(
                    "{}",
                    serde_json::to_string_pretty(&json!({
                        "file": file.display().to_string(),
                        "spring_refuses": e.to_string(),
                        "refusal": refusal_json(&e),
                    }))
                    .unwrap_or_default()
                );
            }
            errln!(
                "error: {head}: Spring Boot refuses this configuration; the application would not start:\n\n{}",
                clip(&e.to_string())
            );
            return ExitCode::FAILURE;
        }
    };
    let setup = Setup {
        limits: bound.limits.clone(),
        resolution_fallback: bound.resolution_fallback,
        processor: Processor {
            kind: processor,
            always_throw: bound.always_throw,
            rethrow,
        },
        memory,
        memory_max_messages: window,
        conversation_history: history,
        provider,
    };
    let reports = report(&setup);
    if f.json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&to_json(file, &bound, &setup, &reports))
                .unwrap_or_default()
        );
    } else {
        out!(
            "{}",
            super::shown_lines(&clip(&to_text(file, &bound, &setup, &reports)))
        );
    }
    ExitCode::SUCCESS
}

/// A file past this model's limits: `not checked: WHY`, and with `--json`
/// `{"file", "not_checked"}` on standard output.
fn not_checked(file: &Path, why: &str, json: bool) -> ExitCode {
    if json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&json!({
                "file": file.display().to_string(),
                "not_checked": why,
            }))
            .unwrap_or_default()
        );
    }
    fail(&format!("{}: not checked: {}", file.display(), clip(why)))
}

/// A file Spring Boot cannot load: the message, and with `--json` the same
/// as `{"file", "spring_cannot_load"}` on standard output.
fn cannot_load(file: &Path, message: &str, json: bool) -> ExitCode {
    if json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&json!({
                "file": file.display().to_string(),
                "spring_cannot_load": message,
            }))
            .unwrap_or_default()
        );
    }
    fail(&format!(
        "{}: Spring cannot load it: {}",
        file.display(),
        clip(message)
    ))
}

/// Text for a person: every line past 300 characters cut to its first 200
/// and its length (a value can be megabytes long).
fn clip(s: &str) -> String {
    s.split('\n')
        .map(|line| {
            let n = line.chars().count();
            if n > 300 {
                let head: String = line.chars().take(200).collect();
                format!("{head}... ({n} characters)")
            } else {
                line.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn short(s: Scenario) -> &'static str {
    match s {
        Scenario::BreachOneRound => "breach-1",
        Scenario::BreachAcrossRounds => "breach-n",
        Scenario::PlainText => "plain",
        Scenario::HalfJson => "half-json",
        Scenario::EmptyText => "empty",
        Scenario::NullResult => "null",
        Scenario::ToolThrows => "throws",
        Scenario::LongTurn => "12-rounds",
    }
}

fn change_text(r: &SetReport) -> String {
    match &r.smallest_change {
        Some(c) if c.is_empty() => "safe as configured".to_owned(),
        Some(c) => c
            .iter()
            .map(|x| x.describe())
            .collect::<Vec<_>>()
            .join(" and "),
        None => "no configuration change of one or two settings is enough".to_owned(),
    }
}

fn to_text(file: &Path, bound: &Bound, setup: &Setup, reports: &[SetReport]) -> String {
    let mut out = String::new();
    out.push_str(&format!("{}: Spring Boot reads\n", file.display()));
    if bound.read.is_empty() {
        out.push_str("  (no spring.ai.tools key: every default)\n");
    }
    for (k, v) in &bound.read {
        out.push_str(&clip(&super::shown(&format!("  {k} = {v}"))));
        out.push('\n');
    }
    for u in &bound.unknown {
        out.push_str(&clip(&super::shown(&format!(
            "warning: line {}: Spring ignores '{}'; did you mean '{}'?",
            u.line, u.key, u.suggestion
        ))));
        out.push('\n');
    }
    for name in &bound.placeholders_not_in_file {
        out.push_str(&clip(&format!(
            "warning: ${{{name}}} is not set in this file: read with its default (or as written); Spring would take it from a system property or environment variable first"
        )));
        out.push('\n');
    }
    out.push_str(&format!(
        "Setup: {}\n\n",
        super::shown(&describe_setup(setup))
    ));
    let name_w = reports
        .iter()
        .map(|r| r.set.name.len())
        .max()
        .unwrap_or(13)
        .max(13)
        + 1;
    let mut head = format!("{:<name_w$}", "behaviour set");
    for s in Scenario::ALL {
        head.push_str(&format!("{:<10}", short(s)));
    }
    out.push_str(head.trim_end());
    out.push('\n');
    for r in reports {
        let mut l = format!("{:<name_w$}", r.set.name);
        for v in &r.verdicts {
            l.push_str(&format!("{:<10}", v.mark.word()));
        }
        out.push_str(l.trim_end());
        out.push('\n');
    }
    out.push_str("\nScenarios:");
    for s in Scenario::ALL {
        out.push_str(&format!("\n  {:<10}{}", short(s), s.describe()));
    }
    out.push_str("\n\nThe smallest change that makes it safe:\n");
    for r in reports {
        out.push_str(&format!(
            "  {:<name_w$}{}\n",
            r.set.name,
            super::shown(&change_text(r))
        ));
    }
    if let Some(up) = reports.first() {
        let failing: Vec<String> = up
            .verdicts
            .iter()
            .filter(|v| !v.mark.survives())
            .map(|v| format!("  {}: {}", short(v.scenario), super::shown(&v.detail)))
            .collect();
        if !failing.is_empty() {
            out.push_str(&format!(
                "\nWhat breaks under {}:\n{}\n",
                up.set.name,
                failing.join("\n")
            ));
        }
    }
    let safe: Vec<&str> = reports
        .iter()
        .filter(|r| r.safe())
        .map(|r| r.set.name)
        .collect();
    out.push_str(&format!(
        "\nSafe as configured under: {}\nFull texts: --json\n",
        if safe.is_empty() {
            "no behaviour set".to_owned()
        } else {
            safe.join(", ")
        }
    ));
    out
}

/// The refusal's parts, for tools (and the binding test against Spring Boot).
fn refusal_json(e: &BindFailure) -> Value {
    match e {
        BindFailure::Bind {
            description,
            property,
            value,
            line,
            column,
            reason,
        } => json!({
            "kind": "bind",
            "description": description,
            "property": property,
            "value": value,
            "line": line,
            "column": column,
            "reason": reason,
        }),
        BindFailure::Unbound { properties, line } => json!({
            "kind": "unbound",
            "properties": properties,
            "line": line,
        }),
        BindFailure::Convert {
            description,
            reason,
        } => json!({"kind": "convert", "description": description, "reason": reason}),
        BindFailure::Builder { message } => json!({"kind": "builder", "message": message}),
        BindFailure::Limit { message } => json!({"kind": "not_modelled", "message": message}),
    }
}

/// What the auto-configuration built: the limits, the processor's
/// `alwaysThrow`, the manager's resolution fallback and
/// `observations.include-content`.
fn bound_json(bound: &Bound) -> Value {
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

fn to_json(file: &Path, bound: &Bound, setup: &Setup, reports: &[SetReport]) -> Value {
    json!({
        "file": file.display().to_string(),
        "read": bound.read,
        "bound": bound_json(bound),
        "unknown_keys": bound.unknown.iter().map(|u| json!({"key": u.key, "line": u.line, "suggestion": u.suggestion})).collect::<Vec<_>>(),
        "placeholders_not_in_file": bound.placeholders_not_in_file,
        "setup": describe_setup(setup),
        "sets": reports.iter().map(|r| json!({
            "set": r.set.name,
            "safe": r.safe(),
            "verdicts": r.verdicts.iter().map(|v| v.to_value()).collect::<Vec<_>>(),
            "smallest_change": r.smallest_change.as_ref().map(|c| c.iter().map(|x| json!({"change": x.key(), "how": x.describe()})).collect::<Vec<_>>()),
        })).collect::<Vec<_>>(),
    })
}
