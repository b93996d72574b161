//! The vector commands: `verify`, `run`, `gen`, `files`, `conform`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use toolcall_model::vectors::Vector;

/// `gen`: each vector is written as it is generated (a million vectors
/// are never held at once), to a temporary file renamed into place, so a
/// failed write (a full disk) leaves no truncated vector; files of the same
/// names are refused before anything is written, unless `force`. With
/// `expect` `model`, each vector's `expect` is the model's own output, so
/// that `verify` passes them; with `java`, what the real classes answered
/// through `runner` ([`fill_from_java`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn generate(
    count: usize,
    seed: u64,
    out: &Path,
    ops: &str,
    shard: Option<crate::verification::exhaustive::Shard>,
    expect: &str,
    runner: &Path,
    force: bool,
) -> ExitCode {
    let shard = shard.unwrap_or(crate::verification::exhaustive::Shard::WHOLE);
    let mine = |i: usize| i as u64 % shard.n == shard.k - 1;
    if !matches!(expect, "none" | "model" | "java") {
        errln!("error: --expect {expect}: use none, model or java");
        return ExitCode::from(2);
    }
    // Refused before anything is written: without the runner no vector
    // would get its expectation.
    if expect == "java" && !runner.is_file() {
        errln!(
            "error: --expect java: the conformance runner {} is absent (run from the project's root, or name it with --runner)",
            runner.display()
        );
        return ExitCode::from(2);
    }
    use crate::verification::generators::{vector_name, vectors_iter};
    let chosen = match chosen_ops(ops) {
        Ok(chosen) => chosen,
        Err(code) => return code,
    };
    if let Err(e) = std::fs::create_dir_all(out) {
        errln!("error: {}: {e}", out.display());
        return ExitCode::from(2);
    }
    if !force {
        let existing: Vec<PathBuf> = (0..count)
            .filter(|&i| mine(i))
            .map(|i| out.join(format!("{}.json", vector_name(seed, i, &chosen))))
            .filter(|p| p.exists())
            .collect();
        if let Some(first) = existing.first() {
            errln!(
                "error: {} exists ({} of the {count} files to write do): nothing written; --force replaces them",
                first.display(),
                existing.len()
            );
            return ExitCode::from(2);
        }
    }
    let mut written = 0usize;
    let mut paths = Vec::new();
    // Each vector has a generator of its own: only the shard's are drawn.
    for mut v in vectors_iter(seed, (0..count).filter(|&i| mine(i)), &chosen) {
        if expect == "model"
            && let Err(code) = expect_model(&mut v)
        {
            return code;
        }
        let name = v["name"].as_str().unwrap_or("generated");
        let path = out.join(format!("{name}.json"));
        let text = serde_json::to_string_pretty(&v).unwrap_or_default();
        if let Err(e) = write_atomically(&path, text.as_bytes()) {
            errln!("error: {e} ({written} vectors written before it)");
            return ExitCode::from(2);
        }
        written += 1;
        if expect == "java" {
            paths.push(path);
        }
    }
    if expect == "java" {
        return report_java(runner, &paths, out);
    }
    outln!("wrote {written} vectors to {}", out.display());
    ExitCode::SUCCESS
}

/// `gen --ops`: the ops named, comma-separated; an unknown op or none is
/// an error (exit 2, said on standard error).
fn chosen_ops(ops: &str) -> Result<Vec<crate::verification::generators::VectorOp>, ExitCode> {
    use crate::verification::generators::VectorOp;
    let mut chosen = Vec::new();
    for name in ops.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match VectorOp::ALL.iter().find(|o| o.name() == name) {
            Some(o) => chosen.push(*o),
            None => {
                errln!(
                    "error: unknown op '{name}' (known: execute_tool_calls, gemini_request, convert_tool_response, tool_loop)"
                );
                return Err(ExitCode::from(2));
            }
        }
    }
    if chosen.is_empty() {
        errln!("error: --ops names no op");
        return Err(ExitCode::from(2));
    }
    Ok(chosen)
}

/// `gen --expect model`: the model's own output as the vector's
/// expectation, so that `verify` passes every vector and a change to the
/// model shows as a failure; an output a vector cannot hold is an error
/// (exit 2, said on standard error).
fn expect_model(v: &mut serde_json::Value) -> Result<(), ExitCode> {
    match Vector::from_value(v)
        .map_err(|e| e.to_string())
        .and_then(|x| x.run())
    {
        Ok(e) => {
            v["expect"] = e;
            // A payload the model parsed into a deep tree nests the
            // output past what a vector may hold: written, the
            // file would not load.
            let depth = nesting(v);
            if depth > toolcall_model::vectors::MAX_VECTOR_DEPTH {
                errln!(
                    "error: {}: the model's output nests {depth} levels, past the {} a vector may hold (use --expect none, or another seed)",
                    super::shown(v["name"].as_str().unwrap_or("generated")),
                    toolcall_model::vectors::MAX_VECTOR_DEPTH
                );
                return Err(ExitCode::from(2));
            }
        }
        Err(e) => {
            errln!(
                "error: {}: {e}",
                super::shown(v["name"].as_str().unwrap_or("generated"))
            );
            return Err(ExitCode::from(2));
        }
    }
    Ok(())
}

/// `gen --expect java`: the written vectors' expectations from the real
/// classes through `runner`, and what was written said on standard output.
fn report_java(runner: &Path, paths: &[PathBuf], out: &Path) -> ExitCode {
    match fill_from_java(runner, paths) {
        Ok(f) => {
            outln!(
                "wrote {} vectors to {} with the real classes' answers as expect{}{}",
                paths.len() - f.removed,
                out.display(),
                if f.removed > 0 {
                    format!("; {} the runner cannot express were removed", f.removed)
                } else {
                    String::new()
                },
                if f.disagree > 0 {
                    format!(
                        "; the model disagrees on {} of them (toolcall-model verify lists them)",
                        f.disagree
                    )
                } else {
                    "; the model agrees on every one".to_owned()
                }
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            errln!("error: --expect java: {e}");
            ExitCode::from(2)
        }
    }
}

/// What [`fill_from_java`] did.
struct Filled {
    /// Vectors the runner could not express (out of scope), deleted.
    removed: usize,
    /// Vectors on which the model's own result differs from Java's.
    disagree: usize,
}

/// `gen --expect java`: runs the written vectors through the conformance
/// runner (one JVM, paths on its standard input, one JSON line back per
/// vector, as `conform` reads them) and rewrites each vector with the
/// real classes' result as its `expect`, the shape the runner's own
/// `--expect FILE` writes. A vector the runner cannot express is deleted
/// (it could not verify against Java); a runner that cannot start, ends
/// early, answers out of order or refuses a vector is an error.
fn fill_from_java(runner: &Path, paths: &[PathBuf]) -> Result<Filled, String> {
    use std::io::{BufRead as _, Write as _};
    use std::process::{Command, Stdio};
    use toolcall_model::vectors::conformance::{Comparison, JavaLine, judge};
    let mut child = Command::new(runner)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", runner.display()))?;
    let mut stdin = child.stdin.take().ok_or("the runner has no input")?;
    let list: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    // Written from a thread of its own: the runner answers while it reads,
    // and a full output pipe would otherwise stop both.
    let feeder = {
        let list = list.clone();
        std::thread::spawn(move || -> std::io::Result<()> {
            for p in &list {
                writeln!(stdin, "{p}")?;
            }
            Ok(())
        })
    };
    let stdout = child.stdout.take().ok_or("the runner has no output")?;
    let mut lines = std::io::BufReader::new(stdout).lines();
    let mut filled = Filled {
        removed: 0,
        disagree: 0,
    };
    let mut outcome = Ok(());
    for (path, shown) in paths.iter().zip(&list) {
        let line = match lines.next() {
            Some(Ok(l)) => l,
            Some(Err(e)) => {
                outcome = Err(format!("reading the runner's output: {e}"));
                break;
            }
            None => {
                outcome = Err(format!("the runner ended before answering {shown}"));
                break;
            }
        };
        let step = (|| -> Result<(), String> {
            let java = JavaLine::parse(&line)
                .map_err(|e| format!("the runner's line for {shown}: {e}"))?;
            if java.path() != shown {
                return Err(format!("the runner answered {} for {shown}", java.path()));
            }
            match &java {
                JavaLine::Result { result, .. } => {
                    let bytes = read_vector_file(path).map_err(|e| format!("{shown}: {e}"))?;
                    let mut v: serde_json::Value =
                        serde_json::from_slice(&bytes).map_err(|e| format!("{shown}: {e}"))?;
                    v["expect"] = result.clone();
                    let text =
                        serde_json::to_string_pretty(&v).map_err(|e| format!("{shown}: {e}"))?;
                    write_atomically(path, text.as_bytes())?;
                    if matches!(judge(text.as_bytes(), &java), Comparison::Disagree(_)) {
                        filled.disagree += 1;
                    }
                    Ok(())
                }
                JavaLine::OutOfScope { .. } => {
                    std::fs::remove_file(path).map_err(|e| format!("{shown}: {e}"))?;
                    filled.removed += 1;
                    Ok(())
                }
                JavaLine::Fault { reason, .. } => {
                    Err(format!("the runner refused {shown}: {reason}"))
                }
            }
        })();
        if let Err(e) = step {
            outcome = Err(e);
            break;
        }
    }
    if outcome.is_err() {
        // Nothing more is read: the runner is stopped rather than left
        // blocked on a full pipe.
        let _ = child.kill();
    }
    let status = child
        .wait()
        .map_err(|e| format!("waiting for the runner: {e}"))?;
    let fed = feeder.join();
    outcome?;
    if !status.success() {
        return Err(format!("the runner exited with {status}"));
    }
    match fed {
        Ok(Ok(())) => Ok(filled),
        Ok(Err(e)) => Err(format!("writing to the runner: {e}")),
        Err(_) => Err("the thread feeding the runner failed".to_owned()),
    }
}

/// Writes `bytes` to `path` through [`super::out_file::write`]: whole or
/// absent, never over a link or anything but a regular file.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    super::out_file::write("--out", path, bytes, &[])
}

pub(crate) fn files(paths: &[PathBuf]) -> ExitCode {
    let mut found = Vec::new();
    let mut ok = true;
    for p in paths {
        for (at, why) in collect(p, &mut found) {
            errln!("{}: {why}", at.display());
            ok = false;
        }
    }
    for f in &found {
        outln!("{}", super::shown(&f.display().to_string()));
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Longest line of the runner's output `conform` reads: four times the
/// largest vector, for a result that echoes a long text of its vector.
/// The output is read line by line, so that memory stays within one line
/// however long the output (a device that never ends is refused at its
/// first line).
const MAX_RUNNER_LINE: usize = 4 * toolcall_model::vectors::MAX_VECTOR_BYTES;

/// Largest list of the files the runner was given that `conform` reads.
const MAX_FILE_LIST: usize = toolcall_model::vectors::MAX_VECTOR_BYTES;

pub(crate) fn conform(java_results: &Path, files: Option<&Path>, verbose: bool) -> ExitCode {
    use std::collections::{HashMap, HashSet};
    use std::io::BufRead;
    use toolcall_model::vectors::conformance::{Comparison, JavaLine, Tally};
    let (mut output, list) = match conform_inputs(java_results, files) {
        Ok(inputs) => inputs,
        Err(e) => {
            errln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut unanswered: HashMap<&str, usize> = HashMap::new();
    for f in &list {
        *unanswered.entry(f.as_str()).or_default() += 1;
    }
    let mut answered: HashSet<String> = HashSet::new();
    let mut tally = Tally::default();
    let mut zero = 0usize;
    let mut bytes = Vec::new();
    let mut i = 0usize;
    let mut lines_read = 0usize;
    loop {
        bytes.clear();
        // Room for the line, its `\r\n` and one byte more, so that a line
        // past the limit is seen whatever its ending.
        let read = (&mut output)
            .take(MAX_RUNNER_LINE as u64 + 3)
            .read_until(b'\n', &mut bytes);
        match read {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                errln!("error: cannot read the runner's output: {e}");
                return ExitCode::from(2);
            }
        }
        i += 1;
        if !bytes.iter().all(u8::is_ascii_whitespace) {
            lines_read += 1;
        }
        // The line without its ending, `\n` or `\r\n`.
        let content = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
        let content = content.strip_suffix(b"\r").unwrap_or(content);
        if content.len() > MAX_RUNNER_LINE {
            errln!("error: runner output line {i}: longer than {MAX_RUNNER_LINE} bytes: not read");
            return ExitCode::from(2);
        }
        let Ok(line) = std::str::from_utf8(content) else {
            let d = format!("runner output line {i}: not valid UTF-8");
            outln!("FAIL {d}");
            tally.add(&Comparison::Disagree(vec![d]));
            continue;
        };
        if line.trim().is_empty() {
            continue;
        }
        let verdict = match JavaLine::parse(line) {
            Err(e) => {
                let d = format!("runner output line {i}: {e}");
                outln!("FAIL {}", super::shown(&d));
                Comparison::Disagree(vec![d])
            }
            Ok(java) => answer_of(
                &java,
                files.is_some(),
                &mut unanswered,
                &mut answered,
                &mut zero,
                verbose,
            ),
        };
        tally.add(&verdict);
    }
    if lines_read == 0 && list.is_empty() {
        // "0 passed, 0 failed" and exit 0 once said a runner that never ran
        // agreed with everything.
        errln!(
            "error: {}: the runner's output has no result line: nothing compared (did the runner run?)",
            super::shown(&java_results.display().to_string())
        );
        return ExitCode::from(2);
    }
    unanswered_fail(&list, &mut unanswered, &mut tally);
    if files.is_none() {
        errln!(
            "note: without --files, each file counts once and a file the runner skipped is not seen"
        );
    }
    outln!("compared on zero keys: {zero}");
    outln!("{}", tally.summary());
    if tally.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `conform`'s inputs: the runner's output, and the files the runner was
/// given (each must get exactly one answer; a file listed twice, two).
#[allow(clippy::type_complexity)]
fn conform_inputs(
    java_results: &Path,
    files: Option<&Path>,
) -> Result<(Box<dyn std::io::BufRead>, Vec<String>), String> {
    // Standard input is locked for the whole read of the output: the list
    // cannot come from it too.
    if java_results.as_os_str() == "-" && files.is_some_and(|f| f.as_os_str() == "-") {
        return Err(
            "the runner's output and the files list cannot both be standard input (-)".to_owned(),
        );
    }
    let output = open_input(java_results)?;
    Ok((output, read_file_list(files)?))
}

/// `-` (standard input) or a file, read line by line.
fn open_input(p: &Path) -> Result<Box<dyn std::io::BufRead>, String> {
    if p.as_os_str() == "-" {
        Ok(Box::new(std::io::stdin().lock()))
    } else {
        std::fs::File::open(p)
            .map(|f| Box::new(std::io::BufReader::new(f)) as Box<dyn std::io::BufRead>)
            .map_err(|e| format!("{}: {e}", p.display()))
    }
}

/// `conform --files`: the files the runner was given, one a line, blank
/// lines skipped; none without the option.
fn read_file_list(files: Option<&Path>) -> Result<Vec<String>, String> {
    files.map_or(Ok(Vec::new()), |p| {
        let bytes = super::read_at_most(open_input(p)?, MAX_FILE_LIST)
            .map_err(|e| format!("{}: {e}", p.display()))?;
        if bytes.len() > MAX_FILE_LIST {
            return Err(format!(
                "{}: larger than {MAX_FILE_LIST} bytes: not read",
                p.display()
            ));
        }
        let text =
            String::from_utf8(bytes).map_err(|_| format!("{}: not valid UTF-8", p.display()))?;
        Ok(text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_owned)
            .collect())
    })
}

/// `conform --files`: a failure for each file the runner gave no answer,
/// in the list's order, each as often as it went unanswered.
fn unanswered_fail(
    list: &[String],
    unanswered: &mut std::collections::HashMap<&str, usize>,
    tally: &mut toolcall_model::vectors::conformance::Tally,
) {
    for f in list {
        if let Some(left) = unanswered.get_mut(f.as_str()).filter(|n| **n > 0) {
            *left -= 1;
            outln!(
                "FAIL {}",
                super::shown(&format!("{f}: the runner gave no answer"))
            );
            tally.add(&toolcall_model::vectors::conformance::Comparison::Disagree(
                vec![],
            ));
        }
    }
}

/// `conform`'s judgement of one answer of the runner: its vector judged
/// against it, and an answer to a file not given (with the list,
/// `listed`) or answered twice made a disagreement. Prints the failure
/// (and, `verbose`, what is out of scope or refused by both) and counts
/// the comparisons on zero keys.
fn answer_of(
    java: &toolcall_model::vectors::conformance::JavaLine,
    listed: bool,
    unanswered: &mut std::collections::HashMap<&str, usize>,
    answered: &mut std::collections::HashSet<String>,
    zero: &mut usize,
    verbose: bool,
) -> toolcall_model::vectors::conformance::Comparison {
    use toolcall_model::vectors::conformance::{Comparison, judge, judge_loaded};
    let path = java.path().to_owned();
    let mut v = match read_vector_file(Path::new(&path)) {
        Err(Unread::TooLarge) => judge_loaded(Err(toolcall_model::vectors::too_large()), &[], java),
        Err(e) => Comparison::Disagree(vec![e.to_string()]),
        Ok(bytes) => judge(&bytes, java),
    };
    // Without the list, a file answered again is not a second
    // pass: one answer repeated 50,000 times once counted 50,000.
    let twice = answered.contains(&path);
    if !listed {
        if twice {
            v = Comparison::Disagree(vec!["answered twice by the runner".to_owned()]);
        }
    } else if let Some(left) = unanswered.get_mut(path.as_str()).filter(|n| **n > 0) {
        *left -= 1;
    } else {
        let why = if twice {
            "answered twice by the runner"
        } else {
            "the runner answered a file it was not given"
        };
        v = Comparison::Disagree(vec![why.to_owned()]);
    }
    answered.insert(path.clone());
    match &v {
        Comparison::Disagree(d) => {
            if d.iter().any(|x| x.starts_with("nothing compared")) {
                *zero += 1;
            }
            outln!(
                "FAIL {}",
                super::shown(&format!("{path}: {}", d.join("; ")))
            )
        }
        Comparison::OutOfScope(r) if verbose => {
            outln!("OUT OF SCOPE {}", super::shown(&format!("{path}: {r}")))
        }
        Comparison::RefusedByBoth if verbose => {
            outln!("REFUSED BY BOTH {}", super::shown(&path))
        }
        _ => {}
    }
    v
}

/// The vector files under `path` (a file as given; a folder searched for
/// `*.json`, sorted), into `out`; what cannot be searched or read comes
/// back, each with its path. A folder is searched once however many links
/// lead to it, and a link back to a folder it stands in is refused (a link
/// to `.` once made it search itself until the path got too long, two such
/// links for ever), as is a special file found in a folder (a FIFO named
/// `*.json` would block the read for ever).
pub(crate) fn collect(path: &Path, out: &mut Vec<PathBuf>) -> Vec<(PathBuf, String)> {
    let mut problems = Vec::new();
    let mut searched = std::collections::HashSet::new();
    let mut stack = vec![(path.to_path_buf(), true)];
    while let Some((p, given)) = stack.pop() {
        let meta = match std::fs::metadata(&p) {
            Ok(m) => m,
            // Reading it says why it cannot be read, in its place.
            Err(_) => {
                out.push(p);
                continue;
            }
        };
        if meta.is_dir() {
            match std::fs::canonicalize(&p) {
                Ok(c) if !searched.insert(c.clone()) => {
                    // A link back to a folder it stands in is a loop; another
                    // link to a folder searched already adds nothing.
                    let within = p
                        .parent()
                        .and_then(|d| std::fs::canonicalize(d).ok())
                        .is_some_and(|d| d.starts_with(&c));
                    if within {
                        problems.push((
                            p,
                            format!(
                                "not searched: a symbolic link loop (back to {})",
                                c.display()
                            ),
                        ));
                    }
                    continue;
                }
                Ok(_) => {}
                Err(e) => {
                    problems.push((p, format!("cannot read: {e}")));
                    continue;
                }
            }
            let mut entries: Vec<PathBuf> = match std::fs::read_dir(&p) {
                Ok(rd) => rd.filter_map(Result::ok).map(|e| e.path()).collect(),
                Err(e) => {
                    problems.push((p, format!("cannot read: {e}")));
                    continue;
                }
            };
            entries.sort();
            // Reversed onto the stack: taken back in order.
            for e in entries.into_iter().rev() {
                if e.is_dir() || e.extension().is_some_and(|x| x == "json") {
                    stack.push((e, false));
                }
            }
        } else if given || meta.is_file() {
            out.push(p);
        } else {
            problems.push((p, "not a regular file: not read".to_owned()));
        }
    }
    problems
}

/// A vector file's bytes, or why there are none.
pub(crate) enum Unread {
    /// `cannot read: ...`.
    Io(std::io::Error),
    /// Past [`MAX_VECTOR_BYTES`](toolcall_model::vectors::MAX_VECTOR_BYTES).
    TooLarge,
    /// Not a regular file (a FIFO, a device, a folder given as a file).
    Special,
}

impl std::fmt::Display for Unread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unread::Io(e) => write!(f, "cannot read: {e}"),
            Unread::Special => write!(f, "not a regular file: not read"),
            Unread::TooLarge => write!(
                f,
                "invalid vector at {}",
                toolcall_model::vectors::too_large()
            ),
        }
    }
}

/// The file's bytes, refused without reading it whole when it is larger
/// than a vector can be: its size is checked first, and a file whose size
/// is unknown (a pipe, a device) is read only one byte past the limit.
pub(crate) fn read_vector_file(path: &Path) -> Result<Vec<u8>, Unread> {
    use toolcall_model::vectors::MAX_VECTOR_BYTES;
    // Asked before opening: opening a FIFO blocks until a writer comes.
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(Unread::Special);
    }
    let file = std::fs::File::open(path).map_err(Unread::Io)?;
    if file
        .metadata()
        .is_ok_and(|m| m.is_file() && m.len() > MAX_VECTOR_BYTES as u64)
    {
        return Err(Unread::TooLarge);
    }
    let bytes = super::read_at_most(file, MAX_VECTOR_BYTES).map_err(Unread::Io)?;
    if bytes.len() > MAX_VECTOR_BYTES {
        return Err(Unread::TooLarge);
    }
    Ok(bytes)
}

pub(crate) fn load(path: &Path) -> Result<Vector, String> {
    let bytes = read_vector_file(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let v = Vector::parse(&bytes)
        .map_err(|e| format!("{}: invalid vector at {}", path.display(), e))?;
    within_budget(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(v)
}

/// [`super::vector_budget::within`] of a vector's bytes, already parsed as
/// a vector.
fn within_budget(bytes: &[u8]) -> Result<(), String> {
    let doc: serde_json::Value =
        serde_json::from_slice(bytes).map_err(|e| format!("not JSON: {e}"))?;
    super::vector_budget::within(&doc)
}

/// One vector's result, as `verify` reports it.
enum Judged {
    Passed,
    Failed(Vec<String>),
    Invalid(String),
}

pub(crate) fn verify(paths: &[PathBuf], json: bool) -> ExitCode {
    use toolcall_model::vectors::Verification;
    let mut files = Vec::new();
    let mut results: Vec<(PathBuf, Option<String>, Judged)> = Vec::new();
    for p in paths {
        for (at, why) in collect(p, &mut files) {
            results.push((at, None, Judged::Invalid(why)));
        }
    }
    if files.is_empty() && results.is_empty() {
        let list: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        errln!(
            "error: no vector found in {} (files are taken as given; folders are searched recursively for *.json)",
            list.join(", ")
        );
        return ExitCode::FAILURE;
    }
    let (mut passed, mut failed) = (0usize, 0usize);
    let mut over_budget = false;
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
                Judged::Failed(d) => {
                    outln!(
                        "FAIL {}",
                        super::shown(&format!("{label}: {}", d.join("; ")))
                    )
                }
                Judged::Invalid(r) => outln!("INVALID {}", super::shown(&format!("{label}: {r}"))),
            }
        }
    };
    for (file, name, judged) in results {
        report(&file, name.as_deref(), judged);
    }
    for f in &files {
        match read_vector_file(f) {
            Err(e) => report(f, None, Judged::Invalid(e.to_string())),
            Ok(bytes) => match Vector::parse(&bytes) {
                Err(e) => report(f, None, Judged::Invalid(format!("invalid vector at {e}"))),
                Ok(v) => {
                    if let Err(e) = within_budget(&bytes) {
                        over_budget = true;
                        report(f, Some(&v.name), Judged::Invalid(e));
                        continue;
                    }
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
        errln!("{passed} passed, {failed} failed");
    } else {
        outln!("{passed} passed, {failed} failed");
    }
    if over_budget {
        errln!("error: a vector is past a budget of work (docs/TESTING.md): no verdict for it");
        ExitCode::from(2)
    } else if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

pub(crate) fn run(file: &Path) -> ExitCode {
    write_produced(load(file))
}

/// `run FILE --fixes LIST`: the vector under another behaviour set (fix
/// names, `all`, `upstream`, `gemini-tool-text`): its `fixes` and
/// `advisors` replaced, then run as `run` runs it.
pub(crate) fn run_with_fixes(file: &Path, list: &str) -> ExitCode {
    let set = match super::check::asked_set(list) {
        Ok(s) => s,
        Err(e) => {
            errln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    // Read and judged as `run` reads a vector (its size, values, depth and
    // duplicate keys), then run again under the set asked for.
    let vector = read_vector_file(file)
        .map_err(|e| format!("{}: {e}", file.display()))
        .and_then(|bytes| {
            Vector::parse(&bytes)
                .map_err(|e| format!("{}: invalid vector at {e}", file.display()))?;
            let doc = serde_json::from_slice::<serde_json::Value>(&bytes)
                .map_err(|e| format!("{}: not JSON: {e}", file.display()))?;
            super::vector_budget::within(&doc).map_err(|e| format!("{}: {e}", file.display()))?;
            Ok(doc)
        })
        .and_then(|mut doc| {
            doc["fixes"] =
                serde_json::json!(set.fixes.iter().map(|f| f.name()).collect::<Vec<_>>());
            doc["advisors"] = serde_json::json!(if set.gemini_tool_text {
                vec!["gemini-tool-text"]
            } else {
                vec![]
            });
            Vector::from_value(&doc)
                .map_err(|e| format!("{}: invalid vector at {e}", file.display()))
        });
    write_produced(vector)
}

/// Runs a loaded vector and writes its result as it is serialized: a
/// loop's requests repeat the turn at every round, far larger than the
/// vector.
fn write_produced(vector: Result<Vector, String>) -> ExitCode {
    match vector.and_then(|v| v.produce()) {
        Ok(produced) => {
            use std::io::Write as _;
            let mut w = std::io::BufWriter::new(super::vector_budget::Capped {
                inner: std::io::stdout().lock(),
                written: 0,
            });
            let written = serde_json::to_writer_pretty(&mut w, &produced)
                .map_err(std::io::Error::from)
                .and_then(|()| writeln!(w))
                .and_then(|()| w.flush());
            match written {
                Ok(()) => ExitCode::SUCCESS,
                Err(_) if w.get_ref().written_past() => {
                    errln!("\nerror: {}", super::vector_budget::output_budget_hit());
                    ExitCode::from(2)
                }
                Err(e) => super::output_lost(&e),
            }
        }
        Err(e) => {
            errln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// The levels of arrays and objects `v` nests (a scalar: 0).
fn nesting(v: &serde_json::Value) -> usize {
    match v {
        serde_json::Value::Array(a) => 1 + a.iter().map(nesting).max().unwrap_or(0),
        serde_json::Value::Object(o) => 1 + o.values().map(nesting).max().unwrap_or(0),
        _ => 0,
    }
}
