//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};

/// The repository's root: the model's package, whose `check/` package
/// these tests belong to.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("check/ is inside the repository")
        .to_path_buf()
}

/// Every `*.json` file under `dir`, recursively, sorted.
pub fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "json") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The built command-line binary.
pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_toolcall-model"))
}

/// Runs the binary with `args`: its exit code (-1 when killed), stdout
/// and stderr.
pub fn run(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(bin())
        .args(args)
        .output()
        .expect("binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A fresh scratch folder of this test process, `tcm-NAME-PID` in the
/// temporary folder, emptied if it exists.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tcm-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The conformance project's runner script (`conformance/java/runner`).
pub fn java_runner_script() -> PathBuf {
    root().join("conformance/java/runner")
}

/// Whether a program answers `--version` (`java`, `mvn`).
pub fn has_program(name: &str) -> bool {
    std::process::Command::new(name)
        .arg("-version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Builds the conformance project once per test run (Maven, Java 17), so
/// that the tests that use the real classes never run two builds at once.
/// `Err` says why it cannot be built here.
pub fn java_build() -> Result<(), String> {
    static BUILT: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            if !has_program("java") {
                return Err("no `java` on PATH".into());
            }
            if !has_program("mvn") {
                return Err("no `mvn` on PATH".into());
            }
            // `runner --build` builds when stale and exits.
            let out = std::process::Command::new(java_runner_script())
                .arg("--build")
                .output()
                .map_err(|e| format!("cannot start conformance/java/runner: {e}"))?;
            if out.status.success() {
                Ok(())
            } else {
                Err(format!(
                    "the conformance project does not build: {}",
                    String::from_utf8_lossy(&out.stderr)
                ))
            }
        })
        .clone()
}

/// Whether the tests that need Java must run (`TOOLCALL_REQUIRE_JAVA=1`,
/// set by `.ci/run`) instead of printing SKIPPED.
pub fn java_required() -> bool {
    std::env::var("TOOLCALL_REQUIRE_JAVA").is_ok_and(|v| v == "1")
}

/// Whether the deeper runs are asked for (`TOOLCALL_DEEP_TESTS=1`, set by
/// `.ci/run`): the generated differentials at their full budget (3,000
/// scenarios against the real Spring AI classes, every main-job and
/// `check` turn, 400 generated binding files) instead of the share a
/// plain `cargo test` compares.
pub fn deep() -> bool {
    std::env::var("TOOLCALL_DEEP_TESTS").is_ok_and(|v| v == "1")
}

/// Whether `test` can use the real classes: built, or else SKIPPED
/// printed (a panic where Java is required).
pub fn java_ready(test: &str) -> bool {
    match java_build() {
        Ok(()) => true,
        Err(e) if java_required() => panic!("{test}: Java is required here: {e}"),
        Err(e) => {
            println!("SKIPPED {test}: {e}");
            eprintln!("SKIPPED {test}: {e}");
            false
        }
    }
}

/// One conformance runner process, asked one vector at a time.
pub struct JavaSession {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: std::io::BufReader<std::process::ChildStdout>,
}

impl JavaSession {
    /// Starts the runner (after [`java_build`]).
    pub fn start() -> Result<JavaSession, String> {
        use std::process::Stdio;
        let mut child = std::process::Command::new(java_runner_script())
            .arg("-")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start the runner: {e}"))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = std::io::BufReader::new(child.stdout.take().ok_or("no stdout")?);
        Ok(JavaSession {
            child,
            stdin,
            stdout,
        })
    }

    /// The runner's line for one vector file.
    pub fn run(&mut self, path: &Path) -> Result<String, String> {
        use std::io::{BufRead, Write};
        writeln!(self.stdin, "{}", path.display()).map_err(|e| format!("runner stdin: {e}"))?;
        self.stdin
            .flush()
            .map_err(|e| format!("runner stdin: {e}"))?;
        let mut line = String::new();
        match self.stdout.read_line(&mut line) {
            Ok(0) => Err("the runner exited".into()),
            Ok(_) => Ok(line),
            Err(e) => Err(format!("runner stdout: {e}")),
        }
    }
}

impl Drop for JavaSession {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// xorshift64: a deterministic choice for the generated tests (the Jackson
/// and binding differentials), so every run compares the same texts and a
/// seed names a failing case.
pub struct Rng(pub u64);

impl Rng {
    /// From any seed (0 included): mixed, and never the all-zero state.
    pub fn seeded(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True `percent` times in a hundred.
    pub fn below_percent(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }

    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}
