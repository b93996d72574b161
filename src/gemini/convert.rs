//! `parseJsonToMap` and the conversion of tool arguments and responses to
//! the JSON objects Gemini receives, upstream and fixed.

use serde_json::{Map, Value};

use crate::json::jackson::{self, JValue};
use crate::model::behavior::{Fix, Fixes, SpringAi};
use crate::model::java::has_text;
use crate::model::java::{JavaException, RUNTIME_EXCEPTION};
use crate::model::shared_str::SharedStr;

/// The text a conversion reads: borrowed, or shared with the message it
/// came from. A payload that keeps the text whole (most conversions do)
/// shares a shared text instead of copying it.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// A text the payload copies if it keeps it.
    Str(&'a str),
    /// A text the payload shares if it keeps it.
    Shared(&'a SharedStr),
}

impl<'a> Source<'a> {
    /// The text.
    pub(crate) fn as_str(self) -> &'a str {
        match self {
            Source::Str(t) => t,
            Source::Shared(t) => t.as_str(),
        }
    }

    fn keep(self) -> Kept {
        match self {
            Source::Str(t) => Kept::Owned(t.to_owned()),
            Source::Shared(t) => Kept::Shared(t.clone()),
        }
    }
}

impl<'a> From<&'a str> for Source<'a> {
    fn from(t: &'a str) -> Source<'a> {
        Source::Str(t)
    }
}

impl<'a> From<&'a String> for Source<'a> {
    fn from(t: &'a String) -> Source<'a> {
        Source::Str(t)
    }
}

impl<'a> From<&'a SharedStr> for Source<'a> {
    fn from(t: &'a SharedStr) -> Source<'a> {
        Source::Shared(t)
    }
}

/// A text a payload keeps: shared where it is a message's text whole,
/// owned where the conversion wrote it.
#[derive(Debug, Clone)]
pub(super) enum Kept {
    Shared(SharedStr),
    Owned(String),
}

impl std::ops::Deref for Kept {
    type Target = str;

    fn deref(&self) -> &str {
        match self {
            Kept::Shared(t) => t,
            Kept::Owned(t) => t,
        }
    }
}

/// Kept texts are equal when their texts are, however kept.
impl PartialEq for Kept {
    fn eq(&self, other: &Kept) -> bool {
        **self == **other
    }
}

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
#[derive(Debug, Clone)]
pub struct Payload(Repr);

/// Two payloads are equal when they send the same object, whichever form
/// each was kept in: the same text may be kept unbuilt by one conversion
/// and built by another.
///
/// ```
/// use toolcall_model::{model::{Fix, Fixes}, gemini::convert_tool_response};
/// let kept = convert_tool_response("[1,2]", false, Fixes::upstream()).unwrap();
/// let built = convert_tool_response("[1,2]", false, Fixes::only(Fix::Pr6049StrictWrap)).unwrap();
/// assert_eq!(kept, built);
/// ```
impl PartialEq for Payload {
    fn eq(&self, other: &Payload) -> bool {
        self.0 == other.0 || self.to_value() == other.to_value()
    }
}

pub(super) const JSON_WS: [char; 4] = [' ', '\t', '\n', '\r'];

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Repr {
    /// A built object.
    Tree(Map<String, Value>),
    /// Text that is one whole strict JSON object with distinct keys
    /// ([`jackson::StrictShape`] `Object { plain: true }`), or such a
    /// value wrapped as `{"result": VALUE}`.
    Raw(Kept),
    /// A built object holding an infinite double (see [`Payload::has_non_finite`]).
    NonFinite(Map<String, Value>),
    /// `{KEY: TEXT}` for text that is not JSON, kept flat: wrapping is the
    /// fail-fast path and should cost one copy of the text, not a map.
    Wrapped(&'static str, Kept),
    /// Text upstream's lenient reader accepts with every object's names
    /// distinct and every number finite ([`jackson::lenient_shape`]): the
    /// object it reads, or its value under `result`. Kept as text because
    /// building the tree costs several times the check, and the tree, when
    /// asked for, is a function of the text (read under the limits it was
    /// checked with: Jackson 3's, or Jackson 2's for Spring AI 1.1).
    Lenient(Kept, jackson::ReadConstraints),
}

impl Payload {
    /// The object as a JSON value.
    pub fn to_value(&self) -> Value {
        match &self.0 {
            Repr::Tree(m) | Repr::NonFinite(m) => Value::Object(m.clone()),
            // The text was checked when it was kept, so it reads back;
            // serde_json keeps its numbers exact (past its nesting limit the
            // Jackson reader takes over).
            // A value 500 deep wrapped as `{"result": v}` is 501 deep: past
            // the strict reader's limit, yet whole.
            Repr::Raw(t) => kept_value(t).unwrap_or(Value::Null),
            Repr::Wrapped(k, t) => {
                let mut m = Map::with_capacity(1);
                m.insert((*k).to_owned(), Value::String(t.to_string()));
                Value::Object(m)
            }
            // Accepted when it was kept, so it reads back.
            Repr::Lenient(t, limits) => {
                match jackson::read_lenient_with(t, limits).map(|v| v.to_serde()) {
                    Ok(Value::Object(m)) => Value::Object(m),
                    Ok(other) => {
                        let mut m = Map::with_capacity(1);
                        m.insert("result".to_owned(), other);
                        Value::Object(m)
                    }
                    Err(_) => Value::Null,
                }
            }
        }
    }

    /// Whether [`Payload::to_value`] gives an object (it gives `null` for a
    /// kept text that does not read back), building no tree where the form
    /// tells: a built or wrapped object is one, and a lenient text reads
    /// back exactly when upstream's reader accepts it
    /// ([`jackson::check_lenient`]).
    ///
    /// ```
    /// use toolcall_model::gemini::convert_tool_response;
    /// let p = convert_tool_response("3.0 + 5.0 = 8.0", false, Default::default()).unwrap();
    /// assert!(p.is_object() && p.to_value().is_object());
    /// ```
    pub fn is_object(&self) -> bool {
        match &self.0 {
            Repr::Tree(_) | Repr::NonFinite(_) | Repr::Wrapped(..) => true,
            // serde_json's skipping reader lets through what its value
            // reader refuses (an unpaired surrogate escape): built.
            Repr::Raw(t) => kept_value(t).is_some_and(|v| v.is_object()),
            Repr::Lenient(t, limits) => jackson::lenient_shape_with(t, *limits).is_ok(),
        }
    }

    /// Writes the object as compact JSON without building a tree: a text
    /// kept as is is copied with its whitespace outside strings dropped; a
    /// built object is written from its map.
    ///
    /// ```
    /// use toolcall_model::{model::Fixes, gemini::convert_tool_response};
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
                serde_json::to_writer(&mut *w, &**t).map_err(std::io::Error::from)?;
                w.write_all(b"}")
            }
            // No repeated name, so the stream writes what the tree would.
            Repr::Lenient(t, limits) => {
                jackson::write_lenient_compact_with(t, "result", w, *limits)
            }
        }
    }

    /// Whether the object has no entries.
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
            // The reader skips only JSON whitespace before the value and
            // inside an empty object; what follows the value is ignored.
            Repr::Lenient(t, _) => t
                .trim_start_matches(JSON_WS)
                .strip_prefix('{')
                .is_some_and(|inner| inner.trim_start_matches(JSON_WS).starts_with('}')),
            Repr::Wrapped(..) => false,
        }
    }

    /// `{"result": TEXT}`: what every fixed conversion sends for a text it
    /// does not read.
    pub fn from_wrapped_text(text: &str) -> Payload {
        Payload(Repr::Wrapped("result", Kept::Owned(text.to_owned())))
    }

    pub(super) fn wrap(key: &str, v: Value) -> Payload {
        let mut m = Map::with_capacity(1);
        m.insert(key.to_owned(), v);
        Payload(Repr::Tree(m))
    }

    pub(super) fn from_jvalue(v: JValue, key: &str) -> Payload {
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
    pub(super) fn strict(
        source: Source<'_>,
        key: &'static str,
        objects_only: bool,
    ) -> Option<Payload> {
        let text = source.as_str();
        let trimmed = text.trim_matches(JSON_WS);
        match jackson::strict_shape(text) {
            jackson::StrictShape::Invalid => None,
            jackson::StrictShape::Object { plain: true } => Some(Payload(Repr::Raw(source.keep()))),
            jackson::StrictShape::Value { .. } if objects_only => None,
            jackson::StrictShape::Value { plain: true } => {
                let mut raw = String::with_capacity(trimmed.len() + key.len() + 5);
                raw.push_str("{\"");
                raw.push_str(key);
                raw.push_str("\":");
                raw.push_str(trimmed);
                raw.push('}');
                Some(Payload(Repr::Raw(Kept::Owned(raw))))
            }
            jackson::StrictShape::Object { plain: false }
            | jackson::StrictShape::Value { plain: false } => {
                Some(Payload::exact_tree(source, key))
            }
        }
    }

    /// Builds a strict value with exact numbers, as Jackson would shape it:
    /// serde_json with `arbitrary_precision` keeps number text, and with
    /// `preserve_order` a repeated key keeps its first place and its last
    /// value, as Jackson's `LinkedHashMap` does.
    pub(super) fn exact_tree(source: Source<'_>, key: &'static str) -> Payload {
        match exact_value(source.as_str()) {
            Some(Value::Object(m)) => Payload(Repr::Tree(m)),
            Some(other) => Payload::wrap(key, other),
            None => Payload(Repr::Wrapped(key, source.keep())),
        }
    }
}

/// A strict text as a `Value` with exact numbers. serde_json's own nesting
/// limit (128) is lifted: only texts the strict scanner accepts get here,
/// and those are at most [`jackson::MAX_TREE_DEPTH`] (500) deep, a depth
/// serde_json's recursion (and `Value`'s drop) handles on any thread.
pub(super) fn exact_value(text: &str) -> Option<Value> {
    if !jackson::is_strict_json(text) {
        return None;
    }
    kept_value(text)
}

/// A text the fixed conversion kept (a strict value, or one wrapped in a
/// one-key object) as a `Value` with exact numbers: read without the
/// strict reader's depth limit, which the wrapper may pass by one.
fn kept_value(text: &str) -> Option<Value> {
    use serde::Deserialize;
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let v = Value::deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(v)
}

pub(super) fn has_non_finite(v: &JValue) -> bool {
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

pub(super) fn parse_failure(text: &str) -> JavaException {
    JavaException {
        class: RUNTIME_EXCEPTION.into(),
        message: Some(format!("Failed to parse JSON: {text}").into()),
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
    parse_source(text.map(Source::Str))
}

/// [`parse_json_to_map`] of a borrowed or shared text.
fn parse_source(source: Option<Source<'_>>) -> Result<Payload, JavaException> {
    let Some(source) = source else {
        return Err(parse_failure("null"));
    };
    parse_source_with(source, jackson::ReadConstraints::default())
}

/// [`parse_source`] of a present text under Jackson's `limits`.
fn parse_source_with(
    source: Source<'_>,
    limits: jackson::ReadConstraints,
) -> Result<Payload, JavaException> {
    let text = source.as_str();
    match jackson::lenient_shape_with(text, limits) {
        Err(_) => Err(parse_failure(text)),
        Ok(jackson::LenientShape {
            repeated_name: false,
            non_finite: false,
        }) => Ok(Payload(Repr::Lenient(source.keep(), limits))),
        // A repeated name (the last value wins at the first place) or an
        // infinite number (docs/GEMINI.md rule 13) is built once, as
        // Jackson reads it.
        Ok(_) => match jackson::read_lenient_with(text, &limits) {
            Ok(v) => Ok(Payload::from_jvalue(v, "result")),
            Err(_) => Err(parse_failure(text)),
        },
    }
}

/// [`parse_source`] as Spring AI `version` reads: 2.0's Jackson 3, or 1.1's
/// Jackson 2, whose only difference in these rules is its limits (nesting
/// depth 1000, strings of 20,000,000 units; docs/JSON.md, A.13).
fn parse_source_at(
    source: Option<Source<'_>>,
    version: SpringAi,
) -> Result<Payload, JavaException> {
    if version.jackson() == 3 {
        return parse_source(source);
    }
    let Some(source) = source else {
        return Err(parse_failure("null"));
    };
    parse_source_with(source, jackson::ReadConstraints::jackson_2())
}

/// `parseJsonToMap` as spring-ai PR 6049 writes it: Spring's mapper with
/// `FAIL_ON_TRAILING_TOKENS`; one whole value as upstream builds it (an
/// object as is, anything else under `result`), and any text that read
/// refuses, or Java's `null`, verbatim under `result`. Never fails.
///
/// ```
/// use toolcall_model::gemini::pr_6049_parse_json_to_map;
/// use serde_json::json;
/// assert_eq!(pr_6049_parse_json_to_map(Some("3.0 + 5.0 = 8.0")).to_value(), json!({"result": "3.0 + 5.0 = 8.0"}));
/// assert_eq!(pr_6049_parse_json_to_map(Some("[1,2]")).to_value(), json!({"result": [1, 2]}));
/// assert_eq!(pr_6049_parse_json_to_map(None).to_value(), json!({"result": null}));
/// ```
pub fn pr_6049_parse_json_to_map(text: Option<&str>) -> Payload {
    pr_6049_source(text.map(Source::Str))
}

/// [`pr_6049_parse_json_to_map`] of a borrowed or shared text.
fn pr_6049_source(source: Option<Source<'_>>) -> Payload {
    let Some(source) = source else {
        return Payload::wrap("result", Value::Null);
    };
    match jackson::read_lenient_whole(source.as_str()) {
        Ok(v) => Payload::from_jvalue(v, "result"),
        Err(_) => Payload(Repr::Wrapped("result", source.keep())),
    }
}

/// Converts one tool response's data to `functionResponse.response` under
/// the behaviour set. `error` says a failure produced the response (read
/// only by `error-key`). The first switch that applies decides:
///
/// * `error-key` and `error`: one whole JSON object is sent as is, anything
///   else as `{"error": TEXT}`, unparsed.
/// * `strict-json-or-wrap`: one whole JSON value (only RFC whitespace
///   around it); an object as is, another value under `result`, and any
///   other text as `{"result": TEXT}`. Never fails.
/// * `pr-6049-strict-wrap`: [`pr_6049_parse_json_to_map`]. Never fails.
/// * `pr-6907-wrap-on-failure`: upstream [`parse_json_to_map`], and where
///   it fails the text as `{"result": TEXT}`. Never fails.
/// * otherwise upstream [`parse_json_to_map`].
///
/// ```
/// use toolcall_model::{model::{Fix, Fixes}, gemini::convert_tool_response};
/// use serde_json::json;
/// let f = Fixes::only(Fix::StrictJsonOrWrap);
/// assert_eq!(convert_tool_response("3.0 + 5.0 = 8.0", false, f).unwrap().to_value(),
///            json!({"result": "3.0 + 5.0 = 8.0"}));
/// let pr = Fixes::only(Fix::Pr6907WrapOnFailure);
/// assert_eq!(convert_tool_response("3.0 + 5.0 = 8.0", false, pr).unwrap().to_value(), json!({"result": 3.0}));
/// assert_eq!(convert_tool_response("", false, pr).unwrap().to_value(), json!({"result": ""}));
/// ```
pub fn convert_tool_response<'a>(
    text: impl Into<Source<'a>>,
    error: bool,
    fixes: Fixes,
) -> Result<Payload, JavaException> {
    convert_tool_response_at(text, error, fixes, SpringAi::default())
}

/// [`convert_tool_response`] as Spring AI `version` converts: upstream
/// reads with that version's Jackson ([`SpringAi::jackson`]).
///
/// ```
/// use toolcall_model::{gemini::convert_tool_response_at, model::SpringAi};
/// let deep = format!("{}{}", "[".repeat(501), "]".repeat(501));
/// let at = |v| convert_tool_response_at(deep.as_str(), false, Default::default(), v);
/// assert!(at(SpringAi::V2_0_1).is_err());
/// assert!(at(SpringAi::V1_1_2).is_ok());
/// ```
pub fn convert_tool_response_at<'a>(
    text: impl Into<Source<'a>>,
    error: bool,
    fixes: Fixes,
    version: SpringAi,
) -> Result<Payload, JavaException> {
    let source = text.into();
    if fixes.contains(Fix::ErrorKey) && error {
        return Ok(Payload::strict(source, "error", true)
            .unwrap_or_else(|| Payload(Repr::Wrapped("error", source.keep()))));
    }
    if fixes.contains(Fix::StrictJsonOrWrap) {
        return Ok(Payload::strict(source, "result", false)
            .unwrap_or_else(|| Payload(Repr::Wrapped("result", source.keep()))));
    }
    if fixes.contains(Fix::Pr6049StrictWrap) {
        return Ok(pr_6049_source(Some(source)));
    }
    match parse_source_at(Some(source), version) {
        Err(_) if fixes.contains(Fix::Pr6907WrapOnFailure) => {
            Ok(Payload(Repr::Wrapped("result", source.keep())))
        }
        other => other,
    }
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
/// use toolcall_model::{model::Fixes, gemini::write_tool_response};
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
    // PR 6907 reads as upstream does; only its failure differs.
    let upstream_read = !(fixes.contains(Fix::StrictJsonOrWrap)
        || fixes.contains(Fix::Pr6049StrictWrap)
        || fixes.contains(Fix::ErrorKey) && error);
    if upstream_read {
        match jackson::check_lenient(text) {
            Err(_) if fixes.contains(Fix::Pr6907WrapOnFailure) => {
                return Payload::from_wrapped_text(text).write_compact(w).map(Ok);
            }
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
/// `strict-json-or-wrap` null or blank arguments become `{}`, and that
/// `pr-6049-strict-wrap`, which changes `parseJsonToMap` itself, reads the
/// rest as [`pr_6049_parse_json_to_map`] (PR 6907 leaves arguments alone).
pub fn convert_arguments(arguments: Option<&str>, fixes: Fixes) -> Result<Payload, JavaException> {
    convert_arguments_of(arguments.map(Source::Str), fixes, SpringAi::default())
}

/// [`convert_arguments`] of a borrowed or shared text.
pub(super) fn convert_arguments_of(
    arguments: Option<Source<'_>>,
    fixes: Fixes,
    version: SpringAi,
) -> Result<Payload, JavaException> {
    if fixes.contains(Fix::StrictJsonOrWrap) && !arguments.is_some_and(|a| has_text(a.as_str())) {
        return Ok(Payload(Repr::Tree(Map::new())));
    }
    if fixes.contains(Fix::Pr6049StrictWrap) {
        return Ok(pr_6049_source(arguments));
    }
    parse_source_at(arguments, version)
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.
    #[test]
    fn example_is_empty() {
        use crate::gemini::convert_arguments;
        use crate::model::Fixes;
        assert!(convert_arguments(None, Fixes::all()).unwrap().is_empty());
    }

    #[test]
    fn example_from_wrapped_text() {
        let p = crate::gemini::Payload::from_wrapped_text("oops");
        assert_eq!(p.to_value(), serde_json::json!({"result": "oops"}));
    }

    #[test]
    fn example_convert_arguments() {
        use crate::gemini::convert_arguments;
        use crate::model::{Fix, Fixes};
        assert!(convert_arguments(Some("  "), Fixes::upstream()).is_err());
        assert!(
            convert_arguments(Some("  "), Fixes::all())
                .unwrap()
                .is_empty()
        );
        let pr = Fixes::only(Fix::Pr6049StrictWrap);
        assert_eq!(
            convert_arguments(Some("  "), pr).unwrap().to_value(),
            serde_json::json!({"result": "  "})
        );
    }

    #[test]
    fn example_as_str() {
        assert_eq!(crate::gemini::Source::from("x").as_str(), "x");
    }

    #[test]
    fn example_source() {
        use crate::gemini::{Source, convert_tool_response};
        use crate::model::SharedStr;
        let data = SharedStr::from("{\"a\":1}");
        assert_eq!(Source::from(&data).as_str(), "{\"a\":1}");
        assert_eq!(
            convert_tool_response(&data, false, Default::default()),
            convert_tool_response("{\"a\":1}", false, Default::default())
        );
    }
}
