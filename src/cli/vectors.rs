//! The vector commands: `verify`, `run`, `gen`, `files`, `conform`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use toolcall_model::vectors::Vector;

pub(crate) fn gen(count: usize, seed: u64, out: &Path, ops: &str) -> ExitCode {
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

pub(crate) fn files(paths: &[PathBuf]) -> ExitCode {
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

pub(crate) fn conform(java_results: &Path, verbose: bool) -> ExitCode {
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

pub(crate) fn collect(path: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
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

pub(crate) fn load(path: &Path) -> Result<Vector, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    Vector::parse(&bytes).map_err(|e| format!("{}: invalid vector at {}", path.display(), e))
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

pub(crate) fn run(file: &Path) -> ExitCode {
    match load(file).and_then(|v| v.produce()) {
        Ok(produced) => {
            // Written as it is serialized: a loop's requests repeat the turn
            // at every round, far larger than the vector.
            use std::io::Write as _;
            let mut w = std::io::BufWriter::new(std::io::stdout().lock());
            if serde_json::to_writer_pretty(&mut w, &produced).is_err()
                || writeln!(w).is_err()
                || w.flush().is_err()
            {
                std::process::exit(1);
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
