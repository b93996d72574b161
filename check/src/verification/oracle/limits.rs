//! Jackson 3's read limits (`StreamReadConstraints`) as the checker states
//! them, apart from the model's own ([`toolcall_model::json::read_lenient`]).

/// Jackson 3's nesting-depth limit.
pub(crate) const JACKSON_MAX_DEPTH: usize = 500;

/// Jackson 3's number-length limit, in digits.
pub(crate) const JACKSON_MAX_NUMBER_LEN: usize = 1000;

/// Jackson 3's property-name limit, in UTF-16 units.
pub(crate) const JACKSON_MAX_NAME_LEN: usize = 50_000;
