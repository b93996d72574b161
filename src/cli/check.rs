//! `toolcall-model check`: reads an `application.properties` or
//! `application.yml` (or standard input), binds its `spring.ai.tools.*`
//! keys as Spring Boot would, and prints per behaviour set whether the
//! setup survives each scenario, the smallest change that makes it safe and
//! the fix library's switches that do. The logic is the library's
//! (`config::binding`, `config::check`); this file reads the inputs,
//! prints, and chooses the exit status: 0 safe under the set asked for
//! (`--fixes`, default upstream), 1 not safe, 2 no verdict (a configuration
//! Spring would refuse, an input that cannot be read, a usage error).

use std::collections::BTreeSet;
use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::{Value, json};
use toolcall_model::chat::{Memory, Provider};
use toolcall_model::config::{
    Accepted, Application, BindFailure, BoundProperties, CheckScenario, Entry, Gate, Lenient,
    MAX_BUILD_INTERPOLATION, MAX_CONFIG_BYTES, MAX_CONFIG_TOTAL_BYTES, MODELLED_SPRING_AI, Mark,
    OpenAnswer, OpenProperty, ProfileMatcher, ProfileRefusal, SetReport, Setup, ToolOutput,
    active_profiles, bind_open, describe_setup, environment, invalid_in_profile_file,
    parse_properties, relaxed, smallest_fixes, source as profile_source, spring_ai_version,
    too_large, worst_open, written_names,
};
use toolcall_model::model::{
    BehaviorSet, Fixes, Max, OnExceeded, ProcessorKind, SpringAi, behavior_sets, cut,
};

/// What properties cannot say, from the command line: `check`'s flags.
#[derive(Debug, clap::Args)]
pub struct Flags {
    /// `properties` or `yaml` (default: by the file's extension).
    #[arg(long)]
    pub format: Option<String>,
    /// The exception processor: `default` (Spring's, auto-configured) or
    /// `json-error` (a bean of yours that writes `{"error":MESSAGE}`).
    #[arg(long, default_value = "default")]
    pub processor: String,
    /// Exception classes your processor rethrows, comma-separated, or `none`.
    #[arg(long, default_value = "none")]
    pub rethrow: String,
    /// Where `MessageChatMemoryAdvisor` stands: `none`, `outside` (its
    /// default order) or `inside` (ordered after `ToolCallingAdvisor`).
    #[arg(long, default_value = "none")]
    pub memory: String,
    /// `MessageWindowChatMemory`'s `maxMessages`.
    #[arg(long, default_value_t = 20)]
    pub memory_window: u32,
    /// The tool advisor's conversation history: `auto` (what `ChatClient`
    /// registers: off with the memory inside), `on` or `off`.
    #[arg(long, default_value = "auto")]
    pub history: String,
    /// The chat model: `gemini`, or `none` (another provider: no
    /// Gemini conversion; requests and the next turn are held to the
    /// pairing every chat API requires).
    #[arg(long, default_value = "gemini")]
    pub provider: String,
    /// The behaviour set the exit status speaks for: fix names
    /// (comma-separated), `all`, `upstream`, `gemini-tool-text`.
    #[arg(long, default_value = "upstream")]
    pub fixes: String,
    /// What your tools return: `json`, `text` or `mixed`, and
    /// `NAME=json|text|mixed` per tool (comma-separated); `json`
    /// everywhere leaves out the plain-output scenarios.
    #[arg(long, default_value = "mixed")]
    pub tools: String,
    /// Also write the verdict as a SARIF 2.1.0 log to this file.
    #[arg(long)]
    pub sarif: Option<PathBuf>,
    /// The active profiles, comma-separated (default: the file's
    /// `spring.profiles.active`, else `default`): documents under
    /// `spring.config.activate.on-profile` apply only for them, and the
    /// `NAME-PROFILE.properties|yml` files beside the file are read
    /// after it.
    #[arg(long)]
    pub profile: Option<String>,
    /// A property or placeholder value, as on Spring's command line
    /// (`--set TOOL_POLICY=THROW`); repeatable; wins over the files and
    /// the environment.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// A `pom.xml` or `build.gradle(.kts)`: the Spring AI version it
    /// declares is read, with a warning when it is not 2.0.1.
    #[arg(long)]
    pub build: Option<PathBuf>,
    /// The application streams (`ChatClient.stream()`): every scenario
    /// runs as a streamed turn, its replies in chunks, and is judged on
    /// what the streaming client and the memory receive.
    #[arg(long)]
    pub streaming: bool,
    /// Print one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Also print every behaviour set's row, the marks, the scenarios and
    /// each set's smallest change (the full matrix).
    #[arg(long)]
    pub all_sets: bool,
    /// A file of accepted findings, one a line: `SCENARIO MARK [SET]
    /// [# reason]` (docs/CI.md); repeatable. An accepted finding is
    /// reported as accepted and passes the gate while the scenario breaks
    /// with that mark.
    #[arg(long, value_name = "FILE")]
    pub accept: Vec<PathBuf>,
    /// One accepted finding, as a line of an `--accept` file; repeatable.
    #[arg(long, value_name = "SCENARIO MARK [SET]")]
    pub accept_finding: Vec<String>,
    /// A `spring.ai.tools.*` key Spring ignores (misspelt or unknown)
    /// fails the gate (exit 1).
    #[arg(long)]
    pub strict_keys: bool,
    /// The defaults of `${NAME:default}` placeholders are what runs:
    /// answer for them alone, not for every value the environment may
    /// set.
    #[arg(long)]
    pub defaults_run: bool,
}

/// Exit status: the setup is not safe under the set asked for.
const UNSAFE: u8 = 1;
/// Exit status: no verdict (Spring refuses the configuration, the input
/// cannot be read, a usage error).
const NO_VERDICT: u8 = 2;

/// The fix library's Maven coordinates (its starter, which brings the
/// auto-configuration module `toolcall-fixes`) and property prefix: the
/// switches "Fix it today" names.
pub const FIX_LIBRARY: &str = "io.github.toolcallmodel:toolcall-fixes-spring-boot-starter:0.1.0";
/// See [`FIX_LIBRARY`].
pub const FIX_PREFIX: &str = "toolcall.fixes";

/// Prints `error: MSG` (its control characters but newlines escaped: the
/// names and values in it are escaped where they stand) and gives exit 2.
fn no_verdict(msg: &str) -> ExitCode {
    errln!("error: {}", super::shown_lines(msg));
    ExitCode::from(NO_VERDICT)
}

/// The behaviour set `--fixes` asks for: a list of fix names, `all`,
/// `upstream` (or nothing), and `gemini-tool-text` for the seed's advisor.
/// A combination that is not one of the report's sets gets a name of its
/// own, leaked once for the run.
pub(crate) fn asked_set(list: &str) -> Result<BehaviorSet, String> {
    let (fixes, advisor) = BehaviorSet::parse_names(list).map_err(|e| format!("--fixes: {e}"))?;
    if let Some(s) = behavior_sets()
        .into_iter()
        .find(|s| s.fixes == fixes && s.gemini_tool_text == advisor)
    {
        return Ok(s);
    }
    let name = match (fixes.is_upstream(), advisor) {
        (_, false) => fixes.to_string(),
        (true, true) => "gemini-tool-text".to_owned(),
        (false, true) => format!("{fixes}+gemini-tool-text"),
    };
    Ok(BehaviorSet {
        name: Box::leak(name.into_boxed_str()),
        fixes,
        gemini_tool_text: advisor,
    })
}

/// Reads the input: a file of at most [`MAX_CONFIG_BYTES`] (one byte more is
/// read to tell), or standard input for `-`.
fn read_input(file: &Path) -> std::io::Result<(Vec<u8>, Option<u64>)> {
    if file == Path::new("-") {
        return Ok((
            super::read_at_most(std::io::stdin().lock(), MAX_CONFIG_BYTES)?,
            None,
        ));
    }
    let b = super::read_at_most(std::fs::File::open(file)?, MAX_CONFIG_BYTES)?;
    // A device or a pipe has no size (/dev/zero says 0): at least what was read.
    let read = b.len() as u64;
    Ok((b, std::fs::metadata(file).ok().map(|m| m.len().max(read))))
}

/// A name or value from the input as one line of text output: its
/// control characters and newlines escaped (`\n`, `\u{1b}`).
fn text(s: &str) -> std::borrow::Cow<'_, str> {
    super::shown(s)
}

/// The file's name as printed: `<stdin>` for `-`.
fn shown(file: &Path) -> String {
    if file == Path::new("-") {
        "<stdin>".to_owned()
    } else {
        file.display().to_string()
    }
}

/// Properties or YAML: `--format`, else the file's extension.
fn kind_of(file: &Path, format: Option<&str>) -> Result<&'static str, ExitCode> {
    match format {
        Some("properties") => Ok("properties"),
        Some("yaml" | "yml") => Ok("yaml"),
        Some(other) => Err(no_verdict(&format!(
            "--format {other}: use properties or yaml"
        ))),
        None if file == Path::new("-") => Err(no_verdict(
            "standard input (-): add --format properties or --format yaml",
        )),
        None if file.is_dir() => Err(no_verdict(&format!(
            "{}: a directory, not a file: give its application.properties or application.yml",
            text(&file.display().to_string())
        ))),
        None => match file.extension().and_then(|e| e.to_str()) {
            Some("yml" | "yaml") => Ok("yaml"),
            Some("properties") => Ok("properties"),
            _ => Err(no_verdict(&format!(
                "{}: cannot tell properties from YAML by its name; add --format properties or --format yaml",
                text(&file.display().to_string())
            ))),
        },
    }
}

pub fn command(files: &[PathBuf], f: &Flags) -> ExitCode {
    checked(files, f).unwrap_or_else(|code| code)
}

/// `command` as steps: read the flags, resolve the configuration, evaluate
/// the scenarios under every behaviour set, find the smallest remedy, and
/// render; each step may end with a no-verdict exit.
fn checked(files: &[PathBuf], f: &Flags) -> Result<ExitCode, ExitCode> {
    let kinds = file_kinds(files, f.format.as_deref())?;
    let options = Options::read(f)?;
    let Some(first) = files.first() else {
        return Err(no_verdict("no file given"));
    };
    if let Some(path) = &f.sarif {
        let mut inputs: Vec<&Path> = files.iter().map(PathBuf::as_path).collect();
        inputs.extend(f.build.as_deref());
        inputs.extend(f.accept.iter().map(PathBuf::as_path));
        super::sarif::writable(path, &inputs).map_err(|e| no_verdict(&e))?;
    }
    let accepted = accepted_findings(f)?;
    let name = shown(first);
    let mut resolved = resolve(files, &kinds, f)?;
    let docs: Vec<Vec<Entry>> = resolved.docs.iter().map(|(_, d)| d.clone()).collect();
    let found = Lenient {
        bound: resolved.bound.clone(),
        sources: Vec::new(),
        unresolved: Vec::new(),
        open: std::mem::take(&mut resolved.open),
    };
    let worst = worst_open(
        &docs,
        found,
        &options.app,
        resolved.version,
        options.asked,
        f.defaults_run,
    );
    let (setup, reports) = (worst.setup, worst.reports);
    resolved.bound = worst.bound;
    resolved.context.open = worst.open;
    let Some(mine) = reports.iter().find(|r| r.set == options.asked) else {
        return Err(no_verdict("the set asked for has no report"));
    };
    let remedy = Remedy::find(&setup, &reports);
    let gate = Gate::judge(mine, &accepted);
    render(&name, f, &resolved, &setup, &reports, mine, &remedy, &gate)
}

/// The accepted findings of `--accept` files and `--accept-finding`.
fn accepted_findings(f: &Flags) -> Result<Vec<Accepted>, ExitCode> {
    let mut out = Vec::new();
    for path in &f.accept {
        let name = super::shown(&path.display().to_string()).into_owned();
        let (bytes, _) = read_input(path)
            .map_err(|e| no_verdict(&format!("--accept {name}: cannot read: {e}")))?;
        if bytes.len() > MAX_CONFIG_BYTES {
            return Err(no_verdict(&format!(
                "--accept {name}: larger than {MAX_CONFIG_BYTES} bytes"
            )));
        }
        let text = std::str::from_utf8(&bytes).map_err(|e| {
            no_verdict(&format!(
                "--accept {name}: not valid UTF-8 (byte {})",
                e.valid_up_to()
            ))
        })?;
        out.extend(
            Accepted::read(text, &name)
                .map_err(|e| no_verdict(&format!("--accept {}", super::shown(&e))))?,
        );
    }
    for spec in &f.accept_finding {
        out.push(
            Accepted::parse(spec, "--accept-finding")
                .map_err(|e| no_verdict(&format!("--accept-finding {}", super::shown(&e))))?,
        );
    }
    Ok(out)
}

/// Properties or YAML for each file; standard input at most once.
fn file_kinds(files: &[PathBuf], format: Option<&str>) -> Result<Vec<&'static str>, ExitCode> {
    let kinds = files
        .iter()
        .map(|file| kind_of(file, format))
        .collect::<Result<Vec<_>, _>>()?;
    if files.iter().filter(|p| *p == Path::new("-")).count() > 1 {
        return Err(no_verdict("standard input (-) can be given once"));
    }
    Ok(kinds)
}

/// What the flags say: the application beyond the properties, and the
/// behaviour set asked about.
struct Options {
    app: Application,
    asked: BehaviorSet,
}

impl Options {
    /// The flags read and checked, in the order of their errors.
    fn read(f: &Flags) -> Result<Self, ExitCode> {
        let processor = match f.processor.as_str() {
            "default" => ProcessorKind::Default,
            "json-error" => ProcessorKind::JsonError,
            p => {
                return Err(no_verdict(&format!(
                    "--processor {p}: use default or json-error"
                )));
            }
        };
        let memory = match f.memory.as_str() {
            "none" => Memory::None,
            "inside" => Memory::Inside,
            "outside" => Memory::Outside,
            m => {
                return Err(no_verdict(&format!(
                    "--memory {m}: use none, outside or inside"
                )));
            }
        };
        let history = match f.history.as_str() {
            "auto" => None,
            "on" => Some(true),
            "off" => Some(false),
            h => return Err(no_verdict(&format!("--history {h}: use auto, on or off"))),
        };
        let provider = match f.provider.as_str() {
            "gemini" => Provider::Gemini,
            "none" => Provider::None,
            p => return Err(no_verdict(&format!("--provider {p}: use gemini or none"))),
        };
        let Some(window) = NonZeroU32::new(f.memory_window) else {
            return Err(no_verdict(
                "--memory-window 0: java.lang.IllegalArgumentException: maxMessages must be greater than 0",
            ));
        };
        let asked = asked_set(&f.fixes).map_err(|e| no_verdict(&e))?;
        let tool_output =
            ToolOutput::parse(&f.tools).map_err(|e| no_verdict(&format!("--tools {e}")))?;
        let rethrow = rethrow_classes(&f.rethrow)?;
        Ok(Options {
            app: Application {
                processor,
                rethrow,
                memory,
                memory_max_messages: window,
                conversation_history: history,
                provider,
                tool_output,
                stream: f.streaming,
            },
            asked,
        })
    }
}

/// `--rethrow`: `none`, or Java class names separated by commas.
fn rethrow_classes(list: &str) -> Result<Vec<String>, ExitCode> {
    let rethrow: Vec<String> = if list == "none" {
        vec![]
    } else {
        list.split(',')
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
        return Err(no_verdict(&format!(
            "--rethrow: '{bad}' is not a Java class name"
        )));
    }
    Ok(rethrow)
}

/// The configuration as Spring Boot resolves it: the properties bound, the
/// sources they came from, the Spring AI version answered for, and what
/// the answer says about them.
struct Resolved {
    bound: BoundProperties,
    docs: Vec<(String, Vec<Entry>)>,
    version: SpringAi,
    /// The properties an unresolved placeholder leaves open.
    open: Vec<OpenProperty>,
    context: Context,
}

/// Reads the files and their profile files, applies the profiles, drops
/// what the version does not have, adds the environment and `--set`, and
/// binds.
fn resolve(files: &[PathBuf], kinds: &[&'static str], f: &Flags) -> Result<Resolved, ExitCode> {
    let given: Option<Vec<String>> = f.profile.as_ref().map(|p| {
        p.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect()
    });
    let sets_given = set_flags(&f.set)?;
    let read = read_sources(files, kinds, given.as_deref(), &sets_given, f.json)?;
    let (active, read_files) = (read.active, read.files);
    let (mut applied_sources, mut notes) = apply_profiles(read.sources, &active, f.json)?;
    notes.splice(0..0, read.notes);
    // The version answered for: the build file's, when it is one this model
    // describes; else 2.0.1.
    let (version_line, version) = match &f.build {
        Some(b) => {
            let (line, v) = build_version(b)?;
            (Some(line), v)
        }
        None => (None, SpringAi::default()),
    };
    if !version.has_limits() {
        drop_keys_since_2_0_1(&mut applied_sources, version, &mut notes);
    }
    let env = environment(
        &applied_sources
            .iter()
            .map(|(_, d)| d.clone())
            .collect::<Vec<_>>(),
        |n| std::env::var(n).ok(),
    );
    if !env.is_empty() {
        applied_sources.push(("the environment".to_owned(), profile_source(&env)));
    }
    if !sets_given.is_empty() {
        applied_sources.push(("--set".to_owned(), profile_source(&sets_given)));
    }
    let (bound, docs, unresolved, open) =
        bind_leniently(applied_sources, f.json, f.sarif.as_deref())?;
    Ok(Resolved {
        bound,
        docs,
        version,
        open,
        context: Context {
            files: read_files,
            active,
            notes,
            unresolved,
            open: None,
            version: version_line,
        },
    })
}

/// `--set key=value`, each with a key.
fn set_flags(set: &[String]) -> Result<Vec<(String, String)>, ExitCode> {
    set.iter()
        .map(|kv| match kv.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_owned(), v.to_owned())),
            _ => Err(no_verdict(&format!("--set {kv}: use --set key=value"))),
        })
        .collect()
}

/// What [`read_sources`] read.
struct Read {
    /// The documents, each with the file it comes from.
    sources: Vec<(String, Vec<Entry>)>,
    /// The active profiles.
    active: Vec<String>,
    /// Every file read, in Spring's order, each once: an empty one too,
    /// which has no document.
    files: Vec<String>,
    /// A note for each file without a property: Spring Boot binds nothing
    /// from it.
    notes: Vec<String>,
}

/// The documents of the files, with the file each comes from, and the
/// active profiles.
// Spring's order: the files as given (a later one wins), then the profile
// files beside each, in the order the profiles are active, each
// `.properties` over its `.yml`: a profile's value wins over every file
// without one.
fn read_sources(
    files: &[PathBuf],
    kinds: &[&'static str],
    given: Option<&[String]>,
    sets_given: &[(String, String)],
    json: bool,
) -> Result<Read, ExitCode> {
    let mut sources: Vec<(String, Vec<Entry>)> = Vec::new();
    let (mut read, mut notes) = (Vec::new(), Vec::new());
    let mut add = |shown: String, docs: Vec<Vec<Entry>>, sources: &mut Vec<_>| {
        if docs.iter().all(Vec::is_empty) {
            notes.push(format!(
                "note: {shown}: no property in it (an empty file): Spring Boot binds nothing from it"
            ));
        }
        sources.extend(docs.into_iter().map(|d| (shown.clone(), d)));
        read.push(shown);
    };
    let mut budget = Budget::default();
    for (file, kind) in files.iter().zip(kinds) {
        let shown = shown(file);
        let d = load(file, &shown, kind, json, &mut budget)?;
        add(shown, d, &mut sources);
    }
    // The profile values' placeholders resolve against the files, then the
    // environment and the command line, as Spring's sources stand.
    let mut main: Vec<Vec<Entry>> = sources.iter().map(|(_, d)| d.clone()).collect();
    let env = environment(&main, |n| std::env::var(n).ok());
    main.push(profile_source(&env));
    main.push(profile_source(sets_given));
    let active = active_profiles(&main, given).map_err(|r| match r {
        ProfileRefusal::Bind(b) => refused(&sources, &b, &[], json, None),
        ProfileRefusal::Load(m) => {
            let name = sources.first().map_or("", |(o, _)| o.as_str());
            cannot_load(name, &m, json)
        }
    })?;
    let (beside, same) = profile_files(files, &active);
    for (path, k) in beside {
        let shown = path.display().to_string();
        let d = load(&path, &shown, k, json, &mut budget)?;
        if let Some((property, e)) = invalid_in_profile_file(&d) {
            let at = std::path::absolute(&path).unwrap_or_else(|_| path.clone());
            let message = format!(
                "org.springframework.boot.context.config.InvalidConfigDataPropertyException: Property '{property}' imported from location 'file [{}]' is invalid in a profile specific resource (line {})",
                at.display(),
                e.line
            );
            return Err(cannot_load(&shown, &message, json));
        }
        add(shown, d, &mut sources);
    }
    if same > 0 {
        notes.push(format!(
            "note: {same} profile file(s) are the same file as one read after them (a link, or a file given): each file is read once, where it stands last"
        ));
    }
    Ok(Read {
        sources,
        active,
        files: read,
        notes,
    })
}

/// The documents the active profiles apply, and a note for each left out.
#[allow(clippy::type_complexity)]
fn apply_profiles(
    sources: Vec<(String, Vec<Entry>)>,
    active: &[String],
    json: bool,
) -> Result<(Vec<(String, Vec<Entry>)>, Vec<String>), ExitCode> {
    let mut notes = Vec::new();
    let mut applied_sources = Vec::new();
    let matcher = ProfileMatcher::new(active);
    // Named once, at most a few: a file can list thousands of profiles.
    let shown_active = {
        let mut s = active
            .iter()
            .take(8)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        if active.len() > 8 {
            s.push_str(&format!(" and {} more", active.len() - 8));
        }
        s
    };
    for (origin, doc) in sources {
        match matcher.leaves_out(&doc) {
            Ok(Some((line, expr))) => notes.push(format!(
                "note: {origin}:{line}: a document for profile '{}' is not applied (active: {shown_active})",
                clip(&expr)
            )),
            Ok(None) => applied_sources.push((origin.clone(), doc)),
            Err(e) if e.not_modelled => return Err(not_checked(&origin, &e.to_string(), json)),
            Err(e) => return Err(cannot_load(&origin, &e.to_string(), json)),
        }
    }
    Ok((applied_sources, notes))
}

/// Spring AI 2.0.0's ToolCallingProperties has neither the limits nor the
/// resolution fallback: Spring Boot ignores those keys (a note for each).
fn drop_keys_since_2_0_1(
    sources: &mut [(String, Vec<Entry>)],
    version: SpringAi,
    notes: &mut Vec<String>,
) {
    for (origin, doc) in sources {
        doc.retain(|e| {
            let gone = since_2_0_1(&e.key);
            if gone {
                notes.push(format!(
                    "note: {origin}:{}: Spring AI {version} has no '{}' (no tool call limits, no resolution fallback): Spring Boot ignores it",
                    e.line, e.key
                ));
            }
            !gone
        });
    }
}

/// Writes the SARIF log (if asked) and prints the answer; the exit says
/// whether the set asked for is safe once the accepted findings are (and,
/// with `--strict-keys`, whether no key is ignored).
#[allow(clippy::too_many_arguments)]
fn render(
    name: &str,
    f: &Flags,
    resolved: &Resolved,
    setup: &Setup,
    reports: &[SetReport],
    mine: &SetReport,
    remedy: &Remedy,
    gate: &Gate,
) -> Result<ExitCode, ExitCode> {
    let keys_fail = f.strict_keys && !resolved.bound.unknown.is_empty();
    let code = if gate.passes() && !keys_fail {
        0
    } else {
        UNSAFE
    };
    if let Some(path) = &f.sarif {
        let log = super::sarif::log(&super::sarif::Findings {
            sources: &resolved.docs,
            setup,
            report: mine,
            remedy,
            gate,
            unknown: &resolved.bound.unknown,
            strict_keys: f.strict_keys,
        });
        super::sarif::write(path, &log).map_err(|e| no_verdict(&e))?;
    }
    let context = &resolved.context;
    if f.json {
        let mut v = to_json(name, &resolved.bound, setup, reports);
        let accepted: Vec<Value> = gate
            .accepted
            .iter()
            .map(|(s, a)| json!({"scenario": s.column(), "mark": a.mark, "set": a.set, "reason": a.reason, "origin": a.origin}))
            .collect();
        v["asked"] = json!({
            "set": mine.set.name,
            "safe": mine.safe(),
            "breaks": mine.breaks(),
            "accepted": accepted,
            "not_accepted": gate.open.iter().map(|s| s.column()).collect::<Vec<_>>(),
            "stale_accepted": gate.stale.iter().map(|a| json!({"scenario": a.scenario.column(), "mark": a.mark, "set": a.set, "origin": a.origin})).collect::<Vec<_>>(),
            "strict_keys": f.strict_keys,
            "exit": code,
        });
        v["legend"] = legend_json(reports);
        v["fix_it_today"] = remedy.to_json();
        v["files"] = json!(context.files);
        v["profiles"] = json!(context.active);
        v["notes"] = json!(context.notes);
        v["unresolved"] = json!(context.unresolved);
        v["open"] = context
            .open
            .as_ref()
            .map_or(Value::Null, OpenAnswer::to_value);
        v["spring_ai_version"] = json!(context.version);
        v["spring_ai"] = json!(setup.version.name());
        print_json(&v);
    } else {
        let answer = Answer {
            context,
            resolved,
            setup,
            reports,
            mine,
            remedy,
            gate,
            keys_fail,
            code,
        };
        out!(
            "{}",
            // Each line was cut where it matters; this bounds the rest.
            super::shown_lines(&clip_at(&answer.to_text(f.all_sets), 600, 400))
        );
    }
    Ok(ExitCode::from(code))
}

/// What the answer says about its inputs besides the binding.
struct Context {
    /// The files read, in Spring's order.
    files: Vec<String>,
    /// The profiles in force.
    active: Vec<String>,
    /// Documents left out for their profile.
    notes: Vec<String>,
    /// Properties whose placeholders nothing resolves, checked as if unset.
    unresolved: Vec<String>,
    /// The values the answer is for, when those properties can change it.
    open: Option<OpenAnswer>,
    /// The build file's Spring AI version line (a warning when not 2.0.1).
    version: Option<String>,
}

/// The profile files beside the files given, for the active profiles, in
/// Spring's order (later ones win): per file given, per profile,
/// `NAME-PROFILE.yml`, `.yaml`, then `.properties`, those that exist;
/// each file once, where it stands last (the same file under two names, a
/// symbolic link, binds the same read once at the later place), and none
/// that is a file given. With how many were left out as the same file.
// Each folder is listed once and the names looked up in the listing: a
// check of the file system per profile and extension, each walking the
// whole path, took 8.6 s for 700,000 profiles.
fn profile_files(files: &[PathBuf], active: &[String]) -> (Vec<(PathBuf, &'static str)>, usize) {
    use std::collections::{HashMap, HashSet};
    let named = || files.iter().filter(|p| *p != Path::new("-"));
    let given: HashSet<FileId> = named().filter_map(|f| file_id(f)).collect();
    #[allow(clippy::type_complexity)]
    let mut listings: HashMap<(&Path, &str), Option<HashSet<std::ffi::OsString>>> = HashMap::new();
    let mut found: Vec<(PathBuf, &'static str, FileId)> = Vec::new();
    for file in named() {
        let (Some(dir), Some(stem)) = (file.parent(), file.file_stem().and_then(|s| s.to_str()))
        else {
            continue;
        };
        // `None`: a folder that cannot be listed; each name is then asked for.
        let listing = listings.entry((dir, stem)).or_insert_with(|| {
            let at = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            let prefix = format!("{stem}-");
            std::fs::read_dir(at).ok().map(|entries| {
                entries
                    .flatten()
                    .map(|e| e.file_name())
                    .filter(|n| n.to_str().is_some_and(|n| n.starts_with(&prefix)))
                    .collect()
            })
        });
        for p in active {
            for (ext, kind) in [
                ("yml", "yaml"),
                ("yaml", "yaml"),
                ("properties", "properties"),
            ] {
                let name = format!("{stem}-{p}.{ext}");
                if listing
                    .as_ref()
                    .is_some_and(|l| !l.contains(std::ffi::OsStr::new(&name)))
                {
                    continue;
                }
                let path = dir.join(&name);
                if let Some(id) = path.is_file().then(|| file_id(&path)).flatten() {
                    found.push((path, kind, id));
                }
            }
        }
    }
    // Each file at its last place.
    let mut seen: HashSet<FileId> = given;
    let mut kept: Vec<(PathBuf, &'static str)> = Vec::new();
    let mut same = 0;
    for (path, kind, id) in found.into_iter().rev() {
        if seen.insert(id) {
            kept.push((path, kind));
        } else {
            same += 1;
        }
    }
    kept.reverse();
    (kept, same)
}

/// What makes two names one file: its device and inode where the system
/// has them, else its canonical path.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum FileId {
    #[cfg(unix)]
    Inode(u64, u64),
    #[cfg_attr(unix, allow(dead_code))]
    Path(PathBuf),
}

fn file_id(path: &Path) -> Option<FileId> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        std::fs::metadata(path)
            .ok()
            .map(|m| FileId::Inode(m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        std::fs::canonicalize(path).ok().map(FileId::Path)
    }
}

/// The bytes read so far against [`MAX_CONFIG_TOTAL_BYTES`].
#[derive(Default)]
struct Budget {
    used: usize,
    files: usize,
}

/// Reads and parses one configuration file (or standard input).
fn load(
    file: &Path,
    name: &str,
    kind: &str,
    json: bool,
    budget: &mut Budget,
) -> Result<Vec<Vec<Entry>>, ExitCode> {
    let unread = |why: String| {
        if json {
            print_json(&json!({"file": name, "not_read": why}));
        }
        no_verdict(&format!("{}: {why}", text(name)))
    };
    if file != Path::new("-") && file.is_dir() {
        return Err(unread(
            "a directory, not a file: give its application.properties or application.yml"
                .to_owned(),
        ));
    }
    let (bytes, size) = read_input(file).map_err(|e| unread(format!("cannot read: {e}")))?;
    if bytes.len() > MAX_CONFIG_BYTES {
        let size = usize::try_from(size.unwrap_or(bytes.len() as u64)).unwrap_or(usize::MAX);
        let message = too_large(size).message;
        if json {
            print_json(&json!({"file": name, "not_read": message}));
        }
        return Err(no_verdict(&format!(
            "{}: {message} (check reads an application.properties or application.yml of up to {MAX_CONFIG_BYTES} bytes)",
            text(name)
        )));
    }
    budget.used += bytes.len();
    budget.files += 1;
    if budget.used > MAX_CONFIG_TOTAL_BYTES {
        return Err(unread(format!(
            "the files read come to more than {MAX_CONFIG_TOTAL_BYTES} bytes with this one ({} files, {} bytes): not read (check reads at most {MAX_CONFIG_TOTAL_BYTES} bytes of configuration in all: the files given and their profile files)",
            budget.files, budget.used
        )));
    }
    read_documents(name, &bytes, kind, json)
}

/// Binds the sources; a property whose value still holds a placeholder
/// nothing resolves (not in the files, the environment or `--set`) is
/// left out, with a warning, instead of Spring's refusal: the
/// application's real environment may well set it. Such properties come
/// back by name, for `worst_open` to try their values.
// The sources come back with their files: the SARIF log and the messages
// point at lines in them.
#[allow(clippy::type_complexity)]
fn bind_leniently(
    sources: Vec<(String, Vec<Entry>)>,
    json: bool,
    sarif: Option<&Path>,
) -> Result<
    (
        BoundProperties,
        Vec<(String, Vec<Entry>)>,
        Vec<String>,
        Vec<OpenProperty>,
    ),
    ExitCode,
> {
    match bind_open(sources) {
        Ok(l) => Ok((l.bound, l.sources, l.unresolved, l.open)),
        Err(r) => Err(refused(&r.sources, &r.failure, &r.unresolved, json, sarif)),
    }
}

/// Whether a property is one Spring AI 2.0.1 added to `spring.ai.tools`
/// (the limits, the resolution fallback), in any relaxed spelling.
fn since_2_0_1(key: &str) -> bool {
    let k: String = key
        .chars()
        .filter(|c| *c != '-' && *c != '_')
        .flat_map(char::to_lowercase)
        .collect();
    ["spring.ai.tools.limits", "spring.ai.tools.resolution"]
        .iter()
        .any(|p| k == *p || k.starts_with(&format!("{p}.")) || k.starts_with(&format!("{p}[")))
}

/// The Spring AI version of a build file, as a line for the answer, and
/// the version answered for: the build's when this model describes it
/// (2.0.0 or 2.0.1), else 2.0.1.
fn build_version(path: &Path) -> Result<(String, SpringAi), ExitCode> {
    let name = super::shown(&path.display().to_string()).into_owned();
    // A build file is read under the configuration files' limit: a real
    // pom.xml is a few kilobytes.
    let (bytes, size) =
        read_input(path).map_err(|e| no_verdict(&format!("--build {name}: cannot read: {e}")))?;
    if bytes.len() > MAX_CONFIG_BYTES {
        let size = usize::try_from(size.unwrap_or(bytes.len() as u64)).unwrap_or(usize::MAX);
        return Err(no_verdict(&format!(
            "--build {name}: {}",
            too_large(size).message
        )));
    }
    let text = String::from_utf8_lossy(&bytes);
    let found = spring_ai_version(&text);
    let version = found
        .as_deref()
        .and_then(|v| v.parse::<SpringAi>().ok())
        .unwrap_or_default();
    // The version as printed: one line, control characters escaped, a long
    // text cut so that the line stays whole.
    let v = found
        .as_deref()
        .map(|v| match cut(v, 64, 40) {
            Some((head, n)) => format!("{}... ({n} characters)", super::shown(head)),
            None => super::shown(v).into_owned(),
        })
        .unwrap_or_default();
    Ok((
        match found {
            Some(f) if f == MODELLED_SPRING_AI => format!("{name}: Spring AI {v}"),
            Some(f) if f == SpringAi::V2_0_0.name() => format!(
                "{name}: Spring AI {v}: answered for {v}, which has no tool call limits: the breach scenarios do not apply (n/a)"
            ),
            Some(f) if f.contains("${") => format!(
                "warning: {name}: Spring AI {v}: unresolved (a property the file does not set, one that refers to itself, or one nested past {MAX_BUILD_INTERPOLATION} levels); answered for {MODELLED_SPRING_AI}, which this model reproduces"
            ),
            Some(f)
                if !f.starts_with(|c: char| c.is_ascii_digit())
                    || !f
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_')) =>
            {
                format!(
                    "warning: {name}: Spring AI `{v}`: cannot be read as a version; answered for {MODELLED_SPRING_AI}"
                )
            }
            Some(_) => format!(
                "warning: {name}: Spring AI {v}, not {MODELLED_SPRING_AI}: this model reproduces {MODELLED_SPRING_AI}; the verdicts may not hold for {v}"
            ),
            None => format!(
                "warning: {name}: no Spring AI version found (spring-ai.version, springAiVersion or an org.springframework.ai artifact); this model reproduces {MODELLED_SPRING_AI}"
            ),
        },
        version,
    ))
}

fn print_json(v: &Value) {
    outln!("{}", serde_json::to_string_pretty(v).unwrap_or_default());
}

/// The documents of a properties or YAML text, or the exit for a text
/// Spring cannot load or this reader does not model.
fn read_documents(
    name: &str,
    bytes: &[u8],
    kind: &str,
    json: bool,
) -> Result<Vec<Vec<Entry>>, ExitCode> {
    if kind == "properties" {
        return parse_properties(bytes).map_err(|e| {
            if e.not_modelled {
                not_checked(name, &e.to_string(), json)
            } else {
                cannot_load(name, &e.to_string(), json)
            }
        });
    }
    // SnakeYAML reads UTF-8 (a BOM picks UTF-16 or UTF-32).
    let text = std::str::from_utf8(bytes).map_err(|e| {
        no_verdict(&format!(
            "{}: not valid UTF-8 (byte {})",
            text(name),
            e.valid_up_to()
        ))
    })?;
    toolcall_model::config::read_yaml(text.strip_prefix('\u{feff}').unwrap_or(text)).map_err(|e| {
        if let Some(why) = e.strip_prefix(toolcall_model::config::NOT_MODELLED) {
            return not_checked(name, why, json);
        }
        cannot_load(name, &e, json)
    })
}

/// A file past this model's limits: `not checked: WHY`, and with `--json`
/// `{"file", "not_checked"}` on standard output.
fn not_checked(name: &str, why: &str, json: bool) -> ExitCode {
    if json {
        print_json(&json!({"file": name, "not_checked": why}));
    }
    no_verdict(&format!(
        "{}: not checked: {}",
        text(name),
        clip(&text(why))
    ))
}

/// The line of the entry that made the builder refuse: the property the
/// builder call reads (`maxCallsPerTool` is the per-tool default or an
/// override, whichever is not positive).
fn builder_culprit<'a>(docs: &'a [Vec<Entry>], message: &str) -> Option<&'a Entry> {
    let bad_number = |e: &&Entry| {
        let v = e.value.to_java_string();
        v.trim().parse::<i64>().is_ok_and(|n| n < 1 && n != -1)
    };
    let under = |prefix: &str, e: &&Entry| relaxed(&e.key).starts_with(&relaxed(prefix));
    let found = |prefix: &str| {
        docs.iter()
            .rev()
            .flat_map(|d| d.iter().rev())
            .find(|e| under(prefix, e) && bad_number(e))
    };
    if message.contains("maxTotalToolCalls") {
        found("spring.ai.tools.limits.max-total-tool-calls")
    } else if message.contains("maxCallsPerTool") {
        found("spring.ai.tools.limits.max-calls-per-tool")
    } else if message.contains("toolName") {
        docs.iter().rev().flat_map(|d| d.iter().rev()).find(|e| {
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

/// Spring refuses the configuration: its message, and the line and
/// property where the text has them.
fn refused(
    sources: &[(String, Vec<Entry>)],
    e: &BindFailure,
    unresolved: &[String],
    json: bool,
    sarif: Option<&Path>,
) -> ExitCode {
    let docs: Vec<Vec<Entry>> = sources.iter().map(|(_, d)| d.clone()).collect();
    let docs = &docs[..];
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
    // Where the refusal points: the file and line, and the property.
    let (uri, line, property): (&str, usize, Option<String>) = match e {
        BindFailure::Bind { line, property, .. } => {
            (origin(*line, Some(property)), *line, Some(property.clone()))
        }
        BindFailure::Unbound { line, .. } => (origin(*line, None), *line, None),
        BindFailure::Limit { message } => {
            if json {
                print_json(&json!({"file": name, "not_checked": message}));
            }
            return no_verdict(&format!(
                "{}: not checked: {}",
                text(name),
                clip(&text(message))
            ));
        }
        BindFailure::Builder { message } => match builder_culprit(docs, message) {
            Some(en) => (
                origin(en.line, Some(&en.key)),
                en.line,
                Some(en.key.clone()),
            ),
            None => (name, 0, None),
        },
        BindFailure::Convert { .. } => (name, 0, None),
    };
    let head = match (line, &property) {
        (0, _) => text(uri).into_owned(),
        (l, Some(p)) => format!("{}:{l}: {}", text(uri), text(p)),
        (l, None) => format!("{}:{l}", text(uri)),
    };
    if let Some(path) = sarif {
        let log = super::sarif::refusal_log(uri, line, &e.to_string());
        if let Err(err) = super::sarif::write(path, &log) {
            return no_verdict(&err);
        }
    }
    if json {
        let mut refusal = refusal_json(e);
        if let (BindFailure::Builder { message }, Some(o)) = (e, refusal.as_object_mut())
            && let Some(en) = builder_culprit(docs, message)
        {
            o.insert("property".into(), json!(en.key));
            o.insert("line".into(), json!(en.line));
        }
        print_json(&json!({
            "file": name,
            "spring_refuses": e.to_string(),
            "refusal": refusal,
            "unresolved": unresolved,
        }));
    }
    // The properties left out before this refusal: Spring would have
    // refused their placeholders first, unless the environment sets them.
    let left_out: String = unresolved
        .iter()
        .map(|u| format!("\nwarning: {}", clip(&text(u))))
        .collect();
    let shown = e.map_text(|s| text(s).into_owned());
    no_verdict(&format!(
        "{head}: Spring Boot refuses this configuration; the application would not start:\n\n{}{left_out}",
        clip(&shown.to_string())
    ))
}

/// A file Spring Boot cannot load: the message, and with `--json` the same
/// as `{"file", "spring_cannot_load"}` on standard output.
fn cannot_load(name: &str, message: &str, json: bool) -> ExitCode {
    if json {
        print_json(&json!({"file": name, "spring_cannot_load": message}));
    }
    no_verdict(&format!(
        "{}: Spring cannot load it: {}",
        text(name),
        clip(&text(message))
    ))
}

/// Text for a person: every line past 300 characters cut to its first 200
/// and its length (a value can be megabytes long).
fn clip(s: &str) -> String {
    clip_at(s, 300, 200)
}

/// [`clip`] with its lengths: lines past `max` characters cut to `keep`.
fn clip_at(s: &str, max: usize, keep: usize) -> String {
    s.split('\n')
        .map(|line| match cut(line, max, keep) {
            Some((head, n)) => format!("{head}... ({n} characters)"),
            None => line.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
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

/// What makes this setup safe today: a configuration change (under
/// upstream), and the fewest switches of the fix library.
pub struct Remedy {
    /// The smallest configuration change under upstream, if one is enough.
    pub change: Option<Vec<toolcall_model::config::Change>>,
    /// The fewest fixes that make the setup safe as configured.
    pub fixes: Option<Fixes>,
    /// The Spring AI version answered for.
    pub version: SpringAi,
}

impl Remedy {
    fn find(setup: &Setup, reports: &[SetReport]) -> Remedy {
        Remedy {
            change: reports
                .iter()
                .find(|r| r.set.name == "upstream")
                .and_then(|r| r.smallest_change.clone()),
            fixes: smallest_fixes(setup),
            version: setup.version,
        }
    }

    /// The fix library's properties for the fixes found.
    pub fn properties(&self) -> Vec<String> {
        self.fixes
            .map(|f| {
                f.enabled()
                    .iter()
                    .map(|x| format!("{FIX_PREFIX}.{}=true", x.name()))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn to_json(&self) -> Value {
        json!({
            "configuration": self.change.as_ref().map(|c| c.iter().map(|x| json!({"change": x.key(), "how": x.describe()})).collect::<Vec<_>>()),
            "fixes": self.fixes.map(|f| f.enabled().iter().map(|x| x.name()).collect::<Vec<_>>()),
            "library": FIX_LIBRARY,
            "properties": self.properties(),
        })
    }

    fn to_text(&self) -> String {
        let mut out = String::from("\nFix it today:\n");
        match &self.change {
            Some(c) if c.is_empty() => {
                out.push_str(&format!(
                    "  nothing to change: upstream Spring AI {} survives every scenario\n",
                    self.version
                ));
                return out;
            }
            Some(c) => out.push_str(&format!(
                "  without a new library: {}\n",
                c.iter()
                    .map(|x| x.describe())
                    .collect::<Vec<_>>()
                    .join(" and ")
            )),
            None => out
                .push_str("  without a new library: no change of one or two settings is enough\n"),
        }
        match self.fixes {
            Some(f) if !f.is_upstream() => {
                if !self.version.has_limits() {
                    out.push_str(&format!(
                        "  the fix library is written for Spring AI 2.0.1: upgrade from {} first\n",
                        self.version
                    ));
                }
                out.push_str(&format!(
                    "  with the fix library ({FIX_LIBRARY}), in application.properties:\n"
                ));
                for p in self.properties() {
                    out.push_str(&format!("    {p}\n"));
                }
            }
            _ => out.push_str("  no combination of the fix library's switches makes it safe\n"),
        }
        out
    }
}

/// Every mark the reports use, each once, in table order.
fn marks_used(reports: &[SetReport]) -> Vec<Mark> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for r in reports {
        for v in &r.verdicts {
            if seen.insert(v.mark.word()) {
                out.push(v.mark);
            }
        }
    }
    out
}

fn legend_json(reports: &[SetReport]) -> Value {
    let mut m = serde_json::Map::new();
    for mark in marks_used(reports) {
        m.insert(mark.word().to_owned(), json!(mark.meaning()));
    }
    Value::Object(m)
}

/// Everything the text answer says.
struct Answer<'a> {
    context: &'a Context,
    resolved: &'a Resolved,
    setup: &'a Setup,
    reports: &'a [SetReport],
    mine: &'a SetReport,
    remedy: &'a Remedy,
    gate: &'a Gate,
    /// `--strict-keys` and a key Spring ignores.
    keys_fail: bool,
    code: u8,
}

/// A verdict's text past this many characters is cut (at a word, after
/// the sentence that says what broke) with its length; `--json` has it
/// whole. One line per cause: a terminal wraps it, a log keeps it whole.
const DETAIL_CHARS: usize = 400;

/// `text` on one line, cut at a word past [`DETAIL_CHARS`], and without
/// the `java.lang.` of the exceptions it names.
fn one_line(text: &str) -> String {
    let text = text.replace("java.lang.", "");
    let n = text.chars().count();
    let line = if n > DETAIL_CHARS {
        let head: String = text.chars().take(DETAIL_CHARS).collect();
        let head = head.rsplit_once(' ').map_or(head.as_str(), |(h, _)| h);
        format!("{head}... ({n} characters; --json has them all)")
    } else {
        text
    };
    line.trim_end().to_owned()
}

impl Answer<'_> {
    fn to_text(&self, all_sets: bool) -> String {
        let (context, bound, mine) = (self.context, &self.resolved.bound, self.mine);
        let mut out = String::new();
        if let Some(v) = &context.version {
            out.push_str(&format!("{v}\n"));
        }
        let profiles = if context.active == ["default"] {
            String::new()
        } else {
            format!(" (profiles {})", text(&context.active.join(", ")))
        };
        let files: Vec<_> = context.files.iter().map(|f| text(f)).collect();
        out.push_str(&format!(
            "{}{profiles}: Spring Boot reads\n",
            files.join(" + ")
        ));
        for n in &context.notes {
            out.push_str(&clip(&text(n)));
            out.push('\n');
        }
        if bound.read.is_empty() {
            out.push_str("  (no spring.ai.tools key: every default)\n");
        }
        let docs: Vec<Vec<Entry>> = self.resolved.docs.iter().map(|(_, d)| d.clone()).collect();
        let written = written_names(bound, &docs);
        let answered_for = context.open.as_ref().map(|o| o.named(&o.tried[0].0));
        for (k, v) in &bound.read {
            let open = answered_for
                .iter()
                .flatten()
                .any(|(p, set)| p == k && set.is_some());
            let mark = if open { " (an open value: below)" } else { "" };
            let k = written.get(k).unwrap_or(k);
            out.push_str(&clip(&super::shown(&format!("  {k} = {v}{mark}"))));
            out.push('\n');
        }
        for u in &bound.unknown {
            out.push_str(&clip(&super::shown(&format!(
                "{}: line {}: Spring ignores '{}'; did you mean '{}'?",
                if self.keys_fail { "error" } else { "warning" },
                u.line,
                u.key,
                u.suggestion
            ))));
            out.push('\n');
        }
        let open_names: Vec<&str> = context
            .open
            .iter()
            .flat_map(|o| o.properties.iter())
            .filter(|p| p.default.is_some())
            .map(|p| p.key.as_str())
            .collect();
        for p in &bound.placeholders_not_in_file {
            let how = if open_names.is_empty() {
                "read with its default (or as written); Spring would take it from a system property or environment variable first; --set NAME=VALUE gives it"
            } else {
                "the environment may set it: answered at its default and at each value that can change the answer (below); --set NAME=VALUE, or --defaults-run, says what runs"
            };
            out.push_str(&clip(&super::shown(&format!(
                "warning: ${{{p}}} is not set here: {how}"
            ))));
            out.push('\n');
        }
        for u in &context.unresolved {
            out.push_str(&one_line(&super::shown(&format!("warning: {u}"))));
            out.push('\n');
        }
        if let Some(open) = &context.open {
            out.push_str(&open.to_text(mine.set.name));
        }
        out.push_str(&format!(
            "Setup: Spring AI {}, {}\n",
            self.setup.version,
            super::shown(&describe_setup(self.setup))
        ));
        if all_sets {
            out.push_str(&matrix_text(self.reports));
        }
        out.push_str(&self.breaks_text());
        out.push_str(&self.remedy.to_text());
        out.push('\n');
        if all_sets {
            let safe: Vec<&str> = self
                .reports
                .iter()
                .filter(|r| r.safe())
                .map(|r| r.set.name)
                .collect();
            out.push_str(&format!(
                "Safe as configured under: {}\n",
                if safe.is_empty() {
                    "no behaviour set".to_owned()
                } else {
                    safe.join(", ")
                }
            ));
        }
        out.push_str(&self.verdict_line());
        out.push_str(if all_sets {
            "Full texts: --json; another set: --fixes LIST\n"
        } else {
            "Every behaviour set: --all-sets; full texts: --json; another set: --fixes LIST\n"
        });
        out
    }

    /// What breaks under the set asked for, one line per cause (scenarios
    /// that break with the same text share it), then the accepted ones.
    fn breaks_text(&self) -> String {
        let mine = self.mine;
        let failing: Vec<_> = mine
            .verdicts
            .iter()
            .filter(|v| !v.mark.survives())
            .collect();
        if failing.is_empty() {
            return String::new();
        }
        let accepted = |s: CheckScenario| self.gate.accepted.iter().find(|(x, _)| *x == s);
        let mut groups: Vec<(Vec<&str>, &str, &str)> = Vec::new();
        for v in failing.iter().filter(|v| accepted(v.scenario).is_none()) {
            match groups
                .iter_mut()
                .find(|(_, m, d)| *m == v.mark.word() && *d == v.detail)
            {
                Some(g) => g.0.push(v.scenario.column()),
                None => groups.push((vec![v.scenario.column()], v.mark.word(), &v.detail)),
            }
        }
        let mut out = format!(
            "\nWhat breaks under {} ({} of {} scenarios):\n",
            mine.set.name,
            failing.len(),
            mine.verdicts.len()
        );
        for (columns, mark, detail) in groups {
            let line = format!(
                "  {} ({mark}): {}",
                columns.join(", "),
                super::shown(detail)
            );
            out.push_str(&one_line(&line));
            out.push('\n');
        }
        for (s, a) in &self.gate.accepted {
            let why = if a.reason.is_empty() {
                String::new()
            } else {
                format!(": {}", a.reason)
            };
            out.push_str(&one_line(&super::shown(&format!(
                "  accepted ({}): {} ({}){why}",
                a.origin,
                s.column(),
                a.mark
            ))));
            out.push('\n');
        }
        for a in &self.gate.stale {
            out.push_str(&one_line(&super::shown(&format!(
                "  note: {} accepts {} ({}), which does not break so under {}: update or remove it",
                a.origin,
                a.scenario.column(),
                a.mark,
                mine.set.name
            ))));
            out.push('\n');
        }
        out
    }

    fn verdict_line(&self) -> String {
        let (mine, gate) = (self.mine, self.gate);
        let mut why: Vec<String> = Vec::new();
        if !gate.open.is_empty() {
            why.push(
                gate.open
                    .iter()
                    .map(|s| s.column())
                    .collect::<Vec<_>>()
                    .join(", "),
            );
        }
        if self.keys_fail {
            why.push(format!(
                "{} key(s) Spring ignores (--strict-keys)",
                self.resolved.bound.unknown.len()
            ));
        }
        let accepted = if gate.accepted.is_empty() {
            String::new()
        } else {
            format!(
                " ({} accepted: {})",
                gate.accepted.len(),
                gate.accepted
                    .iter()
                    .map(|(s, _)| s.column())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        if why.is_empty() {
            let how = if mine.safe() { "safe" } else { "passes" };
            format!(
                "Verdict: {how} under {}{accepted} (exit {})\n",
                mine.set.name, self.code
            )
        } else {
            format!(
                "Verdict: not safe under {}: {}{accepted} (exit {})\n",
                mine.set.name,
                why.join("; "),
                self.code
            )
        }
    }
}

/// `--all-sets`: every behaviour set's row, the marks, the scenarios, and
/// each set's smallest change (the sets that share one named together).
fn matrix_text(reports: &[SetReport]) -> String {
    let mut out = String::from("\n");
    let name_w = reports
        .iter()
        .map(|r| r.set.name.len())
        .max()
        .unwrap_or(13)
        .max(13)
        + 1;
    let mut head = format!("{:<name_w$}", "behaviour set");
    for s in CheckScenario::ALL {
        head.push_str(&format!("{:<10}", s.column()));
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
    out.push_str("\nMarks:");
    for m in marks_used(reports) {
        out.push_str(&format!("\n  {:<10}{}", m.word(), m.meaning()));
    }
    out.push_str("\n\nScenarios:");
    for s in CheckScenario::ALL {
        out.push_str(&format!("\n  {:<10}{}", s.column(), s.describe()));
    }
    out.push_str("\n\nThe smallest change that makes it safe, per set:\n");
    let mut changes: Vec<(String, Vec<&str>)> = Vec::new();
    for r in reports {
        let c = change_text(r);
        match changes.iter_mut().find(|(t, _)| *t == c) {
            Some((_, sets)) => sets.push(r.set.name),
            None => changes.push((c, vec![r.set.name])),
        }
    }
    for (change, sets) in changes {
        out.push_str(&one_line(&format!(
            "  {}: {}",
            super::shown(&change),
            sets.join(", ")
        )));
        out.push('\n');
    }
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
        "sets": reports.iter().map(|r| json!({
            "set": r.set.name,
            "safe": r.safe(),
            "verdicts": r.verdicts.iter().map(|v| {
                let mut o = v.to_value();
                o["column"] = json!(v.scenario.column());
                o
            }).collect::<Vec<_>>(),
            "smallest_change": r.smallest_change.as_ref().map(|c| c.iter().map(|x| json!({"change": x.key(), "how": x.describe()})).collect::<Vec<_>>()),
        })).collect::<Vec<_>>(),
    })
}
