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
//! * [`collections`]: the containers the layers share for speed;
//! * [`json`] and [`model`]: the JSON readers (Jackson 3 as Spring AI calls
//!   it, numbers by value) and the modelled system (messages, tools and the
//!   resolver, `ToolCallLimits`, the exception processors,
//!   `DefaultToolCallingManager`, Java exceptions, behaviour sets);
//! * [`gemini`]: `GoogleGenAiChatModel`'s conversion and the request
//!   validator;
//! * [`chat`]: `ToolCallingAdvisor`'s loop with chat memory and the seed's
//!   workaround advisor;
//! * [`vectors`]: the conformance-vector format and the judging of the Java
//!   runner's output.
//!
//! This library is the model alone. The configuration checker (Spring
//! Boot's binding of `spring.ai.tools.*` and `check`), the verification
//! machinery (scenarios, invariants, generators, the verdict matrix, the
//! fuzz-target bodies) and the `toolcall-model` command are the second
//! package of the workspace, `toolcall-check` (`check/`), which uses this
//! one as any user would.
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
//!   `Outcome`), Java's exceptions (`JavaException`, `ClassTable` and the
//!   class names such as `TOOL_CALL_LIMIT_EXCEEDED`) and the behaviour sets
//!   (`BehaviorSet`, `Fix`, `Fixes`, `behavior_sets`).
//! * `gemini`: `convert_tool_response`, `write_tool_response`,
//!   `parse_json_to_map`, `build_request` and `IncrementalRequests`, and
//!   the validator's `verdict`.
//! * `chat`: `run_loop` with `LoopConfig`, `Memory` and `Provider`; its
//!   result (`LoopRun`, `EndKind`, `Sent`, `LoopError`). A framework that
//!   drives the loop itself (its own model client, a stream) steps one
//!   turn by hand: `Turn::new`, then `Turn::ask` gives the request
//!   (`Asking`) and `Asking::answer` takes the reply, until an `Answer::End`.
//! * `json`: `read_strict`, `read_lenient`, `is_strict_json` and
//!   `check_lenient`, with `JValue` and `JacksonError`.
//! * `vectors`: `Vector` (parse, run, verify) and `conformance::judge`.
//!
//! The files behind the roots are crate-private, so moving a rule between
//! files changes no path a user wrote, and what only the crate uses is
//! `pub(crate)`: a public item is one that a user names (the checker in
//! `toolcall-check` among them), a test, a bench or a fuzz target names,
//! or one that a public signature shows. `unreachable_pub` is warned (and
//! denied by the CI's clippy), so a `pub` item that no root re-exports does
//! not compile unnoticed. [`enum_table!`] (and the hidden
//! `model::__private` module its expansion names) is exported for the
//! checker's own tables.
//!
//! # Features
//!
//! None: the library depends on serde, serde_json and thiserror only
//! (`tests/dependencies.rs` checks). A crate that needs the model and the
//! vectors depends on `toolcall-model = "0.1"`; the command line's and the
//! checker's dependencies (clap, saphyr-parser, proptest, arbitrary) are
//! `toolcall-check`'s.
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
pub mod collections;
pub mod gemini;
pub mod json;
pub mod model;
pub mod vectors;
