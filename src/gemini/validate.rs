//! The validator: the rules the Gemini API applies to a request
//! (`docs/GEMINI.md`), with the confirmed texts.

use std::sync::Arc;

use crate::model::java::JavaException;

use super::request::{Content, Part, Request};

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
pub(crate) const CALL_PLACEMENT: &str = "Please ensure that function call turn comes immediately after a user turn or after a function response turn.";
/// Rule 6's text.
pub(crate) const RESPONSE_PLACEMENT: &str =
    "Please ensure that function response turn comes immediately after a function call turn.";
/// Rule 7's text.
pub(crate) const COUNTS_MATCH: &str = "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.";
/// Rule 13, in this project's words: the API's own text is not known.
pub(crate) const NON_FINITE: &str = "A function payload holds an infinite or NaN number, which a protobuf Struct cannot represent (GEMINI.md rule 13; the API's own text is not known)";
/// Rule 8's text.
pub(crate) const NO_MIXING: &str = "Please ensure that function call turn contains at least one function_call part which can not be mixed with function_response parts.";

/// A rule of docs/GEMINI.md's "What the API checks" that can reject a
/// request (9 and 11 are not checks of their own).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Rule {
    /// 1. Non-empty request.
    NonEmptyRequest,
    /// 2. Non-empty parts.
    NonEmptyParts,
    /// 3. Non-empty text.
    NonEmptyText,
    /// 4. Roles.
    Roles,
    /// 5. Call turn placement.
    CallPlacement,
    /// 6. Response turn placement.
    ResponsePlacement,
    /// 7. Counts match.
    CountsMatch,
    /// 8. No mixing.
    NoMixing,
    /// 10. Response name.
    ResponseName,
    /// 12. A signature on the first call of each step (optional).
    ThoughtSignatures,
    /// 13. Finite numbers.
    FiniteNumbers,
    /// 14. Alternating roles (optional).
    AlternateRoles,
}

/// The Gemini API's rejection of a request: the rule broken and the API's
/// text (shown as the text alone).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// The rule broken.
    pub rule: Rule,
    /// The API's text (for rule 13, this project's words).
    pub text: String,
}

impl Rejection {
    fn new(rule: Rule, text: impl Into<String>) -> Self {
        Rejection {
            rule,
            text: text.into(),
        }
    }
}

impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

/// Why a request did not reach the model: it could not be built (Spring
/// throws) or the API rejects it. Shown as the exception (`CLASS: MESSAGE`)
/// or the API's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Building the request threw.
    NotBuilt(JavaException),
    /// The API rejects the request.
    Rejected(Rejection),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::NotBuilt(e) => write!(f, "{e}"),
            Refusal::Rejected(r) => write!(f, "{r}"),
        }
    }
}

/// The verdict on a request as built: the exception if building threw,
/// else the validator's.
pub fn verdict(
    build: Result<Request, JavaException>,
    opts: ValidatorOptions,
) -> Result<(), Refusal> {
    match build {
        Ok(r) => validate(&r, opts).map_err(Refusal::Rejected),
        Err(e) => Err(Refusal::NotBuilt(e)),
    }
}

/// The Gemini API's verdict on a request: `Ok` or its rejection.
///
/// Checks in content order: parts present (2), role (4), non-empty text (3),
/// response names (10), payload numbers (13), no mixing (8), call placement
/// (5), response placement (6), counts (7); then the optional rules 12 and
/// 14. Rule 9 (response is an object) holds by construction of [`Payload`](super::Payload).
pub(crate) fn validate(request: &Request, opts: ValidatorOptions) -> Result<(), Rejection> {
    validate_from(request, 0, opts)
}

/// [`validate`] for a request whose contents before `from` were already
/// accepted as part of an earlier request that this one extends: each
/// content rule looks only at a content and its neighbours, so only the
/// contents from `from` on are checked (`from` must include the earlier
/// request's last content, whose successor is new). The optional rules,
/// which look across the turn, always check everything.
pub(crate) fn validate_from(
    request: &Request,
    from: usize,
    opts: ValidatorOptions,
) -> Result<(), Rejection> {
    let contents = &request.contents;
    if contents.is_empty() {
        return Err(Rejection::new(
            Rule::NonEmptyRequest,
            "* GenerateContentRequest.contents: contents is not specified",
        ));
    }
    for (i, c) in contents.iter().enumerate().skip(from) {
        if c.parts.is_empty() {
            return Err(Rejection::new(
                Rule::NonEmptyParts,
                format!(
                    "* GenerateContentRequest.contents[{i}].parts: contents.parts must not be empty."
                ),
            ));
        }
        if c.role != "user" && c.role != "model" {
            return Err(Rejection::new(
                Rule::Roles,
                "Please use a valid role: user, model.",
            ));
        }
        for (j, p) in c.parts.iter().enumerate() {
            match p {
                Part::Text(t) if t.is_empty() => {
                    return Err(Rejection::new(
                        Rule::NonEmptyText,
                        "Unable to submit request because it has an empty text parameter. Add a value to the parameter and try again.",
                    ));
                }
                Part::FunctionResponse { name, .. } if name.is_empty() => {
                    return Err(Rejection::new(
                        Rule::ResponseName,
                        format!(
                            "* GenerateContentRequest.contents[{i}].parts[{j}].function_response.name: Name cannot be empty."
                        ),
                    ));
                }
                Part::FunctionResponse { response: p, .. } | Part::FunctionCall { args: p, .. }
                    if p.has_non_finite() =>
                {
                    return Err(Rejection::new(
                        Rule::FiniteNumbers,
                        format!("{NON_FINITE} (contents[{i}].parts[{j}])"),
                    ));
                }
                _ => {}
            }
        }
        let calls = c.calls();
        let responses = c.responses();
        if calls > 0 && responses > 0 {
            return Err(Rejection::new(Rule::NoMixing, NO_MIXING));
        }
        let prev = i.checked_sub(1).map(|p| &contents[p]);
        if calls > 0 {
            let ok = match prev {
                Some(p) if p.responses() > 0 => true,
                Some(p) => p.role == "user" && p.calls() == 0,
                None => false,
            };
            if !ok || c.role != "model" {
                return Err(Rejection::new(Rule::CallPlacement, CALL_PLACEMENT));
            }
        }
        if responses > 0 && prev.is_none_or(|p| p.calls() == 0) {
            return Err(Rejection::new(Rule::ResponsePlacement, RESPONSE_PLACEMENT));
        }
        if calls > 0 {
            let answered = contents.get(i + 1).map_or(0, |c| c.responses());
            if answered != calls {
                return Err(Rejection::new(Rule::CountsMatch, COUNTS_MATCH));
            }
        }
    }
    if opts.alternate_roles && contents.windows(2).any(|w| w[0].role == w[1].role) {
        return Err(Rejection::new(
            Rule::AlternateRoles,
            "Please ensure that multiturn requests alternate between user and model.",
        ));
    }
    if opts.thought_signatures {
        check_signatures(contents)?;
    }
    Ok(())
}

/// Rule 12: in the current turn (from the last user content without function
/// responses), the first function-call part of each model step carries a
/// thought signature.
pub(super) fn check_signatures(contents: &[Arc<Content>]) -> Result<(), Rejection> {
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
            return Err(Rejection::new(
                Rule::ThoughtSignatures,
                "Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:...` , position 1. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.",
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.
    #[test]
    fn example_validate() {
        use crate::gemini::{ValidatorOptions, build_request, validate};
        use crate::model::{Message, ToolCall};
        let dangling = [
            Message::user("a"),
            Message::assistant(None, vec![ToolCall::new("1", "x", "{}")]),
            Message::user("b"),
        ];
        let r = build_request(&dangling, Default::default()).unwrap();
        let e = validate(&r, ValidatorOptions::default()).unwrap_err();
        assert_eq!(e.rule, crate::gemini::Rule::CountsMatch);
        assert!(e.text.starts_with("Please ensure that the number"));
    }

    #[test]
    fn example_validate_from() {
        use crate::gemini::{build_request, validate, validate_from};
        use crate::model::Message;
        let r = build_request(
            &[Message::user("a"), Message::user("b")],
            Default::default(),
        )
        .unwrap();
        assert_eq!(
            validate_from(&r, 1, Default::default()),
            validate(&r, Default::default())
        );
    }
}
