//! Agreement with the real Spring AI 2.0.1 classes.
//!
//! The Java runner in `conformance/java` executes a vector on the real
//! `DefaultToolCallingManager`, `GoogleGenAiChatModel` request building and
//! `ChatClient` with `ToolCallingAdvisor` and `MessageChatMemoryAdvisor`, and
//! prints one JSON line per vector (see [`JavaLine`]). This module judges
//! such a line against the model: the model's result, seen as Java can see
//! it ([`java_view`]), must equal the Java result, and the Java result must
//! match the vector's `expect`.
//!
//! What is compared: every key both sides print (the result or error of
//! `execute_tool_calls`, the request or error of `gemini_request`, the
//! response or error of `convert_tool_response`, the outcome, requests and
//! memory of `tool_loop`, and the tool invocations), at every depth, numbers
//! by value and objects in any key order. What is left out: the Gemini
//! validator's `api` verdicts (the real classes do not call the API) and the
//! model's `"error": true` mark on tool responses (Spring's `ToolResponse`
//! has no such field; the runner passes it on as the fix library's mark).
//! Vectors with fixes run with the fix library (`conformance/fixes`)
//! installed, and once more without their fixes; a vector the runner
//! cannot express is counted apart, with its reason, never as passed.
//!
//! The module is pure: the drivers (`toolcall-model conform`, the test
//! `tests/java_diff.rs`) run the processes and read the files.

use serde_json::{Map, Value};

use crate::model::text::cut_bytes;
use crate::vectors::{Vector, match_value, numbers_equal};

/// What the Java runner printed for one vector.
#[derive(Debug, Clone, PartialEq)]
pub enum JavaLine {
    /// The op ran on the real classes; its result in the `run` shape.
    Result {
        /// The vector's path.
        path: String,
        /// What the real classes produced.
        result: Value,
        /// For a vector with fixes, what the real classes produced without
        /// them (`None` when the runner could not run it so).
        upstream: Option<Value>,
    },
    /// The real classes cannot express the vector.
    OutOfScope {
        /// The vector's path.
        path: String,
        /// Why.
        reason: String,
    },
    /// The runner refused the vector as invalid.
    Fault {
        /// The vector's path.
        path: String,
        /// Why.
        reason: String,
    },
}

impl JavaLine {
    /// Reads one line of the runner's output.
    ///
    /// ```
    /// use toolcall_model::vectors::conformance::JavaLine;
    /// let l = JavaLine::parse(r#"{"path":"a.json","status":"out_of_scope","reason":"fixes"}"#).unwrap();
    /// assert_eq!(l.path(), "a.json");
    /// assert!(JavaLine::parse("{}").is_err());
    /// ```
    pub fn parse(line: &str) -> Result<JavaLine, String> {
        // The runner's output nests as deep as a payload Jackson accepted
        // (its limit is 500), past serde_json's default limit of 128; its
        // reader and the walks below recurse, so a deeper line is refused
        // before it is read.
        if let Some(column) = deeper_than(line, MAX_RESULT_DEPTH) {
            return Err(format!(
                "nests deeper than {MAX_RESULT_DEPTH} levels (column {column}): no runner result does"
            ));
        }
        let mut de = serde_json::Deserializer::from_str(line);
        de.disable_recursion_limit();
        let v: Value =
            serde::Deserialize::deserialize(&mut de).map_err(|e| format!("not JSON: {e}"))?;
        let path = v
            .get("path")
            .and_then(Value::as_str)
            .ok_or("no \"path\"")?
            .to_owned();
        let reason = || {
            v.get("reason")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
        match v.get("status").and_then(Value::as_str) {
            Some("result") => Ok(JavaLine::Result {
                path,
                result: v.get("result").cloned().ok_or("no \"result\"")?,
                upstream: v.get("upstream").filter(|u| !u.is_null()).cloned(),
            }),
            Some("out_of_scope") => Ok(JavaLine::OutOfScope {
                path,
                reason: reason(),
            }),
            Some("fault") => Ok(JavaLine::Fault {
                path,
                reason: reason(),
            }),
            other => Err(format!("unknown status {other:?}")),
        }
    }

    /// The vector's path.
    ///
    /// ```
    /// use toolcall_model::vectors::conformance::JavaLine;
    /// let l = JavaLine::Fault { path: "v.json".into(), reason: "bad".into() };
    /// assert_eq!(l.path(), "v.json");
    /// ```
    pub fn path(&self) -> &str {
        match self {
            JavaLine::Result { path, .. }
            | JavaLine::OutOfScope { path, .. }
            | JavaLine::Fault { path, .. } => path,
        }
    }
}

/// The deepest runner output line read: a payload at the deepest Jackson
/// depth limit (Jackson 2's 1000, Spring AI 1.1's) inside the result's own
/// nesting (request, content, part, response), with room.
pub(crate) const MAX_RESULT_DEPTH: usize = crate::json::jackson::MAX_LENIENT_TREE_DEPTH + 64;

/// The 1-based column (in characters) where `text`'s arrays and objects
/// first nest past `limit`, if they do; strings are skipped. One pass, no
/// recursion.
pub(crate) fn deeper_than(text: &str, limit: usize) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, c) in text.chars().enumerate() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '[' | '{' => {
                depth += 1;
                if depth > limit {
                    return Some(i + 1);
                }
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// The judgement on one vector.
#[derive(Debug, Clone, PartialEq)]
pub enum Comparison {
    /// Both sides produced the same result, equal on `compared` values
    /// (leaves of the result, the tool invocations left out), or failed the
    /// same way while running it (`compared` 1: the message).
    Agree {
        /// How many values were compared.
        compared: usize,
        /// For a vector with fixes: whether its `expect` also holds on the
        /// real classes without the fixes.
        holds_upstream: Option<bool>,
    },
    /// They differ; one line per difference.
    Disagree(Vec<String>),
    /// The vector has no Java counterpart.
    OutOfScope(String),
    /// Both sides refused the vector as invalid before running it: nothing
    /// was compared, so it is neither passed nor failed.
    RefusedByBoth,
}

/// The model's result as the real classes can show it: `api` verdicts and
/// the `error` marks of tool responses removed, at every depth.
///
/// ```
/// use serde_json::json;
/// use toolcall_model::vectors::conformance::java_view;
/// let rust = json!({"api": {"accepted": true}, "result": {"history": [
///     {"type": "tool", "responses": [{"id": "1", "name": "x", "data": "d", "error": true}]}]}});
/// assert_eq!(java_view(&rust), json!({"result": {"history": [
///     {"type": "tool", "responses": [{"id": "1", "name": "x", "data": "d"}]}]}}));
/// ```
pub fn java_view(v: &Value) -> Value {
    let Value::Object(top) = v else {
        return v.clone();
    };
    Value::Object(
        top.iter()
            .filter(|(k, _)| *k != "api")
            .map(|(k, v)| {
                let v = match (k.as_str(), v) {
                    ("memory", Value::Object(m)) => Value::Object(
                        m.iter()
                            .filter(|(k, _)| *k != "api")
                            .map(|(k, v)| (k.clone(), unmark(v, k)))
                            .collect(),
                    ),
                    _ => unmark(v, k),
                };
                (k.clone(), v)
            })
            .collect(),
    )
}

/// Removes the `error` mark of tool responses: the elements of a
/// `responses` or `partialToolResponses` array. Gemini parts and the
/// converted `response` are payloads and are left whole.
fn unmark(v: &Value, key: &str) -> Value {
    match v {
        _ if matches!(key, "functionCall" | "functionResponse" | "response") => v.clone(),
        Value::Array(a) if key == "responses" || key == "partialToolResponses" => Value::Array(
            a.iter()
                .map(|r| match r {
                    Value::Object(m) => Value::Object(
                        m.iter()
                            .filter(|(k, v)| !(*k == "error" && v.is_boolean()))
                            .map(|(k, v)| (k.clone(), unmark(v, k)))
                            .collect(),
                    ),
                    other => unmark(other, ""),
                })
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|x| unmark(x, "")).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), unmark(v, k)))
                .collect::<Map<String, Value>>(),
        ),
        other => other.clone(),
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    match cut_bytes(&s, 200) {
        Some(head) => format!("{head}… ({} bytes)", s.len()),
        None => s,
    }
}

/// Every difference between two results, as `pointer: left ≠ right` lines:
/// the same keys at every depth (in any order), the same array lengths,
/// numbers as Java tells them apart (by value, integer or decimal, the sign
/// of a decimal zero).
///
/// ```
/// use serde_json::json;
/// use toolcall_model::vectors::conformance::differences;
/// assert!(differences(&json!({"a": [1.50, "x"]}), &json!({"a": [1.5, "x"]})).is_empty());
/// assert_eq!(differences(&json!({"a": [1.0]}), &json!({"a": [1]})).len(), 1);
/// assert_eq!(differences(&json!({"a": 1}), &json!({"b": 1})).len(), 2);
/// ```
pub fn differences(left: &Value, right: &Value) -> Vec<String> {
    let mut out = Vec::new();
    diff_into(left, right, "", &mut out);
    out
}

fn diff_into(l: &Value, r: &Value, path: &str, out: &mut Vec<String>) {
    match (l, r) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, av) in a {
                let p = format!("{path}/{k}");
                match b.get(k) {
                    Some(bv) => diff_into(av, bv, &p, out),
                    None => out.push(format!("{p}: model has {}, Java has nothing", short(av))),
                }
            }
            for (k, bv) in b {
                if !a.contains_key(k) {
                    out.push(format!(
                        "{path}/{k}: model has nothing, Java has {}",
                        short(bv)
                    ));
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                diff_into(x, y, &format!("{path}/{i}"), out);
            }
        }
        (Value::Number(x), Value::Number(y)) if same_as_java_prints(x, y) => {}
        (x, y) if x == y => {}
        (x, y) => out.push(format!(
            "{}: model {} ≠ Java {}",
            if path.is_empty() { "/" } else { path },
            short(x),
            short(y)
        )),
    }
}

/// Whether two numbers are the same as Java tells numbers apart: the same
/// value, both integers or both decimals (an `Integer` `1` is not a `Double`
/// `1.0`), and a decimal zero with the same sign (`-0.0` is not `0.0`).
///
/// ```
/// use toolcall_model::vectors::conformance::differences;
/// use serde_json::json;
/// assert!(differences(&json!(1.50), &json!(1.5)).is_empty());
/// assert!(!differences(&json!(1), &json!(1.0)).is_empty());
/// assert!(!differences(&json!(-0.0), &json!(0.0)).is_empty());
/// ```
fn same_as_java_prints(a: &serde_json::Number, b: &serde_json::Number) -> bool {
    let (x, y) = (a.to_string(), b.to_string());
    let decimal = |t: &str| t.contains(['.', 'e', 'E']);
    let decimal_zero = decimal(&x) && numbers_equal(a, &serde_json::Number::from(0));
    numbers_equal(a, b)
        && decimal(&x) == decimal(&y)
        && !(decimal_zero && x.starts_with('-') != y.starts_with('-'))
}

/// Judges one vector: `bytes` is the vector file, `java` what the runner
/// printed for it.
///
/// When both run it, the model's [`java_view`] must equal the Java result,
/// the Java result must match the vector's `expect` (its `api` and `error`
/// marks left out), and they must have compared at least one value; for a
/// vector with fixes, the model and the real classes without the fixes must
/// agree as well, and the verdict says whether `expect` holds there too. A
/// vector fault found while running (a model script that runs out) agrees
/// only when both sides name it in the same words. Both refusing the vector
/// before running it compares nothing: [`Comparison::RefusedByBoth`]. One side
/// refusing what the other runs is a disagreement.
///
/// ```
/// use serde_json::json;
/// use toolcall_model::vectors::conformance::{judge, JavaLine, Comparison};
/// let v = br#"{"format":"toolcall-model/1","name":"n","op":"convert_tool_response",
///              "input":{"text":"42"},"expect":{"response":{"result":42}}}"#;
/// let java = JavaLine::Result { path: "v".into(), result: json!({"response": {"result": 42}, "invocations": []}), upstream: None };
/// assert_eq!(judge(v, &java), Comparison::Agree { compared: 1, holds_upstream: None });
/// let wrong = JavaLine::Result { path: "v".into(), result: json!({"response": {"result": 43}, "invocations": []}), upstream: None };
/// assert!(matches!(judge(v, &wrong), Comparison::Disagree(_)));
/// let nothing = JavaLine::Result { path: "v".into(), result: json!({"invocations": []}), upstream: None };
/// assert!(matches!(judge(v, &nothing), Comparison::Disagree(_)));
/// ```
pub fn judge(bytes: &[u8], java: &JavaLine) -> Comparison {
    judge_loaded(Vector::parse(bytes), bytes, java)
}

/// [`judge`] of a vector already read (or refused) from `bytes` (which the
/// run without fixes reads again; empty when the file was not read).
pub fn judge_loaded(
    vector: Result<Vector, super::VectorError>,
    bytes: &[u8],
    java: &JavaLine,
) -> Comparison {
    match (java, vector) {
        (JavaLine::OutOfScope { reason, .. }, _) => Comparison::OutOfScope(reason.clone()),
        (JavaLine::Fault { .. }, Err(_)) => Comparison::RefusedByBoth,
        (JavaLine::Fault { reason, .. }, Ok(v)) => match v.run() {
            Err(e) if e == *reason => Comparison::Agree {
                compared: 1,
                holds_upstream: None,
            },
            Err(e) => Comparison::Disagree(vec![format!(
                "both sides refused the vector while running it, in other words: Java \"{reason}\", the model \"{e}\""
            )]),
            Ok(_) => Comparison::Disagree(vec![format!(
                "the Java runner refused the vector ({reason}); the model runs it"
            )]),
        },
        (JavaLine::Result { .. }, Err(e)) => Comparison::Disagree(vec![format!(
            "the model refused the vector ({e}); the real classes run it"
        )]),
        (
            JavaLine::Result {
                result, upstream, ..
            },
            Ok(v),
        ) => match v.run() {
            Err(e) => Comparison::Disagree(vec![format!(
                "the model could not run the vector ({e}); the real classes did"
            )]),
            Ok(model) => {
                let mut diffs = differences(&java_view(&model), result);
                let mut expect_diffs = Vec::new();
                match_value(&java_view(&v.expect), result, "", &mut expect_diffs);
                diffs.extend(
                    expect_diffs
                        .into_iter()
                        .map(|d| format!("expect vs Java: {d}")),
                );
                let compared = compared_values(result);
                if compared == 0 {
                    diffs.push(
                        "nothing compared: the result holds no value but the invocations".into(),
                    );
                }
                let holds_upstream = match upstream_run(bytes, upstream.as_ref()) {
                    Ok(h) => h,
                    Err(d) => {
                        diffs.extend(d);
                        None
                    }
                };
                if diffs.is_empty() {
                    Comparison::Agree {
                        compared,
                        holds_upstream,
                    }
                } else {
                    Comparison::Disagree(diffs)
                }
            }
        },
    }
}

/// For a vector with fixes that the runner also ran without them: the model
/// without the fixes must agree with that run; then whether `expect` holds
/// there too. `Ok(None)` for a vector without fixes.
fn upstream_run(bytes: &[u8], upstream: Option<&Value>) -> Result<Option<bool>, Vec<String>> {
    let Ok(mut doc) = serde_json::from_slice::<Value>(bytes) else {
        return Ok(None);
    };
    let has_fixes = match doc.get("fixes") {
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Null) | None => false,
        Some(_) => true,
    };
    if !has_fixes {
        return Ok(None);
    }
    let Some(java) = upstream else {
        return Err(vec![
            "the runner did not run this vector without its fixes".into(),
        ]);
    };
    if let Some(o) = doc.as_object_mut() {
        o.remove("fixes");
    }
    // Without the fixes the real classes met a fault of the vector (a turn
    // that reaches the loop's guard): the model must meet the same one.
    if let Some(reason) = java.get("fault").and_then(Value::as_str) {
        return match Vector::from_value(&doc).map(|v| v.run()) {
            Ok(Err(e)) if e == reason => Ok(Some(false)),
            Ok(Err(e)) => Err(vec![format!(
                "without the fixes both sides fault, in other words: Java \"{reason}\", the model \"{e}\""
            )]),
            Ok(Ok(_)) => Err(vec![format!(
                "without the fixes the Java runner met a fault ({reason}); the model runs it"
            )]),
            Err(e) => Err(vec![format!(
                "without its fixes the model refuses the vector ({e})"
            )]),
        };
    }
    let model = Vector::from_value(&doc)
        .map_err(|e| {
            vec![format!(
                "without its fixes the model refuses the vector ({e})"
            )]
        })
        .and_then(|v| {
            v.run()
                .map(|r| (v, r))
                .map_err(|e| vec![format!("without its fixes the model cannot run it ({e})")])
        });
    let (v, model) = model?;
    let diffs = differences(&java_view(&model), java);
    if !diffs.is_empty() {
        return Err(diffs
            .into_iter()
            .map(|d| format!("without the fixes: {d}"))
            .collect());
    }
    // An empty `expect` (a generated vector's) claims nothing.
    if v.expect.as_object().is_some_and(Map::is_empty) {
        return Ok(Some(false));
    }
    let mut expect_diffs = Vec::new();
    match_value(&java_view(&v.expect), java, "", &mut expect_diffs);
    Ok(Some(expect_diffs.is_empty()))
}

/// The values a result holds, leaves of every depth (an empty array or
/// object is one), the tool invocations left out: a result of the
/// invocations alone says nothing about the op.
fn compared_values(result: &Value) -> usize {
    fn leaves(v: &Value) -> usize {
        match v {
            Value::Array(a) if !a.is_empty() => a.iter().map(leaves).sum(),
            Value::Object(m) if !m.is_empty() => m.values().map(leaves).sum(),
            _ => 1,
        }
    }
    match result {
        Value::Object(m) => m
            .iter()
            .filter(|(k, _)| *k != "invocations")
            .map(|(_, v)| leaves(v))
            .sum(),
        other => leaves(other),
    }
}

/// Counts over a run: agreements, disagreements, out-of-scope vectors by
/// reason, vectors both sides refused, and of the agreeing vectors with
/// fixes, those whose expectation holds upstream too.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tally {
    /// Vectors on which both sides agree.
    pub passed: usize,
    /// Vectors on which they differ.
    pub failed: usize,
    /// Out-of-scope vectors, by reason, in first-seen order.
    pub out_of_scope: Vec<(String, usize)>,
    /// Vectors both sides refused as invalid: nothing compared.
    pub refused_by_both: usize,
    /// Agreeing vectors with fixes.
    pub with_fixes: usize,
    /// Of those, the ones whose `expect` holds without the fixes too.
    pub holds_upstream: usize,
}

impl Tally {
    /// Adds one verdict.
    ///
    /// ```
    /// use toolcall_model::vectors::conformance::{Tally, Comparison};
    /// let mut t = Tally::default();
    /// t.add(&Comparison::Agree { compared: 3, holds_upstream: Some(false) });
    /// t.add(&Comparison::OutOfScope("no Java counterpart".into()));
    /// t.add(&Comparison::OutOfScope("no Java counterpart".into()));
    /// assert_eq!(t.summary(), "1 passed, 0 failed (2 out of scope: 2 no Java counterpart; 1 with fixes, 0 of whose expectations hold upstream too)");
    /// ```
    pub fn add(&mut self, v: &Comparison) {
        match v {
            Comparison::Agree { holds_upstream, .. } => {
                self.passed += 1;
                if let Some(h) = holds_upstream {
                    self.with_fixes += 1;
                    self.holds_upstream += usize::from(*h);
                }
            }
            Comparison::Disagree(_) => self.failed += 1,
            Comparison::RefusedByBoth => self.refused_by_both += 1,
            Comparison::OutOfScope(r) => match self.out_of_scope.iter_mut().find(|(k, _)| k == r) {
                Some((_, n)) => *n += 1,
                None => self.out_of_scope.push((r.clone(), 1)),
            },
        }
    }

    /// `N passed, M failed`, then in parentheses what was not compared (out
    /// of scope by reason, refused by both) and how many passed vectors
    /// carry fixes, when there are any.
    ///
    /// ```
    /// use toolcall_model::vectors::conformance::Tally;
    /// assert_eq!(Tally::default().summary(), "0 passed, 0 failed");
    /// ```
    pub fn summary(&self) -> String {
        let mut s = format!("{} passed, {} failed", self.passed, self.failed);
        let mut notes = Vec::new();
        let total: usize = self.out_of_scope.iter().map(|(_, n)| n).sum();
        if total > 0 {
            let parts: Vec<String> = self
                .out_of_scope
                .iter()
                .map(|(r, n)| format!("{n} {r}"))
                .collect();
            notes.push(format!("{total} out of scope: {}", parts.join("; ")));
        }
        if self.refused_by_both > 0 {
            notes.push(format!(
                "{} refused by both as invalid, nothing compared",
                self.refused_by_both
            ));
        }
        if self.with_fixes > 0 {
            notes.push(format!(
                "{} with fixes, {} of whose expectations hold upstream too",
                self.with_fixes, self.holds_upstream
            ));
        }
        if !notes.is_empty() {
            s.push_str(&format!(" ({})", notes.join("; ")));
        }
        s
    }
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.
    #[test]
    fn example_deeper_than() {
        use crate::vectors::conformance::deeper_than;
        assert_eq!(deeper_than(r#"[["]]]]"]]"#, 2), None);
        assert_eq!(deeper_than("[[[", 2), Some(3));
    }
}
