//! The command line's modules: arguments, one module per group of
//! subcommands, and the YAML reader of `check`.

pub mod args;
pub mod check;
pub mod convert;
pub mod explore;
pub mod main_job;
pub mod sarif;
pub mod vectors;
pub mod yaml;
