//! The `explore` driver: runs the library's matrix cells on worker
//! threads, times them, and draws progress on standard error.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::verification::random::{
    self as ex, CellOutcome, CellResult, MatrixCell, Options, Progress,
};
use serde_json::Value;

struct Display {
    tty: bool,
    cases: u32,
    total: usize,
    done: usize,
    running: BTreeMap<usize, (String, Progress)>,
    last: Instant,
    started: Instant,
}

impl Display {
    /// The time left at the pace so far (cells take unequal times, so it
    /// is a guide).
    fn left(&self) -> String {
        if self.done == 0 {
            return String::new();
        }
        let per = self.started.elapsed().as_secs_f64() / self.done as f64;
        format!(
            ", about {:.0} s left",
            per * (self.total - self.done) as f64
        )
    }
}

impl Display {
    fn draw(&mut self, force: bool) {
        if !self.tty || (!force && self.last.elapsed() < Duration::from_millis(120)) {
            return;
        }
        self.last = Instant::now();
        let mut line = format!("explore: {}/{} cells{}", self.done, self.total, self.left());
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

/// `--out DIR` checked before any work: the folder created if absent and
/// a file written and removed there, so that a folder the run could not
/// write to is one error now, not an error per counterexample after the
/// whole run.
fn out_is_writable(dir: Option<&Path>) -> Result<(), ExitCode> {
    let Some(dir) = dir else { return Ok(()) };
    let probe = dir.join(format!(".toolcall-model-probe-{}", std::process::id()));
    // Created exclusively: a link planted under the probe's name is not
    // followed.
    let tried = std::fs::create_dir_all(dir)
        .and_then(|()| {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&probe)
        })
        .and_then(|_| std::fs::remove_file(&probe));
    tried.map_err(|e| {
        errln!(
            "error: --out {}: cannot write there: {e}",
            super::shown(&dir.display().to_string())
        );
        ExitCode::from(2)
    })
}

/// Writes each counterexample as `DIR/NAME.json` (through
/// [`super::out_file::write`]: never over a link, a non-regular file or
/// one of `inputs`), and a line on standard error saying how many; at the
/// first that cannot be written, one error (with how many were written
/// before it) and `false`.
fn write_counterexamples<'a>(
    dir: &Path,
    cxs: impl Iterator<Item = &'a Value>,
    inputs: &[std::path::PathBuf],
) -> bool {
    let shown_dir = super::shown(&dir.display().to_string()).into_owned();
    if let Err(e) = std::fs::create_dir_all(dir) {
        errln!("error: --out {shown_dir}: {e}");
        return false;
    }
    let mut n = 0;
    for cx in cxs {
        let path = dir.join(ex::counterexample_file(cx));
        let text = serde_json::to_string_pretty(cx).unwrap_or_default() + "\n";
        if let Err(e) = super::out_file::write("--out", &path, text.as_bytes(), inputs) {
            errln!("error: {e} ({n} counterexample(s) written before it)");
            return false;
        }
        n += 1;
    }
    errln!(
        "explore: {n} counterexample(s) written to {shown_dir} (`toolcall-model verify {shown_dir}` replays them: each fails, showing its refutation)"
    );
    true
}

/// The worker threads: `--jobs`, at most the machine's available
/// parallelism (its default), which a CPU-bound run cannot use beyond;
/// each thread reserves a stack (64 MB, 16 MB with `--exhaustive`) and an
/// allocator arena, and `--jobs 64` outgrew a 4 GB address space. A
/// lowered `--jobs` is said on standard error.
fn workers(jobs: Option<usize>) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    match jobs {
        Some(n) if n > cores => {
            errln!(
                "explore: --jobs {n} lowered to {cores}, the available parallelism (more threads than that only cost memory)"
            );
            cores
        }
        Some(n) => n,
        None => cores,
    }
}

pub(crate) fn command(
    cases: u32,
    seed: u64,
    json: bool,
    jobs: Option<usize>,
    out_dir: Option<&Path>,
    fixes: Option<&str>,
    spring_ai: toolcall_model::model::SpringAi,
) -> ExitCode {
    if let Err(code) = out_is_writable(out_dir) {
        return code;
    }
    let opts = Options {
        cases,
        seed,
        spring_ai,
        ..Options::default()
    };
    let mut sets = crate::config::sets_on(spring_ai).0;
    if let Some(list) = fixes {
        match super::check::asked_set(list) {
            Ok(s) if !sets.contains(&s) => sets.push(s),
            Ok(_) => {}
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let cells = ex::cells_for(&sets);
    let jobs = workers(jobs).clamp(1, cells.len());
    let display = Mutex::new(Display {
        tty: std::io::stderr().is_terminal(),
        cases,
        total: cells.len(),
        done: 0,
        running: BTreeMap::new(),
        last: Instant::now(),
        started: Instant::now(),
    });
    eprintln!(
        "explore: {} cells ({} invariants × {} behaviour sets), {cases} cases each, on {jobs} thread(s){}",
        cells.len(),
        crate::verification::invariants::Invariant::ALL.len(),
        sets.len(),
        ex::on_version(spring_ai)
    );
    let started = Instant::now();
    let timed = match run_cells(&cells, &opts, jobs, &display) {
        Ok(timed) => timed,
        Err(e) => {
            errln!("error: cannot start a worker thread: {e} (try a smaller --jobs)");
            return ExitCode::FAILURE;
        }
    };
    if display.lock().is_ok_and(|d| d.tty) {
        errln!();
    }
    speed_report(&timed, started.elapsed(), jobs);
    let results: Vec<CellResult> = timed.into_iter().map(|(r, _)| r).collect();
    if let Some(dir) = out_dir {
        let cxs = results.iter().filter_map(|r| match &r.outcome {
            CellOutcome::Refuted { counterexample, .. } => Some(counterexample),
            _ => None,
        });
        if !write_counterexamples(dir, cxs, &[]) {
            return ExitCode::from(2);
        }
    }
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

/// Runs the cells on `jobs` worker threads, reporting each on standard
/// error as it ends; the results and times in cell order, or the error of
/// the first thread the system refused.
fn run_cells(
    cells: &[MatrixCell],
    opts: &Options,
    jobs: usize,
    display: &Mutex<Display>,
) -> std::io::Result<Vec<(CellResult, Duration)>> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<(CellResult, Duration)>>> = Mutex::new(vec![None; cells.len()]);
    // When the system refuses a thread, the ones started do the work (the
    // matrix does not depend on how many); when it refuses the first, say so.
    let spawned = std::thread::scope(|scope| {
        for n in 0..jobs {
            let spawned = std::thread::Builder::new()
                .stack_size(64 << 20)
                .spawn_scoped(scope, || {
                    loop {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        let Some(cell) = cells.get(i) else { break };
                        let label = format!("{}×{}", cell.set.name, cell.invariant);
                        let t0 = Instant::now();
                        let r = ex::run_cell(cell, opts, &|p| {
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
                                errln!(
                                    "explore: [{}/{}{}] {} × {}: {} ({} cases, {:.1} s)",
                                    d.done,
                                    d.total,
                                    d.left(),
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
                    }
                });
            if let Err(e) = spawned {
                return if n == 0 { Err(e) } else { Ok(()) };
            }
        }
        Ok(())
    });
    spawned?;
    Ok(results
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .collect())
}

/// `explore --exhaustive`: every scenario of the bound, on `jobs`
/// threads, with progress and speed on standard error.
pub(crate) fn exhaustive(
    bound: &str,
    shard: Option<crate::verification::exhaustive::Shard>,
    json: bool,
    jobs: Option<usize>,
    out_dir: Option<&Path>,
    spring_ai: toolcall_model::model::SpringAi,
) -> ExitCode {
    use crate::verification::exhaustive::{Bound, Shard, Space, finish, run_part};
    let Some(bound) = Bound::named(bound) else {
        errln!("error: unknown bound '{bound}'");
        return ExitCode::from(2);
    };
    if let Err(code) = out_is_writable(out_dir) {
        return code;
    }
    let space = Space::new(&bound).on(spring_ai);
    let part_of = shard.unwrap_or(Shard::WHOLE);
    if let Err(e) = part_of.usable(&space) {
        errln!("error: --{e}");
        return ExitCode::from(2);
    }
    let jobs = part_of.workers(&space, workers(jobs));
    let tty = std::io::stderr().is_terminal();
    errln!(
        "explore --exhaustive: bound {}, {} scenarios ({} to run after symmetry) under {} behaviour sets, on {jobs} thread(s){}",
        bound.name,
        space.scenarios(),
        space.evaluated(),
        toolcall_model::model::behavior_sets().len(),
        ex::on_version(spring_ai)
    );
    if shard.is_some() {
        errln!(
            "explore --exhaustive: shard {}/{}: {} of the scenarios",
            part_of.k,
            part_of.n,
            part_of.scenarios(&space)
        );
    }
    let started = Instant::now();
    let last = Mutex::new((Instant::now(), 0u64));
    let part = run_part(&space, part_of, jobs, &|done, total| {
        exhaustive_progress(tty, started, &last, done, total);
    });
    if tty {
        errln!();
    }
    let part = match part {
        Ok(p) => p,
        Err(e) => {
            errln!("error: {e} (try a smaller --jobs)");
            return ExitCode::FAILURE;
        }
    };
    let wall = started.elapsed().as_secs_f64();
    if shard.is_some() {
        let n = part_of.scenarios(&space);
        errln!(
            "explore --exhaustive: shard {}/{}: {n} scenarios in {wall:.1} s on {jobs} thread(s): {:.0} scenarios/s",
            part_of.k,
            part_of.n,
            n as f64 / wall.max(1e-9)
        );
        outln!(
            "{}",
            serde_json::to_string_pretty(&crate::verification::shard::part_to_json(&space, &part))
                .unwrap_or_default()
        );
        return ExitCode::SUCCESS;
    }
    let report = finish(&space, &part);
    errln!(
        "explore --exhaustive: {} scenarios ({} run) in {wall:.1} s on {jobs} thread(s): {:.0} scenarios/s ({:.0} run/s), each under {} behaviour sets",
        report.scenarios,
        report.evaluated,
        report.scenarios as f64 / wall.max(1e-9),
        report.evaluated as f64 / wall.max(1e-9),
        toolcall_model::model::behavior_sets().len()
    );
    print_report(&report, json, out_dir, &[])
}

/// One line of `explore --exhaustive`'s progress on standard error, when
/// one is due: every 200 ms on a terminal (redrawn in place), else at each
/// tenth of the scenarios, and at the end. `last` holds when the last line
/// was drawn and how many scenarios were done then.
fn exhaustive_progress(
    tty: bool,
    started: Instant,
    last: &Mutex<(Instant, u64)>,
    done: u64,
    total: u64,
) {
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
}

/// `merge`: the shards' findings combined, printed as `explore
/// --exhaustive` prints one run's.
pub(crate) fn merge(files: &[std::path::PathBuf], json: bool, out_dir: Option<&Path>) -> ExitCode {
    use crate::verification::exhaustive::{Bound, Space, finish};
    use crate::verification::shard;
    if let Err(code) = out_is_writable(out_dir) {
        return code;
    }
    let mut bound_name: Option<String> = None;
    let mut version: Option<toolcall_model::model::SpringAi> = None;
    let mut parts = Vec::new();
    for f in files {
        // A shard's findings are a few kilobytes; read under a vector
        // file's limit, so that a device or a wrong file is refused.
        let read = super::vectors::read_vector_file(f)
            .map_err(|e| match e {
                super::vectors::Unread::TooLarge => format!(
                    "larger than {} bytes: not a shard's findings",
                    toolcall_model::vectors::MAX_VECTOR_BYTES
                ),
                e => e.to_string(),
            })
            .and_then(|t| {
                serde_json::from_slice::<serde_json::Value>(&t).map_err(|e| e.to_string())
            })
            .and_then(|v| shard::part_from_json(&v));
        let (name, on, part) = match read {
            Ok(x) => x,
            Err(e) => {
                errln!("error: {}: {e}", f.display());
                return ExitCode::from(2);
            }
        };
        if let Some(b) = &bound_name
            && *b != name
        {
            errln!(
                "error: {}: bound {name}, where the others have {b}",
                f.display()
            );
            return ExitCode::from(2);
        }
        if let Some(v) = version
            && v != on
        {
            errln!(
                "error: {}: a shard of Spring AI {on}, where the others are of {v}: shards of different versions cannot be merged",
                f.display()
            );
            return ExitCode::from(2);
        }
        bound_name = Some(name);
        version = Some(on);
        parts.push((f, part));
    }
    let name = bound_name.unwrap_or_default();
    let Some(bound) = Bound::named(&name) else {
        errln!("error: unknown bound '{name}'");
        return ExitCode::from(2);
    };
    let space = Space::new(&bound).on(version.unwrap_or_default());
    for (f, part) in &parts {
        if let Err(e) = part.fits(&space) {
            errln!("error: {}: {e}", f.display());
            return ExitCode::from(2);
        }
    }
    let parts: Vec<_> = parts.into_iter().map(|(_, p)| p).collect();
    let part = match shard::merge(&parts) {
        Ok(p) => p,
        Err(e) => {
            errln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    // A cell no shard refutes has judged every scenario of the bound.
    let short = part
        .totals
        .iter()
        .zip(&part.first)
        .find(|(t, f)| f.is_none() && t.0 != space.scenarios());
    if let Some((t, _)) = short {
        errln!(
            "error: the shards judged {} scenarios where bound {name} has {}",
            t.0,
            space.scenarios()
        );
        return ExitCode::from(2);
    }
    print_report(&finish(&space, &part), json, out_dir, files)
}

fn print_report(
    report: &crate::verification::exhaustive::Report,
    json: bool,
    out_dir: Option<&Path>,
    inputs: &[std::path::PathBuf],
) -> ExitCode {
    use crate::verification::exhaustive::Proof;
    if let Some(dir) = out_dir {
        let cxs = report.cells.iter().filter_map(|c| match &c.proof {
            Proof::Refuted { counterexample, .. } => Some(counterexample),
            Proof::Proved | Proof::NotApplicable(_) => None,
        });
        if !write_counterexamples(dir, cxs, inputs) {
            return ExitCode::from(2);
        }
    }
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
    errln!(
        "explore: {:.1} s on {jobs} thread(s); cases/s per thread (cells that held): {}",
        wall.as_secs_f64(),
        list.join(", ")
    );
}
