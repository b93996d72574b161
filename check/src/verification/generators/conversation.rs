//! What the model says and what the request holds: call arguments, tool
//! calls, model replies and the history before the turn.

use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;

use super::text::{json_object_text, text, word};
use super::{UNKNOWN_TOOL, s};
use toolcall_model::model::{Generation, Message, ToolCall, ToolResponse};

/// Call arguments as a model sends them: `{}`, a JSON object, other text
/// (JSON or not), blank, null.
pub fn arguments() -> BoxedStrategy<Option<String>> {
    prop_oneof![
        6 => Just(Some("{}".to_owned())),
        4 => json_object_text().prop_map(Some),
        1 => text().prop_map(Some),
        1 => s(&["", " ", "\t\n", "\u{2003}"]).prop_map(Some),
        1 => Just(None),
    ]
    .boxed()
}

/// Arguments of calls already in the history: mostly JSON objects, rarely
/// blank (a broken one there would fail every request of every set).
fn history_arguments() -> BoxedStrategy<Option<String>> {
    prop_oneof![
        8 => Just(Some("{}".to_owned())),
        4 => json_object_text().prop_map(Some),
        1 => s(&["", " "]).prop_map(Some),
    ]
    .boxed()
}

fn call_name() -> BoxedStrategy<String> {
    prop_oneof![
        10 => Just("a".to_owned()),
        7 => Just("b".to_owned()),
        4 => Just("c".to_owned()),
        1 => Just(UNKNOWN_TOOL.to_owned()),
        // Blank names: with resolution fallback the resolver asserts hasText.
        1 => s(&["", " "]),
    ]
    .boxed()
}

/// A batch of 1 to 4 calls (ids are assigned later).
fn calls() -> BoxedStrategy<Vec<(String, Option<String>)>> {
    vec((call_name(), arguments()), 1..=4).boxed()
}

fn history_calls() -> BoxedStrategy<Vec<(String, Option<String>)>> {
    vec((call_name(), history_arguments()), 1..=4).boxed()
}

fn to_calls(prefix: &str, calls: Vec<(String, Option<String>)>) -> Vec<ToolCall> {
    calls
        .into_iter()
        .enumerate()
        .map(|(i, (name, arguments))| ToolCall {
            id: format!("{prefix}-{i}").into(),
            kind: "function".into(),
            name: name.into(),
            arguments: arguments.map(Into::into),
        })
        .collect()
}

/// One model reply in which the model asks for tools. Usually one
/// generation; rarely two (a text-only one and one with calls, or two with
/// calls), as a model asked for several candidates returns.
#[derive(Debug, Clone)]
enum Reply {
    One(Vec<(String, Option<String>)>, Option<String>),
    TextThenCalls(String, Vec<(String, Option<String>)>),
    CallsThenText(Vec<(String, Option<String>)>, String),
    TwoCalls(Vec<(String, Option<String>)>, Vec<(String, Option<String>)>),
}

fn reply() -> BoxedStrategy<Reply> {
    prop_oneof![
        30 => (calls(), option::weighted(0.15, word())).prop_map(|(c, t)| Reply::One(c, t)),
        1 => (word(), calls()).prop_map(|(t, c)| Reply::TextThenCalls(t, c)),
        1 => (calls(), word()).prop_map(|(c, t)| Reply::CallsThenText(c, t)),
        1 => (calls(), calls()).prop_map(|(a, b)| Reply::TwoCalls(a, b)),
    ]
    .boxed()
}

fn generation(text: Option<String>, tool_calls: Vec<ToolCall>) -> Generation {
    Generation {
        text: text.map(Into::into),
        tool_calls: tool_calls.into(),
        ..Generation::default()
    }
}

fn reply_generations(round: usize, r: Reply) -> Vec<Generation> {
    let p = |g: usize| format!("call-{round}-{g}");
    match r {
        Reply::One(c, t) => vec![generation(t, to_calls(&p(0), c))],
        Reply::TextThenCalls(t, c) => vec![
            generation(Some(t), vec![]),
            generation(None, to_calls(&p(1), c)),
        ],
        Reply::CallsThenText(c, t) => vec![
            generation(None, to_calls(&p(0), c)),
            generation(Some(t), vec![]),
        ],
        Reply::TwoCalls(a, b) => vec![
            generation(None, to_calls(&p(0), a)),
            generation(None, to_calls(&p(1), b)),
        ],
    }
}

/// The scripted model: 0 to 3 tool rounds, then a final answer.
pub fn model() -> BoxedStrategy<Vec<Vec<Generation>>> {
    (vec(reply(), 0..=3), word())
        .prop_map(|(replies, last)| {
            let mut m: Vec<Vec<Generation>> = replies
                .into_iter()
                .enumerate()
                .map(|(i, r)| reply_generations(i, r))
                .collect();
            m.push(vec![generation(Some(last), vec![])]);
            m
        })
        .boxed()
}

/// A round already in the history: an assistant message with calls and a
/// tool message answering each call (responses to breached or failed calls
/// look the same: any text, sometimes marked as an error).
type PriorRound = (Vec<(String, Option<String>)>, Vec<(String, bool)>);

fn prior_round() -> BoxedStrategy<PriorRound> {
    (
        history_calls(),
        vec((text(), prop_oneof![4 => Just(false), 1 => Just(true)]), 4),
    )
        .boxed()
}

fn push_round(out: &mut Vec<Message>, prefix: &str, (calls, data): PriorRound) {
    let calls = to_calls(prefix, calls);
    let responses = calls
        .iter()
        .zip(data)
        .map(|(c, (d, error))| ToolResponse {
            id: c.id.clone(),
            name: c.name.clone(),
            data: d.into(),
            error,
        })
        .collect();
    out.push(Message::assistant(None, calls));
    out.push(Message::Tool { responses });
}

pub(super) fn phrase() -> BoxedStrategy<String> {
    vec(word(), 1..4).prop_map(|w| w.join(" ")).boxed()
}

/// The request's messages: an optional system message, 0 to 2 prior turns
/// (user, rounds, answer), then the current user message and 0 to 2 rounds
/// of this turn already done; rarely no user message at all.
pub fn history() -> BoxedStrategy<Vec<Message>> {
    let turn = (phrase(), vec(prior_round(), 0..=1), phrase());
    (
        option::weighted(0.3, phrase()),
        vec(turn, 0..=2),
        prop_oneof![14 => phrase().prop_map(Some), 1 => Just(None)],
        prop_oneof![3 => Just(vec![]), 1 => vec(prior_round(), 1..=2)],
    )
        .prop_map(|(system, turns, user, rounds)| {
            let mut h = Vec::new();
            if let Some(t) = system {
                h.push(Message::System {
                    text: Some(t.into()),
                });
            }
            let Some(user) = user else {
                // No user message anywhere: the whole history is the turn.
                for (j, r) in rounds.into_iter().enumerate() {
                    push_round(&mut h, &format!("h-{j}"), r);
                }
                return h;
            };
            for (t, (u, rs, answer)) in turns.into_iter().enumerate() {
                h.push(Message::user(&u));
                for (j, r) in rs.into_iter().enumerate() {
                    push_round(&mut h, &format!("t{t}-{j}"), r);
                }
                h.push(Message::assistant(Some(&answer), vec![]));
            }
            h.push(Message::user(&user));
            for (j, r) in rounds.into_iter().enumerate() {
                push_round(&mut h, &format!("h-{j}"), r);
            }
            h
        })
        .boxed()
}
