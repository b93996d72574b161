//! What a crate that depends on the model compiles: the library
//! `toolcall-model` (the model and the vectors) needs serde, serde_json and
//! thiserror only; the verification machinery and the command line, in the
//! package `toolcall-check`, bring theirs.

use std::collections::BTreeSet;
use std::process::Command;

/// The packages of `cargo tree -e normal` for `package` with `args`,
/// without the package itself.
fn normal_tree(package: &str, args: &[&str]) -> BTreeSet<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let out = Command::new(cargo)
        .current_dir(crate::support::root())
        .args([
            "tree", "-e", "normal", "--prefix", "none", "--format", "{p}",
        ])
        .args(["--locked", "--offline", "-p", package])
        .args(args)
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("UTF-8 output")
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != package)
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_library_alone_compiles_only_what_the_model_needs() {
    let tree = normal_tree("toolcall-model", &[]);
    for unwanted in [
        "clap",
        "saphyr-parser",
        "proptest",
        "arbitrary",
        "criterion",
        "toolcall-check",
    ] {
        assert!(!tree.contains(unwanted), "{unwanted} in {tree:?}");
    }
    let direct = normal_tree("toolcall-model", &["--depth", "1"]);
    let expected: BTreeSet<String> = ["serde", "serde_json", "thiserror"]
        .map(str::to_owned)
        .into();
    assert_eq!(direct, expected);
}

#[test]
fn the_checker_brings_its_own_dependencies() {
    let check = normal_tree("toolcall-check", &["--depth", "1"]);
    for wanted in [
        "toolcall-model",
        "clap",
        "saphyr-parser",
        "proptest",
        "arbitrary",
    ] {
        assert!(check.contains(wanted), "{wanted} not in {check:?}");
    }
}
