//! Bounded work for any input: small hostile inputs whose work once grew
//! far faster than the file (exponential placeholders, alias and list
//! bombs, per-line recursion, quadratic scans) get their answer or a clear
//! refusal within a memory ceiling and a generous time. The ceilings are
//! loose on purpose (a loaded machine, a debug build): each input once took
//! gigabytes, minutes or a stack overflow.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::support::bin;

/// How a bounded run ended.
pub struct Outcome {
    /// The exit code; `None` when killed (by the time limit or a signal).
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

impl std::fmt::Debug for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let clip = |s: &str| s.chars().take(600).collect::<String>();
        write!(
            f,
            "code {:?} after {:?}\nstdout: {}\nstderr: {}",
            self.code,
            self.elapsed,
            clip(&self.stdout),
            clip(&self.stderr)
        )
    }
}

/// A scratch folder of this test process.
pub fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tcm-bounded-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs the binary with its address space capped at `mem_mb` megabytes
/// (`ulimit -v`, so an allocation past it fails instead of the machine
/// swapping) and killed after `secs` seconds.
pub fn run_bounded(args: &[&str], mem_mb: u64, secs: u64) -> Outcome {
    static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = scratch("out");
    let (out_path, err_path) = (dir.join(format!("{n}.out")), dir.join(format!("{n}.err")));
    let started = Instant::now();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {} && exec \"$0\" \"$@\"", mem_mb * 1024))
        .arg(bin())
        .args(args)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .expect("sh runs");
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break Some(s);
        }
        if started.elapsed() > Duration::from_secs(secs) {
            child.kill().ok();
            child.wait().ok();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let elapsed = started.elapsed();
    let read =
        |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned();
    let o = Outcome {
        code: status.and_then(|s| s.code()),
        stdout: read(&out_path),
        stderr: read(&err_path),
        elapsed,
    };
    std::fs::remove_file(&out_path).ok();
    std::fs::remove_file(&err_path).ok();
    o
}

/// `check FILE` within 1 GB and 60 s.
fn check(file: &Path) -> Outcome {
    run_bounded(&["check", file.to_str().unwrap()], 1024, 60)
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let f = dir.join(name);
    std::fs::write(&f, text).unwrap();
    f
}

#[test]
fn doubling_placeholders_are_refused_not_expanded() {
    // 706 bytes that expand to 2^40 (a terabyte of nothing, looked up a
    // trillion times): once it never finished; 24 levels took 9.5 s.
    let dir = scratch("placeholders");
    for n in [24, 40] {
        let mut text = String::from("a0=\n");
        for i in 1..=n {
            text.push_str(&format!("a{i}=${{a{}}}${{a{}}}\n", i - 1, i - 1));
        }
        text.push_str(&format!(
            "spring.ai.tools.limits.max-total-tool-calls=${{a{n}}}\n"
        ));
        let o = check(&write(&dir, "application.properties", &text));
        assert_eq!(o.code, Some(2), "{n} levels: {o:?}");
        assert!(
            o.stderr.contains(&format!(
                "not checked: spring.ai.tools.limits.max-total-tool-calls (line {}): placeholders expand past 33554432 bytes",
                n + 2
            )),
            "{o:?}"
        );
        assert!(o.elapsed < Duration::from_secs(30), "{o:?}");
    }
    // The same shape at a depth that stays small is still resolved.
    let mut text = String::from("a0=1\n");
    for i in 1..=3 {
        text.push_str(&format!("a{i}=${{a{}}}${{a{}}}\n", i - 1, i - 1));
    }
    text.push_str("spring.ai.tools.limits.max-total-tool-calls=${a3}\n");
    let o = check(&write(&dir, "application.properties", &text));
    assert_eq!(o.code, Some(1), "{o:?}");
    assert!(o.stdout.contains("total 11111111"), "{o:?}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn unclosed_placeholders_take_linear_time() {
    // 160,000 `${` without a `}`: each once scanned to the end (13.7 s in a
    // release build). Now a single pass: the value is echoed back clipped.
    let dir = scratch("unclosed");
    let text = format!(
        "spring.ai.tools.limits.max-total-tool-calls={}\n",
        "${".repeat(160_000)
    );
    let o = check(&write(&dir, "application.properties", &text));
    assert_eq!(o.code, Some(2), "{o:?}");
    assert!(o.stderr.contains("For input string"), "{o:?}");
    assert!(o.elapsed < Duration::from_secs(20), "{o:?}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn deeply_nested_placeholders_take_linear_memory() {
    // 800,000 `${x:` nested in a 4 MB value: each of the 100 levels parsed
    // again mapped every `${` of the text below it (a 2 MB value took 906
    // MB and 5.9 s in a release build). Now the ends are found once.
    let dir = scratch("nested");
    let n = 800_000;
    let text = format!(
        "spring.ai.tools.limits.max-total-tool-calls={}1{}\n",
        "${x:".repeat(n),
        "}".repeat(n)
    );
    let o = run_bounded(
        &[
            "check",
            write(&dir, "application.properties", &text)
                .to_str()
                .unwrap(),
        ],
        300,
        60,
    );
    assert_eq!(o.code, Some(2), "{o:?}");
    assert!(
        o.stderr.contains("placeholders nested more than 100 deep"),
        "{o:?}"
    );
    // At the limit's depth the same shape resolves to its innermost default.
    let text = format!(
        "spring.ai.tools.limits.max-total-tool-calls={}7{}\n",
        "${x:".repeat(100),
        "}".repeat(100)
    );
    let o = check(&write(&dir, "application.properties", &text));
    assert_eq!(o.code, Some(1), "{o:?}");
    assert!(o.stdout.contains("total 7"), "{o:?}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn continuation_lines_take_no_stack() {
    // 120,000 backslash-newlines in a row once overflowed the stack (the
    // reader recursed once per line).
    let dir = scratch("continuations");
    let text = format!(
        "spring.ai.tools.limits.max-total-tool-calls=1\\\n{}2\n",
        "\\\n".repeat(120_000)
    );
    let o = check(&write(&dir, "application.properties", &text));
    assert_eq!(o.code, Some(1), "{o:?}");
    assert!(o.stdout.contains("total 12,"), "{o:?}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_list_of_empty_items_is_refused_by_what_it_makes() {
    // `excluded-tools[]=,,,,` filling 4 MiB made 4 million properties,
    // each repeating the key: 4.3 GB and 45 s.
    let dir = scratch("commas");
    let text = format!(
        "spring.ai.tools.limits.excluded-tools[]={}\n",
        ",".repeat(4_000_000)
    );
    let o = check(&write(&dir, "application.properties", &text));
    assert_eq!(o.code, Some(2), "{o:?}");
    assert!(
        o.stderr
            .contains("not checked: key[]= lists expand past 33554432 bytes (line 1)"),
        "{o:?}"
    );
    // A real list is read as before.
    let o = check(&write(
        &dir,
        "application.properties",
        "spring.ai.tools.limits.excluded-tools[]=a, b,c\n",
    ));
    assert_eq!(o.code, Some(1), "{o:?}");
    assert!(o.stdout.contains("excluded a, b, c"), "{o:?}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn yaml_aliases_and_long_keys_are_bounded_by_bytes() {
    let dir = scratch("yaml");
    // One 3.7 MB anchored scalar and 60,000 aliases to it: far below the
    // node limit, once 6.1 GB and an abort.
    let text = format!(
        "a: &A {}\nb:\n{}",
        "x".repeat(3_700_000),
        "  - *A\n".repeat(60_000)
    );
    let o = check(&write(&dir, "application.yml", &text));
    assert_eq!(o.code, Some(2), "{o:?}");
    assert!(
        o.stderr
            .contains("not checked: aliases expand past 33554432 bytes (line 12)"),
        "{o:?}"
    );
    // A 1 MB key over 45,000 children: each flattened name repeats it.
    let text = format!(
        "? {}\n:\n{}",
        "k".repeat(1_000_000),
        (0..45_000)
            .map(|i| format!("  a{i}: 1\n"))
            .collect::<String>()
    );
    let o = check(&write(&dir, "application.yml", &text));
    assert_eq!(o.code, Some(2), "{o:?}");
    assert!(
        o.stderr
            .contains("not checked: keys and values expand past 33554432 bytes"),
        "{o:?}"
    );
    // Aliases of a real size still work.
    let o = check(&write(
        &dir,
        "application.yml",
        "n: &N 3\nspring.ai.tools.limits:\n  max-calls-per-tool-default: *N\n  max-total-tool-calls: *N\n",
    ));
    assert_eq!(o.code, Some(1), "{o:?}");
    assert!(
        o.stdout.contains("per tool 3") && o.stdout.contains("total 3"),
        "{o:?}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A `tool_loop` vector of `rounds` tool rounds (one call each, no limits),
/// then an answer.
fn long_loop(rounds: usize, provider: &str) -> String {
    let mut model: Vec<serde_json::Value> = (0..rounds)
        .map(|i| {
            serde_json::json!([{"text": null, "tool_calls": [
                {"id": format!("c{i}"), "type": "function", "name": "t", "arguments": "{}"}]}])
        })
        .collect();
    model.push(serde_json::json!([{"text": "done", "tool_calls": []}]));
    serde_json::json!({
        "format": "toolcall-model/1",
        "name": format!("long-loop-{provider}"),
        "manager": {"max_calls_per_tool": "unlimited", "max_total_tool_calls": "unlimited"},
        "tools": [{"name": "t", "outcomes": [{"returns": "{\"a\":1}"}]}],
        "op": "tool_loop",
        "input": {"history": [{"type": "user", "text": "go"}], "model": model,
                  "provider": provider, "memory": "none"},
        "expect": {"outcome": {"kind": "completed"}}
    })
    .to_string()
}

#[test]
fn a_long_loop_takes_memory_linear_in_its_rounds() {
    // 600 rounds: each request repeats the turn, so a copy per round took
    // about 0.6 GB (999 rounds: 1.7 GB for a 100 KB vector). The record now
    // shares the messages; `run` writes one request at a time.
    let dir = scratch("loop");
    for provider in ["gemini", "none"] {
        let f = write(&dir, "loop.json", &long_loop(600, provider));
        let f = f.to_str().unwrap();
        let o = run_bounded(&["verify", f], 256, 120);
        assert_eq!(o.code, Some(0), "{provider}: {o:?}");
        assert!(o.stdout.contains("1 passed, 0 failed"), "{o:?}");
        let o = run_bounded(&["run", f], 256, 120);
        assert_eq!(o.code, Some(0), "{provider}: {o:?}");
        // 601 requests of up to 1,201 contents or messages each.
        assert!(o.stdout.len() > 50_000_000, "{}", o.stdout.len());
        assert!(o.stdout.ends_with("}\n"));
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn runner_output_and_shards_are_read_within_bounds() {
    // `conform` read the runner's output whole, and `merge` a shard's file:
    // a device that never ends took all the memory there was.
    let o = run_bounded(&["conform", "/dev/zero"], 1024, 60);
    assert_eq!(o.code, Some(2), "{o:?}");
    assert!(
        o.stderr
            .contains("runner output line 1: longer than 268435456 bytes: not read"),
        "{o:?}"
    );
    let o = run_bounded(&["merge", "/dev/zero"], 1024, 60);
    assert_eq!(o.code, Some(2), "{o:?}");
    assert!(o.stderr.contains("/dev/zero: not a regular file"), "{o:?}");
    // Both from standard input: refused (standard input is read under a
    // lock held for the whole output, and the list would wait on it).
    let o = run_bounded(&["conform", "-", "--files", "-"], 1024, 60);
    assert_eq!(o.code, Some(2), "{o:?}");
    assert!(o.stderr.contains("cannot both be standard input"), "{o:?}");
    // Each answer was looked up in the list of files by a scan: 80,000
    // answers took quadratic time.
    let dir = scratch("conform-list");
    let time = |n: usize| {
        let mut list = String::new();
        let mut out = String::new();
        for i in 0..n {
            list.push_str(&format!("absent-{i}.json\n"));
            out.push_str(&format!(
                "{{\"path\":\"absent-{i}.json\",\"status\":\"result\",\"result\":{{}}}}\n"
            ));
        }
        let l = write(&dir, "files.txt", &list);
        let r = write(&dir, "results.jsonl", &out);
        let o = run_bounded(
            &[
                "conform",
                "--files",
                l.to_str().unwrap(),
                r.to_str().unwrap(),
            ],
            1024,
            120,
        );
        assert_eq!(o.code, Some(1), "{o:?}");
        assert!(o.stdout.contains(&format!("0 passed, {n} failed")), "{o:?}");
        o.elapsed
    };
    let (small, large) = (time(20_000), time(80_000));
    assert!(
        large < small * 8 + Duration::from_secs(1),
        "20000 answers took {small:?}, 80000 took {large:?}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_build_file_version_is_resolved_within_bounds() {
    // 64 references to a 4 MB property: each pass of the version's
    // interpolation once expanded every reference it met (256 MB).
    let dir = scratch("build");
    let pom = write(
        &dir,
        "pom.xml",
        &format!(
            "<project><spring-ai.version>{}</spring-ai.version><x>{}</x></project>",
            "${x}".repeat(64),
            "9".repeat(4_000_000)
        ),
    );
    let props = write(&dir, "application.properties", "");
    let o = run_bounded(
        &[
            "check",
            props.to_str().unwrap(),
            "--build",
            pom.to_str().unwrap(),
        ],
        256,
        60,
    );
    assert_eq!(o.code, Some(1), "{o:?}");
    assert!(
        o.stdout.contains("(4000252 characters): unresolved"),
        "{o:?}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_deep_runner_line_is_refused_not_overflowed() {
    // serde_json's depth limit is off for runner lines (payloads nest to
    // Jackson's 500): a line 17,000 deep once overflowed the stack.
    let dir = scratch("conform");
    let line = |d: usize| {
        format!(
            "{{\"path\":\"absent.json\",\"status\":\"result\",\"result\":{}{}}}\n",
            "[".repeat(d),
            "]".repeat(d)
        )
    };
    let f = write(&dir, "results.jsonl", &line(17_000));
    let o = run_bounded(&["conform", f.to_str().unwrap()], 1024, 60);
    assert_eq!(o.code, Some(1), "{o:?}");
    assert!(
        o.stdout
            .contains("FAIL runner output line 1: nests deeper than 1064 levels (column 1113)"),
        "{o:?}"
    );
    // At Jackson 2's own depth (Spring AI 1.1's) the line is read (and
    // judged: here, its file is absent).
    let f = write(&dir, "results.jsonl", &line(1040));
    let o = run_bounded(&["conform", f.to_str().unwrap()], 1024, 60);
    assert_eq!(o.code, Some(1), "{o:?}");
    assert!(o.stdout.contains("FAIL absent.json: cannot read"), "{o:?}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Runs `check` on the file `make(n)` and `make(4 * n)` and requires the
/// larger to take less than 8 times as long (quadratic work takes 16),
/// with a second of slack for a loaded machine.
fn near_linear(name: &str, n: usize, make: impl Fn(usize) -> String) {
    let dir = scratch("linear");
    let time = |n: usize| {
        let o = check(&write(&dir, name, &make(n)));
        assert_eq!(o.code, Some(1), "{n}: {o:?}");
        o.elapsed
    };
    let (small, large) = (time(n), time(4 * n));
    assert!(
        large < small * 8 + Duration::from_secs(1),
        "{name}: {n} took {small:?}, {} took {large:?}",
        4 * n
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn many_documents_take_near_linear_time() {
    // A map entry was looked up in every document, and so was a
    // placeholder: 10,000 documents of one override took 30 s.
    near_linear("application.yml", 2_500, |n| {
        (0..n)
            .map(|i| format!("---\nspring.ai.tools.limits.max-calls-per-tool.t{i}: 3\n"))
            .collect()
    });
    near_linear("application.properties", 2_500, |n| {
        let mut s = String::from("x=3\n");
        for i in 0..n {
            s.push_str(&format!(
                "#---\nspring.ai.tools.limits.max-calls-per-tool.t{i}=${{x}}\n"
            ));
        }
        s
    });
    // Each placeholder the file does not set was checked against every
    // other one. Every open value tried binds the file again (up to 33
    // binds), so 2,500 lines are already 2 s of CPU in the debug build: a
    // quadratic check would take 16 times that at 10,000.
    near_linear("application.properties", 2_500, |n| {
        (0..n)
            .map(|i| format!("spring.ai.tools.limits.max-calls-per-tool.t{i}=${{m{i}:3}}\n"))
            .collect()
    });
    // The list of placeholder names the file uses was kept free of repeats
    // by a scan of the list: 80,000 names took 8 s on the release build.
    near_linear("application.properties", 20_000, |n| {
        (0..n).map(|i| format!("p{i}=${{m{i}}}\n")).collect()
    });
}

#[test]
fn a_vector_is_bounded_by_its_values_and_depth() {
    use toolcall_model::vectors::{MAX_VECTOR_DEPTH, MAX_VECTOR_VALUES, Vector};
    let with_expect = |x: &str| {
        format!(
            r#"{{"format":"toolcall-model/1","name":"v","op":"convert_tool_response","input":{{"text":"42"}},"expect":{{"response":{{"result":42}},"x":{x}}}}}"#
        )
    };
    // The documented depth holds exactly: the vector and `expect` are two
    // levels.
    let nested = |d: usize| format!("{}{}", "[".repeat(d), "]".repeat(d));
    assert!(Vector::parse(with_expect(&nested(MAX_VECTOR_DEPTH - 2)).as_bytes()).is_ok());
    let e = Vector::parse(with_expect(&nested(MAX_VECTOR_DEPTH - 1)).as_bytes()).unwrap_err();
    assert!(e.to_string().contains("recursion limit exceeded"), "{e}");
    // 30 MB of `0,` once took 3 GB and 7 s: refused before it is read.
    let many = format!("[{}0]", "0,".repeat(MAX_VECTOR_VALUES));
    let started = Instant::now();
    let e = Vector::parse(with_expect(&many).as_bytes()).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("(file): more than {MAX_VECTOR_VALUES} JSON values")
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    // Just under the limit it is read (strings do not count).
    let fewer = format!(
        "[\"{}\",{}0]",
        ",".repeat(1000),
        "0,".repeat(MAX_VECTOR_VALUES / 2)
    );
    assert!(Vector::parse(with_expect(&fewer).as_bytes()).is_ok());
}

#[test]
fn links_loops_and_special_files_are_refused() {
    let dir = scratch("links");
    let good = std::fs::read_dir(crate::support::root().join("tests/vectors/gemini"))
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::copy(&good, dir.join("a.json")).unwrap();
    // One link to `.` verified a file 41 times; two hung.
    std::os::unix::fs::symlink(".", dir.join("self")).unwrap();
    std::os::unix::fs::symlink("..", dir.join("sub/up")).unwrap();
    let d = dir.to_str().unwrap();
    for cmd in ["verify", "files"] {
        let o = run_bounded(&[cmd, d], 1024, 60);
        assert_eq!(o.code, Some(1), "{cmd}: {o:?}");
        let all = format!("{}{}", o.stdout, o.stderr);
        assert_eq!(
            all.matches("a symbolic link loop").count(),
            2,
            "{cmd}: {o:?}"
        );
        let once = if cmd == "verify" {
            all.contains("1 passed, 2 failed")
        } else {
            all.matches("a.json").count() == 1
        };
        assert!(once, "{cmd}: {o:?}");
    }
    // A FIFO named like a vector blocked the read for ever.
    let fifo = dir.join("sub/fifo.json");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if made.is_ok_and(|s| s.success()) {
        let o = run_bounded(&["verify", d], 1024, 60);
        assert_eq!(o.code, Some(1), "{o:?}");
        assert!(
            o.stdout.contains("fifo.json: not a regular file: not read"),
            "{o:?}"
        );
        // Named on the command line, it was opened, and opening blocks.
        let f = fifo.to_str().unwrap();
        for (cmd, code) in [("verify", 1), ("run", 2)] {
            let o = run_bounded(&[cmd, f], 1024, 60);
            assert_eq!(o.code, Some(code), "{cmd}: {o:?}");
            assert!(
                format!("{}{}", o.stdout, o.stderr).contains("not a regular file: not read"),
                "{cmd}: {o:?}"
            );
        }
    }
    // A file past the size limit is refused by its size, not read (a
    // sparse file: no disk taken).
    let huge = dir.join("huge.json");
    std::fs::File::create(&huge)
        .unwrap()
        .set_len(3 << 30)
        .unwrap();
    let h = huge.to_str().unwrap();
    for (args, code) in [(vec!["verify", h], 1), (vec!["run", h], 2)] {
        let o = run_bounded(&args, 256, 60);
        assert_eq!(o.code, Some(code), "{args:?}: {o:?}");
        assert!(
            format!("{}{}", o.stdout, o.stderr)
                .contains("invalid vector at (file): larger than 67108864 bytes"),
            "{o:?}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn gen_streams_and_never_overwrites_unasked() {
    let dir = scratch("gen");
    let out = dir.join("out");
    let o_ = out.to_str().unwrap();
    // 4,000 vectors were all held before the first was written (20,000:
    // 367 MB); now one at a time.
    let o = run_bounded(&["gen", "--count", "4000", "--out", o_], 64, 120);
    assert_eq!(o.code, Some(0), "{o:?}");
    assert!(o.stdout.contains("wrote 4000 vectors"), "{o:?}");
    let names = || -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&out)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let files = names();
    assert_eq!(files.len(), 4000, "no temporary file is left");
    assert!(files.iter().all(|f| f.ends_with(".json")));
    // Existing files are refused before anything is written.
    let first = out.join("gen-0-0-execute_tool_calls.json");
    std::fs::write(&first, "mine").unwrap();
    let o = run_bounded(&["gen", "--count", "8", "--out", o_], 1024, 60);
    assert_eq!(o.code, Some(2), "{o:?}");
    assert!(
        o.stderr.contains(
            "exists (8 of the 8 files to write do): nothing written; --force replaces them"
        ),
        "{o:?}"
    );
    assert_eq!(std::fs::read_to_string(&first).unwrap(), "mine");
    let o = run_bounded(&["gen", "--count", "8", "--out", o_, "--force"], 1024, 60);
    assert_eq!(o.code, Some(0), "{o:?}");
    assert!(std::fs::read_to_string(&first).unwrap().contains("\"op\""));
    std::fs::remove_dir_all(&dir).ok();
}

/// `gen --shard K/N` draws its own vectors only: a shard of a million
/// vectors that holds ten takes the time of ten (each vector has a
/// generator seeded by the seed and its index), and they are the vectors
/// the whole set has at those indices.
#[test]
fn gen_shard_draws_only_its_own_vectors() {
    let dir = scratch("gen-shard");
    let (part, whole) = (dir.join("part"), dir.join("whole"));
    let o = run_bounded(
        &[
            "gen",
            "--count",
            "1000000",
            "--seed",
            "3",
            "--shard",
            "2/100000",
            "--out",
            part.to_str().unwrap(),
        ],
        256,
        20,
    );
    assert_eq!(o.code, Some(0), "{o:?}");
    assert!(o.stdout.contains("wrote 10 vectors"), "{o:?}");
    let o = run_bounded(
        &[
            "gen",
            "--count",
            "2",
            "--seed",
            "3",
            "--out",
            whole.to_str().unwrap(),
        ],
        256,
        20,
    );
    assert_eq!(o.code, Some(0), "{o:?}");
    let name = "gen-3-1-gemini_request.json";
    assert_eq!(
        std::fs::read(part.join(name)).unwrap(),
        std::fs::read(whole.join(name)).unwrap()
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn explore_says_when_it_cannot_start_a_thread() {
    // `--jobs 0` was silently 1.
    let o = run_bounded(&["explore", "--cases", "1", "--jobs", "0"], 1024, 60);
    assert_eq!(o.code, Some(2), "{o:?}");
    assert!(
        o.stderr.contains("0 worker threads would run nothing"),
        "{o:?}"
    );
    // Too little memory for a worker's stack (64 MB in random mode):
    // once a panic, and a hang.
    let o = run_bounded(&["explore", "--cases", "1", "--jobs", "2"], 40, 60);
    assert_eq!(o.code, Some(1), "{o:?}");
    assert!(
        o.stderr.contains("error: cannot start a worker thread: "),
        "{o:?}"
    );
    assert!(!o.stderr.contains("panicked"), "{o:?}");
}

#[test]
fn explore_starts_no_more_threads_than_it_has_work_for() {
    // `--jobs 100000` on the tiny bound (33 blocks of 64 scenarios) once
    // started every thread it could: 14 s where 0.1 s does.
    let o = run_bounded(
        &[
            "explore",
            "--exhaustive",
            "--bound",
            "tiny",
            "--jobs",
            "100000",
        ],
        // Address space, not memory in use: 33 stacks of 16 MB and up to
        // eight glibc arenas a core, each reserving 64 MB, outgrew 1 GB
        // on CI's machine. The thread count is what this test holds.
        20_000,
        60,
    );
    assert_eq!(o.code, Some(0), "{o:?}");
    // No more than the machine's parallelism, nor than the 33 blocks.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert!(
        o.stderr
            .contains(&format!("on {} thread(s)", cores.min(33))),
        "{o:?}"
    );
    assert!(o.elapsed < Duration::from_secs(10), "{o:?}");
    // Random mode: one thread per cell (a behaviour set and an invariant)
    // at most.
    let o = run_bounded(&["explore", "--cases", "1", "--jobs", "100000"], 20_000, 60);
    assert_eq!(o.code, Some(0), "{o:?}");
    let cells = toolcall_model::model::behavior_sets().len()
        * toolcall_check::verification::invariants::Invariant::ALL.len();
    assert!(
        o.stderr
            .contains(&format!("on {} thread(s)", cores.min(cells))),
        "{o:?}"
    );
}

/// `explore --jobs 64` (and above) aborted under a 4 GB address space:
/// each thread reserves its stack and an allocator arena. `--jobs` is now
/// at most the available parallelism, said on standard error.
#[test]
fn explore_jobs_are_capped_by_the_parallelism() {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let many = (cores * 32).max(64).to_string();
    let o = run_bounded(&["explore", "--cases", "1", "--jobs", &many], 4096, 120);
    assert_eq!(o.code, Some(0), "{o:?}");
    assert!(
        o.stderr
            .contains(&format!("--jobs {many} lowered to {cores}")),
        "{o:?}"
    );
    assert!(o.stderr.contains(&format!("on {cores} thread(s)")), "{o:?}");
}

/// A vector of tool calls to a tool returning a large text: 200 calls of a
/// 30 MB result aborted `run` and `verify` at 4 GB (signal 6), 2,000 calls
/// of 1 MB took 2 GB and wrote 2 GB, and a 100 KB loop repeating 5 KB
/// results 1,000 times wrote 5 GB. Each is now refused before running,
/// exit 2 naming its budget, in well under the memory it once took.
#[test]
fn run_and_verify_keep_to_their_budgets() {
    let dir = scratch("budgets");
    let calls = |n: usize| -> Vec<serde_json::Value> {
        (0..n)
            .map(|i| serde_json::json!({"id": format!("c{i}"), "type": "function", "name": "t", "arguments": "{}"}))
            .collect()
    };
    let manager = |result: String, n: usize| {
        serde_json::json!({
            "format": "toolcall-model/1", "name": "many-large-results", "about": "a",
            "manager": {"max_calls_per_tool": "unlimited", "max_total_tool_calls": "unlimited"},
            "tools": [{"name": "t", "outcomes": [{"returns": result}]}],
            "op": "execute_tool_calls",
            "input": {"history": [{"type": "user", "text": "go"}],
                      "generations": [{"text": null, "tool_calls": calls(n)}]},
            "expect": {}
        })
        .to_string()
    };
    let repeated = serde_json::json!({
        "format": "toolcall-model/1", "name": "repeating-loop", "about": "a",
        "manager": {"max_calls_per_tool": "unlimited", "max_total_tool_calls": "unlimited"},
        "tools": [{"name": "t", "outcomes": [{"returns": "x".repeat(5000)}]}],
        "op": "tool_loop",
        "input": {"history": [{"type": "user", "text": "go"}],
                  "model": [[{"text": null, "tool_calls": calls(1)}]],
                  "repeat_last": true, "provider": "gemini", "memory": "none"},
        "expect": {}
    })
    .to_string();
    for (name, text, budget) in [
        ("30mb", manager("x".repeat(30 << 20), 200), "'tool results'"),
        ("1mb", manager("x".repeat(1 << 20), 2000), "'tool results'"),
        ("loop", repeated, "'requests'"),
    ] {
        let f = write(&dir, &format!("{name}.json"), &text);
        let f = f.to_str().unwrap();
        for cmd in ["run", "verify"] {
            let o = run_bounded(&[cmd, f], 1024, 120);
            assert_eq!(o.code, Some(2), "{cmd} {name}: {o:?}");
            // `verify` reports the vector in its list, `run` on standard error.
            let said = format!("{}{}", o.stdout, o.stderr);
            assert!(
                said.contains(&format!("budget {budget} hit")),
                "{cmd} {name}: {o:?}"
            );
            assert!(o.stdout.len() < 1 << 20, "{cmd} {name}: {}", o.stdout.len());
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `convert < /dev/zero` read 2.1 GB before failing: standard input is
/// read within its budget, exit 2 naming it; `--jsonl` bounds a line the
/// same way.
#[test]
fn convert_reads_standard_input_within_its_budget() {
    for args in [vec!["convert"], vec!["convert", "--jsonl"]] {
        let o = Command::new("sh")
            .arg("-c")
            .arg("ulimit -v 1048576 && exec \"$0\" \"$@\" < /dev/zero")
            .arg(bin())
            .args(&args)
            .output()
            .expect("sh runs");
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("budget 'convert input' hit"), "{err}");
    }
}

#[test]
fn names_cannot_forge_lines_or_drive_the_terminal() {
    let dir = scratch("forge");
    // A failing vector whose name carries a count line of its own.
    let v = serde_json::json!({
        "format": "toolcall-model/1", "name": "x\n3 passed, 0 failed\u{1b}[2K",
        "op": "convert_tool_response", "input": {"text": "42"},
        "expect": {"response": {"result": 41}}
    });
    let f = write(&dir, "v.json", &v.to_string());
    let o = run_bounded(&["verify", f.to_str().unwrap()], 1024, 60);
    assert_eq!(o.code, Some(1), "{o:?}");
    let lines: Vec<&str> = o.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{o:?}");
    assert!(
        lines[0].starts_with("FAIL x\\n3 passed, 0 failed\\u{1b}[2K ("),
        "{o:?}"
    );
    assert_eq!(lines[1], "0 passed, 1 failed");
    // A YAML key with an escape sequence reaches the output escaped.
    let y = write(
        &dir,
        "application.yml",
        "spring.ai.tools.limits.max-calls-per-tool:\n  \"[a\\e(b]\": 2\n",
    );
    let o = check(&y);
    assert_eq!(o.code, Some(1), "{o:?}");
    assert!(!o.stdout.contains('\u{1b}'), "{o:?}");
    assert!(o.stdout.contains("a\\u{1b}(b"), "{o:?}");
    // A newline in a tool's name (a `.properties` escape) stays in its line.
    let p = write(
        &dir,
        "application.properties",
        "spring.ai.tools.limits.max-calls-per-tool.[a\\nb]=1\n",
    );
    let o = check(&p);
    assert_eq!(o.code, Some(1), "{o:?}");
    assert!(o.stdout.contains("a\\nb 1"), "{o:?}");
    assert!(
        !o.stdout
            .lines()
            .any(|l| l.starts_with("b ") || l.starts_with("b]") || l.starts_with("b'")),
        "{o:?}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn lost_output_is_an_error_not_a_panic_or_a_success() {
    // Standard error unwritable: every error message panicked (exit 101);
    // a file that cannot be read is check's "no verdict" (2).
    let o = Command::new("sh")
        .arg("-c")
        .arg("exec \"$0\" check /nonexistent.properties 2>/dev/full")
        .arg(bin())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    // Standard output closed: a run exited 0 with its output lost.
    let o = Command::new("sh")
        .arg("-c")
        .arg("exec \"$0\" files \"$1\" >&-")
        .arg(bin())
        .arg(crate::support::root().join("tests/vectors/gemini"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("standard output is closed"));
    // A full disk: `check` said "not safe" (exit 1) and `run` exited 1,
    // both with nothing on standard error.
    let dir = scratch("full");
    let safe = write(
        &dir,
        "safe.properties",
        "spring.ai.tools.limits.on-limit-exceeded=THROW\n",
    );
    let vector = crate::support::root().join("tests/vectors/gemini/assistant-nbsp-text-kept.json");
    let gen_out = dir.join("gen");
    for args in [
        vec![
            "check",
            safe.to_str().unwrap(),
            "--tools",
            "json",
            "--processor",
            "json-error",
            "--memory",
            "outside",
        ],
        vec!["check", safe.to_str().unwrap(), "--json"],
        vec!["run", vector.to_str().unwrap()],
        vec!["verify", vector.to_str().unwrap()],
        vec!["files", vector.to_str().unwrap()],
        vec![
            "gen",
            "--count",
            "2",
            "--out",
            gen_out.to_str().unwrap(),
            "--force",
        ],
        vec![],
    ] {
        let o = Command::new("sh")
            .arg("-c")
            .arg("exec \"$0\" \"$@\" >/dev/full")
            .arg(bin())
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {o:?}");
        assert!(
            String::from_utf8_lossy(&o.stderr)
                .contains("error: cannot write to standard output: No space left on device"),
            "{args:?}: {o:?}"
        );
    }
    let o = Command::new("sh")
        .arg("-c")
        .arg("echo 42 | \"$0\" convert >/dev/full")
        .arg(bin())
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    std::fs::remove_dir_all(&dir).ok();
    // Sent to /dev/null on purpose, it is a success.
    let o = Command::new("sh")
        .arg("-c")
        .arg("exec \"$0\" files \"$1\" >/dev/null")
        .arg(bin())
        .arg(crate::support::root().join("tests/vectors/gemini"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{o:?}");
}

#[test]
fn duplicate_keys_and_huge_values_are_refused_with_their_place() {
    use toolcall_model::vectors::Vector;
    // serde_json kept the last of two keys without a word.
    let text = "{\"format\":\"toolcall-model/1\",\"name\":\"n\",\n \"op\":\"convert_tool_response\",\"input\":{\"text\":\"42\"},\n \"expect\":{\"response\":{\"result\":42}, \"response\": {\"result\": 41}}}";
    let e = Vector::parse(text.as_bytes()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "/expect/response: a duplicate key (line 3 column 38): each key once"
    );
    // Keys equal once decoded are the same key; the same key in two
    // objects is not a duplicate.
    let text = r#"{"format":"toolcall-model/1","name":"n","op":"convert_tool_response","input":{"text":"42"},"expect":{"response":{"result":42},"x":[{"a":1},{"a":2,"\u0061":3}]}}"#;
    let e = Vector::parse(text.as_bytes()).unwrap_err();
    assert!(
        e.to_string().starts_with("/expect/x/1/a: a duplicate key"),
        "{e}"
    );
    // A bad value of 10 MB was echoed whole.
    let v = serde_json::json!({
        "format": "toolcall-model/1", "name": "n",
        "manager": {"on_limit_exceeded": "x".repeat(10_000_000)},
        "op": "convert_tool_response", "input": {"text": "42"},
        "expect": {"response": {"result": 42}}
    });
    let e = Vector::parse(v.to_string().as_bytes()).unwrap_err();
    assert!(e.to_string().len() < 3000, "{}", e.to_string().len());
    assert!(e.to_string().contains("characters)"), "{e}");
    // `check /dev/zero` said its size was 0.
    let o = run_bounded(&["check", "/dev/zero", "--format", "properties"], 1024, 60);
    assert_eq!(o.code, Some(2), "{o:?}");
    assert!(
        o.stderr.contains("larger than 4194304 bytes (4194305)"),
        "{o:?}"
    );
}

#[test]
fn an_escaped_surrogate_in_yaml_is_read_as_snakeyaml_reads_it() {
    use toolcall_check::config::{JavaValue, read_yaml};
    // SnakeYAML keeps `"\uD800"` in a Java string; it was refused here.
    let docs = read_yaml("t: [\"a\\uD800b\", \"\\uD83D\\uDE00\", \"x\\\"\\uDC00\"]\n").unwrap();
    let values: Vec<&JavaValue> = docs[0].iter().map(|e| &e.value).collect();
    assert_eq!(
        values,
        [
            &JavaValue::String("a\u{fffd}b".into()),
            &JavaValue::String("\u{1f600}".into()),
            &JavaValue::String("x\"\u{fffd}".into()),
        ]
    );
    // Any other bad escape is refused as before.
    let e = read_yaml("a: \"\\uZZZZ\"\n").unwrap_err();
    assert!(
        e.contains("did not find expected hexadecimal number"),
        "{e}"
    );
}

#[test]
fn a_huge_limit_with_no_total_is_not_played_call_by_call() {
    // RETURN_ERROR_RESPONSE, no total and a per-tool limit of 2^31 - 1:
    // the `repeats` scenario once played a turn of that many rounds and
    // grew past 24 GB. Past 200 calls a scenario is not played.
    let dir = scratch("huge-limit");
    let f = write(
        &dir,
        "application.properties",
        "spring.ai.tools.limits.on-limit-exceeded=RETURN_ERROR_RESPONSE\n\
         spring.ai.tools.limits.max-total-tool-calls=-1\n\
         spring.ai.tools.limits.max-calls-per-tool-default=2147483647\n",
    );
    let o = run_bounded(&["check", f.to_str().unwrap(), "--json"], 1024, 60);
    assert_eq!(o.code, Some(1), "{o:?}");
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    let repeats = v["sets"][0]["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["column"] == "repeats")
        .cloned()
        .unwrap_or_default();
    assert_eq!(repeats["mark"], "n/a", "{repeats}");
    assert!(o.elapsed < Duration::from_secs(20), "{o:?}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn many_profiles_take_linear_time() {
    // 100,000 active profiles, groups and 5,000 documents for others: the
    // profile list was deduplicated, expanded and matched by scanning it
    // for each name (a minute at 300,000 names), and every left-out
    // document's note repeated the whole list.
    let dir = scratch("many-profiles");
    let names: Vec<String> = (0..100_000).map(|i| format!("p{i}")).collect();
    let mut text = format!(
        "spring.profiles.active={}\nspring.profiles.group.p1={}\n",
        names.join(","),
        names.join(",")
    );
    for i in 0..5_000 {
        text.push_str(&format!(
            "#---\nspring.config.activate.on-profile=q{i} | r{i}\nx=1\n"
        ));
    }
    let f = write(&dir, "application.properties", &text);
    let o = run_bounded(&["check", f.to_str().unwrap(), "--json"], 1024, 120);
    assert_eq!(o.code, Some(1), "{}", o.stderr);
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["profiles"].as_array().map(Vec::len), Some(100_000));
    assert_eq!(v["notes"].as_array().map(Vec::len), Some(5_000));
    assert!(
        v["notes"][0]
            .as_str()
            .unwrap()
            .ends_with("(active: p0, p1, p2, p3, p4, p5, p6, p7 and 99992 more)")
    );
    assert!(o.elapsed < Duration::from_secs(30), "{:?}", o.elapsed);
    // 20,000 documents, each including a profile through a placeholder:
    // each value was resolved over a fresh index of every document.
    let mut text = String::new();
    for i in 0..20_000 {
        text.push_str(&format!(
            "#---\nspring.profiles.include=${{a{i}:b{i}}}\nk{i}=1\n"
        ));
    }
    let f = write(&dir, "application.properties", &text);
    let o = run_bounded(&["check", f.to_str().unwrap(), "--json"], 1024, 120);
    assert_eq!(o.code, Some(1), "{}", o.stderr);
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["profiles"][19_999], "b19999");
    assert!(o.elapsed < Duration::from_secs(30), "{:?}", o.elapsed);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_deeply_nested_profile_expression_is_refused_not_overflowed() {
    // 500,000 levels of `(` (or of `!`) overflowed the stack of the
    // expression reader: an abort, not an answer.
    let dir = scratch("deep-profile");
    for (open, close) in [("(", ")"), ("!", "")] {
        let text = format!(
            "spring.profiles.active=dev\n#---\nspring.config.activate.on-profile={}dev{}\nx=1\n",
            open.repeat(500_000),
            close.repeat(500_000)
        );
        let f = write(&dir, "application.properties", &text);
        let o = run_bounded(&["check", f.to_str().unwrap()], 1024, 60);
        assert_eq!(o.code, Some(2), "{}", o.stderr);
        assert!(
            o.stderr
                .contains("not checked: a profile expression nested past 100 levels (line 3)"),
            "{}",
            o.stderr
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_profile_file_is_read_once_however_many_names_lead_to_it() {
    // 40 active profiles whose files are links to one 4 MB file: each was
    // read and parsed on its own (3.2 GB, killed at 20 s).
    let dir = scratch("profile-links");
    let big: String = (0..80_000)
        .map(|i| format!("spring.ai.tools.limits.max-calls-per-tool.t{i}=1\n"))
        .collect();
    write(&dir, "big.properties", &big);
    let names: Vec<String> = (1..=40).map(|i| format!("p{i}")).collect();
    let f = write(
        &dir,
        "application.properties",
        &format!("spring.profiles.active={}\n", names.join(",")),
    );
    for n in &names {
        std::os::unix::fs::symlink(
            "big.properties",
            dir.join(format!("application-{n}.properties")),
        )
        .unwrap();
    }
    let o = run_bounded(&["check", f.to_str().unwrap(), "--json"], 1024, 120);
    assert_eq!(o.code, Some(1), "{o:?}");
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 2, "{files:?}");
    assert!(
        files[1]
            .as_str()
            .unwrap()
            .ends_with("application-p40.properties")
    );
    assert!(
        v["notes"][0]
            .as_str()
            .unwrap()
            .starts_with("note: 39 profile file(s) are the same file as one read after them")
    );
    assert_eq!(
        v["bound"]["max_calls_per_tool"]
            .as_object()
            .map(|m| m.len()),
        Some(80_000)
    );
    // Distinct files past the budget of all the bytes read: refused, named.
    for i in 1..=5 {
        let link = dir.join(format!("application-p{i}.properties"));
        std::fs::remove_file(&link).unwrap();
        std::fs::write(&link, &big).unwrap();
    }
    let o = run_bounded(&["check", f.to_str().unwrap()], 1024, 120);
    assert_eq!(o.code, Some(2), "{o:?}");
    assert!(
        o.stderr.contains("application-p5.properties: the files read come to more than 16777216 bytes with this one (6 files"),
        "{o:?}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn many_profile_files_take_linear_time() {
    // Each profile file was checked against every file read before it:
    // 30,000 one-line profile files took 6.2 s, 60,000 took 31.5 s.
    let time = |n: usize| {
        let dir = scratch(&format!("profile-files-{n}"));
        let names: Vec<String> = (0..n).map(|i| format!("q{i}")).collect();
        let f = write(
            &dir,
            "application.properties",
            &format!("spring.profiles.active={}\n", names.join(",")),
        );
        for (i, n) in names.iter().enumerate() {
            write(
                &dir,
                &format!("application-{n}.properties"),
                &format!("spring.ai.tools.limits.max-calls-per-tool.t{i}=1\n"),
            );
        }
        let o = run_bounded(&["check", f.to_str().unwrap(), "--json"], 1024, 120);
        assert_eq!(o.code, Some(1), "{o:?}");
        let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
        assert_eq!(v["files"].as_array().map(Vec::len), Some(n + 1));
        std::fs::remove_dir_all(&dir).ok();
        o.elapsed
    };
    let (small, large) = (time(2_000), time(8_000));
    assert!(
        large < small * 8 + Duration::from_secs(1),
        "2000 profile files took {small:?}, 8000 took {large:?}"
    );
}

#[test]
fn profile_files_are_found_in_one_listing_of_the_folder() {
    // Three checks of the file system per active profile, each walking the
    // whole path: 700,000 profiles took 8.6 s, and more the deeper the
    // folder. Listed once, a deep folder costs what a shallow one does.
    let names: Vec<String> = (0..150_000).map(|i| format!("p{i}")).collect();
    let text = format!("spring.profiles.active={}\n", names.join(","));
    let time = |depth: usize| {
        let root = scratch(&format!("profile-depth-{depth}"));
        let mut dir = root.clone();
        for i in 0..depth {
            dir = dir.join(format!("folder-of-some-length-{i}"));
        }
        std::fs::create_dir_all(&dir).unwrap();
        let f = write(&dir, "application.properties", &text);
        write(&dir, "application-p149999.yml", "a: 1\n");
        let o = run_bounded(&["check", f.to_str().unwrap(), "--json"], 1024, 120);
        assert_eq!(o.code, Some(1), "{o:?}");
        let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
        assert_eq!(v["files"].as_array().map(Vec::len), Some(2), "{o:?}");
        std::fs::remove_dir_all(&root).ok();
        o.elapsed
    };
    let (shallow, deep) = (time(0), time(120));
    assert!(
        deep < shallow * 2 + Duration::from_secs(1),
        "150,000 profiles: {shallow:?} beside a shallow path, {deep:?} 120 folders deep"
    );
}

/// Each property a placeholder nothing resolves leaves open was found by
/// binding the whole file again: a 1 MB file of 100 such lines took 44.7 s
/// (13.0 s on the release build, 2 busy cores), 20,000 `--set KEY=${V}`
/// 17.6 s. They are found in one pass, each entry bound alone, and at
/// most 16 open properties are tried at their values: 0.5 s and 1.0 s on
/// the same machine.
#[test]
fn open_placeholders_are_found_in_one_pass() {
    let dir = scratch("open-once");
    let mut text: String = (0..100)
        .map(|i| format!("spring.ai.tools.limits.max-calls-per-tool.o{i}=${{V{i}}}\n"))
        .collect();
    let mut i = 0;
    while text.len() < 1_000_000 {
        text.push_str(&format!("x.filler.key{i}={}\n", "y".repeat(40)));
        i += 1;
    }
    let f = write(&dir, "application.properties", &text);
    let o = run_bounded(&["check", f.to_str().unwrap(), "--json"], 1024, 60);
    assert_eq!(o.code, Some(1), "{o:?}");
    assert!(o.elapsed < Duration::from_secs(30), "{o:?}");
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["unresolved"].as_array().unwrap().len(), 100);
    assert_eq!(v["open"]["properties"].as_array().unwrap().len(), 16);
    assert_eq!(v["open"]["not_tried"].as_array().unwrap().len(), 84);
    let small = write(
        &dir,
        "small.properties",
        "spring.ai.tools.limits.max-calls-per-tool-default=3\n",
    );
    let sets: Vec<String> = (0..20_000)
        .map(|i| format!("--set=spring.ai.tools.limits.max-calls-per-tool.t{i}=${{V{i}}}"))
        .collect();
    let mut args = vec!["check", small.to_str().unwrap()];
    args.extend(sets.iter().map(String::as_str));
    let o = run_bounded(&args, 1024, 60);
    // Past 100 open properties: this tool's limit, said as such (it once
    // blamed Spring: `For input string: "${V100}"`).
    assert_eq!(o.code, Some(2), "{o:?}");
    assert!(
        o.stderr.contains("toolcall-model leaves at most 100 open"),
        "{o:?}"
    );
    assert!(o.elapsed < Duration::from_secs(30), "{o:?}");
    std::fs::remove_dir_all(&dir).ok();
}
