//! The byte targets that read files: `vector_file` (bytes as a vector
//! file) and `config` (bytes as an `application.properties` and an
//! `application.yml`).

use crate::checking::scenario::Scenario;
use crate::model::processor::{Processor, ProcessorKind};
use crate::vectors::{Op, Vector};

use super::{fail, MAX_BYTES};

/// The vector_file target: arbitrary bytes as a vector file.
///
/// * `Vector::parse` gives a clear error (a place and a reason) or a vector;
/// * running a vector gives the same result twice (a run is a function of
///   the vector), and `check` never panics;
/// * a `tool_loop` vector printed back through [`Scenario::to_vector`] loads
///   and runs to the same result.
///
/// ```
/// toolcall_model::checking::fuzzing::vector_file(br#"{"format":"toolcall-model/1","op":"convert_tool_response","input":{"text":"42"},"expect":{}}"#);
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
            model: crate::chat::stream::Script::Replies(model),
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
/// (when UTF-8, with the `yaml` feature) as an `application.yml`, then bound
/// as Spring Boot binds `spring.ai.tools.*` and, when Spring would start,
/// made into `check`'s setup and report. Asserts: no panic and no overflow
/// (the campaign's `-rss_limit_mb` and `-timeout` turn a blow-up into a
/// crash); reading and binding are deterministic; every entry has a line;
/// every refusal says something; what binds is read from
/// `spring.ai.tools` keys only (in any relaxed spelling).
///
/// ```
/// toolcall_model::checking::fuzzing::config(b"spring.ai.tools.limits.max-total-tool-calls=${a:3}\n");
/// ```
pub fn config(data: &[u8]) {
    use crate::chat::tool_loop::{Memory, Provider};
    use crate::config::binding::{bind, parse_properties, Entry};
    use crate::config::check::{describe_setup, report, Setup};
    const T: &str = "config";
    if data.len() > MAX_BYTES {
        return;
    }
    #[cfg_attr(not(feature = "yaml"), allow(unused_mut))]
    let mut readings: Vec<Result<Vec<Vec<Entry>>, String>> =
        vec![parse_properties(data).map_err(|e| e.to_string())];
    if readings[0] != parse_properties(data).map_err(|e| e.to_string()) {
        fail(T, "reading a .properties twice gave two results", &data);
    }
    #[cfg(feature = "yaml")]
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
        let bound = bind(&docs);
        if bind(&docs) != bound {
            fail(T, "binding twice gave two results", &docs);
        }
        let bound = match bound {
            Ok(b) => b,
            Err(e) if e.to_string().trim().is_empty() => {
                fail(T, "a binding refused without a word", &docs)
            }
            Err(_) => continue,
        };
        // Relaxed names: `sp---ring.ai.tools...` is `spring.ai.tools` too.
        let under_tools = |k: &str| {
            let letters: String = k
                .chars()
                .filter(char::is_ascii_alphanumeric)
                .take(13)
                .collect();
            letters.eq_ignore_ascii_case("springaitools")
        };
        if let Some(k) = bound.read.keys().find(|k| !under_tools(k)) {
            fail(T, "a key read from outside spring.ai.tools", k);
        }
        let setup = Setup {
            limits: bound.limits.clone(),
            resolution_fallback: bound.resolution_fallback,
            processor: Processor {
                kind: ProcessorKind::Default,
                always_throw: bound.always_throw,
                rethrow: Vec::new(),
            },
            memory: Memory::None,
            memory_max_messages: crate::chat::memory::DEFAULT_MEMORY_MAX_MESSAGES,
            conversation_history: None,
            provider: Provider::Gemini,
            tool_output: Default::default(),
            version: Default::default(),
            stream: false,
        };
        if describe_setup(&setup).is_empty() {
            fail(T, "a setup described as nothing", &setup);
        }
        // The report plays every scenario under every behaviour set (some
        // ten milliseconds): only for limits the file changed, so that the
        // campaign spends its time on the reader and the binding.
        if setup.limits != crate::model::limits::ToolCallLimits::default()
            && report(&setup).is_empty()
        {
            fail(T, "a report of no behaviour set", &setup);
        }
    }
}
