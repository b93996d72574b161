//! Conversation data: messages, tool calls, tool responses and generations.
//!
//! These mirror Spring AI's `Message` hierarchy (`SystemMessage`, `UserMessage`,
//! `AssistantMessage`, `ToolResponseMessage`), `AssistantMessage.ToolCall`,
//! `ToolResponseMessage.ToolResponse` and `Generation`. Their serde form is the
//! JSON shape of the conformance vectors (see `docs/VECTORS.md`).

use serde::{Deserialize, Serialize};

use crate::model::shared_list::SharedList;
use crate::model::shared_map::SharedMap;
use crate::model::shared_str::SharedStr;

/// One tool call requested by the model (`AssistantMessage.ToolCall`).
///
/// ```
/// use toolcall_model::model::ToolCall;
/// let call = ToolCall::new("c1", "echo", "{}");
/// assert_eq!(call.kind, "function");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCall {
    /// The call id the model chose.
    pub id: SharedStr,
    /// The call type, normally `"function"`.
    #[serde(rename = "type", default = "function_kind")]
    pub kind: SharedStr,
    /// The tool's name.
    pub name: SharedStr,
    /// The raw argument text: may be null, blank, or not JSON at all.
    #[serde(default)]
    pub arguments: Option<SharedStr>,
}

fn function_kind() -> SharedStr {
    SharedStr::from("function")
}

impl ToolCall {
    /// A `function` call with the given id, name and arguments.
    ///
    /// ```
    /// let c = toolcall_model::model::ToolCall::new("1", "x", "{\"a\":1}");
    /// assert_eq!(c.arguments.as_deref(), Some("{\"a\":1}"));
    /// ```
    pub fn new(id: &str, name: &str, arguments: &str) -> Self {
        ToolCall {
            id: id.into(),
            kind: function_kind(),
            name: name.into(),
            arguments: Some(arguments.into()),
        }
    }
}

/// One tool response (`ToolResponseMessage.ToolResponse`).
///
/// `error` is the model's own mark for a response produced by a failure
/// (processor output, limit breach, closed dangling call); Spring's record has
/// no such field and only the `error-key` fix reads it.
///
/// ```
/// use toolcall_model::model::ToolResponse;
/// let r = ToolResponse::new("c1", "echo", "\"hi\"");
/// assert!(!r.error);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolResponse {
    /// The id of the call this answers.
    pub id: SharedStr,
    /// The tool's name.
    pub name: SharedStr,
    /// `responseData`: the text handed back to the model.
    pub data: SharedStr,
    /// Whether a failure produced this response.
    #[serde(default, skip_serializing_if = "is_false")]
    pub error: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl ToolResponse {
    /// A successful response.
    ///
    /// ```
    /// let r = toolcall_model::model::ToolResponse::new("1", "x", "42");
    /// assert_eq!(r.data, "42");
    /// ```
    pub fn new(id: &str, name: &str, data: &str) -> Self {
        ToolResponse {
            id: id.into(),
            name: name.into(),
            data: data.into(),
            error: false,
        }
    }
}

/// A conversation message.
///
/// ```
/// use toolcall_model::model::Message;
/// let m: Message = serde_json::from_str(r#"{"type":"user","text":"hi"}"#).unwrap();
/// assert!(matches!(m, Message::User { .. }));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum Message {
    /// `SystemMessage`.
    System {
        /// The text (may be null).
        #[serde(default)]
        text: Option<SharedStr>,
    },
    /// `UserMessage`.
    User {
        /// The text (may be null).
        #[serde(default)]
        text: Option<SharedStr>,
    },
    /// `AssistantMessage`.
    Assistant {
        /// The text (may be null).
        #[serde(default)]
        text: Option<SharedStr>,
        /// The tool calls, in order.
        #[serde(default, skip_serializing_if = "SharedList::is_empty")]
        tool_calls: SharedList<ToolCall>,
        /// Message metadata (where `thoughtSignatures` lives).
        #[serde(default, skip_serializing_if = "SharedMap::is_empty")]
        metadata: SharedMap,
    },
    /// `ToolResponseMessage`.
    Tool {
        /// The responses, in call order.
        responses: SharedList<ToolResponse>,
    },
}

impl Message {
    /// A user message.
    ///
    /// ```
    /// assert!(toolcall_model::model::Message::user("hi").is_user());
    /// ```
    pub fn user(text: &str) -> Self {
        Message::User {
            text: Some(text.into()),
        }
    }

    /// An assistant message with text and tool calls and no metadata.
    ///
    /// ```
    /// use toolcall_model::model::{Message, ToolCall};
    /// let m = Message::assistant(None, vec![ToolCall::new("1", "x", "{}")]);
    /// assert_eq!(m.tool_calls().len(), 1);
    /// ```
    pub fn assistant(text: Option<&str>, tool_calls: Vec<ToolCall>) -> Self {
        Message::Assistant {
            text: text.map(SharedStr::from),
            tool_calls: tool_calls.into(),
            metadata: SharedMap::new(),
        }
    }

    /// Whether this is a user message (a turn starts at the last one).
    ///
    /// ```
    /// assert!(!toolcall_model::model::Message::Tool { responses: vec![].into() }.is_user());
    /// ```
    pub fn is_user(&self) -> bool {
        matches!(self, Message::User { .. })
    }

    /// The tool calls of an assistant message; empty for any other message.
    ///
    /// ```
    /// assert!(toolcall_model::model::Message::user("x").tool_calls().is_empty());
    /// ```
    pub fn tool_calls(&self) -> &[ToolCall] {
        match self {
            Message::Assistant { tool_calls, .. } => tool_calls,
            _ => &[],
        }
    }

    /// The responses of a tool message; empty for any other message.
    ///
    /// ```
    /// assert!(toolcall_model::model::Message::user("x").responses().is_empty());
    /// ```
    pub fn responses(&self) -> &[ToolResponse] {
        match self {
            Message::Tool { responses } => responses,
            _ => &[],
        }
    }
}

/// A generation: an assistant message plus generation metadata.
///
/// In a model reply, `metadata` is the assistant message's metadata; in a
/// produced generation (`buildGeneration()`, `returnDirect`) it is the
/// generation's metadata. The vector format uses one key for both.
///
/// ```
/// use toolcall_model::model::Generation;
/// let g: Generation = serde_json::from_str(r#"{"type":"assistant","text":"hi"}"#).unwrap();
/// assert!(g.tool_calls.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Generation {
    /// Ignored `"type": "assistant"` marker.
    #[serde(rename = "type", default, skip_serializing)]
    pub kind: Option<String>,
    /// The text.
    #[serde(default)]
    pub text: Option<SharedStr>,
    /// The tool calls.
    #[serde(default, skip_serializing_if = "SharedList::is_empty")]
    pub tool_calls: SharedList<ToolCall>,
    /// The finish reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// Metadata (see the type's doc).
    #[serde(default, skip_serializing_if = "SharedMap::is_empty")]
    pub metadata: SharedMap,
}

impl Generation {
    /// The assistant message this generation carries.
    ///
    /// ```
    /// use toolcall_model::model::Generation;
    /// let g = Generation { text: Some("hi".into()), ..Default::default() };
    /// assert!(matches!(g.to_message(), toolcall_model::model::Message::Assistant { .. }));
    /// ```
    pub fn to_message(&self) -> Message {
        Message::Assistant {
            text: self.text.clone(),
            tool_calls: self.tool_calls.clone(),
            metadata: self.metadata.clone(),
        }
    }
}

/// The pairing rules of docs/GEMINI.md rules 5 to 8, checked on messages (system
/// messages, which become the system instruction, are skipped): each
/// assistant message with N > 0 tool calls follows a user or tool message
/// and is followed at once by a tool message with exactly N responses, and
/// every tool message follows an assistant message with tool calls.
///
/// ```
/// use toolcall_model::model::{pairing, Message, ToolCall, ToolResponse};
/// let call = Message::assistant(None, vec![ToolCall::new("1", "x", "{}")]);
/// let answer = Message::Tool { responses: vec![ToolResponse::new("1", "x", "1")].into() };
/// assert!(pairing(&[Message::user("q"), call.clone(), answer]).is_ok());
/// assert!(pairing(&[Message::user("q"), call, Message::user("next")]).is_err());
/// ```
pub fn pairing(messages: &[Message]) -> Result<(), String> {
    pairing_with(messages, true)
}

/// The pairing every chat API requires, whatever its turn-order rules: each
/// assistant message with N > 0 tool calls is followed at once by a tool
/// message with exactly N responses, and every tool message follows such
/// an assistant message. [`pairing`] adds Gemini's rule that a call follows
/// a user or tool message.
///
/// ```
/// use toolcall_model::model::{answered, pairing, Message, ToolCall, ToolResponse};
/// let call = Message::assistant(None, vec![ToolCall::new("1", "x", "{}")]);
/// let answer = Message::Tool { responses: vec![ToolResponse::new("1", "x", "1")].into() };
/// let m = [Message::user("q"), Message::assistant(Some("Let me check."), vec![]), call, answer];
/// assert!(answered(&m).is_ok() && pairing(&m).is_err());
/// ```
pub fn answered(messages: &[Message]) -> Result<(), String> {
    pairing_with(messages, false)
}

fn pairing_with(messages: &[Message], gemini_order: bool) -> Result<(), String> {
    let ms: Vec<(usize, &Message)> = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| !matches!(m, Message::System { .. }))
        .collect();
    for (j, &(i, m)) in ms.iter().enumerate() {
        let prev = j.checked_sub(1).map(|p| ms[p].1);
        match m {
            Message::Assistant { tool_calls, .. } if !tool_calls.is_empty() => {
                let n = tool_calls.len();
                if gemini_order
                    && !matches!(prev, Some(Message::User { .. } | Message::Tool { .. }))
                {
                    return Err(format!(
                        "message {i}, an assistant message with {n} tool call(s), does not follow a user or tool message"
                    ));
                }
                match ms.get(j + 1) {
                    Some((_, Message::Tool { responses })) if responses.len() == n => {}
                    Some((k, Message::Tool { responses })) => {
                        return Err(format!(
                            "message {i} has {n} tool call(s) but the tool message {k} after it has {} response(s)",
                            responses.len()
                        ));
                    }
                    _ => {
                        return Err(format!(
                            "message {i} has {n} tool call(s) and no tool message follows it (a dangling call)"
                        ));
                    }
                }
            }
            Message::Tool { .. } if !matches!(prev, Some(Message::Assistant { tool_calls, .. }) if !tool_calls.is_empty()) =>
            {
                return Err(format!(
                    "message {i}, a tool message, does not follow an assistant message with tool calls"
                ));
            }
            _ => {}
        }
    }
    Ok(())
}
