//! The integration tests, in one binary: conformance vectors, the command
//! line, bad input, the property suite, the fuzz corpora replay, the
//! differential test against real Jackson, and the binding differential
//! against Spring Boot, check's verdicts against the invariant checker, and
//! the README's sample outputs against the real ones.

// The 100-line limit (clippy.toml) is for the code under test; a test here
// is one scenario read top to bottom (a generated file, a table of cases, a
// reference state machine), which splitting would scatter.
#![allow(clippy::too_many_lines)]

mod support;

// libtest starts tests in the order of their names, two at a time on two
// cores: the fix libraries' Maven run, the longest test by far, is named to
// start first, so that the others fill the second thread around it.
#[path = "fix_library.rs"]
mod a_fix_library;
mod bad_input;
mod bounded;
mod check_1_1;
mod check_model;
mod cli;
mod conformance;
mod dependencies;
mod doc_links;
mod fix_table;
mod fuzz_replay;
mod jackson_diff;
mod java_diff;
mod layering;
mod limits;
mod properties;
mod readme_samples;
mod schema;
mod spring_ai_option;
mod spring_binding;
