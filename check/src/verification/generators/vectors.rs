//! Generated conformance vectors of every op, for the Java differential.

use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use proptest::sample::select;

use super::conversation::phrase;
use super::scenario::scenario;
use super::text::text;
use super::tools::pool_name;
use super::{UNKNOWN_TOOL, s};
use toolcall_model::model::Fix;
use toolcall_model::model::{Message, ToolResponse};

/// The operations a generated vector can exercise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VectorOp {
    /// `execute_tool_calls`: one batch on the manager.
    ExecuteToolCalls,
    /// `gemini_request`: a history converted for Gemini.
    GeminiRequest,
    /// `convert_tool_response`: one tool output converted.
    ConvertToolResponse,
    /// `tool_loop`: a whole turn.
    ToolLoop,
}

impl VectorOp {
    /// Every op, in the order [`vectors`] cycles through them.
    pub const ALL: [VectorOp; 4] = [
        VectorOp::ExecuteToolCalls,
        VectorOp::GeminiRequest,
        VectorOp::ConvertToolResponse,
        VectorOp::ToolLoop,
    ];

    /// The op's name in the vector format.
    ///
    /// ```
    /// assert_eq!(toolcall_check::verification::generators::VectorOp::ToolLoop.name(), "tool_loop");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            VectorOp::ExecuteToolCalls => "execute_tool_calls",
            VectorOp::GeminiRequest => "gemini_request",
            VectorOp::ConvertToolResponse => "convert_tool_response",
            VectorOp::ToolLoop => "tool_loop",
        }
    }
}

/// Vectors of one op, upstream or with a random set of fixes, built from the same generators as the
/// property suite, with an empty `expect` (what matters is what the model
/// and the real classes each produce). `execute_tool_calls` takes the
/// scenario's first model reply as its batch; `gemini_request` converts the
/// generated history followed by the model's replies and tool rounds;
/// `convert_tool_response` converts one generated text.
///
/// ```
/// use proptest::{strategy::{Strategy, ValueTree}, test_runner::TestRunner};
/// use toolcall_check::verification::generators::{vector, VectorOp};
/// use toolcall_model::vectors::Vector;
/// let mut runner = TestRunner::deterministic();
/// for op in VectorOp::ALL {
///     let v = vector(op).new_tree(&mut runner).unwrap().current();
///     assert!(Vector::from_value(&v).is_ok());
/// }
/// ```
pub fn vector(op: VectorOp) -> BoxedStrategy<serde_json::Value> {
    (vector_plain(op), extras())
        .prop_map(|(mut v, x)| {
            x.apply(&mut v);
            v
        })
        .boxed()
}

/// What the differential adds to a generated vector beyond the property
/// suite's scenarios, so that the real classes also judge the parts of the
/// vector format the invariants do not need: Gemini thought signatures on
/// model replies and on assistant messages of the history, other message
/// metadata, finish reasons a model reports (including the ones Spring's own
/// generations carry), a second system message, builder calls replayed
/// after the manager's keys (some of which the builder refuses), and, for
/// loops, conversation history off in any memory placement, the seed's
/// workaround advisor, and (one loop in five) an application's
/// `ToolCallingAdvisor` that adds a user message after each tool round
/// (`tool-feedback`, docs/BEHAVIOUR.md 6.4), blocking or streamed, with
/// or without limits, as the scenario has them. Half the vectors carry a random set of fixes (any
/// combination, `evict-orphan-responses` with `keep-current-turn`
/// included), which the real classes run with the fix library installed,
/// and some tool responses carry the failure mark that `error-key` reads.
#[derive(Debug, Clone)]
struct Extras {
    fixes: Vec<&'static str>,
    marks: Vec<bool>,
    signatures: Option<Vec<String>>,
    other_metadata: bool,
    finish_reason: Option<&'static str>,
    second_system: Option<String>,
    builder: Vec<serde_json::Value>,
    history_off: bool,
    advisor: bool,
    feedback: bool,
}

fn builder_call() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::json;
    prop_oneof![
        Just(json!({"unlimited_calls_per_tool": true})),
        Just(json!({"unlimited_total_tool_calls": true})),
        (pool_name(), 0i32..=3).prop_map(|(n, m)| json!({"max_calls_per_tool": {n: m}})),
        (0i32..=3).prop_map(|m| json!({"max_calls_per_tool": m})),
        (0i32..=4).prop_map(|m| json!({"max_total_tool_calls": m})),
        prop_oneof![pool_name(), s(&["", " ", UNKNOWN_TOOL])]
            .prop_map(|n| json!({"exclude_from_limit": n})),
    ]
}

fn fix_set() -> impl Strategy<Value = Vec<&'static str>> {
    prop_oneof![
        Just(vec![]),
        vec(any::<bool>(), Fix::ALL.len()).prop_map(|on| Fix::ALL
            .iter()
            .zip(on)
            .filter(|(_, on)| *on)
            .map(|(f, _)| f.name())
            .collect::<Vec<_>>()),
    ]
}

prop_compose! {
    fn extras()(
        (fixes, marks) in (fix_set(), vec(prop_oneof![4 => Just(false), 1 => Just(true)], 8)),
        signatures in option::weighted(0.15, vec(s(&["c2ln", "AAEC", "", "3q2+7w=="]), 1..=3)),
        other_metadata in prop_oneof![9 => Just(false), 1 => Just(true)],
        finish_reason in option::weighted(
            0.15,
            select(&["STOP", "MAX_TOKENS", "returnDirect", "toolCallLimitExceeded"][..]),
        ),
        second_system in option::weighted(0.05, phrase()),
        builder in prop_oneof![8 => Just(vec![]), 1 => vec(builder_call(), 1..=3)],
        history_off in prop_oneof![9 => Just(false), 1 => Just(true)],
        advisor in prop_oneof![9 => Just(false), 1 => Just(true)],
        feedback in prop_oneof![4 => Just(false), 1 => Just(true)],
    ) -> Extras {
        Extras {
            fixes,
            marks,
            signatures,
            other_metadata,
            finish_reason,
            second_system,
            builder,
            history_off,
            advisor,
            feedback,
        }
    }
}

impl Extras {
    fn apply(&self, v: &mut serde_json::Value) {
        use serde_json::{Value, json};
        let metadata = |m: &mut Value| {
            if let Some(sig) = &self.signatures {
                m["metadata"]["thoughtSignatures"] = json!(sig);
            }
            if self.other_metadata {
                m["metadata"]["modelVersion"] = json!("gemini-x");
            }
        };
        let reply = |g: &mut Value| {
            if g["tool_calls"].as_array().is_none_or(|a| a.is_empty()) {
                return;
            }
            metadata(g);
            if let Some(f) = self.finish_reason {
                g["finish_reason"] = json!(f);
            }
        };
        let input = &mut v["input"];
        if let Some(Value::Array(gs)) = input.get_mut("generations") {
            gs.iter_mut().for_each(reply);
        }
        if let Some(Value::Array(rounds)) = input.get_mut("model") {
            for r in rounds.iter_mut() {
                if let Value::Array(gs) = r {
                    gs.iter_mut().for_each(reply);
                }
            }
        }
        if let Some(Value::Array(h)) = input.get_mut("history") {
            for m in h.iter_mut() {
                if m["type"] == "assistant" && m["tool_calls"].is_array() {
                    metadata(m);
                }
            }
            if let Some(t) = &self.second_system {
                let at = h.len().min(1);
                h.insert(at, json!({"type": "system", "text": t}));
            }
        }
        if !self.fixes.is_empty() {
            v["fixes"] = json!(self.fixes);
        }
        let mut marks = self.marks.iter().cycle();
        if let Some(Value::Array(h)) = v["input"].get_mut("history") {
            for m in h.iter_mut().filter(|m| m["type"] == "tool") {
                if let Some(Value::Array(rs)) = m.get_mut("responses") {
                    for r in rs.iter_mut() {
                        if marks.next() == Some(&true) {
                            r["error"] = json!(true);
                        }
                    }
                }
            }
        }
        if v["op"] == "convert_tool_response" && self.marks.first() == Some(&true) {
            v["input"]["error"] = json!(true);
        }
        if !self.builder.is_empty() && v.get("manager").is_some() {
            v["manager"]["builder"] = json!(self.builder);
        }
        if v["op"] == "tool_loop" {
            // Conversation history off without a memory inside, and the
            // seed's workaround advisor: setups the property suite leaves
            // out on purpose, but the real classes run them all.
            if self.history_off {
                v["manager"]["conversation_history"] = json!(false);
            }
            let mut advisors = Vec::new();
            if self.advisor {
                advisors.push("gemini-tool-text");
            }
            if self.feedback {
                // The application's ToolCallingAdvisor subclass takes the
                // place of the fix library's, which close-dangling-calls
                // needs: the reader refuses the two together.
                advisors.push("tool-feedback");
                if let Some(Value::Array(fixes)) = v.get_mut("fixes") {
                    fixes.retain(|f| *f != Fix::CloseDanglingCalls.name());
                }
            }
            if !advisors.is_empty() {
                v["advisors"] = json!(advisors);
            }
        }
    }
}

fn vector_plain(op: VectorOp) -> BoxedStrategy<serde_json::Value> {
    use serde_json::json;
    let about = "generated by toolcall-model gen (expect left empty)";
    match op {
        VectorOp::ToolLoop => scenario()
            .prop_map(move |s| s.to_vector("generated", about, json!({})))
            .boxed(),
        VectorOp::ExecuteToolCalls => scenario()
            .prop_map(move |s| {
                let mut v = s.to_vector("generated", about, json!({}));
                let batch = s.model.first().cloned().unwrap_or_default();
                v["op"] = json!("execute_tool_calls");
                v["input"] = json!({"history": s.history, "generations": batch});
                v
            })
            .boxed(),
        VectorOp::GeminiRequest => (scenario(), vec(text(), 0..6))
            .prop_map(move |(s, data)| {
                let mut v = s.to_vector("generated", about, json!({}));
                let mut history = s.history.clone();
                let mut data = data.into_iter().cycle();
                for reply in &s.model {
                    if let Some(g) = reply.first() {
                        history.push(g.to_message());
                        if !g.tool_calls.is_empty() {
                            let responses = g
                                .tool_calls
                                .iter()
                                .map(|c| ToolResponse {
                                    id: c.id.clone(),
                                    name: c.name.clone(),
                                    data: data.next().unwrap_or_default().into(),
                                    error: false,
                                })
                                .collect();
                            history.push(Message::Tool { responses });
                        }
                    }
                }
                v["op"] = json!("gemini_request");
                v["input"] = json!({ "history": history });
                v
            })
            .boxed(),
        VectorOp::ConvertToolResponse => text()
            .prop_map(move |t| {
                json!({
                    "format": toolcall_model::vectors::FORMAT,
                    "name": "generated",
                    "about": about,
                    "op": "convert_tool_response",
                    "input": {"text": t},
                    "expect": {},
                })
            })
            .boxed(),
    }
}

/// `count` generated vectors, cycling through `ops`, reproducible from
/// `seed`; each is named `gen-SEED-INDEX-OP`.
///
/// ```
/// use toolcall_check::verification::generators::{vectors, VectorOp};
/// let a = vectors(7, 8, &VectorOp::ALL);
/// assert_eq!(a.len(), 8);
/// assert_eq!(a, vectors(7, 8, &VectorOp::ALL));
/// assert_eq!(a[3]["op"], "tool_loop");
/// // The i-th vector does not depend on how many are drawn.
/// assert_eq!(vectors(7, 4, &VectorOp::ALL)[..], a[..4]);
/// ```
pub fn vectors(seed: u64, count: usize, ops: &[VectorOp]) -> Vec<serde_json::Value> {
    vectors_iter(seed, 0..count, ops).collect()
}

/// The name [`vectors`] gives its `i`-th vector (when it generates one).
pub(crate) fn vector_name(seed: u64, i: usize, ops: &[VectorOp]) -> String {
    let op = ops.get(i % ops.len().max(1)).map_or("", |o| o.name());
    format!("gen-{seed}-{i}-{op}")
}

/// [`vectors`] one at a time, for the indices `indices` (each below the
/// count asked): a caller that writes each as it comes holds one vector,
/// not all of them. Each vector is drawn from a generator of its own,
/// seeded by `seed` and its index, so a shard of the set (`gen --shard`)
/// draws its own vectors only, and the `i`-th vector is the same whatever
/// else is drawn.
pub(crate) fn vectors_iter<'a>(
    seed: u64,
    indices: impl Iterator<Item = usize> + 'a,
    ops: &'a [VectorOp],
) -> impl Iterator<Item = serde_json::Value> + 'a {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{Config as RunnerConfig, RngAlgorithm, TestRng, TestRunner};
    let strategies: Vec<_> = ops.iter().map(|&op| (op, vector(op))).collect();
    indices.filter_map(move |i| {
        let (_, strategy) = strategies.get(i % strategies.len().max(1))?;
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&seed.to_le_bytes());
        bytes[8..16].copy_from_slice(&(i as u64).to_le_bytes());
        let mut runner = TestRunner::new_with_rng(
            RunnerConfig::default(),
            TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
        );
        let mut v = strategy.new_tree(&mut runner).ok()?.current();
        v["name"] = serde_json::json!(vector_name(seed, i, ops));
        Some(v)
    })
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.

    #[test]
    fn example_vector_name() {
        use crate::verification::generators::{VectorOp, vector_name, vectors};
        assert_eq!(
            vectors(7, 4, &VectorOp::ALL)[3]["name"],
            vector_name(7, 3, &VectorOp::ALL)
        );
    }
}
