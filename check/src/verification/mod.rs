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

/// The stride of a unit test that walks every `deep`-th case of a large
/// space: `deep` under `TOOLCALL_DEEP_TESTS=1` (CI's deeper runs), four
/// times it otherwise, so that the README's `cargo test` stays a few
/// minutes. The default's cases are a subset of the deep run's.
#[cfg(test)]
pub(crate) fn test_stride(deep: u64) -> u64 {
    if std::env::var("TOOLCALL_DEEP_TESTS").is_ok_and(|v| v == "1") {
        deep
    } else {
        4 * deep
    }
}
