//! Conformance vectors, format `toolcall-model/1` (`docs/VECTORS.md`):
//! loading with located errors, running each op, and matching the result
//! against `expect`.
//!
//! This module does no IO: callers hand it bytes and a name for messages.
//!
//! One file per step: `reader.rs` reads a vector's bytes and document,
//! `fields.rs` its fields one by one, `runner.rs` runs its op and judges
//! it, `matcher.rs` compares what was produced with `expect`; this file
//! holds the vector, its op and its errors. [`conformance`] compares the
//! model's results with the real classes'.

pub mod conformance;
mod fields;
mod matcher;
mod reader;
mod runner;

pub use self::fields::{MAX_CAUSE_DEPTH, pointer_token};
pub(crate) use self::matcher::match_value;
pub(crate) use self::matcher::numbers_equal;
pub use self::runner::{Produced, Verification};

use serde_json::Value;

use crate::chat::stream::Script;
use crate::chat::tool_loop::{LoopConfig, Memory, Provider};
use crate::model::behavior::SpringAi;
use crate::model::limits::LimitsError;
use crate::model::message::{Generation, Message};
use crate::model::text::cut;
use crate::model::tools::ToolSpec;

/// The format tag every vector carries.
pub const FORMAT: &str = "toolcall-model/1";

/// The largest last reply (as JSON text) a `tool_loop` vector with
/// `repeat_last` may repeat: replayed up to the loop's guard of 1000 model
/// calls, it grows the turn to at most 64 MiB, a vector's own bound.
pub(crate) const MAX_REPEATED_REPLY_BYTES: usize = 64 * 1024;

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
    match cut(&s, ERROR_CHARS, ERROR_CHARS) {
        None => s,
        Some((head, n)) => format!("{head}… ({n} characters)"),
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
        /// The scripted model: its replies, or with `"stream": true` each
        /// reply's chunks.
        model: Script,
        /// Whether the model repeats its last reply once the script is used
        /// up ([`LoopConfig::repeat_last`](crate::chat::LoopConfig::repeat_last)).
        repeat_last: bool,
        /// The provider.
        provider: Provider,
        /// The memory placement.
        memory: Memory,
        /// The memory window's `maxMessages` as given (a Java `int`; the
        /// builder refuses one that is not > 0 when the op runs).
        memory_max_messages: i32,
        /// The memory's content at the start.
        memory_start: Vec<Message>,
        /// On Spring AI 1.1, whether the loop is `ToolCallAdvisor`'s
        /// (`"loop": "tool-call-advisor"`) rather than the chat model's
        /// ([`LoopConfig::tool_call_advisor`](crate::chat::LoopConfig::tool_call_advisor)).
        tool_call_advisor: bool,
    },
}

impl Op {
    /// A `tool_loop` op's loop configuration over `base` (the vector's
    /// manager, advisors and validator); `None` for another op, or when the
    /// memory window is not > 0, which `MessageWindowChatMemory.Builder`
    /// refuses.
    pub fn loop_config(&self, base: &LoopConfig) -> Option<LoopConfig> {
        let Op::ToolLoop {
            repeat_last,
            provider,
            memory,
            memory_max_messages,
            memory_start,
            tool_call_advisor,
            ..
        } = self
        else {
            return None;
        };
        let max = u32::try_from(*memory_max_messages)
            .ok()
            .and_then(std::num::NonZeroU32::new)?;
        Some(LoopConfig {
            provider: *provider,
            memory: *memory,
            memory_max_messages: max,
            memory_start: memory_start.clone(),
            repeat_last: *repeat_last,
            tool_call_advisor: *tool_call_advisor,
            ..base.clone()
        })
    }
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

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.
    #[test]
    fn example_loop_config() {
        use crate::chat::LoopConfig;
        use crate::vectors::Op;
        let op = Op::GeminiRequest { history: vec![] };
        assert!(op.loop_config(&LoopConfig::default()).is_none());
    }
}
