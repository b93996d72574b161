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
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
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
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
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
