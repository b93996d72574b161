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
    message_window, message_window_with, DEFAULT_MEMORY_MAX_MESSAGES,
    MEMORY_MAX_MESSAGES_NOT_POSITIVE,
};

pub use stream::{
    aggregate, aggregate_chunks, may_hang_a_stream, reaches_client, Chunks, Script, Split,
};

pub use tool_loop::{
    run_loop, run_loop_with_messages, run_script, with_memory, Answer, Ask, Asking, EndKind,
    LoopConfig, LoopError, LoopRun, Memory, Provider, RequestMessages, Sent, Turn,
    NULL_CONVERSATION_ID, TOOL_FEEDBACK,
};
