//! The chat client around the manager: `ToolCallingAdvisor`'s loop, the
//! chat memory and the seed's workaround advisor.
//!
//! It sits above [`crate::gemini`] because each round's request goes through
//! the Gemini conversion.

pub mod advisor;
pub mod memory;
pub mod stream;
pub mod tool_loop;
