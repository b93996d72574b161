//! `createGeminiRequest` and `messageToGeminiParts`: messages to contents
//! and parts, built whole or incrementally round by round.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::model::behavior::Fixes;
use crate::model::java::{JavaException, ILLEGAL_ARGUMENT};
use crate::model::limits::has_text;
use crate::model::message::Message;
use crate::model::shared_str::SharedStr;

use super::convert::{convert_arguments, convert_tool_response, Payload};

/// One part of a content.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    /// A text part.
    Text(SharedStr),
    /// A function call, with its thought signature if one was restored.
    FunctionCall {
        /// The tool name.
        name: SharedStr,
        /// The parsed arguments.
        args: Payload,
        /// The thought signature (as stored in the message metadata).
        thought_signature: Option<Value>,
    },
    /// A function response. No call id is sent.
    FunctionResponse {
        /// The tool name.
        name: SharedStr,
        /// The converted response.
        response: Payload,
    },
}

impl Part {
    /// The REST JSON shape of the part.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        match self {
            Part::Text(t) => {
                m.insert("text".into(), Value::String(t.to_string()));
            }
            Part::FunctionCall {
                name,
                args,
                thought_signature,
            } => {
                let mut fc = Map::new();
                fc.insert("name".into(), Value::String(name.to_string()));
                fc.insert("args".into(), args.to_value());
                m.insert("functionCall".into(), Value::Object(fc));
                if let Some(sig) = thought_signature {
                    m.insert("thoughtSignature".into(), sig.clone());
                }
            }
            Part::FunctionResponse { name, response } => {
                let mut fr = Map::new();
                fr.insert("name".into(), Value::String(name.to_string()));
                fr.insert("response".into(), response.to_value());
                m.insert("functionResponse".into(), Value::Object(fr));
            }
        }
        Value::Object(m)
    }
}

/// A content: a role (`user` or `model`) and its parts.
#[derive(Debug, Clone, PartialEq)]
pub struct Content {
    /// `user` or `model`.
    pub role: String,
    /// The parts, in order.
    pub parts: Vec<Part>,
}

impl Content {
    /// The REST JSON shape of the content.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("role".into(), Value::String(self.role.clone()));
        m.insert(
            "parts".into(),
            Value::Array(self.parts.iter().map(Part::to_value).collect()),
        );
        Value::Object(m)
    }

    pub(super) fn calls(&self) -> usize {
        self.parts
            .iter()
            .filter(|p| matches!(p, Part::FunctionCall { .. }))
            .count()
    }

    pub(super) fn responses(&self) -> usize {
        self.parts
            .iter()
            .filter(|p| matches!(p, Part::FunctionResponse { .. }))
            .count()
    }
}

/// A built request: the system instruction and the contents.
///
/// Contents are shared (`Arc`) so that the requests of a tool loop, each of
/// which extends the one before, hold each converted message once.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The system instruction (a `user` content), if any.
    pub system_instruction: Option<Arc<Content>>,
    /// The contents.
    pub contents: Vec<Arc<Content>>,
}

impl Request {
    /// The vector shape: `{"system_instruction": content or null, "contents": [...]}`.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert(
            "system_instruction".into(),
            self.system_instruction
                .as_ref()
                .map_or(Value::Null, |c| c.to_value()),
        );
        m.insert(
            "contents".into(),
            Value::Array(self.contents.iter().map(|c| c.to_value()).collect()),
        );
        Value::Object(m)
    }
}

/// `messageToGeminiParts`: the parts of one message.
pub fn message_parts(message: &Message, fixes: Fixes) -> Result<Vec<Part>, JavaException> {
    Ok(match message {
        Message::System { text } | Message::User { text } => {
            text.iter().map(|t| Part::Text(t.clone())).collect()
        }
        Message::Assistant {
            text,
            tool_calls,
            metadata,
        } => {
            let mut parts = Vec::with_capacity(tool_calls.len() + 1);
            if text.as_deref().is_some_and(has_text) {
                parts.push(Part::Text(text.clone().unwrap_or_default()));
            }
            let mut signatures = match metadata.get("thoughtSignatures") {
                Some(Value::Array(list)) => list.iter(),
                _ => [].iter(),
            };
            for call in tool_calls {
                parts.push(Part::FunctionCall {
                    name: call.name.clone(),
                    args: convert_arguments(call.arguments.as_deref(), fixes)?,
                    thought_signature: signatures.next().cloned(),
                });
            }
            parts
        }
        Message::Tool { responses } => responses
            .iter()
            .map(|r| {
                Ok(Part::FunctionResponse {
                    name: r.name.clone(),
                    response: convert_tool_response(&r.data, r.error, fixes)?,
                })
            })
            .collect::<Result<_, JavaException>>()?,
    })
}

/// `createGeminiRequest`: system messages (wherever they stand) become the
/// system instruction, checked first (more than one fails); every other
/// message becomes one content in order: user and tool messages `user`,
/// assistant messages `model`.
///
/// ```
/// use toolcall_model::{gemini::build_request, model::Message};
/// let r = build_request(&[Message::user("hi")], Default::default()).unwrap();
/// assert_eq!(r.contents[0].role, "user");
/// let two = [Message::System { text: Some("a".into()) }, Message::System { text: Some("b".into()) }];
/// assert_eq!(build_request(&two, Default::default()).unwrap_err().message.as_deref(),
///            Some("Only one system message is allowed in the prompt"));
/// ```
pub fn build_request(messages: &[Message], fixes: Fixes) -> Result<Request, JavaException> {
    let mut system = None;
    for m in messages {
        if let Message::System { .. } = m {
            if system.is_some() {
                return Err(only_one_system());
            }
            system = Some(Arc::new(Content {
                role: "user".into(),
                parts: message_parts(m, fixes)?,
            }));
        }
    }
    let mut contents = Vec::with_capacity(messages.len());
    for m in messages {
        if let Some(c) = content_of(m, fixes)? {
            contents.push(Arc::new(c));
        }
    }
    Ok(Request {
        system_instruction: system,
        contents,
    })
}

pub(super) fn only_one_system() -> JavaException {
    JavaException::new(
        ILLEGAL_ARGUMENT,
        Some("Only one system message is allowed in the prompt"),
    )
}

/// The content of a non-system message (`None` for a system message).
pub(super) fn content_of(m: &Message, fixes: Fixes) -> Result<Option<Content>, JavaException> {
    let role = match m {
        Message::System { .. } => return Ok(None),
        Message::Assistant { .. } => "model",
        Message::User { .. } | Message::Tool { .. } => "user",
    };
    Ok(Some(Content {
        role: role.into(),
        parts: message_parts(m, fixes)?,
    }))
}

/// Builds the requests of a conversation that only grows at its end, as a
/// tool loop's does: each message is converted once, and each request
/// shares the contents of the one before.
///
/// [`IncrementalRequests::build`] gives exactly what [`build_request`]
/// gives, provided the messages seen by earlier calls are unchanged (the
/// caller's promise; the tool loop keeps it by only appending).
///
/// ```
/// use toolcall_model::{gemini::{build_request, IncrementalRequests}, model::Message};
/// let mut inc = IncrementalRequests::default();
/// let mut msgs = vec![Message::user("a")];
/// inc.build(&msgs, Default::default()).unwrap();
/// msgs.push(Message::user("b"));
/// assert_eq!(inc.build(&msgs, Default::default()).unwrap(), build_request(&msgs, Default::default()).unwrap());
/// ```
#[derive(Debug, Clone, Default)]
pub struct IncrementalRequests {
    system: Option<Arc<Content>>,
    contents: Vec<Arc<Content>>,
    seen: usize,
}

impl IncrementalRequests {
    /// The request for `messages`, converting only the messages added since
    /// the last call.
    pub fn build(&mut self, messages: &[Message], fixes: Fixes) -> Result<Request, JavaException> {
        let fresh = messages.get(self.seen..).unwrap_or_default();
        if self.seen == 0
            || self.seen > messages.len()
            || fresh.iter().any(|m| matches!(m, Message::System { .. }))
        {
            // A system message changes the instruction and is checked before
            // anything else converts: start over.
            let r = build_request(messages, fixes)?;
            self.system = r.system_instruction.clone();
            self.contents = r.contents.clone();
            self.seen = messages.len();
            return Ok(r);
        }
        let mut added = Vec::with_capacity(fresh.len());
        for m in fresh {
            if let Some(c) = content_of(m, fixes)? {
                added.push(Arc::new(c));
            }
        }
        self.contents.extend(added);
        self.seen = messages.len();
        Ok(Request {
            system_instruction: self.system.clone(),
            contents: self.contents.clone(),
        })
    }
}
