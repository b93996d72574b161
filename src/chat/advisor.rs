//! The seed's workaround advisor, `GeminiToolTextAdvisor`, written from the
//! seed's description: it rewrites the tool responses of the request's last
//! message that it does not take for JSON.

use crate::model::java::JavaException;
use crate::model::message::{Message, ToolResponse};
use crate::model::processor::json_error_text;

/// `GeminiToolTextAdvisor.isJson`: non-empty and starting with `{`, `[` or `"`.
///
/// ```
/// assert!(toolcall_model::chat::advisor_thinks_json("[ERROR] disk full"));
/// assert!(!toolcall_model::chat::advisor_thinks_json("42"));
/// ```
pub fn advisor_thinks_json(text: &str) -> bool {
    matches!(text.chars().next(), Some('{' | '[' | '"'))
}

/// Whether [`gemini_tool_text`] changes `messages` or throws: the request
/// is empty, or its last message is a tool message with a response the
/// advisor does not take for JSON.
pub(crate) fn advisor_rewrites(messages: &[Message]) -> bool {
    match messages.last() {
        None => true,
        Some(Message::Tool { responses }) => {
            responses.iter().any(|r| !advisor_thinks_json(&r.data))
        }
        Some(_) => false,
    }
}

/// The workaround advisor's rewrite of a request: if its last message is a
/// tool message, each response its test calls non-JSON becomes
/// `{"error":DATA}` (`JsonHelper.toJson(Map.of("error", data))`). The seed's
/// advisor reads `messages.getLast()`, which throws
/// `java.util.NoSuchElementException` (no message) on an empty request.
///
/// ```
/// use toolcall_model::{model::{Message, ToolResponse}, chat::gemini_tool_text};
/// let mut m = vec![Message::Tool { responses: vec![ToolResponse::new("1", "x", "plain")].into() }];
/// gemini_tool_text(&mut m).unwrap();
/// assert_eq!(m[0].responses()[0].data, r#"{"error":"plain"}"#);
/// assert_eq!(gemini_tool_text(&mut []).unwrap_err().class, "java.util.NoSuchElementException");
/// ```
pub fn gemini_tool_text(messages: &mut [Message]) -> Result<(), JavaException> {
    if messages.is_empty() {
        return Err(JavaException::new("java.util.NoSuchElementException", None));
    }
    // A shared list is copied only where a response is rewritten.
    if !advisor_rewrites(messages) {
        return Ok(());
    }
    if let Some(Message::Tool { responses }) = messages.last_mut() {
        for r in responses.make_mut() {
            if !advisor_thinks_json(&r.data) {
                *r = ToolResponse {
                    id: r.id.clone(),
                    name: r.name.clone(),
                    data: json_error_text(&r.data).into(),
                    // Spring's ToolResponse has no error mark: the rewritten
                    // response is an ordinary one.
                    error: false,
                };
            }
        }
    }
    Ok(())
}
