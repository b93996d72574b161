use super::validate::COUNTS_MATCH;
use super::*;
use crate::model::behavior::{Fix, Fixes};
use crate::model::message::{Message, ToolCall, ToolResponse};

fn call(id: &str) -> ToolCall {
    ToolCall::new(id, "x", "{}")
}

#[test]
fn validating_from_the_last_accepted_content_equals_a_full_validation() {
    let user = Message::user("u");
    let asst = |n: usize| Message::assistant(None, (0..n).map(|i| call(&i.to_string())).collect());
    let tool = |n: usize| Message::Tool {
        responses: (0..n)
            .map(|i| ToolResponse::new(&i.to_string(), "x", "1"))
            .collect(),
    };
    // An accepted prefix ending in a call content, then what follows it.
    let prefixes = [vec![user.clone()], vec![user.clone(), asst(2)]];
    let suffixes = [
        vec![tool(2)],
        vec![tool(1)],
        vec![Message::user("v")],
        vec![asst(1), tool(1)],
        vec![Message::user("")],
    ];
    let mut checked = 0;
    for p in &prefixes {
        let prev = build_request(p, Fixes::all()).unwrap();
        let prev_ok = validate(&prev, ValidatorOptions::default()).is_ok();
        for sfx in &suffixes {
            let mut all = p.clone();
            all.extend(sfx.iter().cloned());
            let r = build_request(&all, Fixes::all()).unwrap();
            let full = validate(&r, ValidatorOptions::default());
            if prev_ok {
                let from = prev.contents.len() - 1;
                assert_eq!(
                    validate_from(&r, from, ValidatorOptions::default()),
                    full,
                    "{all:?}"
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, suffixes.len());
    // The last accepted content must be checked again: [user, call×2]
    // followed by one response breaks the count rule at the call.
    let r = build_request(&[user, asst(2), tool(1)], Fixes::all()).unwrap();
    assert_eq!(
        validate_from(&r, 1, ValidatorOptions::default()),
        Err(Rejection {
            rule: Rule::CountsMatch,
            text: COUNTS_MATCH.into()
        })
    );
    assert_eq!(validate_from(&r, 2, ValidatorOptions::default()), Ok(()));
}

#[test]
fn deep_values_convert_exactly_on_a_small_stack() {
    // 2 MiB is a spawned thread's default stack, test threads included.
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            for depth in [127, 128, 129, 499] {
                let arr = format!(
                    "{}0.11623512015512211{}",
                    "[".repeat(depth),
                    "]".repeat(depth)
                );
                // Repeated keys make the conversion build the value.
                let obj = format!(
                    "{}{{\"k\":0.11623512015512211,\"j\":1.10,\"k\":0.11623512015512211}}{}",
                    "{\"a\":[".repeat(depth / 2),
                    "]}".repeat(depth / 2)
                );
                for text in [arr, obj] {
                    let p = convert_tool_response(&text, false, Fixes::all()).unwrap();
                    let printed = p.to_value().to_string();
                    assert!(
                        printed.contains("0.11623512015512211"),
                        "{depth}: {printed:.80}"
                    );
                    assert!(
                        !printed.contains("\"result\":\""),
                        "{depth}: wrapped as text"
                    );
                }
            }
        })
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn a_value_500_deep_is_kept_whole_once_wrapped_501_deep() {
    // The strict reader takes 500 levels; `{"result": v}` adds one. The
    // payload read back must be that object, not null (a property seed
    // found `to_value` refusing the 501 levels).
    let text = format!("{}1{}", "[".repeat(500), "]".repeat(500));
    let p = crate::gemini::convert_tool_response(&text, false, Fixes::only(Fix::StrictJsonOrWrap))
        .expect("converts");
    let v = p.to_value();
    let mut depth = 0;
    let mut at = &v["result"];
    while let serde_json::Value::Array(a) = at {
        depth += 1;
        at = &a[0];
    }
    assert_eq!(depth, 500);
    assert_eq!(at, &serde_json::json!(1));
}

/// Texts on which the two pull requests, `strict-json-or-wrap` and
/// upstream part ways (docs/FIXES.md, "The upstream pull requests").
const PR_TEXTS: [&str; 12] = [
    "3.0 + 5.0 = 8.0",
    "Sunny, 22 °C",
    "",
    "  ",
    "[1,2]",
    "\"str\"",
    "{\"a\":1} trailing",
    "{\"a\":1}  \n",
    "null pointer",
    "0.11623512015512211",
    "1e400",
    "{\"a\":1,\"a\":2}",
];

#[test]
fn pr_6907_is_upstream_where_upstream_reads_and_the_text_elsewhere() {
    let pr = Fixes::only(Fix::Pr6907WrapOnFailure);
    let mut wrapped = 0;
    for text in PR_TEXTS {
        let got = convert_tool_response(text, false, pr).expect("PR 6907 never fails");
        match parse_json_to_map(Some(text)) {
            Ok(up) => assert_eq!(got, up, "{text:?}"),
            Err(_) => {
                wrapped += 1;
                assert_eq!(
                    got.to_value(),
                    serde_json::json!({ "result": text }),
                    "{text:?}"
                );
            }
        }
        // Its arguments are upstream's.
        assert_eq!(
            convert_arguments(Some(text), pr),
            parse_json_to_map(Some(text)),
            "{text:?}"
        );
    }
    assert_eq!(wrapped, 3, "plain text, the empty and the blank text");
}

#[test]
fn pr_6049_is_upstream_on_whole_values_and_the_text_elsewhere() {
    let pr = Fixes::only(Fix::Pr6049StrictWrap);
    let mut kept = Vec::new();
    for text in PR_TEXTS {
        let got = convert_tool_response(text, false, pr).expect("PR 6049 never fails");
        // Arguments go through the same parseJsonToMap.
        assert_eq!(
            convert_arguments(Some(text), pr).as_ref(),
            Ok(&got),
            "{text:?}"
        );
        if got.to_value() == serde_json::json!({ "result": text }) {
            assert!(
                crate::json::jackson::read_lenient_whole(text).is_err(),
                "{text:?}"
            );
        } else {
            assert_eq!(Ok(got.clone()), parse_json_to_map(Some(text)), "{text:?}");
            kept.push(text);
        }
    }
    assert_eq!(
        kept,
        [
            "[1,2]",
            "\"str\"",
            "{\"a\":1}  \n",
            "0.11623512015512211",
            "1e400",
            "{\"a\":1,\"a\":2}"
        ]
    );
    // Decimals as upstream builds them: a double, an infinity.
    let d = convert_tool_response("0.11623512015512211", false, pr).unwrap();
    assert_eq!(
        d.to_value(),
        serde_json::json!({"result": 0.1162351201551221})
    );
    assert!(
        convert_tool_response("1e400", false, pr)
            .unwrap()
            .has_non_finite()
    );
    assert_eq!(
        convert_arguments(None, pr).unwrap().to_value(),
        serde_json::json!({ "result": null })
    );
}

#[test]
fn strict_json_or_wrap_takes_precedence_over_the_pull_requests() {
    let strict = Fixes::only(Fix::StrictJsonOrWrap);
    let both = strict
        .with(Fix::Pr6049StrictWrap)
        .with(Fix::Pr6907WrapOnFailure);
    for text in PR_TEXTS {
        assert_eq!(
            convert_tool_response(text, false, both),
            convert_tool_response(text, false, strict),
            "{text:?}"
        );
    }
}

#[test]
fn a_payload_is_an_object_exactly_when_its_value_is() {
    let deep = format!("{}1{}", "[".repeat(600), "]".repeat(600));
    let texts = [
        "42",
        r#"{"a":1}"#,
        r#" {"a" : [1, 2]} "#,
        "oops",
        "[1,2]",
        "",
        "  ",
        "null",
        "3.0 + 5.0 = 8.0",
        "{} trailing",
        "[",
        "1e400",
        r#"{"a":1e400}"#,
        r#"{"a":1,"a":2}"#,
        r#""\ud800""#,
        r#"{"a":"\ud800"}"#,
        r#"{"a":"\udc00\ud800"}"#,
        &deep,
    ];
    let sets = [
        Fixes::upstream(),
        Fixes::all(),
        Fixes::only(Fix::StrictJsonOrWrap),
        Fixes::only(Fix::Pr6049StrictWrap),
        Fixes::only(Fix::Pr6907WrapOnFailure),
        Fixes::only(Fix::ErrorKey),
    ];
    let mut payloads = 0;
    for text in texts {
        for fixes in sets {
            for error in [false, true] {
                if let Ok(p) = convert_tool_response(text, error, fixes) {
                    assert_eq!(
                        p.is_object(),
                        p.to_value().is_object(),
                        "{text:?} {fixes:?} {error}"
                    );
                    payloads += 1;
                }
            }
        }
    }
    assert!(payloads > texts.len() * 6, "{payloads}");
}

/// A request rebuilt from an earlier one's contents is the request built
/// whole, or the same failure, whatever the two message lists hold: the
/// earlier messages kept, dropped, reordered, repeated, a system message
/// added or changed, a response that does not convert.
#[test]
fn a_request_sharing_an_earlier_ones_contents_is_the_one_built_whole() {
    let sys = |t: &str| Message::System {
        text: Some(t.into()),
    };
    let asst = Message::assistant(Some("a"), vec![call("1"), call("2")]);
    let tool = |data: &str| Message::Tool {
        responses: vec![
            ToolResponse::new("1", "x", data),
            ToolResponse::new("2", "x", "{}"),
        ]
        .into(),
    };
    let pool = [
        sys("s"),
        sys("t"),
        Message::user("u"),
        Message::user("v"),
        asst,
        tool("{\"a\":1}"),
        tool("plain text"),
        Message::assistant(None, vec![]),
    ];
    // Every list of up to three messages of the pool, as the earlier and the
    // later prompt.
    let mut lists: Vec<Vec<Message>> = vec![vec![]];
    for len in 1..=3 {
        let mut index = vec![0; len];
        loop {
            lists.push(index.iter().map(|&i| pool[i].clone()).collect());
            let Some(k) = index.iter().rposition(|&i| i + 1 < pool.len()) else {
                break;
            };
            index[k] += 1;
            index[k + 1..].iter_mut().for_each(|i| *i = 0);
        }
    }
    let (mut shared, mut failed) = (0, 0);
    for fixes in [Fixes::upstream(), Fixes::only(Fix::StrictJsonOrWrap)] {
        for earlier in &lists {
            let Ok(first) = build_request(earlier, fixes) else {
                continue;
            };
            for next in &lists {
                let whole = build_request(next, fixes);
                let reused =
                    build_request_reusing(next, fixes, Default::default(), earlier, &first);
                assert_eq!(reused, whole, "{earlier:?} then {next:?} under {fixes:?}");
                failed += usize::from(whole.is_err());
                shared += reused.map_or(0, |r| {
                    r.contents
                        .iter()
                        .filter(|c| first.contents.iter().any(|f| std::sync::Arc::ptr_eq(c, f)))
                        .count()
                });
            }
        }
    }
    assert!(shared > 0 && failed > 0, "{shared} shared, {failed} failed");
}
