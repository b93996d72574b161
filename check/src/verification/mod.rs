//! The verification machinery: scenarios, invariants, generators, the verdict
//! matrix (random and exhaustive) and the bodies of the fuzz targets.
//!
//! In `toolcall-check`, not the model's library, so that a user of the
//! model and the vectors compiles neither proptest nor arbitrary.

pub mod exhaustive;
pub mod fix_columns;
pub mod footprint;
#[doc(hidden)]
pub mod fuzzing;
pub mod generators;
pub mod invariants;
pub mod oracle;
pub mod random;
pub mod scenario;
pub mod shard;
pub(crate) mod turn_bound;
