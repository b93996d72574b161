//! The manager's unit tests.

use super::*;

/// Only `end-turn-after-breach` under `RETURN_ERROR_RESPONSE` ends a
/// turn at a breach that follows another: upstream calls the model
/// again (the turn that never ends), and under `THROW` the breach
/// throws before.
#[test]
fn only_the_fix_under_return_error_response_ends_a_turn_at_a_breach() {
    use crate::model::behavior::Fix;
    let limits = ToolCallLimits {
        on_exceeded: OnExceeded::ReturnErrorResponse,
        ..ToolCallLimits::default()
    }
    .max_calls_per_tool(1)
    .expect("1 is a valid maximum");
    let turn = [
        Message::user("q"),
        Message::Tool {
            responses: vec![
                ToolResponse::new("1", "x", "{}"),
                ToolResponse::new("2", "x", "breach"),
            ]
            .into(),
        },
    ];
    let calls = [ToolCall::new("3", "x", "{}")];
    let prior = Counts::recount(&turn);
    let fixed = Config {
        limits: limits.clone(),
        fixes: Fixes::only(Fix::EndTurnAfterBreach),
        ..Config::default()
    };
    assert_eq!(
        ends_turn_at_breach(&fixed, &turn, &calls, &prior).map(|(i, _)| i),
        Some(0)
    );
    let upstream = Config {
        limits: limits.clone(),
        ..Config::default()
    };
    assert!(ends_turn_at_breach(&upstream, &turn, &calls, &prior).is_none());
    let throw = Config {
        limits: ToolCallLimits {
            on_exceeded: OnExceeded::Throw,
            ..limits
        },
        ..fixed
    };
    assert!(ends_turn_at_breach(&throw, &turn, &calls, &prior).is_none());
}

/// The default processor gives a breach's text back as it is, the JSON
/// one shapes it; both leave `NOT_EXECUTED` alone only when plain.
#[test]
fn the_processor_shapes_a_breach_only_through_the_fix() {
    use crate::model::behavior::Fix;
    use crate::model::processor::ProcessorKind;
    let breach = Breach {
        tool_name: Some("x".into()),
        limit: 1,
    };
    let through = |kind| Config {
        fixes: Fixes::only(Fix::BreachThroughProcessor),
        processor: Processor {
            kind,
            ..Processor::default()
        },
        ..Config::default()
    };
    assert_eq!(
        breach_response(&Config::default(), &breach),
        Ok(breach.message())
    );
    let default = through(ProcessorKind::Default);
    assert_eq!(breach_response(&default, &breach), Ok(breach.message()));
    assert_eq!(not_executed_response(&default), NOT_EXECUTED);
    let json = through(ProcessorKind::JsonError);
    assert_ne!(breach_response(&json, &breach), Ok(breach.message()));
    assert_ne!(not_executed_response(&json), NOT_EXECUTED);
}
/// The breach's answer written from its pieces, without exceptions, is
/// what the processor makes of the `ToolCallLimitExceededException`
/// the fix hands it, for every processor kind, `alwaysThrow`, rethrow
/// lists that do and do not catch the class, and names JSON escapes.
#[test]
fn a_breach_answer_is_the_processors_answer_to_its_exception() {
    use crate::model::behavior::Fix;
    use crate::model::processor::ProcessorKind;
    let mut classes = ClassTable::builtin();
    classes
        .declare("com.acme.Limit", TOOL_CALL_LIMIT_EXCEEDED)
        .unwrap();
    let rethrows: [&[&str]; 6] = [
        &[],
        &[TOOL_CALL_LIMIT_EXCEEDED],
        &["java.lang.Exception", ILLEGAL_STATE],
        &["java.lang.Throwable"],
        &[ILLEGAL_STATE, "com.acme.Limit"],
        &["java.lang.Error"],
    ];
    let names = ["x", "", "a\"b", "tab\there\\", "\u{1}é€😀", "'"];
    for kind in [ProcessorKind::Default, ProcessorKind::JsonError] {
        for always_throw in [false, true] {
            for rethrow in rethrows {
                let cfg = Config {
                    fixes: Fixes::only(Fix::BreachThroughProcessor),
                    processor: Processor {
                        kind,
                        always_throw,
                        rethrow: rethrow.iter().map(|r| (*r).to_owned()).collect(),
                    },
                    classes: classes.clone(),
                    ..Config::default()
                };
                let breaches = || {
                    names
                        .iter()
                        .map(|n| Some(SharedStr::from(*n)))
                        .chain([None])
                        .flat_map(|tool_name| {
                            [1, 40, 4_294_967_295].map(|limit| Breach {
                                tool_name: tool_name.clone(),
                                limit,
                            })
                        })
                };
                for breach in breaches() {
                    let cause =
                        JavaException::new(TOOL_CALL_LIMIT_EXCEEDED, Some(&breach.message()));
                    let want = cfg.processor.process("x", &cause, &cfg.classes);
                    assert_eq!(breach_response(&cfg, &breach), want, "{breach:?}");
                }
                let cause = JavaException::new(TOOL_CALL_LIMIT_EXCEEDED, Some(NOT_EXECUTED));
                let want = cfg
                    .processor
                    .process("x", &cause, &cfg.classes)
                    .unwrap_or_else(|_| NOT_EXECUTED.into());
                assert_eq!(not_executed_response(&cfg), want);
                let unshaped = breaches_pass_unshaped(&cfg);
                assert_eq!(
                    unshaped,
                    not_executed_response(&cfg) == NOT_EXECUTED
                        && breaches().all(|b| breach_response(&cfg, &b) == Ok(b.message()))
                );
            }
        }
    }
}

use crate::model::limits::Counts;
use crate::model::tools::ToolSpec;

/// `executeToolCall`'s loop state after each call, as the step engine
/// exposes it: `toolCallCounts` and `totalToolCallCount` (the turn's
/// prior calls plus every call checked so far, a breached one included)
/// and `toolResponses` (a breach's text included under
/// `RETURN_ERROR_RESPONSE`). Vectors only see the end of a batch, so the
/// state between calls, which the invariant checker reads, is pinned
/// here; at the end it equals the recount of the history built.
#[test]
fn batch_state_after_each_call_is_the_java_loop_state() {
    let mut limits = ToolCallLimits::default().max_calls_per_tool(1).unwrap();
    limits.on_exceeded = OnExceeded::ReturnErrorResponse;
    let cfg = Config {
        limits,
        ..Config::default()
    };
    let mut tb = Toolbox::new(vec![
        ToolSpec::returning("x", "1"),
        ToolSpec::returning("y", "2"),
    ]);
    let history = vec![
        Message::user("go"),
        Message::Tool {
            responses: vec![ToolResponse::new("c0", "y", "2")].into(),
        },
    ];
    let calls = [
        ToolCall::new("c1", "x", "{}"),
        ToolCall::new("c2", "x", "{}"),
    ];
    let mut batch = Batch::new(Counts::recount(&history));
    assert!(batch.responses().is_empty());
    assert_eq!(batch.counts().sorted(), vec![("y".to_owned(), 1)]);

    batch = match batch.call(&calls[0], &cfg, |n| tb.find(n, false)) {
        Step::Invoke(p) => {
            let result = tb.invoke(p.tool(), p.arguments());
            p.complete(result, &cfg).unwrap()
        }
        other => panic!("first call should run the tool: {other:?}"),
    };
    assert_eq!(
        batch.counts().sorted(),
        vec![("x".to_owned(), 1), ("y".to_owned(), 1)]
    );
    assert_eq!(batch.counts().total(), 2);
    assert_eq!(batch.responses(), &[ToolResponse::new("c1", "x", "1")]);

    batch = match batch.call(&calls[1], &cfg, |n| tb.find(n, false)) {
        Step::Answered(b) => b,
        other => panic!("second call should breach and be answered: {other:?}"),
    };
    assert_eq!(batch.counts().get("x"), 2);
    assert_eq!(batch.counts().total(), 3);
    let breach = ToolResponse {
        error: true,
        ..ToolResponse::new(
            "c2",
            "x",
            "Tool call limit (1) exceeded for tool 'x'. No further calls to this tool are allowed in this turn.",
        )
    };
    assert_eq!(
        batch.responses(),
        &[ToolResponse::new("c1", "x", "1"), breach]
    );

    let counts = batch.counts().clone();
    let (result, after) = batch.finish(history, Message::assistant(None, calls.to_vec()));
    assert_eq!(after, counts);
    assert_eq!(Counts::recount(&result.history), counts);
}
