//! The command line's contract (docs/VECTORS.md): `verify`, `run`,
//! `convert`, and the main job.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::support::{bin, root, scratch};

fn run_with_stdin(args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    let mut child = Command::new(bin())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    let mut input = child.stdin.take().expect("stdin");
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().expect("binary finishes");
    writer.join().expect("writer");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn verify_ends_with_the_count_line_and_exit_status() {
    let dir = root().join("tests/vectors/manager");
    let (code, out, _) = run_with_stdin(&["verify", dir.to_str().unwrap()], b"");
    let last = out.lines().last().unwrap_or_default();
    assert!(
        last.ends_with(" failed") && last.contains(" passed, "),
        "last line: {last}"
    );
    assert_eq!(code, 0, "{out}");
    assert!(last.ends_with(", 0 failed"));
}

#[test]
fn verify_reports_a_broken_file_and_goes_on() {
    let dir = std::env::temp_dir().join(format!("tcm-verify-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a-broken.json"), b"{\"format\": ").unwrap();
    std::fs::copy(
        root()
            .join("tests/vectors/gemini")
            .read_dir()
            .unwrap()
            .flatten()
            .next()
            .unwrap()
            .path(),
        dir.join("b-good.json"),
    )
    .unwrap();
    let (code, out, _) = run_with_stdin(&["verify", dir.to_str().unwrap()], b"");
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(code, 1);
    assert!(out.contains("a-broken.json"), "{out}");
    assert!(out.contains("line 1 column"), "{out}");
    assert_eq!(out.lines().last(), Some("1 passed, 1 failed"));
}

#[test]
fn convert_plain_prints_the_object_or_the_error() {
    let (code, out, _) = run_with_stdin(&["convert"], b"{\"a\":1} trailing");
    assert_eq!((code, out.trim()), (0, "{\"a\":1}"));
    let (code, out, err) = run_with_stdin(&["convert"], b"Tool call limit (1) exceeded");
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert_eq!(
        err.trim(),
        "error: java.lang.RuntimeException: Failed to parse JSON: Tool call limit (1) exceeded"
    );
    let (code, out, _) = run_with_stdin(&["convert", "--fixes", "all"], b"3.0 + 5.0 = 8.0");
    assert_eq!((code, out.trim()), (0, "{\"result\":\"3.0 + 5.0 = 8.0\"}"));
    let (code, out, _) = run_with_stdin(&["convert", "--fixes", "error-key", "--error"], b"boom");
    assert_eq!((code, out.trim()), (0, "{\"error\":\"boom\"}"));
}

#[test]
fn convert_advised_prints_the_seed_workarounds_rewrite() {
    // The seed's GeminiToolTextAdvisor: a text not starting with {, [ or "
    // goes on as {"error":TEXT}; a text that does goes on as it is.
    let args = ["convert", "--fixes", "gemini-tool-text", "--advised"];
    let (code, out, _) = run_with_stdin(&args, b"disk \"full\"\n");
    assert_eq!(
        (code, out.trim()),
        (0, r#""{\"error\":\"disk \\\"full\\\"\\n\"}""#)
    );
    let (code, out, _) = run_with_stdin(&args, b"[1, 2");
    assert_eq!((code, out.trim()), (0, r#""[1, 2""#));
    // Without the advisor the text goes on unchanged; with --jsonl, one
    // {"ok": TEXT} per line.
    let (code, out, _) = run_with_stdin(&["convert", "--advised"], b"plain");
    assert_eq!((code, out.trim()), (0, r#""plain""#));
    let mut jsonl = args.to_vec();
    jsonl.push("--jsonl");
    let (code, out, _) = run_with_stdin(&jsonl, b"\"42\"\n\"{}\"\n");
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "{\"ok\":\"{\\\"error\\\":\\\"42\\\"}\"}\n{\"ok\":\"{}\"}\n"
        )
    );
    // The conversion under gemini-tool-text is the upstream conversion of
    // that rewrite.
    let (code, out, _) = run_with_stdin(&["convert", "--fixes", "gemini-tool-text"], b"42");
    assert_eq!((code, out.trim()), (0, r#"{"error":"42"}"#));
}

#[test]
fn convert_jsonl_answers_a_line_before_the_next_is_written() {
    // One process serves a caller that waits for each answer (the fix
    // library's Jazzer targets keep one open for a whole campaign).
    let mut child = Command::new(bin())
        .args(["convert", "--jsonl", "--fixes", "gemini-tool-text"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("binary runs");
    let mut input = child.stdin.take().expect("stdin");
    let output = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut lines = std::io::BufRead::lines(std::io::BufReader::new(output));
        while let Some(Ok(line)) = lines.next() {
            let _ = tx.send(line);
        }
    });
    let wait = std::time::Duration::from_secs(20);
    for (text, answer) in [
        ("\"plain\"", r#"{"ok":{"error":"plain"}}"#),
        ("\"[1]\"", r#"{"ok":{"result":[1]}}"#),
    ] {
        writeln!(input, "{text}").unwrap();
        input.flush().unwrap();
        assert_eq!(rx.recv_timeout(wait).as_deref(), Ok(answer));
    }
    drop(input);
    assert!(child.wait().unwrap().success());
}

#[test]
fn convert_jsonl_answers_every_line_in_order() {
    let input = b"\"42\"\nnot a literal\n\"x\"\n\xff\xfe\n\"{\\\"k\\\":true}\"\n";
    let (code, out, err) = run_with_stdin(&["convert", "--jsonl"], input);
    // Two lines were malformed: exit 1, and they are marked input_error.
    assert_eq!(code, 1);
    assert!(err.contains("2 of 5 lines"), "{err}");
    let lines: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 5);
    assert_eq!(lines[0], serde_json::json!({"ok": {"result": 42}}));
    assert!(
        lines[1]["input_error"]
            .as_str()
            .unwrap()
            .starts_with("line 2: not a JSON string literal")
    );
    assert_eq!(
        lines[2],
        serde_json::json!({"error": "java.lang.RuntimeException: Failed to parse JSON: x"})
    );
    assert!(
        lines[3]["input_error"]
            .as_str()
            .unwrap()
            .contains("line 4: not valid UTF-8")
    );
    assert_eq!(lines[4], serde_json::json!({"ok": {"k": true}}));
}

#[test]
fn convert_rejects_invalid_utf8_and_unknown_fixes_clearly() {
    let (code, _, err) = run_with_stdin(&["convert"], b"ab\xffcd");
    assert_eq!(code, 1);
    assert!(err.contains("not valid UTF-8 (byte 2)"), "{err}");
    let (code, _, err) = run_with_stdin(&["convert", "--fixes", "nope"], b"1");
    assert_eq!(code, 2);
    assert!(err.contains("unknown fix 'nope'"), "{err}");
}

#[test]
fn run_prints_the_expect_shape() {
    let f = root()
        .join("tests/vectors/gemini")
        .read_dir()
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    let (code, out, _) = run_with_stdin(&["run", f.to_str().unwrap()], b"");
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v.get("invocations").is_some(), "{out}");
}

#[test]
fn main_job_shows_the_configurations_that_change_the_answer() {
    let (code, out, _) = run_with_stdin(&["--json"], b"");
    assert_eq!(code, 0);
    let job: serde_json::Value = serde_json::from_str(&out).unwrap();
    let cell = |column: &str, set: &str| {
        job["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["set"] == set)
            .and_then(|r| {
                r["cells"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|c| c["column"] == column)
                    .cloned()
            })
            .unwrap_or_else(|| panic!("no cell {column}/{set}"))
    };
    // Every column states its assumptions.
    for c in job["columns"].as_array().unwrap() {
        assert!(c["assumptions"].as_str().unwrap().contains("Gemini"), "{c}");
    }
    let up = cell("breach/json-error-processor", "upstream");
    assert_eq!(up["survives"], false);
    assert!(up["detail"].as_str().unwrap().contains(
        "Failed to parse JSON: Tool call limit (1) exceeded for tool 'x'. No further calls to this tool are allowed in this turn."
    ));
    // breach-through-processor alone: fails with Spring's processor, works with the JSON one.
    assert_eq!(
        cell("breach/default-processor", "breach-through-processor")["survives"],
        false
    );
    assert_eq!(
        cell("breach/json-error-processor", "breach-through-processor")["survives"],
        true
    );
    assert_eq!(
        cell("breach/default-processor", "strict-json-or-wrap")["survives"],
        true
    );
    // THROW: dangling only with the memory inside the loop.
    for c in ["throw/memory-none", "throw/memory-outside"] {
        assert_eq!(cell(c, "upstream")["survives"], true, "{c}");
    }
    let dangling = cell("throw/memory-inside", "upstream");
    assert_eq!(dangling["mark"], "dangling");
    assert!(
        dangling["next_turn"]
            .as_str()
            .unwrap()
            .contains("number of function response parts")
    );
    // The long turn: the memory window evicts the turn inside the loop.
    assert_eq!(
        cell("long-turn/memory-outside", "upstream")["survives"],
        true
    );
    assert_eq!(
        cell("long-turn/memory-inside", "upstream")["survives"],
        false
    );
    for c in job["columns"].as_array().unwrap() {
        assert_eq!(
            cell(c["id"].as_str().unwrap(), "all")["survives"],
            true,
            "{c}"
        );
        assert!(c["problem"].is_string(), "{c}");
    }
    // The seed's workaround holds for the breach alone, not once another
    // tool round follows it (docs/BEHAVIOUR.md section 7).
    assert_eq!(
        cell("breach/default-processor", "gemini-tool-text")["survives"],
        true
    );
    assert_eq!(
        cell("breach-then-round/default-processor", "gemini-tool-text")["mark"],
        "parse"
    );
    // strict-json-or-wrap and error-key differ on a tool's plain text.
    assert_eq!(
        cell("plain/default-processor", "strict-json-or-wrap")["survives"],
        true
    );
    assert_eq!(
        cell("plain/default-processor", "error-key")["survives"],
        false
    );
    // The two upstream pull requests both wrap plain text; only PR 6049
    // refuses the trailing text of half-JSON, which PR 6907 still cuts.
    for set in ["pr-6907-wrap-on-failure", "pr-6049-strict-wrap"] {
        assert_eq!(
            cell("plain/default-processor", set)["survives"],
            true,
            "{set}"
        );
    }
    assert_eq!(
        cell("half-json/default-processor", "pr-6907-wrap-on-failure")["mark"],
        "lost"
    );
    assert_eq!(
        cell("half-json/default-processor", "pr-6049-strict-wrap")["survives"],
        true
    );
    // The turn that never ends: once a Gemini fix lets the loop go on
    // under RETURN_ERROR_RESPONSE, the repeating model runs away; all ends it.
    assert_eq!(
        cell("runaway/default-processor", "strict-json-or-wrap")["mark"],
        "runaway"
    );
    assert!(
        cell("runaway/default-processor", "all")["detail"]
            .as_str()
            .unwrap()
            .contains("the turn ends with the limit's answer")
    );
    let started = std::time::Instant::now();
    let (code, table, _) = run_with_stdin(&[], b"");
    assert_eq!(code, 0);
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    assert!(table.contains("upstream") && table.contains("gemini-tool-text"));
    assert!(table.contains("JSON-error") && table.contains("inside*"));
    assert!(table.contains("Issue 6902's breach"), "{table}");
    assert!(table.contains("The turn that never ends"), "{table}");
    assert!(
        table
            .replace('\n', " ")
            .contains("closed by strict-json-or-wrap, error-key, pr-6907-wrap-on-failure, pr-6049-strict-wrap, all."),
        "{table}"
    );
    assert!(
        table.replace('\n', " ").contains(
            "closed by strict-json-or-wrap, pr-6049-strict-wrap, all. error-key closes the exceptions' messages, not a tool's own text. pr-6907-wrap-on-failure wraps plain text but still cuts half-JSON to its first value."
        ),
        "{table}"
    );
    assert!(table.contains("breach-through-processor is enough only for teams that configured a JSON-error processor"), "{table}");
    for l in table.lines() {
        assert!(l.chars().count() <= 100, "wider than 100 columns: {l}");
    }
    // A row per behaviour set, and at most 46 lines of heading, legend and
    // the five problems, each naming the setup it rests on.
    let sets = toolcall_model::model::behavior_sets().len();
    assert!(table.lines().count() <= sets + 46, "{table}");
}

#[test]
fn a_closed_output_pipe_is_not_a_panic() {
    let mut child = Command::new(bin())
        .args(["verify", root().join("tests/vectors").to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    // Close our end of its standard output before it writes anything.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("binary finishes");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn convert_clips_the_echoed_input_and_marks_empty_lines() {
    let big = "x".repeat(50_000);
    let (code, _, err) = run_with_stdin(&["convert"], big.as_bytes());
    assert_eq!(code, 1);
    assert!(err.len() < 1_000, "{} bytes of stderr", err.len());
    assert!(err.contains("characters in all]"), "{err}");
    let (code, out, _) = run_with_stdin(&["convert", "--jsonl"], b"\"1\"\n\n");
    assert_eq!(code, 1);
    assert!(
        out.lines()
            .nth(1)
            .unwrap()
            .contains("an empty line is not a JSON string literal"),
        "{out}"
    );
    let (code, out, _) = run_with_stdin(&["convert", "--fixes", "all"], b"{ \"a\" : [1, 2] }");
    assert_eq!((code, out.trim()), (0, "{\"a\":[1,2]}"));
}

/// `check --streaming` plays every scenario as a streamed turn: the reply
/// with text and a call as two generations is read from its first
/// generation only, so the call never runs under any behaviour set, where
/// the blocking turn runs it.
#[test]
fn check_streaming_reports_the_call_a_streamed_reply_drops() {
    let dir = std::env::temp_dir().join(format!("toolcall-check-stream-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("application.properties");
    std::fs::write(&f, "spring.ai.tools.limits.max-calls-per-tool-default=3\n").unwrap();
    let text_call = |extra: &[&str]| {
        let mut args = vec!["check", f.to_str().unwrap(), "--json", "--fixes", "all"];
        args.extend_from_slice(extra);
        let (code, out, _) = run_with_stdin(&args, b"");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let all = v["sets"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["set"] == "all")
            .unwrap()
            .clone();
        let mark = all["verdicts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["column"] == "text+call")
            .unwrap()["mark"]
            .clone();
        (
            code,
            mark,
            v["setup"].as_str().unwrap_or_default().to_owned(),
        )
    };
    let (code, mark, setup) = text_call(&[]);
    assert_eq!((code, mark.as_str()), (0, Some("ok")), "{setup}");
    assert!(!setup.contains("stream"), "{setup}");
    let (code, mark, setup) = text_call(&["--streaming"]);
    assert_eq!((code, mark.as_str()), (1, Some("dropped")), "{setup}");
    assert!(setup.contains("streamed (ChatClient.stream())"), "{setup}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn check_answers_for_a_five_line_properties_file() {
    let dir = std::env::temp_dir().join(format!("toolcall-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("application.properties");
    std::fs::write(
        &f,
        "spring.ai.tools.limits.max-calls-per-tool-default=3\n\
         spring.ai.tools.limits.max-calls-per-tool.getWeather=1\n\
         spring.ai.tools.limits.excluded-tools=listFiles\n\
         spring.ai.tools.limits.on-limit-exceeded=RETURN_ERROR_RESPONSE\n\
         spring.ai.tools.limit.max-total-tool-calls=20\n",
    )
    .unwrap();
    let (code, out, _) = run_with_stdin(&["check", f.to_str().unwrap(), "--json"], b"");
    // Not safe under upstream: exit 1.
    assert_eq!(code, 1, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["asked"]["set"], "upstream");
    assert_eq!(v["asked"]["exit"], 1);
    assert_eq!(
        v["unknown_keys"][0]["suggestion"],
        "spring.ai.tools.limits.max-total-tool-calls"
    );
    let up = &v["sets"][0];
    assert_eq!(up["set"], "upstream");
    assert_eq!(up["safe"], false);
    assert!(
        up["verdicts"][0]["detail"]
            .as_str()
            .unwrap()
            .contains("Tool call limit (1) exceeded for tool 'getWeather'")
    );
    let all = v["sets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["set"] == "all")
        .unwrap();
    assert_eq!(all["safe"], true);
    // Safe under all: exit 0 when that set is asked for.
    let (code, _, _) = run_with_stdin(&["check", f.to_str().unwrap(), "--fixes", "all"], b"");
    assert_eq!(code, 0);
    // A value Spring's binding rejects: Spring's message, exit 2.
    std::fs::write(&f, "spring.ai.tools.limits.max-total-tool-calls=ten\n").unwrap();
    let (code, _, err) = run_with_stdin(&["check", f.to_str().unwrap()], b"");
    assert_eq!(code, 2);
    assert!(err.contains("Failed to bind properties under 'spring.ai.tools.limits.max-total-tool-calls' to java.lang.Integer"), "{err}");
    assert!(err.contains(r#"For input string: "ten""#), "{err}");
    std::fs::write(&f, "spring.ai.tools.limits.max-calls-per-tool-default=0\n").unwrap();
    let (code, _, err) = run_with_stdin(&["check", f.to_str().unwrap()], b"");
    assert_eq!(code, 2);
    assert!(
        err.contains("maxCallsPerTool must be greater than 0"),
        "{err}"
    );
    // The builder's refusal names the line and the property.
    assert!(
        err.contains("application.properties:1: spring.ai.tools.limits.max-calls-per-tool-default"),
        "{err}"
    );
    // YAML, and broken YAML: a clear error, never a panic.
    let y = dir.join("application.yml");
    std::fs::write(&y, "spring:\n  ai:\n    tools:\n      limits:\n        max-calls-per-tool:\n          getWeather: 010\n").unwrap();
    let (code, out, _) = run_with_stdin(&["check", y.to_str().unwrap(), "--json"], b"");
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("Tool call limit (8) exceeded"),
        "010 is octal 8 in YAML 1.1"
    );
    for bad in ["a: [1, 2", "a: 1\na: 2\n", &"[".repeat(100_000), "\u{0}"] {
        std::fs::write(&y, bad).unwrap();
        let (code, _, err) = run_with_stdin(&["check", y.to_str().unwrap()], b"");
        assert_eq!(code, 2, "{bad:.20}: {err}");
        assert!(
            err.starts_with("error: ") && !err.contains("panicked"),
            "{err}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

const CONVERT_42: &str = r#"{"format":"toolcall-model/1","name":"n","about":"a test","op":"convert_tool_response","input":{"text":"42"},"expect":EXPECT}"#;

#[test]
fn verify_without_any_vector_is_an_error() {
    let dir = scratch("verify-empty");
    let (code, out, err) = run_with_stdin(&["verify", dir.to_str().unwrap()], b"");
    assert_eq!(code, 1, "{out}{err}");
    assert!(err.contains("no vector found"), "{err}");
    let (code, _, err) = run_with_stdin(&["verify", "--json", dir.to_str().unwrap()], b"");
    assert_eq!(code, 1);
    assert!(err.contains("no vector found"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn verify_refuses_a_vector_that_expects_nothing() {
    let dir = scratch("verify-no-expect");
    std::fs::write(
        dir.join("empty-expect.json"),
        CONVERT_42.replace("EXPECT", "{}"),
    )
    .unwrap();
    std::fs::write(
        dir.join("no-expect.json"),
        CONVERT_42.replace(r#","expect":EXPECT"#, ""),
    )
    .unwrap();
    std::fs::write(
        dir.join("good.json"),
        CONVERT_42.replace("EXPECT", r#"{"response":{"result":42}}"#),
    )
    .unwrap();
    let (code, out, _) = run_with_stdin(&["verify", dir.to_str().unwrap()], b"");
    assert_eq!(code, 1, "{out}");
    let invalid: Vec<&str> = out.lines().filter(|l| l.starts_with("INVALID")).collect();
    assert_eq!(invalid.len(), 2, "{out}");
    assert!(
        out.contains("empty-expect.json") && out.contains("no expectation"),
        "{out}"
    );
    assert!(
        out.contains("no-expect.json") && out.contains("/expect"),
        "{out}"
    );
    assert_eq!(out.lines().last(), Some("1 passed, 2 failed"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn verify_json_prints_one_result_per_vector_before_or_after_the_subcommand() {
    let dir = scratch("verify-json");
    std::fs::write(
        dir.join("a-pass.json"),
        CONVERT_42.replace("EXPECT", r#"{"response":{"result":42}}"#),
    )
    .unwrap();
    std::fs::write(
        dir.join("b-fail.json"),
        CONVERT_42.replace("EXPECT", r#"{"response":{"result":41}}"#),
    )
    .unwrap();
    std::fs::write(dir.join("c-broken.json"), b"{").unwrap();
    for args in [
        vec!["verify", "--json", dir.to_str().unwrap()],
        vec!["--json", "verify", dir.to_str().unwrap()],
    ] {
        let (code, out, err) = run_with_stdin(&args, b"");
        assert_eq!(code, 1, "{args:?}");
        let lines: Vec<serde_json::Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
            .collect();
        assert_eq!(lines.len(), 3, "{out}");
        assert_eq!(lines[0]["result"], "passed");
        assert_eq!(lines[0]["name"], "n");
        assert_eq!(lines[1]["result"], "failed");
        assert!(
            lines[1]["differences"][0]
                .as_str()
                .unwrap()
                .contains("/response")
        );
        assert_eq!(lines[2]["result"], "invalid");
        assert!(
            lines[2]["file"]
                .as_str()
                .unwrap()
                .ends_with("c-broken.json")
        );
        assert!(lines[2]["reason"].as_str().unwrap().contains("line 1"));
        assert_eq!(err.trim(), "1 passed, 2 failed");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn json_before_a_subcommand_without_json_is_refused() {
    let (code, out, err) = run_with_stdin(&["--json", "convert"], b"42");
    assert_eq!(code, 2);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(
        v["error"]
            .as_str()
            .unwrap()
            .starts_with("--json before `convert` is not supported"),
        "{out}"
    );
    assert!(
        err.contains("--json before `convert` is not supported"),
        "{err}"
    );
}

/// A line clap refuses answers in JSON wherever `--json` stands (before
/// or after the subcommand), and as clap prints it without `--json`; a
/// `--json` after `--` is a value, not a request for JSON.
#[test]
fn usage_errors_under_json_are_json() {
    for args in [
        &["--json", "--bogus"][..],
        &["explore", "--json", "--bound", "nope"],
        &["check", "--json", "--memory"],
        &["--json", "explore", "--shard", "3/2"],
    ] {
        let (code, out, err) = run_with_stdin(args, b"");
        assert_eq!(code, 2, "{args:?}");
        let v: serde_json::Value = serde_json::from_str(&out).expect("JSON on stdout");
        let msg = v["error"].as_str().unwrap();
        assert!(!msg.is_empty() && !msg.starts_with("error:"), "{msg}");
        // Standard error keeps clap's text, its first line the message.
        assert_eq!(err.lines().next(), Some(format!("error: {msg}").as_str()));
    }
    let (code, out, err) = run_with_stdin(&["explore", "--bound", "nope"], b"");
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(err.starts_with("error: invalid value 'nope'"), "{err}");
    let (code, out, _) = run_with_stdin(&["run", "--", "--json"], b"");
    assert_eq!(code, 2);
    assert!(!out.contains("\"error\""), "{out}");
    let (code, out, _) = run_with_stdin(&["--json", "--help"], b"");
    assert_eq!(code, 0);
    assert!(out.starts_with("Reference model"), "{out}");
}

#[test]
fn explore_refuses_zero_cases_and_says_too_few() {
    let (code, _, err) = run_with_stdin(&["explore", "--cases", "0"], b"");
    assert_eq!(code, 2);
    assert!(err.contains("0 cases would check nothing"), "{err}");
    // Three cases per cell: no cell has 100 applicable cases to say holds.
    let (code, out, _) = run_with_stdin(&["--json", "explore", "--cases", "3"], b"");
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["mode"], "random");
    let results = v["results"].as_array().unwrap();
    assert!(!results.is_empty());
    for r in results {
        assert_ne!(r["verdict"], "holds", "{r}");
        assert!(r["applicable"].as_u64().unwrap() <= 3);
        assert!(r["precondition"].is_string());
    }
    let (_, text, _) = run_with_stdin(&["explore", "--cases", "3"], b"");
    assert!(text.contains("too few"), "{text}");
    assert!(!text.contains(": holds:"), "{text}");
    assert!(
        !(0..=3).any(|n| text.contains(&format!("holds {n}/"))),
        "{text}"
    );
}

#[test]
fn exhaustive_counterexamples_are_refuted_by_verify() {
    let (code, out, err) = run_with_stdin(
        &["explore", "--exhaustive", "--bound", "tiny", "--json"],
        b"",
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["mode"], "exhaustive");
    assert_eq!(v["bound"]["name"], "tiny");
    let scenarios = v["scenarios"].as_u64().unwrap();
    let results = v["results"].as_array().unwrap();
    let cell = |set: &str, inv: &str| {
        results
            .iter()
            .find(|r| r["set"] == set && r["invariant"] == inv)
            .unwrap_or_else(|| panic!("no cell {set} × {inv}"))
    };
    assert_eq!(cell("upstream", "limits")["verdict"], "proved");
    assert_eq!(cell("upstream", "limits")["scenarios"], scenarios);
    let dir = scratch("exhaustive-cx");
    for inv in ["json-safe", "gemini-safe", "lossless", "transcript-valid"] {
        let c = cell("upstream", inv);
        assert_eq!(c["verdict"], "refuted", "{inv}");
        let file = dir.join(format!("{inv}.json"));
        std::fs::write(&file, c["counterexample"].to_string()).unwrap();
        let (code, out, _) = run_with_stdin(&["verify", file.to_str().unwrap()], b"");
        assert_eq!(
            code, 1,
            "{inv}: the counterexample should fail verify:\n{out}"
        );
        assert!(out.starts_with("FAIL "), "{out}");
    }
    std::fs::remove_dir_all(&dir).ok();
    // --out writes every counterexample as a vector file that verify
    // replays (and fails, showing the refutation); the text only names them.
    let out_dir = scratch("exhaustive-out");
    let (code, text, err) = run_with_stdin(
        &[
            "explore",
            "--exhaustive",
            "--bound",
            "tiny",
            "--out",
            out_dir.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(code, 0, "{err}");
    assert!(!text.contains("\"format\""), "no vector JSON in the text");
    assert!(
        text.contains("counterexample explore-upstream-json-safe.json"),
        "{text}"
    );
    assert!(out_dir.join("explore-upstream-json-safe.json").is_file());
    let (code, out, _) = run_with_stdin(&["verify", out_dir.to_str().unwrap()], b"");
    assert_eq!(code, 1);
    assert!(
        out.contains(" passed, ") && out.contains("0 passed"),
        "{out}"
    );
    std::fs::remove_dir_all(&out_dir).ok();
    let (_, text, _) = run_with_stdin(&["explore", "--exhaustive", "--bound", "tiny"], b"");
    assert!(text.contains("proved ("), "{text}");
    assert!(text.contains("bound tiny"), "{text}");
    assert!(
        text.contains("`toolcall-model verify FILE.json` shows the refutation"),
        "{text}"
    );
}

/// `gen --expect model` writes vectors whose expect is the model's own
/// output, so that `verify` passes every one.
#[test]
fn generated_vectors_with_the_models_expect_verify() {
    let dir = scratch("gen-expect");
    let (code, _, err) = run_with_stdin(
        &[
            "gen",
            "--count",
            "60",
            "--seed",
            "4",
            "--out",
            dir.to_str().unwrap(),
            "--expect",
            "model",
        ],
        b"",
    );
    assert_eq!(code, 0, "{err}");
    let (code, out, _) = run_with_stdin(&["verify", dir.to_str().unwrap()], b"");
    assert_eq!(code, 0, "{out}");
    assert!(out.trim_end().ends_with("60 passed, 0 failed"), "{out}");
    // Seed 1 draws a history whose converted request nests deeper than a
    // vector may: refused by name, not written as a file that never loads.
    let (code, _, err) = run_with_stdin(
        &[
            "gen",
            "--count",
            "60",
            "--seed",
            "1",
            "--out",
            dir.to_str().unwrap(),
            "--expect",
            "model",
            "--force",
        ],
        b"",
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("gen-1-41-gemini_request: the model's output nests"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `gen --expect java` without the runner is a clear error, exit 2, and
/// nothing is written.
#[test]
fn generated_vectors_with_java_expect_need_the_runner() {
    let dir = scratch("gen-expect-java-absent");
    let absent = dir.join("no-runner");
    let (code, _, err) = run_with_stdin(
        &[
            "gen",
            "--count",
            "3",
            "--out",
            dir.join("out").to_str().unwrap(),
            "--expect",
            "java",
            "--runner",
            absent.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("conformance runner") && err.contains("is absent"),
        "{err}"
    );
    assert!(
        !dir.join("out").exists() || std::fs::read_dir(dir.join("out")).unwrap().next().is_none()
    );
    // A runner that answers nothing fails the same way.
    let (code, _, err) = run_with_stdin(
        &[
            "gen",
            "--count",
            "3",
            "--out",
            dir.join("out").to_str().unwrap(),
            "--expect",
            "java",
            "--runner",
            "/bin/true",
            "--force",
        ],
        b"",
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("the runner ended before answering"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `explore --fixes LIST` adds a column for a combination of one's own.
#[test]
fn explore_takes_a_combination_of_fixes() {
    let (code, out, err) = run_with_stdin(
        &[
            "explore",
            "--cases",
            "3",
            "--fixes",
            "error-key,close-dangling-calls",
            "--json",
        ],
        b"",
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let mine = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["set"] == "error-key+close-dangling-calls")
        .count();
    assert_eq!(
        mine,
        toolcall_check::verification::invariants::Invariant::ALL.len()
    );
    let (code, _, err) = run_with_stdin(&["explore", "--cases", "3", "--fixes", "nope"], b"");
    assert_eq!(code, 2, "{err}");
}

/// `run FILE --fixes LIST` runs a vector under another combination of fixes.
#[test]
fn run_takes_a_combination_of_fixes() {
    let f = root().join("tests/vectors/loop/memory-inside-throw-leaves-dangling-call.json");
    let f = f.to_str().unwrap();
    let (code, out, _) = run_with_stdin(&["run", f], b"");
    assert_eq!(code, 0);
    let up: serde_json::Value = serde_json::from_str(&out).unwrap();
    let (code, out, err) = run_with_stdin(
        &["run", f, "--fixes", "error-key,close-dangling-calls"],
        b"",
    );
    assert_eq!(code, 0, "{err}");
    let fixed: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_ne!(up, fixed);
    assert!(!out.contains("\"accepted\": false"), "{out}");
    let (code, _, _) = run_with_stdin(&["run", f, "--fixes", "nope"], b"");
    assert_eq!(code, 2);
}

/// `explore --exhaustive --shard K/N` on two shards, then `merge` of the
/// two files: the matrix and the counterexamples of one run.
#[test]
fn two_exhaustive_shards_merge_into_one_run() {
    let dir = scratch("shards");
    let mut files = Vec::new();
    for k in [1, 2] {
        let shard = format!("{k}/2");
        let (code, out, err) = run_with_stdin(
            &[
                "explore",
                "--exhaustive",
                "--bound",
                "tiny",
                "--shard",
                &shard,
                "--jobs",
                "1",
            ],
            b"",
        );
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(v["mode"], "exhaustive-shard");
        assert_eq!(v["shard"], shard.as_str());
        let file = dir.join(format!("shard-{k}.json"));
        std::fs::write(&file, out).unwrap();
        files.push(file.to_str().unwrap().to_owned());
    }
    let one = |args: &[&str]| {
        let (code, out, err) = run_with_stdin(args, b"");
        assert_eq!(code, 0, "{err}");
        out
    };
    let merged: serde_json::Value =
        serde_json::from_str(&one(&["merge", "--json", &files[1], &files[0]])).unwrap();
    let whole: serde_json::Value = serde_json::from_str(&one(&[
        "explore",
        "--exhaustive",
        "--bound",
        "tiny",
        "--json",
        "--jobs",
        "1",
    ]))
    .unwrap();
    for k in ["mode", "bound", "scenarios", "evaluated"] {
        assert_eq!(merged[k], whole[k], "{k}");
    }
    let (m, w) = (
        merged["results"].as_array().unwrap(),
        whole["results"].as_array().unwrap(),
    );
    assert_eq!(m.len(), w.len());
    for (m, w) in m.iter().zip(w) {
        let cell = format!("{} × {}", w["set"], w["invariant"]);
        for k in [
            "set",
            "invariant",
            "verdict",
            "size",
            "wanted",
            "counterexample",
        ] {
            assert_eq!(m[k], w[k], "{cell}: {k}");
        }
        if w["verdict"] != "refuted" {
            // A refuted cell stops counting once refuted; a proved one
            // counts every scenario.
            assert_eq!(m["scenarios"], w["scenarios"], "{cell}");
            assert_eq!(m["applicable"], w["applicable"], "{cell}");
        }
    }
    // The text matrix is the one run's.
    let text = one(&["merge", &files[0], &files[1]]);
    let whole_text = one(&["explore", "--exhaustive", "--bound", "tiny", "--jobs", "1"]);
    let table = |t: &str| {
        t.lines()
            .take_while(|l| !l.contains(" × "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(table(&text), table(&whole_text));
    // A shard missing, or given twice, is refused.
    let (code, _, err) = run_with_stdin(&["merge", &files[0]], b"");
    assert_eq!(code, 2);
    assert!(err.contains("2/2 is missing"), "{err}");
    let (code, _, err) = run_with_stdin(&["merge", &files[0], &files[0]], b"");
    assert_eq!(code, 2);
    assert!(err.contains("twice"), "{err}");
    // A shard's file whose counterexample is not a scenario of that shard
    // (an index past the bound once panicked), or whose counts cannot be a
    // run, is refused with the cell.
    let shard1: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&files[0]).unwrap()).unwrap();
    let refuted = shard1["cells"]
        .as_array()
        .unwrap()
        .iter()
        .position(|c| !c["first"].is_null())
        .expect("shard 1/2 refutes a cell");
    let tampered = |edit: &dyn Fn(&mut serde_json::Value), needle: &str| {
        let mut v = shard1.clone();
        edit(&mut v["cells"][refuted]);
        let f = dir.join("tampered.json");
        std::fs::write(&f, v.to_string()).unwrap();
        let (code, _, err) = run_with_stdin(&["merge", f.to_str().unwrap(), &files[1]], b"");
        assert_eq!(code, 2, "{needle}: {err}");
        assert!(err.contains(needle), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    };
    tampered(
        &|c| c["first"]["index"] = serde_json::json!(99_999_999_999u64),
        "is not one of shard 1/2",
    );
    tampered(
        &|c| c["first"]["size"] = serde_json::json!(c["first"]["size"].as_u64().unwrap() + 1),
        "is not one of shard 1/2",
    );
    tampered(
        &|c| c["scenarios"] = serde_json::json!(u64::MAX),
        "where the bound has 2056",
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `gen --shard K/N`: the shards of one seed and count write, between
/// them, exactly the files one run writes.
#[test]
fn generated_shards_write_the_files_of_one_run() {
    let generate = |dir: &std::path::Path, shard: Option<&str>| {
        let mut args = vec![
            "gen",
            "--count",
            "40",
            "--seed",
            "6",
            "--out",
            dir.to_str().unwrap(),
            "--expect",
            "model",
        ];
        if let Some(s) = shard {
            args.extend(["--shard", s]);
        }
        let (code, out, err) = run_with_stdin(&args, b"");
        assert_eq!(code, 0, "{err}");
        out
    };
    let files = |dir: &std::path::Path| {
        let mut v: Vec<(String, String)> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| {
                (
                    p.file_name().unwrap().to_str().unwrap().to_owned(),
                    std::fs::read_to_string(&p).unwrap(),
                )
            })
            .collect();
        v.sort();
        v
    };
    let (one, shards) = (scratch("gen-one"), scratch("gen-shards"));
    generate(&one, None);
    assert!(generate(&shards, Some("1/3")).starts_with("wrote 14 vectors"));
    assert!(generate(&shards, Some("3/3")).starts_with("wrote 13 vectors"));
    assert!(generate(&shards, Some("2/3")).starts_with("wrote 13 vectors"));
    assert_eq!(files(&one).len(), 40);
    assert_eq!(files(&shards), files(&one));
    std::fs::remove_dir_all(&one).ok();
    std::fs::remove_dir_all(&shards).ok();
}

/// Runs the binary with `args`, no input: exit code, stdout, stderr.
fn run_args(args: &[&str]) -> (i32, String, String) {
    run_with_stdin(args, b"")
}

#[test]
fn bad_input_is_exit_2_for_every_command() {
    let dir = scratch("bad-input-2");
    let d = dir.to_str().unwrap();
    let absent = dir.join("absent.json");
    let (code, _, err) = run_args(&["run", absent.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("absent.json: cannot read"), "{err}");
    let (code, _, err) = run_args(&["conform", absent.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = run_args(&["gen", "--count", "1", "--out", d, "--ops", "bogus"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("unknown op 'bogus'"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn conform_without_files_counts_each_file_once() {
    // 50,000 copies of one agreeing answer counted 50,000 passes.
    let dir = scratch("conform-copies");
    let v = root().join("tests/vectors/gemini/assistant-nbsp-text-kept.json");
    let (code, out, _) = run_args(&["run", v.to_str().unwrap()]);
    assert_eq!(code, 0);
    let mut result: serde_json::Value = serde_json::from_str(&out).unwrap();
    result.as_object_mut().unwrap().remove("api");
    let line = serde_json::json!({"path": v, "status": "result", "result": result}).to_string();
    let answers = dir.join("answers.jsonl");
    std::fs::write(&answers, format!("{line}\n").repeat(3)).unwrap();
    let (code, out, err) = run_args(&["conform", answers.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(out.lines().last(), Some("1 passed, 2 failed"), "{out}");
    assert_eq!(
        out.matches("answered twice by the runner").count(),
        2,
        "{out}"
    );
    assert!(
        err.contains("without --files, each file counts once"),
        "{err}"
    );
    std::fs::write(&answers, format!("{line}\n")).unwrap();
    let (code, out, _) = run_args(&["conform", answers.to_str().unwrap()]);
    assert_eq!(
        (code, out.lines().last()),
        (0, Some("1 passed, 0 failed")),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn shard_counts_past_the_bound_are_refused_not_wrapped() {
    // `from += n * CHUNK` wrapped: shard 1/288230376151711745 ran all 2,056
    // scenarios of the tiny bound, 5/18446744073709551615 ran 320.
    for shard in ["1/288230376151711745", "5/18446744073709551615", "1/34"] {
        let (code, out, err) = run_args(&[
            "explore",
            "--exhaustive",
            "--bound",
            "tiny",
            "--shard",
            shard,
        ]);
        assert_eq!(code, 2, "{shard}: {out}{err}");
        assert!(
            err.contains(&format!(
                "error: --shard {shard}: the bound has 2056 scenarios, 33 blocks of 64: at most 33 shards"
            )),
            "{err}"
        );
        assert!(out.is_empty());
    }
    let (code, _, err) = run_args(&[
        "explore",
        "--exhaustive",
        "--bound",
        "tiny",
        "--shard",
        "33/33",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("shard 33/33: 8 scenarios"), "{err}");
}

#[test]
fn explore_checks_out_before_the_run_and_stops_at_one_error() {
    // A folder that cannot be written to was found after the whole run,
    // with an error per counterexample and "0 counterexample(s) written".
    let dir = scratch("explore-out");
    let file = dir.join("a-file");
    std::fs::write(&file, "").unwrap();
    for out_dir in [file.join("sub"), std::path::PathBuf::from("/proc/self")] {
        let o = out_dir.to_str().unwrap();
        for args in [
            vec!["explore", "--exhaustive", "--bound", "tiny", "--out", o],
            vec!["explore", "--cases", "1", "--out", o],
        ] {
            let (code, out, err) = run_args(&args);
            assert_eq!(code, 2, "{args:?}: {err}");
            assert_eq!(err.matches("error:").count(), 1, "{err}");
            assert!(
                err.contains(&format!("error: --out {o}: cannot write there")),
                "{err}"
            );
            assert!(
                !err.contains("explore --exhaustive: 2056"),
                "the run started: {err}"
            );
            assert!(!err.contains("written"), "{err}");
            assert!(out.is_empty());
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn check_names_a_directory_an_empty_file_and_an_unreadable_one() {
    let dir = scratch("check-names");
    let d = dir.to_str().unwrap();
    let (code, _, err) = run_args(&["check", d]);
    assert_eq!(code, 2);
    assert!(
        err.contains(&format!("{d}: a directory, not a file")),
        "{err}"
    );
    let (code, _, err) = run_args(&["check", d, "--format", "properties"]);
    assert_eq!(code, 2);
    assert!(
        err.contains(&format!("{d}: a directory, not a file")),
        "{err}"
    );
    // Empty: Spring Boot binds nothing from it, so the answer is the
    // defaults', and the file is named.
    let empty = dir.join("application.properties");
    std::fs::write(&empty, "").unwrap();
    let e = empty.to_str().unwrap();
    let (code, out, _) = run_args(&["check", e]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.starts_with(&format!("{e}: Spring Boot reads\n")),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "note: {e}: no property in it (an empty file): Spring Boot binds nothing from it"
        )),
        "{out}"
    );
    let (_, out, _) = run_args(&["check", e, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["files"], serde_json::json!([e]));
    // Unreadable: said, and with --json a JSON object says it too.
    let absent = dir.join("absent.properties");
    let a = absent.to_str().unwrap();
    let (code, out, err) = run_args(&["check", a, "--json"]);
    assert_eq!(code, 2);
    assert!(
        err.contains(&format!("{a}: cannot read: No such file")),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["file"], a);
    assert!(
        v["not_read"]
            .as_str()
            .unwrap()
            .starts_with("cannot read: No such file"),
        "{v}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn every_command_takes_and_lists_the_same_behaviour_set_names() {
    let dir = scratch("set-names");
    let f = dir.join("application.properties");
    std::fs::write(&f, "").unwrap();
    let v = root().join("tests/vectors/gemini/assistant-nbsp-text-kept.json");
    let (f, v) = (f.to_str().unwrap(), v.to_str().unwrap());
    for names in [
        "upstream",
        "all",
        "gemini-tool-text",
        "error-key,gemini-tool-text",
    ] {
        let (code, _, err) = run_with_stdin(&["convert", "--fixes", names], b"42");
        assert_eq!(code, 0, "convert --fixes {names}: {err}");
        let (code, _, err) = run_args(&["run", v, "--fixes", names]);
        assert_eq!(code, 0, "run --fixes {names}: {err}");
        let (code, _, err) = run_args(&["check", f, "--fixes", names]);
        assert!(code == 0 || code == 1, "check --fixes {names}: {err}");
    }
    let mut lists = Vec::new();
    for args in [
        vec!["convert", "--fixes", "nonsense"],
        vec!["run", v, "--fixes", "nonsense"],
        vec!["check", f, "--fixes", "nonsense"],
        vec!["explore", "--cases", "1", "--fixes", "nonsense"],
    ] {
        let (code, _, err) = run_args(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        let known = err.split_once("(known: ").map(|(_, k)| k.trim().to_owned());
        let known = known.unwrap_or_else(|| panic!("{args:?}: {err}"));
        for name in ["upstream", "all", "gemini-tool-text", "error-key"] {
            assert!(known.contains(name), "{args:?}: {err}");
        }
        lists.push(known);
    }
    assert!(lists.windows(2).all(|w| w[0] == w[1]), "{lists:?}");
    // The workaround advisor rewrites a text it does not take for JSON
    // before Gemini's conversion.
    let (code, out, _) = run_with_stdin(&["convert", "--fixes", "gemini-tool-text"], b"boom");
    assert_eq!((code, out.trim()), (0, "{\"error\":\"boom\"}"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn names_and_values_are_escaped_in_every_text_line() {
    let dir = scratch("escape-check");
    // A file name with a newline and an escape, in an error line.
    let odd = dir.join("a\nb\u{1b}[2J.properties");
    std::fs::write(&odd, "spring.ai.tools.limits.max-total-tool-calls=x\n").unwrap();
    let (code, _, err) = run_args(&["check", odd.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(!err.contains('\u{1b}'), "{err}");
    assert!(err.contains("a\\nb\\u{1b}[2J.properties:1:"), "{err}");
    // A value with a newline, in a refusal's Value: line.
    let f = dir.join("application.properties");
    std::fs::write(
        &f,
        "spring.ai.tools.limits.max-total-tool-calls=1\\n\\u001b[2JReason: forged\n",
    )
    .unwrap();
    let (code, _, err) = run_args(&["check", f.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(!err.contains('\u{1b}'), "{err}");
    assert_eq!(
        err.lines()
            .filter(|l| l.trim_start().starts_with("Reason:"))
            .count(),
        1,
        "{err}"
    );
    assert!(
        err.contains("Value: \"1\\n\\u{1b}[2JReason: forged\""),
        "{err}"
    );
    // A newline in --profile, in the header.
    std::fs::write(&f, "").unwrap();
    let (_, out, _) = run_args(&[
        "check",
        f.to_str().unwrap(),
        "--profile",
        "a\nVerdict: safe",
    ]);
    assert!(
        out.lines()
            .next()
            .unwrap()
            .contains("(profiles a\\nVerdict: safe)"),
        "{out}"
    );
    assert!(
        !out.lines().any(|l| l.starts_with("Verdict: safe")),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_build_files_version_is_read_where_it_is_defined() {
    // Kotlin's `by extra(...)` read as "Spring AI by extra(", `extra[...]`
    // as "] =", a Groovy use before its `ext {}` block as "}", and a
    // commented-out <spring-ai.version> won over the real one.
    let dir = scratch("build-versions");
    let app = dir.join("application.properties");
    std::fs::write(&app, "spring.ai.tools.limits.on-limit-exceeded=THROW\n").unwrap();
    let cases = [
        (
            "a.gradle.kts",
            "val springAiVersion by extra(\"2.0.0\")\ndependencies { implementation(platform(\"org.springframework.ai:spring-ai-bom:${springAiVersion}\")) }\n",
            "Spring AI 2.0.0: answered for 2.0.0",
        ),
        (
            "b.gradle.kts",
            "extra[\"springAiVersion\"] = \"2.0.0\"\ndependencies { implementation(platform(\"org.springframework.ai:spring-ai-bom:${extra[\"springAiVersion\"]}\")) }\n",
            "Spring AI 2.0.0: answered for 2.0.0",
        ),
        (
            "c.gradle",
            "dependencies {\n  implementation platform(\"org.springframework.ai:spring-ai-bom:${springAiVersion}\") // see https://x\n}\next {\n  springAiVersion = '2.0.0' // springAiVersion = '9'\n}\n",
            "Spring AI 2.0.0: answered for 2.0.0",
        ),
        (
            "pom.xml",
            "<project>\n<properties>\n<!-- <spring-ai.version>1.0.0</spring-ai.version> -->\n<spring-ai.version>2.0.1</spring-ai.version>\n</properties>\n</project>\n",
            "pom.xml: Spring AI 2.0.1\n",
        ),
        (
            "d.gradle.kts",
            "val springAiVersion = findProperty(\"springAiVersion\") as String\n",
            "Spring AI `findProperty(\"springAiVersion\")`: cannot be read as a version; answered for 2.0.1",
        ),
    ];
    for (name, text, says) in cases {
        let build = dir.join(name);
        std::fs::write(&build, text).unwrap();
        let (code, out, err) = run_args(&[
            "check",
            app.to_str().unwrap(),
            "--build",
            build.to_str().unwrap(),
        ]);
        assert!(code == 0 || code == 1, "{name}: {err}");
        assert!(out.contains(says), "{name}: {out}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// On Spring AI 2.0.0 the fix library starts, but the fixes that change
/// the manager read 2.0.1's internals and stay off: advice that needs one
/// says so and names it; advice that needs none does not.
#[test]
fn advice_on_2_0_0_names_the_fixes_that_need_2_0_1() {
    let dir = scratch("advice-2-0-0");
    let app = dir.join("application.properties");
    std::fs::write(&app, "spring.application.name=x\n").unwrap();
    let pom = dir.join("pom.xml");
    std::fs::write(
        &pom,
        "<project><dependencyManagement><dependencies><dependency><groupId>org.springframework.ai</groupId><artifactId>spring-ai-bom</artifactId><version>2.0.0</version></dependency></dependencies></dependencyManagement></project>\n",
    )
    .unwrap();
    let (a, b) = (app.to_str().unwrap(), pom.to_str().unwrap());
    // Memory inside: the unknown tool leaves a call unanswered, which only
    // close-dangling-calls (a manager fix) closes.
    let (code, out, err) = run_args(&[
        "check",
        a,
        "--build",
        b,
        "--memory",
        "inside",
        "--accept-finding",
        "repeats runaway",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("Spring AI 2.0.0: answered for 2.0.0"), "{out}");
    assert!(
        out.contains("on Spring AI 2.0.0 the fix library runs without the fixes that read 2.0.1's manager (close-dangling-calls): upgrade to 2.0.1 for those"),
        "{out}"
    );
    assert!(!out.contains("upgrade from"), "{out}");
    // No memory: the conversion fix alone, which runs on 2.0.0.
    let (code, out, err) = run_args(&[
        "check",
        a,
        "--build",
        b,
        "--memory",
        "none",
        "--accept-finding",
        "repeats runaway",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("toolcall.fixes.strict-json-or-wrap=true"),
        "{out}"
    );
    assert!(!out.contains("read 2.0.1's manager"), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `--strict-keys` fails on every key under `spring.ai.tools` Spring does
/// not bind, near a known key or not, and the answer then never says
/// "nothing to change"; the setup line states the tool-output assumption;
/// the fix library's switches are advised in the file's own syntax.
#[test]
fn check_speaks_the_files_language_and_names_every_ignored_key() {
    let dir = scratch("check-intent");
    let props = dir.join("application.properties");
    std::fs::write(
        &props,
        "spring.ai.tools.limits.total-calls-max=3\nspring.ai.tools.callLimit=2\n",
    )
    .unwrap();
    let p = props.to_str().unwrap();
    let (code, out, err) = run_with_stdin(
        &[
            "check",
            p,
            "--strict-keys",
            "--tools",
            "json",
            "--processor",
            "json-error",
        ],
        b"",
    );
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("error: line 1: Spring ignores 'spring.ai.tools.limits.total-calls-max'\n"),
        "{out}"
    );
    assert!(
        out.contains("error: line 2: Spring ignores 'spring.ai.tools.callLimit'\n"),
        "{out}"
    );
    assert!(!out.contains("nothing to change"), "{out}");
    assert!(
        out.contains("2 key(s) Spring ignores (--strict-keys)"),
        "{out}"
    );
    assert!(out.contains("tools return JSON (--tools json)"), "{out}");
    let (_, json, _) = run_with_stdin(
        &["check", p, "--json", "--tools", "json,getWeather=text"],
        b"",
    );
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(
        v["setup"]
            .as_str()
            .unwrap()
            .ends_with("tools return JSON, getWeather plain text (--tools json,getWeather=text)"),
        "{v}"
    );
    let yml = dir.join("application.yml");
    std::fs::write(
        &yml,
        "spring:\n  ai:\n    tools:\n      limits:\n        on-limit-exceeded: RETURN_ERROR_RESPONSE\n        max-calls-per-tool-default: 1\n",
    )
    .unwrap();
    let (code, out, _) = run_with_stdin(&["check", yml.to_str().unwrap()], b"");
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(
            "in application.yml:\n    toolcall:\n      fixes:\n        strict-json-or-wrap: true\n"
        ),
        "{out}"
    );
    assert!(!out.contains("toolcall.fixes."), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Accepted findings are exact: a line given twice is one finding (not
/// stale when it matches), a stale one is named even when the setup
/// passes, and an unknown set or mark is an error (exit 2) with its line.
#[test]
fn accepted_findings_are_exact() {
    let dir = scratch("accept-exact");
    let unsafe_file = dir.join("unsafe.properties");
    std::fs::write(
        &unsafe_file,
        "spring.ai.tools.limits.on-limit-exceeded=THROW\n",
    )
    .unwrap();
    let u = unsafe_file.to_str().unwrap();
    let twice = dir.join("twice");
    std::fs::write(&twice, "throws parse\nthrows parse # again\n").unwrap();
    let (code, out, err) = run_with_stdin(
        &[
            "check",
            u,
            "--tools",
            "json",
            "--accept",
            twice.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains("note:"), "{out}");
    // Safe setup: the acceptance is stale, and said so, exit 0.
    let (code, out, _) = run_with_stdin(
        &[
            "check",
            u,
            "--tools",
            "json",
            "--processor",
            "json-error",
            "--accept",
            twice.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(code, 0, "{out}");
    assert_eq!(out.matches("note: ").count(), 1, "{out}");
    assert!(
        out.contains("accepts throws (parse), which does not break so under upstream"),
        "{out}"
    );
    for (line, why) in [
        ("throws parse upstreem\n", "'upstreem' is no behaviour set"),
        (
            "throws prase\n",
            "'prase' is no mark a scenario breaks with",
        ),
        ("throws ok\n", "'ok' is no mark a scenario breaks with"),
    ] {
        let f = dir.join("bad");
        std::fs::write(&f, line).unwrap();
        let (code, _, err) = run_with_stdin(&["check", u, "--accept", f.to_str().unwrap()], b"");
        assert_eq!(code, 2, "{line}: {err}");
        assert!(err.contains(":1: ") && err.contains(why), "{err}");
    }
    // A set of fix names joined by + is a set.
    let (code, _, err) = run_with_stdin(
        &[
            "check",
            u,
            "--accept-finding",
            "throws parse error-key+keep-current-turn",
        ],
        b"",
    );
    assert_ne!(code, 2, "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The file is the team's intent: the fix library's switches written into
/// it are the set answered for (the advice applied makes the answer
/// change), the library's rule fills an unset switch once a build file
/// declares the starter (not in an inactive Maven profile), and a
/// streamed setup whose remaining finding is accepted gets the switches.
#[test]
fn check_answers_for_the_switches_in_the_file() {
    let dir = scratch("check-switches");
    let breach = "spring.ai.tools.limits.on-limit-exceeded=RETURN_ERROR_RESPONSE\n\
                  spring.ai.tools.limits.max-calls-per-tool-default=1\n";
    let plain = dir.join("application.properties");
    std::fs::write(&plain, breach).unwrap();
    let p = plain.to_str().unwrap();
    let (code, out, _) = run_with_stdin(&["check", p], b"");
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("toolcall.fixes.strict-json-or-wrap=true"),
        "{out}"
    );
    // The advice written into the file: safe, and said why.
    let advised = dir.join("advised").join("application.properties");
    std::fs::create_dir_all(advised.parent().unwrap()).unwrap();
    std::fs::write(
        &advised,
        format!(
            "{breach}toolcall.fixes.strictJsonOrWrap=on\ntoolcall.fixes.end-turn-after-breach=true\n"
        ),
    )
    .unwrap();
    let (code, out, _) = run_with_stdin(&["check", advised.to_str().unwrap()], b"");
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("The fix library installs strict-json-or-wrap, end-turn-after-breach\n"),
        "{out}"
    );
    assert!(
        out.contains("Verdict: safe under strict-json-or-wrap+end-turn-after-breach"),
        "{out}"
    );
    // --fixes still asks for a set of one's own; enabled=false is none.
    let (code, _, _) = run_with_stdin(
        &["check", advised.to_str().unwrap(), "--fixes", "upstream"],
        b"",
    );
    assert_eq!(code, 1);
    // The starter in the build, no property: the library's rule.
    let pom = dir.join("pom.xml");
    let starter = "<dependency><groupId>io.github.toolcallmodel</groupId><artifactId>toolcall-fixes-spring-boot-starter</artifactId></dependency>";
    std::fs::write(
        &pom,
        format!("<project><dependencies>{starter}</dependencies></project>"),
    )
    .unwrap();
    let (code, out, _) = run_with_stdin(&["check", p, "--build", pom.to_str().unwrap()], b"");
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(
            "end-turn-after-breach: unset, on: on-limit-exceeded is RETURN_ERROR_RESPONSE"
        ),
        "{out}"
    );
    let inactive = format!(
        "<project><profiles><profile><id>fixes</id><dependencies>{starter}</dependencies></profile></profiles></project>"
    );
    std::fs::write(&pom, inactive).unwrap();
    let (code, out, _) = run_with_stdin(&["check", p, "--build", pom.to_str().unwrap()], b"");
    assert_eq!(code, 1, "{out}");
    assert!(!out.contains("The fix library installs"), "{out}");
    // Streamed, text+call accepted: the switches that leave only it.
    let (code, out, _) = run_with_stdin(&["check", p, "--streaming", "--fixes", "upstream"], b"");
    assert_eq!(code, 1);
    assert!(
        out.contains("no combination of the fix library's switches makes it safe"),
        "{out}"
    );
    let (_, out, _) = run_with_stdin(
        &[
            "check",
            p,
            "--streaming",
            "--fixes",
            "upstream",
            "--accept-finding",
            "text+call dropped",
        ],
        b"",
    );
    assert!(
        out.contains("toolcall.fixes.strict-json-or-wrap=true"),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Active profiles from a placeholder the environment sets
/// (`${APP_ENV:local}`, `${APP_ENV}`) are open: each profile file present
/// is a possible value, the worst answered, with a warning; set, the
/// profile is settled.
#[test]
fn open_active_profiles_are_answered_at_their_worst() {
    let dir = scratch("open-profiles");
    let app = dir.join("application.properties");
    std::fs::write(
        dir.join("application-prod.properties"),
        "spring.ai.tools.limits.on-limit-exceeded=RETURN_ERROR_RESPONSE\nspring.ai.tools.limits.max-calls-per-tool-default=1\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("application-local.properties"),
        "spring.ai.tools.throw-exception-on-error=false\n",
    )
    .unwrap();
    let a = app.to_str().unwrap();
    let args = ["check", a, "--tools", "json", "--processor", "json-error"];
    for active in ["${APP_ENV:local}", "${APP_ENV}"] {
        std::fs::write(
            &app,
            format!(
                "spring.profiles.active={active}\nspring.ai.tools.limits.on-limit-exceeded=THROW\n"
            ),
        )
        .unwrap();
        let (code, out, _) = run_with_stdin(&args, b"");
        assert_eq!(code, 1, "{active}: {out}");
        assert!(
            out.contains("warning: spring.profiles.active is open: ${APP_ENV} not set here"),
            "{out}"
        );
        assert!(
            out.contains("answered for 'prod', the worst of 'local', 'prod'"),
            "{out}"
        );
        let mut set = args.to_vec();
        set.extend(["--set", "APP_ENV=local"]);
        let (code, out, _) = run_with_stdin(&set, b"");
        assert_eq!(code, 0, "{active}: {out}");
        assert!(!out.contains("is open"), "{out}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `convert`'s error quotes the input: its control characters are shown
/// as escapes, not sent to the terminal.
#[test]
fn convert_escapes_control_characters_in_its_error() {
    let (code, _, err) = run_with_stdin(&["convert"], b"x\x1b[31mred");
    assert_eq!(code, 1);
    assert!(
        err.contains("Failed to parse JSON: x\\u{1b}[31mred"),
        "{err}"
    );
    assert!(!err.contains('\x1b'), "{err}");
}

/// `check_texts` (the judge's module and page) gives what the command
/// prints and writes for the same file with nothing beside it, byte for
/// byte: open active profiles (answered for the file's own), a `--json`
/// usage error, a refusal's SARIF log, a run with no verdict's, and the
/// fix library's switches read from the file.
#[test]
fn check_texts_prints_and_writes_as_the_command() {
    let cases: [(&str, &[&str]); 5] = [
        (
            "spring.profiles.active=${APP_ENV:local}\nspring.ai.tools.limits.max-calls-per-tool-default=3\n",
            &["--memory", "inside"],
        ),
        (
            "spring.ai.tools.limits.max-calls-per-tool-default=3\n",
            &["--json", "--memory", "nowhere"],
        ),
        (
            "spring.ai.tools.limits.on-limit-exceeded=NOPE\n",
            &["--json"],
        ),
        (
            "spring.ai.tools.limits.max-calls-per-tool-default=3\n",
            &["--json", "--fixes", "nonsense-fix"],
        ),
        (
            "toolcall.fixes.keep-current-turn=true\nspring.ai.tools.limits.max-calls-per-tool-default=3\n",
            &["--json", "--memory", "inside"],
        ),
    ];
    for (i, (text, flags)) in cases.iter().enumerate() {
        let dir = scratch(&format!("texts-{i}"));
        std::fs::write(dir.join("application.properties"), text).unwrap();
        let mut args = vec!["check", "application.properties", "--sarif", "log.sarif"];
        args.extend(flags.iter());
        let out = Command::new(bin())
            .args(&args)
            .current_dir(&dir)
            .output()
            .expect("binary runs");
        let mut flags = flags.to_vec();
        flags.extend(["--sarif", "log.sarif"]);
        let texts = toolcall_check::check_texts(&flags, &[("application.properties", text)]);
        assert_eq!(out.status.code(), Some(i32::from(texts.exit)), "{text}");
        assert_eq!(String::from_utf8_lossy(&out.stdout), texts.stdout, "{text}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), texts.stderr, "{text}");
        let written = std::fs::read_to_string(dir.join("log.sarif"))
            .ok()
            .map(|s| serde_json::from_str::<serde_json::Value>(&s).expect("a SARIF log"));
        assert_eq!(written, texts.sarif, "{text}");
        // What each case is there for, so that agreeing on nothing fails.
        let (shown, logged) = [
            ("answered for 'local', the worst of 'local'", true),
            ("\"error\": \"--memory nowhere", false),
            ("spring_refuses", true),
            ("\"error\": \"--fixes", false),
            ("\"keep-current-turn\"", true),
        ][i];
        assert!(texts.stdout.contains(shown), "{}", texts.stdout);
        assert_eq!(texts.sarif.is_some(), logged, "{text}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
