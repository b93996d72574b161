//! The binding differential: every `application.properties` and
//! `application.yml` of `tests/spring_config/` read by the model
//! (`toolcall-model check FILE --json`: `spring_config` and the command
//! line's YAML reader) and by Spring Boot 4.1.1 itself
//! (`conformance/java`'s `BindProbe`: a real `SpringApplication` whose
//! config data is the file, binding `ToolCallingProperties` and building the
//! `ToolCallingManager` with the real `ToolCallingAutoConfiguration` of
//! Spring AI 2.0.1). Both must read the same limits, processor and
//! resolution settings, or refuse the file the same way: the same
//! `BindFailureAnalyzer` description (property, value, origin line and
//! column, reason), the same unbound elements, the same builder message;
//! a file Spring cannot load must be one the model cannot load.
//!
//! Without Java 17 and Maven the test prints `SKIPPED` and passes, unless
//! `TOOLCALL_REQUIRE_JAVA=1`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::support::{bin, deep, java_ready, root};

mod random;

/// The corpus, sorted.
fn corpus() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("tests/spring_config"))
        .expect("tests/spring_config")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.extension()
                .is_some_and(|x| x == "properties" || x == "yml" || x == "yaml")
        })
        .collect();
    files.sort();
    files
}

/// `BindProbe -` over every file, one JSON line each.
fn java_lines(files: &[PathBuf]) -> Result<Vec<Value>, String> {
    let dir = root().join("conformance/java/target");
    let classpath = std::fs::read_to_string(dir.join("classpath.txt"))
        .map_err(|e| format!("conformance/java/target/classpath.txt: {e}"))?;
    let mut child = Command::new("java")
        .arg("-cp")
        .arg(format!(
            "{}:{}",
            dir.join("classes").display(),
            classpath.trim()
        ))
        .arg("toolcallmodel.conformance.BindProbe")
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start java: {e}"))?;
    {
        let mut stdin = child.stdin.take().ok_or("no stdin")?;
        for f in files {
            writeln!(stdin, "{}", f.display()).map_err(|e| e.to_string())?;
        }
    }
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let text = String::from_utf8(out.stdout).map_err(|e| e.to_string())?;
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).map_err(|e| format!("BindProbe line {l}: {e}")))
        .collect::<Result<_, _>>()?;
    if lines.len() != files.len() {
        return Err(format!(
            "BindProbe answered {} of {} files",
            lines.len(),
            files.len()
        ));
    }
    Ok(lines)
}

/// `" - L:C"` at the end of a `TextResourceOrigin`.
fn origin_location(origin: &str) -> Option<(u64, u64)> {
    let (_, loc) = origin.rsplit_once(" - ")?;
    let (l, c) = loc.split_once(':')?;
    Some((l.parse().ok()?, c.parse().ok()?))
}

/// What Spring did with the file, in the shape compared.
fn java_view(line: &Value) -> Value {
    if let Some(b) = line.get("bound") {
        let mut b = b.clone();
        if let Some(o) = b.as_object_mut() {
            o.remove("properties");
        }
        return json!({ "bound": b });
    }
    let r = &line["refused"];
    let root = r["root"].as_str().unwrap_or_default();
    let analysis = r["analysis"].as_str();
    if let Some(u) = r.get("unbound") {
        let first = u["origins"][0].as_str().and_then(origin_location);
        return json!({
            "unbound": u["properties"],
            "line": first.map(|(l, _)| l),
        });
    }
    if let (Some(a), Some(b)) = (analysis, r.get("bind")) {
        if let Some(origin) = b.get("origin").and_then(Value::as_str) {
            let (l, c) = origin_location(origin).unwrap_or((0, 0));
            return json!({
                "bind": b["message"],
                "property": b["property"],
                "value": b["value"],
                "line": l,
                "column": c,
                "reason": a.split_once("\n    Reason: ").map(|(_, r)| r),
            });
        }
        if let Some((d, reason)) = a.split_once(":\n\n    Reason: ") {
            return json!({ "convert": d, "reason": reason });
        }
    }
    let exception = r["exception"].as_str().unwrap_or_default();
    if exception.contains("Factory method 'toolCallingManager' threw exception") {
        return json!({ "builder": root });
    }
    json!({ "load": root })
}

/// What the model did with the file, in the same shape.
fn model_view(file: &Path) -> Value {
    model_run(file).0
}

/// The model's view, and whether it left a property out for a placeholder
/// nothing resolves (`unresolved`: Spring refuses such a file, `check`
/// answers for the values the environment may give). No environment but
/// the `NAME=VALUE` lines of `FILE.env`, as `BindProbe` has, so a
/// placeholder's default is what runs where nothing else sets it
/// (`--defaults-run`).
fn model_run(file: &Path) -> (Value, bool) {
    let mut env_file = file.as_os_str().to_owned();
    env_file.push(".env");
    let env: Vec<(String, String)> = std::fs::read_to_string(PathBuf::from(env_file))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once('='))
        .filter(|(k, _)| !k.is_empty())
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    let out = Command::new(bin())
        .args([
            "check",
            file.to_str().expect("a UTF-8 path"),
            "--json",
            "--defaults-run",
        ])
        .env_clear()
        .envs(env)
        .output()
        .expect("the binary runs");
    let v: Value = match serde_json::from_slice(&out.stdout) {
        Ok(v) => v,
        Err(e) => {
            let shown = format!("{e}: {}", String::from_utf8_lossy(&out.stderr));
            return (json!({ "model_output": shown }), false);
        }
    };
    let open = v["unresolved"].as_array().is_some_and(|u| !u.is_empty());
    (model_shape(&v), open)
}

fn model_shape(v: &Value) -> Value {
    if let Some(b) = v.get("bound") {
        return json!({ "bound": b });
    }
    if let Some(m) = v.get("spring_cannot_load") {
        return json!({ "load": m });
    }
    let x = &v["refusal"];
    match x["kind"].as_str() {
        Some("bind") => json!({
            "bind": x["description"],
            "property": x["property"],
            "value": x["value"],
            "line": x["line"],
            "column": x["column"],
            "reason": x["reason"],
        }),
        Some("unbound") => json!({ "unbound": x["properties"], "line": x["line"] }),
        Some("convert") => json!({ "convert": x["description"], "reason": x["reason"] }),
        Some("builder") => json!({ "builder": x["message"] }),
        _ => json!({ "model_output": v }),
    }
}

/// Both refuse to load: Spring's message starts with the model's for a
/// `.properties` file (the model adds the line); for YAML the parsers word
/// it differently (SnakeYAML and saphyr), refusing is enough.
fn loads_agree(file: &Path, java: &Value, model: &Value) -> bool {
    let (Some(j), Some(m)) = (java["load"].as_str(), model["load"].as_str()) else {
        return false;
    };
    if file.extension().is_some_and(|x| x == "properties") {
        let m = m.rsplit_once(" (line ").map_or(m, |(head, _)| head);
        j.starts_with(m)
    } else {
        true
    }
}

#[test]
fn spring_boot_binds_every_file_as_the_model_does() {
    let test = "spring_boot_binds_every_file_as_the_model_does";
    if !java_ready(test) {
        return;
    }
    let files = corpus();
    assert!(files.len() >= 60, "corpus too small: {}", files.len());
    let java = java_lines(&files).unwrap_or_else(|e| panic!("{test}: {e}"));
    let mut failures = Vec::new();
    let (mut bound, mut refused) = (0, 0);
    for (f, line) in files.iter().zip(&java) {
        let j = java_view(line);
        let m = model_view(f);
        if j == m || loads_agree(f, &j, &m) {
            if j.get("bound").is_some() {
                bound += 1;
            } else {
                refused += 1;
            }
        } else {
            failures.push(format!(
                "{}:\n  Spring Boot: {j}\n  model:       {m}",
                f.file_name().unwrap_or_default().to_string_lossy()
            ));
        }
    }
    println!(
        "binding differential: {} files agree ({bound} bound, {refused} refused), {} disagree",
        bound + refused,
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} files bound differently:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        bound >= 20 && refused >= 20,
        "{bound} bound, {refused} refused"
    );
}

/// The differential on generated files: `TOOLCALL_BINDING_FILES` files
/// (default 400) from seed `TOOLCALL_BINDING_SEED` (default 1), each bound
/// by Spring Boot and by the model. They must agree, with one documented
/// exception: a value whose placeholder nothing resolves, which Spring
/// refuses and `check` answers for the values the environment may give
/// (the model must then have said so, `unresolved`).
#[test]
fn generated_files_bind_as_spring_boot_binds_them() {
    let test = "generated_files_bind_as_spring_boot_binds_them";
    if !java_ready(test) {
        return;
    }
    let number = |name: &str, default: u64| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (count, seed) = (
        number("TOOLCALL_BINDING_FILES", if deep() { 400 } else { 100 }),
        number("TOOLCALL_BINDING_SEED", 1),
    );
    let dir = std::env::temp_dir().join(format!("tcm-binding-{seed}-{}", std::process::id()));
    let mut rng = random::Rng::seeded(seed);
    let files: Vec<PathBuf> = (0..count)
        .map(|i| {
            let d = dir.join(i.to_string());
            std::fs::create_dir_all(&d).unwrap();
            let (name, text) = if rng.below_percent(55) {
                ("application.properties", random::properties(&mut rng))
            } else {
                ("application.yml", random::yaml(&mut rng))
            };
            let f = d.join(name);
            std::fs::write(&f, text).unwrap();
            f
        })
        .collect();
    let java = java_lines(&files).unwrap_or_else(|e| panic!("{test}: {e}"));
    let (mut agree, mut open) = (0, 0);
    let mut kinds = std::collections::BTreeMap::new();
    let mut failures = Vec::new();
    for (f, line) in files.iter().zip(&java) {
        let j = java_view(line);
        let (m, unresolved) = model_run(f);
        if j == m || loads_agree(f, &j, &m) {
            agree += 1;
            let kind = j.as_object().and_then(|o| o.keys().next().cloned());
            *kinds.entry(kind.unwrap_or_default()).or_insert(0) += 1;
        } else if unresolved && j["value"].as_str().is_some_and(|v| v.contains("${")) {
            open += 1;
        } else {
            failures.push(format!(
                "{}:\n{}\n  Spring Boot: {j}\n  model:       {m}",
                f.display(),
                std::fs::read_to_string(f).unwrap_or_default()
            ));
        }
    }
    println!(
        "generated binding differential (seed {seed}): {agree} of {count} files agree {kinds:?}, {open} left open by a placeholder, {} disagree",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {count} generated files (seed {seed}) bound differently:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // Most files must say something: bound, and refused each way.
    assert!(agree * 10 >= count * 8, "{agree} of {count} agree");
    for k in ["bound", "bind", "unbound", "builder"] {
        assert!(kinds.get(k).is_some_and(|n| *n >= count / 40), "{kinds:?}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The profile files beside a file: each directory of
/// `tests/spring_config_dirs/` is read by Spring Boot as an application's
/// default locations are (`application.*` and, for the active profiles,
/// `application-PROFILE.*` of every extension) and by `check` given its
/// one `application.properties` or `.yml`. Both must bind the same, or
/// both refuse to start (a property Spring Boot refuses in a
/// profile-specific file).
#[test]
fn profile_files_beside_bind_as_spring_boot_reads_them() {
    let test = "profile_files_beside_bind_as_spring_boot_reads_them";
    if !java_ready(test) {
        return;
    }
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root().join("tests/spring_config_dirs"))
        .expect("tests/spring_config_dirs")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 4, "{dirs:?}");
    let java = java_lines(&dirs).unwrap_or_else(|e| panic!("{test}: {e}"));
    let mut failures = Vec::new();
    let mut bound = 0;
    for (d, line) in dirs.iter().zip(&java) {
        let base = [
            "application.properties",
            "application.yml",
            "application.yaml",
        ]
        .iter()
        .map(|n| d.join(n))
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{}: no application file", d.display()));
        let (j, m) = (java_view(line), model_view(&base));
        if j.get("bound").is_some() {
            bound += 1;
        }
        // A refusal to load (a property Spring Boot refuses in a
        // profile-specific file) is judged as the corpus judges one.
        if j != m && !loads_agree(&base, &j, &m) {
            failures.push(format!(
                "{}:\n  Spring Boot: {j}\n  model:       {m}",
                d.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        bound >= 4 && bound < dirs.len(),
        "{bound} of {} bound",
        dirs.len()
    );
}
