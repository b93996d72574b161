//! What a crate that depends on this library compiles: without features the
//! model and the vectors need serde, serde_json and thiserror only; the
//! checking machinery and the command line bring theirs behind features.

use std::collections::BTreeSet;
use std::process::Command;

/// The packages of `cargo tree -e normal` for the library with `args`,
/// without the library itself.
fn normal_tree(args: &[&str]) -> BTreeSet<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let out = Command::new(cargo)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "tree", "-e", "normal", "--prefix", "none", "--format", "{p}",
        ])
        .args(["--locked", "--offline", "-p", "toolcall-model"])
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
        .filter(|name| *name != "toolcall-model")
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_library_alone_compiles_only_what_the_model_needs() {
    let tree = normal_tree(&["--no-default-features"]);
    for unwanted in [
        "clap",
        "saphyr-parser",
        "proptest",
        "arbitrary",
        "criterion",
    ] {
        assert!(!tree.contains(unwanted), "{unwanted} in {tree:?}");
    }
    let direct = normal_tree(&["--no-default-features", "--depth", "1"]);
    let expected: BTreeSet<String> = ["serde", "serde_json", "thiserror"]
        .map(str::to_owned)
        .into();
    assert_eq!(direct, expected);
}

#[test]
fn features_bring_their_own_dependencies() {
    let checking = normal_tree(&[
        "--no-default-features",
        "--features",
        "checking",
        "--depth",
        "1",
    ]);
    assert!(
        checking.contains("proptest") && checking.contains("arbitrary"),
        "{checking:?}"
    );
    assert!(!checking.contains("clap"), "{checking:?}");
    let cli = normal_tree(&["--depth", "1"]);
    for wanted in ["clap", "saphyr-parser", "proptest", "arbitrary"] {
        assert!(cli.contains(wanted), "{wanted} not in {cli:?}");
    }
}
