//! The fix library (`conformance/fixes`, the Spring Boot library a Spring AI
//! 2.0.1 application adds) passes its own JUnit tests, seed 000's example
//! application among them: with Gemini's real request building, the second
//! model call dies with `Failed to parse JSON` without a fix and reaches the
//! model as a JSON-safe error with each of the library's switches.
//!
//! Runs `mvn install` on `conformance/judge` (the judge's module on Chicory,
//! built by cargo), `conformance/fixes` and `conformance/fixes-test` (the
//! gate for an application's tests), whose tests resolve the jars from the
//! local Maven repository (no network in the tests themselves) and replay the
//! Jazzer corpora of `ToolResponseRewriteFuzzTests` against this build's
//! `toolcall-model convert` (`TOOLCALL_MODEL_BIN`). Without Java 17
//! and Maven the test prints `SKIPPED` and passes, unless
//! `TOOLCALL_REQUIRE_JAVA=1`.

use crate::support::{java_build, java_required, root};

#[test]
fn the_fix_library_passes_its_tests() {
    if let Err(e) = java_build() {
        assert!(!java_required(), "Java is required here: {e}");
        println!("SKIPPED the_fix_library_passes_its_tests: {e}");
        return;
    }
    let conformance = root().join("conformance");
    let modules = ["judge", "fixes", "fixes-test"];
    let reports: Vec<_> = modules
        .iter()
        .map(|m| conformance.join(m).join("target/surefire-reports"))
        .collect();
    // Reports of an earlier run must not count for this one.
    for r in &reports {
        let _ = std::fs::remove_dir_all(r);
    }
    // The Jazzer targets compare the library's rewrite with the model's
    // `convert` on every replayed input; `mvn test` alone skips that half.
    // One reactor: the judge (whose build runs cargo for the module), the
    // library on it, the gate on the library; installed, so that a build
    // in conformance/fixes alone (the Jazzer stage, the runner) finds them.
    let out = std::process::Command::new("mvn")
        .args([
            "-q",
            "-B",
            "-pl",
            &modules.join(","),
            "install",
            "-Dmaven.javadoc.skip=true",
            "-Dmaven.source.skip=true",
        ])
        .env("TOOLCALL_MODEL_BIN", env!("CARGO_BIN_EXE_toolcall-model"))
        .current_dir(&conformance)
        .output()
        .expect("mvn starts");
    let mut summary = Vec::new();
    let mut ran = 0usize;
    let entries = reports
        .iter()
        .flat_map(|r| std::fs::read_dir(r).into_iter().flatten().flatten());
    for entry in entries {
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
    println!(
        "conformance (judge, fixes, fixes-test): {ran} JUnit tests\n{}",
        summary.join("\n")
    );
    assert!(
        out.status.success(),
        "mvn install failed in conformance (judge, fixes, fixes-test):\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(ran >= 20, "too few JUnit tests ran: {ran}");
}
