//! `docs/vector.schema.json`, the JSON Schema (draft 2020-12) of the vector
//! format, against the 2020-12 meta-schema, every shipped vector
//! (`tests/vectors/`, and `../shared/vectors/` when present), the broken
//! vectors of `tests/schema_broken/`, and the Rust reader
//! (`Vector::parse`): where the schema and the reader differ, the difference
//! is one the schema's `$comment` lists, pinned here case by case: what JSON
//! Schema cannot express (the reader alone refuses it), and `expect` (f),
//! where the schema alone refuses keys and shapes no run produces.

use std::sync::OnceLock;

use serde_json::Value;
use toolcall_model::vectors::{Vector, VectorError, Verification};

use crate::support::{json_files, root};

const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

fn schema_doc() -> Value {
    let path = root().join("docs/vector.schema.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()))
}

fn validator() -> &'static jsonschema::Validator {
    static V: OnceLock<jsonschema::Validator> = OnceLock::new();
    V.get_or_init(|| {
        jsonschema::draft202012::new(&schema_doc())
            .unwrap_or_else(|e| panic!("docs/vector.schema.json does not compile: {e}"))
    })
}

/// The schema's complaints about `doc`, one line each (empty: valid).
fn schema_errors(doc: &Value) -> Vec<String> {
    validator()
        .iter_errors(doc)
        .map(|e| {
            let at = e.instance_path().to_string();
            format!("{}: {e}", if at.is_empty() { "/" } else { &at })
        })
        .collect()
}

/// What the reader says about a file: `Err(place: reason)` when
/// `Vector::parse` refuses it, `Ok(None)` when it loads and `verify` can judge
/// it, `Ok(Some(why))` when it loads but `verify` calls it invalid.
fn reader_verdict(bytes: &[u8]) -> Result<Option<String>, String> {
    let v = Vector::parse(bytes).map_err(|e| e.to_string())?;
    match v.verify() {
        Verification::Invalid(why) => Ok(Some(why)),
        Verification::Passed | Verification::Failed(_) => Ok(None),
    }
}

#[test]
fn schema_is_a_valid_draft_2020_12_schema() {
    let doc = schema_doc();
    assert_eq!(
        doc["$schema"], DRAFT_2020_12,
        "the schema declares draft 2020-12"
    );
    let meta = jsonschema::draft202012::meta::validator();
    let errors: Vec<String> = meta
        .iter_errors(&doc)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "docs/vector.schema.json is not a valid draft 2020-12 schema:\n{}",
        errors.join("\n")
    );
    // The meta-schema check is not vacuous.
    assert!(!meta.is_valid(&serde_json::json!({"type": 5})));
    // And it compiles (every $ref resolves).
    let _ = validator();
}

/// Every shipped vector: the schema accepts it, and so does the reader (the
/// reader's side is `tests/conformance.rs`'s, repeated here so that a
/// disagreement names both verdicts).
#[test]
fn schema_accepts_every_shipped_vector() {
    let mut files = json_files(&root().join("tests/vectors"));
    let shared = root().join("../shared/vectors");
    if shared.is_dir() {
        files.extend(json_files(&shared));
    } else {
        eprintln!("SKIPPED: {} is not here", shared.display());
    }
    assert!(
        files.len() > 400,
        "expected more than 400 vectors, found {}",
        files.len()
    );
    let mut failures = Vec::new();
    for f in &files {
        let bytes = std::fs::read(f).expect("readable vector");
        let doc: Value = match serde_json::from_slice(&bytes) {
            Ok(d) => d,
            Err(e) => {
                failures.push(format!("{}: not JSON: {e}", f.display()));
                continue;
            }
        };
        let errors = schema_errors(&doc);
        let reader = reader_verdict(&bytes);
        match (&reader, errors.is_empty()) {
            (Ok(None), true) => {}
            (Ok(None), false) => failures.push(format!(
                "{}: the reader accepts it, the schema does not:\n    {}",
                f.display(),
                errors.join("\n    ")
            )),
            (_, true) => failures.push(format!(
                "{}: the schema accepts it, the reader does not: {reader:?}",
                f.display()
            )),
            (_, false) => failures.push(format!(
                "{}: invalid for both; reader: {reader:?}; schema:\n    {}",
                f.display(),
                errors.join("\n    ")
            )),
        }
    }
    eprintln!("schema: {} shipped vectors checked", files.len());
    assert!(
        failures.is_empty(),
        "{} of {} vectors:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

/// How the reader must treat a file of `tests/schema_broken/`.
enum Reader {
    /// `Vector::parse` refuses it at this JSON pointer (or a place under it).
    Refuses(&'static str),
    /// It loads, but `verify` calls it invalid.
    Invalid,
}

/// Every file of `tests/schema_broken/` and what the reader says of it.
const BROKEN: &[(&str, Reader)] = &[
    (
        "bad-thought-signature.json",
        Reader::Refuses("/input/history/1/metadata/thoughtSignatures/0"),
    ),
    ("empty-expect.json", Reader::Invalid),
    (
        "generation-type-user.json",
        Reader::Refuses("/input/generations/0/type"),
    ),
    (
        "input-key-op-does-not-read.json",
        Reader::Refuses("/input/history"),
    ),
    (
        "limit-not-java-int.json",
        Reader::Refuses("/manager/max_total_tool_calls"),
    ),
    (
        "limit-wrong-type.json",
        Reader::Refuses("/manager/max_calls_per_tool"),
    ),
    (
        "loop-on-spring-ai-2.0.1.json",
        Reader::Refuses("/input/loop"),
    ),
    (
        "memory-window-without-memory.json",
        Reader::Refuses("/input/memory_max_messages"),
    ),
    ("missing-expect.json", Reader::Refuses("/expect")),
    ("name-not-string.json", Reader::Refuses("/name")),
    (
        "outcome-two-kinds.json",
        Reader::Refuses("/tools/0/outcomes/0"),
    ),
    (
        "override-not-integer.json",
        Reader::Refuses("/manager/max_calls_per_tool_overrides/echo"),
    ),
    (
        "processor-as-array.json",
        Reader::Refuses("/manager/exception_processor"),
    ),
    (
        "spring-ai-1.1.2-memory-inside-loop.json",
        Reader::Refuses("/input/memory"),
    ),
    (
        "spring-ai-1.1.2-unknown-loop.json",
        Reader::Refuses("/input/loop"),
    ),
    ("spring-ai-2.0.0-with-fixes.json", Reader::Refuses("/fixes")),
    (
        "spring-ai-2.0.0-with-limit.json",
        Reader::Refuses("/manager/max_calls_per_tool"),
    ),
    (
        "spring-ai-unknown-version.json",
        Reader::Refuses("/spring_ai"),
    ),
    (
        "thought-signatures-not-array.json",
        Reader::Refuses("/input/history/1/metadata/thoughtSignatures"),
    ),
    (
        "tool-call-unknown-key.json",
        Reader::Refuses("/input/history/1"),
    ),
    ("unknown-fix.json", Reader::Refuses("/fixes/0")),
    (
        "unknown-limit-policy.json",
        Reader::Refuses("/manager/on_limit_exceeded"),
    ),
    (
        "unknown-message-type.json",
        Reader::Refuses("/input/history/0"),
    ),
    ("unknown-op.json", Reader::Refuses("/op")),
    ("unknown-top-level-key.json", Reader::Refuses("/comment")),
    (
        "unlimited-false.json",
        Reader::Refuses("/manager/builder/0/unlimited_calls_per_tool"),
    ),
    ("wrong-format.json", Reader::Refuses("/format")),
];

#[test]
fn schema_and_reader_refuse_every_broken_vector() {
    let dir = root().join("tests/schema_broken");
    let files = json_files(&dir);
    let names: Vec<String> = files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let listed: Vec<&str> = BROKEN.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        names, listed,
        "tests/schema_broken/ and BROKEN list the same files, sorted"
    );
    assert!((8..=30).contains(&files.len()));
    let mut failures = Vec::new();
    for ((name, expected), f) in BROKEN.iter().zip(&files) {
        let bytes = std::fs::read(f).expect("readable");
        let doc: Value = serde_json::from_slice(&bytes).expect("a broken vector is still JSON");
        if schema_errors(&doc).is_empty() {
            failures.push(format!("{name}: the schema accepts it"));
        }
        match (expected, reader_verdict(&bytes)) {
            (Reader::Refuses(at), Err(e)) if e.starts_with(at) => {}
            (Reader::Invalid, Ok(Some(_))) => {}
            (_, got) => failures.push(format!(
                "{name}: the reader's verdict is {got:?}, not the one listed ({})",
                match expected {
                    Reader::Refuses(at) => format!("refused at {at}"),
                    Reader::Invalid => "invalid for verify".into(),
                }
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A small vector both accept; the cases below each change one thing.
fn base() -> Value {
    serde_json::json!({
        "format": "toolcall-model/1",
        "name": "base",
        "about": "tests/schema.rs",
        "op": "convert_tool_response",
        "input": {"text": "42"},
        "expect": {"response": {"result": 42}}
    })
}

fn with(edit: impl FnOnce(&mut Value)) -> Value {
    let mut v = base();
    edit(&mut v);
    v
}

fn loop_vector(input: Value) -> Value {
    with(|v| {
        v["op"] = "tool_loop".into();
        v["input"] = input;
        v["expect"] = serde_json::json!({"outcome": {"kind": "completed"}});
    })
}

fn bytes(v: &Value) -> Vec<u8> {
    serde_json::to_vec(v).unwrap()
}

#[test]
fn the_base_case_is_valid_for_both() {
    let b = base();
    assert_eq!(schema_errors(&b), Vec::<String>::new());
    assert_eq!(reader_verdict(&bytes(&b)), Ok(None));
}

/// Where the reader used to be laxer than the schema (the lax readings the
/// schema's `$comment` once listed as (a)-(e) and (g)): both now refuse each
/// case, the reader at the place given (a JSON pointer it starts with).
#[test]
fn schema_and_reader_refuse_what_the_reader_once_let_through() {
    let user_then_call = |metadata: Value| {
        serde_json::json!([
            {"type": "user", "text": "hi"},
            {"type": "assistant", "text": null,
             "tool_calls": [{"id": "c1", "name": "echo", "arguments": "{}"}],
             "metadata": metadata}
        ])
    };
    let signatures = |sigs: Value| {
        with(|v| {
            v["op"] = "gemini_request".into();
            v["input"] = serde_json::json!({
                "history": user_then_call(serde_json::json!({"thoughtSignatures": sigs}))
            });
            v["expect"] = serde_json::json!({"api": {"accepted": true}});
        })
    };
    let batch = |generations: Value| {
        with(|v| {
            v["op"] = "execute_tool_calls".into();
            v["input"] = serde_json::json!({
                "history": [{"type": "user", "text": "hi"}],
                "generations": generations
            });
            v["expect"] = serde_json::json!({"invocations": []});
        })
    };
    let request = |history: Value| {
        with(|v| {
            v["op"] = "gemini_request".into();
            v["input"] = serde_json::json!({ "history": history });
            v["expect"] = serde_json::json!({"api": {"accepted": true}});
        })
    };
    let turn = |extra: Value| {
        let mut input = serde_json::json!({
            "history": [{"type": "user", "text": "hi"}],
            "model": [[{"text": "hello"}]]
        });
        for (k, x) in extra.as_object().unwrap() {
            input[k] = x.clone();
        }
        loop_vector(input)
    };
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "(a) name not a string",
            with(|v| v["name"] = 42.into()),
            "/name",
        ),
        ("(a) name null", with(|v| v["name"] = Value::Null), "/name"),
        (
            "(a) about null",
            with(|v| v["about"] = Value::Null),
            "/about",
        ),
        (
            "(a) about a list",
            with(|v| v["about"] = serde_json::json!(["x"])),
            "/about",
        ),
        (
            "(b) unlimited_calls_per_tool: false",
            with(|v| {
                v["manager"] = serde_json::json!({"builder": [{"unlimited_calls_per_tool": false}]})
            }),
            "/manager/builder/0/unlimited_calls_per_tool",
        ),
        (
            "(b) unlimited_total_tool_calls: null",
            with(|v| {
                v["manager"] = serde_json::json!({"builder": [
                    {"max_total_tool_calls": 3}, {"unlimited_total_tool_calls": null}
                ]})
            }),
            "/manager/builder/1/unlimited_total_tool_calls",
        ),
        (
            "(c) a generation of type user",
            batch(serde_json::json!([{"type": "user", "text": "hello"}])),
            "/input/generations/0/type",
        ),
        (
            "(c) a generation of type null",
            batch(serde_json::json!([{"type": null, "text": "hello"}])),
            "/input/generations/0/type",
        ),
        (
            "(c) a model reply of type tool",
            turn(serde_json::json!({"model": [[{"type": "tool", "text": "hello"}]]})),
            "/input/model/0/0/type",
        ),
        (
            "(d) thoughtSignatures a string",
            signatures("c2ln".into()),
            "/input/history/1/metadata/thoughtSignatures",
        ),
        (
            "(d) thoughtSignatures null",
            signatures(Value::Null),
            "/input/history/1/metadata/thoughtSignatures",
        ),
        (
            "(e) an input key the op does not read",
            with(|v| v["input"]["history"] = serde_json::json!([])),
            "/input/history",
        ),
        (
            "(e) generations for gemini_request",
            with(|v| {
                v["op"] = "gemini_request".into();
                v["input"] = serde_json::json!({"history": [], "generations": []});
                v["expect"] = serde_json::json!({"api": {"accepted": true}});
            }),
            "/input/generations",
        ),
        (
            "(e) a provider that is not a string",
            turn(serde_json::json!({"provider": 5})),
            "/input/provider",
        ),
        (
            "(e) a memory that is not a string",
            turn(serde_json::json!({"memory": true})),
            "/input/memory",
        ),
        (
            "(g) exception_processor as an array",
            with(|v| v["manager"] = serde_json::json!({"exception_processor": []})),
            "/manager/exception_processor",
        ),
        (
            "(g) exception_processor as a list of its fields",
            with(|v| {
                v["manager"] = serde_json::json!({"exception_processor": ["default", false, []]})
            }),
            "/manager/exception_processor",
        ),
        (
            "(g) a tool call as an array",
            request(serde_json::json!([
                {"type": "user", "text": "hi"},
                {"type": "assistant", "text": null,
                 "tool_calls": [["c1", "function", "echo", "{}"]]}
            ])),
            "/input/history/1/tool_calls/0",
        ),
        (
            "(g) a tool response as an array",
            request(serde_json::json!([
                {"type": "user", "text": "hi"},
                {"type": "assistant", "text": null,
                 "tool_calls": [{"id": "c1", "name": "echo", "arguments": "{}"}]},
                {"type": "tool", "responses": [["c1", "echo", "42"]]}
            ])),
            "/input/history/2/responses/0",
        ),
        (
            "(g) a message as an array",
            request(serde_json::json!([["user", "hi"]])),
            "/input/history/0",
        ),
        (
            "(g) a generation as an array",
            batch(serde_json::json!([["assistant", "hello"]])),
            "/input/generations/0",
        ),
        (
            "(g) a model reply as an array",
            turn(serde_json::json!({"model": [[[null, "hello"]]]})),
            "/input/model/0/0",
        ),
        (
            "a streamed reply without chunks",
            turn(serde_json::json!({"model": [[]], "stream": true})),
            "/input/model/0",
        ),
        (
            "a streamed reply as a generation list",
            turn(serde_json::json!({"model": [[{"text": "hi"}]], "stream": true})),
            "/input/model/0/0",
        ),
        (
            "the tool-feedback advisor with close-dangling-calls",
            with(|v| {
                v["op"] = "tool_loop".into();
                v["advisors"] = serde_json::json!(["tool-feedback"]);
                v["fixes"] = serde_json::json!(["close-dangling-calls"]);
                v["input"] = serde_json::json!({"history": [], "model": []});
                v["expect"] = serde_json::json!({"invocations": []});
            }),
            "/advisors",
        ),
        (
            "(g) a tool call of a model reply as an array",
            turn(
                serde_json::json!({"model": [[{"tool_calls": [["c1", "function", "echo", "{}"]]}]]}),
            ),
            "/input/model/0/0/tool_calls/0",
        ),
    ];
    let mut failures = Vec::new();
    for (what, doc, at) in &cases {
        if schema_errors(doc).is_empty() {
            failures.push(format!("{what}: the schema accepts it"));
        }
        match Vector::parse(&bytes(doc)) {
            Err(e) if e.place.starts_with(at) => {}
            Err(e) => failures.push(format!(
                "{what}: the reader refuses it elsewhere than {at}: {e}"
            )),
            Ok(_) => failures.push(format!(
                "{what}: the reader loads it (it should refuse it at {at})"
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Where the schema is stricter than the reader (the schema's `$comment`,
/// (f)): an `expect` key or shape no run produces. The reader loads these
/// (the project's own counterexample vectors expect a key no run produces,
/// `"refuted"`, so that they fail under every set), and `verify` reports them
/// as failed; `{}` loads and `verify` calls it invalid.
#[test]
fn schema_is_stricter_than_the_reader_only_on_expect() {
    let cases: Vec<(&str, Value)> = vec![
        (
            "(f) an expect key no run produces",
            with(|v| v["expect"] = serde_json::json!({"responce": {"result": 42}})),
        ),
        (
            "(f) an expect shape no run produces",
            with(|v| v["expect"] = serde_json::json!({"response": "42"})),
        ),
    ];
    let mut failures = Vec::new();
    for (what, doc) in &cases {
        if schema_errors(doc).is_empty() {
            failures.push(format!("{what}: the schema accepts it"));
        }
        match Vector::parse(&bytes(doc)).map(|v| v.verify()) {
            Ok(Verification::Failed(_)) => {}
            other => failures.push(format!(
                "{what}: the reader should load it and verify fail it, got {other:?}"
            )),
        }
    }
    let empty = with(|v| v["expect"] = serde_json::json!({}));
    if schema_errors(&empty).is_empty() {
        failures.push("(f) expect {}: the schema accepts it".into());
    }
    if !matches!(reader_verdict(&bytes(&empty)), Ok(Some(_))) {
        failures.push("(f) expect {}: verify should call it invalid".into());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What JSON Schema cannot express (the schema's `$comment`, (1)-(4)): the
/// schema accepts these, the reader refuses them.
#[test]
fn reader_refuses_what_the_schema_cannot_express() {
    let throws = |t: Value| {
        with(|v| {
            v["tools"] = serde_json::json!([{"name": "echo", "outcomes": [{"throws": t}]}]);
        })
    };
    let mut deep = serde_json::json!({"class": "java.lang.IllegalStateException", "message": "m"});
    for _ in 0..33 {
        deep = serde_json::json!({"class": "java.lang.RuntimeException", "message": "m", "cause": deep});
    }
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "(1) a maximum written 3.0",
            serde_json::from_str(
                r#"{"format":"toolcall-model/1","manager":{"max_calls_per_tool":3.0},
                    "op":"convert_tool_response","input":{"text":"42"},"expect":{"response":{"result":42}}}"#,
            )
            .unwrap(),
            "/manager/max_calls_per_tool",
        ),
        (
            "(6) a streamed turn whose tool throws OutOfMemoryError",
            with(|v| {
                v["op"] = "tool_loop".into();
                v["tools"] = serde_json::json!([{"name": "echo", "outcomes": [{"throws":
                    {"class": "java.lang.OutOfMemoryError", "message": "m", "wrapped": true}}]}]);
                v["input"] = serde_json::json!({"history": [], "model": [[[{"text": "hi"}]]], "stream": true});
                v["expect"] = serde_json::json!({"invocations": []});
            }),
            "/input/stream",
        ),
        (
            "(2) an undeclared class",
            throws(serde_json::json!({"class": "com.acme.Oops", "message": "m"})),
            "/tools/0/outcomes/0/throws",
        ),
        (
            "(2) a rethrow class never declared",
            with(|v| {
                v["manager"] = serde_json::json!({"exception_processor": {"rethrow": ["com.acme.Oops"]}})
            }),
            "/manager/exception_processor/rethrow/0",
        ),
        (
            "(3) a ToolExecutionException's own message",
            throws(serde_json::json!({
                "class": "org.springframework.ai.tool.execution.ToolExecutionException",
                "message": "m",
                "cause": {"class": "java.lang.IllegalStateException", "message": "other"}
            })),
            "/tools/0/outcomes/0/throws/message",
        ),
        (
            "(4) causes 33 deep",
            throws(deep),
            "/tools/0/outcomes/0/throws",
        ),
    ];
    let mut failures = Vec::new();
    for (what, doc, at) in &cases {
        let errors = schema_errors(doc);
        if !errors.is_empty() {
            failures.push(format!("{what}: the schema refuses it: {errors:?}"));
        }
        match Vector::parse(&bytes(doc)) {
            Err(e) if e.place.starts_with(at) => {}
            other => failures.push(format!(
                "{what}: the reader should refuse it at {at}: {:?}",
                other.map(|v| v.name)
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// serde_json keeps numbers as text here (`arbitrary_precision`): the
/// validator (built with its `arbitrary-precision` feature) must still read
/// them as numbers, exactly at the Java `int` bounds and past `f64`.
#[test]
fn schema_and_reader_agree_on_maxima_at_the_bounds() {
    for (text, valid) in [
        ("2147483647", true),
        ("-2147483648", true),
        ("0", true),
        ("-0", true),
        ("-1", true),
        ("\"unlimited\"", true),
        ("2147483648", false),
        ("-2147483649", false),
        ("9223372036854775808", false),
        ("123456789012345678901234567890", false),
        ("1e400", false),
        ("-1e400", false),
        ("2147483647.5", false),
        ("\"40\"", false),
        ("true", false),
    ] {
        for key in ["max_calls_per_tool", "max_total_tool_calls"] {
            let text = format!(
                r#"{{"format":"toolcall-model/1","manager":{{"{key}":{text}}},
                    "op":"convert_tool_response","input":{{"text":"42"}},"expect":{{"response":{{"result":42}}}}}}"#
            );
            let doc: Value = serde_json::from_str(&text).unwrap();
            let schema = schema_errors(&doc).is_empty();
            let reader = Vector::parse(text.as_bytes()).is_ok();
            assert_eq!(
                (schema, reader),
                (valid, valid),
                "{key} = {}: (schema, reader)",
                &text
            );
        }
    }
    // Payloads keep any number, however large or precise.
    let big = r#"{"format":"toolcall-model/1","op":"convert_tool_response","input":{"text":"1e400"},
                  "expect":{"response":{"result":1e400, "x": 123456789012345678901234567890.000000000000000001}}}"#;
    let doc: Value = serde_json::from_str(big).unwrap();
    assert_eq!(schema_errors(&doc), Vec::<String>::new());
    assert!(Vector::parse(big.as_bytes()).is_ok());
}

/// Where the reader refuses what the schema accepts, this is why: one of
/// the rules the schema's `$comment` says it cannot express, (1)-(4).
const INEXPRESSIBLE: &[&str] = &[
    "a maximum must be an integer",
    "unknown exception class",
    "extends unknown class",
    "is already known with superclass",
    "a ToolExecutionException's message is its cause's message",
    "causes nest deeper",
];

/// Whether the reader may load a mutant the schema refuses: the schema's
/// `$comment`, (f), an `expect` key no run produces. `path` has its array
/// indices as `N`. (An `expect` of `{}` loads too, but `verify` calls it
/// invalid, which the mutant test counts as refusing it.)
fn stricter_as_documented(path: &str, mutation: &str) -> bool {
    path == "/expect" && mutation == "addkey" // (f)
}

/// The schema and the reader judge alike every vector one change away from a
/// shipped one, but for the documented difference (f): each node outside
/// `expect` removed, replaced by a value of each JSON type, or (an object)
/// given an unknown key. One mutant per (path with indices as `N`, change),
/// taken from the first vector that has the path.
#[test]
fn schema_and_reader_agree_on_mutants_of_the_shipped_vectors() {
    let mut files = json_files(&root().join("tests/vectors"));
    files.extend(json_files(&root().join("../shared/vectors")));
    let mutations: Vec<(&str, Option<Value>)> = vec![
        ("remove", None),
        ("addkey", None),
        ("null", Some(Value::Null)),
        ("0", Some(0.into())),
        ("-5", Some((-5).into())),
        ("1.5", Some(serde_json::from_str("1.5").unwrap())),
        ("\"x\"", Some("x".into())),
        ("\"\"", Some("".into())),
        ("true", Some(true.into())),
        ("false", Some(false.into())),
        ("[]", Some(serde_json::json!([]))),
        ("[\"x\"]", Some(serde_json::json!(["x"]))),
        ("{}", Some(serde_json::json!({}))),
    ];
    let mut done = std::collections::BTreeSet::new();
    let (mut mutants, mut disagreements) = (0usize, Vec::new());
    for f in &files {
        let doc: Value = serde_json::from_slice(&std::fs::read(f).unwrap()).unwrap();
        let mut paths = Vec::new();
        collect_paths(&doc, String::new(), &mut paths);
        for p in paths {
            if p.is_empty() || p.starts_with("/expect/") {
                continue;
            }
            let norm = p
                .split('/')
                .map(|t| if t.parse::<usize>().is_ok() { "N" } else { t })
                .collect::<Vec<_>>()
                .join("/");
            for (name, value) in &mutations {
                if !done.insert((norm.clone(), *name)) {
                    continue;
                }
                let mut d = doc.clone();
                let (parent, last) = p.rsplit_once('/').unwrap();
                let changed = match (*name, value) {
                    ("remove", _) => match d.pointer_mut(parent) {
                        Some(Value::Object(o)) => o.shift_remove(last).is_some(),
                        _ => false,
                    },
                    ("addkey", _) => match d.pointer_mut(&p) {
                        Some(Value::Object(o)) => o.insert("zz".into(), 1.into()).is_none(),
                        _ => false,
                    },
                    (_, Some(v)) => d.pointer_mut(&p).map(|slot| *slot = v.clone()).is_some(),
                    (_, None) => false,
                };
                if !changed {
                    continue;
                }
                mutants += 1;
                let schema_ok = schema_errors(&d).is_empty();
                // A vector `verify` calls invalid (`"expect": {}`) is refused.
                let reader = Vector::parse(&bytes(&d)).and_then(|v| {
                    if schema_ok {
                        return Ok(v);
                    }
                    match v.verify() {
                        Verification::Invalid(why) => Err(VectorError {
                            place: "/expect".into(),
                            reason: why,
                        }),
                        _ => Ok(v),
                    }
                });
                match (schema_ok, reader) {
                    (true, Ok(_)) | (false, Err(_)) => {}
                    (false, Ok(_)) if stricter_as_documented(&norm, name) => {}
                    (true, Err(e)) if INEXPRESSIBLE.iter().any(|w| e.reason.contains(w)) => {}
                    (s, r) => disagreements.push(format!(
                        "{norm} {name} (from {}): schema {}, reader {:?}",
                        f.display(),
                        if s { "accepts" } else { "refuses" },
                        r.map(|v| v.name).map_err(|e| e.to_string())
                    )),
                }
            }
        }
    }
    eprintln!("schema: {mutants} mutants checked against the reader");
    assert!(mutants > 1000, "only {mutants} mutants");
    assert!(
        disagreements.is_empty(),
        "{} undocumented disagreements:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}

fn collect_paths(v: &Value, p: String, out: &mut Vec<String>) {
    out.push(p.clone());
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                collect_paths(
                    x,
                    format!("{p}/{}", toolcall_model::vectors::pointer_token(k)),
                    out,
                )
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                collect_paths(x, format!("{p}/{i}"), out)
            }
        }
        _ => {}
    }
}
