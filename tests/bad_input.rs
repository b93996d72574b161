//! Bad input gets a clear error, never a panic: malformed vectors, huge and
//! deeply nested documents, invalid UTF-8.

use toolcall_model::vectors::Vector;

fn reason(bytes: &[u8]) -> String {
    Vector::parse(bytes)
        .expect_err("must be refused")
        .to_string()
}

const GOOD: &str = r#"{"format":"toolcall-model/1","name":"n","about":"a","op":"execute_tool_calls",
 "tools":[{"name":"x","outcomes":[{"returns":"1"}]}],
 "input":{"history":[{"type":"user","text":"u"}],"generations":[{"tool_calls":[{"id":"1","name":"x","arguments":"{}"}]}]},
 "expect":{}}"#;

#[test]
fn the_good_vector_loads() {
    assert!(Vector::parse(GOOD.as_bytes()).is_ok());
}

#[test]
fn not_json_names_line_and_column() {
    let r = reason(b"{\n  \"format\": tru }");
    assert!(r.starts_with("line 2 column"), "{r}");
    assert!(r.contains("not JSON"), "{r}");
}

#[test]
fn wrong_format_is_named() {
    let r = reason(
        GOOD.replace("toolcall-model/1", "toolcall-model/9")
            .as_bytes(),
    );
    assert_eq!(
        r,
        "/format: format 'toolcall-model/9' is not toolcall-model/1"
    );
    let r = reason(br#"{"name":"n"}"#);
    assert!(r.starts_with("/format: missing"), "{r}");
}

#[test]
fn unknown_op_fix_class_and_keys_are_named() {
    let r = reason(GOOD.replace("execute_tool_calls", "teleport").as_bytes());
    assert!(r.starts_with("/op: unknown op 'teleport'"), "{r}");
    let r = reason(
        GOOD.replace("\"op\"", "\"fixes\":[\"magic\"],\"op\"")
            .as_bytes(),
    );
    assert!(r.starts_with("/fixes/0: unknown fix 'magic'"), "{r}");
    let r = reason(
        GOOD.replace(
            r#"{"returns":"1"}"#,
            r#"{"throws":{"class":"com.acme.Oops","message":"m"}}"#,
        )
        .as_bytes(),
    );
    assert!(
        r.starts_with("/tools/0/outcomes/0/throws: unknown exception class 'com.acme.Oops'"),
        "{r}"
    );
    let r = reason(
        GOOD.replace("\"op\"", "\"manager\":{\"max_calls\":1},\"op\"")
            .as_bytes(),
    );
    assert!(r.starts_with("/manager/max_calls: unknown key"), "{r}");
    let r = reason(GOOD.replace("\"history\"", "\"histroy\"").as_bytes());
    // The misspelt key is named first (an input key the op does not read).
    assert!(
        r.starts_with(
            "/input/histroy: unknown key: op 'execute_tool_calls' reads only history, generations"
        ),
        "{r}"
    );
}

#[test]
fn a_declared_class_is_accepted() {
    let v = GOOD.replace(
        r#"{"returns":"1"}"#,
        r#"{"throws":{"class":"com.acme.Oops","extends":"java.lang.IllegalStateException","message":null}}"#,
    );
    let v = Vector::parse(v.as_bytes()).unwrap();
    let out = v.run().unwrap();
    assert_eq!(
        out["result"]["history"][2]["responses"][0]["data"],
        "Exception occurred in tool: x (Oops)"
    );
}

#[test]
fn invalid_utf8_is_refused() {
    let mut b = GOOD.as_bytes().to_vec();
    b.insert(40, 0xff);
    assert!(reason(&b).contains("not valid UTF-8"));
}

#[test]
fn deep_nesting_does_not_overflow() {
    let deep = "[".repeat(100_000);
    let r = reason(deep.as_bytes());
    assert!(r.contains("not JSON"), "{r}");
    let deep_in_text = format!(
        r#"{{"format":"toolcall-model/1","name":"d","op":"convert_tool_response","input":{{"text":"{}"}},"expect":{{}}}}"#,
        "[".repeat(100_000)
    );
    let v = Vector::parse(deep_in_text.as_bytes()).unwrap();
    let out = v.run().unwrap();
    assert_eq!(out["error"]["class"], "java.lang.RuntimeException");
}

#[test]
fn a_100_mb_input_is_refused_or_handled() {
    let big = vec![b' '; 100 << 20];
    let r = reason(&big);
    assert!(r.contains("larger than"), "{r}");
    // A 100 MB tool output goes through the conversion without trouble.
    let text = format!("\"{}\"", "a".repeat(100 << 20));
    let p = toolcall_model::gemini::convert_tool_response(&text, false, Default::default());
    // Jackson 3.1's default string limit (100,000,000 chars) refuses it.
    assert!(p.is_err());
}

/// GOOD with `"manager": MANAGER` inserted.
fn with_manager(manager: &str) -> String {
    GOOD.replace("\"op\"", &format!("\"manager\":{manager},\"op\""))
}

#[test]
fn a_maximum_outside_java_int_is_named_with_its_pointer() {
    for (manager, place) in [
        (
            r#"{"max_calls_per_tool":2147483648}"#,
            "/manager/max_calls_per_tool",
        ),
        (
            r#"{"max_total_tool_calls":-2147483649}"#,
            "/manager/max_total_tool_calls",
        ),
        (
            r#"{"max_calls_per_tool_overrides":{"x":4294967296}}"#,
            "/manager/max_calls_per_tool_overrides/x",
        ),
        (
            r#"{"max_calls_per_tool_overrides":{"a/b~":4294967296}}"#,
            "/manager/max_calls_per_tool_overrides/a~1b~0",
        ),
        (
            r#"{"builder":[{"max_calls_per_tool":4294967296}]}"#,
            "/manager/builder/0/max_calls_per_tool",
        ),
        (
            r#"{"builder":[{"unlimited_calls_per_tool":true},{"max_calls_per_tool":{"x":1,"y":4294967297}}]}"#,
            "/manager/builder/1/max_calls_per_tool/y",
        ),
        (
            r#"{"builder":[{"max_total_tool_calls":100000000000000000000000000000}]}"#,
            "/manager/builder/0/max_total_tool_calls",
        ),
        // An earlier call the builder refuses does not hide the fault.
        (
            r#"{"max_calls_per_tool":0,"max_total_tool_calls":4294967296}"#,
            "/manager/max_total_tool_calls",
        ),
    ] {
        let r = reason(with_manager(manager).as_bytes());
        assert!(r.starts_with(&format!("{place}: ")), "{manager}: {r}");
        assert!(r.contains("is not a Java int"), "{manager}: {r}");
    }
    let r = reason(with_manager(r#"{"max_calls_per_tool":3.5}"#).as_bytes());
    assert!(r.contains("must be an integer"), "{r}");
}

#[test]
fn java_int_bounds_reach_the_builder() {
    // In range: the builder decides (Integer.MIN_VALUE is refused by the
    // builder, not by the loader; Integer.MAX_VALUE is a valid maximum).
    let v =
        Vector::parse(with_manager(r#"{"max_calls_per_tool":-2147483648}"#).as_bytes()).unwrap();
    let out = v.run().unwrap();
    assert_eq!(
        out["error"]["message"],
        "maxCallsPerTool must be greater than 0"
    );
    let v = Vector::parse(
        with_manager(r#"{"max_calls_per_tool":2147483647,"max_total_tool_calls":2147483647}"#)
            .as_bytes(),
    )
    .unwrap();
    assert!(v.run().unwrap()["result"].is_object());
}

#[test]
fn throws_causes_are_checked() {
    let throws = |t: &str| GOOD.replace(r#"{"returns":"1"}"#, &format!(r#"{{"throws":{t}}}"#));
    let tee = "org.springframework.ai.tool.execution.ToolExecutionException";
    let r = reason(
        throws(&format!(
            r#"{{"class":"{tee}","message":"other","wrapped":false,"cause":{{"class":"java.lang.IllegalStateException","message":"boom"}}}}"#
        ))
        .as_bytes(),
    );
    assert!(
        r.starts_with("/tools/0/outcomes/0/throws/message: a ToolExecutionException's message is its cause's message"),
        "{r}"
    );
    // The cause's own message is accepted.
    assert!(Vector::parse(
        throws(&format!(
            r#"{{"class":"{tee}","message":"boom","wrapped":false,"cause":{{"class":"java.lang.IllegalStateException","message":"boom"}}}}"#
        ))
        .as_bytes()
    )
    .is_ok());
    let r = reason(
        throws(r#"{"class":"java.lang.RuntimeException","cause":{"class":"java.io.IOException","wrapped":true}}"#)
            .as_bytes(),
    );
    assert!(
        r.starts_with("/tools/0/outcomes/0/throws/cause: unknown key 'wrapped'"),
        "{r}"
    );
    let r = reason(throws(r#"{"class":"java.lang.RuntimeException","cause":"x"}"#).as_bytes());
    assert!(
        r.starts_with("/tools/0/outcomes/0/throws/cause: must be an object"),
        "{r}"
    );
    let r = reason(
        throws(r#"{"class":"java.lang.RuntimeException","cause":{"class":"com.acme.Nope"}}"#)
            .as_bytes(),
    );
    assert!(
        r.starts_with("/tools/0/outcomes/0/throws/cause: unknown exception class 'com.acme.Nope'"),
        "{r}"
    );
    // Causes nest at most MAX_CAUSE_DEPTH deep.
    let nest = |n: usize| {
        let mut c = r#"{"class":"java.lang.RuntimeException"}"#.to_owned();
        for _ in 0..n {
            c = format!(r#"{{"class":"java.lang.RuntimeException","cause":{c}}}"#);
        }
        throws(&c)
    };
    let max = toolcall_model::vectors::MAX_CAUSE_DEPTH;
    assert!(Vector::parse(nest(max).as_bytes()).is_ok());
    let r = reason(nest(max + 1).as_bytes());
    assert!(r.contains("causes nest deeper than 32"), "{r}");
    let r = reason(nest(60).as_bytes());
    assert!(r.contains("causes nest deeper than 32"), "{r}");
    // Deeper than the JSON reader's own limit: refused as not JSON, no overflow.
    let r = reason(nest(10_000).as_bytes());
    assert!(r.contains("not JSON"), "{r}");
}

#[test]
fn memory_keys_are_checked() {
    let lp = |input: &str| {
        format!(
            r#"{{"format":"toolcall-model/1","name":"m","op":"tool_loop","input":{{"history":[{{"type":"user","text":"u"}}],"model":[[{{"text":"done"}}]],{input}}},"expect":{{}}}}"#
        )
    };
    let r = reason(lp(r#""memory":"inside","memory_max_messages":2147483648"#).as_bytes());
    assert!(
        r.starts_with("/input/memory_max_messages: 2147483648 is not a Java int"),
        "{r}"
    );
    let r = reason(lp(r#""memory":"inside","memory_max_messages":"unlimited""#).as_bytes());
    assert!(
        r.starts_with("/input/memory_max_messages: must be an integer"),
        "{r}"
    );
    let r = reason(lp(r#""memory":"none","memory_max_messages":5"#).as_bytes());
    assert!(
        r.starts_with("/input/memory_max_messages: needs a memory"),
        "{r}"
    );
    let r = reason(lp(r#""memory_start":[]"#).as_bytes());
    assert!(r.starts_with("/input/memory_start: needs a memory"), "{r}");
    let r = reason(lp(r#""memory":"outside","memory_start":{}"#).as_bytes());
    assert!(
        r.starts_with("/input/memory_start: must be an array"),
        "{r}"
    );
    // In range but not positive: the memory's builder refuses it when the op runs.
    let v = Vector::parse(lp(r#""memory":"outside","memory_max_messages":-1"#).as_bytes()).unwrap();
    let out = v.run().unwrap();
    assert_eq!(out["error"]["class"], "java.lang.IllegalArgumentException");
    assert_eq!(
        out["error"]["message"],
        "maxMessages must be greater than 0"
    );
    assert!(out.get("outcome").is_none());
}

/// `toolcall-model check FILE [--json]`: exit code, stdout, stderr.
fn check(file: &std::path::Path, json: bool) -> (i32, String, String) {
    let mut args = vec!["check".to_owned(), file.display().to_string()];
    if json {
        args.push("--json".into());
    }
    let out = std::process::Command::new(crate::support::bin())
        .args(&args)
        .output()
        .expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_100_mb_application_file_is_refused_clearly_and_fast() {
    use toolcall_check::config::{MAX_CONFIG_BYTES, parse_properties};
    let dir = std::env::temp_dir().join(format!("tcm-big-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // 100 MB of real-looking lines, properties and YAML.
    let line = "spring.ai.tools.limits.max-calls-per-tool.getWeather=1\n";
    let props: String = line.repeat((100 << 20) / line.len() + 1);
    let yaml = format!(
        "spring.ai.tools.limits.excluded-tools:\n{}",
        "  - listFiles\n".repeat((100 << 20) / 14 + 1)
    );
    for (name, text) in [
        ("application.properties", &props),
        ("application.yml", &yaml),
    ] {
        let f = dir.join(name);
        std::fs::write(&f, text).unwrap();
        let started = std::time::Instant::now();
        let (code, out, err) = check(&f, false);
        assert_eq!(code, 2, "{name}: {out}{err}");
        assert!(
            err.starts_with("error: ") && err.contains("larger than 4194304 bytes"),
            "{name}: {err}"
        );
        assert!(
            !err.contains("panicked") && err.len() < 1000,
            "{name}: {err}"
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "{name}: {:?}",
            started.elapsed()
        );
        let (code, out, _) = check(&f, true);
        assert_eq!(code, 2);
        let v: serde_json::Value = serde_json::from_str(&out).expect("JSON on stdout");
        assert!(v["not_read"].as_str().unwrap().contains("larger than"));
    }
    // The library refuses the bytes the same way, before reading them.
    let e = parse_properties(props.as_bytes()).unwrap_err();
    assert!(
        e.to_string()
            .starts_with(&format!("larger than {MAX_CONFIG_BYTES} bytes"))
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_config_file_at_the_size_limit_gets_its_answer() {
    use toolcall_check::config::MAX_CONFIG_BYTES;
    let dir = std::env::temp_dir().join(format!("tcm-limit-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Just under the limit: some 80,000 overrides, and one 4 MB value.
    let mut props = String::new();
    let mut n = 0;
    loop {
        let l = format!("spring.ai.tools.limits.max-calls-per-tool.tool{n}=3\n");
        if props.len() + l.len() > MAX_CONFIG_BYTES {
            break;
        }
        props.push_str(&l);
        n += 1;
    }
    let f = dir.join("application.properties");
    std::fs::write(&f, &props).unwrap();
    // An answer (upstream is not safe for tools that may return text: 1).
    let (code, out, err) = check(&f, true);
    assert_eq!(code, 1, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let overrides = v["bound"]["max_calls_per_tool"].as_object().unwrap();
    assert_eq!(overrides.len(), n);
    assert_eq!(overrides["tool0"], 3);
    // A huge value is read, and echoed clipped.
    let long = "x".repeat(MAX_CONFIG_BYTES - 100);
    std::fs::write(
        &f,
        format!("spring.ai.tools.limits.max-total-tool-calls={long}\n"),
    )
    .unwrap();
    let (code, out, err) = check(&f, false);
    assert_eq!(code, 2, "{out}");
    assert!(err.contains("For input string"), "{err:.300}");
    assert!(
        err.len() < 2000,
        "the value is clipped: {} bytes",
        err.len()
    );
    // YAML past the reader's node limit: a clear refusal, not Spring's words.
    let y = dir.join("application.yml");
    std::fs::write(
        &y,
        format!(
            "spring.ai.tools.limits.excluded-tools: [{}]\n",
            vec!["t"; 150_000].join(", ")
        ),
    )
    .unwrap();
    let (code, _, err) = check(&y, false);
    assert_eq!(code, 2);
    assert!(err.contains("not checked: more than 100000 nodes"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Runs the command with `args`, no standard input; its exit code and
/// standard error.
fn command(args: &[&std::ffi::OsStr]) -> (i32, String) {
    let out = std::process::Command::new(crate::support::bin())
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn written_scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tcm-written-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `--sarif` replaces only a regular file that is none of the run's
/// inputs: a FIFO (no reader: a write would block), a folder, a profile
/// file the run reads, a planted link are each exit 2 with the reason,
/// and left as they were.
#[cfg(unix)]
#[test]
fn sarif_refuses_a_fifo_a_folder_a_profile_file_and_a_link() {
    let dir = written_scratch("sarif");
    let app = dir.join("application.properties");
    std::fs::write(&app, "spring.profiles.active=dev\n").unwrap();
    let dev = dir.join("application-dev.properties");
    std::fs::write(&dev, "spring.ai.tools.throw-exception-on-error=true\n").unwrap();
    let fifo = dir.join("out.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let folder = dir.join("folder.sarif");
    std::fs::create_dir(&folder).unwrap();
    let target = dir.join("elsewhere");
    std::fs::write(&target, "kept").unwrap();
    let link = dir.join("link.sarif");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    for (at, why) in [
        (&fifo, "named pipe (FIFO)"),
        (&folder, "a directory"),
        (&dev, "the same file as an input"),
        (&app, "the same file as an input"),
        (&link, "a symbolic link"),
    ] {
        let (code, err) = command(&[
            "check".as_ref(),
            app.as_os_str(),
            "--sarif".as_ref(),
            at.as_os_str(),
        ]);
        assert_eq!(code, 2, "{}: {err}", at.display());
        assert!(err.contains("--sarif") && err.contains(why), "{err}");
        assert!(err.contains("nothing written"), "{err}");
    }
    use std::os::unix::fs::FileTypeExt as _;
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    assert!(folder.is_dir());
    assert_eq!(
        std::fs::read_to_string(&dev).unwrap(),
        "spring.ai.tools.throw-exception-on-error=true\n"
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "kept");
    // A device: /dev/null stays a device whoever runs the command.
    let (code, err) = command(&[
        "check".as_ref(),
        app.as_os_str(),
        "--sarif".as_ref(),
        "/dev/null".as_ref(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("a device"), "{err}");
    // What is left beside the target: no temporary file.
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A run with no verdict (a file Spring cannot load) still writes its
/// SARIF log, one `no-verdict` result saying why, so that a CI step
/// uploading the log whatever the exit finds it.
#[test]
fn a_load_error_writes_a_sarif_log() {
    let dir = written_scratch("sarif-stop");
    let app = dir.join("application.yml");
    std::fs::write(&app, "spring: [unclosed\n").unwrap();
    let sarif = dir.join("out.sarif");
    let (code, err) = command(&[
        "check".as_ref(),
        app.as_os_str(),
        "--sarif".as_ref(),
        sarif.as_os_str(),
    ]);
    assert_eq!(code, 2, "{err}");
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    let result = &log["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "no-verdict");
    assert!(
        result["message"]["text"]
            .as_str()
            .unwrap()
            .starts_with("no verdict: "),
        "{result}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `explore --out` and `merge --out` write no counterexample through a
/// link planted under its name: exit 2, the link's target untouched.
#[cfg(unix)]
#[test]
fn out_folders_refuse_a_planted_link() {
    let dir = written_scratch("out-link");
    let out = dir.join("cx");
    std::fs::create_dir(&out).unwrap();
    let target = dir.join("elsewhere");
    std::fs::write(&target, "kept").unwrap();
    // A refuted cell's counterexample is named after the cell: find its
    // name from a first run into a clean folder, then plant a link there.
    let clean = dir.join("clean");
    let shard = dir.join("shard.json");
    let args = |o: &std::path::Path| {
        vec![
            std::ffi::OsString::from("explore"),
            "--exhaustive".into(),
            "--bound".into(),
            "tiny".into(),
            "--jobs".into(),
            "1".into(),
            "--out".into(),
            o.as_os_str().to_owned(),
        ]
    };
    let a = args(&clean);
    let (code, err) = command(&a.iter().map(|s| s.as_os_str()).collect::<Vec<_>>());
    assert_eq!(code, 0, "{err}");
    let name = std::fs::read_dir(&clean)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .next()
        .expect("tiny has a refuted cell");
    std::os::unix::fs::symlink(&target, out.join(&name)).unwrap();
    let a = args(&out);
    let (code, err) = command(&a.iter().map(|s| s.as_os_str()).collect::<Vec<_>>());
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--out") && err.contains("a symbolic link"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "kept");
    // merge: the same refusal.
    let made = std::process::Command::new(crate::support::bin())
        .args([
            "explore",
            "--exhaustive",
            "--bound",
            "tiny",
            "--jobs",
            "1",
            "--shard",
            "1/1",
            "--json",
        ])
        .output()
        .unwrap();
    std::fs::write(&shard, &made.stdout).unwrap();
    let (code, err) = command(&[
        "merge".as_ref(),
        shard.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("a symbolic link"), "{err}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "kept");
    std::fs::remove_dir_all(&dir).ok();
}

/// The command's exit code, standard output and standard error.
fn command_out(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(crate::support::bin())
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Inputs that once got a verdict, a silent skip or another's message:
/// a binary `.properties` file, a profile file that is a FIFO or
/// `/dev/zero`, more than 100 open placeholders, a runner output with no
/// line, and a usage error under `--json`; and two spellings of one key
/// each shown with its own value.
#[cfg(unix)]
#[test]
fn check_and_conform_refuse_what_they_cannot_answer() {
    let dir = written_scratch("refused");
    let at = |n: &str| dir.join(n).to_str().unwrap().to_owned();
    std::fs::write(at("bin.properties"), b"spring.ai\0\x01\x02tools=1\n").unwrap();
    let (code, _, err) = command_out(&["check", &at("bin.properties")]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("a binary file, not a configuration text (a NUL byte at byte 9)"),
        "{err}"
    );
    // Profile files that cannot be read as files: named, exit 2, no hang.
    std::fs::write(
        at("application.properties"),
        "spring.profiles.active=dev,zero\n",
    )
    .unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(at("application-dev.properties"))
        .status()
        .unwrap();
    assert!(made.success());
    let (code, _, err) = command_out(&["check", &at("application.properties")]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("application-dev.properties: not a regular file"),
        "{err}"
    );
    std::fs::remove_file(at("application-dev.properties")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", at("application-zero.properties")).unwrap();
    let (code, _, err) = command_out(&["check", &at("application.properties")]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("application-zero.properties: not a regular file"),
        "{err}"
    );
    // 101 open placeholders: this tool's limit, said as such.
    let many: String = (0..101)
        .map(|i| format!("spring.ai.tools.limits.max-calls-per-tool.t{i}=${{A{i}}}\n"))
        .collect();
    std::fs::write(at("many.properties"), many).unwrap();
    let (code, _, err) = command_out(&["check", &at("many.properties")]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("toolcall-model leaves at most 100 open"),
        "{err}"
    );
    assert!(!err.contains("For input string"), "{err}");
    // Two spellings of one property: the key shown is the one whose value
    // Spring binds.
    std::fs::write(
        at("two.properties"),
        "spring.ai.tools.limits.on-limit-exceeded=THROW\nspring.ai.tools.limits.onLimitExceeded=RETURN_ERROR_RESPONSE\n",
    )
    .unwrap();
    let (_, out, _) = command_out(&["check", &at("two.properties")]);
    assert!(
        out.contains("\n  spring.ai.tools.limits.on-limit-exceeded = THROW\n")
            && out.contains("on-limit-exceeded=THROW,"),
        "{out}"
    );
    assert!(!out.contains("onLimitExceeded = THROW"), "{out}");
    // --json: a usage error is JSON too.
    let (code, out, _) = command_out(&[
        "check",
        &at("two.properties"),
        "--json",
        "--memory",
        "nowhere",
    ]);
    assert_eq!(code, 2);
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON on standard output");
    assert!(
        v["error"].as_str().unwrap().starts_with("--memory nowhere"),
        "{v}"
    );
    // conform with an empty runner output: no "0 passed", an error.
    std::fs::write(at("empty.jsonl"), "").unwrap();
    let (code, out, err) = command_out(&["conform", &at("empty.jsonl")]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        err.contains("the runner's output has no result line"),
        "{err}"
    );
    assert!(!out.contains("0 passed"), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The SARIF rules of a key Spring ignores and of a refusal have help,
/// and a result answered for a value the environment may set says so.
#[test]
fn sarif_rules_have_help_and_open_values_are_named() {
    let dir = written_scratch("sarif-help");
    let file = dir.join("application.properties");
    std::fs::write(
        &file,
        "spring.ai.tools.limits.on-limit-exceeded=${POLICY:THROW}\nspring.ai.tools.limits.max-calls-per-tool-default=1\nspring.ai.tools.limit.x=1\n",
    )
    .unwrap();
    let sarif = dir.join("out.sarif");
    let (code, _, err) = command_out(&[
        "check",
        file.to_str().unwrap(),
        "--sarif",
        sarif.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{err}");
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    let rules = log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap();
    let unknown = rules.iter().find(|r| r["id"] == "unknown-key").unwrap();
    assert!(
        unknown["help"]["text"]
            .as_str()
            .unwrap()
            .contains("relaxed names"),
        "{unknown}"
    );
    let breach = log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleId"] == "breach-1")
        .unwrap();
    assert!(
        breach["message"]["text"].as_str().unwrap().starts_with(
            "For the value the environment may set (spring.ai.tools.limits.on-limit-exceeded=RETURN_ERROR_RESPONSE)"
        ),
        "{breach}"
    );
    std::fs::write(&file, "spring.ai.tools.limits.max-total-tool-calls=lots\n").unwrap();
    let (code, _, _) = command_out(&[
        "check",
        file.to_str().unwrap(),
        "--sarif",
        sarif.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    let log: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&sarif).unwrap()).unwrap();
    let rule = &log["runs"][0]["tool"]["driver"]["rules"][0];
    assert_eq!(rule["id"], "spring-refuses");
    assert!(
        rule["help"]["text"]
            .as_str()
            .unwrap()
            .contains("fails to start"),
        "{rule}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
