//! The `toolcall-model` command: [`main`], its arguments, one module per
//! group of subcommands, and the YAML reader of `check`.

/// Writes to standard output; output that cannot be written (a full
/// disk, a closed pipe) ends the program with exit 2 and a message
/// ([`output_lost`]) instead of panicking as `println!` would.
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = write!(std::io::stdout().lock(), $($t)*) {
            crate::cli::output_lost(&e);
        }
    }};
}

/// [`out!`] with a newline.
macro_rules! outln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout().lock(), $($t)*) {
            crate::cli::output_lost(&e);
        }
    }};
}

/// Writes a line to standard error. Where it cannot be written (`2>&-`
/// into a closed pipe, a full disk) the message is lost, but the program
/// goes on to its exit code instead of panicking as `eprintln!` would.
macro_rules! errln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr().lock(), $($t)*);
    }};
}

pub(crate) mod args;
pub(crate) mod check;
pub(crate) mod convert;
pub(crate) mod explore;
pub(crate) mod main_job;
pub(crate) mod out_file;
pub(crate) mod sarif;
pub(crate) mod vector_budget;
pub(crate) mod vectors;

use std::process::ExitCode;

use args::{Cli, Cmd, takes_json};
use convert::convert;
use main_job::main_job;
use vectors::{conform, files, generate, run, verify};

/// Whether the program started with standard output closed (`>&-`). Rust's
/// runtime then opens `/dev/null` read-write in its place, so every write
/// succeeds and a run would exit 0 with its output lost; a shell's
/// `>/dev/null` opens it write-only, which is the user's choice.
fn stdout_was_closed() -> bool {
    #[cfg(target_os = "linux")]
    {
        let null = std::fs::read_link("/proc/self/fd/1")
            .is_ok_and(|p| p == std::path::Path::new("/dev/null"));
        let read_write = std::fs::read_to_string("/proc/self/fdinfo/1").is_ok_and(|info| {
            info.lines()
                .find_map(|l| l.strip_prefix("flags:"))
                .and_then(|f| u32::from_str_radix(f.trim(), 8).ok())
                .is_some_and(|flags| flags & 0o3 == 0o2)
        });
        null && read_write
    }
    #[cfg(not(target_os = "linux"))]
    false
}

/// The `toolcall-model` command: its arguments from the process, its
/// output to standard output and error, its exit code returned.
pub fn main() -> ExitCode {
    if stdout_was_closed() {
        errln!("error: standard output is closed: nothing could be printed");
        return ExitCode::from(2);
    }
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let parsed = <Cli as clap::CommandFactory>::command()
        .try_get_matches_from(&args)
        .and_then(|m| <Cli as clap::FromArgMatches>::from_arg_matches(&m).map(|c| (m, c)));
    let (matches, cli) = match parsed {
        Ok(p) => p,
        Err(e) => return usage_error(&e, asks_json(&args)),
    };
    if let Some(cmd) = &cli.command
        && cli.json
        && !takes_json(cmd)
    {
        let msg = format!(
            "--json before `{}` is not supported: it applies to the main job (no subcommand), `explore` and `verify`",
            matches.subcommand_name().unwrap_or("this subcommand")
        );
        json_error(&msg);
        errln!("error: {msg}");
        return ExitCode::from(2);
    }
    if let Some(cmd) = &cli.command
        && cli.spring_ai.is_some()
        && !matches!(cmd, Cmd::Explore { .. })
    {
        let msg = format!(
            "--spring-ai before `{}` is not supported: it applies to the main job (no subcommand) and `explore`",
            matches.subcommand_name().unwrap_or("this subcommand")
        );
        if cli.json {
            json_error(&msg);
        }
        errln!("error: {msg}");
        return ExitCode::from(2);
    }
    let code = dispatch(cli);
    // What is still buffered (a last line without its newline) is written
    // here: an error now is lost output like any other.
    if let Err(e) = std::io::Write::flush(&mut std::io::stdout().lock()) {
        output_lost(&e);
    }
    code
}

/// Whether the command line asks for JSON: `--json` anywhere before a
/// `--` (after it, words are values). A line clap refuses has no parsed
/// flags to ask, and a script that asked for JSON must still get JSON.
fn asks_json(args: &[std::ffi::OsString]) -> bool {
    args.iter()
        .skip(1)
        .take_while(|a| a.as_os_str() != "--")
        .any(|a| a.as_os_str() == "--json")
}

/// `{"error": MESSAGE}` on standard output, as `check --json` answers a
/// usage error: a reader of `--json` output finds the error where it
/// reads.
fn json_error(msg: &str) {
    let v = serde_json::json!({ "error": msg });
    outln!(
        "{}",
        serde_json::to_string_pretty(&v).unwrap_or_else(|_| v.to_string())
    );
}

/// A command line clap refuses: help and version as clap prints them
/// (exit 0); any other error clap's text on standard error and exit 2,
/// with its message as [`json_error`] too when the line asks for JSON.
fn usage_error(e: &clap::Error, json: bool) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) || !json {
        e.exit()
    }
    let text = e.render().to_string();
    // Clap's first line is `error: MESSAGE`; the rest (usage, tips) is
    // for a human reading standard error.
    let first = text.lines().next().unwrap_or_default();
    json_error(first.strip_prefix("error: ").unwrap_or(first));
    errln!("{}", text.trim_end());
    ExitCode::from(2)
}

fn dispatch(cli: Cli) -> ExitCode {
    match cli.command {
        None => main_job(cli.json, cli.spring_ai.as_ref()),
        Some(Cmd::Verify { paths, json }) => verify(&paths, json || cli.json),
        Some(Cmd::Run { file, fixes: None }) => run(&file),
        Some(Cmd::Run {
            file,
            fixes: Some(list),
        }) => vectors::run_with_fixes(&file, &list),
        Some(Cmd::Explore {
            cases,
            exhaustive,
            bound,
            shard,
            seed,
            json,
            jobs,
            fixes,
            out,
            spring_ai,
        }) => {
            let version = spring_ai.or(cli.spring_ai);
            if let Some(note) = version.as_ref().and_then(args::SpringAiArg::note) {
                errln!("{note}");
            }
            let version = version.map(|v| v.version).unwrap_or_default();
            if exhaustive {
                explore::exhaustive(
                    &bound,
                    shard,
                    json || cli.json,
                    jobs,
                    out.as_deref(),
                    version,
                )
            } else {
                explore::command(
                    cases,
                    seed,
                    json || cli.json,
                    jobs,
                    out.as_deref(),
                    fixes.as_deref(),
                    version,
                )
            }
        }
        Some(Cmd::Merge { files, json, out }) => {
            explore::merge(&files, json || cli.json, out.as_deref())
        }
        Some(Cmd::Check { files, flags }) => check::command(&files, &flags),
        Some(Cmd::Convert {
            fixes,
            error,
            jsonl,
            advised,
        }) => convert(&fixes, error, jsonl, advised),
        Some(Cmd::Conform {
            java_results,
            files,
            verbose,
        }) => conform(&java_results, files.as_deref(), verbose),
        Some(Cmd::Files { paths }) => files(&paths),
        Some(Cmd::Gen {
            count,
            seed,
            out,
            ops,
            shard,
            expect,
            runner,
            force,
        }) => generate(count, seed, &out, &ops, shard, &expect, &runner, force),
    }
}

/// Ends the program when standard output cannot be written (a full disk,
/// a pipe whose reader has gone): exit 2, no verdict, with the reason on
/// standard error. An answer that did not reach its reader is not the
/// answer, whatever it was.
pub(crate) fn output_lost(e: &std::io::Error) -> ! {
    errln!("error: cannot write to standard output: {e}");
    std::process::exit(2);
}

/// `reader` to its end, but never more than `max + 1` bytes: a result
/// longer than `max` says the input is past its limit without reading it
/// whole (a device such as `/dev/zero` never ends). Every command that reads
/// a whole input reads it through this.
pub(crate) fn read_at_most(reader: impl std::io::Read, max: usize) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut reader.take(max as u64 + 1), &mut bytes)?;
    Ok(bytes)
}

/// `s` with its control characters shown as escapes (`\n`, `\u{1b}`), for
/// human output where a name or a path from a file stands in a line: a
/// newline in a vector's name could otherwise print a line of its own
/// (`3 passed, 0 failed`), an escape sequence could drive the terminal.
pub(crate) fn shown(s: &str) -> std::borrow::Cow<'_, str> {
    shown_but(s, None)
}

/// [`shown`] of a text of several lines: its newlines kept.
pub(crate) fn shown_lines(s: &str) -> std::borrow::Cow<'_, str> {
    shown_but(s, Some('\n'))
}

fn shown_but(s: &str, keep: Option<char>) -> std::borrow::Cow<'_, str> {
    let escaped = |c: char| c.is_control() && Some(c) != keep;
    if !s.chars().any(escaped) {
        return std::borrow::Cow::Borrowed(s);
    }
    std::borrow::Cow::Owned(
        s.chars()
            .map(|c| match c {
                c if !escaped(c) => c.to_string(),
                '\n' => "\\n".to_owned(),
                '\r' => "\\r".to_owned(),
                '\t' => "\\t".to_owned(),
                c => c.escape_unicode().to_string(),
            })
            .collect(),
    )
}
