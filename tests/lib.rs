//! The integration tests, in one binary: conformance vectors, the command
//! line, bad input, the property suite, the fuzz corpora replay, and the
//! differential test against real Jackson.

mod support;

mod bad_input;
mod cli;
mod conformance;
mod fuzz_replay;
mod jackson_diff;
mod java_diff;
mod properties;
