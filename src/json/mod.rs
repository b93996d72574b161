//! The JSON readers: the Jackson 3 mapper Spring AI's Gemini conversion
//! calls (lenient and strict), and numbers compared by value.
//!
//! Nothing here knows about tool calls; the Gemini conversion and the vector
//! format build on it.

pub(crate) mod decimal;
pub(crate) mod jackson;

pub use decimal::{decimal, same_number};
pub use jackson::{
    JValue, JacksonError, StrictShape, check_lenient, is_strict_json, read_lenient,
    read_lenient_whole, read_strict, strict_shape,
};
