//! `check`'s verdicts against the invariant checker (what `explore`
//! judges) on the very same turns: no behaviour set may be shown safe for a
//! scenario where an invariant that `check`'s notion of "survives" covers is
//! refuted on that turn.

use std::num::NonZeroU32;

use toolcall_check::config::{CheckScenario, Mark, Setup, evaluate, script};
use toolcall_check::verification::invariants::{Invariant, Verdict as Inv, check_scenario};
use toolcall_check::verification::scenario::Scenario as Turn;
use toolcall_model::chat::{Memory, Provider};
use toolcall_model::model::behavior_sets;
use toolcall_model::model::{OnExceeded, ToolCallLimits};
use toolcall_model::model::{Processor, ProcessorKind};

/// Setups a team can state with `check`: both limit behaviours, both
/// processors, every memory placement, history as ChatClient chooses and
/// forced, both providers.
fn setups() -> Vec<Setup> {
    let mut v = Vec::new();
    for on in [OnExceeded::Throw, OnExceeded::ReturnErrorResponse] {
        for kind in [ProcessorKind::Default, ProcessorKind::JsonError] {
            for memory in [Memory::None, Memory::Outside, Memory::Inside] {
                for history in [None, Some(true), Some(false)] {
                    for provider in [Provider::Gemini, Provider::None] {
                        v.push(Setup {
                            limits: ToolCallLimits {
                                on_exceeded: on,
                                ..ToolCallLimits::default().max_calls_per_tool(1).unwrap()
                            },
                            processor: Processor {
                                kind,
                                ..Processor::default()
                            },
                            memory,
                            memory_max_messages: NonZeroU32::new(20).unwrap(),
                            conversation_history: history,
                            provider,
                            ..Setup::default()
                        });
                    }
                }
            }
        }
    }
    // Other limit shapes (a total limit, an override under a larger
    // default), throw-exception-on-error, a small window: as ChatClient
    // registers the advisors, on Gemini.
    let shapes = [
        ToolCallLimits::default().max_total_tool_calls(3).unwrap(),
        ToolCallLimits::default()
            .max_calls_per_tool(5)
            .unwrap()
            .max_calls_per_tool_for("getWeather", 1)
            .unwrap(),
    ];
    for on in [OnExceeded::Throw, OnExceeded::ReturnErrorResponse] {
        for kind in [ProcessorKind::Default, ProcessorKind::JsonError] {
            for memory in [Memory::None, Memory::Outside, Memory::Inside] {
                for limits in &shapes {
                    v.push(Setup {
                        limits: ToolCallLimits {
                            on_exceeded: on,
                            ..limits.clone()
                        },
                        processor: Processor {
                            kind,
                            ..Processor::default()
                        },
                        memory,
                        ..Setup::default()
                    });
                }
                v.push(Setup {
                    limits: ToolCallLimits {
                        on_exceeded: on,
                        ..ToolCallLimits::default().max_calls_per_tool(1).unwrap()
                    },
                    processor: Processor {
                        kind,
                        always_throw: true,
                        ..Processor::default()
                    },
                    memory,
                    memory_max_messages: NonZeroU32::new(6).unwrap(),
                    ..Setup::default()
                });
            }
        }
    }
    v
}

/// The invariants a surviving verdict promises: every Gemini request
/// converts (gemini-safe), no tool output reaches the model altered
/// (lossless), every stored transcript and request is paired
/// (transcript-valid, which the next turn needs), and the question stays in
/// the turn (question-kept).
const PROMISED: [Invariant; 4] = [
    Invariant::Lossless,
    Invariant::GeminiSafe,
    Invariant::TranscriptValid,
    Invariant::QuestionKept,
];

#[test]
fn no_set_is_shown_safe_where_an_invariant_is_refuted() {
    let mut disagreements = Vec::new();
    let mut compared = 0usize;
    for setup in setups() {
        for set in behavior_sets() {
            for scenario in CheckScenario::ALL {
                let v = evaluate(&setup, &set, scenario);
                let Ok(s) = script(&setup, &set, scenario) else {
                    assert_eq!(v.mark, Mark::NotApplicable);
                    continue;
                };
                if !v.mark.survives() {
                    continue;
                }
                let turn = Turn {
                    config: s.config,
                    tools: s.tools,
                    history: s.history,
                    model: s.model,
                };
                for inv in PROMISED {
                    compared += 1;
                    if let Inv::Refuted(why) = check_scenario(inv, &turn) {
                        // Another provider is promised the pairing every
                        // chat API requires, not Gemini's turn order.
                        if setup.provider == Provider::None
                            && why.contains("does not follow a user or tool message")
                        {
                            continue;
                        }
                        disagreements.push(format!(
                            "{} / {} / {:?}: check says {} but {inv} is refuted: {why}\n  {}",
                            set.name,
                            scenario.column(),
                            setup,
                            v.mark.word(),
                            v.detail
                        ));
                    }
                }
            }
        }
    }
    assert!(compared > 1000, "{compared}");
    assert!(
        disagreements.is_empty(),
        "{} disagreements, the first ones:\n{}",
        disagreements.len(),
        disagreements[..disagreements.len().min(8)].join("\n")
    );
}

/// The seed's workaround is not safe once a breach is followed by another
/// tool round (docs/BEHAVIOUR.md section 7), and the invariant checker
/// agrees.
#[test]
fn the_workaround_fails_when_a_breach_is_followed_by_another_round() {
    let setup = Setup {
        limits: ToolCallLimits {
            on_exceeded: OnExceeded::ReturnErrorResponse,
            ..ToolCallLimits::default().max_calls_per_tool(1).unwrap()
        },
        ..Setup::default()
    };
    let set = behavior_sets()
        .into_iter()
        .find(|s| s.name == "gemini-tool-text")
        .unwrap();
    assert_eq!(
        evaluate(&setup, &set, CheckScenario::BreachOneRound).mark,
        Mark::Ok
    );
    let v = evaluate(&setup, &set, CheckScenario::BreachThenRound);
    assert_eq!(v.mark, Mark::ParseError, "{}", v.detail);
    assert!(
        v.detail
            .contains("Failed to parse JSON: Tool call limit (1)")
    );
    let s = script(&setup, &set, CheckScenario::BreachThenRound).unwrap();
    let turn = Turn {
        config: s.config,
        tools: s.tools,
        history: s.history,
        model: s.model,
    };
    assert!(check_scenario(Invariant::GeminiSafe, &turn).is_refuted());
}

fn check_cli(args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    use std::io::Write;
    let mut child = std::process::Command::new(crate::support::bin())
        .arg("check")
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tcm-check-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Issue 6902's setup (a breach answered with RETURN_ERROR_RESPONSE on
/// Gemini) exits 1 and names the breach and the switch that closes it; a
/// careful setup (tools that return JSON, THROW, a JSON-error processor,
/// the memory outside the loop) exits 0; a configuration Spring refuses
/// exits 2.
#[test]
fn exit_status_a_ci_job_can_use() {
    let issue_6902 = b"spring.ai.tools.limits.max-calls-per-tool-default=1\n\
spring.ai.tools.limits.on-limit-exceeded=RETURN_ERROR_RESPONSE\n";
    let (code, out, err) = check_cli(&["-", "--format", "properties"], issue_6902);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("Verdict: not safe under upstream: breach-1"),
        "{out}"
    );
    assert!(
        out.contains("toolcall.fixes.strict-json-or-wrap=true"),
        "{out}"
    );
    assert!(
        out.contains("io.github.toolcallmodel:toolcall-fixes-spring-boot-starter:0.1.0"),
        "{out}"
    );
    let careful = b"spring.ai.tools.limits.max-calls-per-tool-default=1\n";
    let (code, out, err) = check_cli(
        &[
            "-",
            "--format",
            "properties",
            "--tools",
            "json",
            "--processor",
            "json-error",
            "--memory",
            "outside",
        ],
        careful,
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("Verdict: safe under upstream (exit 0)"),
        "{out}"
    );
    // The same setup asked under a custom combination of fixes.
    let (code, out, _) = check_cli(
        &[
            "-",
            "--format",
            "properties",
            "--fixes",
            "error-key,close-dangling-calls",
            "--all-sets",
        ],
        issue_6902,
    );
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("\nerror-key+close-dangling-calls "), "{out}");
    let (code, _, err) = check_cli(
        &["-", "--format", "properties"],
        b"spring.ai.tools.limits.max-total-tool-calls=ten\n",
    );
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = check_cli(&["-", "--format", "properties", "--fixes", "nope"], b"");
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = check_cli(&["-"], b"");
    assert_eq!(code, 2, "{err}");
}

/// `--sarif FILE` writes a log that the SARIF 2.1.0 schema (OASIS,
/// errata 01, vendored in tests/sarif/) accepts, whose results point at the
/// line of the setting that makes the setup unsafe.
#[test]
fn sarif_output_is_valid_and_points_at_the_setting() {
    let dir = scratch("sarif");
    let props = dir.join("application.properties");
    std::fs::write(
        &props,
        "# tools\nspring.ai.tools.limits.max-calls-per-tool.getWeather=1\n\
spring.ai.tools.limits.on-limit-exceeded=RETURN_ERROR_RESPONSE\n",
    )
    .unwrap();
    let sarif = dir.join("out.sarif");
    let (code, _, err) = check_cli(
        &[props.to_str().unwrap(), "--sarif", sarif.to_str().unwrap()],
        b"",
    );
    assert_eq!(code, 1, "{err}");
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            crate::support::root().join("tests/sarif/sarif-schema-2.1.0.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::draft4::new(&schema).expect("the SARIF schema compiles");
    let errors: Vec<String> = validator.iter_errors(&log).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    // A log that breaks the schema is refused: the validator really checks.
    let mut broken = log.clone();
    broken["version"] = serde_json::json!("2.0.0");
    assert!(!validator.is_valid(&broken));
    let results = log["runs"][0]["results"].as_array().unwrap();
    let breach = results
        .iter()
        .find(|r| r["ruleId"] == "breach-1")
        .expect("the breach is a result");
    let loc = &breach["locations"][0]["physicalLocation"];
    assert_eq!(loc["artifactLocation"]["uri"], props.to_str().unwrap());
    assert_eq!(loc["region"]["startLine"], 3, "{breach}");
    assert!(
        breach["message"]["text"]
            .as_str()
            .unwrap()
            .contains("toolcall.fixes.strict-json-or-wrap=true")
    );
    // Safe: a log with no result.
    let (code, _, _) = check_cli(
        &[
            props.to_str().unwrap(),
            "--fixes",
            "all",
            "--sarif",
            sarif.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(code, 0);
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    assert!(validator.is_valid(&log));
    assert_eq!(log["runs"][0]["results"], serde_json::json!([]));
    // A configuration Spring Boot refuses: exit 2, one result on its line.
    std::fs::write(
        &props,
        "# limits\nspring.ai.tools.limits.max-total-tool-calls=ten\n",
    )
    .unwrap();
    let (code, _, _) = check_cli(
        &[props.to_str().unwrap(), "--sarif", sarif.to_str().unwrap()],
        b"",
    );
    assert_eq!(code, 2);
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    let errors: Vec<String> = validator.iter_errors(&log).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    let r = &log["runs"][0]["results"][0];
    assert_eq!(r["ruleId"], "spring-refuses");
    assert_eq!(
        r["locations"][0]["physicalLocation"]["region"]["startLine"],
        2
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Spring's profile rules and the sources placeholders come from: a
/// document under `spring.config.activate.on-profile` applies only for its
/// profile, `application-{profile}` files are read after the file, a
/// placeholder nothing resolves is a warning (the property checked at each
/// value that can change the answer, the worst answered for), the
/// environment and `--set` resolve it; the build file's Spring AI version
/// is read.
#[test]
fn profiles_placeholders_and_the_build_file() {
    let dir = scratch("profiles");
    let yml = dir.join("application.yml");
    std::fs::write(
        &yml,
        "spring.ai.tools.limits:\n  max-calls-per-tool-default: 1\n  on-limit-exceeded: ${TOOL_POLICY}\n\
---\nspring.config.activate.on-profile: dev\nspring.ai.tools.limits.on-limit-exceeded: RETURN_ERROR_RESPONSE\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("application-prod.properties"),
        "spring.ai.tools.limits.max-total-tool-calls=0\n",
    )
    .unwrap();
    let y = yml.to_str().unwrap();
    let json = |args: &[&str]| {
        let mut a = vec![y, "--json", "--tools", "json"];
        a.extend_from_slice(args);
        let (code, out, err) = check_cli(&a, b"");
        let v: serde_json::Value =
            serde_json::from_str(&out).unwrap_or_else(|_| panic!("{out}{err}"));
        (code, v)
    };
    // Default profile: the dev document is left out, the placeholder is a
    // warning, and the answer is for RETURN_ERROR_RESPONSE, the value the
    // environment may give that breaks more than THROW (the default).
    let (code, v) = json(&[]);
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["profiles"], serde_json::json!(["default"]));
    assert_eq!(v["bound"]["on_limit_exceeded"], "RETURN_ERROR_RESPONSE");
    let policy = "spring.ai.tools.limits.on-limit-exceeded";
    assert_eq!(
        v["open"]["answered_for"],
        serde_json::json!({ policy: "RETURN_ERROR_RESPONSE" })
    );
    let tried = v["open"]["tried"].as_array().unwrap();
    assert_eq!(tried.len(), 2, "{v}");
    assert_eq!(tried[1]["values"], serde_json::json!({ policy: null }));
    assert!(
        tried[0]["breaks"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!("breach-1"))
    );
    assert!(
        !tried[1]["breaks"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!("breach-1"))
    );
    assert_eq!(v["asked"]["breaks"], tried[0]["breaks"]);
    assert!(
        v["unresolved"][0]
            .as_str()
            .unwrap()
            .contains("${TOOL_POLICY}"),
        "{v}"
    );
    assert!(
        v["notes"][0]
            .as_str()
            .unwrap()
            .contains("profile 'dev' is not applied")
    );
    // --set resolves it; the dev profile overrides it.
    let (_, v) = json(&["--set", "TOOL_POLICY=RETURN_ERROR_RESPONSE"]);
    assert_eq!(v["bound"]["on_limit_exceeded"], "RETURN_ERROR_RESPONSE");
    assert_eq!(v["unresolved"], serde_json::json!([]));
    assert_eq!(v["open"], serde_json::Value::Null);
    let (_, v) = json(&["--set", "TOOL_POLICY=THROW", "--profile", "dev"]);
    assert_eq!(v["bound"]["on_limit_exceeded"], "RETURN_ERROR_RESPONSE");
    // The environment resolves it too.
    let out = std::process::Command::new(crate::support::bin())
        .args(["check", y, "--json"])
        .env("TOOL_POLICY", "RETURN_ERROR_RESPONSE")
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["bound"]["on_limit_exceeded"], "RETURN_ERROR_RESPONSE");
    // The prod file beside it: Spring refuses its value, with file and line.
    let (code, _, err) = check_cli(&[y, "--profile", "prod"], b"");
    assert_eq!(code, 2);
    assert!(
        err.contains("application-prod.properties:1: spring.ai.tools.limits.max-total-tool-calls"),
        "{err}"
    );
    // Several files: read in the order given, a later one winning; the
    // profile files beside them after all of them.
    let more = dir.join("more.properties");
    std::fs::write(
        &more,
        "spring.ai.tools.limits.max-calls-per-tool-default=5\n",
    )
    .unwrap();
    let (_, v) = json(&[more.to_str().unwrap(), "--set", "TOOL_POLICY=THROW"]);
    assert_eq!(v["bound"]["max_calls_per_tool_default"], 5, "{v}");
    std::fs::write(
        dir.join("more-dev.properties"),
        "spring.ai.tools.limits.max-calls-per-tool-default=2\n",
    )
    .unwrap();
    let (_, v) = json(&[
        more.to_str().unwrap(),
        "--profile",
        "dev",
        "--set",
        "TOOL_POLICY=THROW",
    ]);
    assert_eq!(v["bound"]["max_calls_per_tool_default"], 2, "{v}");
    assert_eq!(v["files"].as_array().unwrap().len(), 3, "{v}");
    // A build file that declares a version of no line the model
    // describes: a warning (a 1.1 version is the 1.1 line: check_1_1.rs).
    let pom = dir.join("pom.xml");
    std::fs::write(
        &pom,
        "<properties><spring-ai.version>1.0.3</spring-ai.version></properties>",
    )
    .unwrap();
    let (_, out, _) = check_cli(&[y, "--build", pom.to_str().unwrap()], b"");
    assert!(out.contains("Spring AI 1.0.3, not 2.0.1"), "{out}");
    assert!(out.contains("Setup: Spring AI 2.0.1, "), "{out}");
    // A build file that names 2.0.0: answered for 2.0.0, which has no
    // limits: the breach scenarios are not played, the limit properties
    // are ignored (a note each), and the answer names the version.
    std::fs::write(
        &pom,
        "<properties><spring-ai.version>2.0.0</spring-ai.version></properties>",
    )
    .unwrap();
    let (_, out, _) = check_cli(
        &[more.to_str().unwrap(), "--build", pom.to_str().unwrap()],
        b"",
    );
    assert!(
        out.contains("answered for 2.0.0, which has no tool call limits"),
        "{out}"
    );
    assert!(
        out.contains("Setup: Spring AI 2.0.0, Gemini, no tool call limits"),
        "{out}"
    );
    assert!(
        out.contains("Spring AI 2.0.0 has no 'spring.ai.tools.limits.max-calls-per-tool-default'"),
        "{out}"
    );
    let (_, v) = json(&[more.to_str().unwrap(), "--build", pom.to_str().unwrap()]);
    assert_eq!(v["spring_ai"], "2.0.0", "{v}");
    for set in v["sets"].as_array().unwrap() {
        for verdict in set["verdicts"].as_array().unwrap() {
            if verdict["column"].as_str().unwrap().starts_with("breach") {
                assert_eq!(verdict["mark"], "n/a", "{verdict}");
            }
        }
    }
    let (_, v) = json(&[more.to_str().unwrap()]);
    assert_eq!(v["spring_ai"], "2.0.1", "{v}");
    // A version given through properties that refer to properties is
    // resolved as Maven resolves it.
    std::fs::write(
        &pom,
        "<properties><spring-ai.version>${ai}</spring-ai.version><ai>2.0.${patch}</ai><patch>0</patch></properties>",
    )
    .unwrap();
    let (_, v) = json(&[more.to_str().unwrap(), "--build", pom.to_str().unwrap()]);
    assert_eq!(v["spring_ai"], "2.0.0", "{v}");
    // One that refers to itself stays unresolved: a warning that says so,
    // and the answer for 2.0.1.
    std::fs::write(
        &pom,
        "<properties><spring-ai.version>${spring-ai.version}</spring-ai.version></properties>",
    )
    .unwrap();
    let (_, out, _) = check_cli(&[y, "--build", pom.to_str().unwrap()], b"");
    assert!(
        out.contains("Spring AI ${spring-ai.version}: unresolved"),
        "{out}"
    );
    assert!(out.contains("Setup: Spring AI 2.0.1, "), "{out}");
    // A long version with control characters in it is shown on one line,
    // cut, with its length.
    std::fs::write(
        &pom,
        format!(
            "<spring-ai.version>\n\u{1b}[2J{}</spring-ai.version>",
            "9".repeat(100_000)
        ),
    )
    .unwrap();
    let (_, out, _) = check_cli(&[y, "--build", pom.to_str().unwrap()], b"");
    let line = out
        .lines()
        .find(|l| l.contains("Spring AI `\\u{1b}[2J"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        line.contains("... (100004 characters)`: cannot be read as a version"),
        "{line}"
    );
    assert!(line.len() < 300, "{line}");
    // A build file past the configuration files' limit is not read.
    std::fs::write(&pom, vec![b'x'; 5 << 20]).unwrap();
    let (code, _, err) = check_cli(&[y, "--build", pom.to_str().unwrap()], b"");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("larger than 4194304 bytes (5242880): not read"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A placeholder nothing resolves leaves its property to the real
/// environment, so `check` answers for the worst value it may take: with
/// `${TOOL_POLICY}` and a JSON-error processor, THROW is safe and
/// RETURN_ERROR_RESPONSE is not (issue 6902), so the file is not safe
/// until the value is given. Checked as unset, it was once called safe.
#[test]
fn an_open_placeholder_is_answered_for_its_worst_value() {
    let dir = scratch("open");
    let file = dir.join("application.properties");
    std::fs::write(
        &file,
        "spring.ai.tools.limits.on-limit-exceeded=${TOOL_POLICY}\n\
         spring.ai.tools.limits.max-total-tool-calls=${TOTAL}\n\
         spring.ai.tools.throw-exception-on-error=${STRICT}\n\
         spring.ai.tools.limits.excluded-tools=${SKIPPED}\n",
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let base = [f, "--tools", "json", "--processor", "json-error"];
    let run = |extra: &[&str]| {
        let mut a = base.to_vec();
        a.extend_from_slice(extra);
        check_cli(&a, b"")
    };
    let (code, out, err) = run(&[
        "--set",
        "TOOL_POLICY=THROW",
        "--set",
        "TOTAL=5",
        "--set",
        "STRICT=false",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    let (code, out, err) = run(&[]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("Open values: the answer is for "), "{out}");
    assert!(
        out.contains("spring.ai.tools.limits.on-limit-exceeded=RETURN_ERROR_RESPONSE"),
        "{out}"
    );
    assert!(
        out.contains("spring.ai.tools.limits.on-limit-exceeded = RETURN_ERROR_RESPONSE (an open value: below)"),
        "{out}"
    );
    // Three properties with values to try (the list binds as written):
    // 3 × 2 × 2 combinations, each checked.
    let (code, out, _) = run(&["--json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["open"]["every_combination"], true);
    assert_eq!(v["open"]["properties"].as_array().unwrap().len(), 3, "{v}");
    let tried = v["open"]["tried"].as_array().unwrap();
    assert_eq!(tried.len(), 12, "{v}");
    let worst = tried
        .iter()
        .map(|t| t["breaks"].as_array().unwrap().len())
        .max();
    assert_eq!(Some(tried[0]["breaks"].as_array().unwrap().len()), worst);
    assert_eq!(v["asked"]["breaks"], tried[0]["breaks"]);
    assert!(tried.iter().any(|t| t["safe"] == true), "{v}");
    assert_eq!(
        v["bound"]["excluded_tools"],
        serde_json::json!(["${SKIPPED}"])
    );
    // Past 64 combinations (3^4 limits × 2 policies = 162) each property is
    // tried in turn, keeping the worst so far: 1 + 4 × 2 + 1 checks.
    let many = dir.join("many.properties");
    std::fs::write(
        &many,
        "spring.ai.tools.limits.max-calls-per-tool.a=${A}\n\
         spring.ai.tools.limits.max-calls-per-tool.b=${B}\n\
         spring.ai.tools.limits.max-calls-per-tool-default=${C}\n\
         spring.ai.tools.limits.max-total-tool-calls=${D}\n\
         spring.ai.tools.limits.on-limit-exceeded=${E}\n",
    )
    .unwrap();
    let (code, out, _) = check_cli(&[many.to_str().unwrap(), "--json"], b"");
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["open"]["every_combination"], false, "{v}");
    assert_eq!(v["open"]["tried"].as_array().unwrap().len(), 10, "{v}");
    assert_eq!(
        v["open"]["answered_for"]["spring.ai.tools.limits.on-limit-exceeded"],
        "RETURN_ERROR_RESPONSE"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Profile values Spring Boot refuses to start with: a name its
/// `ProfilesValidator` rejects, and `spring.profiles.include` in a
/// document under `on-profile` (`InactiveConfigDataAccessException`).
/// `tests/spring_config/profile-*` hold the accepted rules against the real
/// Spring Boot.
#[test]
fn profile_values_spring_refuses_are_no_verdict() {
    let dir = scratch("profile-refusals");
    for (text, says) in [
        (
            "spring.profiles.active=(dev)\n",
            "Profile '(dev)' must contain a letter, digit or allowed char",
        ),
        (
            "spring.profiles.active=dev,,prod\n",
            "Invalid empty profile",
        ),
        (
            "spring.profiles.default=-x\n",
            "Profile '-x' must start and end with a letter or digit",
        ),
        (
            "x=1\n#---\nspring.config.activate.on-profile=dev\nspring.profiles.include=prod\n",
            "cannot contain property 'spring.profiles.include'",
        ),
    ] {
        let f = dir.join("application.properties");
        std::fs::write(&f, text).unwrap();
        let (code, out, err) = check_cli(&[f.to_str().unwrap()], b"");
        assert_eq!(code, 2, "{text}: {out}{err}");
        // A name the validator refuses is a `BindException` on the
        // property, with its line; the include cannot be loaded at all.
        let how = if says.contains("include") {
            "Spring cannot load it"
        } else {
            "Spring Boot refuses this configuration"
        };
        assert!(err.contains(how) && err.contains(says), "{text}: {err}");
    }
    // A placeholder in a profile value resolves (here its default, or
    // --set); one nothing resolves is kept as written, not refused.
    let f = dir.join("application.properties");
    std::fs::write(&f, "spring.profiles.active=${TCM_UNSET_PROFILE:dev}\n").unwrap();
    let (code, out, err) = check_cli(&[f.to_str().unwrap(), "--json"], b"");
    assert_ne!(code, 2, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["profiles"], serde_json::json!(["dev"]));
    let (_, out, _) = check_cli(
        &[
            f.to_str().unwrap(),
            "--json",
            "--set",
            "TCM_UNSET_PROFILE=prod",
        ],
        b"",
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["profiles"], serde_json::json!(["prod"]));
    std::fs::write(&f, "spring.profiles.active=${TCM_UNSET_PROFILE}\n").unwrap();
    let (code, out, err) = check_cli(&[f.to_str().unwrap()], b"");
    assert_ne!(code, 2, "{out}{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// docs/FIXES.md's table of which sets close which problem under which
/// setup is the one `closing_table` computes from the verdicts, so that no
/// claim of the page can disagree with them (`TOOLCALL_WRITE_DOCS=1`
/// writes it again).
#[test]
fn closing_table_in_fixes_md_is_generated_from_the_verdicts() {
    use toolcall_check::config::{CLOSES_BEGIN, CLOSES_END, closing_table};
    let path = crate::support::root().join("docs/FIXES.md");
    let page = std::fs::read_to_string(&path).unwrap();
    let begin = page.find(CLOSES_BEGIN).expect("the begin marker") + CLOSES_BEGIN.len() + 1;
    let end = page.find(CLOSES_END).expect("the end marker");
    let want = format!("\n{}\n", closing_table());
    if std::env::var_os("TOOLCALL_WRITE_DOCS").is_some() {
        let page = format!("{}{want}{}", &page[..begin], &page[end..]);
        std::fs::write(&path, page).unwrap();
        return;
    }
    assert_eq!(
        page[begin..end],
        want,
        "docs/FIXES.md differs from the verdicts: TOOLCALL_WRITE_DOCS=1 cargo test --test lib closing_table"
    );
    // The claim a team was once given: strict-json-or-wrap alone makes
    // every cell of RETURN_ERROR_RESPONSE safe. The table says otherwise.
    let rer = want
        .lines()
        .find(|l| l.starts_with("| RETURN_ERROR_RESPONSE | Spring's | none |"))
        .unwrap();
    assert!(!rer.contains("`strict-json-or-wrap`,"), "{rer}");
    let runaway = want
        .lines()
        .find(|l| {
            l.starts_with(
                "| The turn that never ends | repeats | RETURN_ERROR_RESPONSE | JSON-error",
            )
        })
        .unwrap();
    assert!(
        runaway.contains("`breach-through-processor` (runaway)"),
        "{runaway}"
    );
}

/// Every main-table line that says a set closes a problem is held to the
/// verdicts of every column of that problem, and names the setup it rests
/// on; the turn that never ends names the other processor's answer.
#[test]
fn the_main_tables_lines_agree_with_the_verdicts() {
    use toolcall_check::config::{GROUPS, conclusion, reproduce};
    let job = reproduce();
    let lines = conclusion(&job);
    for (g, (_, name)) in GROUPS.iter().enumerate() {
        let line = lines.iter().find(|l| l.starts_with(name)).unwrap();
        assert!(
            name.contains("processor") && name.contains("memory"),
            "{name}: the setup it rests on"
        );
        let closed = line
            .split(": closed by ")
            .nth(1)
            .and_then(|r| r.split('.').next())
            .unwrap();
        for set in closed.split(", ").filter(|s| *s != "no behaviour set") {
            for (i, c) in job.columns.iter().enumerate() {
                if c.group == g {
                    let (_, v) = job.rows.iter().find(|(s, _)| s.name == set).unwrap();
                    assert!(
                        v[i].mark.survives(),
                        "{line}: {set} breaks {} ({})",
                        c.id,
                        v[i].mark.word()
                    );
                }
            }
        }
    }
    let never = lines
        .iter()
        .find(|l| l.starts_with("The turn that never ends"))
        .unwrap();
    assert!(
        never.contains("With a JSON-error processor (--processor json-error) it runs away under breach-through-processor"),
        "{never}"
    );
}

/// "Fix it today" is right: re-running `check` with the switches it names
/// as `--fixes` exits 0, and with its configuration change (as `--set` and
/// flags) under upstream exits 0 too; where it names none, no set is safe.
#[test]
fn fix_it_today_is_right_when_rerun() {
    let dir = scratch("fix-it-today");
    let readme_file = dir.join("application.properties");
    std::fs::write(
        &readme_file,
        "spring.ai.tools.limits.max-calls-per-tool-default=3\n\
         spring.ai.tools.limits.max-calls-per-tool.getWeather=1\n\
         spring.ai.tools.limits.excluded-tools=listFiles\n\
         spring.ai.tools.limits.on-limit-exceeded=RETURN_ERROR_RESPONSE\n\
         spring.ai.tools.limit.max-total-tool-calls=20\n",
    )
    .unwrap();
    let f = readme_file.to_str().unwrap();
    let setups: [&[&str]; 6] = [
        &["--memory", "inside"],
        &[],
        &["--processor", "json-error"],
        &["--tools", "json"],
        &[
            "--tools",
            "json",
            "--processor",
            "json-error",
            "--memory",
            "inside",
        ],
        &["--streaming", "--memory", "outside"],
    ];
    let mut checked_change = 0;
    for extra in setups {
        let mut args = vec![f, "--json"];
        args.extend_from_slice(extra);
        let (code, out, err) = check_cli(&args, b"");
        assert_eq!(code, 1, "{extra:?}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let today = &v["fix_it_today"];
        match today["fixes"].as_array() {
            Some(fixes) => {
                let list: Vec<&str> = fixes.iter().map(|x| x.as_str().unwrap()).collect();
                let mut again = vec![f, "--fixes"];
                let joined = list.join(",");
                again.push(&joined);
                again.extend_from_slice(extra);
                let (code, out, err) = check_cli(&again, b"");
                assert_eq!(code, 0, "{extra:?} --fixes {joined}: {out}{err}");
            }
            None => {
                let safe = v["sets"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|s| s["safe"] == true);
                assert!(!safe, "{extra:?}: no switch named, yet a set is safe");
            }
        }
        if let Some(changes) = today["configuration"].as_array() {
            let mut again: Vec<String> = vec![f.to_owned()];
            // The setup's flags, a changed one replaced.
            let changed: Vec<String> = changes
                .iter()
                .map(|c| {
                    format!(
                        "--{}",
                        c["change"].as_str().unwrap().split('=').next().unwrap()
                    )
                })
                .collect();
            let mut rest = extra.iter();
            while let Some(a) = rest.next() {
                let value = if *a == "--streaming" {
                    None
                } else {
                    rest.next()
                };
                if !changed.iter().any(|c| c == a) {
                    again.push(a.to_string());
                    again.extend(value.map(|v| v.to_string()));
                }
            }
            for c in changes {
                let (k, value) = c["change"].as_str().unwrap().split_once('=').unwrap();
                match k {
                    "on-limit-exceeded" | "throw-exception-on-error" => {
                        again.push("--set".into());
                        again.push(format!("spring.ai.tools.limits.{k}={value}").replace(
                            "limits.throw-exception-on-error",
                            "throw-exception-on-error",
                        ));
                    }
                    flag => {
                        again.push(format!("--{flag}"));
                        again.push(value.to_owned());
                    }
                }
            }
            let again: Vec<&str> = again.iter().map(String::as_str).collect();
            let (code, out, err) = check_cli(&again, b"");
            assert_eq!(code, 0, "{again:?}: {out}{err}");
            checked_change += 1;
        }
    }
    assert!(checked_change > 0, "a configuration change was re-run");
    std::fs::remove_dir_all(&dir).ok();
}

/// A placeholder with a default is open to the environment: answered at
/// its worst value too, its default shown, unless `--set` gives it or
/// `--defaults-run` says the defaults are what runs; one warning per
/// placeholder, none for one `--set` answers.
#[test]
fn a_placeholder_with_a_default_is_open() {
    let dir = scratch("defaulted");
    let file = dir.join("application.properties");
    std::fs::write(
        &file,
        "spring.ai.tools.limits.on-limit-exceeded=${TOOL_POLICY:THROW}\n\
         spring.ai.tools.limits.max-calls-per-tool.searchFlights=${TOOL_MAX:3}\n\
         spring.ai.tools.limits.max-calls-per-tool.other=${TOOL_MAX}\n",
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let base = [f, "--tools", "json", "--processor", "json-error"];
    let run = |extra: &[&str]| {
        let mut a = base.to_vec();
        a.extend_from_slice(extra);
        check_cli(&a, b"")
    };
    let (code, out, err) = run(&[]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("spring.ai.tools.limits.on-limit-exceeded=RETURN_ERROR_RESPONSE"),
        "{out}"
    );
    assert!(out.contains("=${TOOL_POLICY:THROW} (its default)"), "{out}");
    assert_eq!(out.matches("warning: ${TOOL_MAX}").count(), 1, "{out}");
    assert_eq!(out.matches("warning: ${TOOL_POLICY}").count(), 1, "{out}");
    assert!(!out.contains("warning: ${TOOL_MAX:3}"), "{out}");
    // The names as the team wrote them.
    assert!(
        out.contains("max-calls-per-tool.searchFlights = ${TOOL_MAX:3}"),
        "{out}"
    );
    let (code, out, err) = run(&["--json"]);
    assert_eq!(code, 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["open"]["defaults"]["spring.ai.tools.limits.on-limit-exceeded"],
        "${TOOL_POLICY:THROW}"
    );
    // --set answers it, and silences its warning.
    let (code, out, err) = run(&["--set", "TOOL_POLICY=THROW", "--set", "TOOL_MAX=3"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(!out.contains("warning: ${TOOL_POLICY}"), "{out}");
    assert!(!out.contains("Open values"), "{out}");
    let (code, out, _) = run(&[
        "--set",
        "TOOL_POLICY=RETURN_ERROR_RESPONSE",
        "--set",
        "TOOL_MAX=3",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(!out.contains("warning: ${TOOL_POLICY}"), "{out}");
    // The defaults are what runs: answered at them alone.
    let (code, out, err) = run(&["--defaults-run", "--set", "TOOL_MAX=3"]);
    assert_eq!(code, 0, "{out}{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A streaming team keeps the gate green honestly: the finding no switch
/// fixes is accepted by scenario and mark (a file or an option), reported
/// as accepted (text, JSON, a SARIF suppression), and fails again when
/// the answer changes; a misspelt key is a SARIF result with its line, and
/// fails the gate under `--strict-keys`.
#[test]
fn accepted_findings_and_strict_keys() {
    let dir = scratch("accepted");
    let file = dir.join("application.properties");
    std::fs::write(
        &file,
        "spring.ai.tools.limits.max-calls-per-tool-default=3\n\
         spring.ai.tools.limits.on-limit-exceded=THROW\n\
         spring.ai.tools.limits.max-calls-per-tools.weather=2\n",
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let base = [
        f,
        "--streaming",
        "--tools",
        "json",
        "--memory",
        "outside",
        "--processor",
        "json-error",
    ];
    let run = |extra: &[&str]| {
        let mut a = base.to_vec();
        a.extend_from_slice(extra);
        check_cli(&a, b"")
    };
    let (code, out, _) = run(&[]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("Verdict: not safe under upstream: text+call"),
        "{out}"
    );
    // The suggestion keeps the tool.
    assert!(
        out.contains("did you mean 'spring.ai.tools.limits.max-calls-per-tool.weather'"),
        "{out}"
    );
    let accept = dir.join("accepted-findings");
    std::fs::write(
        &accept,
        "# streamed replies are read from their first generation (upstream)\n\
         text+call dropped # no switch fixes it; tracked upstream\n",
    )
    .unwrap();
    let sarif = dir.join("out.sarif");
    let a = accept.to_str().unwrap();
    let s = sarif.to_str().unwrap();
    let (code, out, err) = run(&["--accept", a, "--sarif", s]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("accepted ("), "{out}");
    assert!(
        out.contains("text+call (dropped): no switch fixes it"),
        "{out}"
    );
    assert!(out.contains("(1 accepted: text+call) (exit 0)"), "{out}");
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    let tc = results.iter().find(|r| r["ruleId"] == "text+call").unwrap();
    assert_eq!(tc["suppressions"][0]["kind"], "external", "{tc}");
    let unknown: Vec<_> = results
        .iter()
        .filter(|r| r["ruleId"] == "unknown-key")
        .collect();
    assert_eq!(unknown.len(), 2, "{results:?}");
    assert_eq!(
        unknown[0]["locations"][0]["physicalLocation"]["region"]["startLine"],
        2
    );
    assert_eq!(unknown[0]["level"], "warning");
    // The same by option, in JSON.
    let (code, out, _) = run(&["--accept-finding", "text+call dropped upstream", "--json"]);
    assert_eq!(code, 0, "{out}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["asked"]["accepted"][0]["scenario"], "text+call");
    assert_eq!(v["asked"]["breaks"], serde_json::json!(["text+call"]));
    // Another mark, or another set, accepts nothing: the gate fails, and
    // the line is named as stale.
    let (code, out, _) = run(&["--accept-finding", "text+call runaway"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("note: --accept-finding accepts text+call (runaway)"),
        "{out}"
    );
    let (code, _, _) = run(&["--accept-finding", "text+call dropped all"]);
    assert_eq!(code, 1);
    // A bad line: exit 2 with its place.
    std::fs::write(&accept, "text+call\n").unwrap();
    let (code, _, err) = run(&["--accept", a]);
    assert_eq!(code, 2);
    assert!(err.contains("accepted-findings:1: "), "{err}");
    // --strict-keys: the misspelt keys fail the gate, and are errors.
    let (code, out, _) = run(&[
        "--accept-finding",
        "text+call dropped",
        "--strict-keys",
        "--sarif",
        s,
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("2 key(s) Spring ignores (--strict-keys)"),
        "{out}"
    );
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    assert!(
        log["runs"][0]["results"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["ruleId"] == "unknown-key" && r["level"] == "error")
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// The SARIF log: a region for the turn that never ends (the policy's
/// line), every remedy in the message (configuration and library), URIs
/// encoded as RFC 3986 asks, and no write through a symbolic link or over
/// an input.
#[test]
fn sarif_remedies_uris_and_safe_writing() {
    let dir = scratch("sarif-more").join("my app#1");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("application.properties");
    std::fs::write(
        &file,
        "spring.ai.tools.limits.max-calls-per-tool-default=1\n\
         spring.ai.tools.limits.on-limit-exceeded=RETURN_ERROR_RESPONSE\n",
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let sarif = dir.join("out.sarif");
    let s = sarif.to_str().unwrap();
    let (code, out, err) = check_cli(&[f, "--tools", "json", "--sarif", s], b"");
    assert_eq!(code, 1, "{out}{err}");
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            crate::support::root().join("tests/sarif/sarif-schema-2.1.0.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::draft4::new(&schema).expect("the SARIF schema compiles");
    let errors: Vec<String> = validator.iter_errors(&log).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    let results = log["runs"][0]["results"].as_array().unwrap();
    for r in results {
        let loc = &r["locations"][0]["physicalLocation"];
        let uri = loc["artifactLocation"]["uri"].as_str().unwrap();
        assert!(uri.contains("my%20app%231/application.properties"), "{uri}");
        let text = r["message"]["text"].as_str().unwrap();
        assert!(text.contains("on-limit-exceeded=THROW"), "{text}");
        assert!(text.contains("toolcall.fixes."), "{text}");
    }
    let repeats = results.iter().find(|r| r["ruleId"] == "repeats").unwrap();
    assert_eq!(
        repeats["locations"][0]["physicalLocation"]["region"]["startLine"],
        2
    );
    // Not through a symbolic link, not over an input.
    let target = dir.join("elsewhere");
    std::fs::write(&target, "kept").unwrap();
    let link = dir.join("link.sarif");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let (code, _, err) = check_cli(&[f, "--sarif", link.to_str().unwrap()], b"");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("symbolic link"), "{err}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "kept");
    let before = std::fs::read_to_string(&file).unwrap();
    let (code, _, err) = check_cli(&[f, "--sarif", f], b"");
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("the same file as an input"), "{err}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    std::fs::remove_dir_all(dir.parent().unwrap()).ok();
}

/// Short by default: the README's five-line file answers in at most 30
/// lines, the full matrix behind `--all-sets`, where "no configuration
/// change of one or two settings is enough" is said once.
#[test]
fn the_answer_is_short_by_default() {
    let dir = scratch("short");
    let file = dir.join("application.properties");
    std::fs::write(
        &file,
        "spring.ai.tools.limits.max-calls-per-tool-default=3\n\
         spring.ai.tools.limits.max-calls-per-tool.getWeather=1\n\
         spring.ai.tools.limits.excluded-tools=listFiles\n\
         spring.ai.tools.limits.on-limit-exceeded=RETURN_ERROR_RESPONSE\n\
         spring.ai.tools.limit.max-total-tool-calls=20\n",
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let (code, out, _) = check_cli(&[f, "--memory", "inside"], b"");
    assert_eq!(code, 1);
    assert!(
        out.lines().count() <= 30,
        "{} lines:\n{out}",
        out.lines().count()
    );
    assert!(!out.contains("behaviour set "), "{out}");
    // The Gemini error whole, not cut before its point.
    assert!(
        out.contains("is equal to the number of function call parts of the function call turn."),
        "{out}"
    );
    assert_eq!(
        out.matches("Failed to parse JSON: Tool call limit").count(),
        1,
        "{out}"
    );
    let (code, out, _) = check_cli(&[f, "--memory", "inside", "--all-sets"], b"");
    assert_eq!(code, 1);
    assert!(out.contains("\nbehaviour set "), "{out}");
    assert!(out.contains("\ngemini-tool-text "), "{out}");
    assert_eq!(
        out.matches("no configuration change of one or two settings is enough")
            .count(),
        1,
        "{out}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
