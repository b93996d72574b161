//! The Gemini conversion of `GoogleGenAiChatModel` (`createGeminiRequest`,
//! `messageToGeminiParts`, `parseJsonToMap`), its fixes, and a validator of
//! what the Gemini API accepts (`docs/GEMINI.md`).

mod convert;
mod request;
#[cfg(test)]
mod tests;
mod validate;

pub use convert::*;
pub use request::*;
pub use validate::*;
