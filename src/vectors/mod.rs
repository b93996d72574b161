//! Conformance vectors, format `toolcall-model/1` (`docs/VECTORS.md`):
//! loading with located errors, running each op, and matching the result
//! against `expect`.
//!
//! This module does no IO: callers hand it bytes and a name for messages.

pub mod conformance;

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::chat::tool_loop::{run_loop, LoopConfig, LoopRun, Memory, Provider, Sent};
use crate::gemini::{build_request, convert_tool_response, validate, ValidatorOptions};
use crate::model::behavior::{Fix, Fixes, SpringAi};
use crate::model::java::{ClassTable, JavaException};
use crate::model::limits::{Limits, LimitsError, OnExceeded};
use crate::model::manager::{execute_tool_calls, Config, ExecResult, ManagerError};
use crate::model::message::{Generation, Message};
use crate::model::processor::{Processor, ProcessorKind};
use crate::model::tools::{Invocation, Outcome, Registered, ToolSpec, Toolbox};

/// The format tag every vector carries.
pub const FORMAT: &str = "toolcall-model/1";

/// Largest vector file accepted, in bytes.
pub const MAX_VECTOR_BYTES: usize = 64 << 20;

/// Most JSON values (scalars, arrays, objects) a vector file may hold. A
/// value read takes some 100 bytes however short its text (`0,` is two),
/// so 64 MiB of them took 6 GB; two million take about 200 MB. The
/// shipped vectors hold fewer than 2,000.
pub const MAX_VECTOR_VALUES: usize = 2_000_000;

/// The levels of arrays and objects a vector may nest: serde_json's
/// reader recurses, and its default recursion limit (128) refuses the
/// 128th level; far past any vector's (payloads are strings).
pub const MAX_VECTOR_DEPTH: usize = 127;

/// The first key an object of `text` (valid JSON) repeats: its JSON
/// pointer and 1-based line and column. serde_json keeps the last of
/// duplicate keys without a word, so a vector could say one thing twice
/// and mean the second. One pass; the keys compared as decoded.
fn duplicate_key(text: &str) -> Option<(String, usize, usize)> {
    enum Frame {
        Object {
            keys: std::collections::HashSet<String>,
            key: Option<String>,
            want_key: bool,
        },
        Array(usize),
    }
    let pointer = |stack: &[Frame]| {
        let mut p = String::new();
        for f in stack {
            match f {
                Frame::Object { key: Some(k), .. } => p.push_str(&format!("/{}", pointer_token(k))),
                Frame::Object { .. } => {}
                Frame::Array(i) => p.push_str(&format!("/{i}")),
            }
        }
        p
    };
    let b = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let (mut line, mut line_start, mut i) = (1usize, 0usize, 0usize);
    while i < b.len() {
        match b[i] {
            b'\n' => {
                line += 1;
                line_start = i + 1;
            }
            b'{' => stack.push(Frame::Object {
                keys: Default::default(),
                key: None,
                want_key: true,
            }),
            b'[' => stack.push(Frame::Array(0)),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => match stack.last_mut() {
                Some(Frame::Object { want_key, .. }) => *want_key = true,
                Some(Frame::Array(n)) => *n += 1,
                None => {}
            },
            b'"' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                if let Some(Frame::Object {
                    keys,
                    key,
                    want_key: want @ true,
                }) = stack.last_mut()
                {
                    *want = false;
                    let k: String = serde_json::from_str(text.get(start..=i)?).ok()?;
                    if !keys.insert(k.clone()) {
                        let column = text[line_start..start].chars().count() + 1;
                        *key = Some(k);
                        return Some((pointer(&stack), line, column));
                    }
                    *key = Some(k);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// An upper bound on the number of JSON values in `text`, without reading
/// it: the values after a comma, the arrays and objects, and one.
fn values_at_most(text: &[u8]) -> usize {
    let (mut n, mut in_string, mut escaped) = (1usize, false, false);
    for &b in text {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b',' | b'[' | b'{' => n += 1,
            _ => {}
        }
    }
    n
}

/// The refusal of a vector file past [`MAX_VECTOR_BYTES`] (a reader that
/// knows the size refuses it before reading it).
///
/// ```
/// assert_eq!(toolcall_model::vectors::too_large().to_string(), "(file): larger than 67108864 bytes");
/// ```
pub fn too_large() -> VectorError {
    err("(file)", format!("larger than {MAX_VECTOR_BYTES} bytes"))
}

/// Why a file is not a valid vector: where in it, and why.
///
/// ```
/// let e = toolcall_model::vectors::Vector::parse(b"{").unwrap_err();
/// assert!(e.to_string().contains("not JSON"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{place}: {reason}")]
pub struct VectorError {
    /// A JSON pointer into the file, or `line L column C` for syntax errors.
    pub place: String,
    /// What is wrong.
    pub reason: String,
}

/// Every refusal is made here, clipped: a reason can quote a value of the
/// file (a 60 MB string once gave a 60 MB error line).
fn err(place: impl Into<String>, reason: impl Into<String>) -> VectorError {
    VectorError {
        place: clipped(place.into()),
        reason: clipped(reason.into()),
    }
}

/// The characters of a place or reason shown before it is cut.
const ERROR_CHARS: usize = 1000;

fn clipped(s: String) -> String {
    match s.char_indices().nth(ERROR_CHARS) {
        None => s,
        Some((cut, _)) => format!("{}… ({} characters)", &s[..cut], s.chars().count()),
    }
}

/// An operation with its input.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// `executeToolCalls(prompt(history), chatResponse(generations))`.
    ExecuteToolCalls {
        /// The prompt's messages.
        history: Vec<Message>,
        /// The chat response's generations.
        generations: Vec<Generation>,
    },
    /// `createGeminiRequest(prompt(history))`.
    GeminiRequest {
        /// The prompt's messages.
        history: Vec<Message>,
    },
    /// One tool response's conversion.
    ConvertToolResponse {
        /// The response data.
        text: String,
        /// Whether a failure produced it.
        error: bool,
    },
    /// One user turn through the tool loop.
    ToolLoop {
        /// The request's messages.
        history: Vec<Message>,
        /// The scripted model replies.
        model: Vec<Vec<Generation>>,
        /// The provider.
        provider: Provider,
        /// The memory placement.
        memory: Memory,
        /// The memory window's `maxMessages` as given (a Java `int`; the
        /// builder refuses one that is not > 0 when the op runs).
        memory_max_messages: i32,
        /// The memory's content at the start.
        memory_start: Vec<Message>,
    },
}

/// A loaded vector.
#[derive(Debug, Clone)]
pub struct Vector {
    /// `name`.
    pub name: String,
    /// `about`.
    pub about: String,
    /// `spring_ai`: the Spring AI version the vector describes (default
    /// 2.0.1); also in the manager's configuration.
    pub spring_ai: SpringAi,
    /// The loop configuration (the manager's is inside it); a builder
    /// call the builder refused is kept as the op's error.
    pub config: Result<LoopConfig, LimitsError>,
    /// The tools.
    pub tools: Vec<ToolSpec>,
    /// The op.
    pub op: Op,
    /// `expect`.
    pub expect: Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ProcessorDoc {
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    always_throw: bool,
    #[serde(default)]
    rethrow: Vec<String>,
}

fn field<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    obj.get(key).filter(|v| !v.is_null())
}

fn typed<T: serde::de::DeserializeOwned>(v: &Value, place: &str) -> Result<T, VectorError> {
    T::deserialize(v).map_err(|e| err(place, e.to_string()))
}

/// A JSON pointer reference token (RFC 6901): `~` as `~0`, `/` as `~1`.
///
/// ```
/// assert_eq!(toolcall_model::vectors::pointer_token("a/b~c"), "a~1b~0c");
/// ```
pub fn pointer_token(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// A maximum: `None` for `"unlimited"`, else a Java `int` (the builder's
/// parameters are `int`, so nothing outside -2^31 .. 2^31-1 can reach it).
fn as_max(v: &Value, place: &str) -> Result<Option<i32>, VectorError> {
    match v {
        Value::String(s) if s == "unlimited" => Ok(None),
        Value::Number(n) => {
            // With arbitrary_precision the number keeps its text.
            let text = n.to_string();
            let digits = text.strip_prefix('-').unwrap_or(&text);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(err(
                    place,
                    format!("a maximum must be an integer or \"unlimited\", not {n}"),
                ));
            }
            text.parse::<i32>().map(Some).map_err(|_| {
                err(
                    place,
                    format!(
                        "{n} is not a Java int (the builder takes an int: {} to {})",
                        i32::MIN,
                        i32::MAX
                    ),
                )
            })
        }
        other => Err(err(
            place,
            format!("a maximum must be an integer or \"unlimited\", not {other}"),
        )),
    }
}

/// An override's maximum: a Java `int`, never `"unlimited"`.
fn as_override(v: &Value, place: &str) -> Result<i32, VectorError> {
    as_max(v, place)?.ok_or_else(|| err(place, "an override must be an integer"))
}

fn names(v: &Value, place: &str) -> Result<Vec<String>, VectorError> {
    match v {
        Value::String(s) => Ok(vec![s.clone()]),
        _ => typed(v, place),
    }
}

/// One call on `DefaultToolCallingManager.Builder`'s limit half.
#[derive(Debug, Clone, PartialEq, Eq)]
enum BuilderCall {
    /// `maxCallsPerTool(int)`, or `unlimitedCallsPerTool()` for `None`.
    MaxPerTool(Option<i32>),
    /// `maxCallsPerTool(String, int)`.
    Override(String, i32),
    /// `excludeToolFromLimit(String)`.
    Exclude(String),
    /// `maxTotalToolCalls(int)`, or `unlimitedTotalToolCalls()` for `None`.
    MaxTotal(Option<i32>),
    /// `onLimitExceeded(behavior)`.
    OnExceeded(OnExceeded),
}

impl BuilderCall {
    /// The call on the builder; the first refused call is the error (the
    /// builder asserts at each call, so call order decides which one).
    fn apply(&self, l: Limits) -> Result<Limits, LimitsError> {
        match self {
            BuilderCall::MaxPerTool(Some(n)) => l.max_calls_per_tool(*n),
            BuilderCall::MaxPerTool(None) => Ok(l.unlimited_calls_per_tool()),
            BuilderCall::Override(name, n) => l.max_calls_per_tool_for(name, *n),
            BuilderCall::Exclude(name) => l.exclude_tool_from_limit(name),
            BuilderCall::MaxTotal(Some(n)) => l.max_total_tool_calls(*n),
            BuilderCall::MaxTotal(None) => Ok(l.unlimited_total_tool_calls()),
            BuilderCall::OnExceeded(b) => Ok(Limits {
                on_exceeded: *b,
                ..l
            }),
        }
    }
}

/// The builder calls the `manager` object stands for, in order: default,
/// overrides (in the file's key order: serde_json keeps it), exclusions,
/// total, behaviour, then the `builder` list. Every value is checked first,
/// so a maximum that is not a Java `int` is a fault of the vector wherever
/// it stands.
fn builder_calls(m: &Map<String, Value>) -> Result<Vec<BuilderCall>, VectorError> {
    let mut calls = Vec::new();
    if let Some(v) = field(m, "max_calls_per_tool") {
        calls.push(BuilderCall::MaxPerTool(as_max(
            v,
            "/manager/max_calls_per_tool",
        )?));
    }
    if let Some(v) = field(m, "max_calls_per_tool_overrides") {
        let o = v
            .as_object()
            .ok_or_else(|| err("/manager/max_calls_per_tool_overrides", "must be an object"))?;
        for (name, n) in o {
            let place = format!(
                "/manager/max_calls_per_tool_overrides/{}",
                pointer_token(name)
            );
            calls.push(BuilderCall::Override(name.clone(), as_override(n, &place)?));
        }
    }
    if let Some(v) = field(m, "exclude_from_limit") {
        for name in names(v, "/manager/exclude_from_limit")? {
            calls.push(BuilderCall::Exclude(name));
        }
    }
    if let Some(v) = field(m, "max_total_tool_calls") {
        calls.push(BuilderCall::MaxTotal(as_max(
            v,
            "/manager/max_total_tool_calls",
        )?));
    }
    if let Some(v) = field(m, "on_limit_exceeded") {
        calls.push(BuilderCall::OnExceeded(match v.as_str() {
            Some("THROW") => OnExceeded::Throw,
            Some("RETURN_ERROR_RESPONSE") => OnExceeded::ReturnErrorResponse,
            _ => {
                return Err(err(
                    "/manager/on_limit_exceeded",
                    format!("must be \"THROW\" or \"RETURN_ERROR_RESPONSE\", not {v}"),
                ))
            }
        }));
    }
    if let Some(v) = field(m, "builder") {
        let list: Vec<Map<String, Value>> = typed(v, "/manager/builder")?;
        for (i, c) in list.iter().enumerate() {
            let place = format!("/manager/builder/{i}");
            if c.len() != 1 {
                return Err(err(
                    &place,
                    "each builder call is an object with exactly one key",
                ));
            }
            let (k, v) = c.iter().next().expect("one key");
            let at = format!("{place}/{}", pointer_token(k));
            match (k.as_str(), v) {
                ("max_calls_per_tool", Value::Object(o)) => {
                    for (name, n) in o {
                        let at = format!("{at}/{}", pointer_token(name));
                        calls.push(BuilderCall::Override(name.clone(), as_override(n, &at)?));
                    }
                }
                ("max_calls_per_tool", v) => calls.push(BuilderCall::MaxPerTool(as_max(v, &at)?)),
                ("max_total_tool_calls", v) => calls.push(BuilderCall::MaxTotal(as_max(v, &at)?)),
                ("exclude_from_limit", v) => {
                    for name in names(v, &at)? {
                        calls.push(BuilderCall::Exclude(name));
                    }
                }
                ("unlimited_calls_per_tool", Value::Bool(true)) => {
                    calls.push(BuilderCall::MaxPerTool(None))
                }
                ("unlimited_total_tool_calls", Value::Bool(true)) => {
                    calls.push(BuilderCall::MaxTotal(None))
                }
                ("unlimited_calls_per_tool" | "unlimited_total_tool_calls", v) => {
                    return Err(err(
                        &at,
                        format!("must be true (the call takes no argument: {{\"{k}\": true}}), not {}", short(v)),
                    ))
                }
                (other, _) => {
                    return Err(err(
                        &place,
                        format!("unknown builder call '{other}' (known: max_calls_per_tool, exclude_from_limit, max_total_tool_calls, unlimited_calls_per_tool, unlimited_total_tool_calls)"),
                    ))
                }
            }
        }
    }
    Ok(calls)
}

/// The limits the builder calls give, or the first call the builder refused.
fn limits_from(m: &Map<String, Value>) -> Result<Result<Limits, LimitsError>, VectorError> {
    Ok(builder_calls(m)?
        .iter()
        .try_fold(Limits::default(), |l, c| c.apply(l)))
}

/// `spring_ai`: absent or null is 2.0.1.
fn spring_ai_from(v: Option<&Value>) -> Result<SpringAi, VectorError> {
    match v {
        None | Some(Value::Null) => Ok(SpringAi::default()),
        Some(Value::String(s)) => s.parse().map_err(|e| err("/spring_ai", format!("{e}"))),
        Some(v) => Err(err(
            "/spring_ai",
            format!("must be a string, not {}", short(v)),
        )),
    }
}

/// The manager keys a version before 2.0.1 cannot express, with the
/// builder method 2.0.1 added for each.
const KEYS_SINCE_2_0_1: &[(&str, &str)] = &[
    ("max_calls_per_tool", "maxCallsPerTool"),
    (
        "max_calls_per_tool_overrides",
        "maxCallsPerTool(String, int)",
    ),
    ("exclude_from_limit", "excludeToolFromLimit"),
    ("max_total_tool_calls", "maxTotalToolCalls"),
    ("on_limit_exceeded", "onLimitExceeded"),
    ("builder", "the tool call limits' methods"),
    ("resolution_fallback", "resolutionFallbackEnabled"),
];

/// Refuses a manager key whose builder method `version` does not have:
/// Spring AI 2.0.0's `DefaultToolCallingManager.Builder` has no tool call
/// limits and no `resolutionFallbackEnabled` (a program calling them does
/// not compile against it).
fn refuse_2_0_1_keys(m: &Map<String, Value>, version: SpringAi) -> Result<(), VectorError> {
    for (key, method) in KEYS_SINCE_2_0_1 {
        if field(m, key).is_some() {
            let what = if *key == "resolution_fallback" {
                "its manager always asks the resolver for a tool not among the request's"
            } else {
                "it has no tool call limits (ToolCallLimits came in 2.0.1)"
            };
            return Err(err(
                format!("/manager/{key}"),
                format!("Spring AI {version}'s DefaultToolCallingManager.Builder has no {method}: {what}"),
            ));
        }
    }
    Ok(())
}

/// Each op and the `input` keys it reads.
const OP_INPUT_KEYS: &[(&str, &[&str])] = &[
    ("execute_tool_calls", &["history", "generations"]),
    ("gemini_request", &["history"]),
    ("convert_tool_response", &["text", "error"]),
    (
        "tool_loop",
        &[
            "history",
            "model",
            "provider",
            "memory",
            "memory_max_messages",
            "memory_start",
        ],
    ),
];

const MANAGER_KEYS: &[&str] = &[
    "max_calls_per_tool",
    "max_calls_per_tool_overrides",
    "exclude_from_limit",
    "max_total_tool_calls",
    "on_limit_exceeded",
    "resolution_fallback",
    "conversation_history",
    "exception_processor",
    "builder",
    "validator",
];

fn declare(
    classes: &mut ClassTable,
    t: &Map<String, Value>,
    place: &str,
) -> Result<(), VectorError> {
    let class = t
        .get("class")
        .and_then(Value::as_str)
        .ok_or_else(|| err(place, "\"class\" must be a string"))?;
    if let Some(sup) = field(t, "extends") {
        let sup = sup
            .as_str()
            .ok_or_else(|| err(place, "\"extends\" must be a string"))?;
        classes
            .declare(class, sup)
            .map_err(|e| err(place, e.to_string()))?;
    }
    if !classes.contains(class) {
        return Err(err(
            place,
            format!("unknown exception class '{class}' (declare it with \"extends\")"),
        ));
    }
    Ok(())
}

/// How deep `cause` objects may nest in a `throws` object.
pub const MAX_CAUSE_DEPTH: usize = 32;

/// A `throws` object (depth 0) or one of its `cause` objects: class (declared
/// with `extends` if not built in), message and cause. A
/// `ToolExecutionException` (or subclass) takes its cause's message, so a
/// message given for one must be null or that message.
fn throwable_from(
    t: &Map<String, Value>,
    place: &str,
    classes: &mut ClassTable,
    depth: usize,
) -> Result<JavaException, VectorError> {
    let keys: &[&str] = if depth == 0 {
        &["class", "message", "wrapped", "extends", "cause"]
    } else {
        &["class", "message", "extends", "cause"]
    };
    for k in t.keys() {
        if !keys.contains(&k.as_str()) {
            return Err(err(place, format!("unknown key '{k}'")));
        }
    }
    declare(classes, t, place)?;
    let class = t["class"].as_str().unwrap_or_default().to_owned();
    let message = match t.get("message") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err(err(format!("{place}/message"), "must be a string or null")),
    };
    let cause = match t.get("cause") {
        None | Some(Value::Null) => None,
        Some(Value::Object(c)) => {
            let p = format!("{place}/cause");
            if depth + 1 > MAX_CAUSE_DEPTH {
                return Err(err(
                    &p,
                    format!("causes nest deeper than {MAX_CAUSE_DEPTH}"),
                ));
            }
            Some(Box::new(throwable_from(c, &p, classes, depth + 1)?))
        }
        Some(_) => return Err(err(format!("{place}/cause"), "must be an object or null")),
    };
    if classes.is_tool_execution_exception(&class) && message.is_some() {
        let derived = cause.as_deref().map(|c| classes.instantiate(c).message);
        if derived.as_ref() != Some(&message) {
            return Err(err(
                format!("{place}/message"),
                "a ToolExecutionException's message is its cause's message (super(cause.getMessage(), cause)): leave \"message\" out and give the \"cause\"",
            ));
        }
    }
    Ok(JavaException {
        class,
        message,
        cause,
    })
}

fn outcome_from(v: &Value, place: &str, classes: &mut ClassTable) -> Result<Outcome, VectorError> {
    let o = v
        .as_object()
        .ok_or_else(|| err(place, "an outcome is an object"))?;
    if o.len() != 1 {
        return Err(err(
            place,
            "an outcome has exactly one of \"returns\", \"echo_arguments\", \"throws\"",
        ));
    }
    if let Some(r) = o.get("returns") {
        return match r {
            Value::Null => Ok(Outcome::Returns(None)),
            Value::String(s) => Ok(Outcome::Returns(Some(s.clone()))),
            _ => Err(err(format!("{place}/returns"), "must be a string or null")),
        };
    }
    if let Some(e) = o.get("echo_arguments") {
        return match e {
            Value::Bool(true) => Ok(Outcome::EchoArguments),
            _ => Err(err(format!("{place}/echo_arguments"), "must be true")),
        };
    }
    if let Some(t) = o.get("throws") {
        let p = format!("{place}/throws");
        let t = t.as_object().ok_or_else(|| err(&p, "must be an object"))?;
        let wrapped = match t.get("wrapped") {
            None | Some(Value::Null) => true,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err(err(format!("{p}/wrapped"), "must be a boolean")),
        };
        return Ok(Outcome::Throws {
            exception: throwable_from(t, &p, classes, 0)?,
            wrapped,
        });
    }
    Err(err(
        place,
        "an outcome has exactly one of \"returns\", \"echo_arguments\", \"throws\"",
    ))
}

/// Declares every class the tools' `throws` objects (and their causes)
/// declare, in whatever order they appear: a declaration may name a
/// superclass declared further on, as Java source may. What cannot be
/// resolved is left for [`declare`] to report at its place.
fn predeclare(list: &[Value], classes: &mut ClassTable) {
    let mut pending: Vec<(String, String)> = Vec::new();
    let mut stack: Vec<&Value> = list
        .iter()
        .filter_map(|t| t.get("outcomes").and_then(Value::as_array))
        .flatten()
        .filter_map(|o| o.get("throws"))
        .collect();
    while let Some(t) = stack.pop() {
        if let (Some(c), Some(s)) = (
            t.get("class").and_then(Value::as_str),
            t.get("extends").and_then(Value::as_str),
        ) {
            pending.push((c.to_owned(), s.to_owned()));
        }
        if let Some(c) = t.get("cause") {
            stack.push(c);
        }
    }
    loop {
        let before = pending.len();
        pending.retain(|(c, s)| !(classes.contains(s) && classes.declare(c, s).is_ok()));
        if pending.len() == before {
            break;
        }
    }
}

fn tools_from(v: &Value, classes: &mut ClassTable) -> Result<Vec<ToolSpec>, VectorError> {
    let list = v
        .as_array()
        .ok_or_else(|| err("/tools", "must be an array"))?;
    predeclare(list, classes);
    let mut out: Vec<ToolSpec> = Vec::new();
    for (i, t) in list.iter().enumerate() {
        let place = format!("/tools/{i}");
        let t = t
            .as_object()
            .ok_or_else(|| err(&place, "a tool is an object"))?;
        for k in t.keys() {
            if !["name", "return_direct", "registered", "outcomes"].contains(&k.as_str()) {
                return Err(err(&place, format!("unknown key '{k}'")));
            }
        }
        let name = t
            .get("name")
            .and_then(Value::as_str)
            .ok_or_else(|| err(format!("{place}/name"), "must be a string"))?;
        let return_direct = match t.get("return_direct") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => return Err(err(format!("{place}/return_direct"), "must be a boolean")),
        };
        let registered =
            match t
                .get("registered")
                .and_then(|v| if v.is_null() { None } else { Some(v) })
            {
                None => Registered::Request,
                Some(Value::String(s)) if s == "request" => Registered::Request,
                Some(Value::String(s)) if s == "resolver" => Registered::Resolver,
                Some(v) => {
                    return Err(err(
                        format!("{place}/registered"),
                        format!("must be \"request\" or \"resolver\", not {v}"),
                    ))
                }
            };
        let outcomes = match t.get("outcomes") {
            None | Some(Value::Null) => vec![],
            Some(Value::Array(a)) => a
                .iter()
                .enumerate()
                .map(|(j, o)| outcome_from(o, &format!("{place}/outcomes/{j}"), classes))
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(err(format!("{place}/outcomes"), "must be an array")),
        };
        out.push(ToolSpec {
            name: name.to_owned(),
            return_direct,
            registered,
            outcomes,
        });
    }
    Ok(out)
}

fn fixes_from(v: Option<&Value>) -> Result<Fixes, VectorError> {
    match v {
        None | Some(Value::Null) => Ok(Fixes::upstream()),
        Some(Value::String(s)) if s == "all" => Ok(Fixes::all()),
        Some(Value::Array(a)) => {
            let mut f = Fixes::upstream();
            for (i, x) in a.iter().enumerate() {
                let place = format!("/fixes/{i}");
                let s = x.as_str().ok_or_else(|| err(&place, "a fix is a string"))?;
                f = if s == "all" {
                    Fixes::all()
                } else {
                    f.with(s.parse::<Fix>().map_err(|e| err(&place, e.to_string()))?)
                };
            }
            Ok(f)
        }
        Some(other) => Err(err(
            "/fixes",
            format!("must be a list of fix names or \"all\", not {other}"),
        )),
    }
}

/// The object at `place`, or an error saying it is `what` (serde's derive
/// would also take a JSON array of a struct's fields in order, which the
/// format does not allow).
fn object<'a>(
    v: &'a Value,
    place: &str,
    what: &str,
) -> Result<&'a Map<String, Value>, VectorError> {
    v.as_object()
        .ok_or_else(|| err(place, format!("{what} is an object, not {}", short(v))))
}

/// A message or generation (at `place`) as an object whose tool calls and
/// tool responses are objects too, before serde reads it.
fn message_shape<'a>(
    v: &'a Value,
    place: &str,
    what: &str,
) -> Result<&'a Map<String, Value>, VectorError> {
    let m = object(v, place, what)?;
    for (key, item) in [
        ("tool_calls", "a tool call"),
        ("responses", "a tool response"),
    ] {
        if let Some(Value::Array(list)) = m.get(key) {
            for (i, x) in list.iter().enumerate() {
                object(x, &format!("{place}/{key}/{i}"), item)?;
            }
        }
    }
    Ok(m)
}

fn messages(v: Option<&Value>, place: &str) -> Result<Vec<Message>, VectorError> {
    match v {
        None => Err(err(place, "missing")),
        Some(v) => {
            let list = v
                .as_array()
                .ok_or_else(|| err(place, "must be an array of messages"))?;
            list.iter()
                .enumerate()
                .map(|(i, m)| {
                    let at = format!("{place}/{i}");
                    message_shape(m, &at, "a message")?;
                    typed(m, &at)
                })
                .collect()
        }
    }
}

fn generations(v: Option<&Value>, place: &str) -> Result<Vec<Generation>, VectorError> {
    match v {
        None => Err(err(place, "missing")),
        Some(v) => {
            let list = v
                .as_array()
                .ok_or_else(|| err(place, "must be an array of generations"))?;
            list.iter()
                .enumerate()
                .map(|(i, m)| {
                    let at = format!("{place}/{i}");
                    let g = message_shape(m, &at, "a generation")?;
                    match g.get("type") {
                        None => {}
                        Some(Value::String(t)) if t == "assistant" => {}
                        Some(t) => {
                            return Err(err(
                                format!("{at}/type"),
                                format!(
                                    "a generation's type is \"assistant\" or left out, not {}",
                                    short(t)
                                ),
                            ))
                        }
                    }
                    typed(m, &at)
                })
                .collect()
        }
    }
}

impl Vector {
    /// Loads a vector from its bytes.
    ///
    /// ```
    /// use toolcall_model::vectors::Vector;
    /// let v = Vector::parse(br#"{"format":"toolcall-model/1","name":"n","op":"convert_tool_response","input":{"text":"1"},"expect":{}}"#).unwrap();
    /// assert_eq!(v.name, "n");
    /// assert!(Vector::parse(br#"{"format":"toolcall-model/2"}"#).unwrap_err().to_string().contains("format"));
    /// ```
    pub fn parse(bytes: &[u8]) -> Result<Vector, VectorError> {
        if bytes.len() > MAX_VECTOR_BYTES {
            return Err(too_large());
        }
        let text = std::str::from_utf8(bytes)
            .map_err(|e| err(format!("byte {}", e.valid_up_to()), "not valid UTF-8"))?;
        if values_at_most(bytes) > MAX_VECTOR_VALUES {
            return Err(err(
                "(file)",
                format!("more than {MAX_VECTOR_VALUES} JSON values"),
            ));
        }
        let doc: Value = serde_json::from_str(text).map_err(|e| {
            err(
                format!("line {} column {}", e.line(), e.column()),
                format!("not JSON: {e}"),
            )
        })?;
        if let Some((place, line, column)) = duplicate_key(text) {
            return Err(err(
                place,
                format!("a duplicate key (line {line} column {column}): each key once"),
            ));
        }
        Self::from_value(&doc)
    }

    /// Loads a vector from a parsed JSON document.
    pub fn from_value(doc: &Value) -> Result<Vector, VectorError> {
        let obj = doc
            .as_object()
            .ok_or_else(|| err("/", "a vector is a JSON object"))?;
        for k in obj.keys() {
            if ![
                "format",
                "name",
                "about",
                "spring_ai",
                "fixes",
                "advisors",
                "manager",
                "tools",
                "op",
                "input",
                "expect",
            ]
            .contains(&k.as_str())
            {
                return Err(err(format!("/{k}"), "unknown key"));
            }
        }
        match obj.get("format").and_then(Value::as_str) {
            Some(FORMAT) => {}
            Some(other) => return Err(err("/format", format!("format '{other}' is not {FORMAT}"))),
            None => {
                return Err(err(
                    "/format",
                    format!("missing format (expected \"{FORMAT}\")"),
                ))
            }
        }
        let text = |k: &str, absent: &str| match obj.get(k) {
            None => Ok(absent.to_owned()),
            Some(Value::String(s)) => Ok(s.clone()),
            Some(v) => Err(err(
                format!("/{k}"),
                format!("must be a string, not {}", short(v)),
            )),
        };
        let name = text("name", "(unnamed)")?;
        let about = text("about", "")?;
        let spring_ai = spring_ai_from(obj.get("spring_ai"))?;
        let fixes = fixes_from(obj.get("fixes"))?;
        if spring_ai == SpringAi::V2_0_0 && !fixes.is_upstream() {
            return Err(err(
                "/fixes",
                "the fixes are written for Spring AI 2.0.1 (its limits and its fix library); a 2.0.0 vector is upstream",
            ));
        }
        let gemini_tool_text = match obj.get("advisors") {
            None | Some(Value::Null) => false,
            Some(Value::Array(a)) => {
                let mut on = false;
                for (i, x) in a.iter().enumerate() {
                    match x.as_str() {
                        Some("gemini-tool-text") => on = true,
                        _ => {
                            return Err(err(
                                format!("/advisors/{i}"),
                                format!("unknown advisor {x} (known: \"gemini-tool-text\")"),
                            ))
                        }
                    }
                }
                on
            }
            Some(other) => return Err(err("/advisors", format!("must be a list, not {other}"))),
        };
        let empty = Map::new();
        let m = match obj.get("manager") {
            None | Some(Value::Null) => &empty,
            Some(Value::Object(m)) => m,
            Some(_) => return Err(err("/manager", "must be an object")),
        };
        for k in m.keys() {
            if !MANAGER_KEYS.contains(&k.as_str()) {
                return Err(err(format!("/manager/{k}"), "unknown key"));
            }
        }
        if !spring_ai.has_limits() || !spring_ai.has_resolution_switch() {
            refuse_2_0_1_keys(m, spring_ai)?;
        }
        let mut classes = ClassTable::builtin();
        let tools = match obj.get("tools") {
            None | Some(Value::Null) => vec![],
            Some(v) => tools_from(v, &mut classes)?,
        };
        let processor = match field(m, "exception_processor") {
            None => Processor::default(),
            Some(v) => {
                object(v, "/manager/exception_processor", "an exception processor")?;
                let d: ProcessorDoc = typed(v, "/manager/exception_processor")?;
                let kind = match d.kind.as_deref() {
                    None | Some("default") => ProcessorKind::Default,
                    Some("json_error") => ProcessorKind::JsonError,
                    Some(k) => {
                        return Err(err(
                            "/manager/exception_processor/kind",
                            format!("unknown processor kind '{k}' (known: default, json_error)"),
                        ))
                    }
                };
                for (i, c) in d.rethrow.iter().enumerate() {
                    if !classes.contains(c) {
                        return Err(err(format!("/manager/exception_processor/rethrow/{i}"), format!("unknown exception class '{c}' (declare it in a tool outcome with \"extends\")")));
                    }
                }
                Processor {
                    kind,
                    always_throw: d.always_throw,
                    rethrow: d.rethrow,
                }
            }
        };
        let bool_key = |k: &str, default: bool| -> Result<bool, VectorError> {
            match field(m, k) {
                None => Ok(default),
                Some(Value::Bool(b)) => Ok(*b),
                Some(_) => Err(err(format!("/manager/{k}"), "must be a boolean")),
            }
        };
        let resolution_fallback = bool_key("resolution_fallback", false)?;
        let conversation_history = bool_key("conversation_history", true)?;
        let validator = match field(m, "validator") {
            None => ValidatorOptions::default(),
            Some(Value::Object(v)) => {
                let mut o = ValidatorOptions::default();
                for (k, x) in v {
                    let b = x.as_bool().ok_or_else(|| {
                        err(format!("/manager/validator/{k}"), "must be a boolean")
                    })?;
                    match k.as_str() {
                        "thought_signatures" => o.thought_signatures = b,
                        "alternate_roles" => o.alternate_roles = b,
                        _ => return Err(err(
                            format!("/manager/validator/{k}"),
                            "unknown validator switch (known: thought_signatures, alternate_roles)",
                        )),
                    }
                }
                o
            }
            Some(_) => return Err(err("/manager/validator", "must be an object")),
        };
        let config = limits_from(m)?.map(|limits| {
            let manager = Config {
                limits,
                resolution_fallback,
                processor,
                classes,
                fixes,
                version: spring_ai,
            };
            LoopConfig {
                conversation_history,
                gemini_tool_text,
                validator,
                ..LoopConfig::new(manager)
            }
        });
        let input = match obj.get("input") {
            Some(Value::Object(i)) => i,
            _ => return Err(err("/input", "missing or not an object")),
        };
        let op_name = match obj.get("op").and_then(Value::as_str) {
            Some(name) => name,
            None => return Err(err("/op", "missing")),
        };
        let Some((_, input_keys)) = OP_INPUT_KEYS.iter().find(|(o, _)| *o == op_name) else {
            let known: Vec<&str> = OP_INPUT_KEYS.iter().map(|(o, _)| *o).collect();
            return Err(err(
                "/op",
                format!("unknown op '{op_name}' (known: {})", known.join(", ")),
            ));
        };
        for k in input.keys() {
            if !input_keys.contains(&k.as_str()) {
                return Err(err(
                    format!("/input/{}", pointer_token(k)),
                    format!(
                        "unknown key: op '{op_name}' reads only {}",
                        input_keys.join(", ")
                    ),
                ));
            }
        }
        let input = canonical_signatures(input)?
            .map_or(std::borrow::Cow::Borrowed(input), std::borrow::Cow::Owned);
        let input = &input;
        let op = match op_name {
            "execute_tool_calls" => Op::ExecuteToolCalls {
                history: messages(input.get("history"), "/input/history")?,
                generations: generations(input.get("generations"), "/input/generations")?,
            },
            "gemini_request" => Op::GeminiRequest {
                history: messages(input.get("history"), "/input/history")?,
            },
            "convert_tool_response" => Op::ConvertToolResponse {
                text: input
                    .get("text")
                    .and_then(Value::as_str)
                    .ok_or_else(|| err("/input/text", "must be a string"))?
                    .to_owned(),
                error: match input.get("error") {
                    None | Some(Value::Null) => false,
                    Some(Value::Bool(b)) => *b,
                    Some(_) => return Err(err("/input/error", "must be a boolean")),
                },
            },
            "tool_loop" => {
                let model = match input.get("model") {
                    Some(Value::Array(a)) => a
                        .iter()
                        .enumerate()
                        .map(|(i, g)| generations(Some(g), &format!("/input/model/{i}")))
                        .collect::<Result<_, _>>()?,
                    _ => return Err(err("/input/model", "must be an array of generation lists")),
                };
                let choice = |k: &str| match field(input, k) {
                    None => Ok(None),
                    Some(Value::String(s)) => Ok(Some(s.as_str())),
                    Some(v) => Err(err(
                        format!("/input/{k}"),
                        format!("must be a string or null, not {}", short(v)),
                    )),
                };
                let provider = match choice("provider")? {
                    None | Some("gemini") => Provider::Gemini,
                    Some("none") => Provider::None,
                    Some(p) => {
                        return Err(err(
                            "/input/provider",
                            format!("unknown provider '{p}' (known: gemini, none)"),
                        ))
                    }
                };
                let memory = match choice("memory")? {
                    None | Some("none") => Memory::None,
                    Some("inside") => Memory::Inside,
                    Some("outside") => Memory::Outside,
                    Some(p) => {
                        return Err(err(
                            "/input/memory",
                            format!("unknown memory '{p}' (known: none, inside, outside)"),
                        ))
                    }
                };
                let memory_max_messages = match field(input, "memory_max_messages") {
                    None => crate::chat::memory::DEFAULT_MEMORY_MAX_MESSAGES.get() as i32,
                    Some(v) => as_max(v, "/input/memory_max_messages")?
                        .ok_or_else(|| err("/input/memory_max_messages", "must be an integer"))?,
                };
                let memory_start = match field(input, "memory_start") {
                    None => vec![],
                    Some(v) => messages(Some(v), "/input/memory_start")?,
                };
                if memory == Memory::None {
                    for k in ["memory_max_messages", "memory_start"] {
                        if field(input, k).is_some() {
                            return Err(err(
                                format!("/input/{k}"),
                                "needs a memory (\"memory\": \"inside\" or \"outside\")",
                            ));
                        }
                    }
                }
                Op::ToolLoop {
                    history: messages(input.get("history"), "/input/history")?,
                    model,
                    provider,
                    memory,
                    memory_max_messages,
                    memory_start,
                }
            }
            // OP_INPUT_KEYS has refused every other name above.
            other => return Err(err("/op", format!("unknown op '{other}'"))),
        };
        let expect = match obj.get("expect") {
            Some(v @ Value::Object(_)) => v.clone(),
            _ => return Err(err("/expect", "missing or not an object")),
        };
        Ok(Vector {
            name,
            about,
            spring_ai,
            config,
            tools,
            op,
            expect,
        })
    }

    /// Runs the op and returns what it produced, in the `expect` shape.
    ///
    /// ```
    /// use toolcall_model::vectors::Vector;
    /// let v = Vector::parse(br#"{"format":"toolcall-model/1","name":"n","op":"convert_tool_response","input":{"text":"42"},"expect":{}}"#).unwrap();
    /// assert_eq!(v.run().unwrap(), serde_json::json!({"response": {"result": 42}, "invocations": []}));
    /// ```
    pub fn run(&self) -> Result<Value, String> {
        self.produce().map(Produced::into_value)
    }

    /// What [`Vector::run`] returns, with a loop's requests kept as the loop
    /// sent them (sharing their messages) instead of one JSON tree per
    /// round: a loop of n rounds sends n requests of up to n messages, so
    /// the trees take memory with the square of the rounds. [`Produced`]
    /// writes them one at a time and matches them against `expect` one at
    /// a time.
    pub fn produce(&self) -> Result<Produced, String> {
        let mut requests = Vec::new();
        let mut out = Map::new();
        let mut toolbox = Toolbox::new(self.tools.clone());
        let cfg = match &self.config {
            Ok(c) => c,
            Err(e) => {
                out.insert(
                    "error".into(),
                    error_value(&JavaException::new(
                        crate::model::java::ILLEGAL_ARGUMENT,
                        Some(e.java_message()),
                    )),
                );
                out.insert("invocations".into(), Value::Array(vec![]));
                return Ok(Produced::new(out, requests));
            }
        };
        let fixes = cfg.manager.fixes;
        match &self.op {
            Op::ExecuteToolCalls {
                history,
                generations,
            } => match execute_tool_calls(&cfg.manager, history, generations, &mut toolbox) {
                Ok(r) => {
                    out.insert("result".into(), result_value(&r));
                }
                Err(e) => {
                    out.insert("error".into(), manager_error_value(&e));
                }
            },
            Op::GeminiRequest { history } => match build_request(history, fixes) {
                Ok(r) => {
                    out.insert("api".into(), api_value(&validate(&r, cfg.validator)));
                    out.insert("request".into(), r.to_value());
                }
                Err(e) => {
                    out.insert("error".into(), error_value(&e));
                }
            },
            Op::ConvertToolResponse { text, error } => {
                match convert_tool_response(text, *error, fixes) {
                    Ok(p) => out.insert("response".into(), p.to_value()),
                    Err(e) => out.insert("error".into(), error_value(&e)),
                };
            }
            Op::ToolLoop {
                history,
                model,
                provider,
                memory,
                memory_max_messages,
                memory_start,
            } => {
                // MessageWindowChatMemory.Builder.build(): the constructor
                // asserts maxMessages > 0 (the manager is built first).
                let Some(max) = u32::try_from(*memory_max_messages)
                    .ok()
                    .and_then(std::num::NonZeroU32::new)
                else {
                    out.insert(
                        "error".into(),
                        error_value(&JavaException::new(
                            crate::model::java::ILLEGAL_ARGUMENT,
                            Some(crate::chat::memory::MEMORY_MAX_MESSAGES_NOT_POSITIVE),
                        )),
                    );
                    out.insert("invocations".into(), Value::Array(vec![]));
                    return Ok(Produced::new(out, requests));
                };
                let lc = LoopConfig {
                    provider: *provider,
                    memory: *memory,
                    memory_max_messages: max,
                    memory_start: memory_start.clone(),
                    ..cfg.clone()
                };
                let run = run_loop(&lc, history.clone(), model, &mut toolbox)
                    .map_err(|e| e.to_string())?;
                loop_value(&run, &mut out);
                requests = run.requests;
            }
        }
        out.insert(
            "invocations".into(),
            invocations_value(toolbox.invocations()),
        );
        Ok(Produced::new(out, requests))
    }

    /// Runs the vector and matches the result against `expect`: the list of
    /// differences, empty when it passes.
    ///
    /// ```
    /// use toolcall_model::vectors::Vector;
    /// let v = Vector::parse(br#"{"format":"toolcall-model/1","name":"n","op":"convert_tool_response","input":{"text":"x"},"expect":{"response":{"result":"x"}}}"#).unwrap();
    /// assert!(!v.check().is_empty()); // upstream fails to parse "x"
    /// ```
    pub fn check(&self) -> Vec<String> {
        match self.produce() {
            Ok(actual) => actual.differences(&self.expect),
            Err(e) => vec![format!("the run failed: {e}")],
        }
    }

    /// What `toolcall-model verify` says about the vector: invalid when it
    /// expects nothing (`"expect": {}`, which any run would match), else
    /// passed or failed as [`Vector::check`] says.
    ///
    /// ```
    /// use toolcall_model::vectors::{Vector, Verification};
    /// let v = |expect: &str| Vector::parse(format!(r#"{{"format":"toolcall-model/1","name":"n","op":"convert_tool_response","input":{{"text":"42"}},"expect":{expect}}}"#).as_bytes()).unwrap();
    /// assert_eq!(v(r#"{"response":{"result":42}}"#).verify(), Verification::Passed);
    /// assert!(matches!(v(r#"{"response":{"result":41}}"#).verify(), Verification::Failed(_)));
    /// assert!(matches!(v("{}").verify(), Verification::Invalid(_)));
    /// ```
    pub fn verify(&self) -> Verification {
        if self.expect.as_object().is_some_and(Map::is_empty) {
            return Verification::Invalid(format!("/expect: {NO_EXPECTATION}"));
        }
        let diffs = self.check();
        if diffs.is_empty() {
            Verification::Passed
        } else {
            Verification::Failed(diffs)
        }
    }
}

/// Why a vector with `"expect": {}` is invalid.
pub const NO_EXPECTATION: &str = "no expectation: `expect` is {}, which every run matches; say what the op must produce (`conformance/java/runner --expect FILE` fills it in with what the real Spring AI 2.0.1 classes produce)";

/// What `toolcall-model verify` says about one vector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verification {
    /// The run matches `expect`.
    Passed,
    /// The run differs from `expect`: one line per difference.
    Failed(Vec<String>),
    /// The vector cannot be judged (it expects nothing).
    Invalid(String),
}

/// `{"class": ..., "message": ...}`.
pub fn error_value(e: &JavaException) -> Value {
    let mut m = Map::new();
    m.insert("class".into(), Value::String(e.class.clone()));
    m.insert(
        "message".into(),
        e.message.clone().map_or(Value::Null, Value::String),
    );
    Value::Object(m)
}

fn api_value<E: std::fmt::Display>(v: &Result<(), E>) -> Value {
    match v {
        Ok(()) => serde_json::json!({"accepted": true}),
        Err(m) => serde_json::json!({"accepted": false, "message": m.to_string()}),
    }
}

fn result_value(r: &ExecResult) -> Value {
    serde_json::json!({
        "history": serde_json::to_value(&r.history).unwrap_or(Value::Null),
        "return_direct": r.return_direct,
    })
}

/// The `error` value of a manager failure; a limit breach carries
/// `tool_name`, `limit`, `partial` and `generation`.
pub fn manager_error_value(e: &ManagerError) -> Value {
    let mut v = error_value(&e.java());
    if let (ManagerError::LimitExceeded(l), Value::Object(m)) = (e, &mut v) {
        m.insert(
            "tool_name".into(),
            l.breach
                .tool_name
                .clone()
                .map_or(Value::Null, Value::String),
        );
        m.insert("limit".into(), Value::from(l.breach.limit));
        m.insert("partial".into(), result_value(&l.partial));
        m.insert(
            "generation".into(),
            serde_json::to_value(l.build_generation()).unwrap_or(Value::Null),
        );
    }
    v
}

fn invocations_value(inv: &[Invocation]) -> Value {
    Value::Array(
        inv.iter()
            .map(|i| serde_json::json!({"tool": i.tool, "arguments": i.arguments}))
            .collect(),
    )
}

fn loop_value(run: &LoopRun, out: &mut Map<String, Value>) {
    let mut outcome = Map::new();
    outcome.insert("kind".into(), Value::String(run.kind.name().into()));
    outcome.insert(
        "generations".into(),
        serde_json::to_value(&run.generations).unwrap_or(Value::Null),
    );
    outcome.insert(
        "error".into(),
        run.error.as_ref().map_or(Value::Null, error_value),
    );
    out.insert("outcome".into(), Value::Object(outcome));
    // Its place: [`Produced`] holds the requests themselves.
    out.insert("requests".into(), Value::Null);
    out.insert(
        "memory".into(),
        serde_json::json!({
            "messages": serde_json::to_value(&run.memory).unwrap_or(Value::Null),
            "api": api_value(&run.memory_verdict),
        }),
    );
    out.insert("api".into(), api_value(&run.api()));
}

/// What a vector's op produced: the `expect`-shaped object, where a
/// loop's `requests` stands as `null` and the requests are held as sent.
/// Serializes exactly as [`Produced::into_value`] would.
#[derive(Debug)]
pub struct Produced {
    value: Map<String, Value>,
    requests: Vec<Sent>,
}

/// The key the loop's requests stand at.
const REQUESTS: &str = "requests";

impl Produced {
    fn new(value: Map<String, Value>, requests: Vec<Sent>) -> Produced {
        Produced { value, requests }
    }

    fn has_requests(&self) -> bool {
        self.value.contains_key(REQUESTS)
    }

    /// The whole result as one JSON tree (memory with the square of a
    /// loop's rounds; [`Vector::run`]).
    pub fn into_value(self) -> Value {
        let mut value = self.value;
        if let Some(slot) = value.get_mut(REQUESTS) {
            *slot = Value::Array(self.requests.iter().map(Sent::to_value).collect());
        }
        Value::Object(value)
    }

    /// The differences from `expect`, as [`match_value`] finds them on
    /// [`Produced::into_value`], building one request's tree at a time.
    pub fn differences(&self, expect: &Value) -> Vec<String> {
        let mut diffs = Vec::new();
        let Value::Object(e) = expect else {
            // Not an object: the whole value is compared (and echoed).
            let whole = Produced {
                value: self.value.clone(),
                requests: self.requests.clone(),
            };
            match_value(expect, &whole.into_value(), "", &mut diffs);
            return diffs;
        };
        for (k, ev) in e {
            if k != REQUESTS || !self.has_requests() {
                match_key(k, ev, &self.value, "", &mut diffs);
                continue;
            }
            let p = format!("/{k}");
            match ev {
                Value::Array(want) if want.len() == self.requests.len() => {
                    for (i, (w, r)) in want.iter().zip(&self.requests).enumerate() {
                        match_value(w, &r.to_value(), &format!("{p}/{i}"), &mut diffs);
                    }
                }
                Value::Array(want) => diffs.push(format!(
                    "{p}: expected {} elements, got {}: {}",
                    want.len(),
                    self.requests.len(),
                    self.requests_short()
                )),
                other => diffs.push(format!(
                    "{p}: expected {}, got {}",
                    short(other),
                    self.requests_short()
                )),
            }
        }
        diffs
    }

    /// [`short`] of the requests' array, written only as far as it shows.
    fn requests_short(&self) -> String {
        let mut w = Clipped(Vec::new());
        // The writer stops the serialization once it holds enough.
        let _ = serde_json::to_writer(&mut w, &RequestsSer(&self.requests));
        let s = String::from_utf8_lossy(&w.0).into_owned();
        if s.len() > SHORT {
            let cut = (0..=SHORT)
                .rev()
                .find(|&i| s.is_char_boundary(i))
                .unwrap_or(0);
            format!("{}…", &s[..cut])
        } else {
            s
        }
    }
}

/// A writer that refuses more than a little past [`SHORT`] bytes.
struct Clipped(Vec<u8>);

impl std::io::Write for Clipped {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.0.len() > SHORT + 8 {
            return Err(std::io::ErrorKind::WriteZero.into());
        }
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

struct RequestsSer<'a>(&'a [Sent]);

impl serde::Serialize for RequestsSer<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for r in self.0 {
            seq.serialize_element(&r.to_value())?;
        }
        seq.end()
    }
}

impl serde::Serialize for Produced {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.value.len()))?;
        for (k, v) in &self.value {
            if k == REQUESTS {
                m.serialize_entry(k, &RequestsSer(&self.requests))?;
            } else {
                m.serialize_entry(k, v)?;
            }
        }
        m.end()
    }
}

/// Numbers by value (the vectors' rule, shared with `conformance`).
pub(crate) fn numbers_equal(a: &serde_json::Number, b: &serde_json::Number) -> bool {
    crate::json::decimal::same_number(&a.to_string(), &b.to_string())
}

/// Whole-value equality (payloads): same keys (any order), same values,
/// numbers by value.
fn equal_whole(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => numbers_equal(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| equal_whole(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| equal_whole(v, w)))
        }
        _ => a == b,
    }
}

/// How much of a value a difference line shows, in bytes.
const SHORT: usize = 300;

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > SHORT {
        let cut = (0..=SHORT)
            .rev()
            .find(|&i| s.is_char_boundary(i))
            .unwrap_or(0);
        format!("{}…", &s[..cut])
    } else {
        s
    }
}

/// `functionCall.args`, `functionResponse.response` and the
/// `convert_tool_response` op's `response` are payloads: equal as a whole.
fn is_payload(path: &str, key: &str) -> bool {
    (key == "args" && path.ends_with("/functionCall"))
        || (key == "response" && (path.ends_with("/functionResponse") || path.is_empty()))
}

/// Matches `expected` against `actual` with the vector rules, pushing one
/// line per difference (JSON pointer, expected, actual).
///
/// ```
/// use serde_json::json;
/// let mut d = vec![];
/// toolcall_model::vectors::match_value(&json!({"a": 1.0}), &json!({"a": 1, "b": 2}), "", &mut d);
/// assert!(d.is_empty());
/// toolcall_model::vectors::match_value(&json!({"a": [1]}), &json!({"a": [1, 2]}), "", &mut d);
/// assert_eq!(d.len(), 1);
/// ```
pub fn match_value(expected: &Value, actual: &Value, path: &str, diffs: &mut Vec<String>) {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (k, ev) in e {
                match_key(k, ev, a, path, diffs);
            }
        }
        (Value::Array(e), Value::Array(a)) => {
            if e.len() != a.len() {
                diffs.push(format!(
                    "{path}: expected {} elements, got {}: {}",
                    e.len(),
                    a.len(),
                    short(actual)
                ));
                return;
            }
            for (i, (x, y)) in e.iter().zip(a).enumerate() {
                match_value(x, y, &format!("{path}/{i}"), diffs);
            }
        }
        (Value::Number(x), Value::Number(y)) if numbers_equal(x, y) => {}
        (e, a) if e == a => {}
        (e, a) => diffs.push(format!(
            "{}: expected {}, got {}",
            if path.is_empty() { "/" } else { path },
            short(e),
            short(a)
        )),
    }
}

/// One expected key of an object against the actual object.
fn match_key(k: &str, ev: &Value, a: &Map<String, Value>, path: &str, diffs: &mut Vec<String>) {
    let p = format!("{path}/{k}");
    if k == "history_tail" {
        if let (Value::Array(tail), Some(Value::Array(h))) = (ev, a.get("history")) {
            if tail.len() > h.len() {
                diffs.push(format!(
                    "{p}: expected the last {} messages, the history has {}",
                    tail.len(),
                    h.len()
                ));
            } else {
                let actual_tail = Value::Array(h[h.len() - tail.len()..].to_vec());
                match_value(ev, &actual_tail, &p, diffs);
            }
            return;
        }
    }
    match a.get(k) {
        None => diffs.push(format!("{p}: expected {}, got nothing", short(ev))),
        Some(av) if is_payload(path, k) => {
            if !equal_whole(ev, av) {
                diffs.push(format!("{p}: expected {}, got {}", short(ev), short(av)));
            }
        }
        Some(av) => match_value(ev, av, &p, diffs),
    }
}

/// `java.util.Base64.getDecoder().decode`: the standard alphabet, padding
/// optional but correct when present, bits past the last whole byte
/// ignored; `None` where Java throws `IllegalArgumentException`.
fn java_base64_decode(s: &str) -> Option<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(u32::from(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        }))
    };
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len() / 4 * 3 + 2);
    let (mut bits, mut shift) = (0u32, 18i32);
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        i += 1;
        if c == b'=' {
            if shift == 18 {
                return None;
            }
            if shift == 6 {
                if i == b.len() || b[i] != b'=' {
                    return None;
                }
                i += 1;
            }
            break;
        }
        bits |= value(c)? << shift;
        shift -= 6;
        if shift < 0 {
            out.extend_from_slice(&[(bits >> 16) as u8, (bits >> 8) as u8, bits as u8]);
            bits = 0;
            shift = 18;
        }
    }
    match shift {
        6 => out.push((bits >> 16) as u8),
        0 => out.extend_from_slice(&[(bits >> 16) as u8, (bits >> 8) as u8]),
        12 => return None,
        _ => {}
    }
    (i == b.len()).then_some(out)
}

/// `java.util.Base64.getEncoder().encodeToString`.
fn java_base64_encode(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (k, &b)| n | u32::from(b) << (16 - 8 * k));
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(A[(n >> (18 - 6 * k)) as usize & 63] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Gemini thought signatures are bytes (`List<byte[]>` in the assistant
/// message's metadata); a vector writes them in base64. Each is read as
/// Java's decoder reads it and written back in canonical form, so that the
/// model prints what the real classes print; one Java cannot decode makes
/// the vector invalid.
///
/// ```
/// use toolcall_model::vectors::Vector;
/// let v = |sig: &str| Vector::parse(format!(r#"{{"format":"toolcall-model/1","name":"n","op":"gemini_request",
///     "input":{{"history":[{{"type":"assistant","text":null,"tool_calls":[{{"id":"1","name":"x","arguments":"{{}}"}}],
///     "metadata":{{"thoughtSignatures":["{sig}"]}}}}]}},"expect":{{"request":{{}}}}}}"#).as_bytes());
/// let run = v("c2l").unwrap().run().unwrap();
/// assert_eq!(run["request"]["contents"][0]["parts"][0]["thoughtSignature"], "c2k=");
/// assert!(v("sig-1").is_err());
/// ```
fn canonical_signatures(
    input: &Map<String, Value>,
) -> Result<Option<Map<String, Value>>, VectorError> {
    // Copy the input (which may hold a 100 MB text) only when it carries
    // signatures at all.
    let has = |m: &Value| {
        m.get("metadata")
            .and_then(|x| x.get("thoughtSignatures"))
            .is_some()
    };
    let any = ["history", "memory_start", "generations", "model"]
        .iter()
        .filter_map(|k| input.get(*k).and_then(Value::as_array))
        .flatten()
        .any(|m| has(m) || m.as_array().is_some_and(|gs| gs.iter().any(has)));
    if !any {
        return Ok(None);
    }
    fn fix(v: &mut Value, place: &str) -> Result<(), VectorError> {
        let Some(sigs) = v
            .get_mut("metadata")
            .and_then(|m| m.get_mut("thoughtSignatures"))
        else {
            return Ok(());
        };
        let Value::Array(sigs) = sigs else {
            return Err(err(
                format!("{place}/metadata/thoughtSignatures"),
                format!(
                    "must be an array of base64 strings (Gemini's List<byte[]>), not {}",
                    short(sigs)
                ),
            ));
        };
        for (k, sig) in sigs.iter_mut().enumerate() {
            let at = format!("{place}/metadata/thoughtSignatures/{k}");
            let Value::String(text) = sig else {
                return Err(err(&at, "a thought signature is a base64 string"));
            };
            let bytes = java_base64_decode(text).ok_or_else(|| {
                err(
                    &at,
                    "not base64 (java.util.Base64 refuses it): a thought signature is bytes",
                )
            })?;
            *text = java_base64_encode(&bytes);
        }
        Ok(())
    }
    let mut out = input.clone();
    for key in ["history", "memory_start", "generations"] {
        if let Some(Value::Array(list)) = out.get_mut(key) {
            for (i, m) in list.iter_mut().enumerate() {
                fix(m, &format!("/input/{key}/{i}"))?;
            }
        }
    }
    if let Some(Value::Array(rounds)) = out.get_mut("model") {
        for (r, round) in rounds.iter_mut().enumerate() {
            if let Value::Array(gs) = round {
                for (i, g) in gs.iter_mut().enumerate() {
                    fix(g, &format!("/input/model/{r}/{i}"))?;
                }
            }
        }
    }
    Ok(Some(out))
}
