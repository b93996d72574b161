//! The vector's fields read one by one: the limits and their builder calls,
//! the Spring AI version and the keys it knows, the tools and their
//! outcomes (Java throwables), the fixes, the messages and generations.

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::model::behavior::{Fix, Fixes, SpringAi};
use crate::model::java::{ClassTable, JavaException};
use crate::model::limits::{LimitsError, OnExceeded, ToolCallLimits};
use crate::model::message::{Generation, Message};
use crate::model::tools::{Outcome, Registered, ToolSpec};

use super::matcher::short;
use super::{VectorError, err};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ProcessorDoc {
    #[serde(default)]
    pub(super) kind: Option<String>,
    #[serde(default)]
    pub(super) always_throw: bool,
    #[serde(default)]
    pub(super) rethrow: Vec<String>,
}

pub(super) fn field<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    obj.get(key).filter(|v| !v.is_null())
}

pub(super) fn typed<T: serde::de::DeserializeOwned>(
    v: &Value,
    place: &str,
) -> Result<T, VectorError> {
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
pub(super) fn as_max(v: &Value, place: &str) -> Result<Option<i32>, VectorError> {
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
pub(super) fn as_override(v: &Value, place: &str) -> Result<i32, VectorError> {
    as_max(v, place)?.ok_or_else(|| err(place, "an override must be an integer"))
}

pub(super) fn names(v: &Value, place: &str) -> Result<Vec<String>, VectorError> {
    match v {
        Value::String(s) => Ok(vec![s.clone()]),
        _ => typed(v, place),
    }
}

/// One call on `DefaultToolCallingManager.Builder`'s limit half.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum BuilderCall {
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
    pub(super) fn apply(&self, l: ToolCallLimits) -> Result<ToolCallLimits, LimitsError> {
        match self {
            BuilderCall::MaxPerTool(Some(n)) => l.max_calls_per_tool(*n),
            BuilderCall::MaxPerTool(None) => Ok(l.unlimited_calls_per_tool()),
            BuilderCall::Override(name, n) => l.max_calls_per_tool_for(name, *n),
            BuilderCall::Exclude(name) => l.exclude_tool_from_limit(name),
            BuilderCall::MaxTotal(Some(n)) => l.max_total_tool_calls(*n),
            BuilderCall::MaxTotal(None) => Ok(l.unlimited_total_tool_calls()),
            BuilderCall::OnExceeded(b) => Ok(ToolCallLimits {
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
pub(super) fn builder_calls(m: &Map<String, Value>) -> Result<Vec<BuilderCall>, VectorError> {
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
                ));
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
                        format!(
                            "must be true (the call takes no argument: {{\"{k}\": true}}), not {}",
                            short(v)
                        ),
                    ));
                }
                (other, _) => {
                    return Err(err(
                        &place,
                        format!(
                            "unknown builder call '{other}' (known: max_calls_per_tool, exclude_from_limit, max_total_tool_calls, unlimited_calls_per_tool, unlimited_total_tool_calls)"
                        ),
                    ));
                }
            }
        }
    }
    Ok(calls)
}

/// The limits the builder calls give, or the first call the builder refused.
pub(super) fn limits_from(
    m: &Map<String, Value>,
) -> Result<Result<ToolCallLimits, LimitsError>, VectorError> {
    Ok(builder_calls(m)?
        .iter()
        .try_fold(ToolCallLimits::default(), |l, c| c.apply(l)))
}

/// `spring_ai`: absent or null is 2.0.1.
pub(super) fn spring_ai_from(v: Option<&Value>) -> Result<SpringAi, VectorError> {
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
pub(super) const KEYS_SINCE_2_0_1: &[(&str, &str)] = &[
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
pub(super) fn refuse_2_0_1_keys(
    m: &Map<String, Value>,
    version: SpringAi,
) -> Result<(), VectorError> {
    for (key, method) in KEYS_SINCE_2_0_1 {
        if field(m, key).is_some() {
            let what = if *key == "resolution_fallback" {
                "its manager always asks the resolver for a tool not among the request's"
            } else {
                "it has no tool call limits (ToolCallLimits came in 2.0.1)"
            };
            return Err(err(
                format!("/manager/{key}"),
                format!(
                    "Spring AI {version}'s DefaultToolCallingManager.Builder has no {method}: {what}"
                ),
            ));
        }
    }
    Ok(())
}

/// Each op and the `input` keys it reads.
pub(super) const OP_INPUT_KEYS: &[(&str, &[&str])] = &[
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
            "stream",
            "repeat_last",
            "loop",
        ],
    ),
];

pub(super) const MANAGER_KEYS: &[&str] = &[
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

pub(super) fn declare(
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
pub(super) fn throwable_from(
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
        if derived.as_ref().map(|m| m.as_deref()) != Some(message.as_deref()) {
            return Err(err(
                format!("{place}/message"),
                "a ToolExecutionException's message is its cause's message (super(cause.getMessage(), cause)): leave \"message\" out and give the \"cause\"",
            ));
        }
    }
    Ok(JavaException {
        class: class.into(),
        message: message.map(Into::into),
        cause,
    })
}

pub(super) fn outcome_from(
    v: &Value,
    place: &str,
    classes: &mut ClassTable,
) -> Result<Outcome, VectorError> {
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
            Value::String(s) => Ok(Outcome::Returns(Some(s.clone().into()))),
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
pub(super) fn predeclare(list: &[Value], classes: &mut ClassTable) {
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

pub(super) fn tools_from(
    v: &Value,
    classes: &mut ClassTable,
) -> Result<Vec<ToolSpec>, VectorError> {
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
        let registered = match t
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
                ));
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
            name: name.into(),
            return_direct,
            registered,
            outcomes,
        });
    }
    Ok(out)
}

pub(super) fn fixes_from(v: Option<&Value>) -> Result<Fixes, VectorError> {
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
pub(super) fn object<'a>(
    v: &'a Value,
    place: &str,
    what: &str,
) -> Result<&'a Map<String, Value>, VectorError> {
    v.as_object()
        .ok_or_else(|| err(place, format!("{what} is an object, not {}", short(v))))
}

/// A message or generation (at `place`) as an object whose tool calls and
/// tool responses are objects too, before serde reads it.
pub(super) fn message_shape<'a>(
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

pub(super) fn messages(v: Option<&Value>, place: &str) -> Result<Vec<Message>, VectorError> {
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

pub(super) fn generations(v: Option<&Value>, place: &str) -> Result<Vec<Generation>, VectorError> {
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
                            ));
                        }
                    }
                    typed(m, &at)
                })
                .collect()
        }
    }
}
