//! The fix table written as data: the copy the Java runner and the fix
//! libraries read (`fixes.tsv` among their shared resources), and the `fix`
//! enum of docs/vector.schema.json, are the model's `Fix` rows
//! (`TOOLCALL_WRITE_DOCS=1` writes both again).

use toolcall_model::model::{Fix, fix_table};

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
    assert_eq!(rows[0], ["name", "in_all", "acts", "beans", "java"]);
    assert_eq!(rows.len(), Fix::ALL.len() + 1);
    for (row, fix) in rows[1..].iter().zip(Fix::ALL) {
        assert_eq!(row[0], fix.name());
        assert_eq!(row[1] == "true", fix.in_all(), "{fix}");
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
