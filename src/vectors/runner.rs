//! Running a vector's op ([`Vector::run`], [`Vector::produce`]) and the
//! verdict on it ([`Vector::check`], [`Vector::verify`]): what the op
//! produced, in the `expect` shape.

use serde_json::{Map, Value};

use crate::chat::tool_loop::{LoopRun, Sent, run_script};
use crate::gemini::{build_request_at, convert_tool_response_at, validate};
use crate::model::java::JavaException;
use crate::model::manager::{ExecResult, ManagerError, execute_tool_calls};
use crate::model::text::cut_bytes;
use crate::model::tools::{Invocation, Toolbox};

use super::matcher::{SHORT, match_key, match_value, short};
use super::{Op, Vector};

impl Vector {
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
            Op::GeminiRequest { history } => {
                match build_request_at(history, fixes, cfg.manager.version) {
                    Ok(r) => {
                        out.insert("api".into(), api_value(&validate(&r, cfg.validator)));
                        out.insert("request".into(), r.to_value());
                    }
                    Err(e) => {
                        out.insert("error".into(), error_value(&e));
                    }
                }
            }
            Op::ConvertToolResponse { text, error } => {
                match convert_tool_response_at(text, *error, fixes, cfg.manager.version) {
                    Ok(p) => out.insert("response".into(), p.to_value()),
                    Err(e) => out.insert("error".into(), error_value(&e)),
                };
            }
            Op::ToolLoop { history, model, .. } => {
                // MessageWindowChatMemory.Builder.build(): the constructor
                // asserts maxMessages > 0 (the manager is built first).
                let Some(lc) = self.op.loop_config(cfg) else {
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
                let run = run_script(&lc, history.clone(), model, &mut toolbox)
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
            // A `tool_loop` vector may expect the fault its run meets (the
            // loop's guard reached by a model that never stops calling tools).
            Err(e) => match self.expect.get("fault") {
                Some(Value::String(f)) if *f == e => vec![],
                _ => vec![format!("the run failed: {e}")],
            },
        }
    }

    /// What `toolcall-model verify` says about the vector: invalid when it
    /// expects nothing (`"expect": {}`, which any run would match), else
    /// passed or failed as `Vector::check` says.
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
pub(crate) const NO_EXPECTATION: &str = "no expectation: `expect` is {}, which every run matches; say what the op must produce (`conformance/java/runner --expect FILE` fills it in with what the real Spring AI 2.0.1 classes produce)";

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
pub(crate) fn error_value(e: &JavaException) -> Value {
    let mut m = Map::new();
    m.insert("class".into(), Value::String(e.class.to_string()));
    m.insert(
        "message".into(),
        e.message
            .as_deref()
            .map_or(Value::Null, |t| Value::String(t.to_owned())),
    );
    Value::Object(m)
}

pub(super) fn api_value<E: std::fmt::Display>(v: &Result<(), E>) -> Value {
    match v {
        Ok(()) => serde_json::json!({"accepted": true}),
        Err(m) => serde_json::json!({"accepted": false, "message": m.to_string()}),
    }
}

pub(super) fn result_value(r: &ExecResult) -> Value {
    serde_json::json!({
        "history": serde_json::to_value(&r.history).unwrap_or(Value::Null),
        "return_direct": r.return_direct,
    })
}

/// The `error` value of a manager failure; a limit breach carries
/// `tool_name`, `limit`, `partial` and `generation`.
pub(crate) fn manager_error_value(e: &ManagerError) -> Value {
    let mut v = error_value(&e.java());
    if let (ManagerError::LimitExceeded(l), Value::Object(m)) = (e, &mut v) {
        m.insert(
            "tool_name".into(),
            l.breach
                .tool_name
                .clone()
                .map_or(Value::Null, |n| Value::String(n.into())),
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

pub(super) fn invocations_value(inv: &[Invocation]) -> Value {
    Value::Array(
        inv.iter()
            .map(|i| serde_json::json!({"tool": i.tool, "arguments": i.arguments}))
            .collect(),
    )
}

pub(super) fn loop_value(run: &LoopRun, out: &mut Map<String, Value>) {
    let mut outcome = Map::new();
    outcome.insert("kind".into(), Value::String(run.kind.name().into()));
    // A streamed turn has no final generations: the client has every
    // response it received.
    if run.streamed.is_none() {
        outcome.insert(
            "generations".into(),
            serde_json::to_value(&run.generations).unwrap_or(Value::Null),
        );
    }
    outcome.insert(
        "error".into(),
        run.error.as_ref().map_or(Value::Null, error_value),
    );
    if let Some(streamed) = &run.streamed {
        outcome.insert(
            "streamed".into(),
            serde_json::to_value(streamed).unwrap_or(Value::Null),
        );
    }
    out.insert("outcome".into(), Value::Object(outcome));
    // Its place: [`Produced`] holds the requests themselves.
    out.insert("requests".into(), Value::Null);
    out.insert(
        "memory".into(),
        serde_json::json!({
            "messages": serde_json::to_value(&run.memory).unwrap_or(Value::Null),
            "api": api_value(&run.memory_verdict()),
        }),
    );
    out.insert("api".into(), api_value(&run.api()));
}

/// What a vector's op produced: the `expect`-shaped object, where a
/// loop's `requests` stands as `null` and the requests are held as sent.
/// Serializes exactly as `Produced::into_value` would.
#[derive(Debug)]
pub struct Produced {
    pub(super) value: Map<String, Value>,
    pub(super) requests: Vec<Sent>,
}

/// The key the loop's requests stand at.
pub(super) const REQUESTS: &str = "requests";

impl Produced {
    pub(super) fn new(value: Map<String, Value>, requests: Vec<Sent>) -> Produced {
        Produced { value, requests }
    }

    pub(super) fn has_requests(&self) -> bool {
        self.value.contains_key(REQUESTS)
    }

    /// The whole result as one JSON tree (memory with the square of a
    /// loop's rounds; [`Vector::run`]).
    pub(crate) fn into_value(self) -> Value {
        let mut value = self.value;
        if let Some(slot) = value.get_mut(REQUESTS) {
            *slot = Value::Array(self.requests.iter().map(Sent::to_value).collect());
        }
        Value::Object(value)
    }

    /// The differences from `expect`, as `match_value` finds them on
    /// `Produced::into_value`, building one request's tree at a time.
    pub(crate) fn differences(&self, expect: &Value) -> Vec<String> {
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
    pub(super) fn requests_short(&self) -> String {
        let mut w = Clipped(Vec::new());
        // The writer stops the serialization once it holds enough.
        let _ = serde_json::to_writer(&mut w, &RequestsSer(&self.requests));
        let s = String::from_utf8_lossy(&w.0).into_owned();
        match cut_bytes(&s, SHORT) {
            Some(head) => format!("{head}…"),
            None => s,
        }
    }
}

/// A writer that refuses more than a little past [`SHORT`] bytes.
pub(super) struct Clipped(Vec<u8>);

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

pub(super) struct RequestsSer<'a>(&'a [Sent]);

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
