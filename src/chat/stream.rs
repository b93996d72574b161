//! Streaming (`ChatClient.stream()`, `ToolCallingAdvisor.adviseStream`):
//! a model reply as a list of chunks, their aggregation
//! (`MessageAggregator`), which chunks reach the client, and how a
//! scripted model cuts a reply into chunks ([`Split`]).
//!
//! The loop itself is the blocking loop's step machine
//! ([`super::tool_loop::Turn`]): a streamed round answers it with the
//! aggregate of the round's chunks ([`super::tool_loop::Asking::answer_chunks`]),
//! so tool execution, limits, memory and the next request are the same
//! steps. docs/BEHAVIOUR.md section 6.3.

use std::num::NonZeroU8;

use serde_json::{Map, Value};

use crate::model::java::{ClassTable, JavaException};
use crate::model::message::Generation;
use crate::model::tools::{Outcome, ToolSpec};

/// One streamed model reply: its chunks in order, each a chat response's
/// generations.
pub(crate) type Chunks = Vec<Vec<Generation>>;

/// What a scripted model answers, call after call.
#[derive(Debug, Clone, PartialEq)]
pub enum Script {
    /// `call()`: one generation list per model call.
    Replies(Vec<Vec<Generation>>),
    /// `stream()`: one chunk list per model call.
    Streamed(Vec<Chunks>),
}

/// Whether a chunk reaches the client: `ToolCallingAdvisor.adviseStream`
/// filters out every chat response with a tool call in any generation
/// (`ChatResponse.hasToolCalls`), its text included; on 1.1 the first such
/// chunk is the response `GoogleGenAiChatModel#internalStream` hands the
/// manager.
///
/// ```
/// use toolcall_model::chat::reaches_client;
/// use toolcall_model::model::{Generation, ToolCall};
/// let call = Generation { tool_calls: vec![ToolCall::new("1", "x", "{}")].into(), ..Default::default() };
/// assert!(!reaches_client(&[Generation::default(), call]));
/// assert!(reaches_client(&[Generation::default()]));
/// ```
pub fn reaches_client(chunk: &[Generation]) -> bool {
    chunk.iter().all(|g| g.tool_calls.is_empty())
}

/// `MessageAggregator.aggregate` over chat responses, given by their first
/// generations (`ChatResponse.getResult()`; `None` for a response without
/// any): one generation whose text is every text concatenated (`""` when
/// none has any), whose tool calls are all of theirs in order, whose
/// message metadata is theirs merged key by key (a later value replaces an
/// earlier one), with `thoughts` and `outputWithoutThoughts` when a text
/// came with `isThought`, and whose finish reason is the last one given.
pub(crate) fn aggregate<'g>(
    firsts: impl IntoIterator<Item = Option<&'g Generation>>,
) -> Generation {
    let mut text = String::new();
    let (mut thoughts, mut answer) = (String::new(), String::new());
    let mut metadata = Map::new();
    let mut tool_calls = Vec::new();
    let mut finish_reason = None;
    for g in firsts.into_iter().flatten() {
        // The scripted generation metadata is ChatGenerationMetadata.NULL
        // exactly when no finish reason is given.
        if g.finish_reason.is_some() {
            finish_reason.clone_from(&g.finish_reason);
        }
        if let Some(t) = &g.text {
            text.push_str(t);
            if let Some(flag) = g.metadata.get("isThought") {
                if is_true(flag) {
                    thoughts.push_str(t);
                } else {
                    answer.push_str(t);
                }
            }
        }
        metadata.extend(g.metadata.iter().map(|(k, v)| (k.clone(), v.clone())));
        tool_calls.extend(g.tool_calls.iter().cloned());
    }
    if !thoughts.is_empty() {
        metadata.insert("thoughts".into(), Value::String(thoughts));
        metadata.insert("outputWithoutThoughts".into(), Value::String(answer));
    }
    Generation {
        kind: None,
        text: Some(text.into()),
        tool_calls: tool_calls.into(),
        finish_reason,
        metadata: metadata.into(),
    }
}

/// Whether a tool may throw a throwable Reactor treats as fatal to the JVM
/// (`ClassTable::is_jvm_fatal`), as itself or as a cause: on a streamed
/// turn it is rethrown on the worker thread and the stream never ends (no
/// response, no error; seen on the jars), which the model does not
/// describe, so such a streamed turn is refused.
pub fn may_hang_a_stream(tools: &[ToolSpec], classes: &ClassTable) -> bool {
    fn fatal(e: &JavaException, classes: &ClassTable) -> bool {
        classes.is_jvm_fatal(&e.class) || e.cause.as_deref().is_some_and(|c| fatal(c, classes))
    }
    tools.iter().flat_map(|t| &t.outcomes).any(|o| match o {
        Outcome::Throws { exception, .. } => fatal(exception, classes),
        _ => false,
    })
}

/// `Boolean.parseBoolean(value.toString())`.
fn is_true(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::String(s) => s.eq_ignore_ascii_case("true"),
        _ => false,
    }
}

/// The aggregate of one streamed reply: its chunks' first generations
/// aggregated (`aggregate`); generations after the first are dropped.
pub fn aggregate_chunks(chunks: &[Vec<Generation>]) -> Generation {
    aggregate(chunks.iter().map(|c| c.first()))
}

/// How a scripted streaming model cuts each reply (a generation list, as
/// a blocking model returns it) into chunks, so that a scenario written
/// for the blocking loop also streams. The first generation's text comes
/// in `pieces` chunks (cut by characters; empty pieces are not sent), its
/// tool calls each in a chunk of their own (`calls_apart`) or together in
/// the last text chunk; its metadata rides on the first chunk and its
/// finish reason on the last; the other generations ride in the last chunk
/// after the first one's part. The aggregate of the chunks is the first
/// generation, its text `""` when it had none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Split {
    /// Chunks the first generation's text is cut into.
    pub pieces: NonZeroU8,
    /// Whether each tool call comes in a chunk of its own, after the text;
    /// otherwise the calls come with the last text chunk.
    pub calls_apart: bool,
}

impl Default for Split {
    /// Two text pieces, the calls apart.
    fn default() -> Self {
        Split {
            pieces: NonZeroU8::MIN.saturating_add(1),
            calls_apart: true,
        }
    }
}

impl Split {
    /// The chunks of one reply (one chunk without generations for an empty
    /// reply).
    pub fn chunks(&self, reply: &[Generation]) -> Chunks {
        let Some((first, rest)) = reply.split_first() else {
            return vec![vec![]];
        };
        let part = |text: Option<String>| Generation {
            text: text.map(Into::into),
            ..Generation::default()
        };
        let mut chunks: Chunks = match first.text.as_deref() {
            Some(t) if !t.is_empty() => pieces(t, self.pieces.get())
                .map(|p| vec![part(Some(p.to_owned()))])
                .collect(),
            Some(_) => vec![vec![part(Some(String::new()))]],
            None => vec![],
        };
        let calls = &first.tool_calls;
        if self.calls_apart {
            chunks.extend(calls.iter().map(|c| {
                vec![Generation {
                    tool_calls: vec![c.clone()].into(),
                    ..part(None)
                }]
            }));
        } else if let Some(last) = chunks.last_mut().and_then(|c| c.first_mut()) {
            last.tool_calls.clone_from(calls);
        } else if !calls.is_empty() {
            chunks.push(vec![Generation {
                tool_calls: calls.clone(),
                ..part(None)
            }]);
        }
        if chunks.is_empty() {
            chunks.push(vec![part(None)]);
        }
        if let Some(g) = chunks.first_mut().and_then(|c| c.first_mut()) {
            g.metadata.clone_from(&first.metadata);
        }
        if let Some(last) = chunks.last_mut() {
            if let Some(g) = last.first_mut() {
                g.finish_reason.clone_from(&first.finish_reason);
            }
            last.extend(rest.iter().cloned());
        }
        chunks
    }
}

/// `text` cut into at most `n` non-empty pieces of about equal length, on
/// character boundaries.
fn pieces(text: &str, n: u8) -> impl Iterator<Item = &str> {
    let chars = text.chars().count();
    let size = chars.div_ceil(usize::from(n)).max(1);
    let mut bounds: Vec<usize> = text.char_indices().map(|(i, _)| i).step_by(size).collect();
    bounds.push(text.len());
    (0..bounds.len() - 1).map(move |i| &text[bounds[i]..bounds[i + 1]])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::message::ToolCall;

    fn splits() -> Vec<Split> {
        let mut v = Vec::new();
        for pieces in [1u8, 2, 3, 7] {
            for calls_apart in [false, true] {
                v.push(Split {
                    pieces: NonZeroU8::new(pieces).unwrap_or(NonZeroU8::MIN),
                    calls_apart,
                });
            }
        }
        v
    }

    /// Whatever the split, the aggregate of a reply's chunks is its first
    /// generation (text `""` for none), and the chunks that reach the client
    /// are exactly the text-only ones.
    #[test]
    fn a_split_aggregates_back_to_the_first_generation() {
        let call = |id: &str| ToolCall::new(id, "x", "{}");
        let mut meta = Map::new();
        meta.insert("k".into(), Value::from(1));
        let replies = vec![
            vec![],
            vec![Generation::default()],
            vec![Generation {
                text: Some("héllo wörld".into()),
                finish_reason: Some("STOP".into()),
                metadata: meta.clone().into(),
                ..Generation::default()
            }],
            vec![Generation {
                text: Some(Default::default()),
                tool_calls: vec![call("1"), call("2")].into(),
                ..Generation::default()
            }],
            vec![
                Generation {
                    text: Some("ab".into()),
                    tool_calls: vec![call("1")].into(),
                    metadata: meta.into(),
                    ..Generation::default()
                },
                Generation {
                    tool_calls: vec![call("2")].into(),
                    ..Generation::default()
                },
            ],
        ];
        for split in splits() {
            for reply in &replies {
                let chunks = split.chunks(reply);
                assert!(!chunks.is_empty());
                let agg = aggregate_chunks(&chunks);
                let mut want = reply.first().cloned().unwrap_or_default();
                want.text.get_or_insert_with(Default::default);
                if reply.is_empty() {
                    want = Generation {
                        text: Some(Default::default()),
                        ..Generation::default()
                    };
                }
                assert_eq!(agg, want, "{split:?} {reply:?}");
                let rest: Vec<&Generation> = chunks.iter().flat_map(|c| c.iter().skip(1)).collect();
                assert_eq!(rest.len(), reply.len().saturating_sub(1), "{split:?}");
                let text_chunks = chunks
                    .iter()
                    .filter(|c| c.iter().all(|g| g.tool_calls.is_empty()))
                    .count();
                let with_calls = chunks.len() - text_chunks;
                assert_eq!(
                    chunks.iter().filter(|c| !reaches_client(c)).count(),
                    with_calls
                );
            }
        }
    }

    #[test]
    fn aggregation_keeps_the_last_metadata_value_and_separates_thoughts() {
        let g = |t: &str, thought: bool, sig: i64| {
            let mut m = Map::new();
            m.insert("isThought".into(), Value::Bool(thought));
            m.insert("thoughtSignatures".into(), Value::from(sig));
            Generation {
                text: Some(t.into()),
                metadata: m.into(),
                ..Generation::default()
            }
        };
        let a = aggregate([Some(&g("think ", true, 1)), Some(&g("answer", false, 2))]);
        assert_eq!(a.text.as_deref(), Some("think answer"));
        assert_eq!(a.metadata["thoughtSignatures"], Value::from(2));
        assert_eq!(a.metadata["thoughts"], Value::from("think "));
        assert_eq!(a.metadata["outputWithoutThoughts"], Value::from("answer"));
    }
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.
    use super::*;

    #[test]
    fn example_reaches_client() {
        use crate::model::Generation;
        use crate::model::ToolCall;
        let call = Generation {
            tool_calls: vec![ToolCall::new("1", "x", "{}")].into(),
            ..Default::default()
        };
        assert!(reaches_client(&[Generation::default()]));
        assert!(!reaches_client(&[Generation::default(), call]));
    }

    #[test]
    fn example_aggregate() {
        use crate::model::Generation;
        let t = |s: &str| {
            Some(Generation {
                text: Some(s.into()),
                ..Default::default()
            })
        };
        let (a, b) = (t("It is "), t("sunny"));
        assert_eq!(
            aggregate([a.as_ref(), None, b.as_ref()]).text.as_deref(),
            Some("It is sunny")
        );
        assert_eq!(aggregate([]).text.as_deref(), Some(""));
    }

    #[test]
    fn example_may_hang_a_stream() {
        use crate::model::ClassTable;
        use crate::model::JavaException;
        use crate::model::Outcome;
        use crate::model::ToolSpec;
        let oom = ToolSpec {
            outcomes: vec![Outcome::Throws {
                exception: JavaException::new("java.lang.OutOfMemoryError", None),
                wrapped: true,
            }],
            ..ToolSpec::returning("x", "1")
        };
        assert!(may_hang_a_stream(&[oom], &ClassTable::builtin()));
        assert!(!may_hang_a_stream(
            &[ToolSpec::returning("x", "1")],
            &ClassTable::builtin()
        ));
    }

    #[test]
    fn example_aggregate_chunks() {
        use crate::model::Generation;
        let t = |s: &str| Generation {
            text: Some(s.into()),
            ..Default::default()
        };
        assert_eq!(
            aggregate_chunks(&[vec![t("a"), t("b")], vec![t("c")]])
                .text
                .as_deref(),
            Some("ac")
        );
    }

    #[test]
    fn example_split() {
        use crate::chat::Split;
        use crate::model::{Generation, ToolCall};
        use std::num::NonZeroU8;
        let g = Generation {
            text: Some("abcd".into()),
            tool_calls: vec![ToolCall::new("1", "x", "{}")].into(),
            ..Default::default()
        };
        let split = Split {
            pieces: NonZeroU8::new(2).unwrap(),
            calls_apart: true,
        };
        let chunks = split.chunks(std::slice::from_ref(&g));
        assert_eq!(chunks.len(), 3);
        assert_eq!(aggregate_chunks(&chunks), g);
    }
}
