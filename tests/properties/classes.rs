//! Classes of counterexample: rediscovered upstream, closed by their fix.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestCaseError;
use serde_json::Value;
use toolcall_check::verification::generators::{self, with_set};
use toolcall_check::verification::invariants::{
    Evidence, Invariant, Locus, Refutation, Verdict, check, check_scenario,
    memory_holds_conversation, pairing, refutation,
};
use toolcall_check::verification::scenario::Scenario;
use toolcall_model::chat::{EndKind, Memory};
use toolcall_model::gemini::convert_tool_response;
use toolcall_model::model::Message;
use toolcall_model::model::behavior_sets;
use toolcall_model::model::{Config as ManagerConfig, ManagerError, NOT_EXECUTED};
use toolcall_model::model::{Fix, Fixes};
use toolcall_model::model::{ToolSpec, Toolbox};

use super::{cases, holding_runner_of, seeded_runner, set};

/// Draws up to `max` generated turns (from the fixed seed) and returns the
/// first one, under `set`, on which `inv` is refuted with a refutation of
/// the class `class`.
fn find(
    set_name: &str,
    inv: Invariant,
    max: u32,
    class: impl Fn(&Evidence<'_>, &Refutation) -> bool,
) -> Option<(Scenario, Refutation)> {
    let set = set(set_name);
    let strategy = generators::scenario();
    let mut runner = seeded_runner(1);
    for _ in 0..max {
        let s = with_set(&strategy.new_tree(&mut runner).ok()?.current(), &set);
        let Ok(ev) = Evidence::gather(&s) else {
            continue;
        };
        if let Some(r) = refutation(inv, &ev)
            && class(&ev, &r)
        {
            return Some((s, r));
        }
    }
    None
}

fn under(s: &Scenario, set_name: &str) -> Scenario {
    with_set(s, &set(set_name))
}

fn data(r: &Refutation) -> &str {
    r.response.as_ref().map_or("", |x| x.data.as_str())
}

#[test]
fn rediscovers_the_breach_text_and_breach_through_processor_closes_it() {
    let (s, r) = find("upstream", Invariant::JsonSafe, 3000, |_, r| {
        is_breach_text(data(r))
    })
    .expect("random generation finds the breach text of seed 000");
    assert!(r.wanted.contains("limit"));
    let fixed = under(&s, "breach-through-processor");
    assert_eq!(check_scenario(Invariant::JsonSafe, &fixed), Verdict::Holds);
}

#[test]
fn rediscovers_issue_5437_and_strict_json_or_wrap_closes_it() {
    // A number followed by whitespace and more text, read as just the number.
    let (_, r) = find("upstream", Invariant::Lossless, 3000, |_, r| {
        let d = data(r).trim_start_matches([' ', '\t', '\n', '\r']);
        let Locus::Payload { got, .. } = &r.locus else {
            return false;
        };
        d.starts_with(|c: char| c == '-' || c.is_ascii_digit())
            && d.contains([' ', '\t', '\n', '\r'])
            && got.get("result").is_some_and(Value::is_number)
    })
    .expect("random generation finds a `3.0 + 5.0 = 8.0`-like text");
    let text = data(&r);
    let fixed = convert_tool_response(text, false, Fixes::only(Fix::StrictJsonOrWrap))
        .expect("the fix never fails");
    assert_eq!(
        fixed.to_value(),
        serde_json::json!({ "result": text }),
        "the fix keeps {text:?} whole"
    );
}

fn single_generation_replies(s: &Scenario) -> bool {
    s.model.iter().all(|r| r.len() == 1)
}

fn request_ends_with_user(s: &Scenario) -> bool {
    matches!(s.history.last(), Some(Message::User { .. }))
}

#[test]
fn rediscovers_the_dangling_call_under_throw_and_close_dangling_calls_closes_it() {
    let (s, r) = find("upstream", Invariant::TranscriptValid, 3000, |ev, r| {
        ev.scenario.config.memory == Memory::Inside
            && ev.run.kind == EndKind::LimitExceeded
            && r.wanted.contains("dangling")
            && single_generation_replies(ev.scenario)
            && request_ends_with_user(ev.scenario)
    })
    .expect("random generation finds the dangling call of seed 000");
    assert!(matches!(r.locus, Locus::MemoryApi));
    let fixed = under(&s, "close-dangling-calls");
    if let Verdict::Refuted(w) = check_scenario(Invariant::TranscriptValid, &fixed) {
        assert!(!w.contains("dangling"), "{w}");
    }
    assert_eq!(
        check_scenario(Invariant::TranscriptValid, &under(&s, "all")),
        Verdict::Holds
    );
}

#[test]
fn rediscovers_error_texts_passing_the_workaround_advisor() {
    // `[ERROR] disk full`-like: starts like JSON, so the advisor keeps it.
    let (_, r) = find("gemini-tool-text", Invariant::GeminiSafe, 10_000, |_, r| {
        let d = data(r);
        d.starts_with('[') && d[1..].starts_with(|c: char| c.is_ascii_alphabetic())
    })
    .expect("random generation finds an `[ERROR] ...` text the advisor lets through");
    assert!(r.wanted.contains("Failed to parse JSON: ["));
}

#[test]
fn rediscovers_the_advisor_rewrite_that_is_raw_one_round_later() {
    // A text the advisor would rewrite reaches Gemini raw: it is no longer
    // the last message when the next request is built.
    let (_, r) = find("gemini-tool-text", Invariant::GeminiSafe, 3000, |ev, r| {
        let d = data(r);
        !d.is_empty()
            && !d.starts_with(['{', '[', '"'])
            && ev.run.requests.len() >= 2
            && matches!(r.locus, Locus::OutcomeError)
    })
    .expect("random generation finds the third fault of docs/BEHAVIOUR.md section 7");
    assert!(r.wanted.contains("Failed to parse JSON"));
}

fn is_breach_text(d: &str) -> bool {
    d.starts_with("Tool call limit (") || d.starts_with("Total tool call limit (")
}

#[test]
fn gemini_tool_text_rewrites_the_breach_text_of_the_round_just_run() {
    // What the advisor does fix: a breach text in the request right after
    // its batch (seed 000's case) is rewritten; one that still fails is from
    // an earlier round (the advisor's third fault).
    for_all("gemini-tool-text", |ev| {
        // The advisor is a CallAdvisor: a streamed turn runs without it.
        if ev.scenario.config.stream.is_some() {
            return Ok(());
        }
        let Some(r) = refutation(Invariant::GeminiSafe, ev) else {
            return Ok(());
        };
        let (Some(resp), Some(k)) = (&r.response, r.request) else {
            return Ok(());
        };
        if !is_breach_text(&resp.data) {
            return Ok(());
        }
        let last = ev
            .request_messages()
            .and_then(|m| m.get(k))
            .and_then(|m| m.last())
            .map_or(&[][..], Message::responses);
        // The response itself, not its id: a repeating model's rounds
        // repeat their call ids, and an earlier round's breach text (which
        // the advisor never sees last) shares its id with the last round's,
        // rewritten.
        if last.contains(resp) {
            return Err(format!(
                "the advisor let the last round's breach text through: {}",
                r.wanted
            ));
        }
        Ok(())
    });
    // Upstream fails on that very case, random generation finds it, and the
    // advisor makes that response convert.
    let (s, r) = find("upstream", Invariant::GeminiSafe, 3000, |ev, r| {
        let (Some(resp), Some(k)) = (&r.response, r.request) else {
            return false;
        };
        // A turn through call(): the advisor is not in stream()'s chain.
        ev.scenario.config.stream.is_none()
            && is_breach_text(&resp.data)
            && ev
                .request_messages()
                .and_then(|m| m.get(k))
                .and_then(|m| m.last())
                .is_some_and(|m| m.responses().iter().any(|x| x.id == resp.id))
    })
    .expect("random generation finds seed 000's breach text in the next request");
    let (k, id) = (
        r.request.unwrap_or_default(),
        r.response.map(|x| x.id).unwrap_or_default(),
    );
    let advised = under(&s, "gemini-tool-text");
    let ev = Evidence::gather(&advised).expect("a valid turn");
    let sent = ev
        .request_messages()
        .and_then(|m| m.get(k))
        .and_then(|m| m.last())
        .and_then(|m| m.responses().iter().find(|x| x.id == id).cloned())
        .expect("the same request holds the same response");
    assert!(
        convert_tool_response(&sent.data, sent.error, Fixes::upstream()).is_ok(),
        "the advisor rewrote {:?}",
        sent.data
    );
}

/// Runs `body` on `cases()` generated turns under `set` (random seed,
/// failures persisted).
fn for_all(set_name: &str, body: impl Fn(&Evidence<'_>) -> Result<(), String>) {
    for_all_of(set_name, cases(), body);
}

/// [`for_all`] on `cases` generated turns.
fn for_all_of(set_name: &str, cases: u32, body: impl Fn(&Evidence<'_>) -> Result<(), String>) {
    let set = set(set_name);
    let result = holding_runner_of(cases).run(&generators::scenario(), |s| {
        let s = with_set(&s, &set);
        match Evidence::gather(&s) {
            Ok(ev) => body(&ev).map_err(TestCaseError::fail),
            Err(_) => Ok(()),
        }
    });
    if let Err(e) = result {
        panic!("{set_name}: {e}");
    }
}

#[test]
fn error_key_converts_every_error_response() {
    for name in ["error-key", "all"] {
        for_all(name, |ev| {
            for inv in [Invariant::GeminiSafe, Invariant::Lossless] {
                if let Some(r) = refutation(inv, ev)
                    && r.response.as_ref().is_some_and(|x| x.error)
                {
                    return Err(format!("{inv} fails on an error response: {}", r.wanted));
                }
            }
            Ok(())
        });
    }
}

#[test]
fn close_dangling_calls_pairs_every_turn_that_ends_after_a_batch() {
    // The fix's scope: turns that end after a batch (THROW, returnDirect, or
    // an exception) from a request that ends with a user message, with one
    // generation per reply, through call() or stream(): the fix library's
    // advisor hands the closing message over when either ends.
    // Outside that scope transcript-valid is refuted under every set (see
    // the findings below).
    // (The window's wipe, which `keep-current-turn` closes, can still
    // break the transcript; never with a dangling call.)
    for name in ["close-dangling-calls", "all"] {
        for_all(name, |ev| {
            let s = ev.scenario;
            let in_scope = request_ends_with_user(s) && single_generation_replies(s);
            match check(Invariant::TranscriptValid, ev) {
                Verdict::Refuted(w) if in_scope && (name == "all" || w.contains("dangling")) => {
                    Err(w)
                }
                _ => Ok(()),
            }
        });
    }
}

#[test]
fn all_shapes_closed_calls_through_the_processor() {
    // Under `all`, json-safe holds because the closed calls' text goes
    // through the JSON processor like the breach text: pin the exact bytes.
    let mut cfg = ManagerConfig {
        fixes: Fixes::all(),
        ..ManagerConfig::default()
    };
    cfg.limits = cfg.limits.max_calls_per_tool(1).expect("positive");
    cfg.processor.kind = toolcall_model::model::ProcessorKind::JsonError;
    let calls = ["1", "2", "3"]
        .map(|id| toolcall_model::model::ToolCall::new(id, "x", "{}"))
        .to_vec();
    let gens = [toolcall_model::model::Generation {
        tool_calls: calls.into(),
        ..Default::default()
    }];
    let mut tb = Toolbox::new(vec![ToolSpec::returning("x", "1")]);
    let err = toolcall_model::model::execute_tool_calls(
        &cfg,
        &[toolcall_model::model::Message::user("go")],
        &gens,
        &mut tb,
    )
    .expect_err("the second call breaches under THROW");
    let ManagerError::LimitExceeded(e) = err else {
        panic!("a limit breach")
    };
    let data: Vec<&str> = e
        .partial
        .last_responses()
        .iter()
        .map(|r| r.data.as_str())
        .collect();
    assert_eq!(
        data,
        [
            "1",
            r#"{"error":"Tool call limit (1) exceeded for tool 'x'. No further calls to this tool are allowed in this turn."}"#,
            &format!(r#"{{"error":"{NOT_EXECUTED}"}}"#),
        ]
    );
    // With the default processor the closed calls' text is exactly the fix's.
    cfg.processor.kind = toolcall_model::model::ProcessorKind::Default;
    let mut tb = Toolbox::new(vec![ToolSpec::returning("x", "1")]);
    let Err(ManagerError::LimitExceeded(e)) = toolcall_model::model::execute_tool_calls(
        &cfg,
        &[toolcall_model::model::Message::user("go")],
        &gens,
        &mut tb,
    ) else {
        panic!("a limit breach")
    };
    assert_eq!(e.partial.last_responses()[2].data, NOT_EXECUTED);
}

#[test]
fn a_turn_ending_in_an_exception_leaves_a_dangling_call_unless_closed() {
    let (s, _) = find("upstream", Invariant::TranscriptValid, 3000, |ev, r| {
        ev.run.kind == EndKind::Error
            && ev.scenario.config.memory == Memory::Inside
            && r.wanted.contains("dangling")
            && request_ends_with_user(ev.scenario)
            && single_generation_replies(ev.scenario)
    })
    .expect("random generation finds a batch failure with memory inside the loop");
    let missing = Evidence::gather(&s).is_ok_and(|ev| {
        ev.run
            .error
            .as_ref()
            .and_then(|e| e.message.as_deref())
            .is_some_and(|m| m.starts_with("No ToolCallback found"))
    });
    for set in behavior_sets() {
        let closes = set.fixes.contains(Fix::CloseDanglingCalls);
        // A batch that failed on a missing tool is another turn where the
        // processor answers that call.
        if set.fixes.contains(Fix::UnknownToolToProcessor) && missing {
            continue;
        }
        assert_eq!(
            check_scenario(Invariant::TranscriptValid, &with_set(&s, &set)).is_refuted(),
            !closes,
            "{}",
            set.name
        );
    }
}

fn with_fixes(s: &Scenario, fixes: Fixes) -> Scenario {
    let mut s = s.clone();
    s.config.manager.fixes = fixes;
    s
}

#[test]
fn rediscovers_several_generations_and_store_answered_generation_closes_it() {
    // A reply with several generations, stored whole by a memory inside the
    // loop, breaks the transcript even with every other fix on (the
    // generation the manager does not answer sits between the turn's
    // messages); storing the answered generation alone closes it.
    let others: Fixes = Fixes::all()
        .iter()
        .filter(|f| *f != Fix::StoreAnsweredGeneration)
        .collect();
    let (s, _) = find(
        "close-dangling-calls",
        Invariant::TranscriptValid,
        4000,
        |ev, _| {
            let s = ev.scenario;
            s.config.memory == Memory::Inside
                && !single_generation_replies(s)
                && ev.run.kind != EndKind::Error
                && check_scenario(Invariant::TranscriptValid, &with_fixes(s, others)).is_refuted()
        },
    )
    .expect("random generation finds a reply with two generations and a memory inside the loop");
    assert_eq!(
        check_scenario(Invariant::TranscriptValid, &under(&s, "all")),
        Verdict::Holds
    );
}

/// Draws up to `max` generated turns (from the fixed seed) under `set` and
/// returns the first whose evidence satisfies `pick`.
fn search(set_name: &str, max: u32, pick: impl Fn(&Evidence<'_>) -> bool) -> Option<Scenario> {
    let set = set(set_name);
    let strategy = generators::scenario();
    let mut runner = seeded_runner(1);
    for _ in 0..max {
        let s = with_set(&strategy.new_tree(&mut runner).ok()?.current(), &set);
        if let Ok(ev) = Evidence::gather(&s)
            && pick(&ev)
        {
            return Some(s);
        }
    }
    None
}

fn stored_with_next_question(ev: &Evidence<'_>) -> Vec<Message> {
    let mut m = ev.run.memory.clone();
    m.push(Message::user("next question"));
    m
}

#[test]
fn the_memory_precondition_is_needed() {
    // Each part of "the memory holds the conversation so far" is needed:
    // outside it, even `all` breaks the transcript. (a) A request that
    // already holds a tool round, with a memory that lacks the turn's
    // start: the memory stores the response alone.
    let s = search("all", 3000, |ev| {
        let s = ev.scenario;
        s.config.memory != Memory::None
            && s.config.memory_start.is_empty()
            && matches!(s.history.last(), Some(Message::Tool { .. }))
            && pairing(&stored_with_next_question(ev)).is_err()
    })
    .expect("random generation finds a request ending in a tool round with an empty memory");
    assert!(memory_holds_conversation(&s).is_err());
    assert_eq!(
        check_scenario(Invariant::TranscriptValid, &s),
        Verdict::NotApplicable
    );
    // (b) A memory inside the loop that holds an earlier turn the request
    // does not, with conversation history on: the memory is prepended again
    // every round, and a request repeats the turn's call.
    let s = search("all", 3000, |ev| {
        let s = ev.scenario;
        s.config.memory == Memory::Inside
            && s.config.conversation_history
            && !s.config.memory_start.is_empty()
            && ev
                .request_messages()
                .is_some_and(|r| r.iter().any(|m| pairing(m).is_err()))
    })
    .expect("random generation finds a memory inside the loop the request does not hold");
    assert!(memory_holds_conversation(&s).is_err());
    // (c) With the memory inside, a system message after the user message:
    // the memory's run is split in the loop's prompt and prepended again.
    let mut s = search("all", 3000, |ev| {
        let s = ev.scenario;
        s.config.memory == Memory::Inside
            && s.config.conversation_history
            && s.config.memory_start.is_empty()
            && s.history.len() == 1
            && ev.run.requests.len() >= 2
    })
    .expect("random generation finds a one-message request and a tool round");
    s.history.push(Message::System {
        text: Some("be brief".into()),
    });
    assert!(memory_holds_conversation(&s).is_err());
    let ev = Evidence::gather(&s).expect("a valid turn");
    assert!(
        ev.request_messages()
            .is_some_and(|r| r.iter().any(|m| pairing(m).is_err()))
    );
    // (d) Conversation history off without a memory inside: the loop sends
    // the last message alone, a tool message without its call or question.
    let mut s = search("all", 3000, |ev| {
        ev.scenario.config.memory == Memory::None
            && ev.scenario.history.len() == 1
            && ev.run.requests.len() >= 2
    })
    .expect("random generation finds a turn with a tool round and no memory");
    s.config.conversation_history = false;
    let ev = Evidence::gather(&s).expect("a valid turn");
    let second = &ev.request_messages().expect("requests")[1];
    assert!(pairing(second).is_err() && !second.iter().any(Message::is_user));
    assert_eq!(
        check_scenario(Invariant::QuestionKept, &s),
        Verdict::NotApplicable
    );
}

#[test]
fn rediscovers_the_window_wiping_the_question_and_keep_current_turn_closes_it() {
    // ChatClient's own registration with a memory inside the loop:
    // conversation history off. A turn longer than the window: 2.0.1's cut
    // finds no user message after it and evicts the whole turn, so the
    // next requests lose the question.
    let (s, r) = find("upstream", Invariant::QuestionKept, 3000, |ev, _| {
        let c = &ev.scenario.config;
        c.memory == Memory::Inside && !c.conversation_history
    })
    .expect("random generation finds the window evicting the turn's question");
    assert!(r.wanted.contains("question"), "{}", r.wanted);
    for (name, holds) in [
        ("keep-current-turn", true),
        ("all", true),
        ("evict-orphan-responses", false),
    ] {
        assert_eq!(
            check_scenario(Invariant::QuestionKept, &under(&s, name)).is_refuted(),
            !holds,
            "{name}"
        );
    }
}

#[test]
fn rediscovers_the_memory_losing_the_turn_and_keep_current_turn_closes_it() {
    let (s, _) = find("upstream", Invariant::MemoryKeepsTurns, 3000, |ev, r| {
        single_generation_replies(ev.scenario) && r.wanted.contains("current turn whole")
    })
    .expect("random generation finds the window wiping the current turn");
    for name in ["keep-current-turn", "all"] {
        assert_eq!(
            check_scenario(Invariant::MemoryKeepsTurns, &under(&s, name)),
            Verdict::Holds,
            "{name}"
        );
    }
    assert!(
        check_scenario(
            Invariant::MemoryKeepsTurns,
            &under(&s, "evict-orphan-responses")
        )
        .is_refuted()
    );
}

#[test]
fn evict_orphan_responses_keeps_the_pairs_but_not_the_question() {
    // What the upstream proposal does keep: no stored tool message loses
    // the call before it. Precondition: the memory's precondition and one
    // generation per model reply. `MessageChatMemoryAdvisor` stores every
    // generation of a reply, so after a reply of a call and a text the tool
    // message follows the text whatever the window does (store-answered-
    // generation's gap, not the window's; a CI run's random seed found it,
    // kept in proptest-regressions/properties.txt). Few generated turns meet
    // the precondition with a memory, hence the larger run and the count.
    let applicable = std::sync::atomic::AtomicUsize::new(0);
    for_all_of("evict-orphan-responses", cases().max(600), |ev| {
        let s = ev.scenario;
        if s.config.memory == Memory::None
            || memory_holds_conversation(s).is_err()
            || s.model.iter().any(|reply| reply.len() > 1)
        {
            return Ok(());
        }
        applicable.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let m: Vec<&Message> = ev
            .run
            .memory
            .iter()
            .filter(|m| !matches!(m, Message::System { .. }))
            .collect();
        for (i, x) in m.iter().enumerate() {
            let after_call = i
                .checked_sub(1)
                .is_some_and(|p| !m[p].tool_calls().is_empty());
            if matches!(x, Message::Tool { .. }) && !after_call {
                return Err(format!(
                    "stored message {i}, a tool message, follows no call"
                ));
            }
        }
        Ok(())
    });
    let applicable = applicable.into_inner();
    assert!(
        applicable >= 50,
        "only {applicable} turns met the precondition"
    );
    // What it does not: the question, evicted first.
    let (_, r) = find(
        "evict-orphan-responses",
        Invariant::MemoryKeepsTurns,
        3000,
        |_, r| r.wanted.contains("current turn whole"),
    )
    .expect("random generation finds the proposal evicting the question");
    assert!(!r.wanted.contains("holds nothing"), "{}", r.wanted);
}
