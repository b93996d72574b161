//! The tool loop's unit tests.

use std::num::NonZeroU32;

use super::turn::BatchEnd;
use super::*;
use crate::model::behavior::Fix;
use crate::model::java::ILLEGAL_STATE;
use crate::model::limits::ToolCallLimits;
use crate::model::manager::{ExecResult, LimitExceeded, ManagerError, NOT_EXECUTED_FAILED};
use crate::model::message::{ToolCall, ToolResponse};
use crate::model::tools::{Outcome, ToolSpec};

fn calls(names: &[&str]) -> Vec<Generation> {
    vec![Generation {
        tool_calls: names
            .iter()
            .enumerate()
            .map(|(i, n)| ToolCall::new(&format!("c{i}"), n, "{}"))
            .collect(),
        ..Generation::default()
    }]
}

fn text(t: &str) -> Vec<Generation> {
    vec![Generation {
        text: Some(t.into()),
        ..Generation::default()
    }]
}

/// Drives a turn on from `turn` over `replies`, as `drive` does.
fn continue_turn(
    mut turn: Turn<'_>,
    replies: &[Vec<Generation>],
    toolbox: &mut Toolbox,
) -> Result<LoopRun, LoopError> {
    let mut replies = replies.iter();
    loop {
        let asking = match turn.ask()? {
            Ask::Model(asking) => asking,
            Ask::End(run) | Ask::Unconverted(run, _) => return Ok(run),
        };
        let Some(reply) = replies.next() else {
            return Err(LoopError::ScriptExhausted { call: 0, len: 0 });
        };
        turn = match asking.answer(reply, toolbox) {
            Answer::Next(next) => next,
            Answer::End(run) => return Ok(run),
        };
    }
}

/// A checker sharing scenario prefixes clones the state after the first
/// round (and the toolbox, whose tool answers differently call after
/// call) and continues each clone with other replies: each continuation
/// must give exactly the run of the whole script from the start.
#[test]
fn a_clone_after_a_round_continues_as_a_run_from_the_start() {
    let toolbox = Toolbox::new(vec![ToolSpec {
        outcomes: vec![
            Outcome::Returns(Some("1".into())),
            Outcome::Returns(Some("plain text".into())),
            Outcome::Throws {
                exception: JavaException::new(ILLEGAL_STATE, Some("boom")),
                wrapped: true,
            },
        ],
        ..ToolSpec::returning("x", "1")
    }]);
    let limited = Config {
        limits: ToolCallLimits::default()
            .max_calls_per_tool(2)
            .unwrap_or_default(),
        fixes: Fixes::all(),
        ..Config::default()
    };
    let configs = [
        LoopConfig::default(),
        LoopConfig::new(limited.clone()),
        LoopConfig {
            memory: Memory::Inside,
            memory_max_messages: NonZeroU32::MIN.saturating_add(2),
            ..LoopConfig::new(limited.clone())
        },
        LoopConfig {
            memory: Memory::Outside,
            ..LoopConfig::new(limited)
        },
        LoopConfig {
            conversation_history: false,
            gemini_tool_text: true,
            ..LoopConfig::default()
        },
        LoopConfig {
            provider: Provider::None,
            manager: Config {
                fixes: Fixes::only(Fix::CloseDanglingCalls),
                ..Config::default()
            },
            memory: Memory::Inside,
            ..LoopConfig::default()
        },
    ];
    let first = calls(&["x"]);
    let continuations = [
        vec![text("done")],
        vec![calls(&["x", "x"]), text("done")],
        vec![calls(&["x"]), calls(&["x"]), text("done")],
        vec![calls(&["y"])],
        vec![calls(&["x"])],
    ];
    let history = vec![Message::user("hi")];
    let mut kinds = Vec::new();
    for cfg in &configs {
        let mut shared_box = toolbox.clone();
        let Ok(Ask::Model(asking)) = Turn::new(cfg, history.clone(), toolbox.tools()).ask() else {
            panic!("the first round asks the model under {cfg:?}");
        };
        let Answer::Next(after_one) = asking.answer(&first, &mut shared_box) else {
            panic!("the first round goes on under {cfg:?}");
        };
        for rest in &continuations {
            let mut script = vec![first.clone()];
            script.extend(rest.iter().cloned());
            let mut fresh_box = toolbox.clone();
            let fresh = run_loop(cfg, history.clone(), &script, &mut fresh_box);
            let mut cloned_box = shared_box.clone();
            let continued = continue_turn(after_one.clone(), rest, &mut cloned_box);
            match (fresh, continued) {
                (Ok(f), Ok(c)) => {
                    assert_eq!(f, c, "{cfg:?} {rest:?}");
                    kinds.push(f.kind);
                }
                (Err(LoopError::ScriptExhausted { .. }), Err(_)) => {}
                (f, c) => panic!("{cfg:?} {rest:?}: {f:?} against {c:?}"),
            }
            assert_eq!(fresh_box, cloned_box, "{cfg:?} {rest:?}");
        }
    }
    // The continuations reach each way a batch or a reply ends a turn.
    for kind in [EndKind::Completed, EndKind::LimitExceeded, EndKind::Error] {
        assert!(kinds.contains(&kind), "no continuation ends {kind:?}");
    }
}

/// The one close-dangling path answers every call the inside memory
/// holds, however the batch ended, and nothing without the fix.
#[test]
fn the_inside_memory_is_closed_after_a_breach_a_failure_and_return_direct() {
    let close = Fixes::only(Fix::CloseDanglingCalls);
    let reply = calls(&["x", "y"]);
    let failed = BatchEnd::Failed(ManagerError::Java(JavaException::new(ILLEGAL_STATE, None)));
    let Some(Message::Tool { responses }) = failed.closing(&reply, close) else {
        panic!("a failed batch is closed");
    };
    assert_eq!(responses.len(), 2);
    assert!(
        responses
            .iter()
            .all(|r| r.error && r.data == NOT_EXECUTED_FAILED)
    );
    assert_eq!(failed.closing(&reply, Fixes::upstream()), None);
    let answered = Message::Tool {
        responses: vec![ToolResponse::new("c0", "x", "1")].into(),
    };
    let direct = BatchEnd::ReturnDirect(ExecResult {
        history: vec![Message::user("hi"), answered.clone()],
        return_direct: true,
    });
    assert_eq!(direct.closing(&reply, close), Some(answered.clone()));
    assert_eq!(direct.closing(&reply, Fixes::upstream()), None);
    let breach = BatchEnd::Breach(Box::new(LimitExceeded {
        breach: crate::model::limits::Breach {
            tool_name: None,
            limit: 1,
        },
        partial: ExecResult {
            history: vec![answered.clone()],
            return_direct: false,
        },
        breach_index: 0,
        counts: Counts::default(),
    }));
    assert_eq!(breach.closing(&reply, close), Some(answered));
}

/// A loop configuration on Spring AI 1.1.2, whose loop is the chat model's.
fn on_1_1() -> LoopConfig {
    LoopConfig::new(Config {
        version: crate::model::SpringAi::V1_1_2,
        ..Config::default()
    })
}

#[test]
fn on_1_1_what_only_the_advisor_has_is_not_applicable() {
    let mut tb = Toolbox::new(vec![]);
    let inside = LoopConfig {
        memory: Memory::Inside,
        ..on_1_1()
    };
    let history_off = LoopConfig {
        conversation_history: false,
        ..on_1_1()
    };
    for cfg in [inside, history_off] {
        let e = run_loop(&cfg, vec![Message::user("u")], &[text("a")], &mut tb).unwrap_err();
        assert!(matches!(e, LoopError::NotApplicable { .. }), "{e}");
    }
    // The same on 2.0.1 runs.
    let inside = LoopConfig {
        memory: Memory::Inside,
        ..LoopConfig::default()
    };
    assert!(run_loop(&inside, vec![Message::user("u")], &[text("a")], &mut tb).is_ok());
}

/// 1.1's opt-in `ToolCallAdvisor` takes a memory inside its loop (at the
/// memory advisor's default order), whose 1.1 `before` prepends it to every
/// round's whole history and stores the user message again: the second
/// request holds the memory's copy of the call before the loop's own. It
/// has no history switch, and it fails every stream.
#[test]
fn on_1_1_tool_call_advisor_runs_the_memory_inside_and_refuses_streams() {
    let advisor = LoopConfig {
        memory: Memory::Inside,
        tool_call_advisor: true,
        ..on_1_1()
    };
    let mut tb = Toolbox::new(vec![ToolSpec::returning("x", "{}")]);
    let model = [calls(&["x"]), text("done")];
    let (run, sent) =
        run_loop_with_messages(&advisor, vec![Message::user("u")], &model, &mut tb).unwrap();
    assert_eq!(run.kind, EndKind::Completed);
    let second = &sent.attempted[1];
    let kinds: Vec<bool> = second.iter().map(Message::is_user).collect();
    // u, the stored call, u again, the loop's call, its response.
    assert_eq!(kinds, [true, false, true, false, false], "{second:?}");
    assert!(
        run.api().is_err(),
        "Gemini rejects the call followed by a user message"
    );
    let users = run.memory.iter().filter(|m| m.is_user()).count();
    assert_eq!((run.memory.len(), users), (4, 2), "{:?}", run.memory);
    let history_off = LoopConfig {
        conversation_history: false,
        ..advisor.clone()
    };
    let e = run_loop(&history_off, vec![Message::user("u")], &model, &mut tb).unwrap_err();
    assert!(e.to_string().contains("ToolCallAdvisor"), "{e}");
    let streamed = LoopConfig {
        stream: Some(Default::default()),
        ..advisor
    };
    let run = run_loop(&streamed, vec![Message::user("u")], &model, &mut tb).unwrap();
    assert_eq!(run.kind, EndKind::Error);
    assert!(run.requests.is_empty() && run.memory.is_empty());
    let e = run.error.unwrap();
    assert_eq!(e.class, "java.lang.UnsupportedOperationException");
    assert_eq!(
        e.message.as_deref(),
        Some("Unimplemented method 'adviseStream'")
    );
}

#[test]
fn on_1_1_the_outside_memory_stores_the_user_message_and_the_answer_only() {
    let cfg = LoopConfig {
        memory: Memory::Outside,
        ..on_1_1()
    };
    let mut tb = Toolbox::new(vec![ToolSpec::returning("x", "{}")]);
    let model = [calls(&["x"]), text("done")];
    let system = Message::System {
        text: Some("S".into()),
    };
    let history = vec![system, Message::user("u")];
    let run = run_loop(&cfg, history, &model, &mut tb).unwrap();
    assert_eq!(run.kind, EndKind::Completed);
    assert_eq!(
        run.memory,
        vec![Message::user("u"), Message::assistant(Some("done"), vec![])]
    );
}

#[test]
fn on_1_1_the_window_cuts_wherever_the_count_falls() {
    let a = |t: &str| Message::assistant(Some(t), vec![]);
    let window = |cfg: LoopConfig| {
        let cfg = LoopConfig {
            memory: Memory::Outside,
            memory_max_messages: NonZeroU32::new(3).unwrap(),
            memory_start: vec![Message::user("u0"), a("a0")],
            ..cfg
        };
        let run = run_loop(
            &cfg,
            vec![Message::user("u1")],
            &[text("a1")],
            &mut Toolbox::new(vec![]),
        )
        .unwrap();
        run.memory
    };
    // Four messages over a window of three: 1.1 drops u0 alone, 2.0 moves
    // its cut on to the next user message.
    assert_eq!(
        window(on_1_1()),
        vec![a("a0"), Message::user("u1"), a("a1")]
    );
    assert_eq!(
        window(LoopConfig::default()),
        vec![Message::user("u1"), a("a1")]
    );
}

#[test]
fn on_1_1_a_streamed_round_runs_the_manager_on_the_chunk_with_the_call() {
    let cfg = on_1_1();
    let mut tb = Toolbox::new(vec![ToolSpec::returning("x", "{}")]);
    let chunk = |t: &str| text(t);
    let script = Script::Streamed(vec![
        vec![chunk("Let me see. "), calls(&["x"])],
        vec![chunk("done")],
    ]);
    let run = run_script(&cfg, vec![Message::user("u")], &script, &mut tb).unwrap();
    assert_eq!(run.streamed.as_ref().map(Vec::len), Some(2));
    // The assistant message sent back is the call chunk's, without the
    // text of the chunk before it (2.0 sends the round's aggregate).
    let Sent::Gemini(second) = &run.requests[1] else {
        unreachable!()
    };
    let sent = second.to_value().to_string();
    assert!(!sent.contains("Let me see."), "{sent}");
    let on_2_0 = run_script(
        &LoopConfig::default(),
        vec![Message::user("u")],
        &script,
        &mut Toolbox::new(vec![ToolSpec::returning("x", "{}")]),
    )
    .unwrap();
    let Sent::Gemini(second) = &on_2_0.requests[1] else {
        unreachable!()
    };
    assert!(second.to_value().to_string().contains("Let me see."));
}

#[test]
fn on_1_1_a_streamed_round_with_a_chunk_after_the_call_is_unordered() {
    let cfg = on_1_1();
    let mut tb = Toolbox::new(vec![ToolSpec::returning("x", "{}")]);
    let script = Script::Streamed(vec![vec![calls(&["x"]), text("after")], vec![text("done")]]);
    let e = run_script(&cfg, vec![Message::user("u")], &script, &mut tb).unwrap_err();
    assert_eq!(
        e,
        LoopError::Unordered {
            version: crate::model::SpringAi::V1_1_2,
            call: 1
        }
    );
    // 2.0 aggregates the round first: the same script runs.
    assert!(
        run_script(
            &LoopConfig::default(),
            vec![Message::user("u")],
            &script,
            &mut tb
        )
        .is_ok()
    );
}

#[test]
fn on_1_1_the_loop_reads_tool_responses_with_jackson_2() {
    // 600 deep: past Jackson 3's 500 (2.0), within Jackson 2's 1000 (1.1).
    let deep = format!("{}{}", "[".repeat(600), "]".repeat(600));
    let model = [calls(&["x"]), text("done")];
    let run = |cfg: &LoopConfig| {
        let mut tb = Toolbox::new(vec![ToolSpec::returning("x", &deep)]);
        run_loop(cfg, vec![Message::user("u")], &model, &mut tb).unwrap()
    };
    assert_eq!(run(&on_1_1()).kind, EndKind::Completed);
    assert_eq!(run(&LoopConfig::default()).kind, EndKind::Error);
    // The next turn's request is built at the version too.
    let start = vec![
        Message::user("q"),
        Message::assistant(None, vec![ToolCall::new("c", "x", "{}")]),
        Message::Tool {
            responses: vec![ToolResponse::new("c", "x", &deep)].into(),
        },
    ];
    let with_memory = |cfg: LoopConfig| LoopConfig {
        memory: Memory::Outside,
        memory_start: start.clone(),
        ..cfg
    };
    assert_eq!(run(&with_memory(on_1_1())).memory_verdict(), Ok(()));
    assert!(
        run(&with_memory(LoopConfig::default()))
            .memory_verdict()
            .is_err()
    );
}
