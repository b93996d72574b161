//! Fuzz target bodies, kept in the library (as rustls' `internal::fuzzing`)
//! so that each target in `fuzz/` is one line and `tests/fuzz_replay.rs`
//! replays the checked-in corpus and every saved crash through the very same
//! functions on stable Rust.
//!
//! Every target takes the raw input bytes, rejects oversized inputs at once,
//! and asserts an invariant, not just "no panic":
//!
//! * [`convert`]: tool output through the upstream and fixed conversions;
//! * [`lenient_parser`]: text through the Jackson-faithful parser, checked
//!   against an independent reading of the decision procedure of `docs/JSON.md`;
//! * [`manager`]: an [`arbitrary`] scenario through the manager, batch by batch;
//! * [`tool_loop`]: an [`arbitrary`] multi-round loop with memory;
//! * [`vector_file`]: bytes as a vector file;
//! * [`config`]: bytes as an `application.properties` and an
//!   `application.yml`, through the binding and `check`'s setup;
//! * [`config_reader`] and [`config_binder`]: the reader and the binder of
//!   `config` each on its own, at the speed of the other byte targets.
//!
//! A failed check panics with a reproducer: the decoded case (`Debug`) and,
//! for the scenario targets, the scenario as a vector that
//! `toolcall-model run` replays.
//!
//! One file per kind of target: `lenient.rs` and `conversion.rs` (the JSON
//! targets), `files.rs` (`vector_file`, `config`), `scenarios.rs`
//! (`manager`, `tool_loop`) on the typed inputs of `inputs.rs`; `compare.rs`
//! compares values as Jackson reads them. The references they check against
//! are the checker's oracles ([`crate::verification::oracle`]).

mod compare;
mod config_stages;
mod conversion;
mod files;
mod inputs;
mod lenient;
mod scenarios;

pub use self::config_stages::{config_binder, config_reader};
pub use self::conversion::convert;
pub use self::files::{config, vector_file};
pub use self::lenient::lenient_parser;
pub use self::scenarios::{manager, tool_loop};

use std::fmt::Debug;

/// Largest input of the byte targets ([`convert`], [`lenient_parser`],
/// [`vector_file`], [`config`], [`config_reader`], [`config_binder`]); longer
/// inputs are ignored.
pub(crate) const MAX_BYTES: usize = 64 * 1024;

/// Largest input of the scenario targets ([`manager`], [`tool_loop`]); the
/// decoded scenarios are bounded anyway (see [`MAX_CALLS`] and friends).
pub(crate) const MAX_CASE_BYTES: usize = 16 * 1024;

/// At most this many tool calls per generation.
pub(crate) const MAX_CALLS: usize = 8;
/// At most this many model replies (rounds) in a scenario.
pub(crate) const MAX_ROUNDS: usize = 8;
/// At most this many tools.
pub(crate) const MAX_TOOLS: usize = 5;
/// At most this many prior messages.
pub(crate) const MAX_PRIOR: usize = 8;
/// At most this many characters in a free-form text.
pub(crate) const MAX_TEXT_CHARS: usize = 48;

/// Panics with the target's name, what broke, and a reproducer.
#[track_caller]
fn fail(target: &str, what: &str, repro: &dyn Debug) -> ! {
    panic!("fuzz target `{target}`: {what}\nreproducer: {repro:#?}")
}

#[cfg(test)]
mod tests {
    use super::compare::same_json;
    use super::compare::same_number;
    use super::inputs::{LoopInput, decode};
    use super::lenient::{Lenient, lenient_reference};
    use serde_json::{Value, json};

    fn accepted_prefix(text: &str) -> Option<&str> {
        match lenient_reference(text) {
            Lenient::Accept { start, scan } => Some(&text[start..scan.end]),
            _ => None,
        }
    }

    #[test]
    fn reference_follows_jackson_md_examples() {
        for (text, prefix) in [
            ("3.0 + 5.0 = 8.0", "3.0"),
            ("42 apples", "42"),
            ("1 000", "1"),
            ("null pointer", "null"),
            ("null$x", "null"),
            ("true/false", "true"),
            ("null:", "null"),
            ("null}", "null"),
            ("\t{\"a\":1}}", "{\"a\":1}"),
            ("[1,2]x", "[1,2]"),
            ("\"a\"\"b\"", "\"a\""),
            ("-0e0", "-0e0"),
        ] {
            assert_eq!(accepted_prefix(text), Some(prefix), "{text:?}");
        }
        for text in [
            "",
            "  ",
            "42apples",
            "42,",
            "nullable",
            "null1",
            "null_value",
            "null\u{7f}",
            "True",
            "[1,]",
            "+1",
            ".5",
            "1.",
            "01",
            "NaN",
            "]",
            "\u{b}1",
            "'a'",
            "\"abc",
            "1.5.2",
            "[ERROR] disk full",
        ] {
            assert_eq!(lenient_reference(text), Lenient::Reject, "{text:?}");
        }
        for text in [
            "null\u{a0}",
            "null\u{200b}",
            "\"\\ud800\"",
            "{\"a\":\"\\udc00\"}",
        ] {
            assert_eq!(lenient_reference(text), Lenient::Unknown, "{text:?}");
        }
        let deep = "[".repeat(501) + &"]".repeat(501);
        assert_eq!(lenient_reference(&deep), Lenient::Reject);
        let ok = "[".repeat(500) + &"]".repeat(500);
        assert!(accepted_prefix(&ok).is_some());
    }

    #[test]
    fn numbers_compare_as_jackson_reads_them() {
        let n = |s: &str| s.parse::<serde_json::Number>().unwrap();
        assert!(same_number(&n("1E2"), &json!(100)));
        assert!(same_number(&n("1.0"), &Value::Number(n("1.0"))));
        assert!(same_number(
            &n("0.1"),
            &Value::Number(n("0.10000000000000000001"))
        ));
        assert!(same_number(&n("1e400"), &json!("Infinity")));
        assert!(!same_number(
            &n("12345678901234567890123"),
            &Value::Number(n("12345678901234567890124"))
        ));
        assert!(!same_json(
            &json!({"a": 1, "b": 2}),
            &json!({"b": 2, "a": 1})
        ));
    }

    #[test]
    fn scenario_inputs_build() {
        let data: Vec<u8> = (0..2048u32).map(|i| (i * 37 % 251) as u8).collect();
        let input = decode::<LoopInput>(&data).expect("decodes");
        let s = input.scenario();
        assert!(s.tools.iter().any(|t| t.name == "a"));
        assert!(s.config.max_rounds >= 1);
    }
}
