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

pub use memory::{
    DEFAULT_MEMORY_MAX_MESSAGES, MEMORY_MAX_MESSAGES_NOT_POSITIVE, message_window,
    message_window_with,
};

pub use stream::{
    Chunks, Script, Split, aggregate, aggregate_chunks, may_hang_a_stream, reaches_client,
};

pub use tool_loop::{
    Answer, Ask, Asking, EndKind, LoopConfig, LoopError, LoopRun, Memory, NULL_CONVERSATION_ID,
    Provider, RequestMessages, Sent, TOOL_FEEDBACK, Turn, run_loop, run_loop_with_messages,
    run_script, with_memory,
};
