//! toolcall-model: a reference model of how Spring AI 2.0.1 executes the
//! tool calls a model asks for, enforces tool-call limits, turns tool
//! failures into responses and converts tool responses for Gemini.
//!
//! The model is pure: every step takes a state and an event and returns the
//! new state and its output; nothing here does IO, reads a clock or keeps
//! global state. Upstream 2.0.1 and each fix are one engine configured by a
//! behaviour set ([`model::Fixes`]).
//!
//! ```
//! use toolcall_model::model::{Fix, Fixes};
//! use toolcall_model::gemini::convert_tool_response;
//!
//! // The text a breached limit answers with under RETURN_ERROR_RESPONSE:
//! let text = "Tool call limit (1) exceeded for tool 'x'.";
//! // upstream 2.0.1's conversion throws on plain text,
//! assert!(convert_tool_response(text, false, Fixes::upstream()).is_err());
//! // the strict-json-or-wrap fix wraps it.
//! assert!(convert_tool_response(text, false, Fixes::only(Fix::StrictJsonOrWrap)).is_ok());
//! ```
//!
//! # Layers
//!
//! Each module uses only those listed before it (`tests/layering.rs` checks):
//!
//! * [`json`] and [`model`]: the JSON readers (Jackson 3 as Spring AI calls
//!   it, numbers by value) and the modelled system (messages, tools and the
//!   resolver, `ToolCallLimits`, the exception processors,
//!   `DefaultToolCallingManager`, Java exceptions, behaviour sets);
//! * [`gemini`]: `GoogleGenAiChatModel`'s conversion and the request
//!   validator;
//! * [`chat`]: `ToolCallingAdvisor`'s loop with chat memory and the seed's
//!   workaround advisor;
//! * [`vectors`]: the conformance-vector format and the judging of the Java
//!   runner's output;
//! * [`config`]: Spring Boot's binding of `spring.ai.tools.*`, the
//!   configuration checker and the main job;
//! * `checking` (feature `checking`): scenarios, invariants, generators, the
//!   verdict matrix and the fuzz-target bodies.
//!
//! # The public surface
//!
//! A user of the model imports from the layer roots, by name:
//!
//! * `model`: the system itself. `execute_tool_calls` and
//!   `execute_with_counts` (or, a call at a time, `Batch::new` and the
//!   `Step` and `Pending` it hands out), `ToolCallLimits` with
//!   `Counts`, `Max` and `OnExceeded`, the exception processors
//!   (`Processor`, `ProcessorKind`), the messages (`Message`, `ToolCall`,
//!   `ToolResponse`, `Generation`), the tools (`Toolbox`, `ToolSpec`,
//!   `Outcome`), Java's exceptions (`JavaException`, `ClassTable`) and the
//!   behaviour sets (`BehaviorSet`, `Fix`, `Fixes`, `behavior_sets`).
//! * `gemini`: `convert_tool_response`, `write_tool_response`,
//!   `parse_json_to_map`, `build_request` and `IncrementalRequests`, and
//!   the validator's `verdict`.
//! * `chat`: `run_loop` with `LoopConfig`, `Memory` and `Provider`; its
//!   result (`LoopRun`, `EndKind`, `Sent`, `LoopError`).
//! * `json`: `read_strict`, `read_lenient`, `is_strict_json` and
//!   `check_lenient`, with `JValue` and `JacksonError`.
//! * `vectors`: `Vector` (parse, run, verify) and `conformance::judge`.
//! * `config`: what `check` is made of (`bind`, `parse_properties`,
//!   `read_yaml`, `Setup`, `evaluate`, `report`) and the main job.
//!
//! The files behind the roots are crate-private, so moving a rule between
//! files changes no path a user wrote, and what only the crate uses is
//! `pub(crate)`: a public item is one that a user, the `toolcall-model`
//! command, a test, a bench or a fuzz target names, or one that a public
//! signature shows. `unreachable_pub` is warned (and denied by the CI's
//! clippy), so a `pub` item that no root re-exports does not compile
//! unnoticed. `checking` (feature `checking`) is the machinery of the
//! tests, the fuzz targets and the command rather than part of the model:
//! it keeps one public module per tool (`exhaustive`, `explore`,
//! `footprint`, `generators`, `shard`, `invariants`, `fuzzing`, `oracle`,
//! `scenario`), whose entry points share names such as `run` and `limits`.
//!
//! # Features
//!
//! * `cli` (default): the `toolcall-model` binary, with clap and the YAML
//!   reader of `check`; turns on `checking`.
//! * `checking`: the `checking` module, with proptest and arbitrary.
//!
//! A crate that needs the model and the vectors depends on
//! `toolcall-model = { version = "0.1", default-features = false }` and
//! compiles serde, serde_json and thiserror only.
//!
//! # serde_json's features
//!
//! The Gemini conversion hands Jackson's tree to the request as a
//! `serde_json` map, and three features of serde_json are needed to keep it
//! Jackson's. Cargo unifies features, so a build that links this crate gets
//! them for every use of serde_json:
//!
//! * `preserve_order`: Jackson reads an object into a `LinkedHashMap`;
//!   entries keep the text's order (a repeated name keeps its first place).
//! * `arbitrary_precision`: numbers keep their text (`BigInteger` and exact
//!   decimals pass through unchanged); the vectors compare numbers by value
//!   the same way.
//! * `unbounded_depth`: Jackson accepts 500 levels of nesting, past
//!   serde_json's default limit of 128; the readers that lift the limit only
//!   see texts already bounded at 500 levels.
#![forbid(unsafe_code)]
#![warn(unreachable_pub)]

pub mod chat;
#[cfg(feature = "checking")]
pub mod checking;
mod collections;
pub mod config;
pub mod gemini;
pub mod json;
pub mod model;
pub mod vectors;
