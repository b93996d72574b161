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
//! has no such field). Vectors with fixes or advisors have no Java
//! counterpart and are counted apart, with the runner's reason.
//!
//! The module is pure: the drivers (`toolcall-model conform`, the test
//! `tests/java_diff.rs`) run the processes and read the files.

use serde_json::{Map, Value};

use crate::vectors::{match_value, numbers_equal, Vector};

/// What the Java runner printed for one vector.
#[derive(Debug, Clone, PartialEq)]
pub enum JavaLine {
    /// The op ran on the real classes; its result in the `run` shape.
    Result {
        /// The vector's path.
        path: String,
        /// What the real classes produced.
        result: Value,
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

/// The deepest runner output line read: a payload at Jackson's depth limit
/// ([`MAX_TREE_DEPTH`](crate::json::jackson::MAX_TREE_DEPTH)) inside the
/// result's own nesting (request, content, part, response), with room.
pub const MAX_RESULT_DEPTH: usize = crate::json::jackson::MAX_TREE_DEPTH + 64;

/// The 1-based column (in characters) where `text`'s arrays and objects
/// first nest past `limit`, if they do; strings are skipped. One pass, no
/// recursion.
///
/// ```
/// use toolcall_model::vectors::conformance::deeper_than;
/// assert_eq!(deeper_than(r#"[["]]]]"]]"#, 2), None);
/// assert_eq!(deeper_than("[[[", 2), Some(3));
/// ```
pub fn deeper_than(text: &str, limit: usize) -> Option<usize> {
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
pub enum Verdict {
    /// Both sides produced the same result (or both refused the vector).
    Agree,
    /// They differ; one line per difference.
    Disagree(Vec<String>),
    /// The vector has no Java counterpart.
    OutOfScope(String),
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
    if s.len() <= 200 {
        return s;
    }
    let cut = (0..=200)
        .rev()
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(0);
    format!("{}… ({} bytes)", &s[..cut], s.len())
}

/// Every difference between two results, as `pointer: left ≠ right` lines:
/// the same keys at every depth (in any order), the same array lengths,
/// numbers by value.
///
/// ```
/// use serde_json::json;
/// use toolcall_model::vectors::conformance::differences;
/// assert!(differences(&json!({"a": [1.0, "x"]}), &json!({"a": [1, "x"]})).is_empty());
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
        (Value::Number(x), Value::Number(y)) if numbers_equal(x, y) => {}
        (x, y) if x == y => {}
        (x, y) => out.push(format!(
            "{}: model {} ≠ Java {}",
            if path.is_empty() { "/" } else { path },
            short(x),
            short(y)
        )),
    }
}

/// Judges one vector: `bytes` is the vector file, `java` what the runner
/// printed for it.
///
/// Both refusing the vector is agreement (a maximum beyond Java's `int`, for
/// one); one side refusing what the other runs is a disagreement. When both
/// run it, the model's [`java_view`] must equal the Java result, and the
/// Java result must match the vector's `expect` (its `api` and `error`
/// marks left out).
///
/// ```
/// use serde_json::json;
/// use toolcall_model::vectors::conformance::{judge, JavaLine, Verdict};
/// let v = br#"{"format":"toolcall-model/1","name":"n","op":"convert_tool_response",
///              "input":{"text":"42"},"expect":{"response":{"result":42}}}"#;
/// let java = JavaLine::Result { path: "v".into(), result: json!({"response": {"result": 42}, "invocations": []}) };
/// assert_eq!(judge(v, &java), Verdict::Agree);
/// let wrong = JavaLine::Result { path: "v".into(), result: json!({"response": {"result": 43}, "invocations": []}) };
/// assert!(matches!(judge(v, &wrong), Verdict::Disagree(_)));
/// ```
pub fn judge(bytes: &[u8], java: &JavaLine) -> Verdict {
    judge_loaded(Vector::parse(bytes), java)
}

/// [`judge`] of a vector already read (or refused).
pub fn judge_loaded(vector: Result<Vector, super::VectorError>, java: &JavaLine) -> Verdict {
    match (java, vector) {
        (JavaLine::OutOfScope { reason, .. }, _) => Verdict::OutOfScope(reason.clone()),
        (JavaLine::Fault { .. }, Err(_)) => Verdict::Agree,
        // A vector fault found while running (a model script that runs out).
        (JavaLine::Fault { .. }, Ok(v)) if v.run().is_err() => Verdict::Agree,
        (JavaLine::Fault { reason, .. }, Ok(_)) => Verdict::Disagree(vec![format!(
            "the Java runner refused the vector ({reason}); the model runs it"
        )]),
        (JavaLine::Result { .. }, Err(e)) => Verdict::Disagree(vec![format!(
            "the model refused the vector ({e}); the real classes run it"
        )]),
        (JavaLine::Result { result, .. }, Ok(v)) => match v.run() {
            Err(e) => Verdict::Disagree(vec![format!(
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
                if diffs.is_empty() {
                    Verdict::Agree
                } else {
                    Verdict::Disagree(diffs)
                }
            }
        },
    }
}

/// Counts over a run: agreements, disagreements, and out-of-scope vectors
/// by reason.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tally {
    /// Vectors on which both sides agree.
    pub passed: usize,
    /// Vectors on which they differ.
    pub failed: usize,
    /// Out-of-scope vectors, by reason, in first-seen order.
    pub out_of_scope: Vec<(String, usize)>,
}

impl Tally {
    /// Adds one verdict.
    ///
    /// ```
    /// use toolcall_model::vectors::conformance::{Tally, Verdict};
    /// let mut t = Tally::default();
    /// t.add(&Verdict::Agree);
    /// t.add(&Verdict::OutOfScope("fixes".into()));
    /// t.add(&Verdict::OutOfScope("fixes".into()));
    /// assert_eq!(t.summary(), "1 passed, 0 failed (2 out of scope: 2 fixes)");
    /// ```
    pub fn add(&mut self, v: &Verdict) {
        match v {
            Verdict::Agree => self.passed += 1,
            Verdict::Disagree(_) => self.failed += 1,
            Verdict::OutOfScope(r) => match self.out_of_scope.iter_mut().find(|(k, _)| k == r) {
                Some((_, n)) => *n += 1,
                None => self.out_of_scope.push((r.clone(), 1)),
            },
        }
    }

    /// `N passed, M failed`, and the out-of-scope counts when there are any.
    ///
    /// ```
    /// use toolcall_model::vectors::conformance::Tally;
    /// assert_eq!(Tally::default().summary(), "0 passed, 0 failed");
    /// ```
    pub fn summary(&self) -> String {
        let mut s = format!("{} passed, {} failed", self.passed, self.failed);
        let total: usize = self.out_of_scope.iter().map(|(_, n)| n).sum();
        if total > 0 {
            let parts: Vec<String> = self
                .out_of_scope
                .iter()
                .map(|(r, n)| format!("{n} {r}"))
                .collect();
            s.push_str(&format!(" ({total} out of scope: {})", parts.join("; ")));
        }
        s
    }
}
