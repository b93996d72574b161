//! `check`'s answer as one value ([`answer`]): the configuration texts,
//! the environment and the options in; the profiles applied, the lenient
//! bind, the open values, the version, every behaviour set's verdicts, the
//! gate and the remedy out, or why there is no verdict ([`Stop`]). The
//! command reads the files and renders; nothing here reads a file.

use std::collections::BTreeMap;

use super::sources::{
    BuildVersion, Contents, Documents, ProfileFiles, Text, apply_profiles, build_version,
    drop_keys_since_2_0_1, read_sources,
};
use super::stop::{Stop, refusal};
use super::{
    Accepted, Application, Gate, Lenient, OpenAnswer, Remedy, SetReport, Setup, bind_open,
    worst_open,
};
use crate::config::binding::{BoundProperties, Entry};
use crate::config::profiles::{environment, source};
use toolcall_model::model::{BehaviorSet, behavior_sets};

/// What Spring Boot reads: the files given, the profile files beside them
/// (asked for once the active profiles are known), the environment, the
/// command line's properties and the build file.
pub struct Sources<'a> {
    /// The files given, in order (a later one wins).
    pub files: Vec<Text>,
    /// The profile files beside the files given, for the active profiles.
    #[allow(clippy::type_complexity)]
    pub beside: Box<dyn FnMut(&[String]) -> ProfileFiles + 'a>,
    /// The environment variables and system properties.
    pub environment: BTreeMap<String, String>,
    /// Properties given on the command line (`--set`), which win.
    pub set: Vec<(String, String)>,
    /// The build file (`pom.xml`, `build.gradle`): its name and contents.
    pub build: Option<(String, Contents)>,
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
    /// Answer for what the fix library installs (its switches in the
    /// sources, its rule for an unset one) instead of `asked`, when the
    /// library is there (`library`, or a `toolcall.fixes.*` key).
    pub asked_from_files: bool,
    /// The fix library's starter is on the application's classpath (a
    /// build file that declares it, or the command line says so).
    pub library: bool,
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
            asked_from_files: false,
            library: false,
        }
    }
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
    /// The first file's format: the advice is written in its syntax.
    pub format: super::Format,
    /// What the fix library installs, when it is there.
    pub installed: Option<super::Installed>,
    /// The placeholders that leave `spring.profiles.active` open: the
    /// environment chooses the profiles, and this answer is for the value
    /// they resolve to here (the command answers for each profile file
    /// present, at the worst).
    pub open_profiles: Vec<String>,
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

/// `check`'s answer for a team's configuration: the files read as Spring
/// Boot reads them (profiles, the profile files beside them, the
/// environment, `--set`), the keys the build's Spring AI version does not
/// have dropped, bound leniently (a placeholder nothing resolves leaves its
/// property open, answered at every value that can change the verdict),
/// and every behaviour set's verdicts, the gate for the set asked for and
/// the smallest remedy; or why there is no verdict.
///
/// ```
/// use toolcall_check::config::{Format, Options, Sources, Text, answer};
/// let yml = "spring:\n  ai:\n    tools:\n      limits:\n        max-calls-per-tool-default: 3\n        on-limit-exceeded: RETURN_ERROR_RESPONSE\n";
/// let sources = Sources::of(vec![Text::new("application.yml", Format::Yaml, yml)]);
/// let a = answer(sources, &Options::default()).unwrap();
/// assert_eq!(a.files, ["application.yml"]);
/// assert_eq!(a.bound.read.len(), 2);
/// // Upstream answers a breached limit with plain text, which Gemini's
/// // conversion rejects: not safe, and the fix library's switches are
/// // the remedy.
/// assert_eq!(a.asked().set.name, "upstream");
/// assert!(a.asked().breaks().contains(&"breach-1"));
/// assert!(!a.passes());
/// let switches = a.remedy.properties();
/// assert!(switches.contains(&"toolcall.fixes.strict-json-or-wrap=true".to_owned()));
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
    let format = files
        .first()
        .map_or(super::Format::Properties, |t| t.format);
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
    // A release answered as the version that stands for its line (1.1.6
    // as 1.1.2) is named as the build declares it: the first line says
    // what it is answered as.
    let named = build
        .as_ref()
        .filter(|b| matches!(b.matched, Some(super::Match::Line | super::Match::Unread)))
        .and_then(|b| b.found.clone())
        .unwrap_or_else(|| version.name().to_owned());
    if let Some((b, wrong)) = build.as_ref().and_then(|b| Some((b, b.wrong_starter?))) {
        notes.push(super::wrong_starter_note(&b.file, wrong, version, &named));
    }
    let found = build.as_ref().and_then(|b| b.found.as_deref());
    notes.extend(super::not_on_version(&options.app, version, &named, found));
    if !version.has_limits() {
        drop_keys_since_2_0_1(&mut applied, &named, &mut notes);
    }
    add_environment(&mut applied, &lookup, &set);
    let bound = bind_open(applied).map_err(|r| not_bound(*r))?;
    let docs: Vec<Vec<Entry>> = bound.sources.iter().map(|(_, d)| d.clone()).collect();
    let library = options.library || build.as_ref().is_some_and(|b| b.starter);
    let installed = super::library::installed(
        &bound.sources,
        library,
        &Setup::of(&bound.bound, &options.app, version),
    );
    let (asked_set, app) = asked_for(installed.as_ref(), options);
    let found = Lenient {
        bound: bound.bound,
        sources: Vec::new(),
        unresolved: Vec::new(),
        open: bound.open,
    };
    let worst = worst_open(&docs, found, &app, version, asked_set, options.defaults_run);
    let Some(asked) = worst.reports.iter().position(|r| r.set == asked_set) else {
        return Err(Stop::NoReport);
    };
    let base = installed
        .as_ref()
        .map_or(toolcall_model::model::Fixes::upstream(), |i| i.fixes);
    let remedy = Remedy::find(&worst.setup, &worst.reports, base, &options.accepted);
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
        format,
        installed,
        open_profiles: if options.defaults_run {
            Vec::new()
        } else {
            read.open_profiles
        },
    })
}

/// Why the sources did not bind: Spring's refusal, or past this tool's
/// limit of open placeholders, a text not checked.
fn not_bound(r: super::open::Refused) -> Stop {
    if r.past_limit {
        return Stop::NotChecked {
            file: r.sources.first().map_or("", |(o, _)| o.as_str()).to_owned(),
            why: format!(
                "more than {} properties name a placeholder nothing here sets: toolcall-model leaves at most {} open (Spring would refuse the file unless the environment sets them); give their values with --set NAME=VALUE",
                super::open::MAX_UNRESOLVED,
                super::open::MAX_UNRESOLVED
            ),
        };
    }
    refusal(&r.sources, r.failure, r.unresolved, true)
}

/// The set answered for and the application: what the fix library
/// installs (its JSON-error processor included) when the set comes from
/// the files and the library is there, else the options'.
fn asked_for(
    installed: Option<&super::Installed>,
    options: &Options,
) -> (BehaviorSet, Application) {
    match installed {
        Some(i) if options.asked_from_files => {
            let mut app = options.app.clone();
            if i.json_error_processor {
                app.processor = toolcall_model::model::ProcessorKind::JsonError;
            }
            (super::set_of(i.fixes, false), app)
        }
        _ => (options.asked, options.app.clone()),
    }
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
