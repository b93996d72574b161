//! Replays every checked-in fuzz corpus file and every saved crash
//! (`fuzz/corpus/<target>/`, `fuzz/regressions/<target>/`) through the same
//! functions the fuzz targets call, on stable Rust and without libFuzzer.

use std::fs;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use toolcall_check::verification::fuzzing;

type Target = fn(&[u8]);

const TARGETS: &[(&str, Target)] = &[
    ("config", fuzzing::config),
    ("config_binder", fuzzing::config_binder),
    ("config_reader", fuzzing::config_reader),
    ("convert", fuzzing::convert),
    ("lenient_parser", fuzzing::lenient_parser),
    ("manager", fuzzing::manager),
    ("tool_loop", fuzzing::tool_loop),
    ("vector_file", fuzzing::vector_file),
];

fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file())
        // Hidden files are cargo-fuzz's and editors' droppings, not inputs.
        .filter(|p| {
            !p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .collect();
    v.sort();
    v
}

/// Runs `target` over every file of `fuzz/<kind>/<name>/`; returns how many
/// ran, and the failures.
fn replay(kind: &str, name: &str, target: Target) -> (usize, Vec<String>) {
    let dir = crate::support::root().join("fuzz").join(kind).join(name);
    let mut failures = Vec::new();
    let list = files(&dir);
    for path in &list {
        let data = fs::read(path).expect("a readable fuzz input");
        if let Err(e) = catch_unwind(AssertUnwindSafe(|| target(&data))) {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default();
            failures.push(format!("{}: {msg}", path.display()));
        }
    }
    (list.len(), failures)
}

fn run(kind: &str) -> usize {
    let mut total = 0;
    let mut failures = Vec::new();
    for (name, target) in TARGETS {
        let (n, f) = replay(kind, name, *target);
        total += n;
        failures.extend(f);
    }
    assert!(
        failures.is_empty(),
        "{} failed:\n{}",
        kind,
        failures.join("\n\n")
    );
    total
}

#[test]
fn corpus_replays() {
    let n = run("corpus");
    assert!(
        n >= TARGETS.len(),
        "every target has a checked-in seed corpus ({n} files)"
    );
}

#[test]
fn regressions_replay() {
    run("regressions");
}

#[test]
fn every_target_has_a_seed_corpus() {
    for (name, _) in TARGETS {
        let (n, _) = replay("corpus", name, |_| ());
        assert!(n > 0, "fuzz/corpus/{name} is empty");
    }
}

#[test]
fn oversized_inputs_are_ignored() {
    // A megabyte of nesting is rejected before any parsing.
    let deep = vec![b'['; 1 << 20];
    for (_, target) in TARGETS {
        target(&deep);
    }
}

#[test]
fn parser_survives_any_depth() {
    // Beyond the targets' input bound: a million open brackets, in a thread
    // with a small stack, neither panics nor overflows.
    let t = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(|| {
            for open in ["[", "{\"k\":"] {
                let text = open.repeat(1_000_000);
                assert!(toolcall_model::json::read_lenient(&text).is_err());
                assert!(toolcall_model::json::read_strict(&text).is_none());
                assert!(!toolcall_model::json::is_strict_json(&text));
            }
        })
        .expect("a thread");
    t.join().expect("no panic or overflow at depth 1,000,000");
}
