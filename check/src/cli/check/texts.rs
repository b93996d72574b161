//! `check` on texts held in memory: the command's arguments and its
//! files' contents in, what it would print and write out. No file system,
//! no environment, no clock: the entry point of the judge's WebAssembly
//! module (`judge/`, docs/JUDGE.md) and of anything else that holds the
//! texts rather than the files.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use toolcall_model::model::{BehaviorSet, Fixes};

use super::{Flags, NO_VERDICT, Outcome, file_kinds, outcome, read_options, set_flags, usage};
use crate::config::{
    Accepted, Gate, ProfileFiles, Remedy, SetReport, Setup, Sources, Text, answer, describe_setup,
};

/// The arguments of `check` after its files, as its command line takes them.
#[derive(Debug, clap::Parser)]
#[command(name = "toolcall-model check", no_binary_name = true)]
struct Args {
    #[command(flatten)]
    flags: Flags,
}

/// What `toolcall-model check` prints and writes for the texts given.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckOutput {
    /// The exit status: 0 safe, 1 not safe, 2 no verdict.
    pub exit: u8,
    /// Standard output: the answer as text, or as JSON with `--json`.
    pub stdout: String,
    /// Standard error: the no-verdict message (`error: ...`), or empty.
    pub stderr: String,
    /// The SARIF 2.1.0 log `--sarif FILE` writes, when there is one.
    pub sarif: Option<Value>,
}

/// `toolcall-model check FILES ARGS` for files held in memory: each file
/// a name (its extension tells properties from YAML, unless `--format`)
/// and its text; `args` the flags as on the command line (`--memory
/// inside`, `--json`). There is nothing beside the files (no profile
/// file is found, the environment is empty), `--sarif` names no file
/// (the log is returned), `--build NAME` reads the file of that name
/// among those given (it is then the build, not a configuration file),
/// and any other file a flag names (`--accept`) cannot be read.
///
/// ```
/// use toolcall_check::check_texts;
/// let file = ("application.properties", "spring.ai.tools.limits.max-calls-per-tool-default=3\n");
/// let out = check_texts(&["--memory", "inside"], &[file]);
/// assert_eq!(out.exit, 1);
/// assert!(out.stdout.contains("Setup: Spring AI 2.0.1"));
/// assert!(out.sarif.is_some());
/// let out = check_texts(&["--memory", "nowhere"], &[file]);
/// assert_eq!((out.exit, out.stderr.as_str()), (2, "error: --memory nowhere: use none, outside or inside\n"));
/// ```
pub fn check_texts(args: &[&str], files: &[(&str, &str)]) -> CheckOutput {
    let flags = match <Args as clap::Parser>::try_parse_from(args) {
        Ok(a) => a.flags,
        Err(e) => {
            return CheckOutput {
                exit: NO_VERDICT,
                stdout: String::new(),
                stderr: e.render().to_string(),
                sarif: None,
            };
        }
    };
    let out = checked_texts(&flags, files).unwrap_or_else(|msg| usage(msg, &flags));
    CheckOutput {
        exit: out.code,
        stdout: out.stdout,
        stderr: out
            .error
            .map(|m| format!("error: {}\n", super::super::shown_lines(m.as_str())))
            .unwrap_or_default(),
        // The log the command writes: with `--sarif`, and for a refusal
        // only where the command writes one.
        sarif: out.sarif,
    }
}

/// The command's steps on texts: the flags, the accepted findings, the
/// texts as sources, the answer rendered.
fn checked_texts(flags: &Flags, files: &[(&str, &str)]) -> Result<Outcome, String> {
    let build_name = flags.build.as_deref().map(|b| b.display().to_string());
    let build_text = build_name
        .as_deref()
        .and_then(|b| files.iter().find(|(n, _)| *n == b).map(|(_, t)| *t));
    let kept: Vec<(&str, &str)>;
    let files = if build_text.is_some() {
        kept = files
            .iter()
            .filter(|(n, _)| Some(*n) != build_name.as_deref())
            .copied()
            .collect();
        &kept[..]
    } else {
        files
    };
    let paths: Vec<PathBuf> = files.iter().map(|(n, _)| PathBuf::from(n)).collect();
    let kinds = file_kinds(&paths, flags.format.as_deref())?;
    let mut options = read_options(flags)?;
    let Some((first, _)) = files.first() else {
        return Err("no file given".to_owned());
    };
    if let Some(path) = flags.accept.first() {
        return Err(format!(
            "--accept {}: cannot read: no file system here; give each finding with --accept-finding",
            super::super::shown(&path.display().to_string())
        ));
    }
    options.accepted = super::accepted_findings(flags)?;
    let set = set_flags(&flags.set)?;
    let sources = || Sources {
        files: files
            .iter()
            .zip(&kinds)
            .map(|((name, text), format)| Text::new(name, *format, text))
            .collect(),
        beside: Box::new(|_| ProfileFiles::default()),
        environment: Default::default(),
        set: set.clone(),
        build: flags.build.as_deref().map(|b: &Path| {
            (
                b.display().to_string(),
                build_text.map_or_else(
                    || {
                        Err(
                            "cannot read: no file system here, and no file of that name given"
                                .to_owned(),
                        )
                    },
                    |t| Ok((t.as_bytes().to_vec(), None)),
                ),
            )
        }),
    };
    // Open active profiles are answered for the profiles the profile
    // files beside the files name; texts held in memory have none beside,
    // so the answer is for the profiles the files give (a placeholder's
    // default), with the command's warning naming them (docs/JUDGE.md).
    let answered = match answer(sources(), &options) {
        Ok(a) if !a.open_profiles.is_empty() => {
            super::open_profiles::worst_profile(a, &options, &[], |o| answer(sources(), o))
        }
        other => other,
    };
    Ok(outcome(first, flags, answered))
}

/// `check`'s answer for a setup known as facts rather than read from
/// files (a running application knows its bound limits, its processor
/// bean, its memory advisor): the fields of `check --json` that do not
/// speak of files (`setup`, `sets`, `asked`, `legend`, `fix_it_today`,
/// `spring_ai`), for the set `fixes` names (as `--fixes` names it: one
/// of the report's sets, or fixes of the library, comma-separated) and
/// the findings accepted.
///
/// ```
/// use toolcall_check::config::Setup;
/// use toolcall_check::judge_setup;
/// let v = judge_setup(&Setup::default(), "upstream", &[]).unwrap();
/// assert_eq!(v["asked"]["set"], "upstream");
/// assert_eq!(v["sets"].as_array().unwrap().len(), toolcall_model::model::behavior_sets().len());
/// assert!(judge_setup(&Setup::default(), "nonsense", &[]).is_err());
/// ```
pub fn judge_setup(setup: &Setup, fixes: &str, accepted: &[Accepted]) -> Result<Value, String> {
    judge_setup_with_library(setup, fixes, None, accepted)
}

/// [`judge_setup`] for a setup where the fix library is present with the
/// fixes `installed` names (as `--fixes` names them) in effect: the
/// remedy (`fix_it_today`) counts the fewest switches over those, as
/// `check` does for a file whose `toolcall.fixes.*` switches it reads.
/// `None` is [`judge_setup`]'s answer, counted over none installed.
///
/// ```
/// use toolcall_check::config::Setup;
/// use toolcall_check::{judge_setup, judge_setup_with_library};
/// let s = Setup::default();
/// assert_eq!(judge_setup_with_library(&s, "upstream", None, &[]), judge_setup(&s, "upstream", &[]));
/// let all = judge_setup_with_library(&s, "all", Some("all"), &[]).unwrap();
/// assert_eq!(all["asked"]["set"], "all");
/// assert!(judge_setup_with_library(&s, "upstream", Some("nonsense"), &[]).is_err());
/// ```
pub fn judge_setup_with_library(
    setup: &Setup,
    fixes: &str,
    installed: Option<&str>,
    accepted: &[Accepted],
) -> Result<Value, String> {
    // A set asked for that is not a named one (the fixes a running
    // application has in effect) gets a report of its own, as in `check`.
    let j = judged(setup, fixes, installed, accepted, |s, asked| {
        crate::config::evaluate_sets(s, asked)
    })?;
    let (setup, reports) = (&j.setup, &j.reports);
    Ok(json!({
        "setup": describe_setup(setup),
        "sets": super::json::sets_json(reports),
        "asked": super::json::asked_json(j.mine(), &j.gate, false, j.code),
        "legend": super::json::legend_json(reports),
        // The fewest switches are counted over those the library has in
        // effect (none when it is absent), the accepted findings left.
        "fix_it_today": Remedy::find(setup, reports, j.base, accepted).to_value(),
        "spring_ai": setup.version.name(),
    }))
}

/// The opening both answers share: the setup on its version, the fixes
/// installed, the reports `reports_of` gives for the set asked about
/// (among them that set's), the gate and the exit code.
struct Judged {
    /// The setup as its version runs it.
    setup: Setup,
    /// The fixes the library has in effect.
    base: Fixes,
    /// The reports given, the asked set's at `mine`.
    reports: Vec<SetReport>,
    mine: usize,
    gate: Gate,
    code: u8,
}

impl Judged {
    /// The asked set's report.
    fn mine(&self) -> &SetReport {
        &self.reports[self.mine]
    }
}

/// [`Judged`] for the facts, or the error of the fixes named.
fn judged(
    setup: &Setup,
    fixes: &str,
    installed: Option<&str>,
    accepted: &[Accepted],
    reports_of: impl FnOnce(&Setup, BehaviorSet) -> Vec<SetReport>,
) -> Result<Judged, String> {
    let base = installed_fixes(installed)?;
    // The facts as the version runs them (no limits where it has none).
    let setup = crate::config::on_its_version(setup);
    let asked = super::asked_set(fixes)?;
    let reports = reports_of(&setup, asked);
    let Some(mine) = reports.iter().position(|r| r.set == asked) else {
        let names: Vec<&str> = reports.iter().map(|r| r.set.name).collect();
        return Err(format!(
            "--fixes {fixes}: not one of the report's sets ({})",
            names.join(", ")
        ));
    };
    let gate = Gate::judge(&reports[mine], accepted);
    let code = if gate.passes() { 0 } else { super::UNSAFE };
    Ok(Judged {
        setup,
        base,
        reports,
        mine,
        gate,
        code,
    })
}

/// [`judge_setup_with_library`]'s answer narrowed to what a running
/// application asks of a request path: `setup`, `asked` and `spring_ai`
/// as there, and `fix_it_today` only where the set asked about breaks in
/// some scenario (accepted or not), else `null`. No `sets` and no
/// `legend`: no other behaviour set is played (upstream only for the
/// remedy), so the answer costs the asked set's scenarios, and the
/// remedy's search only where one is due. Each part present equals the
/// whole answer's.
///
/// ```
/// use toolcall_check::config::Setup;
/// use toolcall_check::{judge_setup, judge_setup_asked};
/// let s = Setup::default();
/// let whole = judge_setup(&s, "upstream", &[]).unwrap();
/// let asked = judge_setup_asked(&s, "upstream", None, &[]).unwrap();
/// assert_eq!(asked["asked"], whole["asked"]);
/// assert_eq!(asked["fix_it_today"], whole["fix_it_today"]);
/// assert!(asked.get("sets").is_none());
/// let safe = judge_setup_asked(&s, "all", Some("all"), &[]).unwrap();
/// assert_eq!(safe["asked"]["exit"], 0);
/// assert!(safe["fix_it_today"].is_null());
/// ```
pub fn judge_setup_asked(
    setup: &Setup,
    fixes: &str,
    installed: Option<&str>,
    accepted: &[Accepted],
) -> Result<Value, String> {
    // The asked set's verdicts alone: its own smallest change is no part
    // of this answer.
    let j = judged(setup, fixes, installed, accepted, |s, asked| {
        vec![crate::config::verdicts_under(s, asked)]
    })?;
    let (setup, mine) = (&j.setup, j.mine());
    // The remedy names upstream's smallest change, the one search besides
    // the fewest fixes that it makes.
    let remedy = (!mine.safe()).then(|| {
        let change = crate::config::upstream_change(setup);
        Remedy::with_change(setup, change, j.base, accepted).to_value()
    });
    Ok(json!({
        "setup": describe_setup(setup),
        "asked": super::json::asked_json(mine, &j.gate, false, j.code),
        "fix_it_today": remedy,
        "spring_ai": setup.version.name(),
    }))
}

/// The fixes the fix library has in effect, as `fix_library` names them;
/// none installed when it is absent.
fn installed_fixes(installed: Option<&str>) -> Result<Fixes, String> {
    match installed {
        None => Ok(Fixes::upstream()),
        Some(list) => Ok(BehaviorSet::parse_names(list)
            .map_err(|e| format!("fix_library: {e}"))?
            .0),
    }
}
