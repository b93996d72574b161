//! The modelled system: Spring AI 2.0.1's tool-calling core and the
//! switches that change it.
//!
//! Messages, the tool registry and resolver, `ToolCallLimits`, the
//! exception processors and `DefaultToolCallingManager`, plus the Java
//! exception classes they throw and the behaviour sets (upstream or upstream
//! with fixes) every layer above reads.

pub mod behavior;
pub mod java;
pub mod limits;
pub mod manager;
pub mod message;
pub mod processor;
pub(crate) mod table;
pub mod text;
pub mod tools;
