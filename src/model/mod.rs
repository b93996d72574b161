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
    Acts, BehaviorSet, Fix, Fixes, LIBRARY_BEANS, SpringAi, UnknownFix, UnknownSetName,
    UnknownSpringAi, behavior_sets, fix_table,
};

pub use java::{
    ClassError, ClassTable, ILLEGAL_ARGUMENT, ILLEGAL_STATE, JavaException, Kind, NULL_POINTER,
    RUNTIME_EXCEPTION, THROWABLE, TOOL_CALL_LIMIT_EXCEEDED, TOOL_EXECUTION_EXCEPTION,
    TOOL_EXECUTION_NULL_CAUSE, has_text, is_java_whitespace, simple_name,
};

pub use limits::{
    Breach, Counts, DEFAULT_MAX_CALLS_PER_TOOL, DEFAULT_MAX_TOTAL_TOOL_CALLS, LimitsError, Max,
    OnExceeded, ToolCallLimits, current_turn,
};

pub use manager::{
    BLANK_TOOL_NAME, Batch, Config, ExecResult, FINISH_REASON_LIMIT, LimitExceeded,
    METADATA_PARTIAL_TOOL_RESPONSES, ManagerError, NOT_EXECUTED, NOT_EXECUTED_FAILED, Pending,
    Step, answered_generation, ends_turn_at_breach, execute_tool_calls, execute_with_counts,
    limit_generation, tool_call_message,
};

pub use message::{Generation, Message, ToolCall, ToolResponse, answered, pairing};

pub use processor::{
    Processor, ProcessorKind, is_blank, json_error_text, tool_execution_exception,
    write_jackson_string,
};

pub use shared_list::SharedList;
pub use shared_map::SharedMap;
pub use shared_str::SharedStr;

pub use text::{cut, cut_bytes};

pub use tools::{
    Invocation, Outcome, Registered, ToolRef, ToolResult, ToolSpec, Toolbox,
    duplicate_request_names,
};
