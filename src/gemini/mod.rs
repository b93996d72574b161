//! The Gemini conversion of `GoogleGenAiChatModel` (`createGeminiRequest`,
//! `messageToGeminiParts`, `parseJsonToMap`), its fixes, and a validator of
//! what the Gemini API accepts (`docs/GEMINI.md`).

mod convert;
mod request;
#[cfg(test)]
mod tests;
mod validate;

pub use convert::{
    Payload, Source, convert_arguments, convert_tool_response, convert_tool_response_at,
    parse_json_to_map, pr_6049_parse_json_to_map, write_tool_response,
};
pub(crate) use request::build_request_reusing;
pub use request::{
    Content, IncrementalRequests, Part, Parts, Request, build_request, build_request_at,
    message_parts,
};
pub use validate::{Refusal, Rejection, Rule, ValidatorOptions, verdict};
pub(crate) use validate::{validate, validate_from};
