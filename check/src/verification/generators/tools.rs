//! The tools of a scenario: exceptions, outcomes, the registered tools,
//! limits and the exception processor.

use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;

use super::text::{json_only_text, text, whitespace};
use super::{CUSTOM_CHECKED, CUSTOM_RUNTIME, TOOL_NAMES, s};
use toolcall_model::model::JavaException;
use toolcall_model::model::{OnExceeded, ToolCallLimits};
use toolcall_model::model::{Outcome, Registered, ToolSpec};
use toolcall_model::model::{Processor, ProcessorKind};

const RUNTIME_CLASSES: [&str; 5] = [
    "java.lang.RuntimeException",
    "java.lang.IllegalStateException",
    "java.lang.IllegalArgumentException",
    "java.lang.NullPointerException",
    CUSTOM_RUNTIME,
];
const CHECKED_CLASSES: [&str; 2] = ["java.io.IOException", CUSTOM_CHECKED];
const ERROR_CLASSES: [&str; 2] = ["java.lang.AssertionError", "java.lang.OutOfMemoryError"];

/// An exception's message: generated text, null, empty or blank.
fn message() -> BoxedStrategy<Option<String>> {
    prop_oneof![
        6 => text().prop_map(Some),
        2 => Just(None),
        1 => Just(Some(String::new())),
        1 => whitespace().prop_map(Some),
    ]
    .boxed()
}

/// An exception of any kind: runtime (built-in or declared), checked, error.
pub fn exception() -> BoxedStrategy<JavaException> {
    let class = prop_oneof![
        6 => s(&RUNTIME_CLASSES),
        2 => s(&CHECKED_CLASSES),
        1 => s(&ERROR_CLASSES),
    ];
    let plain = (class, message()).prop_map(|(class, message)| JavaException {
        class: class.into(),
        message: message.map(Into::into),
        cause: None,
    });
    prop_oneof![
        12 => plain.clone(),
        // A callback's own ToolExecutionException (the manager catches it by
        // type), its message taken from its cause; rarely without a cause,
        // which Java's constructor answers with a NullPointerException.
        2 => plain.prop_map(|cause| JavaException {
            class: toolcall_model::model::TOOL_EXECUTION_EXCEPTION.into(),
            message: cause.message.clone(),
            cause: Some(Box::new(cause)),
        }),
        1 => Just(JavaException {
            class: toolcall_model::model::TOOL_EXECUTION_EXCEPTION.into(),
            message: None,
            cause: None,
        }),
    ]
    .boxed()
}

/// What one invocation does. Method tools return JSON or throw wrapped
/// exceptions; other callbacks do anything.
pub fn outcome(method_tools: bool) -> BoxedStrategy<Outcome> {
    if method_tools {
        prop_oneof![
            8 => json_only_text().prop_map(|t| Outcome::Returns(Some(t.into()))),
            2 => exception().prop_map(|exception| Outcome::Throws { exception, wrapped: true }),
        ]
        .boxed()
    } else {
        prop_oneof![
            10 => text().prop_map(|t| Outcome::Returns(Some(t.into()))),
            1 => Just(Outcome::Returns(None)),
            1 => Just(Outcome::EchoArguments),
            3 => exception().prop_map(|exception| Outcome::Throws { exception, wrapped: true }),
            1 => exception().prop_map(|exception| Outcome::Throws { exception, wrapped: false }),
        ]
        .boxed()
    }
}

fn tool(name: &'static str, method_tools: bool) -> BoxedStrategy<ToolSpec> {
    (
        prop_oneof![11 => Just(false), 1 => Just(true)],
        prop_oneof![6 => Just(Registered::Request), 1 => Just(Registered::Resolver)],
        vec(outcome(method_tools), 1..=3),
    )
        .prop_map(move |(return_direct, registered, outcomes)| ToolSpec {
            name: name.into(),
            return_direct,
            registered,
            outcomes,
        })
        .boxed()
}

/// The three tools, all method tools or all free callbacks.
pub fn tools() -> BoxedStrategy<Vec<ToolSpec>> {
    prop_oneof![Just(true), Just(false)]
        .prop_flat_map(|method| {
            (tool("a", method), tool("b", method), tool("c", method))
                .prop_map(|(a, b, c)| vec![a, b, c])
        })
        .boxed()
}

pub(super) fn pool_name() -> BoxedStrategy<String> {
    s(&TOOL_NAMES)
}

/// Limits with small maxima: a default per-tool maximum of 1 to 3 (or
/// unlimited, or upstream's 40), an override, an exclusion, a total maximum
/// of 1 to 6 (or unlimited, or 150), either behaviour on breach. Built with
/// the builder, so its rules apply.
pub fn limits() -> BoxedStrategy<ToolCallLimits> {
    (
        prop_oneof![6 => (1i32..=3).prop_map(Some), 1 => Just(None), 1 => Just(Some(40))],
        option::weighted(0.2, (pool_name(), 1i32..=3)),
        option::weighted(0.12, pool_name()),
        any::<bool>(),
        prop_oneof![4 => (1i32..=6).prop_map(Some), 2 => Just(None), 1 => Just(Some(150))],
        prop_oneof![
            Just(OnExceeded::Throw),
            Just(OnExceeded::ReturnErrorResponse)
        ],
    )
        .prop_map(
            |(per_tool, override_, exclude, exclude_first, total, on_exceeded)| {
                let mut l = ToolCallLimits::default();
                l = match per_tool {
                    Some(n) => l.max_calls_per_tool(n).expect("positive"),
                    None => l.unlimited_calls_per_tool(),
                };
                let apply_override = |l: ToolCallLimits| match &override_ {
                    Some((name, n)) => l.max_calls_per_tool_for(name, *n).expect("valid"),
                    None => l,
                };
                let apply_exclude = |l: ToolCallLimits| match &exclude {
                    Some(name) => l.exclude_tool_from_limit(name).expect("valid"),
                    None => l,
                };
                l = if exclude_first {
                    apply_override(apply_exclude(l))
                } else {
                    apply_exclude(apply_override(l))
                };
                l = match total {
                    Some(n) => l.max_total_tool_calls(n).expect("positive"),
                    None => l.unlimited_total_tool_calls(),
                };
                l.on_exceeded = on_exceeded;
                l
            },
        )
        .boxed()
}

/// The default or the JSON-error processor, rarely with `alwaysThrow` or a
/// rethrow list.
pub fn processor() -> BoxedStrategy<Processor> {
    (
        prop_oneof![Just(ProcessorKind::Default), Just(ProcessorKind::JsonError)],
        prop_oneof![24 => Just(false), 1 => Just(true)],
        option::weighted(
            0.08,
            s(&[
                "java.lang.IllegalStateException",
                "java.lang.RuntimeException",
                "java.lang.IllegalArgumentException",
            ]),
        ),
    )
        .prop_map(|(kind, always_throw, rethrow)| Processor {
            kind,
            always_throw,
            rethrow: rethrow.into_iter().collect(),
        })
        .boxed()
}
