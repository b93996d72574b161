//! The Gemini conversion of `GoogleGenAiChatModel` (`createGeminiRequest`,
//! `messageToGeminiParts`, `parseJsonToMap`), its fixes, and a validator of
//! what the Gemini API accepts (`docs/GEMINI.md`).

mod convert;
mod request;
#[cfg(test)]
mod tests;
mod validate;

pub use convert::{
    convert_arguments, convert_tool_response, parse_json_to_map, pr_6049_parse_json_to_map,
    write_tool_response, Payload, Source,
};
pub use request::{
    build_request, build_request_reusing, message_parts, Content, IncrementalRequests, Part, Parts,
    Request,
};
pub use validate::{
    validate, validate_from, verdict, Refusal, Rejection, Rule, ValidatorOptions, CALL_PLACEMENT,
    COUNTS_MATCH, NON_FINITE, NO_MIXING, RESPONSE_PLACEMENT,
};
