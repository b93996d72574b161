//! The checker's independent oracles, one per rule, shared by the
//! invariants, the fuzz bodies and the property tests: a JSON reader and
//! tree ([`json`]), Jackson's read limits ([`limits`]) and the reference
//! counts of the tool-call limits ([`counts`]). None of them uses the code
//! it checks.

pub mod counts;
pub mod json;
pub mod limits;

pub use counts::RefCounts;
pub use json::{Json, Scan, is_whole_json, scan_strict, scan_value};
pub use limits::{JACKSON_MAX_DEPTH, JACKSON_MAX_NAME_LEN, JACKSON_MAX_NUMBER_LEN};
