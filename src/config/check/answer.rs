//! `check`'s answer as one value ([`answer`]): the configuration texts,
//! the environment and the options in; the profiles applied, the lenient
//! bind, the open values, the version, every behaviour set's verdicts, the
//! gate and the remedy out, or why there is no verdict ([`Stop`]). The
//! command reads the files and renders; nothing here reads a file.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::sources::{
    Documents, apply_profiles, build_version, drop_keys_since_2_0_1, read_sources,
};
use super::{
    Accepted, Application, Gate, Lenient, OpenAnswer, Remedy, SetReport, Setup, bind_open,
    worst_open,
};
use crate::config::binding::{BindFailure, BoundProperties, Entry};
use crate::config::profiles::{environment, relaxed, source};
use crate::model::behavior::{BehaviorSet, SpringAi, behavior_sets};

/// How a configuration text is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `application.properties`.
    Properties,
    /// `application.yml`.
    Yaml,
}

/// One configuration file as read: its name as the answer prints it, how
/// it is written, and its bytes (at most one past
/// [`MAX_CONFIG_BYTES`](crate::config::MAX_CONFIG_BYTES), to tell a file
/// too large) with the size the file system gives, or why it could not be
/// read.
#[derive(Debug, Clone)]
pub struct Text {
    /// The name printed for it.
    pub name: String,
    /// Properties or YAML.
    pub format: Format,
    /// The bytes and the size, or why the file was not read.
    pub read: Result<(Vec<u8>, Option<u64>), String>,
}

impl Text {
    /// A text held in memory.
    pub fn new(name: &str, format: Format, text: &str) -> Text {
        Text {
            name: name.to_owned(),
            format,
            read: Ok((text.as_bytes().to_vec(), None)),
        }
    }
}

/// The profile files found beside the files given for the active
/// profiles, in Spring's order, each with the absolute location Spring's
/// messages name, and how many were left out as the same file as another.
#[derive(Debug, Clone, Default)]
pub struct ProfileFiles {
    /// The files, each with its location.
    pub files: Vec<(Text, String)>,
    /// How many were the same file as one read after them.
    pub same: usize,
}

/// What Spring Boot reads: the files given, the profile files beside them
/// (asked for once the active profiles are known), the environment, the
/// command line's properties and the build file.
pub struct Sources<'a> {
    /// The files given, in order (a later one wins).
    pub files: Vec<Text>,
    /// The profile files beside the files given, for the active profiles.
    pub beside: Box<dyn FnMut(&[String]) -> ProfileFiles + 'a>,
    /// The environment variables and system properties.
    pub environment: BTreeMap<String, String>,
    /// Properties given on the command line (`--set`), which win.
    pub set: Vec<(String, String)>,
    /// The build file (`pom.xml`, `build.gradle`): its name and contents.
    pub build: Option<(String, Result<(Vec<u8>, Option<u64>), String>)>,
}

impl Sources<'_> {
    /// The files alone: no profile file beside them, no environment.
    pub fn of(files: Vec<Text>) -> Sources<'static> {
        Sources {
            files,
            beside: Box::new(|_| ProfileFiles::default()),
            environment: BTreeMap::new(),
            set: Vec::new(),
            build: None,
        }
    }
}

/// What the configuration cannot say: the application, the behaviour set
/// asked about, and how to answer.
#[derive(Debug, Clone)]
pub struct Options {
    /// The application beyond `spring.ai.tools.*`.
    pub app: Application,
    /// The behaviour set the gate speaks for.
    pub asked: BehaviorSet,
    /// The active profiles given (else the files').
    pub profiles: Option<Vec<String>>,
    /// Answer for the placeholders' defaults alone.
    pub defaults_run: bool,
    /// The findings accepted.
    pub accepted: Vec<Accepted>,
    /// A key Spring ignores fails the gate.
    pub strict_keys: bool,
}

impl Default for Options {
    /// The default application under upstream Spring AI.
    fn default() -> Self {
        Options {
            app: Application::default(),
            asked: behavior_sets()[0],
            profiles: None,
            defaults_run: false,
            accepted: Vec::new(),
            strict_keys: false,
        }
    }
}

/// The build file's Spring AI version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildVersion {
    /// The build file's name.
    pub file: String,
    /// The version it declares, as written.
    pub found: Option<String>,
    /// The version answered for.
    pub version: SpringAi,
}

/// The answer: what Spring Boot reads and binds, and how the setup fares
/// under every behaviour set.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The files read, in Spring's order.
    pub files: Vec<String>,
    /// The profiles in force.
    pub active: Vec<String>,
    /// Documents left out for their profile, files without a property,
    /// keys the version does not have.
    pub notes: Vec<String>,
    /// The build file's version, when one was given.
    pub build: Option<BuildVersion>,
    /// The sources bound, with the file each comes from.
    pub sources: Vec<(String, Vec<Entry>)>,
    /// The properties bound at the values answered for.
    pub bound: BoundProperties,
    /// Properties whose placeholders nothing resolves, checked as if unset.
    pub unresolved: Vec<String>,
    /// The values the answer is for, when those properties can change it.
    pub open: Option<OpenAnswer>,
    /// The setup answered for.
    pub setup: Setup,
    /// Every behaviour set's report.
    pub reports: Vec<SetReport>,
    asked: usize,
    /// What makes the setup safe today.
    pub remedy: Remedy,
    /// The gate for the set asked for.
    pub gate: Gate,
    /// `strict_keys` and a key Spring ignores.
    pub keys_fail: bool,
}

impl Answer {
    /// The report of the set asked for.
    pub fn asked(&self) -> &SetReport {
        &self.reports[self.asked]
    }

    /// Whether the gate passes: the set asked for is safe once the
    /// accepted findings are, and no key fails it.
    pub fn passes(&self) -> bool {
        self.gate.passes() && !self.keys_fail
    }
}

/// Why there is no verdict.
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
                d.iter().any(|e| {
                    e.line == line && key.is_none_or(|k| relaxed(&e.key).starts_with(&relaxed(k)))
                })
            })
            .map_or(name, |(o, _)| o.as_str())
    };
    let (at, line, property) = match &failure {
        BindFailure::Bind { line, property, .. } => {
            (origin(*line, Some(property)), *line, Some(property.clone()))
        }
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
    let under = |prefix: &str, e: &&Entry| relaxed(&e.key).starts_with(&relaxed(prefix));
    let entries = || sources.iter().rev().flat_map(|(_, d)| d.iter().rev());
    let found = |prefix: &str| entries().find(|e| under(prefix, e) && bad_number(e));
    if message.contains("maxTotalToolCalls") {
        found("spring.ai.tools.limits.max-total-tool-calls")
    } else if message.contains("maxCallsPerTool") {
        found("spring.ai.tools.limits.max-calls-per-tool")
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

/// `check`'s answer for a team's configuration: the files read as Spring
/// Boot reads them (profiles, the profile files beside them, the
/// environment, `--set`), the keys the build's Spring AI version does not
/// have dropped, bound leniently (a placeholder nothing resolves leaves its
/// property open, answered at every value that can change the verdict),
/// and every behaviour set's verdicts, the gate for the set asked for and
/// the smallest remedy; or why there is no verdict.
///
/// ```
/// use toolcall_model::config::{Format, Options, Sources, Text, answer};
/// let yml = "spring:\n  ai:\n    tools:\n      limits:\n        max-calls-per-tool: 3\n        on-limit-exceeded: RETURN_ERROR_RESPONSE\n";
/// let sources = Sources::of(vec![Text::new("application.yml", Format::Yaml, yml)]);
/// let a = answer(sources, &Options::default()).unwrap();
/// assert_eq!(a.files, ["application.yml"]);
/// assert_eq!(a.bound.read.len(), 2);
/// // Upstream answers a breached limit with plain text, which Gemini's
/// // conversion rejects: not safe, and THROW is the change that is enough.
/// assert_eq!(a.asked().set.name, "upstream");
/// assert!(!a.passes());
/// let change = a.remedy.change.as_ref().unwrap();
/// assert!(change.iter().any(|c| c.key().contains("on-limit-exceeded")));
/// ```
pub fn answer(sources: Sources<'_>, options: &Options) -> Result<Answer, Stop> {
    let Sources {
        files,
        mut beside,
        environment: env,
        set,
        build,
    } = sources;
    let lookup = |n: &str| env.get(n).cloned();
    let read = read_sources(
        files,
        &mut *beside,
        options.profiles.as_deref(),
        &lookup,
        &set,
    )?;
    let (mut applied, mut notes) = apply_profiles(read.sources, &read.active)?;
    notes.splice(0..0, read.notes);
    // The version answered for: the build file's, when it is one this model
    // describes; else 2.0.1.
    let build = match build {
        Some((name, r)) => Some(build_version(name, &r)?),
        None => None,
    };
    let version = build.as_ref().map(|b| b.version).unwrap_or_default();
    if !version.has_limits() {
        drop_keys_since_2_0_1(&mut applied, version, &mut notes);
    }
    add_environment(&mut applied, &lookup, &set);
    let bound =
        bind_open(applied).map_err(|r| refusal(&r.sources, r.failure, r.unresolved, true))?;
    let docs: Vec<Vec<Entry>> = bound.sources.iter().map(|(_, d)| d.clone()).collect();
    let found = Lenient {
        bound: bound.bound,
        sources: Vec::new(),
        unresolved: Vec::new(),
        open: bound.open,
    };
    let worst = worst_open(
        &docs,
        found,
        &options.app,
        version,
        options.asked,
        options.defaults_run,
    );
    let Some(asked) = worst.reports.iter().position(|r| r.set == options.asked) else {
        return Err(Stop::NoReport);
    };
    let remedy = Remedy::find(&worst.setup, &worst.reports);
    let gate = Gate::judge(&worst.reports[asked], &options.accepted);
    let keys_fail = options.strict_keys && !worst.bound.unknown.is_empty();
    Ok(Answer {
        files: read.files,
        active: read.active,
        notes,
        build,
        sources: bound.sources,
        bound: worst.bound,
        unresolved: bound.unresolved,
        open: worst.open,
        setup: worst.setup,
        reports: worst.reports,
        asked,
        remedy,
        gate,
        keys_fail,
    })
}

/// The environment's values of the placeholders the sources name, then
/// the command line's properties, as the last (winning) sources.
fn add_environment(
    applied: &mut Documents,
    lookup: &dyn Fn(&str) -> Option<String>,
    set: &[(String, String)],
) {
    let env = environment(
        &applied.iter().map(|(_, d)| d.clone()).collect::<Vec<_>>(),
        lookup,
    );
    if !env.is_empty() {
        applied.push(("the environment".to_owned(), source(&env)));
    }
    if !set.is_empty() {
        applied.push(("--set".to_owned(), source(set)));
    }
}
