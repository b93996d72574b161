//! The `toolcall-model` command: a thin driver around the library that
//! reads files and standard input and prints results.
#![forbid(unsafe_code)]

use std::process::ExitCode;

/// Writes to standard output; output that cannot be written (a full
/// disk, a closed pipe) ends the program with exit 2 and a message
/// ([`cli::output_lost`]) instead of panicking as `println!` would.
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

mod cli;

use cli::args::{Cli, Cmd, takes_json};
use cli::{
    check,
    convert::convert,
    explore,
    main_job::main_job,
    vectors::{self, conform, files, generate, run, verify},
};

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

fn main() -> ExitCode {
    if stdout_was_closed() {
        errln!("error: standard output is closed: nothing could be printed");
        return ExitCode::from(2);
    }
    let matches = <Cli as clap::CommandFactory>::command().get_matches();
    let cli = match <Cli as clap::FromArgMatches>::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    if let Some(cmd) = &cli.command
        && cli.json
        && !takes_json(cmd)
    {
        errln!(
            "error: --json before `{}` is not supported: it applies to the main job (no subcommand), `explore` and `verify`",
            matches.subcommand_name().unwrap_or("this subcommand")
        );
        return ExitCode::from(2);
    }
    let code = dispatch(cli);
    // What is still buffered (a last line without its newline) is written
    // here: an error now is lost output like any other.
    if let Err(e) = std::io::Write::flush(&mut std::io::stdout().lock()) {
        cli::output_lost(&e);
    }
    code
}

fn dispatch(cli: Cli) -> ExitCode {
    match cli.command {
        None => main_job(cli.json),
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
        }) => {
            if exhaustive {
                explore::exhaustive(&bound, shard, json || cli.json, jobs, out.as_deref())
            } else {
                explore::command(
                    cases,
                    seed,
                    json || cli.json,
                    jobs,
                    out.as_deref(),
                    fixes.as_deref(),
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
