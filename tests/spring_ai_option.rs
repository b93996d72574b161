//! `--spring-ai VERSION` on the main job and `explore` (docs/EXPLORE.md,
//! docs/TESTING.md's main job): what 1.1 does not have is `n/a`, never
//! `ok`; the sets it cannot play are named; an unknown version is refused;
//! shards of different versions are not merged.

use serde_json::Value;

use crate::support::{run, scratch};

/// The words of the row of `set` in the main job's table.
fn row<'a>(table: &'a str, set: &str) -> Vec<&'a str> {
    table
        .lines()
        .find(|l| l.split_whitespace().next() == Some(set))
        .unwrap_or_else(|| panic!("no row {set}: {table}"))
        .split_whitespace()
        .skip(1)
        .collect()
}

#[test]
fn the_main_table_on_1_1() {
    let (code, out, err) = run(&["--spring-ai", "1.1.2"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with(
            "Spring AI 1.1.2 (the 1.1 line): the tool loop runs inside GoogleGenAiChatModel"
        ),
        "{out}"
    );
    // Columns: 3 breach, plain, half, throws, THROW inside, long turn inside.
    assert_eq!(
        row(&out, "upstream"),
        [
            "n/a", "n/a", "n/a", "parse", "lost", "parse", "n/a", "rejected"
        ]
    );
    assert_eq!(
        row(&out, "strict-json-or-wrap"),
        ["n/a", "n/a", "n/a", "ok", "ok", "ok", "n/a", "rejected"]
    );
    assert_eq!(row(&out, "error-key")[5], "ok");
    // No set of limits fixes, nor the seed's advisor, is a row; a memory
    // inside the loop is ToolCallAdvisor's, where close-dangling-calls acts.
    assert_eq!(row(&out, "close-dangling-calls")[7], "rejected");
    for gone in [
        "breach-through-processor",
        "end-turn-after-breach",
        "gemini-tool-text",
    ] {
        assert!(!out.lines().any(|l| l.starts_with(gone)), "{gone}: {out}");
        assert!(out.contains(gone), "named as not played: {gone}");
    }
    // The prose, its wrapping aside.
    let prose = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        prose.contains(
            "Not played on Spring AI 1.1.2: breach-through-processor, end-turn-after-breach ("
        ),
        "{out}"
    );
    assert!(
        prose.contains(
            "not applicable: Spring AI 1.1.2 has no tool call limits: nothing to breach."
        ),
        "{out}"
    );
    assert!(prose.contains("Plain tool output (issue 5437: a tool's text, half-JSON, or an exception's message; Spring's default processor, no chat memory): closed by strict-json-or-wrap, pr-6049-strict-wrap, all."), "{out}");
    assert!(
        prose.contains("n/a not applicable: Spring AI 1.1.2 has no tool call limits to breach"),
        "{out}"
    );
}

#[test]
fn the_main_job_s_json_on_1_1() {
    let (code, out, err) = run(&["--json", "--spring-ai", "1.1.6"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("note: --spring-ai 1.1.6: answered as 1.1.2"),
        "{err}"
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["spring_ai"], "1.1.2");
    let left: Vec<&str> = v["left_out"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["set"].as_str().unwrap())
        .collect();
    assert_eq!(
        left,
        [
            "breach-through-processor",
            "end-turn-after-breach",
            "gemini-tool-text"
        ]
    );
    let cell = |set: &str, column: &str| -> Value {
        let row = v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["set"] == set)
            .unwrap();
        row["cells"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["column"] == column)
            .unwrap()
            .clone()
    };
    for column in [
        "breach/default-processor",
        "throw/memory-none",
        "throw/memory-outside",
        "throw/memory-inside",
    ] {
        let c = cell("all", column);
        assert_eq!(c["mark"], "n/a", "{column}: {c}");
    }
    // A memory inside the loop is ToolCallAdvisor's: it sends each call
    // again before the loop's own (BEHAVIOUR.md section 13.1).
    let long = cell("upstream", "long-turn/memory-inside");
    assert_eq!(long["mark"], "rejected", "{long}");
    assert!(
        long["detail"]
            .as_str()
            .unwrap()
            .contains("Gemini rejects request 2 of the turn"),
        "{long}"
    );
    assert_eq!(
        cell("upstream", "throws/default-processor")["mark"],
        "parse"
    );
    assert_eq!(cell("upstream", "long-turn/memory-outside")["mark"], "ok");
    // No limit bounds a model that keeps calling a tool on 1.1.
    assert_eq!(cell("all", "runaway/default-processor")["mark"], "runaway");
    assert!(
        v["columns"][0]["assumptions"]
            .as_str()
            .unwrap()
            .ends_with("(the limits' keys are not read)")
    );
}

#[test]
fn an_unknown_version_is_refused() {
    for args in [
        &["--spring-ai", "1.0.3"][..],
        &["explore", "--spring-ai", "3.0.0", "--cases", "1"],
        &["--spring-ai", "1.1.9"],
    ] {
        let (code, out, err) = run(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{out}");
        assert!(err.contains("is not modelled: use 1.1.2, 2.0.0, 2.0.1 (or a 1.1 release from 1.1.0 to 1.1.8, answered as 1.1.2)"), "{err}");
    }
    let (code, out, _) = run(&["--json", "--spring-ai", "9"]);
    assert_eq!(code, 2);
    assert!(
        serde_json::from_str::<Value>(&out).unwrap()["error"]
            .as_str()
            .unwrap()
            .contains("is not modelled")
    );
    let (code, _, err) = run(&["--spring-ai", "1.1.2", "files", "x"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("--spring-ai before `files` is not supported"),
        "{err}"
    );
}

#[test]
fn explore_on_1_1() {
    let (code, out, err) = run(&[
        "explore",
        "--spring-ai",
        "1.1.2",
        "--cases",
        "10",
        "--jobs",
        "2",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("toolcall-model explore: 11 invariants under 11 behaviour sets, 10 random cases per cell, seed 0, on Spring AI 1.1.2\n"), "{out}");
    let limits = out.lines().find(|l| l.starts_with("limits ")).unwrap();
    assert_eq!(
        limits.split_whitespace().skip(1).collect::<Vec<_>>(),
        ["n/a"; 11]
    );
    assert!(
        out.contains("upstream × turn-ends: n/a: Spring AI 1.1.2 has no tool call limits"),
        "{out}"
    );
    let header = out.lines().find(|l| l.starts_with("invariant ")).unwrap();
    assert!(!header.contains("gemini-tool-text"), "{header}");
    assert!(header.contains("close-dangling-calls"), "{header}");
    let (code, out, _) = run(&["explore", "--json", "--spring-ai", "1.1.2", "--cases", "10"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["spring_ai"], "1.1.2");
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 121);
    for r in results {
        let na = ["limits", "counting", "turn-ends"].contains(&r["invariant"].as_str().unwrap());
        assert_eq!(r["verdict"] == "n/a", na, "{r}");
        // A counterexample is a vector of 1.1.2: upstream's loads and
        // replays; one under fixes the vector format refuses (a vector of
        // 1.1.2 is upstream), as the text says.
        if r["verdict"] == "refuted" {
            let cx = &r["counterexample"];
            assert_eq!(cx["spring_ai"], "1.1.2", "{r}");
            let read = toolcall_model::vectors::Vector::from_value(cx);
            if r["set"] == "upstream" {
                assert!(!read.unwrap().check().is_empty(), "{r}");
            } else {
                assert!(read.unwrap_err().to_string().contains("/fixes"), "{r}");
            }
        }
    }
}

#[test]
fn shards_carry_their_version() {
    let dir = scratch("spring-ai-shards");
    let shard = |k: &str, version: &str| {
        let (code, out, err) = run(&[
            "explore",
            "--exhaustive",
            "--bound",
            "tiny",
            "--shard",
            k,
            "--spring-ai",
            version,
            "--jobs",
            "1",
        ]);
        assert_eq!(code, 0, "{err}");
        let path = dir.join(format!("{}-{version}.json", k.replace('/', "of")));
        std::fs::write(&path, out).unwrap();
        path.display().to_string()
    };
    let (a, b) = (shard("1/2", "1.1.2"), shard("2/2", "1.1.2"));
    let other = shard("2/2", "2.0.1");
    let (code, out, err) = run(&["merge", &a, &b]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("every scenario of bound tiny, on Spring AI 1.1.2:"),
        "{out}"
    );
    let (code, whole, _) = run(&[
        "explore",
        "--exhaustive",
        "--bound",
        "tiny",
        "--spring-ai",
        "1.1.2",
        "--jobs",
        "1",
    ]);
    assert_eq!(code, 0);
    let table = |t: &str| {
        t.lines()
            .take_while(|l| !l.contains(" × "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(table(&out), table(&whole));
    let (code, out, err) = run(&["merge", &a, &other]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(err.contains("a shard of Spring AI 2.0.1, where the others are of 1.1.2: shards of different versions cannot be merged"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
