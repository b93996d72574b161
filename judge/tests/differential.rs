//! The WebAssembly module answers as the native judge does, byte for
//! byte: generated setups through `judge` (their facts), and a
//! share of them written as `application.properties` and flags through
//! `check` (its text and `--json` output, error and SARIF log), run by
//! node on the module `.ci/run` builds
//! (`cargo build -p toolcall-judge-wasm --profile wasm --target
//! wasm32-unknown-unknown`). Without node or the module the test prints
//! `SKIPPED` and passes, unless `TOOLCALL_REQUIRE_WASM=1`. The 1,000
//! setups are `TOOLCALL_DEEP_TESTS=1`'s (`.ci/run`, in a release build); a
//! plain `cargo test` plays 10; `TOOLCALL_JUDGE_CASES` sets the number.
//!
//! Natively, the judge's answer for facts is `check --json`'s for the
//! same setup written as a file (`facts_answer_as_check_does`), and a
//! share of the setups are on the 1.1 line (`spring_ai` 1.1.2 or 1.1.6;
//! for `check`, a `pom.xml` given with `--build`).

use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use serde_json::{Value, json};
use toolcall_check::verification::generators::{limits, processor};
use toolcall_model::model::{Max, OnExceeded, ProcessorKind, behavior_sets};

/// One generated setup: its facts, and the same as a properties file and
/// `check`'s flags (without `--json`).
#[derive(Debug)]
struct Generated {
    facts: Value,
    properties: String,
    args: Vec<String>,
    /// A `pom.xml` on the setup's Spring AI (1.1), given with `--build`.
    pom: Option<String>,
}

impl Generated {
    /// The files `check` is given: the properties, and the pom.
    fn files(&self) -> Value {
        let mut files = vec![json!({"name": "application.properties", "text": self.properties})];
        files.extend(
            self.pom
                .iter()
                .map(|p| json!({"name": "pom.xml", "text": p})),
        );
        Value::Array(files)
    }
}

fn max_fact(m: Max) -> Value {
    match m {
        Max::Limited(n) => json!(n),
        Max::Unlimited => json!("unlimited"),
    }
}

fn max_property(m: Max) -> String {
    match m {
        Max::Limited(n) => n.to_string(),
        Max::Unlimited => "-1".to_owned(),
    }
}

/// Fixes of the library in effect together, as a running application
/// has them: no named behaviour set.
const A_COMBINATION: &str = "strict-json-or-wrap,close-dangling-calls,keep-current-turn";

/// Setups over the checker's own generators of limits and processors,
/// with every other fact drawn from its values.
fn setups() -> impl Strategy<Value = Generated> {
    let sets: Vec<&'static str> = behavior_sets().iter().map(|s| s.name).collect();
    (
        (limits(), processor(), any::<bool>()),
        prop::sample::select(vec!["none", "outside", "inside"]),
        prop_oneof![4 => Just(20u32), 1 => 1u32..=6],
        prop::sample::select(vec!["auto", "on", "off"]),
        prop::sample::select(vec!["gemini", "none"]),
        any::<bool>(),
        prop::sample::select(vec!["mixed", "json", "text", "json,weather=text"]),
        prop::sample::select(sets),
        (
            prop_oneof![9 => Just(None), 1 => Just(Some("half-json parse"))],
            prop_oneof![3 => Just(None), 1 => Just(Some("1.1.2")), 1 => Just(Some("1.1.6"))],
        ),
    )
        .prop_map(
            |((l, p, fallback), memory, window, history, provider, streaming, tools, fixes, (accept, spring_ai))| {
                let on = match l.on_exceeded {
                    OnExceeded::Throw => "THROW",
                    OnExceeded::ReturnErrorResponse => "RETURN_ERROR_RESPONSE",
                };
                let kind = match p.kind {
                    ProcessorKind::Default => "default",
                    ProcessorKind::JsonError => "json-error",
                };
                let facts = json!({
                    "limits": {
                        "max_calls_per_tool_default": max_fact(l.default_max_per_tool),
                        "max_calls_per_tool": l.overrides,
                        "excluded_tools": l.excluded,
                        "max_total_tool_calls": max_fact(l.max_total),
                        "on_limit_exceeded": on,
                    },
                    "resolution_fallback": fallback,
                    "processor": kind,
                    "throw_exception_on_error": p.always_throw,
                    "rethrow": p.rethrow,
                    "memory": memory,
                    "memory_window": window,
                    "conversation_history": match history { "on" => json!(true), "off" => json!(false), _ => Value::Null },
                    "provider": provider,
                    "streaming": streaming,
                    "tools": tools,
                    "fixes": fixes,
                    "accepted": accept.into_iter().collect::<Vec<_>>(),
                });
                let mut facts = facts;
                let pom = spring_ai.map(|v| {
                    facts["spring_ai"] = json!(v);
                    format!("<project><dependencyManagement><dependencies><dependency><groupId>org.springframework.ai</groupId><artifactId>spring-ai-bom</artifactId><version>{v}</version></dependency></dependencies></dependencyManagement></project>\n")
                });
                let mut properties = format!(
                    "spring.ai.tools.limits.max-calls-per-tool-default={}\nspring.ai.tools.limits.max-total-tool-calls={}\nspring.ai.tools.limits.on-limit-exceeded={on}\nspring.ai.tools.throw-exception-on-error={}\nspring.ai.tools.resolution.fallback.enabled={fallback}\n",
                    max_property(l.default_max_per_tool),
                    max_property(l.max_total),
                    p.always_throw,
                );
                for (name, n) in &l.overrides {
                    properties.push_str(&format!("spring.ai.tools.limits.max-calls-per-tool.{name}={n}\n"));
                }
                if !l.excluded.is_empty() {
                    let names: Vec<&str> = l.excluded.iter().map(String::as_str).collect();
                    properties.push_str(&format!("spring.ai.tools.limits.excluded-tools={}\n", names.join(",")));
                }
                let mut args: Vec<String> = [
                    "--processor", kind, "--memory", memory, "--history", history,
                    "--provider", provider, "--tools", tools, "--fixes", fixes,
                ]
                .map(str::to_owned)
                .into();
                args.extend(["--memory-window".to_owned(), window.to_string()]);
                if !p.rethrow.is_empty() {
                    args.extend(["--rethrow".to_owned(), p.rethrow.join(",")]);
                }
                if streaming {
                    args.push("--streaming".to_owned());
                }
                if let Some(a) = accept {
                    args.extend(["--accept-finding".to_owned(), a.to_owned()]);
                }
                if pom.is_some() {
                    args.extend(["--build".to_owned(), "pom.xml".to_owned()]);
                }
                Generated { facts, properties, args, pom }
            },
        )
}

/// `count` setups, the same every run.
fn generated(count: usize) -> Vec<Generated> {
    let mut runner = TestRunner::deterministic();
    let strategy = setups();
    (0..count)
        .map(|_| {
            strategy
                .new_tree(&mut runner)
                .expect("the strategy generates")
                .current()
        })
        .collect()
}

/// 1,000 setups with `TOOLCALL_DEEP_TESTS=1` (`.ci/run`, a release
/// build), else a share that keeps `cargo test` short; or
/// `TOOLCALL_JUDGE_CASES`.
fn cases() -> usize {
    let deep = std::env::var_os("TOOLCALL_DEEP_TESTS").is_some();
    std::env::var("TOOLCALL_JUDGE_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(if deep { 1000 } else { 10 })
}

/// The module `.ci/run` builds (or `TOOLCALL_JUDGE_WASM`).
fn module() -> PathBuf {
    if let Some(p) = std::env::var_os("TOOLCALL_JUDGE_WASM") {
        return PathBuf::from(p);
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    target.join("wasm32-unknown-unknown/wasm/toolcall_judge_wasm.wasm")
}

/// Why the module cannot run here, if it cannot.
fn cannot_run() -> Option<String> {
    if !module().is_file() {
        return Some(format!(
            "no module at {} (cargo build -p toolcall-judge-wasm --profile wasm --target wasm32-unknown-unknown)",
            module().display()
        ));
    }
    match Command::new("node").arg("--version").output() {
        Ok(o) if o.status.success() => None,
        _ => Some("node is not on the PATH".to_owned()),
    }
}

/// The module's answers, one per input, through node.
fn module_answers(export: &str, inputs: &[String]) -> Vec<String> {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("wasm/run.mjs");
    let mut child = Command::new("node")
        .arg(script)
        .arg(module())
        .arg(export)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node starts");
    let mut stdin = child.stdin.take().expect("piped");
    let text: String = inputs.iter().map(|i| format!("{i}\n")).collect();
    let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
    let out = child.wait_with_output().expect("node runs");
    writer.join().expect("writer").expect("inputs written");
    assert!(
        out.status.success(),
        "node failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .expect("UTF-8")
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The facts of the `i`th setup as the differential asks: one in three
/// with the fix library present, its fixes in effect the set asked about,
/// and one in three with a combination of fixes no named set holds.
fn variant(i: usize, g: &Generated) -> Value {
    let mut facts = g.facts.clone();
    if i % 3 == 1 {
        facts["fix_library"] = facts["fixes"].clone();
    }
    if i % 3 == 2 {
        facts["fixes"] = json!(A_COMBINATION);
        facts["fix_library"] = json!(A_COMBINATION);
    }
    facts
}

/// Compares the answers line by line, naming the first input that differs.
fn assert_same(export: &str, inputs: &[String], native: &[String], wasm: &[String]) {
    assert_eq!(native.len(), wasm.len(), "{export}: one answer per input");
    for ((input, n), w) in inputs.iter().zip(native).zip(wasm) {
        assert_eq!(
            n, w,
            "{export}: the module's answer differs for {input} (a module older than the sources? rebuild it)"
        );
    }
}

#[test]
fn the_module_answers_as_the_native_judge() {
    if let Some(why) = cannot_run() {
        assert!(
            std::env::var_os("TOOLCALL_REQUIRE_WASM").is_none(),
            "TOOLCALL_REQUIRE_WASM=1 but the module cannot run: {why}"
        );
        println!("SKIPPED: {why}");
        return;
    }
    let setups = generated(cases());
    assert!(
        setups.len() < 10 || setups.iter().any(|g| g.pom.is_some()),
        "a 1.1 setup among those judged"
    );
    // One setup in three with the fix library present, its fixes in effect
    // the set asked about, and one in three with a combination of fixes no
    // named set holds: the remedy counted over them runs in the module too.
    let inputs: Vec<String> = setups
        .iter()
        .enumerate()
        .map(|(i, g)| variant(i, g).to_string())
        .collect();
    let native: Vec<String> = inputs
        .iter()
        .map(|i| toolcall_judge::judge(i.as_bytes()))
        .collect();
    assert!(
        native.iter().all(|a| !a.starts_with(r#"{"error""#)),
        "every generated setup is judged"
    );
    assert_same("judge", &inputs, &native, &module_answers("judge", &inputs));
    // `check` on a share, as text and as JSON: the rendering, the reading
    // of properties and the flags run in the module too.
    let checks: Vec<String> = setups
        .iter()
        .step_by(10)
        .enumerate()
        .map(|(i, g)| {
            let mut args = g.args.clone();
            if i % 2 == 0 {
                args.push("--json".to_owned());
            }
            json!({"files": g.files(), "args": args}).to_string()
        })
        .collect();
    let native: Vec<String> = checks
        .iter()
        .map(|i| toolcall_judge::check(i.as_bytes()))
        .collect();
    assert_same("check", &checks, &native, &module_answers("check", &checks));
    println!(
        "the module answered {} setups (judge) and {} files (check) as the native judge",
        inputs.len(),
        checks.len()
    );
}

/// The judge's answer for facts is `check --json`'s for the same setup
/// written as a file: the same sets, gate and remedy.
#[test]
fn facts_answer_as_check_does() {
    let mut on_1_1 = 0;
    for (i, mut g) in generated(12).into_iter().enumerate() {
        // Half of them ask about a combination no named set holds.
        if i % 2 == 1 {
            g.facts["fixes"] = json!(A_COMBINATION);
            let at = g.args.iter().position(|a| a == "--fixes").expect("--fixes") + 1;
            g.args[at] = A_COMBINATION.to_owned();
        }
        let judged: Value =
            serde_json::from_str(&toolcall_judge::judge(g.facts.to_string().as_bytes()))
                .expect("JSON");
        let mut args: Vec<&str> = g.args.iter().map(String::as_str).collect();
        args.push("--json");
        let mut files = vec![("application.properties", g.properties.as_str())];
        if let Some(pom) = &g.pom {
            files.push(("pom.xml", pom));
            on_1_1 += 1;
        }
        let out = toolcall_check::check_texts(&args, &files);
        // The accepted findings' origin names where each was given: the
        // facts' `accepted` here, `--accept-finding` there.
        let stdout = out
            .stdout
            .replace(r#""origin": "--accept-finding""#, r#""origin": "accepted""#);
        let checked: Value = serde_json::from_str(&stdout).expect("check --json");
        for field in [
            "setup",
            "sets",
            "asked",
            "legend",
            "fix_it_today",
            "spring_ai",
        ] {
            assert_eq!(
                judged[field], checked[field],
                "{field} for {}\n{}",
                g.facts, g.properties
            );
        }
    }
    assert!(on_1_1 > 0, "a 1.1 setup among those compared");
}

/// The facts asked for the set in effect alone (`"answer": "asked"`, what
/// the fix library asks of a request path): the module answers as the
/// native judge, and each part of the answer is the whole answer's, the
/// remedy present exactly where the set breaks.
#[test]
fn the_asked_answer_is_the_whole_answer_s_part() {
    let setups = generated(cases().max(30));
    let mut inputs = Vec::new();
    let mut remedies = 0;
    for (i, g) in setups.iter().enumerate() {
        let whole = variant(i, g);
        let mut asked = whole.clone();
        asked["answer"] = json!("asked");
        let w: Value = serde_json::from_str(&toolcall_judge::judge(whole.to_string().as_bytes()))
            .expect("JSON");
        let a: Value = serde_json::from_str(&toolcall_judge::judge(asked.to_string().as_bytes()))
            .expect("JSON");
        for field in ["setup", "asked", "spring_ai"] {
            assert_eq!(a[field], w[field], "{field} for {asked}");
        }
        let due = w["asked"]["breaks"] != json!([]);
        let expected = if due {
            &w["fix_it_today"]
        } else {
            &Value::Null
        };
        assert_eq!(&a["fix_it_today"], expected, "fix_it_today for {asked}");
        assert!(a.get("sets").is_none() && a.get("legend").is_none(), "{a}");
        remedies += usize::from(due);
        inputs.push(asked.to_string());
    }
    assert!(
        remedies > 0 && remedies < setups.len(),
        "some paths with a remedy, some without"
    );
    if let Some(why) = cannot_run() {
        println!("SKIPPED (the module): {why}");
        return;
    }
    let native: Vec<String> = inputs
        .iter()
        .map(|i| toolcall_judge::judge(i.as_bytes()))
        .collect();
    assert_same("judge", &inputs, &native, &module_answers("judge", &inputs));
}
