//! The reference state machine: counting and limits step by step.

use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, TestCaseError, TestRunner};
use toolcall_check::verification::oracle::RefCounts;
use toolcall_model::model::Processor;
use toolcall_model::model::{
    Batch, Config as ManagerConfig, ManagerError, Step, execute_with_counts,
};
use toolcall_model::model::{Counts, OnExceeded, ToolCallLimits};
use toolcall_model::model::{Fix, Fixes};
use toolcall_model::model::{Generation, Message, ToolCall};
use toolcall_model::model::{ToolSpec, Toolbox};

use super::{REGRESSIONS, cases};

/// One operation on the conversation.
#[derive(Debug, Clone)]
enum Op {
    /// A new user message: a new turn.
    User,
    /// A model answer without tool calls.
    Answer,
    /// A batch of calls: (tool index into `NAMES`, blank arguments).
    Batch(Vec<(usize, bool)>),
}

/// `a`, `b` and `c` are tools (`c` returns directly when `direct` is on);
/// `d` is not.
const NAMES: [&str; 4] = ["a", "b", "c", "d"];

#[derive(Debug, Clone)]
struct Machine {
    per_tool: Option<u32>,
    override_b: Option<u32>,
    exclude_c: bool,
    total: Option<u32>,
    on_exceeded: OnExceeded,
    direct: bool,
    fixes: Fixes,
    ops: Vec<Op>,
}

fn machine() -> impl Strategy<Value = Machine> {
    let op = prop_oneof![
        1 => Just(Op::User),
        1 => Just(Op::Answer),
        5 => proptest::collection::vec((prop_oneof![6 => 0usize..3, 1 => Just(3usize)], any::<bool>()), 1..5)
            .prop_map(Op::Batch),
    ];
    (
        proptest::option::weighted(0.8, 1u32..4),
        proptest::option::weighted(0.3, 1u32..4),
        proptest::bool::weighted(0.2),
        proptest::option::weighted(0.7, 1u32..8),
        prop_oneof![
            Just(OnExceeded::Throw),
            Just(OnExceeded::ReturnErrorResponse)
        ],
        proptest::bool::weighted(0.2),
        prop_oneof![
            Just(Fixes::upstream()),
            Just(Fixes::all()),
            Just(Fixes::only(Fix::CloseDanglingCalls)),
            Just(Fixes::only(Fix::BreachThroughProcessor)),
        ],
        proptest::collection::vec(op, 1..24),
    )
        .prop_map(
            |(per_tool, override_b, exclude_c, total, on_exceeded, direct, fixes, ops)| Machine {
                per_tool,
                override_b,
                exclude_c,
                total,
                on_exceeded,
                direct,
                fixes,
                ops,
            },
        )
}

fn run_machine(m: &Machine) -> Result<(), TestCaseError> {
    let mut limits = ToolCallLimits::default();
    limits = match m.per_tool {
        Some(n) => limits
            .max_calls_per_tool(i32::try_from(n).expect("small"))
            .expect("positive"),
        None => limits.unlimited_calls_per_tool(),
    };
    if let Some(n) = m.override_b {
        limits = limits
            .max_calls_per_tool_for("b", i32::try_from(n).expect("small"))
            .expect("valid");
    }
    if m.exclude_c {
        limits = limits.exclude_tool_from_limit("c").expect("valid");
    }
    limits = match m.total {
        Some(n) => limits
            .max_total_tool_calls(i32::try_from(n).expect("small"))
            .expect("positive"),
        None => limits.unlimited_total_tool_calls(),
    };
    limits.on_exceeded = m.on_exceeded;
    let cfg = ManagerConfig {
        limits: limits.clone(),
        processor: Processor::default(),
        fixes: m.fixes,
        ..ManagerConfig::default()
    };
    let mut c = ToolSpec::returning("c", "\"c\"");
    c.return_direct = m.direct;
    let mut toolbox = Toolbox::new(vec![
        ToolSpec::returning("a", "1"),
        ToolSpec::returning("b", "[2]"),
        c,
    ]);
    // The reference's own limit rule.
    let max_of = |name: &str| -> Option<u64> {
        if m.exclude_c && name == "c" {
            return None;
        }
        if name == "b"
            && let Some(n) = m.override_b
        {
            return Some(u64::from(n));
        }
        m.per_tool.map(u64::from)
    };
    let mut history = vec![Message::user("start")];
    let mut counts = Counts::recount(&history);
    let mut reference = RefCounts::default();
    let mut turn_over = false;
    let mut thrown = false;
    // Whether a call of the current turn breached (end-turn-after-breach).
    let mut turn_breached = false;
    for (step, op) in m.ops.iter().enumerate() {
        match op {
            Op::User => {
                history.push(Message::user(&format!("turn {step}")));
                counts = Counts::recount(&history);
                reference = RefCounts::default();
                turn_over = false;
                thrown = false;
                turn_breached = false;
                prop_assert!(
                    reference.matches(&counts),
                    "step {step}: a new turn starts from zero, got {counts:?}"
                );
            }
            Op::Answer => {
                // Precondition (re-checked because shrinking removes steps):
                // the model answers only in a live turn.
                if turn_over {
                    continue;
                }
                history.push(Message::assistant(Some("ok"), vec![]));
                turn_over = true;
            }
            Op::Batch(calls) => {
                // Precondition: a batch only in a live turn.
                if turn_over {
                    continue;
                }
                let calls: Vec<ToolCall> = calls
                    .iter()
                    .enumerate()
                    .map(|(i, (t, blank))| {
                        ToolCall::new(
                            &format!("s{step}-{i}"),
                            NAMES[*t],
                            if *blank { " " } else { "{}" },
                        )
                    })
                    .collect();
                let generations = vec![Generation {
                    tool_calls: calls.clone().into(),
                    ..Generation::default()
                }];
                let assistant = generations[0].to_message();
                // The loop's driver, on a copy of the tools.
                let mut driver_tools = toolbox.clone();
                let driver = execute_with_counts(
                    &cfg,
                    history.clone(),
                    &generations,
                    counts.clone(),
                    &mut driver_tools,
                );
                // The step engine, checked against the reference after every call.
                let before = reference.clone();
                let mut batch = Some(Batch::new(counts.clone()));
                let mut ended: Option<Result<(), toolcall_model::model::LimitExceeded>> = None;
                let mut first_breach = None;
                for (i, call) in calls.iter().enumerate() {
                    let name = call.name.clone();
                    let (n, _) = reference.add(&name);
                    let want_breach = max_of(&name).is_some_and(|mx| n > mx)
                        || m.total.is_some_and(|t| reference.total > u64::from(t));
                    if want_breach && first_breach.is_none() {
                        first_breach = Some(i);
                    }
                    let b = batch.take().expect("a live batch");
                    match b.call(call, &cfg, |x| toolbox.find(x, false)) {
                        Step::Answered(b) => {
                            prop_assert!(
                                want_breach && m.on_exceeded == OnExceeded::ReturnErrorResponse,
                                "step {step} call {i}: unexpected breach"
                            );
                            prop_assert!(
                                reference.matches(b.counts()),
                                "step {step} call {i}: {:?} vs {:?}",
                                b.counts(),
                                reference
                            );
                            batch = Some(b);
                        }
                        Step::Missing(_) => {
                            prop_assert!(
                                false,
                                "step {step} call {i}: a missing tool answered without the fix"
                            );
                        }
                        Step::Breached(b, breach) => {
                            prop_assert!(
                                want_breach && m.on_exceeded == OnExceeded::Throw,
                                "step {step} call {i}: unexpected breach"
                            );
                            prop_assert!(
                                reference.matches(b.counts()),
                                "step {step} call {i}: {:?} vs {:?}",
                                b.counts(),
                                reference
                            );
                            let per_tool = max_of(&name).is_some_and(|mx| n > mx);
                            prop_assert_eq!(
                                breach.tool_name.is_some(),
                                per_tool,
                                "the per-tool check wins"
                            );
                            ended = Some(Err(b.throw(
                                breach,
                                &calls[i + 1..],
                                history.clone(),
                                assistant.clone(),
                                &cfg,
                            )));
                            break;
                        }
                        Step::Invoke(p) => {
                            prop_assert!(!want_breach, "step {step} call {i}: a breach was due");
                            let result = toolbox.invoke(p.tool(), p.arguments());
                            let b = p
                                .complete(result, &cfg)
                                .map_err(|e| TestCaseError::fail(e.to_string()))?;
                            prop_assert!(
                                reference.matches(b.counts()),
                                "step {step} call {i}: {:?} vs {:?}",
                                b.counts(),
                                reference
                            );
                            batch = Some(b);
                        }
                        Step::Failed(e) => {
                            prop_assert!(
                                !want_breach && name == "d",
                                "step {step} call {i}: unexpected failure {e}"
                            );
                            ended = Some(Ok(()));
                            break;
                        }
                    }
                }
                prop_assert_eq!(
                    &driver_tools,
                    &toolbox,
                    "step {}: the driver and the step engine invoke alike",
                    step
                );
                // end-turn-after-breach: a second batch with a breach in
                // the turn, answered whole, ends it with a limit exception
                // at its first breach.
                let ends_turn = m.fixes.contains(Fix::EndTurnAfterBreach)
                    && m.on_exceeded == OnExceeded::ReturnErrorResponse
                    && turn_breached
                    && ended.is_none();
                turn_breached |= first_breach.is_some();
                if let (true, Some(k)) = (ends_turn, first_breach) {
                    let (result, after) = batch
                        .take()
                        .expect("a live batch")
                        .finish(history.clone(), assistant);
                    let Err(ManagerError::LimitExceeded(dl)) = &driver else {
                        return Err(TestCaseError::fail(format!(
                            "step {step}: a second breach in the turn did not end it: {driver:?}"
                        )));
                    };
                    prop_assert_eq!(&dl.partial, &result);
                    prop_assert_eq!(dl.breach_index, k);
                    prop_assert_eq!(&dl.counts, &after);
                    turn_over = true;
                    thrown = true;
                    continue;
                }
                match ended {
                    None => {
                        let (result, after) = batch
                            .take()
                            .expect("a live batch")
                            .finish(history.clone(), assistant);
                        let Ok((dr, dc)) = &driver else {
                            return Err(TestCaseError::fail(format!(
                                "step {step}: the driver failed: {driver:?}"
                            )));
                        };
                        prop_assert_eq!(dr, &result);
                        prop_assert_eq!(dc, &after);
                        prop_assert!(reference.matches(&after));
                        prop_assert_eq!(
                            &Counts::recount(&result.history),
                            &after,
                            "step {}: kept counts equal the recount",
                            step
                        );
                        history = result.history;
                        counts = after;
                        if result.return_direct {
                            turn_over = true;
                        }
                    }
                    Some(Err(limit)) => {
                        let Err(ManagerError::LimitExceeded(dl)) = &driver else {
                            return Err(TestCaseError::fail(format!(
                                "step {step}: the driver did not throw: {driver:?}"
                            )));
                        };
                        prop_assert_eq!(&**dl, &limit);
                        // The partial history recounts to the reference, plus
                        // one per closed call with close-dangling-calls.
                        let mut expected = reference.clone();
                        if m.fixes.contains(Fix::CloseDanglingCalls) {
                            for c in &calls[limit.breach_index + 1..] {
                                expected.add(&c.name);
                            }
                        }
                        prop_assert!(
                            expected.matches(&Counts::recount(&limit.partial.history)),
                            "step {step}: partial history recount"
                        );
                        turn_over = true;
                        thrown = true;
                    }
                    Some(Ok(_)) => {
                        prop_assert!(
                            matches!(driver, Err(ManagerError::Java(_))),
                            "step {step}: the driver failed alike"
                        );
                        // The batch is discarded: nothing was added.
                        reference = before;
                        prop_assert!(reference.matches(&counts));
                        turn_over = true;
                    }
                }
            }
        }
    }
    // Unless the last batch threw (its calls count but its history was
    // discarded), the recount of the whole history is the reference.
    if !thrown {
        prop_assert!(
            reference.matches(&Counts::recount(&history)),
            "final recount"
        );
    }
    Ok(())
}

#[test]
fn reference_state_machine() {
    let mut runner = TestRunner::new(Config {
        cases: cases() * 8,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(REGRESSIONS))),
        source_file: Some(file!()),
        ..Config::default()
    });
    if let Err(e) = runner.run(&machine(), |m| run_machine(&m)) {
        panic!("{e}");
    }
}
