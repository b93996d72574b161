//! The byte targets that read files: `vector_file` (bytes as a vector
//! file) and `config` (bytes as an `application.properties` and an
//! `application.yml`, or, after [`CHECK_FILES`], an application's files
//! and environment as `check` reads them).

use crate::verification::scenario::Scenario;
use toolcall_model::vectors::{Op, Vector};

use super::config_stages::checked_setup;
use super::{MAX_BYTES, fail};

/// The vector_file target: arbitrary bytes as a vector file.
///
/// * `Vector::parse` gives a clear error (a place and a reason) or a vector;
/// * running a vector gives the same result twice (a run is a function of
///   the vector), and `check` never panics;
/// * a `tool_loop` vector printed back through [`Scenario::to_vector`] loads
///   and runs to the same result.
///
/// ```
/// toolcall_check::verification::fuzzing::vector_file(br#"{"format":"toolcall-model/1","op":"convert_tool_response","input":{"text":"42"},"expect":{}}"#);
/// ```
pub fn vector_file(data: &[u8]) {
    const T: &str = "vector_file";
    if data.len() > MAX_BYTES {
        return;
    }
    let v = match Vector::parse(data) {
        Ok(v) => v,
        Err(e) => {
            if e.place.is_empty() || e.reason.is_empty() || e.to_string().is_empty() {
                fail(T, "an unclear vector error", &e);
            }
            return;
        }
    };
    let first = v.run();
    if v.run() != first {
        fail(T, "running a vector twice gave two results", &v);
    }
    let _ = v.check();
    if let (
        Op::ToolLoop {
            history,
            model: toolcall_model::chat::Script::Replies(model),
            ..
        },
        Ok(cfg),
    ) = (&v.op, &v.config)
    {
        // A window the builder refuses has no scenario.
        let Some(config) = v.op.loop_config(cfg) else {
            return;
        };
        let scenario = Scenario {
            config,
            tools: v.tools.clone(),
            history: history.clone(),
            model: model.clone(),
        };
        let printed = scenario.to_vector(&v.name, &v.about, v.expect.clone());
        let again = match Vector::from_value(&printed) {
            Ok(a) => a,
            Err(e) => fail(T, "a printed scenario does not load", &(e, printed)),
        };
        if again.run() != first {
            fail(
                T,
                "a printed scenario runs differently",
                &(printed, first, again.run()),
            );
        }
    }
}
/// The `config` target: bytes read as an `application.properties` and
/// (when UTF-8) as an `application.yml`, then bound
/// as Spring Boot binds `spring.ai.tools.*` and, when Spring would start,
/// made into `check`'s setup and report. Asserts: no panic and no overflow
/// (the campaign's `-rss_limit_mb` and `-timeout` turn a blow-up into a
/// crash); reading and binding are deterministic; every entry has a line;
/// every refusal says something; what binds is read from
/// `spring.ai.tools` keys only (in any relaxed spelling).
///
/// ```
/// toolcall_check::verification::fuzzing::config(b"spring.ai.tools.limits.max-total-tool-calls=${a:3}\n");
/// ```
pub fn config(data: &[u8]) {
    use crate::config::binding::{Entry, parse_properties};
    use crate::config::survival::report;
    const T: &str = "config";
    if data.len() > MAX_BYTES {
        return;
    }
    if let Some(files) = data.strip_prefix(CHECK_FILES) {
        check_files(files);
        return;
    }
    let mut readings: Vec<Result<Vec<Vec<Entry>>, String>> =
        vec![parse_properties(data).map_err(|e| e.to_string())];
    if readings[0] != parse_properties(data).map_err(|e| e.to_string()) {
        fail(T, "reading a .properties twice gave two results", &data);
    }
    if let Ok(text) = std::str::from_utf8(data) {
        readings.push(crate::config::read_yaml(text));
    }
    for docs in readings {
        let docs = match docs {
            Ok(d) => d,
            Err(e) if e.trim().is_empty() => fail(T, "a file refused without a word", &data),
            Err(_) => continue,
        };
        if let Some(e) = docs.iter().flatten().find(|e| e.line == 0) {
            fail(T, "an entry without a line", e);
        }
        let Some(setup) = checked_setup(T, &docs) else {
            continue;
        };
        // The report plays every scenario under every behaviour set (some
        // ten milliseconds): only for limits the file changed, so that the
        // campaign spends its time on the reader and the binding.
        if setup.limits != toolcall_model::model::ToolCallLimits::default()
            && report(&setup).is_empty()
        {
            fail(T, "a report of no behaviour set", &setup);
        }
    }
}

/// The marker that makes a `config` input an application's files and
/// environment ([`check_files`]) rather than one file.
pub(crate) const CHECK_FILES: &[u8] = b"%%check\n";

/// The `config` target's second shape (an input starting with
/// [`CHECK_FILES`]): an application's `application.properties`, profile
/// files beside it and an environment, read as `check` reads them. After
/// the marker, the first section is `application.properties`; a line
/// `%% NAME` starts `application-NAME.properties`, a line `%%env` the
/// environment (`NAME=VALUE` lines).
///
/// * the active profiles are a function of the files and the
///   environment, and each refusal says something;
/// * each active profile's file is refused when it sets
///   `spring.profiles.active`, `.include` or `.default`, with the
///   property named, and otherwise applies its documents for the active
///   profiles (an expression Spring refuses is a refusal with a message);
/// * the environment is read in turn (a value's own placeholders looked
///   up too), each name once, each value the environment's;
/// * binding everything gives the same result twice, and a refusal says
///   something.
///
/// What bound comes back (`None`: refused before binding, or by it).
pub(crate) fn check_files(data: &[u8]) -> Option<crate::config::BoundProperties> {
    use crate::config::binding::{Entry, bind, parse_properties};
    use crate::config::profiles::{
        ProfileMatcher, active_profiles, environment, invalid_in_profile_file, source,
    };
    const T: &str = "config (check files)";
    let (main, profiles, env) = split_files(&String::from_utf8_lossy(data));
    let lookup = |n: &str| {
        env.iter()
            .rev()
            .find(|(k, _)| k == n)
            .map(|(_, v)| v.clone())
    };
    let Ok(main_docs) = parse_properties(main.as_bytes()) else {
        return None;
    };
    let found = environment(&main_docs, lookup);
    if found != environment(&main_docs, lookup) {
        fail(
            T,
            "reading the environment twice gave two results",
            &main_docs,
        );
    }
    let mut names = std::collections::HashSet::new();
    for (k, v) in &found {
        if !names.insert(k) || lookup(k).as_ref() != Some(v) {
            fail(
                T,
                "an environment name read twice, or not its value",
                &found,
            );
        }
    }
    let mut for_profiles = main_docs.clone();
    for_profiles.push(source(&found));
    let active = active_profiles(&for_profiles, None).ok()?;
    if active.is_empty() {
        fail(T, "no profile in force (not even default)", &for_profiles);
    }
    let mut docs: Vec<Vec<Entry>> = main_docs;
    for p in &active {
        let Some((_, body)) = profiles.iter().rev().find(|(n, _)| n == p) else {
            continue;
        };
        let d = parse_properties(body.as_bytes()).ok()?;
        if let Some((property, entry)) = invalid_in_profile_file(&d) {
            if !property.starts_with("spring.profiles.") || entry.line == 0 {
                fail(
                    T,
                    "a profile file refused for another property",
                    &(property, entry),
                );
            }
            return None;
        }
        docs.extend(d);
    }
    let matcher = ProfileMatcher::new(&active);
    let mut applied = Vec::new();
    for d in docs {
        match matcher.leaves_out(&d) {
            Ok(None) => applied.push(d),
            Ok(Some(_)) => {}
            Err(e) if e.message.trim().is_empty() => {
                fail(T, "a document refused without a word", &d)
            }
            Err(_) => return None,
        }
    }
    let found = environment(&applied, lookup);
    applied.push(source(&found));
    let bound = bind(&applied);
    if bind(&applied) != bound {
        fail(T, "binding twice gave two results", &applied);
    }
    match bound {
        Ok(b) => Some(b),
        Err(e) if e.to_string().trim().is_empty() => {
            fail(T, "a binding refused without a word", &applied)
        }
        Err(_) => None,
    }
}

/// The check-files target's input cut into its files: the main file, each
/// `%% NAME` profile file, and the `%%env` environment's `NAME=VALUE`
/// lines.
#[allow(clippy::type_complexity)]
fn split_files(text: &str) -> (String, Vec<(String, String)>, Vec<(String, String)>) {
    let mut main = String::new();
    let mut profiles: Vec<(String, String)> = Vec::new();
    let mut env: Vec<(String, String)> = Vec::new();
    let mut in_env = false;
    for line in text.split_inclusive('\n') {
        if let Some(name) = line.strip_prefix("%% ") {
            profiles.push((name.trim().to_owned(), String::new()));
            in_env = false;
        } else if line.trim_end() == "%%env" {
            in_env = true;
        } else if in_env {
            if let Some((k, v)) = line.trim_end_matches(['\n', '\r']).split_once('=') {
                env.push((k.to_owned(), v.to_owned()));
            }
        } else if let Some((_, body)) = profiles.last_mut() {
            body.push_str(line);
        } else {
            main.push_str(line);
        }
    }
    (main, profiles, env)
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.
    #[test]
    fn example_check_files() {
        use crate::verification::fuzzing::files::check_files;
        let files = b"spring.profiles.active=dev\n%% dev\nspring.ai.tools.limits.max-total-tool-calls=${EA}\n%%env\nEA=${EB}\nEB=5\n";
        let bound = check_files(files).unwrap();
        assert_eq!(
            bound.limits.max_total,
            toolcall_model::model::Max::Limited(5)
        );
        assert!(
            check_files(b"spring.profiles.active=dev\n%% dev\nspring.profiles.active=x\n")
                .is_none()
        );
    }
}
