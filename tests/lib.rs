//! The integration tests, in one binary: conformance vectors, the command
//! line, bad input, the property suite, the fuzz corpora replay, the
//! differential test against real Jackson, and the binding differential
//! against Spring Boot.

mod support;

mod bad_input;
mod bounded;
mod cli;
mod conformance;
mod dependencies;
mod doc_links;
mod fuzz_replay;
mod jackson_diff;
mod java_diff;
mod layering;
mod properties;
mod schema;
mod spring_binding;
