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

pub use stream::{Script, Split};

pub use tool_loop::{EndKind, LoopConfig, LoopError, LoopRun, Memory, Provider, Sent, run_loop};
