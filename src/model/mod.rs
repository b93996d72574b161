//! The modelled system: Spring AI 2.0.1's tool-calling core and the
//! switches that change it.
//!
//! Messages, the tool registry and resolver, `ToolCallLimits`, the
//! exception processors and `DefaultToolCallingManager`, plus the Java
//! exception classes they throw and the behaviour sets (upstream or upstream
//! with fixes) every layer above reads.

pub(crate) mod behavior;
pub(crate) mod java;
pub(crate) mod limits;
pub(crate) mod manager;
pub(crate) mod message;
pub(crate) mod processor;
pub(crate) mod shared_list;
pub(crate) mod shared_map;
pub(crate) mod shared_str;
pub(crate) mod table;
pub(crate) mod text;
pub(crate) mod tools;

pub use behavior::{
    Acts, BehaviorSet, Fix, Fixes, SpringAi, UnknownFix, UnknownSetName, UnknownSpringAi,
    behavior_sets,
};

pub use java::{
    ClassError, ClassTable, ILLEGAL_ARGUMENT, ILLEGAL_STATE, JavaException, Kind,
    RUNTIME_EXCEPTION, THROWABLE, TOOL_CALL_LIMIT_EXCEEDED, TOOL_EXECUTION_EXCEPTION, has_text,
    hash_map_bucket, is_java_whitespace,
};

pub use limits::{Breach, Counts, LimitsError, Max, OnExceeded, ToolCallLimits};

pub use manager::{
    BLANK_TOOL_NAME, Batch, Config, ExecResult, FINISH_REASON_LIMIT, LimitExceeded, ManagerError,
    NOT_EXECUTED, Pending, Step, answered_generation, breaches_pass_unshaped, ends_turn_at_breach,
    execute_tool_calls, execute_with_counts, tool_call_message,
};

pub use message::{Generation, Message, ToolCall, ToolResponse, answered, pairing};

pub use processor::{Processor, ProcessorKind, json_error_text};

pub use shared_list::SharedList;
pub use shared_map::SharedMap;
pub use shared_str::SharedStr;

pub use text::cut;

/// What `enum_table!`'s expansion names, from whichever
/// crate it runs in.
#[doc(hidden)]
pub mod __private {
    pub use super::table::distinct;
}

pub use tools::{Invocation, Outcome, Registered, ToolRef, ToolResult, ToolSpec, Toolbox, scan};
