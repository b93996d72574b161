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
    behavior_sets, BehaviorSet, Fix, Fixes, SpringAi, UnknownFix, UnknownSetName, UnknownSpringAi,
};

pub use java::{
    has_text, is_java_whitespace, simple_name, ClassError, ClassTable, JavaException, Kind,
    ILLEGAL_ARGUMENT, ILLEGAL_STATE, NULL_POINTER, RUNTIME_EXCEPTION, THROWABLE,
    TOOL_CALL_LIMIT_EXCEEDED, TOOL_EXECUTION_EXCEPTION, TOOL_EXECUTION_NULL_CAUSE,
};

pub use limits::{
    current_turn, Breach, Counts, LimitsError, Max, OnExceeded, ToolCallLimits,
    DEFAULT_MAX_CALLS_PER_TOOL, DEFAULT_MAX_TOTAL_TOOL_CALLS,
};

pub use manager::{
    answered_generation, ends_turn_at_breach, execute_tool_calls, execute_with_counts,
    limit_generation, tool_call_message, Batch, Config, ExecResult, LimitExceeded, ManagerError,
    Pending, Step, BLANK_TOOL_NAME, FINISH_REASON_LIMIT, METADATA_PARTIAL_TOOL_RESPONSES,
    NOT_EXECUTED, NOT_EXECUTED_FAILED,
};

pub use message::{answered, pairing, Generation, Message, ToolCall, ToolResponse};

pub use processor::{
    is_blank, json_error_text, tool_execution_exception, write_jackson_string, Processor,
    ProcessorKind,
};

pub use shared_list::SharedList;
pub use shared_map::SharedMap;
pub use shared_str::SharedStr;

pub use text::{cut, cut_bytes};

pub use tools::{
    duplicate_request_names, Invocation, Outcome, Registered, ToolRef, ToolResult, ToolSpec,
    Toolbox,
};
