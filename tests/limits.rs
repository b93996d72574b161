//! The limits the source keeps that no compiler checks: blocks of code
//! repeated outside the tests. (The 100-line limit on functions is
//! clippy's, the model crate's public surface `layering.rs`'s.)

use std::collections::HashMap;
use std::path::Path;

/// How many significant lines make a repeated block.
const MIN_RUN: usize = 6;

/// The repeated blocks the source outside the tests may hold, with a
/// little room: a repeat is logic without one home, so a new one is a
/// choice made in the change that needs it (raise the budget there, here
/// and in docs/CONTRIBUTING.md, saying why in the commit message).
const REPEATED_BLOCKS_BUDGET: usize = 8;

/// A block of at least [`MIN_RUN`] significant lines that stands in two
/// places: each a file and its first and last line (1-based).
#[derive(Debug, PartialEq, Eq)]
struct Repeat {
    first: (String, usize, usize),
    second: (String, usize, usize),
}

impl std::fmt::Display for Repeat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ((a, a0, a1), (b, b0, b1)) = (&self.first, &self.second);
        write!(f, "{a}:{a0}-{a1} ~ {b}:{b0}-{b1}")
    }
}

/// A line as the comparison sees it: white space folded.
fn fold(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether a folded line says nothing of the logic: blank, a comment
/// alone, lone punctuation such as `});`.
fn insignificant(t: &str) -> bool {
    let comment = ["//", "/*", "*/", "* "].iter().any(|c| t.starts_with(c)) || t == "*";
    comment || t.chars().all(|c| c.is_ascii_punctuation() || c == ' ')
}

/// Whether a folded line starts a `use` or `import` declaration.
fn import(t: &str) -> bool {
    let declared = t.strip_prefix("pub ").or_else(|| {
        t.strip_prefix("pub(")
            .and_then(|rest| rest.split_once(") ").map(|(_, after)| after))
    });
    t.starts_with("use ")
        || t.starts_with("import ")
        || declared.is_some_and(|d| d.starts_with("use "))
}

/// The significant lines of a Rust or Java file, each with its 1-based
/// number and folded: not [`insignificant`], not in a `use` or `import`
/// declaration (a Rust `use` over several lines included).
fn significant(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut in_import = false;
    for (n, line) in text.lines().enumerate() {
        let t = fold(line);
        if in_import || import(&t) {
            in_import = !t.ends_with(';');
        } else if !insignificant(&t) {
            out.push((n + 1, t));
        }
    }
    out
}

/// Every block of at least [`MIN_RUN`] significant lines that stands
/// identically in two places of `files` (name, text), each pair of places
/// once, at its longest; a block that overlaps itself is no repeat.
fn repeats(files: &[(String, String)]) -> Vec<Repeat> {
    let lines: Vec<Vec<(usize, String)>> = files.iter().map(|(_, t)| significant(t)).collect();
    let text_of = |f: usize, i: usize| lines[f][i].1.as_str();
    let mut places: HashMap<Vec<&str>, Vec<(usize, usize)>> = HashMap::new();
    for (f, ls) in lines.iter().enumerate() {
        for i in 0..ls.len().saturating_sub(MIN_RUN - 1) {
            let key: Vec<&str> = (i..i + MIN_RUN).map(|k| text_of(f, k)).collect();
            places.entry(key).or_default().push((f, i));
        }
    }
    let mut out = Vec::new();
    for at in places.values().filter(|p| p.len() > 1) {
        for (x, &(fa, ia)) in at.iter().enumerate() {
            for &(fb, ib) in &at[x + 1..] {
                let same_file = fa == fb;
                if same_file && ib < ia + MIN_RUN {
                    continue;
                }
                // Counted once, from where the shared run starts.
                if ia > 0 && ib > 0 && text_of(fa, ia - 1) == text_of(fb, ib - 1) {
                    continue;
                }
                let mut len = MIN_RUN;
                while ia + len < lines[fa].len()
                    && ib + len < lines[fb].len()
                    && !(same_file && ia + len >= ib)
                    && text_of(fa, ia + len) == text_of(fb, ib + len)
                {
                    len += 1;
                }
                let place = |f: usize, i: usize| {
                    (files[f].0.clone(), lines[f][i].0, lines[f][i + len - 1].0)
                };
                out.push(Repeat {
                    first: place(fa, ia),
                    second: place(fb, ib),
                });
            }
        }
    }
    out.sort_by(|a, b| (&a.first, &a.second).cmp(&(&b.first, &b.second)));
    out
}

/// Whether a path (relative to the root) is test code, a bench or an
/// example: `tests/` folders, `tests.rs` modules, Maven's `src/test`.
fn is_test(rel: &str) -> bool {
    let parts: Vec<&str> = rel.split('/').collect();
    rel.ends_with("/tests.rs")
        || parts[..parts.len() - 1]
            .iter()
            .any(|p| matches!(*p, "tests" | "test" | "benches" | "examples"))
}

/// The Rust and Java source files under `dir` outside the tests, as
/// (path relative to `root`, text); build output, hidden folders and
/// links are passed over.
fn sources(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).expect("a readable folder") {
        let entry = entry.expect("a directory entry");
        let name = entry.file_name().to_string_lossy().into_owned();
        let kind = entry.file_type().expect("a file type");
        let path = entry.path();
        if kind.is_dir()
            && !name.starts_with('.')
            && !matches!(name.as_str(), "target" | "node_modules")
        {
            sources(root, &path, out);
        } else if kind.is_file() && (name.ends_with(".rs") || name.ends_with(".java")) {
            let rel = path.strip_prefix(root).expect("under the root");
            let rel = rel.to_string_lossy().replace('\\', "/");
            if !is_test(&rel) {
                let text = std::fs::read_to_string(&path).expect("a UTF-8 source file");
                out.push((rel, text));
            }
        }
    }
}

#[test]
fn a_planted_repeat_is_found_and_near_misses_are_not() {
    let block = "let a = 1;\nlet b = a + 1;\nlet c = b * 2;\nif c > 3 {\n    go(c);\n}\nlet d = c - 1;\nreturn d;\n";
    // The same lines, differently spaced, with a comment, a blank line and
    // an import between them.
    let spaced = "fn g() {\nlet a  =  1;\n// why\nlet b = a + 1;\n\nuse x::{\n    y,\n};\nlet c = b * 2;\n  if c > 3 {\n go(c);\n  }\nlet d = c - 1;\nreturn d;\n}\n";
    let file = |name: &str, text: &str| (name.to_owned(), text.to_owned());
    let found = repeats(&[file("a.rs", block), file("b.rs", spaced)]);
    assert_eq!(
        found,
        [Repeat {
            first: ("a.rs".into(), 1, 8),
            second: ("b.rs".into(), 2, 14),
        }]
    );
    // Twice in one file, and in a third: every pair of places, once.
    let twice = format!("{block}fn other() {{}}\n{block}");
    assert_eq!(repeats(&[file("c.rs", &twice)]).len(), 1);
    assert_eq!(
        repeats(&[file("a.rs", block), file("c.rs", &twice)]).len(),
        3
    );
    // Five shared lines are no repeat; nor are six with one changed.
    let five: String = block.lines().take(5).map(|l| format!("{l}\n")).collect();
    assert!(repeats(&[file("a.rs", block), file("d.rs", &format!("{five}x();\n"))]).is_empty());
    let changed = block.replace("b * 2", "b * 3");
    assert!(repeats(&[file("a.rs", block), file("e.rs", &changed)]).is_empty());
    assert!(is_test("tests/cli.rs") && is_test("src/model/manager/tests.rs"));
    assert!(is_test("conformance/fixes/src/test/java/A.java") && is_test("benches/b.rs"));
    assert!(!is_test("src/model/manager.rs") && !is_test("check/src/checking/gen.rs"));
}

#[test]
fn repeated_blocks_outside_tests_stay_within_their_budget() {
    let root = crate::support::root();
    let mut files = Vec::new();
    sources(&root, &root, &mut files);
    files.sort();
    assert!(
        files.iter().any(|(f, _)| f == "src/lib.rs")
            && files.iter().any(|(f, _)| f.ends_with(".java")),
        "the walk found neither the model nor the Java sources"
    );
    let found = repeats(&files);
    assert!(
        found.len() <= REPEATED_BLOCKS_BUDGET,
        "{} blocks of {MIN_RUN} or more identical lines repeat outside the tests, over the budget of \
         {REPEATED_BLOCKS_BUDGET}:\n{}\n\
         Give the logic one home (a function, a shared type or fixture) where the two places really \
         do the same thing; where they only look alike, raise REPEATED_BLOCKS_BUDGET in \
         tests/limits.rs and docs/CONTRIBUTING.md, saying why in the commit message.",
        found.len(),
        found
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    );
}
