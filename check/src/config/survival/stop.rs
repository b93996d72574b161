//! Why `check` gives no verdict ([`Stop`]), and Spring Boot's refusal
//! placed once ([`Refusal`]): the file, line and property its text, JSON
//! and SARIF log all name.

use serde_json::{Value, json};

use crate::config::binding::property_under;
use crate::config::binding::{BindFailure, Entry};

/// Why there is no verdict.
///
/// ```
/// use toolcall_check::config::{Format, Options, Sources, Stop, Text, answer};
/// let bad = Text::new("a.yml", Format::Yaml, "spring: [\n");
/// let stop = answer(Sources::of(vec![bad]), &Options::default()).unwrap_err();
/// assert!(matches!(stop, Stop::CannotLoad { ref file, .. } if file == "a.yml"));
/// ```
#[derive(Debug, Clone)]
pub enum Stop {
    /// A file that was not read (unreadable, past the byte budget).
    NotRead {
        /// The file.
        file: String,
        /// Why.
        why: String,
    },
    /// A file past the size limit.
    TooLarge {
        /// The file.
        file: String,
        /// Spring's message.
        message: String,
    },
    /// A YAML file that is not UTF-8.
    NotUtf8 {
        /// The file.
        file: String,
        /// Where its valid UTF-8 ends.
        byte: usize,
    },
    /// A text past this model's limits.
    NotChecked {
        /// The file.
        file: String,
        /// Why.
        why: String,
    },
    /// A text Spring Boot cannot load.
    CannotLoad {
        /// The file.
        file: String,
        /// Spring's message.
        message: String,
    },
    /// A configuration Spring Boot refuses to bind.
    Refused(Box<Refusal>),
    /// A build file that cannot be read.
    Build {
        /// The build file.
        file: String,
        /// Why.
        why: String,
    },
    /// The set asked for has no report.
    NoReport,
}

/// Spring Boot's refusal, placed once: the file and line of the refused
/// setting, its property, and the properties left out before it.
///
/// ```
/// use toolcall_check::config::{Format, Options, Sources, Stop, Text, answer};
/// let text = "spring.ai.tools.limits.on-limit-exceeded=THROW\nspring.ai.tools.limits.max-calls-per-tool=abc\n";
/// let sources = Sources::of(vec![Text::new("a.properties", Format::Properties, text)]);
/// let Err(Stop::Refused(r)) = answer(sources, &Options::default()) else { panic!() };
/// assert_eq!((r.at.as_str(), r.line), ("a.properties", 2));
/// assert_eq!(r.to_value()["kind"], "bind");
/// ```
#[derive(Debug, Clone)]
pub struct Refusal {
    /// The file the answer is about (the first source).
    pub file: String,
    /// The file the refused setting is in.
    pub at: String,
    /// Its line (0: none).
    pub line: usize,
    /// Its property, where the refusal names one.
    pub property: Option<String>,
    /// Spring's refusal.
    pub failure: BindFailure,
    /// The properties left out before it (Spring would have refused their
    /// placeholders first, unless the environment sets them).
    pub unresolved: Vec<String>,
    /// Whether the refusal is the SARIF log's (a refusal of the profiles
    /// is not).
    pub logged: bool,
}

impl Refusal {
    /// The refusal's parts, for tools (and the binding test against
    /// Spring Boot).
    pub fn to_value(&self) -> Value {
        let mut v = match &self.failure {
            BindFailure::Bind(p) => json!({
                "kind": "bind",
                "description": p.description,
                "property": p.property,
                "value": p.value,
                "line": p.line,
                "column": p.column,
                "reason": p.reason,
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
        };
        if let (BindFailure::Builder { .. }, Some(p)) = (&self.failure, &self.property) {
            v["property"] = json!(p);
            v["line"] = json!(self.line);
        }
        v
    }
}

/// Places Spring's refusal of `sources`: a refusal past this model's
/// limits is a text not checked.
pub(super) fn refusal(
    sources: &[(String, Vec<Entry>)],
    failure: BindFailure,
    unresolved: Vec<String>,
    logged: bool,
) -> Stop {
    let name = sources.first().map_or("", |(o, _)| o.as_str());
    // The file a line belongs to: the last source with an entry there.
    let origin = |line: usize, key: Option<&str>| {
        sources
            .iter()
            .rev()
            .find(|(_, d)| {
                d.iter()
                    .any(|e| e.line == line && key.is_none_or(|k| property_under(&e.key, k)))
            })
            .map_or(name, |(o, _)| o.as_str())
    };
    let (at, line, property) = match &failure {
        BindFailure::Bind(p) => (
            origin(p.line, Some(&p.property)),
            p.line,
            Some(p.property.clone()),
        ),
        BindFailure::Unbound { line, .. } => (origin(*line, None), *line, None),
        BindFailure::Limit { message } => {
            return Stop::NotChecked {
                file: name.to_owned(),
                why: message.clone(),
            };
        }
        BindFailure::Builder { message } => match builder_culprit(sources, message) {
            Some(en) => (
                origin(en.line, Some(&en.key)),
                en.line,
                Some(en.key.clone()),
            ),
            None => (name, 0, None),
        },
        BindFailure::Convert { .. } => (name, 0, None),
    };
    Stop::Refused(Box::new(Refusal {
        file: name.to_owned(),
        at: at.to_owned(),
        line,
        property,
        failure,
        unresolved,
        logged,
    }))
}

/// The entry that made the builder refuse: the property the builder call
/// reads (`maxCallsPerTool` is the per-tool default or an override,
/// whichever is not positive).
fn builder_culprit<'a>(sources: &'a [(String, Vec<Entry>)], message: &str) -> Option<&'a Entry> {
    let bad_number = |e: &&Entry| {
        let v = e.value.to_java_string();
        v.trim().parse::<i64>().is_ok_and(|n| n < 1 && n != -1)
    };
    let under = |prefix: &str, e: &&Entry| property_under(&e.key, prefix);
    let entries = || sources.iter().rev().flat_map(|(_, d)| d.iter().rev());
    let found = |prefixes: &[&str]| {
        entries().find(|e| prefixes.iter().any(|p| under(p, e)) && bad_number(e))
    };
    if message.contains("maxTotalToolCalls") {
        found(&["spring.ai.tools.limits.max-total-tool-calls"])
    } else if message.contains("maxCallsPerTool") {
        found(&[
            "spring.ai.tools.limits.max-calls-per-tool",
            "spring.ai.tools.limits.max-calls-per-tool-default",
        ])
    } else if message.contains("toolName") {
        entries().find(|e| {
            under("spring.ai.tools.limits.excluded-tools", e)
                && e.value
                    .to_java_string()
                    .split(',')
                    .any(|t| t.trim().is_empty())
        })
    } else {
        None
    }
}
