//! toolcall-model: a reference model of how Spring AI 2.0.1 executes the
//! tool calls a model asks for, enforces tool-call limits, turns tool
//! failures into responses and converts tool responses for Gemini.
#![forbid(unsafe_code)]

pub mod behavior;
pub mod check;
pub mod conformance;
pub mod decimal;
pub mod exhaustive;
pub mod explore;
#[doc(hidden)]
pub mod fuzzing;
pub mod gemini;
pub mod gen;
pub mod invariants;
pub mod jackson;
pub mod java;
pub mod limits;
pub mod manager;
pub mod message;
pub mod processor;
pub mod scenario;
pub mod seed;
pub mod spring_config;
pub mod tool_loop;
pub mod tools;
pub mod vectors;
