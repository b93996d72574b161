//! The differential against the real Spring AI classes (2.0.1, and 1.1.2 for
//! the 1.1 scenarios below): every vector
//! of the project and of `../shared/vectors`, and a fixed budget of freshly
//! generated scenarios of every op, run through the model and through the
//! conformance runner (`conformance/java`, one JVM), judged by
//! `toolcall_model::vectors::conformance::judge`.
//!
//! A generated disagreement is shrunk with the generator's own shrinking,
//! asking the real classes at each step, and the smallest is written to
//! `target/java-diff/disagreements/` with the Java result as its `expect`,
//! ready to join `tests/vectors/`.
//!
//! Knobs: `TOOLCALL_DIFF_CASES` (generated scenarios: 500, or 3000 with
//! `TOOLCALL_DEEP_TESTS=1`), `TOOLCALL_DIFF_SEED` (default 0); the main-job
//! and `check` turns are every 5th turn, or all of them when deep. Without Java 17 and Maven the tests
//! print `SKIPPED` and pass, unless `TOOLCALL_REQUIRE_JAVA=1`.

use std::path::{Path, PathBuf};

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::Value;
use toolcall_check::verification::generators::{VectorOp, vector};
use toolcall_model::vectors::conformance::{Comparison, JavaLine, Tally, judge};

use crate::support::{JavaSession, deep, java_build, java_required, json_files, root};

/// Vectors with no fixes and no advisors that the real classes cannot
/// express, with the reason: `conformance/expected-differences.txt`.
fn expected_differences() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(root().join("conformance/expected-differences.txt"))
        .expect("conformance/expected-differences.txt");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let (name, reason) = l.split_once(':').unwrap_or((l, ""));
            (name.trim().to_owned(), reason.trim().to_owned())
        })
        .collect()
}

fn ready(test: &str) -> Option<JavaSession> {
    match java_build().and_then(|()| JavaSession::start()) {
        Ok(s) => Some(s),
        Err(e) if java_required() => panic!("{test}: Java is required here: {e}"),
        Err(e) => {
            println!("SKIPPED {test}: {e}");
            eprintln!("SKIPPED {test}: {e}");
            None
        }
    }
}

fn has_fixes_or_advisors(bytes: &[u8]) -> bool {
    let Ok(v) = serde_json::from_slice::<Value>(bytes) else {
        return false;
    };
    let nonempty = |k: &str| match v.get(k) {
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Null) | None => false,
        Some(_) => true,
    };
    nonempty("fixes") || nonempty("advisors")
}

#[test]
fn every_vector_agrees_with_the_real_classes() {
    let Some(mut java) = ready("every_vector_agrees_with_the_real_classes") else {
        return;
    };
    let mut files = json_files(&root().join("tests/vectors"));
    files.extend(json_files(&root().join("../shared/vectors")));
    let expected = expected_differences();
    let mut tally = Tally::default();
    let mut failures = Vec::new();
    let mut listed_and_seen = Vec::new();
    for f in &files {
        let bytes = std::fs::read(f).expect("readable vector");
        let line = java.run(f).expect("the runner answers");
        let java_line = JavaLine::parse(&line).expect("a runner line");
        let verdict = judge(&bytes, &java_line);
        let name = f
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        match &verdict {
            Comparison::Disagree(d) => failures.push(format!("{}: {}", f.display(), d.join("; "))),
            Comparison::OutOfScope(reason) if has_fixes_or_advisors(&bytes) => {
                failures.push(format!(
                    "{}: out of the real classes' scope with its fixes or advisors ({reason})",
                    f.display()
                ))
            }
            Comparison::RefusedByBoth => failures.push(format!(
                "{}: a shipped vector that both sides refuse as invalid",
                f.display()
            )),
            Comparison::OutOfScope(reason) => {
                if expected.iter().any(|(n, _)| *n == name) {
                    listed_and_seen.push(name.clone());
                } else {
                    failures.push(format!(
                        "{}: upstream vector out of the real classes' scope ({reason}) and not in conformance/expected-differences.txt",
                        f.display()
                    ));
                }
            }
            _ => {}
        }
        tally.add(&verdict);
    }
    for (name, _) in &expected {
        if !listed_and_seen.contains(name) {
            failures.push(format!(
                "conformance/expected-differences.txt lists {name}, which now runs on the real classes (or is gone): remove it"
            ));
        }
    }
    println!("vectors against the real classes: {}", tally.summary());
    assert!(
        failures.is_empty(),
        "{} problems:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        tally.passed >= 300,
        "too few vectors ran: {}",
        tally.summary()
    );
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Writes `v` and asks both sides; `Some(differences)` when they disagree.
fn disagreement(java: &mut JavaSession, dir: &Path, v: &Value) -> Option<Vec<String>> {
    match verdict(java, dir, v) {
        Comparison::Disagree(d) => Some(d),
        _ => None,
    }
}

/// Writes `v` and judges it on both sides.
fn verdict(java: &mut JavaSession, dir: &Path, v: &Value) -> Comparison {
    let path = dir.join("current.json");
    let text = serde_json::to_string_pretty(v).expect("a vector prints");
    std::fs::write(&path, &text).expect("writable target dir");
    let line = java.run(&path).expect("the runner answers");
    let java_line = JavaLine::parse(&line).expect("a runner line");
    judge(text.as_bytes(), &java_line)
}

/// Shrinks a disagreeing case: simplify while the sides still disagree.
fn shrink(
    java: &mut JavaSession,
    dir: &Path,
    tree: &mut impl ValueTree<Value = Value>,
) -> (Value, Vec<String>) {
    let mut best = tree.current();
    let mut best_diffs = disagreement(java, dir, &best).unwrap_or_default();
    let mut steps = 0;
    if !tree.simplify() {
        return (best, best_diffs);
    }
    loop {
        steps += 1;
        let candidate = tree.current();
        let still = disagreement(java, dir, &candidate);
        let more = match still {
            Some(d) => {
                best = candidate;
                best_diffs = d;
                tree.simplify()
            }
            None => tree.complicate(),
        };
        if !more || steps > 2000 {
            return (best, best_diffs);
        }
    }
}

#[test]
fn generated_scenarios_agree_with_the_real_classes() {
    let Some(mut java) = ready("generated_scenarios_agree_with_the_real_classes") else {
        return;
    };
    let cases = env_number("TOOLCALL_DIFF_CASES", if deep() { 3000 } else { 500 });
    let seed = env_number("TOOLCALL_DIFF_SEED", 0);
    // One folder per process: two `cargo test` runs may share a target dir.
    let dir: PathBuf = root()
        .join("target/java-diff")
        .join(std::process::id().to_string());
    let saved = root().join("target/java-diff/disagreements");
    std::fs::create_dir_all(&dir).expect("target/java-diff");
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
    );
    let strategies: Vec<_> = VectorOp::ALL.iter().map(|&op| (op, vector(op))).collect();
    let mut tally = Tally::default();
    let mut per_op = [0usize; 4];
    let mut found = Vec::new();
    let mut out_of_scope = Vec::new();
    for i in 0..cases {
        let k = (i as usize) % strategies.len();
        let (op, strategy) = &strategies[k];
        let mut tree = strategy.new_tree(&mut runner).expect("a generated vector");
        let v = tree.current();
        let judged = verdict(&mut java, &dir, &v);
        tally.add(&judged);
        match judged {
            Comparison::Agree { .. } => per_op[k] += 1,
            Comparison::OutOfScope(reason) => {
                out_of_scope.push(format!("gen-{seed}-{i}-{}: {reason}", op.name()))
            }
            Comparison::RefusedByBoth => {}
            Comparison::Disagree(_) => {
                if found.len() < 5 {
                    let (small, diffs) = shrink(&mut java, &dir, &mut tree);
                    let name = format!("java-diff-{seed}-{i}-{}", op.name());
                    let file = save(&saved, &name, &small, &mut java, &dir);
                    found.push(format!(
                        "{} ({}): {}",
                        name,
                        file.display(),
                        diffs.join("; ")
                    ));
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "generated scenarios against the real classes (seed {seed}): {}; agreeing per op: {}",
        tally.summary(),
        VectorOp::ALL
            .iter()
            .zip(per_op)
            .map(|(o, n)| format!("{} {n}", o.name()))
            .collect::<Vec<_>>()
            .join(", ")
    );
    assert!(
        found.is_empty(),
        "{} of {cases} generated scenarios disagree; the first, shrunk, with the real classes' result as expect:\n{}",
        tally.failed,
        found.join("\n")
    );
    // Every generated vector is in the real classes' scope, fixes included.
    assert!(
        out_of_scope.is_empty(),
        "generated vectors out of the real classes' scope:\n{}",
        out_of_scope.join("\n")
    );
    assert!(
        tally.with_fixes * 3 >= tally.passed,
        "too few generated vectors with fixes: {}",
        tally.summary()
    );
}

/// Saves a shrunk disagreement as a vector whose `expect` is what the real
/// classes produced.
fn save(saved: &Path, name: &str, v: &Value, java: &mut JavaSession, dir: &Path) -> PathBuf {
    std::fs::create_dir_all(saved).expect("target/java-diff/disagreements");
    let probe = dir.join("current.json");
    std::fs::write(&probe, serde_json::to_string_pretty(v).expect("prints")).expect("writable");
    let line = java.run(&probe).expect("the runner answers");
    let mut out = v.clone();
    out["name"] = Value::String(name.to_owned());
    out["about"] = Value::String(
        "found by the Java differential (tests/java_diff.rs); expect is what the real Spring AI 2.0.1 classes produced"
            .to_owned(),
    );
    if let Ok(JavaLine::Result { result, .. }) = JavaLine::parse(&line) {
        out["expect"] = result;
    }
    let file = saved.join(format!("{name}.json"));
    std::fs::write(&file, serde_json::to_string_pretty(&out).expect("prints")).expect("writable");
    file
}

/// Every turn the main job and `check` play (each main-job setup, every
/// `check` scenario, every behaviour set) runs on the real classes, fix sets
/// with the fix library installed: the cells the README's tables show rest
/// on turns Java plays alike. With a memory advisor inside the loop the
/// runner lets the real `ChatClient` register `ToolCallingAdvisor` itself,
/// as these setups assume.
#[test]
fn main_job_and_check_turns_agree_with_the_real_classes() {
    use toolcall_check::config::columns;
    use toolcall_check::config::{CheckScenario, script};
    use toolcall_check::verification::scenario::Scenario as Turn;
    use toolcall_model::model::behavior_sets;
    let Some(mut java) = ready("main_job_and_check_turns_agree_with_the_real_classes") else {
        return;
    };
    let dir: PathBuf = root()
        .join("target/java-diff")
        .join(format!("cells-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("target/java-diff");
    let mut setups = Vec::new();
    for c in columns() {
        if !setups.contains(&c.setup) {
            setups.push(c.setup.clone());
        }
    }
    // One turn in 5, in turn order; every turn when deep.
    let stride = if deep() { 1 } else { 5 };
    let mut turns = 0usize;
    let mut tally = Tally::default();
    let mut failures = Vec::new();
    let mut inside = 0;
    for (k, setup) in setups.iter().enumerate() {
        for scenario in CheckScenario::ALL {
            for set in behavior_sets() {
                let Ok(s) = script(setup, &set, scenario) else {
                    continue;
                };
                turns += 1;
                if !(turns - 1).is_multiple_of(stride) {
                    continue;
                }
                let turn = Turn {
                    config: s.config,
                    tools: s.tools,
                    history: s.history,
                    model: s.model,
                };
                let name = format!("cell-{k}-{}-{}", scenario.column(), set.name);
                let v = turn.to_vector(&name, "a main-job or check turn", serde_json::json!({}));
                if v["input"]["memory"] == "inside" {
                    inside += 1;
                }
                let judged = verdict(&mut java, &dir, &v);
                if let Comparison::Disagree(d) = &judged {
                    failures.push(format!("{name}: {}", d.join("; ")));
                }
                tally.add(&judged);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "main-job and check turns against the real classes (one in {stride} of {turns}): {}",
        tally.summary()
    );
    assert!(
        failures.is_empty(),
        "{} turns disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        tally.passed * stride >= 1000 && inside * stride >= 20,
        "too few turns: {} ({inside} with the memory inside)",
        tally.summary()
    );
    assert!(
        tally.out_of_scope.is_empty(),
        "turns out of scope: {}",
        tally.summary()
    );
}

/// `gen --expect java`: every generated vector's `expect` is what the real
/// classes answered, so `verify` passes them (the model agrees with Java
/// on them), and the random fix sets include the upstream pull requests.
#[test]
fn generated_vectors_with_java_expect_verify() {
    if let Err(e) = java_build() {
        if java_required() {
            panic!("generated_vectors_with_java_expect_verify: Java is required here: {e}");
        }
        println!("SKIPPED generated_vectors_with_java_expect_verify: {e}");
        return;
    }
    let dir = root().join("target/java-diff/gen-expect-java");
    std::fs::remove_dir_all(&dir).ok();
    let out = std::process::Command::new(crate::support::bin())
        .current_dir(root())
        .args([
            "gen", "--count", "120", "--seed", "3", "--expect", "java", "--out",
        ])
        .arg(&dir)
        .output()
        .expect("the binary runs");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains("the model agrees on every one"), "{said}");
    let files = json_files(&dir);
    assert!(!files.is_empty());
    let mut with_prs = 0;
    for f in &files {
        let v: Value = serde_json::from_slice(&std::fs::read(f).unwrap()).unwrap();
        assert_ne!(v["expect"], serde_json::json!({}), "{}", f.display());
        with_prs += usize::from(v["fixes"].to_string().contains("pr-6"));
    }
    assert!(with_prs > 0, "no generated vector has a pull request's set");
    let verify = std::process::Command::new(crate::support::bin())
        .arg("verify")
        .arg(&dir)
        .output()
        .expect("the binary runs");
    let text = String::from_utf8_lossy(&verify.stdout);
    assert!(verify.status.success(), "{text}");
    assert!(
        text.trim_end()
            .ends_with(&format!("{} passed, 0 failed", files.len())),
        "{text}"
    );
}

/// The manager keys Spring AI 1.1's `DefaultToolCallingManager.Builder`
/// lacks (as 2.0.0's): a 1.1.2 vector that sets one is refused.
const KEYS_SINCE_2_0_1: [&str; 7] = [
    "max_calls_per_tool",
    "max_calls_per_tool_overrides",
    "exclude_from_limit",
    "max_total_tool_calls",
    "on_limit_exceeded",
    "builder",
    "resolution_fallback",
];

/// A generated vector as a Spring AI 1.1.2 one: upstream (no fixes, no
/// advisors) and without the manager keys 1.1's builder lacks.
fn on_1_1(mut v: Value) -> Value {
    let o = v.as_object_mut().expect("a generated vector is an object");
    o.remove("fixes");
    o.remove("advisors");
    if let Some(Value::Object(m)) = o.get_mut("manager") {
        for k in KEYS_SINCE_2_0_1 {
            m.remove(k);
        }
    }
    o.insert("spring_ai".into(), Value::String("1.1.2".into()));
    v
}

/// A generated `tool_loop` vector (already [`on_1_1`]) as one the loop
/// inside 1.1.2's `GoogleGenAiChatModel` can run through the Gemini API
/// stub (docs/BEHAVIOUR.md section 13): a memory inside the loop is
/// `ToolCallAdvisor`'s (`"loop": "tool-call-advisor"`, section 13.1),
/// conversation history on (neither loop has a switch), provider Gemini, each scripted
/// generation as 1.1.2's `responseCandidateToGeneration` gives it back
/// (finish reason `STOP`, no message metadata, a call's id `""` and its
/// generation's text `""`, another's text never null, arguments a compact
/// object: a generated one that is not a flat object of strings becomes
/// `{}`), a streamed round cut after its first chunk with a call (Java runs
/// what follows it concurrently), no repeated last reply (1.1 has no limit
/// to end it), and a final text reply, so that the script never runs out.
fn loop_on_1_1(mut v: Value) -> Value {
    let o = v.as_object_mut().expect("a generated vector is an object");
    if let Some(Value::Object(m)) = o.get_mut("manager") {
        m.remove("conversation_history");
    }
    let input = o
        .get_mut("input")
        .and_then(Value::as_object_mut)
        .expect("a tool_loop input");
    input.insert("provider".into(), "gemini".into());
    // A memory inside the loop is 1.1's opt-in ToolCallAdvisor's, with the
    // memory advisor at its default order.
    if input.get("memory").and_then(Value::as_str) == Some("inside") {
        input.insert("loop".into(), "tool-call-advisor".into());
    }
    input.remove("repeat_last");
    let stream = input.get("stream").and_then(Value::as_bool) == Some(true);
    let has_call = |g: &Value| g["tool_calls"].as_array().is_some_and(|c| !c.is_empty());
    let fix_generations = |gens: &mut Value| {
        for g in gens.as_array_mut().into_iter().flatten() {
            let g = g.as_object_mut().expect("a generation");
            g.remove("metadata");
            g.insert("finish_reason".into(), "STOP".into());
            let calls = g.get_mut("tool_calls").and_then(Value::as_array_mut);
            match calls {
                Some(calls) if !calls.is_empty() => {
                    for c in calls.iter_mut() {
                        c["id"] = "".into();
                        c["type"] = "function".into();
                        let flat = c["arguments"]
                            .as_str()
                            .and_then(|a| serde_json::from_str::<Value>(a).ok())
                            .filter(|a| {
                                a.as_object()
                                    .is_some_and(|m| m.values().all(Value::is_string))
                            })
                            .map(|a| a.to_string());
                        c["arguments"] = flat.unwrap_or_else(|| "{}".into()).into();
                    }
                    g.insert("text".into(), "".into());
                }
                _ => {
                    g.remove("tool_calls");
                    if !g.get("text").is_some_and(Value::is_string) {
                        g.insert("text".into(), "".into());
                    }
                }
            }
        }
    };
    let model = input
        .get_mut("model")
        .and_then(Value::as_array_mut)
        .expect("a tool_loop script");
    for reply in model.iter_mut() {
        if stream {
            let chunks = reply.as_array_mut().expect("a streamed reply");
            if let Some(k) = chunks
                .iter()
                .position(|c| c.as_array().is_some_and(|g| g.iter().any(has_call)))
            {
                chunks.truncate(k + 1);
            }
            chunks.iter_mut().for_each(fix_generations);
        } else {
            fix_generations(reply);
        }
    }
    let answer = serde_json::json!([{"text": "done", "finish_reason": "STOP"}]);
    model.push(if stream {
        Value::Array(vec![answer])
    } else {
        answer
    });
    v
}

/// The generated scenarios on Spring AI 1.1.2's jars (the runner's 1.1.2
/// JVM), upstream: the manager's, the conversion's, and the tool loop
/// inside the chat model ([`loop_on_1_1`]; docs/BEHAVIOUR.md section 13).
/// A share by default (`TOOLCALL_DIFF_CASES_1_1`, 200), 4000 with
/// `TOOLCALL_DEEP_TESTS=1`.
/// Runs `f` on a thread with a 64 MiB stack: a runner line of Spring AI
/// 1.1 can nest past 1000 levels (Jackson 2's depth limit), and serde_json's
/// recursive reader of that line (`JavaLine::parse`) needs more than a test
/// thread's 2 MiB in a debug build (the command reads it on the main
/// thread, in a release build).
fn on_big_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(f)
        .expect("a thread")
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e));
}

#[test]
fn generated_1_1_scenarios_agree_with_the_real_1_1_2_classes() {
    on_big_stack(generated_1_1_scenarios);
}

fn generated_1_1_scenarios() {
    let Some(mut java) = ready("generated_1_1_scenarios_agree_with_the_real_1_1_2_classes") else {
        return;
    };
    let cases = env_number("TOOLCALL_DIFF_CASES_1_1", if deep() { 4000 } else { 200 });
    let seed = env_number("TOOLCALL_DIFF_SEED", 0);
    let dir: PathBuf = root()
        .join("target/java-diff-1.1")
        .join(std::process::id().to_string());
    let saved = root().join("target/java-diff/disagreements");
    std::fs::create_dir_all(&dir).expect("target/java-diff-1.1");
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
    );
    let ops = [
        VectorOp::ExecuteToolCalls,
        VectorOp::GeminiRequest,
        VectorOp::ConvertToolResponse,
        VectorOp::ToolLoop,
    ];
    let strategies: Vec<_> = ops
        .iter()
        .map(|&op| {
            vector(op)
                .prop_map(move |v| match op {
                    VectorOp::ToolLoop => loop_on_1_1(on_1_1(v)),
                    _ => on_1_1(v),
                })
                .boxed()
        })
        .collect();
    let mut tally = Tally::default();
    let (mut found, mut out_of_scope) = (Vec::new(), Vec::new());
    let mut advisor_loops = 0;
    for i in 0..cases {
        let k = (i as usize) % ops.len();
        let mut tree = strategies[k]
            .new_tree(&mut runner)
            .expect("a generated vector");
        let current = tree.current();
        advisor_loops += usize::from(current["input"]["loop"] == "tool-call-advisor");
        let judged = verdict(&mut java, &dir, &current);
        tally.add(&judged);
        match judged {
            Comparison::OutOfScope(reason) => out_of_scope.push(format!("{i}: {reason}")),
            Comparison::Disagree(_) if found.len() < 5 => {
                let (small, diffs) = shrink(&mut java, &dir, &mut tree);
                let name = format!("java-diff-1.1.2-{seed}-{i}-{}", ops[k].name());
                let file = save(&saved, &name, &small, &mut java, &dir);
                found.push(format!("{name} ({}): {}", file.display(), diffs.join("; ")));
            }
            _ => {}
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "generated 1.1 scenarios against the real 1.1.2 classes (seed {seed}): {} ({advisor_loops} tool loops in ToolCallAdvisor)",
        tally.summary()
    );
    assert!(
        cases < 200 || advisor_loops > 0,
        "no generated tool loop ran ToolCallAdvisor's loop"
    );
    assert!(
        found.is_empty() && tally.failed == 0,
        "{} of {cases} generated 1.1 scenarios disagree; the first, shrunk, with the real classes' result as expect:\n{}",
        tally.failed,
        found.join("\n")
    );
    assert!(
        out_of_scope.is_empty(),
        "generated 1.1 vectors out of the real classes' scope:\n{}",
        out_of_scope.join("\n")
    );
    // Most are compared: the rest are refused by both sides (an invalid
    // exception declaration, say), which compares nothing.
    assert!(
        tally.passed * 10 >= cases as usize * 8,
        "too few compared: {}",
        tally.summary()
    );
}

/// Nesting at both Jacksons' depth limits (Jackson 3's 500, Spring AI
/// 2.0's; Jackson 2's 1000, 1.1's), in tool responses and in function-call
/// arguments, with and without a repeated name (which the model builds as a
/// tree), on both versions' jars.
#[test]
fn nesting_at_the_jackson_limits_agrees_on_1_1_2_and_2_0_1() {
    on_big_stack(nesting_at_the_jackson_limits);
}

fn nesting_at_the_jackson_limits() {
    let Some(mut java) = ready("nesting_at_the_jackson_limits_agrees_on_1_1_2_and_2_0_1") else {
        return;
    };
    let dir: PathBuf = root()
        .join("target/java-diff-depth")
        .join(std::process::id().to_string());
    std::fs::create_dir_all(&dir).expect("target/java-diff-depth");
    let mut texts = Vec::new();
    for d in [499, 500, 501, 999, 1000, 1001] {
        texts.push(format!("{}{}", "[".repeat(d), "]".repeat(d)));
        texts.push(format!(
            "{}{{}}{}",
            "{\"a\":".repeat(d - 1),
            "}".repeat(d - 1)
        ));
        texts.push(format!(
            "{{\"k\":1,\"k\":{}{}}}",
            "[".repeat(d - 1),
            "]".repeat(d - 1)
        ));
        texts.push(format!("{}1e999{} tail", "[".repeat(d), "]".repeat(d)));
    }
    let mut tally = Tally::default();
    let mut disagreements = Vec::new();
    for version in ["1.1.2", "2.0.1"] {
        for (i, t) in texts.iter().enumerate() {
            let convert = serde_json::json!({"format": "toolcall-model/1", "name": format!("depth-{version}-{i}"),
                "spring_ai": version, "op": "convert_tool_response", "input": {"text": t}, "expect": {}});
            let request = serde_json::json!({"format": "toolcall-model/1", "name": format!("depth-args-{version}-{i}"),
                "spring_ai": version, "op": "gemini_request", "input": {"history": [
                    {"type": "user", "text": "go"},
                    {"type": "assistant", "text": null, "tool_calls": [{"id": "c1", "type": "function", "name": "t", "arguments": t}]}]},
                "expect": {}});
            for v in [convert, request] {
                let judged = verdict(&mut java, &dir, &v);
                tally.add(&judged);
                if !matches!(judged, Comparison::Agree { .. }) {
                    disagreements.push(format!("{}: {judged:?}", v["name"]));
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("nesting at the Jackson limits: {}", tally.summary());
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
    assert_eq!(tally.passed, texts.len() * 4);
}
