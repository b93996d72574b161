//! `toolcall-model check`: reads an `application.properties` or
//! `application.yml` (or standard input), binds its `spring.ai.tools.*`
//! keys as Spring Boot would, and prints per behaviour set whether the
//! setup survives each scenario, the smallest change that makes it safe and
//! the fix library's switches that do. The answer is the library's one
//! call, `config::answer`; this command reads the flags and the files
//! (`files`), calls it, renders the answer as text (`text`), JSON (`json`)
//! and SARIF (`super::sarif`), and chooses the exit status: 0 safe under
//! the set asked for (`--fixes`, default upstream), 1 not safe, 2 no
//! verdict (a configuration Spring would refuse, an input that cannot be
//! read, a usage error).

use std::num::NonZeroU32;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::config::{
    Accepted, Answer, Application, Format, MAX_CONFIG_BYTES, Options, Stop, ToolOutput, answer,
    clip_lines,
};
use serde_json::{Value, json};
use toolcall_model::chat::{Memory, Provider};
use toolcall_model::model::{BehaviorSet, ProcessorKind};

mod files;
pub(crate) use files::file_id;
mod json;
mod open_profiles;
mod text;
pub(crate) mod texts;

use files::{read_input, shown, sources};
use text::{clip, text};

/// What properties cannot say, from the command line: `check`'s flags.
#[derive(Debug, clap::Args)]
pub(crate) struct Flags {
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
    /// (comma-separated), `all`, `upstream`, `gemini-tool-text` (default:
    /// what the fix library installs, from its `toolcall.fixes.*`
    /// switches in the files and its rule for an unset one, when the
    /// library is there; else `upstream`).
    #[arg(long)]
    pub fixes: Option<String>,
    /// The application has the fix library's starter on its classpath
    /// (as a `--build` file that declares it says): its rule decides the
    /// switches the files leave unset.
    #[arg(long)]
    pub fix_library: bool,
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
    Ok(crate::config::set_of(fixes, advisor))
}

/// Properties or YAML: `--format`, else the file's extension.
fn kind_of(file: &Path, format: Option<&str>) -> Result<Format, String> {
    match format {
        Some("properties") => Ok(Format::Properties),
        Some("yaml" | "yml") => Ok(Format::Yaml),
        Some(other) => Err(format!("--format {other}: use properties or yaml")),
        None if file == Path::new("-") => {
            Err("standard input (-): add --format properties or --format yaml".to_owned())
        }
        None if file.is_dir() => Err(format!(
            "{}: a directory, not a file: give its application.properties or application.yml",
            text(&file.display().to_string())
        )),
        None => match file.extension().and_then(|e| e.to_str()) {
            Some("yml" | "yaml") => Ok(Format::Yaml),
            Some("properties") => Ok(Format::Properties),
            _ => Err(format!(
                "{}: cannot tell properties from YAML by its name; add --format properties or --format yaml",
                text(&file.display().to_string())
            )),
        },
    }
}

pub(crate) fn command(files: &[PathBuf], f: &Flags) -> ExitCode {
    let inputs = files::inputs(files, f);
    let out = checked(files, f, &inputs).unwrap_or_else(|msg| usage(msg, f));
    emit(out, f, &inputs)
}

/// What `check` prints and writes: its exit status, standard output, the
/// message of a no-verdict exit, and the SARIF log. The command prints it
/// ([`emit`]); [`texts::check_texts`] returns it.
#[derive(Debug, Clone)]
pub(crate) struct Outcome {
    pub(crate) code: u8,
    pub(crate) stdout: String,
    /// The no-verdict message (`error: ` and the escaping are added where
    /// it is printed).
    pub(crate) error: Option<String>,
    pub(crate) sarif: Option<Value>,
}

/// `command` as steps: read the flags, the accepted findings and the
/// files, ask the library for the answer (for open active profiles, once
/// for each profile file beside the files), and render it; each step may
/// end with a no-verdict message.
fn checked(files: &[PathBuf], f: &Flags, inputs: &[PathBuf]) -> Result<Outcome, String> {
    let kinds = file_kinds(files, f.format.as_deref())?;
    let mut options = read_options(f)?;
    let Some(first) = files.first() else {
        return Err("no file given".to_owned());
    };
    if let Some(path) = &f.sarif {
        super::out_file::refused("--sarif", path, inputs)?;
    }
    options.accepted = accepted_findings(f)?;
    let set = set_flags(&f.set)?;
    let answered = answer(sources(files, &kinds, f, set.clone()), &options);
    let answered = match answered {
        Ok(a) if !a.open_profiles.is_empty() => {
            let names = files::profile_names(&a.files);
            open_profiles::worst_profile(a, &options, &names, |o| {
                answer(sources(files, &kinds, f, set.clone()), o)
            })
        }
        other => other,
    };
    Ok(outcome(&shown(first), f, answered))
}

/// The answer, or why there is none, rendered as the flags ask.
fn outcome(name: &str, f: &Flags, answered: Result<Answer, Stop>) -> Outcome {
    match answered {
        Ok(a) => render(name, f, &a),
        Err(stop) => stopped(&stop, f),
    }
}

/// A no-verdict outcome for an error in the flags or the inputs named on
/// the command line: its message, and with `--json` also `{"error": MSG}`
/// on standard output, as the command's other answers.
fn usage(msg: String, f: &Flags) -> Outcome {
    Outcome {
        code: NO_VERDICT,
        stdout: if f.json {
            pretty(&json!({ "error": msg }))
        } else {
            String::new()
        },
        error: Some(msg),
        sarif: None,
    }
}

/// Prints the outcome and writes its SARIF log where `--sarif` asks
/// (through the one writer: never over an input, a link or anything but
/// a regular file); a log that cannot be written is a no-verdict exit
/// with nothing else printed but its error.
fn emit(out: Outcome, f: &Flags, inputs: &[PathBuf]) -> ExitCode {
    if let (Some(path), Some(log)) = (f.sarif.as_deref(), &out.sarif)
        && let Err(e) = super::sarif::write(path, log, inputs)
    {
        let out = usage(e, f);
        out!("{}", out.stdout);
        return no_verdict(out.error.as_deref().unwrap_or_default());
    }
    out!("{}", out.stdout);
    match &out.error {
        Some(msg) => no_verdict(msg),
        None => ExitCode::from(out.code),
    }
}

/// The accepted findings of `--accept` files and `--accept-finding`.
fn accepted_findings(f: &Flags) -> Result<Vec<Accepted>, String> {
    let mut out = Vec::new();
    for path in &f.accept {
        let name = super::shown(&path.display().to_string()).into_owned();
        let (bytes, _) =
            read_input(path).map_err(|e| format!("--accept {name}: cannot read: {e}"))?;
        if bytes.len() > MAX_CONFIG_BYTES {
            return Err(format!(
                "--accept {name}: larger than {MAX_CONFIG_BYTES} bytes"
            ));
        }
        let text = std::str::from_utf8(&bytes).map_err(|e| {
            format!(
                "--accept {name}: not valid UTF-8 (byte {})",
                e.valid_up_to()
            )
        })?;
        out.extend(
            Accepted::read(text, &name).map_err(|e| format!("--accept {}", super::shown(&e)))?,
        );
    }
    for spec in &f.accept_finding {
        out.push(
            Accepted::parse(spec, "--accept-finding")
                .map_err(|e| format!("--accept-finding {}", super::shown(&e)))?,
        );
    }
    Ok(out)
}

/// Properties or YAML for each file; standard input at most once.
fn file_kinds(files: &[PathBuf], format: Option<&str>) -> Result<Vec<Format>, String> {
    let kinds = files
        .iter()
        .map(|file| kind_of(file, format))
        .collect::<Result<Vec<_>, _>>()?;
    if files.iter().filter(|p| *p == Path::new("-")).count() > 1 {
        return Err("standard input (-) can be given once".to_owned());
    }
    Ok(kinds)
}

/// What the flags say: the application beyond the properties, and the
/// behaviour set asked about, read and checked in the order of their
/// errors.
fn read_options(f: &Flags) -> Result<Options, String> {
    let processor = match f.processor.as_str() {
        "default" => ProcessorKind::Default,
        "json-error" => ProcessorKind::JsonError,
        p => {
            return Err(format!("--processor {p}: use default or json-error"));
        }
    };
    let memory = match f.memory.as_str() {
        "none" => Memory::None,
        "inside" => Memory::Inside,
        "outside" => Memory::Outside,
        m => {
            return Err(format!("--memory {m}: use none, outside or inside"));
        }
    };
    let history = match f.history.as_str() {
        "auto" => None,
        "on" => Some(true),
        "off" => Some(false),
        h => return Err(format!("--history {h}: use auto, on or off")),
    };
    let provider = match f.provider.as_str() {
        "gemini" => Provider::Gemini,
        "none" => Provider::None,
        p => return Err(format!("--provider {p}: use gemini or none")),
    };
    let Some(window) = NonZeroU32::new(f.memory_window) else {
        return Err("--memory-window 0: java.lang.IllegalArgumentException: maxMessages must be greater than 0".to_owned());
    };
    let asked = asked_set(f.fixes.as_deref().unwrap_or("upstream"))?;
    let tool_output = ToolOutput::parse(&f.tools).map_err(|e| format!("--tools {e}"))?;
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
        profiles: f.profile.as_ref().map(|p| {
            p.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect()
        }),
        defaults_run: f.defaults_run,
        accepted: Vec::new(),
        strict_keys: f.strict_keys,
        asked_from_files: f.fixes.is_none(),
        library: f.fix_library,
    })
}

/// `--rethrow`: `none`, or Java class names separated by commas.
fn rethrow_classes(list: &str) -> Result<Vec<String>, String> {
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
        return Err(format!("--rethrow: '{bad}' is not a Java class name"));
    }
    Ok(rethrow)
}

/// `--set key=value`, each with a key.
fn set_flags(set: &[String]) -> Result<Vec<(String, String)>, String> {
    set.iter()
        .map(|kv| match kv.split_once('=') {
            Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_owned(), v.to_owned())),
            _ => Err(format!("--set {kv}: use --set key=value")),
        })
        .collect()
}

/// Why there is no verdict: the message for standard error, with
/// `--json` the same as an object on standard output, and the SARIF log:
/// a refusal's own, else one no-verdict result (a CI uploads the log
/// whatever the exit, `if: always()`).
fn stopped(stop: &Stop, f: &Flags) -> Outcome {
    let mut out = stop_outcome(stop, f);
    out.sarif = match stop {
        Stop::Refused(r) if r.logged => out.sarif,
        _ => Some(super::sarif::stop_log(
            &stop_place(stop),
            &stop_message(stop),
        )),
    };
    out
}

/// [`stopped`]'s message and standard output.
fn stop_outcome(stop: &Stop, f: &Flags) -> Outcome {
    let fail = |v: Value, msg: String| Outcome {
        code: NO_VERDICT,
        stdout: if f.json { pretty(&v) } else { String::new() },
        error: Some(msg),
        sarif: None,
    };
    match stop {
        Stop::NotRead { file, why } => fail(
            json!({"file": file, "not_read": why}),
            format!("{}: {why}", text(file)),
        ),
        Stop::TooLarge { file, message } => fail(
            json!({"file": file, "not_read": message}),
            format!(
                "{}: {message} (check reads an application.properties or application.yml of up to {MAX_CONFIG_BYTES} bytes)",
                text(file)
            ),
        ),
        Stop::NotUtf8 { file, byte } => fail(
            json!({"file": file, "not_read": format!("not valid UTF-8 (byte {byte})")}),
            format!("{}: not valid UTF-8 (byte {byte})", text(file)),
        ),
        Stop::NotChecked { file, why } => fail(
            json!({"file": file, "not_checked": why}),
            format!("{}: not checked: {}", text(file), clip(&text(why))),
        ),
        Stop::CannotLoad { file, message } => fail(
            json!({"file": file, "spring_cannot_load": message}),
            format!(
                "{}: Spring cannot load it: {}",
                text(file),
                clip(&text(message))
            ),
        ),
        Stop::Refused(r) => refused(r, f),
        Stop::Build { file, why } => usage(format!("--build {}: {why}", text(file)), f),
        Stop::NoReport => usage("the set asked for has no report".to_owned(), f),
    }
}

/// The file a stop is about, for its SARIF result.
fn stop_place(stop: &Stop) -> String {
    match stop {
        Stop::NotRead { file, .. }
        | Stop::TooLarge { file, .. }
        | Stop::NotUtf8 { file, .. }
        | Stop::NotChecked { file, .. }
        | Stop::CannotLoad { file, .. }
        | Stop::Build { file, .. } => file.clone(),
        Stop::Refused(r) => r.at.clone(),
        Stop::NoReport => String::new(),
    }
}

/// Why a stop gave no verdict, in a line for its SARIF result.
fn stop_message(stop: &Stop) -> String {
    match stop {
        Stop::NotRead { why, .. } => format!("not read: {why}"),
        Stop::TooLarge { message, .. } => format!("not read: {message}"),
        Stop::NotUtf8 { byte, .. } => format!("not valid UTF-8 (byte {byte})"),
        Stop::NotChecked { why, .. } => format!("not checked: {why}"),
        Stop::CannotLoad { message, .. } => format!("Spring cannot load it: {message}"),
        Stop::Refused(r) => format!(
            "Spring Boot refuses this configuration; the application would not start: {}",
            r.failure
        ),
        Stop::Build { why, .. } => format!("--build: {why}"),
        Stop::NoReport => "the set asked for has no report".to_owned(),
    }
}

/// Spring refuses the configuration: the SARIF log, the JSON, and the
/// message with the file, line and property where the refusal has them.
fn refused(r: &crate::config::Refusal, f: &Flags) -> Outcome {
    let head = match (r.line, &r.property) {
        (0, _) => text(&r.at).into_owned(),
        (l, Some(p)) => format!("{}:{l}: {}", text(&r.at), text(p)),
        (l, None) => format!("{}:{l}", text(&r.at)),
    };
    let sarif = r
        .logged
        .then(|| super::sarif::refusal_log(&r.at, r.line, &r.failure.to_string()));
    let stdout = if f.json {
        pretty(&json!({
            "file": r.file,
            "spring_refuses": r.failure.to_string(),
            "refusal": r.to_value(),
            "unresolved": r.unresolved,
        }))
    } else {
        String::new()
    };
    let left_out: String = r
        .unresolved
        .iter()
        .map(|u| format!("\nwarning: {}", clip(&text(u))))
        .collect();
    let shown = r.failure.map_text(|s| text(s).into_owned());
    Outcome {
        code: NO_VERDICT,
        stdout,
        error: Some(format!(
            "{head}: Spring Boot refuses this configuration; the application would not start:\n\n{}{left_out}",
            clip(&shown.to_string())
        )),
        sarif,
    }
}

/// The answer as the flags ask (text or JSON) with its SARIF log; the
/// exit says whether the set asked for is safe once the accepted findings
/// are (and, with `--strict-keys`, whether no key is ignored).
fn render(name: &str, f: &Flags, a: &Answer) -> Outcome {
    let code = if a.passes() { 0 } else { UNSAFE };
    let sarif = super::sarif::log(&super::sarif::Findings {
        sources: &a.sources,
        setup: &a.setup,
        report: a.asked(),
        remedy: &a.remedy,
        gate: &a.gate,
        unknown: &a.bound.unknown,
        strict_keys: f.strict_keys,
        open: a.open.as_ref(),
    });
    let stdout = if f.json {
        pretty(&json::answer(name, a, f.strict_keys, code))
    } else {
        // Each line was cut where it matters; this bounds the rest.
        super::shown_lines(&clip_lines(&text::answer(a, f.all_sets, code), 600, 400)).into_owned()
    };
    Outcome {
        code,
        stdout,
        error: None,
        sarif: Some(sarif),
    }
}

/// A JSON value as `check --json` prints it, with its newline.
fn pretty(v: &Value) -> String {
    format!("{}\n", serde_json::to_string_pretty(v).unwrap_or_default())
}
