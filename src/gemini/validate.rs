//! The validator: the rules the Gemini API applies to a request
//! (`docs/GEMINI.md`), with the confirmed texts.

use std::sync::Arc;

use super::*;

/// Which optional rules the validator applies (docs/GEMINI.md: the unconfirmed
/// and model-specific ones are off by default).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ValidatorOptions {
    /// Rule 12: Gemini 3 thought signatures on the first call of each step.
    pub thought_signatures: bool,
    /// Rule 14: consecutive same-role contents rejected (older models).
    pub alternate_roles: bool,
}

/// Rule 5's text.
pub const CALL_PLACEMENT: &str = "Please ensure that function call turn comes immediately after a user turn or after a function response turn.";
/// Rule 6's text.
pub const RESPONSE_PLACEMENT: &str =
    "Please ensure that function response turn comes immediately after a function call turn.";
/// Rule 7's text.
pub const COUNTS_MATCH: &str = "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.";
/// Rule 13, in this project's words: the API's own text is not known.
pub const NON_FINITE: &str = "A function payload holds an infinite or NaN number, which a protobuf Struct cannot represent (GEMINI.md rule 13; the API's own text is not known)";
/// Rule 8's text.
pub const NO_MIXING: &str = "Please ensure that function call turn contains at least one function_call part which can not be mixed with function_response parts.";

/// The Gemini API's verdict on a request: `Ok` or its rejection text.
///
/// Checks in content order: parts present (2), role (4), non-empty text (3),
/// response names (10), payload numbers (13), no mixing (8), call placement
/// (5), response placement (6), counts (7); then the optional rules 12 and
/// 14. Rule 9 (response is an object) holds by construction of [`Payload`].
///
/// ```
/// use toolcall_model::{gemini::{build_request, validate, ValidatorOptions}, model::message::{Message, ToolCall}};
/// let dangling = [Message::user("a"), Message::assistant(None, vec![ToolCall::new("1", "x", "{}")]), Message::user("b")];
/// let r = build_request(&dangling, Default::default()).unwrap();
/// assert!(validate(&r, ValidatorOptions::default()).unwrap_err().starts_with("Please ensure that the number"));
/// ```
pub fn validate(request: &Request, opts: ValidatorOptions) -> Result<(), String> {
    validate_from(request, 0, opts)
}

/// [`validate`] for a request whose contents before `from` were already
/// accepted as part of an earlier request that this one extends: each
/// content rule looks only at a content and its neighbours, so only the
/// contents from `from` on are checked (`from` must include the earlier
/// request's last content, whose successor is new). The optional rules,
/// which look across the turn, always check everything.
///
/// ```
/// use toolcall_model::{gemini::{build_request, validate, validate_from}, model::message::Message};
/// let r = build_request(&[Message::user("a"), Message::user("b")], Default::default()).unwrap();
/// assert_eq!(validate_from(&r, 1, Default::default()), validate(&r, Default::default()));
/// ```
pub fn validate_from(request: &Request, from: usize, opts: ValidatorOptions) -> Result<(), String> {
    let contents = &request.contents;
    if contents.is_empty() {
        return Err("* GenerateContentRequest.contents: contents is not specified".into());
    }
    for (i, c) in contents.iter().enumerate().skip(from) {
        if c.parts.is_empty() {
            return Err(format!(
                "* GenerateContentRequest.contents[{i}].parts: contents.parts must not be empty."
            ));
        }
        if c.role != "user" && c.role != "model" {
            return Err("Please use a valid role: user, model.".into());
        }
        for (j, p) in c.parts.iter().enumerate() {
            match p {
                Part::Text(t) if t.is_empty() => {
                    return Err("Unable to submit request because it has an empty text parameter. Add a value to the parameter and try again.".into());
                }
                Part::FunctionResponse { name, .. } if name.is_empty() => {
                    return Err(format!("* GenerateContentRequest.contents[{i}].parts[{j}].function_response.name: Name cannot be empty."));
                }
                Part::FunctionResponse { response: p, .. } | Part::FunctionCall { args: p, .. }
                    if p.has_non_finite() =>
                {
                    return Err(format!("{NON_FINITE} (contents[{i}].parts[{j}])"));
                }
                _ => {}
            }
        }
        let calls = c.calls();
        let responses = c.responses();
        if calls > 0 && responses > 0 {
            return Err(NO_MIXING.into());
        }
        let prev = i.checked_sub(1).map(|p| &contents[p]);
        if calls > 0 {
            let ok = match prev {
                Some(p) if p.responses() > 0 => true,
                Some(p) => p.role == "user" && p.calls() == 0,
                None => false,
            };
            if !ok || c.role != "model" {
                return Err(CALL_PLACEMENT.into());
            }
        }
        if responses > 0 && prev.is_none_or(|p| p.calls() == 0) {
            return Err(RESPONSE_PLACEMENT.into());
        }
        if calls > 0 {
            let answered = contents.get(i + 1).map_or(0, |c| c.responses());
            if answered != calls {
                return Err(COUNTS_MATCH.into());
            }
        }
    }
    if opts.alternate_roles && contents.windows(2).any(|w| w[0].role == w[1].role) {
        return Err(
            "Please ensure that multiturn requests alternate between user and model.".into(),
        );
    }
    if opts.thought_signatures {
        check_signatures(contents)?;
    }
    Ok(())
}

/// Rule 12: in the current turn (from the last user content without function
/// responses), the first function-call part of each model step carries a
/// thought signature.
pub(super) fn check_signatures(contents: &[Arc<Content>]) -> Result<(), String> {
    let start = contents
        .iter()
        .rposition(|c| c.role == "user" && c.responses() == 0)
        .unwrap_or(0);
    for c in &contents[start..] {
        let first_call = c.parts.iter().find_map(|p| match p {
            Part::FunctionCall {
                thought_signature, ..
            } => Some(thought_signature.is_some()),
            _ => None,
        });
        if first_call == Some(false) {
            return Err("Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:...` , position 1. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.".into());
        }
    }
    Ok(())
}
