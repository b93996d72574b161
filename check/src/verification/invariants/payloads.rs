//! The judges of the responses' payloads: JSON-safe (4), Gemini-safe (5)
//! and lossless (6), with the recovery rule of a payload.

use std::sync::Arc;

use serde_json::{Map, Value};

use crate::verification::oracle::json::{Whole, json_equals, json_to_value, read_whole};
use crate::verification::oracle::{Json, is_whole_json};
use toolcall_model::chat::{Provider, Sent};
use toolcall_model::gemini::{Part, Payload, build_request, convert_tool_response, message_parts};
use toolcall_model::model::Outcome;
use toolcall_model::model::{Fix, Fixes};
use toolcall_model::model::{Message, ToolResponse};
use toolcall_model::model::{ProcessorKind, json_error_text};

use super::evidence::Evidence;
use super::judgements::{Converted, Judgements, Learned};
use super::trace::{JSON_SAFE_JUDGE, Round, RoundEnd};
use super::transcripts::non_system;
use super::{Judged, Locus, clip, in_request, refuted, refuted_on};

pub(super) fn wrap(key: &str, v: Value) -> Value {
    let mut m = Map::new();
    m.insert(key.to_owned(), v);
    Value::Object(m)
}

/// How the response converts under `fixes`, learned once where the
/// evidence shares [`Judgements`].
fn conversion(ev: &Evidence<'_>, r: &ToolResponse, fixes: Fixes) -> Converted {
    remembered(
        ev.judgements(),
        &r.data,
        |l| match l {
            Learned::Conversion {
                error,
                fixes: f,
                outcome,
            } if *error == r.error && *f == fixes => Some(*outcome),
            _ => None,
        },
        || match convert_tool_response(&r.data, r.error, fixes) {
            Ok(p) if p.is_object() => Converted::Object,
            Ok(_) => Converted::NotAnObject,
            Err(_) => Converted::Throws,
        },
        |outcome| Learned::Conversion {
            error: r.error,
            fixes,
            outcome,
        },
    )
}

/// Whether `payload` recovers the response ([`recovered`]), learned once
/// where the evidence shares [`Judgements`]: a payload equal to one judged
/// before for the same text, mark and fixes recovers it alike.
fn recovers(ev: &Evidence<'_>, r: &ToolResponse, fixes: Fixes, payload: &Payload) -> bool {
    remembered(
        ev.judgements(),
        &r.data,
        |l| match l {
            Learned::Recovery {
                error,
                fixes: f,
                payload: p,
                recovers,
            } if *error == r.error && *f == fixes && p == payload => Some(*recovers),
            _ => None,
        },
        || recovered(&r.data, r.error, fixes, &payload.to_value()).is_ok(),
        |recovers| Learned::Recovery {
            error: r.error,
            fixes,
            payload: payload.clone(),
            recovers,
        },
    )
}

/// What `judge` finds for `text`: read from `memo` where `known` finds it
/// there, else judged and, where there is a memo, kept as `keep` makes it.
fn remembered<T: Copy>(
    memo: Option<&Judgements>,
    text: &str,
    known: impl Fn(&Learned) -> Option<T>,
    judge: impl FnOnce() -> T,
    keep: impl FnOnce(T) -> Learned,
) -> T {
    let Some(memo) = memo else {
        return judge();
    };
    if let Some(found) = memo.find(text, known) {
        return found;
    }
    let found = judge();
    memo.learn(text, keep(found));
    found
}

/// Whether `payload` recovers `data` (invariant 6), and if not, the payload
/// that would have.
///
/// * An error response under `error-key`: a whole JSON object as is, any
///   other data verbatim under `error` (that fix's design: error data is
///   never parsed).
/// * Otherwise: one whole JSON value as an equal value (an object as is,
///   anything else under `result`); any other text verbatim under `result`.
///   A value Jackson or Rust cannot carry faithfully (deeper than 500, an
///   unpaired surrogate escape) may also come back verbatim.
pub(crate) fn recovered(
    data: &str,
    error: bool,
    fixes: Fixes,
    payload: &Value,
) -> Result<(), Value> {
    let verbatim = |key: &str| wrap(key, Value::String(data.to_owned()));
    // Compared without building the object: `{KEY: DATA}`.
    let is_verbatim = |key: &str| {
        payload
            .as_object()
            .is_some_and(|m| m.len() == 1 && m.get(key).and_then(Value::as_str) == Some(data))
    };
    let whole = read_whole(data, true);
    if fixes.contains(Fix::ErrorKey) && error {
        return match whole {
            Whole::Value {
                value: v @ Json::Obj(_),
                beyond,
            } => {
                if json_equals(&v, payload) || (beyond && is_verbatim("error")) {
                    Ok(())
                } else {
                    Err(json_to_value(&v))
                }
            }
            _ if is_verbatim("error") => Ok(()),
            _ => Err(verbatim("error")),
        };
    }
    match whole {
        Whole::Value { value, beyond } => {
            let ok = match (&value, payload) {
                (Json::Obj(_), p) => json_equals(&value, p),
                (v, Value::Object(m)) => {
                    m.len() == 1 && m.get("result").is_some_and(|r| json_equals(v, r))
                }
                _ => false,
            };
            if ok || (beyond && is_verbatim("result")) {
                Ok(())
            } else if matches!(value, Json::Obj(_)) {
                Err(json_to_value(&value))
            } else {
                Err(wrap("result", json_to_value(&value)))
            }
        }
        Whole::TooDeep | Whole::NotJson => {
            if is_verbatim("result") {
                Ok(())
            } else {
                Err(verbatim("result"))
            }
        }
    }
}
pub(super) fn json_safe(ev: &Evidence<'_>) -> Judged {
    let cfg = &ev.scenario.config.manager;
    if cfg.processor.kind != ProcessorKind::JsonError {
        return Judged::NotApplicable;
    }
    let method_tools = ev.scenario.tools.iter().all(|t| {
        !t.outcomes.is_empty()
            && t.outcomes.iter().all(|o| match o {
                Outcome::Returns(Some(text)) => is_whole_json(text),
                Outcome::Throws { .. } => true,
                Outcome::Returns(None) | Outcome::EchoArguments => false,
            })
    });
    if !method_tools {
        return Judged::NotApplicable;
    }
    let trace = ev.trace();
    trace.judged(JSON_SAFE_JUDGE, || whole_json_responses(trace.rounds()))
}

/// Invariant 4 on the replay's batches.
fn whole_json_responses(rounds: &[Round]) -> Judged {
    for (r, round) in rounds.iter().enumerate() {
        let responses = match &round.end {
            RoundEnd::Done { result, .. } => result.last_responses(),
            RoundEnd::Limit(e) => e.partial.last_responses(),
            RoundEnd::Failed(_) => continue,
        };
        for (i, resp) in responses.iter().enumerate() {
            if !is_whole_json(&resp.data) {
                return refuted_on(
                    format!(
                        "batch {r}: response {i} (tool '{}') to be one whole JSON value, got {}",
                        resp.name,
                        clip(&resp.data)
                    ),
                    Locus::Text {
                        data: resp.data.to_string(),
                        wanted: json_error_text(&resp.data),
                    },
                    resp,
                );
            }
        }
    }
    Judged::Holds
}

pub(super) fn tool_responses(messages: &[Message]) -> impl Iterator<Item = &ToolResponse> {
    messages.iter().flat_map(|m| m.responses().iter())
}

/// A conversion that succeeds but does not read back as a JSON object.
fn not_an_object(r: &ToolResponse, p: &Payload, k: usize) -> Option<Judged> {
    if p.is_object() {
        return None;
    }
    let value = p.to_value();
    Some(in_request(
        refuted_on(
            format!(
                "request {k}: the response of tool '{}', {}, to convert to a JSON object; got {value}",
                r.name,
                clip(&r.data),
            ),
            Locus::Unlocated,
            r,
        ),
        k,
    ))
}

pub(super) fn gemini_safe(ev: &Evidence<'_>) -> Judged {
    if ev.scenario.config.provider != Provider::Gemini {
        return Judged::NotApplicable;
    }
    let fixes = ev.fixes();
    let Some(all) = ev.attempted_messages() else {
        return Judged::NotApplicable;
    };
    // A response converts as it did in an earlier request: each text is
    // judged once.
    let mut held: Vec<(&str, bool)> = Vec::new();
    for (k, msgs) in all.iter().enumerate() {
        for r in tool_responses(msgs) {
            if held.contains(&(r.data.as_str(), r.error)) {
                continue;
            }
            // One conversion judges both: a payload that is no object, or
            // a conversion that throws; the refutation converts again to
            // say what came out.
            if conversion(ev, r, fixes) != Converted::Object {
                let converted = convert_tool_response(&r.data, r.error, fixes);
                if let Some(judged) = converted.as_ref().ok().and_then(|p| not_an_object(r, p, k)) {
                    return judged;
                }
                if let Err(e) = converted {
                    return in_request(
                        refuted_on(
                            format!(
                                "request {k}: the response of tool '{}', {}, to convert to a JSON object; got {e}",
                                r.name,
                                clip(&r.data)
                            ),
                            Locus::OutcomeError,
                            r,
                        ),
                        k,
                    );
                }
            }
            held.push((&r.data, r.error));
        }
    }
    for r in tool_responses(&ev.run.memory) {
        if held.contains(&(r.data.as_str(), r.error))
            || conversion(ev, r, fixes) != Converted::Throws
        {
            continue;
        }
        if let Err(e) = convert_tool_response(&r.data, r.error, fixes) {
            return refuted_on(
                format!(
                    "the next turn's request, built from memory: the response of tool '{}', {}, to convert to a JSON object; got {e}",
                    r.name,
                    clip(&r.data)
                ),
                Locus::MemoryApi,
                r,
            );
        }
    }
    Judged::Holds
}

/// Pairs each tool response of `messages` with its converted payload in
/// `contents` (the request built from them): (content index, part index,
/// response, payload).
#[allow(clippy::type_complexity)]
pub(super) fn aligned<'m>(
    messages: &'m [Message],
    contents: &'m [Arc<toolcall_model::gemini::Content>],
) -> Result<impl Iterator<Item = (usize, usize, &'m ToolResponse, &'m Payload)>, String> {
    aligned_after(messages, contents, None)
}

/// The contents of `contents` with their messages (the non-system ones of
/// `messages`, in order), leaving out each content that is, at the same
/// place, the very content of `before` (an earlier request of the turn,
/// already aligned and judged) built from an equal message: its pairs were
/// judged.
fn fresh_contents<'m>(
    messages: &'m [Message],
    contents: &'m [Arc<toolcall_model::gemini::Content>],
    before: Option<(&'m [Message], &'m [Arc<toolcall_model::gemini::Content>])>,
) -> impl Iterator<Item = (usize, &'m Message, &'m toolcall_model::gemini::Content)> {
    let mut earlier = before.map(|(m, c)| (non_system(m), c));
    non_system(messages)
        .zip(contents)
        .enumerate()
        .filter_map(move |(c, (m, content))| {
            let seen = earlier.as_mut().is_some_and(|(bm, bc)| {
                let b = bm.next();
                bc.get(c).is_some_and(|b| Arc::ptr_eq(b, content)) && b == Some(m)
            });
            (!seen).then_some((c, m, &**content))
        })
}

/// [`aligned`], leaving out the contents [`fresh_contents`] leaves out.
/// The shape is checked whole before any pair is handed out, so a request
/// built wrong is told as such whatever its payloads; the pairs are then
/// walked in place, without a list.
#[allow(clippy::type_complexity)]
fn aligned_after<'m>(
    messages: &'m [Message],
    contents: &'m [Arc<toolcall_model::gemini::Content>],
    before: Option<(&'m [Message], &'m [Arc<toolcall_model::gemini::Content>])>,
) -> Result<impl Iterator<Item = (usize, usize, &'m ToolResponse, &'m Payload)>, String> {
    let n = non_system(messages).count();
    if n != contents.len() {
        return Err(format!("{n} messages but {} contents", contents.len()));
    }
    for (c, m, content) in fresh_contents(messages, contents, before) {
        if let Message::Tool { responses } = m {
            if responses.len() != content.parts.len() {
                return Err(format!("content {c}: parts do not match the responses"));
            }
            if let Some(p) = content
                .parts
                .iter()
                .position(|part| !matches!(part, Part::FunctionResponse { .. }))
            {
                return Err(format!("content {c} part {p} is not a function response"));
            }
        }
    }
    Ok(
        fresh_contents(messages, contents, before).flat_map(|(c, m, content)| {
            m.responses()
                .iter()
                .zip(&content.parts)
                .enumerate()
                .filter_map(move |(p, (r, part))| match part {
                    Part::FunctionResponse { response, .. } => Some((c, p, r, response)),
                    _ => None,
                })
        }),
    )
}

pub(super) fn lossless(ev: &Evidence<'_>) -> Judged {
    if ev.scenario.config.provider != Provider::Gemini {
        return Judged::NotApplicable;
    }
    let fixes = ev.fixes();
    let Some(all) = ev.attempted_messages() else {
        return Judged::NotApplicable;
    };
    let recoverable = match recoverable_in_requests(ev, fixes, all) {
        Ok(r) => r,
        Err(refuted) => return refuted,
    };
    recoverable_next_turn(ev, fixes, &recoverable)
}

/// Invariant 6 on the turn's requests: each response's (text, mark) that
/// came through recoverable, or the refutation.
fn recoverable_in_requests<'e>(
    ev: &'e Evidence<'_>,
    fixes: Fixes,
    all: &'e [Vec<Message>],
) -> Result<Vec<(&'e str, bool)>, Judged> {
    // Every request converts a response by `convert_tool_response` of its
    // text and error mark under the run's fixes, so a (text, mark) that
    // came through recoverable once does everywhere: each is judged once.
    let mut recoverable: Vec<(&str, bool)> = Vec::new();
    let mut before = None;
    for (k, sent) in ev.run.requests.iter().enumerate() {
        let (Sent::Gemini(req), Some(msgs)) = (sent, all.get(k)) else {
            return Err(refuted(
                format!("request {k} to be a Gemini request built from the loop's messages"),
                Locus::Unlocated,
            ));
        };
        let pairs = match aligned_after(msgs, &req.contents, before) {
            Ok(p) => p,
            Err(e) => {
                return Err(refuted(
                    format!("request {k} to be built from the loop's messages: {e}"),
                    Locus::Unlocated,
                ));
            }
        };
        for (c, p, r, payload) in pairs {
            if recoverable.contains(&(r.data.as_str(), r.error)) {
                continue;
            }
            if recovers(ev, r, fixes, payload) {
                recoverable.push((&r.data, r.error));
                continue;
            }
            // Judged again to say what was wanted.
            let payload = payload.to_value();
            if let Err(want) = recovered(&r.data, r.error, fixes, &payload) {
                let locus = if depth_of(&want) <= 100 {
                    Locus::Payload {
                        request: k,
                        content: c,
                        part: p,
                        wanted: want.clone(),
                        got: payload.clone(),
                    }
                } else {
                    Locus::Unlocated
                };
                return Err(in_request(
                    refuted_on(
                        format!(
                            "request {k}: the response of tool '{}', {}, to come through recoverable as {}, got {}",
                            r.name,
                            clip(&r.data),
                            clip(&want.to_string()),
                            clip(&payload.to_string())
                        ),
                        locus,
                        r,
                    ),
                    k,
                ));
            }
            recoverable.push((&r.data, r.error));
        }
        before = Some((&msgs[..], &req.contents[..]));
    }
    Ok(recoverable)
}

/// Invariant 6 on the next turn's request, built from the memory: only a
/// response not among the `recoverable` ones can refute it.
fn recoverable_next_turn(ev: &Evidence<'_>, fixes: Fixes, recoverable: &[(&str, bool)]) -> Judged {
    // The next turn's request holds the memory's responses: where each was
    // judged above, the request (if it builds) holds nothing new.
    if tool_responses(&ev.run.memory).all(|r| recoverable.contains(&(r.data.as_str(), r.error))) {
        return Judged::Holds;
    }
    // Only a memory's tool message holding a response not judged above can
    // refute: each is converted as the request converts it, message by
    // message (`message_parts`). Where one does not convert, the request
    // does not build; where every new response recovers, it holds nothing
    // to refute. Else the request is built and judged whole.
    let mut settled = true;
    let unjudged = |r: &ToolResponse| !recoverable.contains(&(r.data.as_str(), r.error));
    for m in ev
        .run
        .memory
        .iter()
        .filter(|m| m.responses().iter().any(unjudged))
    {
        let Ok(parts) = message_parts(m, fixes) else {
            return Judged::Holds;
        };
        settled &= m
            .responses()
            .iter()
            .zip(&parts)
            .all(|(r, part)| match part {
                Part::FunctionResponse { response, .. } => {
                    !unjudged(r) || recovers(ev, r, fixes, response)
                }
                _ => true,
            });
    }
    if settled {
        return Judged::Holds;
    }
    let next = ev.next_turn();
    if let Ok(req) = build_request(&next, fixes)
        && let Ok(pairs) = aligned(&next, &req.contents)
    {
        for (_, _, r, payload) in pairs {
            if recovers(ev, r, fixes, payload) {
                continue;
            }
            let payload = payload.to_value();
            if let Err(want) = recovered(&r.data, r.error, fixes, &payload) {
                return refuted_on(
                    format!(
                        "the next turn's request, built from memory: the response of tool '{}', {}, to come through recoverable as {}, got {}",
                        r.name,
                        clip(&r.data),
                        clip(&want.to_string()),
                        clip(&payload.to_string())
                    ),
                    Locus::Unlocated,
                    r,
                );
            }
        }
    }
    Judged::Holds
}

pub(super) fn depth_of(v: &Value) -> usize {
    match v {
        Value::Array(a) => 1 + a.iter().map(depth_of).max().unwrap_or(0),
        Value::Object(o) => 1 + o.values().map(depth_of).max().unwrap_or(0),
        _ => 0,
    }
}
