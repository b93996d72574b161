//! The fix libraries pass their own JUnit tests: `conformance/fixes` (the
//! Spring Boot 4 library a Spring AI 2.0.1 application adds), seed 000's
//! example application among them: with Gemini's real request building, the
//! second model call dies with `Failed to parse JSON` without a fix and
//! reaches the model as a JSON-safe error with each of the library's
//! switches; with it the judge it runs (`conformance/judge`, the judge's
//! module on Chicory, built by cargo) and the gate for an application's
//! tests (`conformance/fixes-test`); and `conformance/fixes-boot3` (the
//! Spring Boot 3 library for Spring AI 1.1.x): on 1.1.2's real
//! `GoogleGenAiChatModel` and google-genai client against a Gemini stub on
//! loopback, every tool response of the model's own loop reaches Gemini as a
//! JSON object, and without the library the same calls fail.
//!
//! Runs `mvn install` from `conformance/` on both libraries' modules in one
//! reactor (two modules at a time, `-T 2`: the Boot 3 library builds and
//! tests beside the judge and the Boot 4 one), with the loopback Gemini API
//! of their tests (`conformance/gemini-stub`), installed once, so that a
//! build in `conformance/fixes` alone, the Jazzer stage or the runner, finds
//! them; their tests resolve the jars
//! from the local Maven repository (no network in the tests themselves) and
//! replay the Jazzer corpora of `ToolResponseRewriteFuzzTests` against this
//! build's `toolcall-model convert` (`TOOLCALL_MODEL_BIN`). Maven and the
//! test JVMs inherit `TOOLCALL_DEEP_TESTS`: a plain run takes a share of the
//! longest tests, `TOOLCALL_DEEP_TESTS=1` all of them (docs/TESTING.md, the
//! fix libraries' reactor). Without Java 17 and Maven the test prints
//! `SKIPPED` and passes, unless `TOOLCALL_REQUIRE_JAVA=1`.

use crate::support::{java_build, java_required, root};

/// The reactor's modules, each with the least number of JUnit tests its
/// surefire reports must count (the Gemini stub has none of its own).
const MODULES: [(&str, usize); 5] = [
    ("judge", 1),
    ("gemini-stub", 0),
    ("fixes", 20),
    ("fixes-test", 1),
    ("fixes-boot3", 20),
];

/// Both libraries in one `mvn install`: one Maven start and one build of
/// the Gemini stub instead of two (two runs at once built it in the same
/// folder). The longest test of `cargo test`; the module is named to sort
/// first (tests/lib.rs), so that it starts first.
#[test]
fn the_fix_libraries_pass_their_tests() {
    let named = MODULES.map(|(m, _)| m).join(", ");
    if let Err(e) = java_build() {
        assert!(!java_required(), "Java is required here: {e}");
        println!("SKIPPED {named}: {e}");
        return;
    }
    let conformance = root().join("conformance");
    let reports: Vec<_> = MODULES
        .iter()
        .map(|(m, _)| conformance.join(m).join("target/surefire-reports"))
        .collect();
    // Reports of an earlier run must not count for this one.
    for r in &reports {
        let _ = std::fs::remove_dir_all(r);
    }
    // The Jazzer targets compare the library's rewrite with the model's
    // `convert` on every replayed input; `mvn test` alone skips that half.
    let out = std::process::Command::new("mvn")
        .args([
            "-q",
            "-B",
            "-T",
            "2",
            "-pl",
            &MODULES.map(|(m, _)| m).join(","),
            "install",
            "-Dmaven.javadoc.skip=true",
            "-Dmaven.source.skip=true",
        ])
        .env("TOOLCALL_MODEL_BIN", env!("CARGO_BIN_EXE_toolcall-model"))
        .current_dir(&conformance)
        .output()
        .expect("mvn starts");
    let mut summary = Vec::new();
    let mut counts = Vec::new();
    for ((module, least), reports) in MODULES.iter().zip(&reports) {
        let ran = junit_tests_run(reports, &mut summary);
        counts.push((*module, ran, *least));
    }
    let ran: usize = counts.iter().map(|(_, n, _)| n).sum();
    println!(
        "conformance ({named}): {ran} JUnit tests\n{}",
        summary.join("\n")
    );
    assert!(
        out.status.success(),
        "mvn install failed in conformance ({named}):\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    for (module, ran, least) in counts {
        assert!(ran >= least, "too few JUnit tests ran in {module}: {ran}");
    }
}

/// The tests the surefire reports in `reports` count; their summary lines
/// go to `summary`.
fn junit_tests_run(reports: &std::path::Path, summary: &mut Vec<String>) -> usize {
    let mut ran = 0;
    for entry in std::fs::read_dir(reports).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.extension().is_some_and(|x| x == "txt") {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            for line in text.lines().filter(|l| l.starts_with("Tests run:")) {
                if let Some(n) = line
                    .strip_prefix("Tests run: ")
                    .and_then(|r| r.split(',').next())
                    .and_then(|n| n.trim().parse::<usize>().ok())
                {
                    ran += n;
                }
                summary.push(line.to_owned());
            }
        }
    }
    ran
}
