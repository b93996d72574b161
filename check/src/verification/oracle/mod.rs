//! The checker's independent oracles, one per rule, shared by the
//! invariants, the fuzz bodies and the property tests: a JSON reader and
//! tree (`json`), Jackson's read limits (`limits`) and the reference
//! counts of the tool-call limits (`counts`). None of them uses the code
//! it checks.

pub(crate) mod counts;
pub(crate) mod json;
pub(crate) mod limits;

pub use counts::RefCounts;
pub(crate) use json::Scan;
pub use json::is_whole_json;
pub(crate) use json::{Json, scan_strict, scan_value};
pub(crate) use limits::JACKSON_MAX_DEPTH;
