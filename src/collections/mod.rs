//! The two containers the layers above share for speed: a map that holds a
//! few entries in place before it hashes ([`SmallMap`]), and the FNV-1a
//! hash for short keys nobody picks to collide ([`Fnv`]). They change how
//! fast an answer comes, never the answer.

mod fnv;
mod small_map;

// The checker's memos (in `toolcall-check`) are the only map keyed
// through FNV.
pub(crate) use fnv::fnv;
pub use fnv::{Fnv, FnvMap};
pub use small_map::SmallMap;
