//! The layering of `src/` (the model) and `check/src/` (the checker): each
//! folder is a layer and may use only the layers below it, so the tree
//! reads as the data flows (the containers every layer may share for
//! speed, the modelled system and the JSON readers, the Gemini conversion,
//! the chat loop, the vector format, then, in the second package, the
//! configuration checker and the verification machinery, which name the model's
//! layers by their crate, `toolcall_model::model`; the command line on
//! top).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Each layer and the layers it may use: those of `src/`, then those of
/// `check/src/`.
const LAYERS: &[(&str, &[&str])] = &[
    ("collections", &[]),
    ("json", &["collections"]),
    ("model", &["collections"]),
    ("gemini", &["collections", "json", "model"]),
    ("chat", &["collections", "json", "model", "gemini"]),
    (
        "vectors",
        &["collections", "json", "model", "gemini", "chat"],
    ),
    (
        "config",
        &["collections", "json", "model", "gemini", "chat"],
    ),
    (
        "verification",
        &[
            "collections",
            "json",
            "model",
            "gemini",
            "chat",
            "vectors",
            "config",
        ],
    ),
];

/// `crate::X` and `toolcall_model::X` uses in `text` (code and doc links
/// alike) that the layer `layer` may not make, as `X` names. The model's
/// layers are named by their crate in `check/src` (and in the model's own
/// doc examples); a `toolcall_model::` path to what is no layer (a macro at
/// the crate's root) is not a use of one.
fn forbidden_uses(layer: &str, text: &str) -> Vec<String> {
    let allowed = LAYERS
        .iter()
        .find(|(name, _)| *name == layer)
        .map(|(_, deps)| *deps)
        .unwrap_or_else(|| panic!("{layer} is not a layer of LAYERS"));
    let mut bad = Vec::new();
    for prefix in ["crate::", "toolcall_model::"] {
        for (at, _) in text.match_indices(prefix) {
            if text[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                continue; // another name ending in `crate` or `toolcall_model`
            }
            let rest = &text[at + prefix.len()..];
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            let used = &rest[..end];
            let a_layer = LAYERS.iter().any(|(name, _)| *name == used);
            if prefix == "toolcall_model::" && !a_layer {
                continue;
            }
            if used != layer && !allowed.contains(&used) {
                bad.push(used.to_owned());
            }
        }
    }
    bad
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ readable") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn no_layer_uses_one_above_it() {
    let mut per_layer: BTreeMap<&str, usize> = BTreeMap::new();
    let mut violations = Vec::new();
    for (package, model_layers) in [("src", true), ("check/src", false)] {
        let src = crate::support::root().join(package);
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        for file in &files {
            let rel = file.strip_prefix(&src).expect("under src/");
            let top = rel.components().next().expect("a component");
            let top = top.as_os_str().to_str().expect("UTF-8 file name");
            // lib.rs declares the layers; main.rs and cli/ are the command line.
            if matches!(top, "lib.rs" | "main.rs" | "cli") {
                continue;
            }
            // The library is the model alone: the checker's layers live in
            // check/src, and the model's never there.
            let in_model = !matches!(top, "config" | "verification");
            assert_eq!(
                in_model,
                model_layers,
                "{package}/{} is in the wrong package",
                rel.display()
            );
            let layer = LAYERS
                .iter()
                .map(|(name, _)| *name)
                .find(|name| *name == top)
                .unwrap_or_else(|| panic!("{} sits in no layer of LAYERS", rel.display()));
            *per_layer.entry(layer).or_default() += 1;
            let text = std::fs::read_to_string(file).expect("source readable");
            for used in forbidden_uses(layer, &text) {
                violations.push(format!(
                    "{package}/{} ({layer}) uses crate::{used}",
                    rel.display()
                ));
            }
        }
    }
    assert!(
        violations.is_empty(),
        "layering broken:\n{}",
        violations.join("\n")
    );
    // Every layer has files, so a renamed folder cannot slip past the table.
    for (name, _) in LAYERS {
        assert!(
            per_layer.get(name).copied().unwrap_or(0) > 0,
            "no file in layer {name}"
        );
    }
}

#[test]
fn the_check_sees_an_upward_use() {
    assert_eq!(
        forbidden_uses(
            "model",
            "use crate::gemini::build_request;\nuse crate::model::java;"
        ),
        ["gemini"]
    );
    assert_eq!(
        forbidden_uses(
            "gemini",
            "/// See [`crate::chat::tool_loop`].\nuse crate::json::jackson;"
        ),
        ["chat"]
    );
    assert!(
        forbidden_uses(
            "verification",
            "use crate::vectors::Vector; toolcall_check::config"
        )
        .is_empty()
    );
    assert_eq!(
        forbidden_uses("json", "let x = crate::model::Message::user(\"\");"),
        ["model"]
    );
    // The model's layers named by their crate, from the checker's.
    assert_eq!(
        forbidden_uses(
            "config",
            "use toolcall_model::vectors::Vector;\ntoolcall_model::enum_table! {}"
        ),
        ["vectors"]
    );
}

/// The public items of the model crate (`src/`) that a depending crate can
/// name: `pub` declarations, not `pub(crate)` or `pub(super)` ones.
fn public_items(text: &str) -> usize {
    const KINDS: [&str; 10] = [
        "fn ",
        "struct ",
        "enum ",
        "trait ",
        "const ",
        "static ",
        "type ",
        "mod ",
        "use ",
        "macro_rules!",
    ];
    text.lines()
        .filter_map(|l| l.trim_start().strip_prefix("pub "))
        .filter(|rest| KINDS.iter().any(|k| rest.starts_with(k)))
        .count()
}

/// The model crate's public surface, kept below a budget with room to
/// grow: every `pub` item is a promise to the crates that depend on it,
/// and the budget makes a new one a choice (raise it in the same change,
/// saying why in the commit message). docs/CONTRIBUTING.md states the
/// budget.
const PUBLIC_ITEMS_BUDGET: usize = 360;

#[test]
fn the_model_crates_public_surface_stays_within_its_budget() {
    assert_eq!(
        public_items("pub fn a() {}\npub(crate) fn b() {}\n    pub struct C;\npub x: u8,\n"),
        2
    );
    let mut files = Vec::new();
    rust_files(&crate::support::root().join("src"), &mut files);
    let count: usize = files
        .iter()
        .map(|f| public_items(&std::fs::read_to_string(f).expect("a source file")))
        .sum();
    assert!(
        count <= PUBLIC_ITEMS_BUDGET,
        "src/ declares {count} pub items, over the budget of {PUBLIC_ITEMS_BUDGET}: make the new ones pub(crate) where no depending crate needs them, or raise the budget (here and in docs/CONTRIBUTING.md) saying why"
    );
    // A budget far above the count keeps nothing.
    assert!(
        count + 60 > PUBLIC_ITEMS_BUDGET,
        "{count} pub items against a budget of {PUBLIC_ITEMS_BUDGET}: lower the budget to keep it meaningful"
    );
}
