//! `check --build` on a Spring AI 1.1 build (docs/CHECK.md, "Spring AI
//! 1.1"): Maven and Gradle, the BOM or a starter's version, 1.1.2 and
//! 1.1.6, with and without the fix library's Boot 3 starter; the answer
//! is the 1.1 line's (no limits, the loop inside the chat model), its
//! advice the Boot 3 starter's and, written where it says, taken.

use std::path::Path;

use crate::support::{run, scratch};

const BOOT3_STARTER: &str =
    "io.github.toolcallmodel:toolcall-fixes-boot3-spring-boot-starter:0.1.0";

/// A Maven build on `version` through the BOM (a property) and the Google
/// GenAI starter it manages, with the Boot 3 starter when `fixes`.
fn pom(version: &str, fixes: bool) -> String {
    let starter = if fixes {
        "<dependency><groupId>io.github.toolcallmodel</groupId><artifactId>toolcall-fixes-boot3-spring-boot-starter</artifactId><version>0.1.0</version></dependency>"
    } else {
        ""
    };
    format!(
        r#"<project>
  <modelVersion>4.0.0</modelVersion>
  <parent><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-parent</artifactId><version>3.5.7</version></parent>
  <groupId>com.example</groupId><artifactId>demo</artifactId><version>1</version>
  <properties><spring-ai.version>{version}</spring-ai.version></properties>
  <dependencies>
    <dependency><groupId>org.springframework.ai</groupId><artifactId>spring-ai-starter-model-google-genai</artifactId></dependency>
    {starter}
  </dependencies>
  <dependencyManagement><dependencies><dependency>
    <groupId>org.springframework.ai</groupId><artifactId>spring-ai-bom</artifactId><version>${{spring-ai.version}}</version><type>pom</type><scope>import</scope>
  </dependency></dependencies></dependencyManagement>
</project>
"#
    )
}

/// A Gradle (Kotlin) build on `version`: the platform BOM and a managed
/// starter, with the Boot 3 starter when `fixes`.
fn gradle_kts(version: &str, fixes: bool) -> String {
    let starter = if fixes {
        format!("    implementation(\"{BOOT3_STARTER}\")\n")
    } else {
        String::new()
    };
    format!(
        "plugins {{ id(\"org.springframework.boot\") version \"3.5.7\" }}\ndependencies {{\n    implementation(\"org.springframework.ai:spring-ai-starter-model-google-genai\")\n    implementation(platform(\"org.springframework.ai:spring-ai-bom:{version}\"))\n{starter}}}\n"
    )
}

/// A Gradle (Groovy) build that names the starter's version alone.
fn gradle_starter(version: &str, fixes: bool) -> String {
    let starter = if fixes {
        format!("    implementation '{BOOT3_STARTER}'\n")
    } else {
        String::new()
    };
    format!(
        "dependencies {{\n    implementation 'org.springframework.ai:spring-ai-starter-model-google-genai:{version}'\n{starter}}}\n"
    )
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_owned()
}

/// Every build form on 1.1.2 and 1.1.6 answers for the 1.1 line: the
/// breach scenarios not applicable (never safe, never broken), the
/// limits' keys not read, the Gemini failures of issue 5437, and the
/// Boot 3 starter advised, never the Boot 4 one.
#[test]
fn a_1_1_build_answers_for_the_1_1_line() {
    let dir = scratch("check-1-1");
    let app = write(
        &dir,
        "application.properties",
        "spring.ai.tools.limits.max-calls-per-tool-default=3\nspring.ai.tools.throw-exception-on-error=false\n",
    );
    for version in ["1.1.2", "1.1.6"] {
        let builds = [
            ("pom.xml", pom(version, false)),
            ("build.gradle.kts", gradle_kts(version, false)),
            ("build.gradle", gradle_starter(version, false)),
        ];
        for (name, text) in builds {
            let build = write(&dir, name, &text);
            let (code, out, err) = run(&["check", &app, "--build", &build]);
            let what = format!("{version} {name}: {out}{err}");
            assert_eq!(code, 1, "{what}");
            assert!(
                out.contains(&format!("Spring AI {version}: answered for the 1.1 line")),
                "{what}"
            );
            if version != "1.1.2" {
                assert!(out.contains("as 1.1.2 (from 1.1.0 to 1.1.8"), "{what}");
            }
            assert!(!out.starts_with("warning"), "{what}");
            assert!(
                out.contains("Setup: Spring AI 1.1.2, Gemini, no tool call limits,"),
                "{what}"
            );
            assert!(
                out.contains("the tool loop inside the chat model"),
                "{what}"
            );
            // Named as the build declares it; the first line says it is
            // answered as 1.1.2.
            assert!(
                out.contains(&format!(
                    "Spring AI {version} has no 'spring.ai.tools.limits.max-calls-per-tool-default'"
                )),
                "{what}"
            );
            assert!(
                out.contains("throws (parse): the caller gets RuntimeException: Failed to parse JSON: Service unavailable"),
                "{what}"
            );
            assert!(
                out.contains(&format!("with the fix library ({BOOT3_STARTER}), in application.properties:\n    toolcall.fixes.strict-json-or-wrap=true\n")),
                "{what}"
            );
            assert!(
                !out.contains("toolcall-fixes-spring-boot-starter"),
                "{what}"
            );
            assert!(
                out.contains("repeats (runaway) stays with every switch of the fix library"),
                "{what}"
            );
            // The breach scenarios: n/a under every set, in the JSON too.
            let (_, json, _) = run(&["check", &app, "--build", &build, "--json"]);
            let v: serde_json::Value = serde_json::from_str(&json).unwrap();
            assert_eq!(v["spring_ai"], "1.1.2", "{what}");
            assert_eq!(v["fix_it_today"]["library"], BOOT3_STARTER, "{what}");
            for set in v["sets"].as_array().unwrap() {
                for verdict in set["verdicts"].as_array().unwrap() {
                    if verdict["scenario"].as_str().unwrap().starts_with("breach") {
                        assert_eq!(verdict["mark"], "n/a", "{what}");
                    }
                }
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A build that declares the Boot 3 starter has the library on 1.1: its
/// rule installs the JSON-safe tool responses (strict-json-or-wrap), a
/// 2.0-only switch in the file is not read, and with the runaway
/// accepted the setup passes; the advice of a build without it, written
/// into the file with the starter added, passes too.
#[test]
fn the_boot3_starter_is_the_library_on_1_1() {
    let dir = scratch("check-1-1-starter");
    let app = write(
        &dir,
        "application.properties",
        "toolcall.fixes.end-turn-after-breach=true\n",
    );
    for version in ["1.1.2", "1.1.6"] {
        for (name, text) in [
            ("pom.xml", pom(version, true)),
            ("build.gradle.kts", gradle_kts(version, true)),
            ("build.gradle", gradle_starter(version, true)),
        ] {
            let build = write(&dir, name, &text);
            let (code, out, err) = run(&["check", &app, "--build", &build]);
            let what = format!("{version} {name}: {out}{err}");
            assert_eq!(code, 1, "{what}");
            assert!(
                out.contains("The fix library installs strict-json-or-wrap\n  strict-json-or-wrap: unset, on: a Gemini chat model\n"),
                "{what}"
            );
            assert!(
                out.contains(&format!("end-turn-after-breach ({}:1): not a switch of {BOOT3_STARTER} (Spring AI 1.1.2): not read", app)),
                "{what}"
            );
            assert!(
                out.contains("Verdict: not safe under strict-json-or-wrap: repeats (exit 1)"),
                "{what}"
            );
            let (code, out, _) = run(&[
                "check",
                &app,
                "--build",
                &build,
                "--accept-finding",
                "repeats runaway",
            ]);
            assert_eq!(code, 0, "{version} {name}: {out}");
        }
    }
    // The advice of a build without the starter, written as it says.
    let bare = write(
        &dir,
        "bare.properties",
        "spring.ai.tools.throw-exception-on-error=false\n",
    );
    let without = write(&dir, "pom.xml", &pom("1.1.6", false));
    let (_, out, _) = run(&[
        "check",
        &bare,
        "--build",
        &without,
        "--accept-finding",
        "repeats runaway",
    ]);
    let switches: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.contains(BOOT3_STARTER))
        .skip(1)
        .take_while(|l| l.starts_with("    "))
        .map(str::trim)
        .collect();
    assert_eq!(
        switches,
        ["toolcall.fixes.strict-json-or-wrap=true"],
        "{out}"
    );
    let advised = write(
        &dir,
        "advised.properties",
        &format!(
            "spring.ai.tools.throw-exception-on-error=false\n{}\n",
            switches.join("\n")
        ),
    );
    let with = write(&dir, "pom.xml", &pom("1.1.6", true));
    let (code, out, _) = run(&[
        "check",
        &advised,
        "--build",
        &with,
        "--accept-finding",
        "repeats runaway",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("strict-json-or-wrap=true ("), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The Boot 4 starter on a 1.1 build (it stops such an application at
/// startup) is a warning and not the library; a 1.1 version not read
/// against 1.1.2 is answered as the line with a warning; `--memory
/// inside` and `--history` say what 1.1 makes of them; 2.0.1 is as before.
#[test]
fn what_1_1_does_not_have_is_said() {
    let dir = scratch("check-1-1-notes");
    let app = write(
        &dir,
        "application.properties",
        "spring.ai.tools.throw-exception-on-error=false\n",
    );
    let boot4 = pom("1.1.2", false).replace(
        "<dependencies>",
        "<dependencies><dependency><groupId>io.github.toolcallmodel</groupId><artifactId>toolcall-fixes-spring-boot-starter</artifactId></dependency>",
    );
    let build = write(&dir, "pom.xml", &boot4);
    let (code, out, _) = run(&[
        "check",
        &app,
        "--build",
        &build,
        "--memory",
        "inside",
        "--history",
        "off",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("declares io.github.toolcallmodel:toolcall-fixes-spring-boot-starter:0.1.0 (Spring Boot 4, Spring AI 2.0.x), which stops an application on Spring AI 1.1.2 at startup: not counted; on 1.1 use the Boot 3 starter\n"),
        "{out}"
    );
    assert!(!out.contains("The fix library installs"), "{out}");
    assert!(
        out.contains(
            "note: --memory inside: on Spring AI 1.1 that is ToolCallAdvisor (1.1.0 on) with MessageChatMemoryAdvisor at its default order"
        ),
        "{out}"
    );
    assert!(
        out.contains("note: --history off: Spring AI 1.1.2 has no ToolCallingAdvisor"),
        "{out}"
    );
    assert!(
        out.contains("memory inside the loop (window 20), the tool loop in ToolCallAdvisor,"),
        "{out}"
    );
    let later = write(&dir, "build.gradle", &gradle_starter("1.1.9", false));
    let (code, out, _) = run(&["check", &app, "--build", &later]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.starts_with("warning: ") && out.contains("Spring AI 1.1.9: not a 1.1 release this model was read against (1.1.0 to 1.1.8); answered for the 1.1 line as 1.1.2"),
        "{out}"
    );
    let now = write(&dir, "build.gradle", &gradle_starter("2.0.1", false));
    let (_, out, _) = run(&["check", &app, "--build", &now]);
    assert!(out.contains("Setup: Spring AI 2.0.1,"), "{out}");
    assert!(
        out.contains("toolcall-fixes-spring-boot-starter:0.1.0"),
        "{out}"
    );
    assert!(
        out.contains("conversation history on (ChatClient's choice)"),
        "{out}"
    );
    let wrong = write(&dir, "build.gradle", &gradle_starter("2.0.1", true));
    let (_, out, _) = run(&["check", &app, "--build", &wrong]);
    assert!(
        out.contains(&format!("declares {BOOT3_STARTER} (Spring Boot 3, Spring AI 1.1.x): not counted; on Spring AI 2.0.1 use io.github.toolcallmodel:toolcall-fixes-spring-boot-starter:0.1.0\n")),
        "{out}"
    );
    assert!(!out.contains("The fix library installs"), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

/// On a 1.1 release other than 1.1.2, the notes about what 1.1 does not
/// read name the build's version; the first line says it is answered as
/// 1.1.2.
#[test]
fn notes_name_the_build_s_version() {
    let dir = scratch("check-1-1-6-notes");
    let app = write(
        &dir,
        "application.properties",
        "spring.ai.tools.limits.on-limit-exceeded=RETURN_ERROR_RESPONSE\n",
    );
    let build = write(&dir, "pom.xml", &pom("1.1.6", false));
    let (_, out, _) = run(&[
        "check",
        &app,
        "--build",
        &build,
        "--memory",
        "inside",
        "--history",
        "off",
    ]);
    assert!(
        out.contains("Spring AI 1.1.6: answered for the 1.1 line, as 1.1.2"),
        "{out}"
    );
    for note in [
        "not verified for 1.1.6",
        "note: --history off: Spring AI 1.1.6 has no ToolCallingAdvisor",
        "Spring AI 1.1.6 has no 'spring.ai.tools.limits.on-limit-exceeded'",
    ] {
        assert!(out.contains(note), "{note}: {out}");
    }
    // The memory-inside verdicts are said to be the 1.1.2 jars', once.
    assert!(out.contains("as on the 1.1.2 jars"), "{out}");
    assert_eq!(out.matches("not verified for 1.1.6").count(), 1, "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `--memory inside` on 1.1 is ToolCallAdvisor with the memory advisor at
/// its default order, answered as the model runs it on the 1.1.2 jars
/// (tests/vectors/v1.1.2/advisor-*): from the second request of a tool
/// turn on, the memory's copy of the call stands before the loop's own, so
/// Gemini rejects even a JSON tool's turn; ordering the memory before
/// ToolCallAdvisor is the advice. On a release after 1.1.2 the verdicts
/// are said to be 1.1.2's, not verified there.
#[test]
fn memory_inside_on_1_1_is_tool_call_advisor_s() {
    let dir = scratch("check-1-1-advisor");
    let app = write(
        &dir,
        "application.properties",
        "spring.ai.tools.throw-exception-on-error=false\n",
    );
    let build = write(&dir, "pom.xml", &pom("1.1.2", false));
    let (code, out, _) = run(&[
        "check", &app, "--build", &build, "--memory", "inside", "--tools", "json",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("the tool loop in ToolCallAdvisor"), "{out}");
    assert!(
        out.contains("12-rounds (rejected): Gemini rejects request 2 of the turn"),
        "{out}"
    );
    assert!(
        out.contains("order MessageChatMemoryAdvisor before ToolCallAdvisor (--memory outside)"),
        "{out}"
    );
    assert!(!out.contains("not verified"), "{out}");
    let (_, outside, _) = run(&[
        "check", &app, "--build", &build, "--memory", "outside", "--tools", "json",
    ]);
    assert!(
        outside.contains("the tool loop inside the chat model"),
        "{outside}"
    );
    assert!(!outside.contains("12-rounds"), "{outside}");
    let later = write(&dir, "build.gradle", &gradle_starter("1.1.6", false));
    let (_, out, _) = run(&["check", &app, "--build", &later, "--memory", "inside"]);
    assert!(
        out.contains("warning: --memory inside: the verdicts are 1.1.2's; from 1.1.3")
            && out.contains("not verified for 1.1.6"),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
