//! The chat client around the manager: `ToolCallingAdvisor`'s loop, the
//! chat memory and the seed's workaround advisor.
//!
//! It sits above [`crate::gemini`] because each round's request goes through
//! the Gemini conversion.

pub(crate) mod advisor;
pub(crate) mod memory;
pub(crate) mod stream;
pub(crate) mod tool_loop;

pub use advisor::{advisor_thinks_json, gemini_tool_text};

pub use memory::{DEFAULT_MEMORY_MAX_MESSAGES, has_byte_metadata};

pub use stream::{Script, Split, aggregate_chunks, may_hang_a_stream, reaches_client};

pub use tool_loop::{
    Answer, Ask, Asking, EndKind, LoopConfig, LoopError, LoopRun, Memory, Provider,
    RequestMessages, Sent, Turn, run_loop, run_loop_with_messages, with_memory,
};
