//! The `toolcall-model` command: a thin driver around the library that
//! reads files and standard input and prints results.
#![forbid(unsafe_code)]

use std::process::ExitCode;

/// Writes to standard output; a closed pipe (`| head`) ends the program
/// quietly instead of panicking as `println!` would.
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        if write!(std::io::stdout().lock(), $($t)*).is_err() {
            std::process::exit(1);
        }
    }};
}

/// [`out!`] with a newline.
macro_rules! outln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        if writeln!(std::io::stdout().lock(), $($t)*).is_err() {
            std::process::exit(1);
        }
    }};
}

mod cli;

use cli::args::{takes_json, Cli, Cmd};
use cli::{
    check,
    convert::convert,
    explore,
    main_job::main_job,
    vectors::{conform, files, gen, run, verify},
};

fn main() -> ExitCode {
    let matches = <Cli as clap::CommandFactory>::command().get_matches();
    let cli = match <Cli as clap::FromArgMatches>::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    if let Some(cmd) = &cli.command {
        if cli.json && !takes_json(cmd) {
            eprintln!(
                "error: --json before `{}` is not supported: it applies to the main job (no subcommand), `explore` and `verify`",
                matches.subcommand_name().unwrap_or("this subcommand")
            );
            return ExitCode::from(2);
        }
    }
    match cli.command {
        None => main_job(cli.json),
        Some(Cmd::Verify { paths, json }) => verify(&paths, json || cli.json),
        Some(Cmd::Run { file }) => run(&file),
        Some(Cmd::Explore {
            cases,
            exhaustive,
            bound,
            seed,
            json,
            jobs,
        }) => {
            if exhaustive {
                explore::exhaustive(&bound, json || cli.json, jobs)
            } else {
                explore::command(cases, seed, json || cli.json, jobs)
            }
        }
        Some(Cmd::Check {
            file,
            format,
            processor,
            rethrow,
            memory,
            memory_window,
            history,
            provider,
            json,
        }) => check::command(
            &file,
            &check::Flags {
                processor,
                rethrow,
                memory,
                memory_window,
                history,
                provider,
                json,
                format,
            },
        ),
        Some(Cmd::Convert {
            fixes,
            error,
            jsonl,
        }) => convert(&fixes, error, jsonl),
        Some(Cmd::Conform {
            java_results,
            verbose,
        }) => conform(&java_results, verbose),
        Some(Cmd::Files { paths }) => files(&paths),
        Some(Cmd::Gen {
            count,
            seed,
            out,
            ops,
            force,
        }) => gen(count, seed, &out, &ops, force),
    }
}
