//! The fix table written as data: the copy the Java runner and the fix
//! libraries read (`fixes.tsv` among their shared resources), and the `fix`
//! enum of docs/vector.schema.json, are the model's `Fix` rows and the
//! library's columns (`check/src/config/library_table.rs`);
//! `TOOLCALL_WRITE_DOCS=1` writes both again. Every fix of the table is
//! wired where the model and the checker read it ([`every_fix_is_wired`]).

use serde_json::{Value, json};
use toolcall_check::config::{LibraryColumns, fix_table};
use toolcall_model::model::{Fix, Fixes, behavior_sets};
use toolcall_model::vectors::Vector;

/// Where the fix libraries (`conformance/fixes-common`, which both build
/// from) and the Java runner read the table.
const FIX_TABLE: &str =
    "conformance/fixes-common/src/main/resources/io/github/toolcallmodel/fixes/fixes.tsv";

/// `want` is the text at `path`, or is written there under
/// `TOOLCALL_WRITE_DOCS`.
fn generated(path: &std::path::Path, have: &str, want: &str) {
    if std::env::var_os("TOOLCALL_WRITE_DOCS").is_some() {
        std::fs::write(path, want).unwrap();
        return;
    }
    assert!(
        have == want,
        "{} differs from the Fix table: TOOLCALL_WRITE_DOCS=1 cargo test --test lib fix_table",
        path.display()
    );
}

#[test]
fn fix_table_of_the_java_code_is_the_rows() {
    let path = crate::support::root().join(FIX_TABLE);
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    let want = fix_table();
    generated(&path, &have, &want);
    // The table the Java code parses: a header, then one row per fix.
    let rows: Vec<Vec<&str>> = want
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split('\t').collect())
        .collect();
    assert_eq!(
        rows[0],
        ["name", "in_all", "acts", "beans", "java", "unset"]
    );
    assert_eq!(rows.len(), Fix::ALL.len() + 1);
    for (row, fix) in rows[1..].iter().zip(Fix::ALL) {
        assert_eq!(row[0], fix.name());
        assert_eq!(row[1] == "true", fix.in_all(), "{fix}");
        assert_eq!(row[5], fix.unset().as_str(), "{fix}");
    }
}

#[test]
fn fix_table_of_the_vector_schema_is_the_rows() {
    let path = crate::support::root().join("docs/vector.schema.json");
    let have = std::fs::read_to_string(&path).unwrap();
    let begin = have
        .find("\"fix\": {\n      \"description\": \"A fix (src/model/behavior.rs, Fix::name).\",\n      \"enum\": [\n")
        .expect("the $defs entry of a fix");
    let begin = begin + have[begin..].find("[\n").unwrap() + 2;
    let end = begin + have[begin..].find("      ]").unwrap();
    let names: Vec<String> = Fix::ALL
        .iter()
        .map(|f| format!("        \"{}\"", f.name()))
        .collect();
    let want = format!("{}{}\n{}", &have[..begin], names.join(",\n"), &have[end..]);
    generated(&path, &have, &want);
    let schema: serde_json::Value = serde_json::from_str(&want).unwrap();
    let listed: Vec<&str> = schema["$defs"]["fix"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let names: Vec<&str> = Fix::ALL.iter().map(|f| f.name()).collect();
    assert_eq!(listed, names);
}

/// The fixes that change nothing the model computes, each with the reason
/// it is a switch all the same: none. A fix belongs here only when its
/// effect is outside the model (in the fix library alone, say); otherwise
/// a vector shows what it changes.
const WITHOUT_EFFECT_ON_THE_MODEL: &[(Fix, &str)] = &[];

/// The fix names a vector turns on, as written (`all` stays `all`).
fn names(doc: &Value) -> Vec<&str> {
    match &doc["fixes"] {
        Value::String(s) => vec![s.as_str()],
        Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// What the vector produces with `fixes` alone on in place of its own.
fn run_under(doc: &Value, fixes: &[&str]) -> Result<Value, String> {
    let mut doc = doc.clone();
    doc["fixes"] = json!(fixes);
    Vector::from_value(&doc).map_err(|e| e.to_string())?.run()
}

/// A fix is one row of the table, and this test fails where a site the row
/// does not reach is forgotten: every fix has a name that round-trips
/// through the parsers and the set's `Display`, its named set, its line of
/// the table as data, and a behaviour: some vector of
/// `tests/vectors` that turns it on runs otherwise with it alone on than
/// upstream (or it is in [`WITHOUT_EFFECT_ON_THE_MODEL`] with a reason).
#[test]
fn every_fix_is_wired() {
    let vectors: Vec<(std::path::PathBuf, Value)> =
        crate::support::json_files(&crate::support::root().join("tests/vectors"))
            .into_iter()
            .map(|p| {
                let doc = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
                (p, doc)
            })
            .collect();
    let table = fix_table();
    let sets = behavior_sets();
    for fix in Fix::ALL {
        let name = fix.name();
        assert_eq!(name.parse::<Fix>(), Ok(fix));
        assert_eq!(Fixes::parse_list(name), Ok(Fixes::only(fix)));
        assert_eq!(Fixes::only(fix).to_string(), name);
        assert_eq!(Fixes::all().contains(fix), fix.in_all(), "{fix}");
        assert!(
            sets.iter()
                .any(|s| s.name == name && s.fixes == Fixes::only(fix) && !s.gemini_tool_text),
            "{fix}: no named set"
        );
        assert!(
            table.lines().any(|l| l.split('\t').next() == Some(name)),
            "{fix}: no line in the table as data"
        );
        let felt = vectors.iter().find(|(_, doc)| {
            names(doc).contains(&name) && run_under(doc, &[name]) != run_under(doc, &[])
        });
        let listed = WITHOUT_EFFECT_ON_THE_MODEL.iter().find(|(f, _)| *f == fix);
        match (felt, listed) {
            (Some(_), None) => {}
            (None, Some((_, reason))) => assert!(!reason.is_empty(), "{fix}: a reason"),
            (Some((path, _)), Some(_)) => panic!(
                "{fix} is listed as changing nothing in the model, but {} runs otherwise with it",
                path.display()
            ),
            (None, None) => panic!(
                "{fix}: no vector of tests/vectors that turns it on runs otherwise with it alone \
                 than upstream: its behaviour is not read where the model runs (`fixes.contains(Fix::..)`), \
                 or it needs a vector (tests/vectors/*/fix-NAME-*.json), or a reason in \
                 WITHOUT_EFFECT_ON_THE_MODEL"
            ),
        }
    }
}
