//! The project's documents link only to files in the repository: every
//! Markdown link of the README, `docs/`, `fuzz/README.md` and
//! `BENCHMARKS.md` names a file or folder that exists, and none leaves the
//! repository.

use std::path::{Component, Path, PathBuf};

/// The targets of the inline links `[text](target)` in `markdown`, outside
/// code blocks and code spans.
fn link_targets(markdown: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut fenced = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        // Code spans hold examples, not links.
        let prose: String = line
            .split('`')
            .enumerate()
            .filter(|(i, _)| i % 2 == 0)
            .map(|(_, s)| s)
            .collect::<Vec<_>>()
            .join(" ");
        let mut rest = prose.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            targets.push(after[..end].trim().to_owned());
            rest = &after[end..];
        }
    }
    targets
}

/// Why `target`, linked from `doc`, is not a file of the repository.
fn broken(root: &Path, doc: &Path, target: &str) -> Option<String> {
    if target.contains("://") || target.starts_with("mailto:") {
        return Some("leaves the repository".to_owned());
    }
    let path = target.split('#').next().unwrap_or("");
    if path.is_empty() {
        return None; // an anchor in the same page
    }
    // Resolved by its components, so that a link out of the repository is
    // seen whether or not something exists where it points.
    let dir = doc.parent().unwrap_or(root).strip_prefix(root).ok()?;
    let mut inside: Vec<Component> = dir.components().collect();
    for part in Path::new(path).components() {
        match part {
            Component::ParentDir => {
                if inside.pop().is_none() {
                    return Some("points outside the repository".to_owned());
                }
            }
            Component::Normal(_) => inside.push(part),
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => {
                return Some("is an absolute path".to_owned());
            }
        }
    }
    let resolved: PathBuf = inside.iter().collect();
    (!root.join(resolved).exists()).then(|| "no such file".to_owned())
}

fn documents(root: &Path) -> Vec<PathBuf> {
    let mut docs = vec![
        root.join("README.md"),
        root.join("BENCHMARKS.md"),
        root.join("fuzz/README.md"),
    ];
    for entry in std::fs::read_dir(root.join("docs")).expect("docs/ readable") {
        let path = entry.expect("directory entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            docs.push(path);
        }
    }
    docs
}

#[test]
fn every_link_names_a_file_of_the_repository() {
    let root = &crate::support::root();
    let mut problems = Vec::new();
    let mut links = 0;
    for doc in documents(root) {
        let text = std::fs::read_to_string(&doc).expect("document readable");
        for target in link_targets(&text) {
            links += 1;
            if let Some(why) = broken(root, &doc, &target) {
                problems.push(format!("{}: ({target}) {why}", doc.display()));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(links > 20, "only {links} links found: the scan is broken");
}

#[test]
fn the_scan_sees_links_and_skips_code() {
    let md = "See [a](docs/A.md#x) and [b](https://example.com).\n\
              `[c](not/a/link.md)`\n```\n[d](inside/code.md)\n```\n[e](#anchor)";
    assert_eq!(
        link_targets(md),
        ["docs/A.md#x", "https://example.com", "#anchor"]
    );
    let root = &crate::support::root();
    let readme = root.join("README.md");
    assert!(broken(root, &readme, "https://example.com").is_some());
    assert!(broken(root, &readme, "../../etc/passwd").is_some());
    assert!(broken(root, &readme, "/etc/passwd").is_some());
    assert!(broken(root, &readme, "docs/NO-SUCH-PAGE.md").is_some());
    assert!(broken(root, &readme, "docs/JSON.md").is_none());
    let page = root.join("docs/JSON.md");
    assert!(broken(root, &page, "../README.md#the-two-commands").is_none());
    assert!(broken(root, &page, "../../README.md").is_some());
}

/// The `*.json` files under `dir`, recursively.
fn vector_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            vector_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
}

/// Whether `doc` (a page of docs/) holds what `what` names there: a
/// section of BEHAVIOUR.md or GEMINI.md (`section 6.2`), a rule of JSON.md
/// (`A.8`) or of GEMINI.md (`rule 7`).
fn cites_something_there(doc: &str, text: &str, what: &str) -> bool {
    if let Some(n) = what.strip_prefix("section ") {
        return text.lines().any(|l| {
            l.starts_with('#')
                && l.trim_start_matches('#')
                    .trim_start()
                    .starts_with(&format!("{n}. "))
                || l.trim_start_matches('#')
                    .trim_start()
                    .starts_with(&format!("{n} "))
        });
    }
    if let Some(n) = what.strip_prefix("rule ") {
        return doc == "GEMINI.md" && text.lines().any(|l| l.starts_with(&format!("{n}. **")));
    }
    if what.starts_with("A.") {
        return doc == "JSON.md" && text.contains(&format!("**{what} "));
    }
    true
}

#[test]
fn vectors_cite_the_docs_directly() {
    // A vector's `about` cites docs/ pages by their own section and rule
    // numbers, not the first specification's file names through a table.
    let root = crate::support::root();
    let mut files = Vec::new();
    vector_files(&root.join("tests/vectors"), &mut files);
    assert!(files.len() > 400, "{}", files.len());
    let mut bad = Vec::new();
    for f in &files {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
        let about = v["about"].as_str().unwrap_or_default();
        for old in ["SEMANTICS.md", "JACKSON.md"] {
            if about.contains(old) {
                bad.push(format!("{}: cites {old}", f.display()));
            }
        }
        let mut rest = about;
        while let Some(at) = rest.find("docs/") {
            let after = &rest[at + 5..];
            let name: String = after
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '_')
                .collect();
            let name = name.trim_end_matches('.').to_owned();
            let path = root.join("docs").join(&name);
            match std::fs::read_to_string(&path) {
                Err(_) => bad.push(format!("{}: docs/{name} does not exist", f.display())),
                Ok(text) => {
                    let tail = after[name.len()..].trim_start();
                    let what: String = ["section ", "sections ", "rule ", "A."]
                        .iter()
                        .find(|p| tail.starts_with(**p))
                        .map(|p| {
                            let p = if *p == "sections " { "section " } else { p };
                            let skip = if tail.starts_with("sections ") {
                                9
                            } else {
                                p.len()
                            };
                            let num: String = tail[skip..]
                                .chars()
                                .take_while(|c| c.is_ascii_digit() || *c == '.')
                                .collect();
                            format!("{p}{}", num.trim_end_matches('.'))
                        })
                        .unwrap_or_default();
                    if !what.is_empty() && !cites_something_there(&name, &text, &what) {
                        bad.push(format!("{}: docs/{name} has no {what}", f.display()));
                    }
                }
            }
            rest = &after[name.len()..];
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
