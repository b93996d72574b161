//! The Gemini conversion of `GoogleGenAiChatModel` (`createGeminiRequest`,
//! `messageToGeminiParts`, `parseJsonToMap`), its fixes, and a validator of
//! what the Gemini API accepts (`docs/GEMINI.md`).

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::json::jackson::{self, JValue};
use crate::model::behavior::Fixes;
use crate::model::java::{JavaException, ILLEGAL_ARGUMENT, RUNTIME_EXCEPTION};
use crate::model::limits::has_text;
use crate::model::message::Message;

/// A JSON object sent as `functionCall.args` or `functionResponse.response`.
///
/// An object the fixed conversion only had to check is kept as its text
/// (rebuilding it as a tree would cost several times the check); everything
/// else is a tree.
///
/// ```
/// let p = toolcall_model::gemini::convert_tool_response("42", false, Default::default()).unwrap();
/// assert_eq!(p.to_value(), serde_json::json!({"result": 42}));
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Payload(Repr);

const JSON_WS: [char; 4] = [' ', '\t', '\n', '\r'];

#[derive(Debug, Clone, PartialEq)]
enum Repr {
    /// A built object.
    Tree(Map<String, Value>),
    /// Text that is one whole strict JSON object with distinct keys
    /// ([`jackson::StrictShape`] `Object { plain: true }`), or such a
    /// value wrapped as `{"result": VALUE}`.
    Raw(String),
    /// A built object holding an infinite double (see [`Payload::has_non_finite`]).
    NonFinite(Map<String, Value>),
    /// `{KEY: TEXT}` for text that is not JSON, kept flat: wrapping is the
    /// fail-fast path and should cost one copy of the text, not a map.
    Wrapped(&'static str, String),
}

impl Payload {
    /// The object as a JSON value.
    pub fn to_value(&self) -> Value {
        match &self.0 {
            Repr::Tree(m) | Repr::NonFinite(m) => Value::Object(m.clone()),
            // The text was checked when it was kept, so it reads back;
            // serde_json keeps its numbers exact (past its nesting limit the
            // Jackson reader takes over).
            Repr::Raw(t) => exact_value(t).unwrap_or(Value::Null),
            Repr::Wrapped(k, t) => {
                let mut m = Map::with_capacity(1);
                m.insert((*k).to_owned(), Value::String(t.clone()));
                Value::Object(m)
            }
        }
    }

    /// Writes the object as compact JSON without building a tree: a text
    /// kept as is is copied with its whitespace outside strings dropped; a
    /// built object is written from its map.
    ///
    /// ```
    /// use toolcall_model::{model::behavior::Fixes, gemini::convert_tool_response};
    /// let p = convert_tool_response("{ \"a\" : [1, 2] }", false, Fixes::all()).unwrap();
    /// let mut out = Vec::new();
    /// p.write_compact(&mut out).unwrap();
    /// assert_eq!(out, br#"{"a":[1,2]}"#);
    /// ```
    pub fn write_compact<W: std::io::Write>(&self, w: &mut W) -> std::io::Result<()> {
        match &self.0 {
            Repr::Tree(m) | Repr::NonFinite(m) => {
                serde_json::to_writer(&mut *w, m).map_err(std::io::Error::from)
            }
            Repr::Raw(t) => {
                // Strict JSON: outside strings only structure, numbers and
                // literals, so dropping JSON whitespace there is exact.
                let b = t.as_bytes();
                let mut start = 0;
                let mut in_str = false;
                let mut esc = false;
                for (i, &c) in b.iter().enumerate() {
                    if in_str {
                        if esc {
                            esc = false;
                        } else if c == b'\\' {
                            esc = true;
                        } else if c == b'"' {
                            in_str = false;
                        }
                    } else if c == b'"' {
                        in_str = true;
                    } else if matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
                        w.write_all(&b[start..i])?;
                        start = i + 1;
                    }
                }
                w.write_all(&b[start..])
            }
            Repr::Wrapped(k, t) => {
                w.write_all(b"{\"")?;
                w.write_all(k.as_bytes())?;
                w.write_all(b"\":")?;
                serde_json::to_writer(&mut *w, t).map_err(std::io::Error::from)?;
                w.write_all(b"}")
            }
        }
    }

    /// Whether the object was passed on as text, unbuilt.
    ///
    /// ```
    /// use toolcall_model::{model::behavior::Fixes, gemini::convert_tool_response};
    /// assert!(convert_tool_response(r#"{"a":1}"#, false, Fixes::all()).unwrap().is_raw());
    /// assert!(!convert_tool_response(r#"{"a":1,"a":2}"#, false, Fixes::all()).unwrap().is_raw());
    /// ```
    pub fn is_raw(&self) -> bool {
        matches!(self.0, Repr::Raw(_))
    }

    /// Whether the object has no entries.
    ///
    /// ```
    /// use toolcall_model::{model::behavior::Fixes, gemini::convert_arguments};
    /// assert!(convert_arguments(None, Fixes::all()).unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        match &self.0 {
            Repr::Tree(m) | Repr::NonFinite(m) => m.is_empty(),
            // A checked object is empty when only JSON whitespace stands
            // between its braces.
            Repr::Raw(t) => t
                .trim_matches(JSON_WS)
                .strip_prefix('{')
                .and_then(|r| r.strip_suffix('}'))
                .is_some_and(|inner| inner.trim_matches(JSON_WS).is_empty()),
            Repr::Wrapped(..) => false,
        }
    }

    fn wrap(key: &str, v: Value) -> Payload {
        let mut m = Map::with_capacity(1);
        m.insert(key.to_owned(), v);
        Payload(Repr::Tree(m))
    }

    fn from_jvalue(v: JValue, key: &str) -> Payload {
        let non_finite = has_non_finite(&v);
        let p = match v.to_serde() {
            Value::Object(m) => Payload(Repr::Tree(m)),
            other => Payload::wrap(key, other),
        };
        match p.0 {
            Repr::Tree(m) if non_finite => Payload(Repr::NonFinite(m)),
            _ => p,
        }
    }

    /// Whether the value holds a number a protobuf `Struct` cannot carry:
    /// Jackson read it as an infinite double (docs/GEMINI.md rule 13). Its JSON
    /// form shows it as the string `"Infinity"`, as Jackson writes it.
    ///
    /// ```
    /// use toolcall_model::gemini::convert_tool_response;
    /// assert!(convert_tool_response("1e400", false, Default::default()).unwrap().has_non_finite());
    /// ```
    pub fn has_non_finite(&self) -> bool {
        matches!(self.0, Repr::NonFinite(_))
    }

    /// The fixed conversions' reading of `text` (`key` names a value that
    /// is not an object): a plain value is passed on as text, never built,
    /// so its numbers stay exact; one with repeated keys is built once, as
    /// Jackson reads it (the last value wins, at the key's first place).
    /// `None` when the text is not one whole strict JSON value.
    fn strict(text: &str, key: &'static str, objects_only: bool) -> Option<Payload> {
        let trimmed = text.trim_matches(JSON_WS);
        match jackson::strict_shape(text) {
            jackson::StrictShape::Invalid => None,
            jackson::StrictShape::Object { plain: true } => {
                Some(Payload(Repr::Raw(text.to_owned())))
            }
            jackson::StrictShape::Value { .. } if objects_only => None,
            jackson::StrictShape::Value { plain: true } => {
                let mut raw = String::with_capacity(trimmed.len() + key.len() + 5);
                raw.push_str("{\"");
                raw.push_str(key);
                raw.push_str("\":");
                raw.push_str(trimmed);
                raw.push('}');
                Some(Payload(Repr::Raw(raw)))
            }
            jackson::StrictShape::Object { plain: false }
            | jackson::StrictShape::Value { plain: false } => Some(Payload::exact_tree(text, key)),
        }
    }

    /// Builds a strict value with exact numbers, as Jackson would shape it:
    /// serde_json with `arbitrary_precision` keeps number text, and with
    /// `preserve_order` a repeated key keeps its first place and its last
    /// value, as Jackson's `LinkedHashMap` does.
    fn exact_tree(text: &str, key: &'static str) -> Payload {
        match exact_value(text) {
            Some(Value::Object(m)) => Payload(Repr::Tree(m)),
            Some(other) => Payload::wrap(key, other),
            None => Payload(Repr::Wrapped(key, text.to_owned())),
        }
    }
}

/// A strict text as a `Value` with exact numbers. serde_json's own nesting
/// limit (128) is lifted: only texts the strict scanner accepts get here,
/// and those are at most [`jackson::MAX_TREE_DEPTH`] (500) deep, a depth
/// serde_json's recursion (and `Value`'s drop) handles on any thread.
fn exact_value(text: &str) -> Option<Value> {
    use serde::Deserialize;
    if !jackson::is_strict_json(text) {
        return None;
    }
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let v = Value::deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(v)
}

fn has_non_finite(v: &JValue) -> bool {
    // An explicit stack: the value may be 500 deep.
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            JValue::Double(d) if !d.is_finite() => return true,
            JValue::Array(items) => stack.extend(items.iter()),
            JValue::Object(entries) => stack.extend(entries.iter().map(|(_, v)| v)),
            _ => {}
        }
    }
    false
}

/// One part of a content.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    /// A text part.
    Text(String),
    /// A function call, with its thought signature if one was restored.
    FunctionCall {
        /// The tool name.
        name: String,
        /// The parsed arguments.
        args: Payload,
        /// The thought signature (as stored in the message metadata).
        thought_signature: Option<Value>,
    },
    /// A function response. No call id is sent.
    FunctionResponse {
        /// The tool name.
        name: String,
        /// The converted response.
        response: Payload,
    },
}

impl Part {
    /// The REST JSON shape of the part.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        match self {
            Part::Text(t) => {
                m.insert("text".into(), Value::String(t.clone()));
            }
            Part::FunctionCall {
                name,
                args,
                thought_signature,
            } => {
                let mut fc = Map::new();
                fc.insert("name".into(), Value::String(name.clone()));
                fc.insert("args".into(), args.to_value());
                m.insert("functionCall".into(), Value::Object(fc));
                if let Some(sig) = thought_signature {
                    m.insert("thoughtSignature".into(), sig.clone());
                }
            }
            Part::FunctionResponse { name, response } => {
                let mut fr = Map::new();
                fr.insert("name".into(), Value::String(name.clone()));
                fr.insert("response".into(), response.to_value());
                m.insert("functionResponse".into(), Value::Object(fr));
            }
        }
        Value::Object(m)
    }
}

/// A content: a role (`user` or `model`) and its parts.
#[derive(Debug, Clone, PartialEq)]
pub struct Content {
    /// `user` or `model`.
    pub role: String,
    /// The parts, in order.
    pub parts: Vec<Part>,
}

impl Content {
    /// The REST JSON shape of the content.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("role".into(), Value::String(self.role.clone()));
        m.insert(
            "parts".into(),
            Value::Array(self.parts.iter().map(Part::to_value).collect()),
        );
        Value::Object(m)
    }

    fn calls(&self) -> usize {
        self.parts
            .iter()
            .filter(|p| matches!(p, Part::FunctionCall { .. }))
            .count()
    }

    fn responses(&self) -> usize {
        self.parts
            .iter()
            .filter(|p| matches!(p, Part::FunctionResponse { .. }))
            .count()
    }
}

/// A built request: the system instruction and the contents.
///
/// Contents are shared (`Arc`) so that the requests of a tool loop, each of
/// which extends the one before, hold each converted message once.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The system instruction (a `user` content), if any.
    pub system_instruction: Option<Arc<Content>>,
    /// The contents.
    pub contents: Vec<Arc<Content>>,
}

impl Request {
    /// The vector shape: `{"system_instruction": content or null, "contents": [...]}`.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert(
            "system_instruction".into(),
            self.system_instruction
                .as_ref()
                .map_or(Value::Null, |c| c.to_value()),
        );
        m.insert(
            "contents".into(),
            Value::Array(self.contents.iter().map(|c| c.to_value()).collect()),
        );
        Value::Object(m)
    }
}

fn parse_failure(text: &str) -> JavaException {
    JavaException {
        class: RUNTIME_EXCEPTION.to_owned(),
        message: Some(format!("Failed to parse JSON: {text}")),
        // Jackson's exception is the cause; nothing reads it.
        cause: None,
    }
}

/// `parseJsonToMap` upstream: Jackson's lenient read as `Object`; an object
/// as is, anything else under `result`; a failure becomes
/// `RuntimeException: Failed to parse JSON: TEXT`. Java's `null` text fails
/// too (`readValue(null)`), and prints as `null`.
///
/// ```
/// use toolcall_model::gemini::parse_json_to_map;
/// assert_eq!(parse_json_to_map(Some("3.0 + 5.0 = 8.0")).unwrap().to_value(), serde_json::json!({"result": 3.0}));
/// assert_eq!(parse_json_to_map(Some("oops")).unwrap_err().message.as_deref(), Some("Failed to parse JSON: oops"));
/// ```
pub fn parse_json_to_map(text: Option<&str>) -> Result<Payload, JavaException> {
    let Some(text) = text else {
        return Err(parse_failure("null"));
    };
    match jackson::read_lenient(text) {
        Ok(v) => Ok(Payload::from_jvalue(v, "result")),
        Err(_) => Err(parse_failure(text)),
    }
}

/// Converts one tool response's data to `functionResponse.response` under
/// the behaviour set. `error` says a failure produced the response (read
/// only by `error-key`).
///
/// * `error-key` and `error`: one whole JSON object is sent as is, anything
///   else as `{"error": TEXT}`, unparsed.
/// * `strict-json-or-wrap`: one whole JSON value (only RFC whitespace
///   around it); an object as is, another value under `result`, and any
///   other text as `{"result": TEXT}`. Never fails.
/// * otherwise upstream [`parse_json_to_map`].
///
/// ```
/// use toolcall_model::{model::behavior::{Fix, Fixes}, gemini::convert_tool_response};
/// let f = Fixes::only(Fix::StrictJsonOrWrap);
/// assert_eq!(convert_tool_response("3.0 + 5.0 = 8.0", false, f).unwrap().to_value(),
///            serde_json::json!({"result": "3.0 + 5.0 = 8.0"}));
/// ```
pub fn convert_tool_response(
    text: &str,
    error: bool,
    fixes: Fixes,
) -> Result<Payload, JavaException> {
    if fixes.error_key && error {
        return Ok(Payload::strict(text, "error", true)
            .unwrap_or_else(|| Payload(Repr::Wrapped("error", text.to_owned()))));
    }
    if fixes.strict_json_or_wrap {
        return Ok(Payload::strict(text, "result", false)
            .unwrap_or_else(|| Payload(Repr::Wrapped("result", text.to_owned()))));
    }
    parse_json_to_map(Some(text))
}

/// [`convert_tool_response`] written straight to `w` as compact JSON,
/// byte for byte what [`Payload::write_compact`] writes for its result, or
/// the conversion's failure (nothing written then). The upstream
/// conversion builds no tree: one lenient read checks the text and whether
/// some object repeats a name, a second writes the value as it reads it;
/// only a text with a repeated name is built (Jackson keeps the last value
/// at the first place, which a stream cannot know in advance).
///
/// ```
/// use toolcall_model::{model::behavior::Fixes, gemini::write_tool_response};
/// let mut out = Vec::new();
/// write_tool_response("3.0 + 5.0 = 8.0", false, Fixes::upstream(), &mut out).unwrap().unwrap();
/// assert_eq!(out, br#"{"result":3.0}"#);
/// out.clear();
/// write_tool_response(r#"{"a":1,"b":2,"a":3}"#, false, Fixes::upstream(), &mut out).unwrap().unwrap();
/// assert_eq!(out, br#"{"a":3,"b":2}"#);
/// let e = write_tool_response("oops", false, Fixes::upstream(), &mut Vec::new()).unwrap().unwrap_err();
/// assert_eq!(e.message.as_deref(), Some("Failed to parse JSON: oops"));
/// ```
pub fn write_tool_response<W: std::io::Write>(
    text: &str,
    error: bool,
    fixes: Fixes,
    w: &mut W,
) -> std::io::Result<Result<(), JavaException>> {
    let upstream = !(fixes.strict_json_or_wrap || fixes.error_key && error);
    if upstream {
        match jackson::check_lenient(text) {
            Err(_) => return Ok(Err(parse_failure(text))),
            Ok(true) => return jackson::write_lenient_compact(text, "result", w).map(Ok),
            // A repeated name: built once, as Jackson reads it.
            Ok(false) => {}
        }
    }
    match convert_tool_response(text, error, fixes) {
        Ok(p) => p.write_compact(w).map(Ok),
        Err(e) => Ok(Err(e)),
    }
}

/// Converts function-call arguments: upstream rules, except that with
/// `strict-json-or-wrap` null or blank arguments become `{}`.
///
/// ```
/// use toolcall_model::{model::behavior::Fixes, gemini::convert_arguments};
/// assert!(convert_arguments(Some("  "), Fixes::upstream()).is_err());
/// assert!(convert_arguments(Some("  "), Fixes::all()).unwrap().is_empty());
/// ```
pub fn convert_arguments(arguments: Option<&str>, fixes: Fixes) -> Result<Payload, JavaException> {
    if fixes.strict_json_or_wrap && !arguments.is_some_and(has_text) {
        return Ok(Payload(Repr::Tree(Map::new())));
    }
    parse_json_to_map(arguments)
}

/// `messageToGeminiParts`: the parts of one message.
pub fn message_parts(message: &Message, fixes: Fixes) -> Result<Vec<Part>, JavaException> {
    Ok(match message {
        Message::System { text } | Message::User { text } => {
            text.iter().map(|t| Part::Text(t.clone())).collect()
        }
        Message::Assistant {
            text,
            tool_calls,
            metadata,
        } => {
            let mut parts = Vec::with_capacity(tool_calls.len() + 1);
            if text.as_deref().is_some_and(has_text) {
                parts.push(Part::Text(text.clone().unwrap_or_default()));
            }
            let mut signatures = match metadata.get("thoughtSignatures") {
                Some(Value::Array(list)) => list.iter(),
                _ => [].iter(),
            };
            for call in tool_calls {
                parts.push(Part::FunctionCall {
                    name: call.name.clone(),
                    args: convert_arguments(call.arguments.as_deref(), fixes)?,
                    thought_signature: signatures.next().cloned(),
                });
            }
            parts
        }
        Message::Tool { responses } => responses
            .iter()
            .map(|r| {
                Ok(Part::FunctionResponse {
                    name: r.name.clone(),
                    response: convert_tool_response(&r.data, r.error, fixes)?,
                })
            })
            .collect::<Result<_, JavaException>>()?,
    })
}

/// `createGeminiRequest`: system messages (wherever they stand) become the
/// system instruction, checked first (more than one fails); every other
/// message becomes one content in order: user and tool messages `user`,
/// assistant messages `model`.
///
/// ```
/// use toolcall_model::{gemini::build_request, model::message::Message};
/// let r = build_request(&[Message::user("hi")], Default::default()).unwrap();
/// assert_eq!(r.contents[0].role, "user");
/// let two = [Message::System { text: Some("a".into()) }, Message::System { text: Some("b".into()) }];
/// assert_eq!(build_request(&two, Default::default()).unwrap_err().message.as_deref(),
///            Some("Only one system message is allowed in the prompt"));
/// ```
pub fn build_request(messages: &[Message], fixes: Fixes) -> Result<Request, JavaException> {
    let mut system = None;
    for m in messages {
        if let Message::System { .. } = m {
            if system.is_some() {
                return Err(only_one_system());
            }
            system = Some(Arc::new(Content {
                role: "user".into(),
                parts: message_parts(m, fixes)?,
            }));
        }
    }
    let mut contents = Vec::with_capacity(messages.len());
    for m in messages {
        if let Some(c) = content_of(m, fixes)? {
            contents.push(Arc::new(c));
        }
    }
    Ok(Request {
        system_instruction: system,
        contents,
    })
}

fn only_one_system() -> JavaException {
    JavaException::new(
        ILLEGAL_ARGUMENT,
        Some("Only one system message is allowed in the prompt"),
    )
}

/// The content of a non-system message (`None` for a system message).
fn content_of(m: &Message, fixes: Fixes) -> Result<Option<Content>, JavaException> {
    let role = match m {
        Message::System { .. } => return Ok(None),
        Message::Assistant { .. } => "model",
        Message::User { .. } | Message::Tool { .. } => "user",
    };
    Ok(Some(Content {
        role: role.into(),
        parts: message_parts(m, fixes)?,
    }))
}

/// Builds the requests of a conversation that only grows at its end, as a
/// tool loop's does: each message is converted once, and each request
/// shares the contents of the one before.
///
/// [`IncrementalRequests::build`] gives exactly what [`build_request`]
/// gives, provided the messages seen by earlier calls are unchanged (the
/// caller's promise; the tool loop keeps it by only appending).
///
/// ```
/// use toolcall_model::{gemini::{build_request, IncrementalRequests}, model::message::Message};
/// let mut inc = IncrementalRequests::default();
/// let mut msgs = vec![Message::user("a")];
/// inc.build(&msgs, Default::default()).unwrap();
/// msgs.push(Message::user("b"));
/// assert_eq!(inc.build(&msgs, Default::default()).unwrap(), build_request(&msgs, Default::default()).unwrap());
/// ```
#[derive(Debug, Clone, Default)]
pub struct IncrementalRequests {
    system: Option<Arc<Content>>,
    contents: Vec<Arc<Content>>,
    seen: usize,
}

impl IncrementalRequests {
    /// The request for `messages`, converting only the messages added since
    /// the last call.
    pub fn build(&mut self, messages: &[Message], fixes: Fixes) -> Result<Request, JavaException> {
        let fresh = messages.get(self.seen..).unwrap_or_default();
        if self.seen == 0
            || self.seen > messages.len()
            || fresh.iter().any(|m| matches!(m, Message::System { .. }))
        {
            // A system message changes the instruction and is checked before
            // anything else converts: start over.
            let r = build_request(messages, fixes)?;
            self.system = r.system_instruction.clone();
            self.contents = r.contents.clone();
            self.seen = messages.len();
            return Ok(r);
        }
        let mut added = Vec::with_capacity(fresh.len());
        for m in fresh {
            if let Some(c) = content_of(m, fixes)? {
                added.push(Arc::new(c));
            }
        }
        self.contents.extend(added);
        self.seen = messages.len();
        Ok(Request {
            system_instruction: self.system.clone(),
            contents: self.contents.clone(),
        })
    }
}

/// Which optional rules the validator applies (docs/GEMINI.md: the unconfirmed
/// and model-specific ones are off by default).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ValidatorOptions {
    /// Rule 12: Gemini 3 thought signatures on the first call of each step.
    pub thought_signatures: bool,
    /// Rule 14: consecutive same-role contents rejected (older models).
    pub alternate_roles: bool,
}

/// Rule 5's text.
pub const CALL_PLACEMENT: &str = "Please ensure that function call turn comes immediately after a user turn or after a function response turn.";
/// Rule 6's text.
pub const RESPONSE_PLACEMENT: &str =
    "Please ensure that function response turn comes immediately after a function call turn.";
/// Rule 7's text.
pub const COUNTS_MATCH: &str = "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.";
/// Rule 13, in this project's words: the API's own text is not known.
pub const NON_FINITE: &str = "A function payload holds an infinite or NaN number, which a protobuf Struct cannot represent (GEMINI.md rule 13; the API's own text is not known)";
/// Rule 8's text.
pub const NO_MIXING: &str = "Please ensure that function call turn contains at least one function_call part which can not be mixed with function_response parts.";

/// The Gemini API's verdict on a request: `Ok` or its rejection text.
///
/// Checks in content order: parts present (2), role (4), non-empty text (3),
/// response names (10), payload numbers (13), no mixing (8), call placement
/// (5), response placement (6), counts (7); then the optional rules 12 and
/// 14. Rule 9 (response is an object) holds by construction of [`Payload`].
///
/// ```
/// use toolcall_model::{gemini::{build_request, validate, ValidatorOptions}, model::message::{Message, ToolCall}};
/// let dangling = [Message::user("a"), Message::assistant(None, vec![ToolCall::new("1", "x", "{}")]), Message::user("b")];
/// let r = build_request(&dangling, Default::default()).unwrap();
/// assert!(validate(&r, ValidatorOptions::default()).unwrap_err().starts_with("Please ensure that the number"));
/// ```
pub fn validate(request: &Request, opts: ValidatorOptions) -> Result<(), String> {
    validate_from(request, 0, opts)
}

/// [`validate`] for a request whose contents before `from` were already
/// accepted as part of an earlier request that this one extends: each
/// content rule looks only at a content and its neighbours, so only the
/// contents from `from` on are checked (`from` must include the earlier
/// request's last content, whose successor is new). The optional rules,
/// which look across the turn, always check everything.
///
/// ```
/// use toolcall_model::{gemini::{build_request, validate, validate_from}, model::message::Message};
/// let r = build_request(&[Message::user("a"), Message::user("b")], Default::default()).unwrap();
/// assert_eq!(validate_from(&r, 1, Default::default()), validate(&r, Default::default()));
/// ```
pub fn validate_from(request: &Request, from: usize, opts: ValidatorOptions) -> Result<(), String> {
    let contents = &request.contents;
    if contents.is_empty() {
        return Err("* GenerateContentRequest.contents: contents is not specified".into());
    }
    for (i, c) in contents.iter().enumerate().skip(from) {
        if c.parts.is_empty() {
            return Err(format!(
                "* GenerateContentRequest.contents[{i}].parts: contents.parts must not be empty."
            ));
        }
        if c.role != "user" && c.role != "model" {
            return Err("Please use a valid role: user, model.".into());
        }
        for (j, p) in c.parts.iter().enumerate() {
            match p {
                Part::Text(t) if t.is_empty() => {
                    return Err("Unable to submit request because it has an empty text parameter. Add a value to the parameter and try again.".into());
                }
                Part::FunctionResponse { name, .. } if name.is_empty() => {
                    return Err(format!("* GenerateContentRequest.contents[{i}].parts[{j}].function_response.name: Name cannot be empty."));
                }
                Part::FunctionResponse { response: p, .. } | Part::FunctionCall { args: p, .. }
                    if p.has_non_finite() =>
                {
                    return Err(format!("{NON_FINITE} (contents[{i}].parts[{j}])"));
                }
                _ => {}
            }
        }
        let calls = c.calls();
        let responses = c.responses();
        if calls > 0 && responses > 0 {
            return Err(NO_MIXING.into());
        }
        let prev = i.checked_sub(1).map(|p| &contents[p]);
        if calls > 0 {
            let ok = match prev {
                Some(p) if p.responses() > 0 => true,
                Some(p) => p.role == "user" && p.calls() == 0,
                None => false,
            };
            if !ok || c.role != "model" {
                return Err(CALL_PLACEMENT.into());
            }
        }
        if responses > 0 && prev.is_none_or(|p| p.calls() == 0) {
            return Err(RESPONSE_PLACEMENT.into());
        }
        if calls > 0 {
            let answered = contents.get(i + 1).map_or(0, |c| c.responses());
            if answered != calls {
                return Err(COUNTS_MATCH.into());
            }
        }
    }
    if opts.alternate_roles && contents.windows(2).any(|w| w[0].role == w[1].role) {
        return Err(
            "Please ensure that multiturn requests alternate between user and model.".into(),
        );
    }
    if opts.thought_signatures {
        check_signatures(contents)?;
    }
    Ok(())
}

/// Rule 12: in the current turn (from the last user content without function
/// responses), the first function-call part of each model step carries a
/// thought signature.
fn check_signatures(contents: &[Arc<Content>]) -> Result<(), String> {
    let start = contents
        .iter()
        .rposition(|c| c.role == "user" && c.responses() == 0)
        .unwrap_or(0);
    for c in &contents[start..] {
        let first_call = c.parts.iter().find_map(|p| match p {
            Part::FunctionCall {
                thought_signature, ..
            } => Some(thought_signature.is_some()),
            _ => None,
        });
        if first_call == Some(false) {
            return Err("Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:...` , position 1. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.".into());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::message::{ToolCall, ToolResponse};

    fn call(id: &str) -> ToolCall {
        ToolCall::new(id, "x", "{}")
    }

    #[test]
    fn validating_from_the_last_accepted_content_equals_a_full_validation() {
        let user = Message::user("u");
        let asst =
            |n: usize| Message::assistant(None, (0..n).map(|i| call(&i.to_string())).collect());
        let tool = |n: usize| Message::Tool {
            responses: (0..n)
                .map(|i| ToolResponse::new(&i.to_string(), "x", "1"))
                .collect(),
        };
        // An accepted prefix ending in a call content, then what follows it.
        let prefixes = [vec![user.clone()], vec![user.clone(), asst(2)]];
        let suffixes = [
            vec![tool(2)],
            vec![tool(1)],
            vec![Message::user("v")],
            vec![asst(1), tool(1)],
            vec![Message::user("")],
        ];
        let mut checked = 0;
        for p in &prefixes {
            let prev = build_request(p, Fixes::all()).unwrap();
            let prev_ok = validate(&prev, ValidatorOptions::default()).is_ok();
            for sfx in &suffixes {
                let mut all = p.clone();
                all.extend(sfx.iter().cloned());
                let r = build_request(&all, Fixes::all()).unwrap();
                let full = validate(&r, ValidatorOptions::default());
                if prev_ok {
                    let from = prev.contents.len() - 1;
                    assert_eq!(
                        validate_from(&r, from, ValidatorOptions::default()),
                        full,
                        "{all:?}"
                    );
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, suffixes.len());
        // The last accepted content must be checked again: [user, call×2]
        // followed by one response breaks the count rule at the call.
        let r = build_request(&[user, asst(2), tool(1)], Fixes::all()).unwrap();
        assert_eq!(
            validate_from(&r, 1, ValidatorOptions::default()),
            Err(COUNTS_MATCH.into())
        );
        assert_eq!(validate_from(&r, 2, ValidatorOptions::default()), Ok(()));
    }

    #[test]
    fn deep_values_convert_exactly_on_a_small_stack() {
        // 2 MiB is a spawned thread's default stack, test threads included.
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(|| {
                for depth in [127, 128, 129, 499] {
                    let arr = format!(
                        "{}0.11623512015512211{}",
                        "[".repeat(depth),
                        "]".repeat(depth)
                    );
                    // Repeated keys make the conversion build the value.
                    let obj = format!(
                        "{}{{\"k\":0.11623512015512211,\"j\":1.10,\"k\":0.11623512015512211}}{}",
                        "{\"a\":[".repeat(depth / 2),
                        "]}".repeat(depth / 2)
                    );
                    for text in [arr, obj] {
                        let p = convert_tool_response(&text, false, Fixes::all()).unwrap();
                        let printed = p.to_value().to_string();
                        assert!(
                            printed.contains("0.11623512015512211"),
                            "{depth}: {printed:.80}"
                        );
                        assert!(
                            !printed.contains("\"result\":\""),
                            "{depth}: wrapped as text"
                        );
                    }
                }
            })
            .unwrap()
            .join()
            .unwrap();
    }
}
