//! The JSON readers: the Jackson 3 mapper Spring AI's Gemini conversion
//! calls (lenient and strict), and numbers compared by value.
//!
//! Nothing here knows about tool calls; the Gemini conversion and the vector
//! format build on it.

pub mod decimal;
pub mod jackson;
