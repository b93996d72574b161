//! The integration tests, in one binary: conformance vectors, the command
//! line, and bad input.

mod support;

mod bad_input;
mod cli;
mod conformance;
