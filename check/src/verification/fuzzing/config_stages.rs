//! The stages of `check`'s reading of a configuration, each fuzzed on its
//! own at the speed of the other byte targets: `config_reader` (bytes as an
//! `application.properties` and an `application.yml`, no binding) and
//! `config_binder` (documents of entries written directly, no reader, then
//! the binding and `check`'s setup, no report). The whole of `check` (reader,
//! binder and the report, which plays every scenario under every behaviour
//! set) stays the slower `config` target.

use crate::config::binding::{Entry, JavaValue, bind, parse_properties};
use crate::config::survival::{Setup, describe_setup};
use toolcall_model::chat::{Memory, Provider};
use toolcall_model::model::{Processor, ProcessorKind};

use super::{MAX_BYTES, fail};

/// The `config_reader` target: bytes read as an `application.properties`
/// and (when UTF-8) as an `application.yml`, and
/// nothing more. Asserts: no panic and no overflow; each reading is
/// deterministic; every entry has a line; every refusal says
/// something.
///
/// ```
/// toolcall_check::verification::fuzzing::config_reader(b"a.b=c\\\n  d\nx: [1, 2]\n");
/// ```
pub fn config_reader(data: &[u8]) {
    const T: &str = "config_reader";
    if data.len() > MAX_BYTES {
        return;
    }
    let properties = parse_properties(data).map_err(|e| e.to_string());
    if properties != parse_properties(data).map_err(|e| e.to_string()) {
        fail(T, "reading a .properties twice gave two results", &data);
    }
    read_checked(T, data, &properties);
    if let Ok(text) = std::str::from_utf8(data) {
        let yaml = crate::config::read_yaml(text);
        // Compared as printed: `.NaN` reads as a Double NaN, which is never
        // equal to itself.
        if format!("{yaml:?}") != format!("{:?}", crate::config::read_yaml(text)) {
            fail(T, "reading a .yml twice gave two results", &data);
        }
        read_checked(T, data, &yaml);
    }
}

/// What every reading owes: a located entry, or a refusal with a word.
fn read_checked(t: &str, data: &[u8], reading: &Result<Vec<Vec<Entry>>, String>) {
    match reading {
        Ok(docs) => {
            if let Some(e) = docs.iter().flatten().find(|e| e.line == 0) {
                fail(t, "an entry without a line", e);
            }
        }
        Err(e) if e.trim().is_empty() => fail(t, "a file refused without a word", &data),
        Err(_) => {}
    }
}

/// The `config_binder` target: the documents to bind written directly, so
/// that the campaign spends its time in the binder rather than in the
/// reader's escapes. The bytes (lossy UTF-8) are lines; a line `---` starts
/// a document; any other line is `KEY=VALUE` (no `=`: an empty value), the
/// value a `java.lang.String` unless it starts with a class tag, `i:`
/// Integer, `l:` Long, `n:` BigInteger, `d:` Double, `b:` Boolean (a tag
/// whose rest does not parse leaves the string). Asserts: binding is
/// deterministic; every refusal says something; what binds is read from
/// `spring.ai.tools` keys only (in any relaxed spelling); a bound file
/// makes a setup `check` can describe.
///
/// ```
/// toolcall_check::verification::fuzzing::config_binder(b"spring.ai.tools.limits.max-total-tool-calls=i:3\n---\nspring.ai.tools.limits.on-limit-exceeded=THROW\n");
/// ```
pub fn config_binder(data: &[u8]) {
    const T: &str = "config_binder";
    if data.len() > MAX_BYTES {
        return;
    }
    let docs = documents(&String::from_utf8_lossy(data));
    checked_setup(T, &docs);
}

/// What both configuration targets assert of a binding of `docs` (as
/// `target`), and the setup it makes (`None` when the binding refuses):
/// binding twice gives the same value (every part of a binding is `Eq`,
/// compared as values, not as printed), a refusal says something, every
/// key read is under `spring.ai.tools`, and the setup is described.
pub(super) fn checked_setup(target: &str, docs: &[Vec<Entry>]) -> Option<Setup> {
    let bound = bind(docs);
    if bind(docs) != bound {
        fail(target, "binding twice gave two results", &docs);
    }
    let bound = match bound {
        Ok(b) => b,
        Err(e) if e.to_string().trim().is_empty() => {
            fail(target, "a binding refused without a word", &docs)
        }
        Err(_) => return None,
    };
    // Relaxed names: `sp---ring.ai.tools...` is `spring.ai.tools` too.
    let under_tools = |k: &str| crate::config::binding::property_under(k, "spring.ai.tools");
    if let Some(k) = bound.read.keys().find(|k| !under_tools(k)) {
        fail(target, "a key read from outside spring.ai.tools", k);
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
        memory_max_messages: toolcall_model::chat::DEFAULT_MEMORY_MAX_MESSAGES,
        conversation_history: None,
        provider: Provider::Gemini,
        tool_output: Default::default(),
        version: Default::default(),
        stream: false,
    };
    if describe_setup(&setup).is_empty() {
        fail(target, "a setup described as nothing", &setup);
    }
    Some(setup)
}

/// The documents of `config_binder`'s text, every entry on its own line.
fn documents(text: &str) -> Vec<Vec<Entry>> {
    let mut docs = vec![Vec::new()];
    for (i, line) in text.lines().enumerate() {
        if line == "---" {
            docs.push(Vec::new());
            continue;
        }
        let (key, value) = line.split_once('=').unwrap_or((line, ""));
        let tagged = |tag: &str| value.strip_prefix(tag);
        let value = if let Some(v) = tagged("i:").and_then(|v| v.parse().ok()) {
            JavaValue::Integer(v)
        } else if let Some(v) = tagged("l:").and_then(|v| v.parse().ok()) {
            JavaValue::Long(v)
        } else if let Some(v) = tagged("n:").filter(|v| is_big_integer(v)) {
            JavaValue::BigInteger(v.to_owned())
        } else if let Some(v) = tagged("d:").and_then(|v| v.parse().ok()) {
            JavaValue::Double(v)
        } else if let Some(v) = tagged("b:").and_then(|v| v.parse().ok()) {
            JavaValue::Boolean(v)
        } else {
            JavaValue::String(value.to_owned())
        };
        if let Some(doc) = docs.last_mut() {
            doc.push(Entry {
                key: key.to_owned(),
                value,
                line: i + 1,
                column: 1,
            });
        }
    }
    docs
}

/// Decimal text as `BigInteger.toString()` writes it.
fn is_big_integer(v: &str) -> bool {
    let digits = v.strip_prefix('-').unwrap_or(v);
    !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
        && v != "-0"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_binder_input_is_documents_of_typed_entries() {
        let docs = documents("a=i:3\nb=l:x\n---\nc\nd=n:12\ne=b:true\nf=d:1.5\ng=n:012");
        assert_eq!(docs.len(), 2);
        assert_eq!(docs[0][0].value, JavaValue::Integer(3));
        assert_eq!(docs[0][1].value, JavaValue::String("l:x".into()));
        assert_eq!(docs[1][0].value, JavaValue::String(String::new()));
        assert_eq!(docs[1][1].value, JavaValue::BigInteger("12".into()));
        assert_eq!(docs[1][2].value, JavaValue::Boolean(true));
        assert_eq!(docs[1][3].value, JavaValue::Double(1.5));
        assert_eq!(docs[1][4].value, JavaValue::String("n:012".into()));
        assert_eq!((docs[1][1].line, docs[1][1].column), (5, 1));
    }

    #[test]
    fn the_binder_target_binds_limits() {
        let docs = documents("spring.ai.tools.limits.max-total-tool-calls=i:3");
        assert_eq!(
            bind(&docs).unwrap().limits.max_total,
            toolcall_model::model::Max::Limited(3)
        );
        config_binder(b"spring.ai.tools.limits.max-total-tool-calls=i:3");
    }
}
