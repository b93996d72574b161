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

/// The modules of one layer (its files and folders) that `text`, the code
/// of a file of that layer, uses: by path (`crate::config::survival::x`,
/// `super::survival` from a module's own file) or through an item the
/// layer's `mod.rs` re-exports from one (`crate::config::Setup`, in
/// `reexports`). Comment lines and what follows `#[cfg(test)]` (the unit
/// tests and examples) are not uses.
fn sibling_uses(
    layer: &str,
    depth: usize,
    text: &str,
    modules: &[String],
    reexports: &BTreeMap<String, String>,
) -> Vec<String> {
    let code: String = text
        .split("#[cfg(test)]")
        .next()
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut prefixes = vec![format!("crate::{layer}::")];
    // From a module's own file `super` is the layer; one folder down,
    // `super::super`.
    prefixes.push(["super::"].repeat(depth).concat());
    let mut used = std::collections::BTreeSet::new();
    for prefix in &prefixes {
        for (at, _) in code.match_indices(prefix.as_str()) {
            if code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let rest = &code[at + prefix.len()..];
            // `x::y` or a group `{x, y::{z}}`: every name in it that is a
            // module or a re-exported item.
            let named = if rest.starts_with('{') {
                let mut level = 0;
                let end = rest
                    .char_indices()
                    .find(|&(_, c)| {
                        level += match c {
                            '{' => 1,
                            '}' => -1,
                            _ => 0,
                        };
                        level == 0
                    })
                    .map_or(rest.len(), |(i, _)| i);
                &rest[..end]
            } else {
                let end = rest
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                &rest[..end]
            };
            for name in named.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
                if modules.iter().any(|m| m == name) {
                    used.insert(name.to_owned());
                } else if let Some(m) = reexports.get(name) {
                    used.insert(m.clone());
                }
            }
        }
    }
    used.into_iter().collect()
}

/// What a layer's `mod.rs` re-exports, item by item, with the module it
/// comes from (`pub use survival::{Setup, evaluate};`).
fn reexports(mod_rs: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for statement in mod_rs.split(';') {
        let statement = statement.trim_start();
        let Some(path) = ["pub use ", "pub(crate) use "]
            .iter()
            .find_map(|p| statement.strip_prefix(p))
        else {
            continue;
        };
        let Some((module, items)) = path.split_once("::") else {
            continue;
        };
        for item in items.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            if !item.is_empty() {
                out.insert(item.to_owned(), module.to_owned());
            }
        }
    }
    out
}

/// Within each layer of `check/src`, the arrows between its modules run
/// one way: no two modules use each other, so each can be read, and moved,
/// with what it uses below it (config::check::closes and config::main_job
/// once did, until the closing table moved above both; so did
/// verification::invariants and verification::scenario, until the bound
/// on a turn moved below both).
#[test]
fn no_two_modules_of_a_layer_use_each_other() {
    let src = crate::support::root().join("check/src");
    let mut mutual = Vec::new();
    for (layer, _) in LAYERS.iter().filter(|(l, _)| src.join(l).is_dir()) {
        let dir = src.join(layer);
        let mod_rs = std::fs::read_to_string(dir.join("mod.rs")).expect("the layer's mod.rs");
        let reexports = reexports(&mod_rs);
        let mut modules: Vec<String> = std::fs::read_dir(&dir)
            .expect("the layer's folder")
            .map(|e| e.expect("an entry").path())
            .filter_map(|p| {
                let name = p.file_name()?.to_str()?.to_owned();
                (name != "mod.rs").then(|| name.trim_end_matches(".rs").to_owned())
            })
            .collect();
        modules.sort();
        let mut uses: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for module in &modules {
            let mut files = Vec::new();
            let folder = dir.join(module);
            if folder.is_dir() {
                rust_files(&folder, &mut files);
            } else {
                files.push(dir.join(format!("{module}.rs")));
            }
            for file in files {
                // How far the file's module is below the layer: 1 for
                // `x.rs` and `x/mod.rs`, 2 for `x/y.rs`, and so on.
                let rel = file.strip_prefix(&dir).expect("under the layer");
                let depth = rel.components().count()
                    - usize::from(rel.file_name().is_some_and(|n| n == "mod.rs"));
                let text = std::fs::read_to_string(&file).expect("source readable");
                let used = sibling_uses(layer, depth, &text, &modules, &reexports);
                uses.entry(module).or_default().extend(used);
            }
        }
        for (i, a) in modules.iter().enumerate() {
            for b in &modules[i + 1..] {
                let a_uses_b = uses.get(a.as_str()).is_some_and(|u| u.contains(b));
                let b_uses_a = uses.get(b.as_str()).is_some_and(|u| u.contains(a));
                if a_uses_b && b_uses_a {
                    mutual.push((format!("{layer}::{a}"), format!("{layer}::{b}")));
                }
            }
        }
    }
    assert!(
        mutual.is_empty(),
        "modules of one layer that use each other (move what both need below them, or what uses both above them): {mutual:?}"
    );
}

#[test]
fn the_check_sees_two_modules_that_use_each_other() {
    let modules = ["check".to_owned(), "main_job".to_owned()];
    let reexports =
        reexports("pub use main_job::{\n    GROUPS, reproduce,\n};\npub use check::Setup;");
    assert_eq!(
        reexports.get("reproduce").map(String::as_str),
        Some("main_job")
    );
    // The two files of the cycle the closing table made: a path, an item
    // re-exported at the layer, `super::` from a module's own file.
    assert_eq!(
        sibling_uses(
            "config",
            2,
            "use crate::config::main_job::{GROUPS, reproduce};\nuse super::super::Setup;",
            &modules,
            &reexports
        ),
        ["check", "main_job"]
    );
    assert_eq!(
        sibling_uses(
            "config",
            1,
            "use crate::config::{Setup, GROUPS};\n// crate::config::check::x\n",
            &modules,
            &reexports
        ),
        ["check", "main_job"]
    );
    assert_eq!(
        sibling_uses(
            "config",
            1,
            "use super::check::Setup;\n#[cfg(test)]\nmod t { use crate::config::main_job; }",
            &modules,
            &reexports
        ),
        ["check"]
    );
}
