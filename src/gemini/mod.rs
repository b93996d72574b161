//! The Gemini conversion of `GoogleGenAiChatModel` (`createGeminiRequest`,
//! `messageToGeminiParts`, `parseJsonToMap`), its fixes, and a validator of
//! what the Gemini API accepts (`docs/GEMINI.md`).

mod convert;
mod request;
#[cfg(test)]
mod tests;
mod validate;

pub use convert::{
    Payload, Source, convert_arguments, convert_tool_response, parse_json_to_map,
    pr_6049_parse_json_to_map, write_tool_response,
};
pub use request::{
    Content, IncrementalRequests, Part, Parts, Request, build_request, build_request_reusing,
    message_parts,
};
pub use validate::{
    CALL_PLACEMENT, COUNTS_MATCH, NO_MIXING, NON_FINITE, RESPONSE_PLACEMENT, Refusal, Rejection,
    Rule, ValidatorOptions, validate, validate_from, verdict,
};
