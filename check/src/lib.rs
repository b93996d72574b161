//! toolcall-check: the configuration checker, the verification machinery and
//! the `toolcall-model` command of the reference model of Spring AI 2.0.1
//! tool calling. The model itself (the JSON readers, the modelled system,
//! the Gemini conversion, the tool loop, the vectors) is the library
//! `toolcall-model`, which this package uses through its public paths only.
//!
//! ```
//! use toolcall_check::config::{CheckScenario, Mark, Setup, bind, evaluate, parse_properties};
//! use toolcall_model::model::{Max, behavior_sets};
//!
//! // spring.ai.tools.* as Spring Boot binds it,
//! let docs = parse_properties(b"spring.ai.tools.limits.max-total-tool-calls=2\n").unwrap();
//! let bound = bind(&docs).unwrap();
//! assert_eq!(bound.limits.max_total, Max::Limited(2));
//! // then one scenario of `check` under upstream 2.0.1.
//! let v = evaluate(&Setup::default(), &behavior_sets()[0], CheckScenario::UnknownTool);
//! assert_eq!(v.mark, Mark::Raised);
//! ```
//!
//! # Layers
//!
//! Each module uses only those listed before it (`tests/layering.rs` checks),
//! above the model's layers, which the modules here name as `toolcall_model::model`,
//! `toolcall_model::chat` and so on through the imports at this root:
//!
//! * [`config`]: Spring Boot's binding of `spring.ai.tools.*`, the
//!   configuration checker and the main job;
//! * [`verification`]: scenarios, invariants, generators, the verdict matrix and
//!   the fuzz-target bodies;
//! * the command line (crate-private), whose entry point is [`main`]; the
//!   binary `toolcall-model` (`src/main.rs`) only calls it.
//!
//! # The public surface
//!
//! What the integration tests, the benches, the fuzz targets and a user of
//! the checker name:
//!
//! * `config`: what `check` is made of (`bind`, `parse_properties`,
//!   `read_yaml`, `Setup`, `evaluate`, `report`, and `answer` with its
//!   `Options` and `Sources`, the whole `check` as a library value) and the
//!   main job (`reproduce`, `table`).
//! * `verification`: one public module per tool (`exhaustive`, `random`,
//!   `footprint`, `generators`, `shard`, `invariants`, `fuzzing`, `oracle`,
//!   `scenario`), whose entry points share names such as `run` and `limits`.
//!
//! What only the command uses (its arguments, its output formats, the
//! SARIF writer, the helpers of `check`'s report) is crate-private, and so
//! is what only a module uses; `unreachable_pub` is warned (and denied by
//! the CI's clippy).
#![forbid(unsafe_code)]
#![warn(unreachable_pub)]

mod cli;
pub mod config;
pub mod verification;

pub use cli::check::texts::{
    CheckOutput, check_texts, judge_setup, judge_setup_asked, judge_setup_with_library,
};
pub use cli::main;
