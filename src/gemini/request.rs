//! `createGeminiRequest` and `messageToGeminiParts`: messages to contents
//! and parts, built whole or incrementally round by round.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::model::behavior::{Fixes, SpringAi};
use crate::model::java::has_text;
use crate::model::java::{ILLEGAL_ARGUMENT, JavaException};
use crate::model::message::Message;
use crate::model::shared_str::SharedStr;

use super::convert::{Payload, Source, convert_arguments_of, convert_tool_response_at};

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
    pub role: &'static str,
    /// The parts, in order.
    pub parts: Parts,
}

impl Content {
    /// The REST JSON shape of the content.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("role".into(), Value::String(self.role.to_owned()));
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

/// The parts of a content, read as a slice.
///
/// Most messages convert to one part (a text, a call, a response), and a
/// tool loop converts every message of every request: a lone part is held
/// in place, so such a content costs no list of its own.
#[derive(Clone)]
pub struct Parts(PartsRepr);

#[derive(Clone)]
enum PartsRepr {
    One(Part),
    /// None, or more than one (a list with room for more than one is never
    /// turned back into a lone part).
    Many(Vec<Part>),
}

impl Parts {
    /// No parts, with room for `n` (a list is reserved only for more than one).
    pub(crate) fn with_capacity(n: usize) -> Parts {
        Parts(PartsRepr::Many(if n > 1 {
            Vec::with_capacity(n)
        } else {
            Vec::new()
        }))
    }

    /// Appends a part.
    pub(crate) fn push(&mut self, part: Part) {
        self.0 = match std::mem::replace(&mut self.0, PartsRepr::Many(Vec::new())) {
            PartsRepr::Many(v) if v.capacity() == 0 => PartsRepr::One(part),
            PartsRepr::Many(mut v) => {
                v.push(part);
                PartsRepr::Many(v)
            }
            PartsRepr::One(first) => PartsRepr::Many(vec![first, part]),
        };
    }
}

impl std::ops::Deref for Parts {
    type Target = [Part];

    fn deref(&self) -> &[Part] {
        match &self.0 {
            PartsRepr::One(p) => std::slice::from_ref(p),
            PartsRepr::Many(v) => v,
        }
    }
}

impl<'a> IntoIterator for &'a Parts {
    type Item = &'a Part;
    type IntoIter = std::slice::Iter<'a, Part>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl From<Vec<Part>> for Parts {
    fn from(v: Vec<Part>) -> Parts {
        Parts(PartsRepr::Many(v))
    }
}

impl FromIterator<Part> for Parts {
    fn from_iter<I: IntoIterator<Item = Part>>(iter: I) -> Parts {
        let iter = iter.into_iter();
        let mut parts = Parts::with_capacity(iter.size_hint().0);
        for p in iter {
            parts.push(p);
        }
        parts
    }
}

/// Parts are equal when they hold equal parts in order, however held.
impl PartialEq for Parts {
    fn eq(&self, other: &Parts) -> bool {
        self[..] == other[..]
    }
}

impl std::fmt::Debug for Parts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
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
pub fn message_parts(message: &Message, fixes: Fixes) -> Result<Parts, JavaException> {
    message_parts_at(message, fixes, SpringAi::default())
}

/// [`message_parts`] as Spring AI `version` converts (its Jackson reads the
/// JSON).
fn message_parts_at(
    message: &Message,
    fixes: Fixes,
    version: SpringAi,
) -> Result<Parts, JavaException> {
    Ok(match message {
        Message::System { text } | Message::User { text } => {
            text.iter().map(|t| Part::Text(t.clone())).collect()
        }
        Message::Assistant {
            text,
            tool_calls,
            metadata,
        } => {
            let text = text.as_ref().filter(|t| has_text(t));
            let mut parts = Parts::with_capacity(tool_calls.len() + usize::from(text.is_some()));
            if let Some(t) = text {
                parts.push(Part::Text(t.clone()));
            }
            let mut signatures = match metadata.get("thoughtSignatures") {
                Some(Value::Array(list)) => list.iter(),
                _ => [].iter(),
            };
            for call in tool_calls {
                parts.push(Part::FunctionCall {
                    name: call.name.clone(),
                    args: convert_arguments_of(
                        call.arguments.as_ref().map(Source::Shared),
                        fixes,
                        version,
                    )?,
                    thought_signature: signatures.next().cloned(),
                });
            }
            parts
        }
        Message::Tool { responses } => {
            let mut parts = Parts::with_capacity(responses.len());
            for r in responses {
                parts.push(Part::FunctionResponse {
                    name: r.name.clone(),
                    response: convert_tool_response_at(&r.data, r.error, fixes, version)?,
                });
            }
            parts
        }
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
    build_request_at(messages, fixes, SpringAi::default())
}

/// [`build_request`] as Spring AI `version` builds it: the same rules, the
/// JSON read by that version's Jackson (docs/BEHAVIOUR.md, section 13).
///
/// ```
/// use toolcall_model::{gemini::build_request_at, model::{Message, SpringAi, ToolResponse}};
/// let deep = format!("{}{}", "[".repeat(501), "]".repeat(501));
/// let tool = Message::Tool { responses: vec![ToolResponse::new("c1", "t", &deep)].into() };
/// assert!(build_request_at(std::slice::from_ref(&tool), Default::default(), SpringAi::V2_0_1).is_err());
/// assert!(build_request_at(&[tool], Default::default(), SpringAi::V1_1_2).is_ok());
/// ```
pub fn build_request_at(
    messages: &[Message],
    fixes: Fixes,
    version: SpringAi,
) -> Result<Request, JavaException> {
    let mut system = None;
    for m in messages {
        if let Message::System { .. } = m {
            if system.is_some() {
                return Err(only_one_system());
            }
            system = Some(Arc::new(Content {
                role: "user",
                parts: message_parts_at(m, fixes, version)?,
            }));
        }
    }
    let mut contents = Vec::with_capacity(messages.len());
    for m in messages {
        if let Some(c) = content_of(m, fixes, version)? {
            contents.push(Arc::new(c));
        }
    }
    Ok(Request {
        system_instruction: system,
        contents,
    })
}

/// [`build_request`] of `messages` where an earlier request of the same
/// turn, `earlier_request`, was built from `earlier` under the same fixes:
/// each message equal to one of `earlier` (searched forward from the last
/// one taken, as a prompt that keeps the earlier messages keeps their
/// order) takes that message's content, shared, instead of being
/// converted again. A message converts to the same content wherever it
/// stands, so the request is equal to [`build_request`]'s, and so is the
/// failure, if any: only messages not taken are converted, in order.
pub(crate) fn build_request_reusing(
    messages: &[Message],
    fixes: Fixes,
    version: SpringAi,
    earlier: &[Message],
    earlier_request: &Request,
) -> Result<Request, JavaException> {
    let is_system = |m: &&Message| matches!(m, Message::System { .. });
    let mut system = None;
    for m in messages.iter().filter(is_system) {
        if system.is_some() {
            return Err(only_one_system());
        }
        let same = earlier.iter().find(is_system) == Some(m);
        system = Some(match &earlier_request.system_instruction {
            Some(c) if same => Arc::clone(c),
            _ => Arc::new(Content {
                role: "user",
                parts: message_parts_at(m, fixes, version)?,
            }),
        });
    }
    // The earlier request holds one content per non-system message, in order.
    let mut taken = earlier
        .iter()
        .filter(|m| !is_system(m))
        .zip(&earlier_request.contents);
    let mut contents = Vec::with_capacity(messages.len());
    for m in messages {
        if is_system(&m) {
            continue;
        }
        let mut probe = taken.clone();
        if let Some((_, c)) = probe.find(|(e, _)| *e == m) {
            contents.push(Arc::clone(c));
            taken = probe;
        } else if let Some(c) = content_of(m, fixes, version)? {
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
pub(super) fn content_of(
    m: &Message,
    fixes: Fixes,
    version: SpringAi,
) -> Result<Option<Content>, JavaException> {
    let role = match m {
        Message::System { .. } => return Ok(None),
        Message::Assistant { .. } => "model",
        Message::User { .. } | Message::Tool { .. } => "user",
    };
    Ok(Some(Content {
        role,
        parts: message_parts_at(m, fixes, version)?,
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
        self.build_at(messages, fixes, SpringAi::default())
    }

    /// [`IncrementalRequests::build`] as Spring AI `version` converts (its
    /// Jackson's limits, [`build_request_at`]); the same version at every
    /// call.
    ///
    /// ```
    /// use toolcall_model::{gemini::IncrementalRequests, model::{Message, SpringAi, ToolResponse}};
    /// let deep = format!("{}{}", "[".repeat(501), "]".repeat(501));
    /// let tool = Message::Tool { responses: vec![ToolResponse::new("c1", "t", &deep)].into() };
    /// let mut inc = IncrementalRequests::default();
    /// let mut msgs = vec![Message::user("a")];
    /// inc.build_at(&msgs, Default::default(), SpringAi::V1_1_2).unwrap();
    /// msgs.push(tool);
    /// assert!(inc.build_at(&msgs, Default::default(), SpringAi::V1_1_2).is_ok());
    /// ```
    pub fn build_at(
        &mut self,
        messages: &[Message],
        fixes: Fixes,
        version: SpringAi,
    ) -> Result<Request, JavaException> {
        let fresh = messages.get(self.seen..).unwrap_or_default();
        if self.seen == 0
            || self.seen > messages.len()
            || fresh.iter().any(|m| matches!(m, Message::System { .. }))
        {
            // A system message changes the instruction and is checked before
            // anything else converts: start over.
            let r = build_request_at(messages, fixes, version)?;
            self.system = r.system_instruction.clone();
            self.contents = r.contents.clone();
            self.seen = messages.len();
            return Ok(r);
        }
        // Appended in place; a failure leaves the contents as they were.
        let before = self.contents.len();
        for m in fresh {
            match content_of(m, fixes, version) {
                Ok(Some(c)) => self.contents.push(Arc::new(c)),
                Ok(None) => {}
                Err(e) => {
                    self.contents.truncate(before);
                    return Err(e);
                }
            }
        }
        self.seen = messages.len();
        Ok(Request {
            system_instruction: self.system.clone(),
            contents: self.contents.clone(),
        })
    }
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.
    #[test]
    fn example_message_parts() {
        use crate::gemini::{Part, message_parts};
        use crate::model::Message;
        let parts = message_parts(&Message::user("hi"), Default::default()).unwrap();
        assert_eq!(parts[..], [Part::Text("hi".into())]);
    }

    #[test]
    fn example_build_request_reusing() {
        use crate::gemini::{build_request, build_request_reusing};
        use crate::model::{Fixes, Message, ToolResponse};
        let tool = Message::Tool {
            responses: vec![ToolResponse::new("1", "x", "{\"a\":1}")].into(),
        };
        let earlier = vec![Message::user("q"), tool.clone()];
        let first = build_request(&earlier, Fixes::upstream()).unwrap();
        let next = vec![Message::user("p"), Message::user("q"), tool];
        let r = build_request_reusing(
            &next,
            Fixes::upstream(),
            Default::default(),
            &earlier,
            &first,
        )
        .unwrap();
        assert_eq!(r, build_request(&next, Fixes::upstream()).unwrap());
        assert!(std::sync::Arc::ptr_eq(&r.contents[2], &first.contents[1]));
    }

    #[test]
    fn example_with_capacity() {
        assert!(crate::gemini::Parts::with_capacity(1).is_empty());
    }

    #[test]
    fn example_push() {
        use crate::gemini::Part;
        use crate::gemini::Parts;
        let mut parts = Parts::with_capacity(0);
        parts.push(Part::Text("a".into()));
        assert_eq!(parts[0], Part::Text("a".into()));
    }

    #[test]
    fn example_parts() {
        use crate::gemini::Part;
        use crate::gemini::Parts;
        let mut parts = Parts::with_capacity(2);
        parts.push(Part::Text("a".into()));
        parts.push(Part::Text("b".into()));
        assert_eq!(parts.len(), 2);
        assert_eq!(
            parts,
            Parts::from(vec![Part::Text("a".into()), Part::Text("b".into())])
        );
    }
}
