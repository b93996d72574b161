//! The `toolcall-model` command: a thin driver around the library that
//! reads files and standard input and prints results.
#![forbid(unsafe_code)]

use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use toolcall_model::gemini::write_tool_response;
use toolcall_model::model::behavior::Fixes;
use toolcall_model::vectors::Vector;

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

#[path = "cli/check.rs"]
mod check;
#[path = "cli/yaml.rs"]
mod yaml;

#[derive(Parser)]
#[command(
    name = "toolcall-model",
    version,
    about = "Reference model of Spring AI 2.0.1 tool calling and its Gemini conversion"
)]
struct Cli {
    /// Print JSON: the main job's rows, or (before `explore` or `verify`)
    /// what that subcommand's own `--json` prints; refused before others.
    #[arg(long)]
    json: bool,
    #[command(subcommand)]
    command: Option<Cmd>,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run every vector in the given files and folders (folders recursively, *.json).
    Verify {
        /// Files or folders.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// One JSON object per vector (`file`, `name`, `result`: passed,
        /// failed or invalid, `differences`, `reason`); the count line goes
        /// to standard error.
        #[arg(long)]
        json: bool,
    },
    /// Print what a vector's op produces, in the `expect` shape.
    Run {
        /// The vector file.
        file: PathBuf,
    },
    /// Run every invariant under every behaviour set and print the verdict
    /// matrix: on random turns (`--cases`), or on every turn of a bound
    /// (`--exhaustive`).
    Explore {
        /// Generated turns per cell (at least 1; a cell says `holds` only with
        /// 100 applicable cases).
        #[arg(long, default_value_t = 1000, value_parser = positive_cases, conflicts_with = "exhaustive")]
        cases: u32,
        /// Every scenario of a bound instead of random ones: each cell is
        /// proved within the bound or refuted by its smallest counterexample.
        #[arg(long)]
        exhaustive: bool,
        /// The bound of `--exhaustive`: tiny, default (about a minute on 2
        /// idle cores) or wide (the manager-level ranges as one product and
        /// wider loops: 17 times the default).
        #[arg(long, default_value = "default", requires = "exhaustive", value_parser = clap::builder::PossibleValuesParser::new(toolcall_model::checking::exhaustive::BOUND_NAMES))]
        bound: String,
        /// The seed of every cell's random generator (a seed reproduces the matrix).
        #[arg(long, default_value_t = 0, conflicts_with = "exhaustive")]
        seed: u64,
        /// Print one JSON object instead of the table.
        #[arg(long)]
        json: bool,
        /// Worker threads (default: the machine's parallelism).
        #[arg(long)]
        jobs: Option<usize>,
    },
    /// Judge the Java conformance runner's output (one JSON line per vector)
    /// against the model: one line per disagreement, then `N passed, M failed`.
    Conform {
        /// The runner's output (`-` for standard input).
        java_results: PathBuf,
        /// Also print one line per out-of-scope vector.
        #[arg(long)]
        verbose: bool,
    },
    /// Write generated upstream vectors of every op (for the Java differential).
    Gen {
        /// How many vectors.
        #[arg(long, default_value_t = 1000)]
        count: usize,
        /// The generator's seed (a seed reproduces the set).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// The folder to write them to (created if absent).
        #[arg(long)]
        out: PathBuf,
        /// Ops, comma-separated (default: all four).
        #[arg(
            long,
            default_value = "execute_tool_calls,gemini_request,convert_tool_response,tool_loop"
        )]
        ops: String,
    },
    /// List the vector files under the given files and folders, one per line.
    Files {
        /// Files or folders.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Check a Spring setup: read `application.properties` or
    /// `application.yml` (`spring.ai.tools.*`) as Spring Boot binds it, then
    /// print per behaviour set which scenarios it survives and the smallest
    /// change that makes it safe.
    Check {
        /// The `application.properties` or `application.yml` file.
        file: PathBuf,
        /// `properties` or `yaml` (default: by the file's extension).
        #[arg(long)]
        format: Option<String>,
        /// The exception processor: `default` (Spring's, auto-configured) or
        /// `json-error` (a bean of yours that writes `{"error":MESSAGE}`).
        #[arg(long, default_value = "default")]
        processor: String,
        /// Exception classes your processor rethrows, comma-separated, or `none`.
        #[arg(long, default_value = "none")]
        rethrow: String,
        /// Where `MessageChatMemoryAdvisor` stands: `none`, `outside` (its
        /// default order) or `inside` (ordered after `ToolCallingAdvisor`).
        #[arg(long, default_value = "none")]
        memory: String,
        /// `MessageWindowChatMemory`'s `maxMessages`.
        #[arg(long, default_value_t = 20)]
        memory_window: u32,
        /// The tool advisor's conversation history: `auto` (what `ChatClient`
        /// registers: off with the memory inside), `on` or `off`.
        #[arg(long, default_value = "auto")]
        history: String,
        /// The chat model: `gemini` or `none` (a provider that takes messages as they are).
        #[arg(long, default_value = "gemini")]
        provider: String,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Convert tool output from standard input to `functionResponse.response`.
    Convert {
        /// Fixes: comma-separated names or `all`.
        #[arg(long, default_value = "")]
        fixes: String,
        /// The output came from a failure (read by the error-key fix).
        #[arg(long)]
        error: bool,
        /// One JSON string literal per input line; one result object per output line.
        #[arg(long)]
        jsonl: bool,
    },
}

/// `--cases`: a positive count.
fn positive_cases(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(0) => Err("0 cases would check nothing; give at least 1 (a cell says holds only with 100 applicable cases)".to_owned()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// Whether `--json` before the subcommand means something to it.
fn takes_json(cmd: &Cmd) -> bool {
    matches!(cmd, Cmd::Verify { .. } | Cmd::Explore { .. })
}

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
        }) => gen(count, seed, &out, &ops),
    }
}

fn gen(count: usize, seed: u64, out: &Path, ops: &str) -> ExitCode {
    use toolcall_model::checking::gen::{vectors, VectorOp};
    let mut chosen = Vec::new();
    for name in ops.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match VectorOp::ALL.iter().find(|o| o.name() == name) {
            Some(o) => chosen.push(*o),
            None => {
                eprintln!("error: unknown op '{name}' (known: execute_tool_calls, gemini_request, convert_tool_response, tool_loop)");
                return ExitCode::FAILURE;
            }
        }
    }
    if chosen.is_empty() {
        eprintln!("error: --ops names no op");
        return ExitCode::FAILURE;
    }
    if let Err(e) = std::fs::create_dir_all(out) {
        eprintln!("error: {}: {e}", out.display());
        return ExitCode::FAILURE;
    }
    let all = vectors(seed, count, &chosen);
    for v in &all {
        let name = v["name"].as_str().unwrap_or("generated");
        let path = out.join(format!("{name}.json"));
        let text = serde_json::to_string_pretty(v).unwrap_or_default();
        if let Err(e) = std::fs::write(&path, text) {
            eprintln!("error: {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    outln!("wrote {} vectors to {}", all.len(), out.display());
    ExitCode::SUCCESS
}

fn files(paths: &[PathBuf]) -> ExitCode {
    let mut found = Vec::new();
    let mut ok = true;
    for p in paths {
        if let Err(e) = collect(p, &mut found) {
            eprintln!("{}: cannot read: {e}", p.display());
            ok = false;
        }
    }
    for f in &found {
        outln!("{}", f.display());
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn conform(java_results: &Path, verbose: bool) -> ExitCode {
    use toolcall_model::vectors::conformance::{judge, JavaLine, Tally, Verdict};
    let text = if java_results.as_os_str() == "-" {
        let mut s = String::new();
        if let Err(e) = std::io::stdin().read_to_string(&mut s) {
            eprintln!("error: cannot read standard input: {e}");
            return ExitCode::FAILURE;
        }
        s
    } else {
        match std::fs::read_to_string(java_results) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("error: {}: {e}", java_results.display());
                return ExitCode::FAILURE;
            }
        }
    };
    let mut tally = Tally::default();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let verdict = match JavaLine::parse(line) {
            Err(e) => {
                let d = format!("runner output line {}: {e}", i + 1);
                outln!("FAIL {d}");
                Verdict::Disagree(vec![d])
            }
            Ok(java) => {
                let v = match std::fs::read(java.path()) {
                    Err(e) => Verdict::Disagree(vec![format!("cannot read: {e}")]),
                    Ok(bytes) => judge(&bytes, &java),
                };
                match &v {
                    Verdict::Disagree(d) => outln!("FAIL {}: {}", java.path(), d.join("; ")),
                    Verdict::OutOfScope(r) if verbose => {
                        outln!("OUT OF SCOPE {}: {r}", java.path())
                    }
                    _ => {}
                }
                v
            }
        };
        tally.add(&verdict);
    }
    outln!("{}", tally.summary());
    if tally.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

mod explore {
    //! The `explore` driver: runs the library's matrix cells on worker
    //! threads, times them, and draws progress on standard error.

    use std::collections::BTreeMap;
    use std::io::{IsTerminal, Write};
    use std::process::ExitCode;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    use std::time::{Duration, Instant};

    use toolcall_model::checking::explore::{
        self as ex, CellOutcome, CellResult, Options, Progress,
    };

    struct Display {
        tty: bool,
        cases: u32,
        total: usize,
        done: usize,
        running: BTreeMap<usize, (String, Progress)>,
        last: Instant,
    }

    impl Display {
        fn draw(&mut self, force: bool) {
            if !self.tty || (!force && self.last.elapsed() < Duration::from_millis(120)) {
                return;
            }
            self.last = Instant::now();
            let mut line = format!("explore: {}/{} cells", self.done, self.total);
            for (label, p) in self.running.values() {
                match p {
                    Progress::Cases(n) => line.push_str(&format!(" | {label} {n}/{}", self.cases)),
                    Progress::Shrinking(n) => line.push_str(&format!(" | {label} shrinking {n}")),
                }
            }
            let line: String = line.chars().take(160).collect();
            let mut e = std::io::stderr().lock();
            let _ = write!(e, "\r\x1b[K{line}");
            let _ = e.flush();
        }
    }

    pub fn command(cases: u32, seed: u64, json: bool, jobs: Option<usize>) -> ExitCode {
        let opts = Options {
            cases,
            seed,
            ..Options::default()
        };
        let cells = ex::cells();
        let jobs = jobs
            .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
            .unwrap_or(1)
            .clamp(1, cells.len());
        let display = Mutex::new(Display {
            tty: std::io::stderr().is_terminal(),
            cases,
            total: cells.len(),
            done: 0,
            running: BTreeMap::new(),
            last: Instant::now(),
        });
        let next = AtomicUsize::new(0);
        let results: Mutex<Vec<Option<(CellResult, Duration)>>> =
            Mutex::new(vec![None; cells.len()]);
        let started = Instant::now();
        std::thread::scope(|scope| {
            for _ in 0..jobs {
                std::thread::Builder::new()
                    .stack_size(64 << 20)
                    .spawn_scoped(scope, || loop {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        let Some(cell) = cells.get(i) else { break };
                        let label = format!("{}×{}", cell.set.name, cell.invariant);
                        let t0 = Instant::now();
                        let r = ex::run_cell(cell, &opts, &|p| {
                            if let Ok(mut d) = display.lock() {
                                d.running.insert(i, (label.clone(), p));
                                d.draw(false);
                            }
                        });
                        let took = t0.elapsed();
                        if let Ok(mut d) = display.lock() {
                            d.running.remove(&i);
                            d.done += 1;
                            if d.tty {
                                d.draw(true);
                            } else {
                                eprintln!(
                                    "explore: [{}/{}] {} × {}: {} ({} cases, {:.1} s)",
                                    d.done,
                                    d.total,
                                    r.set,
                                    r.invariant,
                                    r.verdict(),
                                    r.cases_run,
                                    took.as_secs_f64()
                                );
                            }
                        }
                        if let Ok(mut res) = results.lock() {
                            res[i] = Some((r, took));
                        }
                    })
                    .expect("a worker thread");
            }
        });
        if display.lock().is_ok_and(|d| d.tty) {
            eprintln!();
        }
        let timed: Vec<(CellResult, Duration)> = results
            .into_inner()
            .unwrap_or_default()
            .into_iter()
            .flatten()
            .collect();
        speed_report(&timed, started.elapsed(), jobs);
        let results: Vec<CellResult> = timed.into_iter().map(|(r, _)| r).collect();
        if json {
            outln!(
                "{}",
                serde_json::to_string_pretty(&ex::to_json(&opts, &results)).unwrap_or_default()
            );
        } else {
            out!("{}", ex::to_text(&opts, &results));
        }
        if results
            .iter()
            .any(|r| matches!(r.outcome, CellOutcome::Aborted(_)))
        {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        }
    }

    /// `explore --exhaustive`: every scenario of the bound, on `jobs`
    /// threads, with progress and speed on standard error.
    pub fn exhaustive(bound: &str, json: bool, jobs: Option<usize>) -> ExitCode {
        use toolcall_model::checking::exhaustive::{run, Bound, Space};
        let Some(bound) = Bound::named(bound) else {
            eprintln!("error: unknown bound '{bound}'");
            return ExitCode::from(2);
        };
        let jobs = jobs
            .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
            .unwrap_or(1)
            .max(1);
        let space = Space::new(&bound);
        let tty = std::io::stderr().is_terminal();
        eprintln!(
            "explore --exhaustive: bound {}, {} scenarios ({} to run after symmetry) under {} behaviour sets, on {jobs} thread(s)",
            bound.name,
            space.scenarios(),
            space.evaluated(),
            toolcall_model::model::behavior::behavior_sets().len()
        );
        let started = Instant::now();
        let last = Mutex::new((Instant::now(), 0u64));
        let report = run(&space, jobs, &|done, total| {
            let Ok(mut l) = last.lock() else { return };
            let tenth = total / 10;
            let due = if tty {
                l.0.elapsed() >= Duration::from_millis(200)
            } else {
                tenth > 0 && done / tenth > l.1 / tenth.max(1)
            };
            if !due && done < total {
                return;
            }
            *l = (Instant::now(), done);
            let secs = started.elapsed().as_secs_f64();
            let line = format!(
                "explore --exhaustive: {done}/{total} scenarios ({:.0}%), {secs:.0} s",
                done as f64 * 100.0 / total.max(1) as f64
            );
            let mut e = std::io::stderr().lock();
            if tty {
                let _ = write!(e, "\r\x1b[K{line}");
            } else {
                let _ = writeln!(e, "{line}");
            }
            let _ = e.flush();
        });
        if tty {
            eprintln!();
        }
        let wall = started.elapsed().as_secs_f64();
        eprintln!(
            "explore --exhaustive: {} scenarios ({} run) in {wall:.1} s on {jobs} thread(s): {:.0} scenarios/s ({:.0} run/s), each under {} behaviour sets",
            report.scenarios,
            report.evaluated,
            report.scenarios as f64 / wall.max(1e-9),
            report.evaluated as f64 / wall.max(1e-9),
            toolcall_model::model::behavior::behavior_sets().len()
        );
        if json {
            outln!(
                "{}",
                serde_json::to_string_pretty(&report.to_json()).unwrap_or_default()
            );
        } else {
            out!("{}", report.to_text());
        }
        ExitCode::SUCCESS
    }

    /// Cases per second per invariant, over the cells that held (a refuted
    /// cell stops early and spends its time shrinking).
    fn speed_report(timed: &[(CellResult, Duration)], wall: Duration, jobs: usize) {
        let mut per: BTreeMap<String, (u64, f64)> = BTreeMap::new();
        for (r, d) in timed {
            if matches!(r.outcome, CellOutcome::Holds) {
                let e = per.entry(r.invariant.name().to_owned()).or_insert((0, 0.0));
                e.0 += u64::from(r.cases_run);
                e.1 += d.as_secs_f64();
            }
        }
        let mut rates: Vec<(String, f64)> = per
            .into_iter()
            .filter(|(_, (_, t))| *t > 0.0)
            .map(|(k, (n, t))| (k, n as f64 / t))
            .collect();
        rates.sort_by(|a, b| a.1.total_cmp(&b.1));
        let list: Vec<String> = rates.iter().map(|(k, v)| format!("{k} {v:.0}")).collect();
        eprintln!(
            "explore: {:.1} s on {jobs} thread(s); cases/s per thread (cells that held): {}",
            wall.as_secs_f64(),
            list.join(", ")
        );
    }
}

fn collect(path: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    if path.is_dir() {
        let mut entries: Vec<_> = std::fs::read_dir(path)?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .collect();
        entries.sort();
        for e in entries {
            if e.is_dir() || e.extension().is_some_and(|x| x == "json") {
                collect(&e, out)?;
            }
        }
    } else {
        out.push(path.to_path_buf());
    }
    Ok(())
}

fn load(path: &Path) -> Result<Vector, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    Vector::parse(&bytes).map_err(|e| format!("{}: invalid vector at {}", path.display(), e))
}

/// One vector's result, as `verify` reports it.
enum Judged {
    Passed,
    Failed(Vec<String>),
    Invalid(String),
}

fn verify(paths: &[PathBuf], json: bool) -> ExitCode {
    use toolcall_model::vectors::Verification;
    let mut files = Vec::new();
    let mut results: Vec<(PathBuf, Option<String>, Judged)> = Vec::new();
    for p in paths {
        if let Err(e) = collect(p, &mut files) {
            results.push((
                p.clone(),
                None,
                Judged::Invalid(format!("cannot read: {e}")),
            ));
        }
    }
    if files.is_empty() && results.is_empty() {
        let list: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        eprintln!(
            "error: no vector found in {} (files are taken as given; folders are searched recursively for *.json)",
            list.join(", ")
        );
        return ExitCode::FAILURE;
    }
    let (mut passed, mut failed) = (0usize, 0usize);
    let mut report = |file: &Path, name: Option<&str>, judged: Judged| {
        match &judged {
            Judged::Passed => passed += 1,
            _ => failed += 1,
        }
        if json {
            let (result, differences, reason) = match judged {
                Judged::Passed => ("passed", vec![], None),
                Judged::Failed(d) => ("failed", d, None),
                Judged::Invalid(r) => ("invalid", vec![], Some(r)),
            };
            outln!(
                "{}",
                serde_json::json!({
                    "file": file.display().to_string(),
                    "name": name,
                    "result": result,
                    "differences": differences,
                    "reason": reason,
                })
            );
        } else {
            let label = match name {
                Some(n) => format!("{n} ({})", file.display()),
                None => file.display().to_string(),
            };
            match judged {
                Judged::Passed => {}
                Judged::Failed(d) => outln!("FAIL {label}: {}", d.join("; ")),
                Judged::Invalid(r) => outln!("INVALID {label}: {r}"),
            }
        }
    };
    for (file, name, judged) in results {
        report(&file, name.as_deref(), judged);
    }
    for f in &files {
        match std::fs::read(f) {
            Err(e) => report(f, None, Judged::Invalid(format!("cannot read: {e}"))),
            Ok(bytes) => match Vector::parse(&bytes) {
                Err(e) => report(f, None, Judged::Invalid(format!("invalid vector at {e}"))),
                Ok(v) => {
                    let judged = match v.verify() {
                        Verification::Passed => Judged::Passed,
                        Verification::Failed(d) => Judged::Failed(d),
                        Verification::Invalid(r) => {
                            Judged::Invalid(format!("invalid vector at {r}"))
                        }
                    };
                    report(f, Some(&v.name), judged);
                }
            },
        }
    }
    if json {
        eprintln!("{passed} passed, {failed} failed");
    } else {
        outln!("{passed} passed, {failed} failed");
    }
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn run(file: &Path) -> ExitCode {
    match load(file).and_then(|v| v.run()) {
        Ok(value) => {
            outln!(
                "{}",
                serde_json::to_string_pretty(&value).unwrap_or_default()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// At most this many characters of an input are echoed in a message; the
/// rest is named by its length.
const ECHO_CHARS: usize = 200;

/// `text` with any run of it past [`ECHO_CHARS`] characters cut: the first
/// part, then the full length.
fn clip_echo(text: &str) -> String {
    match text.char_indices().nth(ECHO_CHARS) {
        None => text.to_owned(),
        Some((cut, _)) => format!(
            "{}… [{} characters in all]",
            &text[..cut],
            text.chars().count()
        ),
    }
}

/// `convert`: reads standard input once (no copy for UTF-8 checking) and
/// writes the payload straight from the conversion, without building a
/// JSON tree of it. With `--jsonl`, each line is a JSON string literal and
/// gets one line back: `{"ok": PAYLOAD}`, `{"error": MESSAGE}` (the
/// conversion failed, as Spring's would), or `{"input_error": MESSAGE}`
/// (the line is not a JSON string literal, or not UTF-8; an empty line is
/// such a line: the empty text is `""`). Exit 1 if any line was malformed.
fn convert(fixes: &str, error: bool, jsonl: bool) -> ExitCode {
    let fixes = match Fixes::parse_list(fixes) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    if !jsonl {
        let mut bytes = Vec::new();
        if let Err(e) = stdin.lock().read_to_end(&mut bytes) {
            eprintln!("error: cannot read standard input: {e}");
            return ExitCode::FAILURE;
        }
        let text = match String::from_utf8(bytes) {
            Ok(t) => t,
            Err(e) => {
                eprintln!(
                    "error: standard input is not valid UTF-8 (byte {})",
                    e.utf8_error().valid_up_to()
                );
                return ExitCode::FAILURE;
            }
        };
        return match write_tool_response(&text, error, fixes, &mut out) {
            Ok(Ok(())) => {
                if out.write_all(b"\n").and_then(|()| out.flush()).is_err() {
                    return ExitCode::FAILURE;
                }
                ExitCode::SUCCESS
            }
            Ok(Err(e)) => {
                eprintln!("error: {}", clip_echo(&e.to_string()));
                ExitCode::FAILURE
            }
            Err(_) => ExitCode::FAILURE,
        };
    }
    let mut reader = stdin.lock();
    let mut line = Vec::new();
    let mut line_out = Vec::new();
    let mut n = 0usize;
    let mut malformed = 0usize;
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                eprintln!("error: cannot read standard input: {e}");
                return ExitCode::FAILURE;
            }
        }
        n += 1;
        let raw = line.strip_suffix(b"\n").unwrap_or(&line);
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let written = match std::str::from_utf8(raw) {
            Err(e) => {
                malformed += 1;
                let m = format!("line {n}: not valid UTF-8 (byte {})", e.valid_up_to());
                writeln!(out, "{}", serde_json::json!({ "input_error": m }))
            }
            Ok(s) => match serde_json::from_str::<String>(s) {
                Err(e) => {
                    malformed += 1;
                    let m = if s.trim().is_empty() {
                        format!("line {n}: an empty line is not a JSON string literal (the empty text is \"\")")
                    } else {
                        format!("line {n}: not a JSON string literal: {e}: {}", clip_echo(s))
                    };
                    writeln!(out, "{}", serde_json::json!({ "input_error": m }))
                }
                Ok(text) => {
                    // The payload goes straight out; a failed conversion
                    // writes nothing, so `{"ok":` is written only after it
                    // succeeds (into a line buffer, then copied).
                    line_out.clear();
                    match write_tool_response(&text, error, fixes, &mut line_out) {
                        Ok(Ok(())) => out
                            .write_all(b"{\"ok\":")
                            .and_then(|()| out.write_all(&line_out))
                            .and_then(|()| out.write_all(b"}\n")),
                        Ok(Err(e)) => writeln!(
                            out,
                            "{}",
                            serde_json::json!({ "error": clip_echo(&e.to_string()) })
                        ),
                        Err(e) => Err(e),
                    }
                }
            },
        };
        if written.is_err() {
            return ExitCode::FAILURE;
        }
    }
    if out.flush().is_err() {
        return ExitCode::FAILURE;
    }
    if malformed > 0 {
        eprintln!("error: {malformed} of {n} lines were not JSON string literals");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

fn main_job(json: bool) -> ExitCode {
    let job = toolcall_model::config::main_job::reproduce();
    let faults = job.faults();
    if let Some(f) = faults.first() {
        eprintln!("error: the model failed: {f}");
        return ExitCode::FAILURE;
    }
    if json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&job.to_value()).unwrap_or_default()
        );
    } else {
        out!("{}", toolcall_model::config::main_job::table(&job));
    }
    ExitCode::SUCCESS
}
