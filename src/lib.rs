//! toolcall-model: a reference model of how Spring AI 2.0.1 executes the
//! tool calls a model asks for, enforces tool-call limits, turns tool
//! failures into responses and converts tool responses for Gemini.
#![forbid(unsafe_code)]

pub mod chat;
#[cfg(feature = "checking")]
pub mod checking;
pub mod config;
pub mod gemini;
pub mod json;
pub mod model;
pub mod vectors;
