//! The judge of `toolcall-model check` as JSON in, JSON out: what the
//! WebAssembly module (`judge/wasm`) exports, and the same functions for
//! a native caller. docs/JUDGE.md describes both shapes.
//!
//! * [`judge`]: a setup's facts (the Spring AI version, the limits and
//!   policy as bound, the processor, the memory and its window, the
//!   conversation history, the provider, call or stream, what the tools
//!   return, the fixes asked about, the accepted findings) to the verdict
//!   of every scenario under every behaviour set, the gate for the set
//!   asked about and the remedy: what `check` renders, for a caller that
//!   knows the facts (a running application) rather than its files.
//! * [`check`]: configuration texts and `check`'s flags to what the
//!   command prints (standard output, the error, the exit status) and the
//!   SARIF log it writes ([`toolcall_check::check_texts`]).
//!
//! Pure: no IO, no clock, no global state; a bad input is an
//! `{"error": ...}` answer, never a panic.
//!
//! ```
//! let out = toolcall_judge::judge(br#"{"memory": "inside"}"#);
//! let v: serde_json::Value = serde_json::from_str(&out).unwrap();
//! assert_eq!(v["asked"]["set"], "upstream");
//! assert_eq!(v["asked"]["exit"], 1);
//! ```
#![forbid(unsafe_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::num::NonZeroU32;

use serde::Deserialize;
use serde_json::{Value, json};
use toolcall_check::config::{Accepted, Setup, ToolOutput};
use toolcall_model::chat::{Memory, Provider};
use toolcall_model::model::{Max, OnExceeded, Processor, ProcessorKind, SpringAi, ToolCallLimits};

/// The largest input either function reads: far past any setup or the
/// checker's own limit on configuration texts, so that a runaway caller
/// gets an error rather than a parse of gigabytes.
pub const MAX_INPUT_BYTES: usize = 16 * 1024 * 1024;

/// A maximum as the facts give it: a count, or `"unlimited"`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum MaxFact {
    Count(i64),
    Word(String),
}

/// `spring.ai.tools.limits.*` as Spring bound them (the names of
/// `check --json`'s `bound`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct LimitsFacts {
    max_calls_per_tool_default: Option<MaxFact>,
    max_calls_per_tool: BTreeMap<String, u32>,
    excluded_tools: BTreeSet<String>,
    max_total_tool_calls: Option<MaxFact>,
    on_limit_exceeded: Option<String>,
}

/// What the judge is told; every field optional, defaulting as `check`
/// does (Spring AI 2.0.1's defaults, no memory, Gemini, `call()`).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
struct Facts {
    spring_ai: Option<String>,
    limits: LimitsFacts,
    resolution_fallback: bool,
    throw_exception_on_error: bool,
    processor: Option<String>,
    rethrow: Vec<String>,
    memory: Option<String>,
    memory_window: Option<u32>,
    conversation_history: Option<bool>,
    provider: Option<String>,
    streaming: bool,
    tools: Option<String>,
    fixes: Option<String>,
    fix_library: Option<String>,
    accepted: Vec<String>,
    answer: Option<String>,
}

/// The setup's facts to its verdicts, the gate and the remedy, as JSON
/// text (docs/JUDGE.md); `{"error": ...}` when the facts do not read.
///
/// ```
/// let out = toolcall_judge::judge(br#"{"limits": {"on_limit_exceeded": "RETURN_ERROR_RESPONSE"}, "fixes": "all"}"#);
/// let v: serde_json::Value = serde_json::from_str(&out).unwrap();
/// assert_eq!(v["asked"]["set"], "all");
/// let bad = toolcall_judge::judge(br#"{"memory": "nowhere"}"#);
/// assert_eq!(bad, r#"{"error":"memory: 'nowhere': use none, outside or inside"}"#);
/// ```
pub fn judge(input: &[u8]) -> String {
    let answer = read_facts(input).and_then(|f| judged(&f));
    match answer {
        Ok(v) => v.to_string(),
        Err(e) => json!({ "error": e }).to_string(),
    }
}

fn read_facts(input: &[u8]) -> Result<Facts, String> {
    if input.len() > MAX_INPUT_BYTES {
        return Err(format!("the input is larger than {MAX_INPUT_BYTES} bytes"));
    }
    serde_json::from_slice(input).map_err(|e| format!("the facts do not read: {e}"))
}

/// One word of a closed list, or the error that names the list.
fn word<T: Copy>(field: &str, given: Option<&str>, words: &[(&str, T)]) -> Result<T, String> {
    let given = given.unwrap_or(words[0].0);
    words
        .iter()
        .find(|(w, _)| *w == given)
        .map(|(_, t)| *t)
        .ok_or_else(|| {
            let names: Vec<&str> = words.iter().map(|(w, _)| *w).collect();
            let list = match names.split_last() {
                Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
                _ => names.join(""),
            };
            format!("{field}: '{given}': use {list}")
        })
}

fn max(field: &str, m: Option<&MaxFact>, default: Max) -> Result<Max, String> {
    match m {
        None => Ok(default),
        Some(MaxFact::Word(w)) if w == "unlimited" => Ok(Max::Unlimited),
        Some(MaxFact::Count(n)) if *n >= 1 && u32::try_from(*n).is_ok() => {
            Ok(Max::Limited(*n as u32))
        }
        Some(_) => Err(format!(
            "limits.{field}: a count from 1 to {} or \"unlimited\" (what Spring bound)",
            u32::MAX
        )),
    }
}

fn limits(l: &LimitsFacts) -> Result<ToolCallLimits, String> {
    let d = ToolCallLimits::default();
    Ok(ToolCallLimits {
        default_max_per_tool: max(
            "max_calls_per_tool_default",
            l.max_calls_per_tool_default.as_ref(),
            d.default_max_per_tool,
        )?,
        overrides: l.max_calls_per_tool.clone(),
        excluded: l.excluded_tools.clone(),
        max_total: max(
            "max_total_tool_calls",
            l.max_total_tool_calls.as_ref(),
            d.max_total,
        )?,
        on_exceeded: word(
            "limits.on_limit_exceeded",
            l.on_limit_exceeded.as_deref(),
            &[
                ("THROW", OnExceeded::Throw),
                ("RETURN_ERROR_RESPONSE", OnExceeded::ReturnErrorResponse),
            ],
        )?,
    })
}

/// The facts as the checker's setup.
fn setup(f: &Facts) -> Result<Setup, String> {
    let version = match &f.spring_ai {
        None => SpringAi::default(),
        Some(v) => toolcall_check::config::spring_ai_named(v)
            .map_err(|e| format!("spring_ai: '{v}': {e}"))?,
    };
    let window = f.memory_window.unwrap_or(20);
    let Some(memory_max_messages) = NonZeroU32::new(window) else {
        return Err(
            "memory_window: 0: java.lang.IllegalArgumentException: maxMessages must be greater than 0"
                .to_owned(),
        );
    };
    Ok(Setup {
        limits: limits(&f.limits)?,
        resolution_fallback: f.resolution_fallback,
        processor: Processor {
            kind: word(
                "processor",
                f.processor.as_deref(),
                &[
                    ("default", ProcessorKind::Default),
                    ("json-error", ProcessorKind::JsonError),
                ],
            )?,
            always_throw: f.throw_exception_on_error,
            rethrow: f.rethrow.clone(),
        },
        memory: word(
            "memory",
            f.memory.as_deref(),
            &[
                ("none", Memory::None),
                ("outside", Memory::Outside),
                ("inside", Memory::Inside),
            ],
        )?,
        memory_max_messages,
        conversation_history: f.conversation_history,
        provider: word(
            "provider",
            f.provider.as_deref(),
            &[("gemini", Provider::Gemini), ("none", Provider::None)],
        )?,
        tool_output: ToolOutput::parse(f.tools.as_deref().unwrap_or("mixed"))
            .map_err(|e| format!("tools: {e}"))?,
        version,
        stream: f.streaming,
    })
}

fn judged(f: &Facts) -> Result<Value, String> {
    let setup = setup(f)?;
    let accepted = f
        .accepted
        .iter()
        .map(|line| Accepted::parse(line, "accepted"))
        .collect::<Result<Vec<_>, _>>()?;
    let whole = word(
        "answer",
        f.answer.as_deref(),
        &[("report", true), ("asked", false)],
    )?;
    let judging = if whole {
        toolcall_check::judge_setup_with_library
    } else {
        toolcall_check::judge_setup_asked
    };
    judging(
        &setup,
        f.fixes.as_deref().unwrap_or("upstream"),
        f.fix_library.as_deref(),
        &accepted,
    )
}

/// What `check` is given on the page or by any caller holding texts.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckInput {
    files: Vec<FileInput>,
    #[serde(default)]
    args: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileInput {
    name: String,
    text: String,
}

/// Configuration texts and `check`'s flags to what `toolcall-model
/// check` prints and writes, as JSON text: `{"exit", "stdout", "stderr",
/// "sarif"}` (docs/JUDGE.md); `{"error": ...}` when the input does not read.
///
/// ```
/// let input = r#"{"files": [{"name": "application.properties", "text": "spring.ai.tools.limits.on-limit-exceeded=RETURN_ERROR_RESPONSE\n"}], "args": ["--tools", "json"]}"#;
/// let v: serde_json::Value = serde_json::from_str(&toolcall_judge::check(input.as_bytes())).unwrap();
/// assert_eq!(v["exit"], 1);
/// assert!(v["stdout"].as_str().unwrap().contains("RETURN_ERROR_RESPONSE"));
/// ```
pub fn check(input: &[u8]) -> String {
    if input.len() > MAX_INPUT_BYTES {
        return json!({"error": format!("the input is larger than {MAX_INPUT_BYTES} bytes")})
            .to_string();
    }
    let given: CheckInput = match serde_json::from_slice(input) {
        Ok(g) => g,
        Err(e) => return json!({"error": format!("the input does not read: {e}")}).to_string(),
    };
    let args: Vec<&str> = given.args.iter().map(String::as_str).collect();
    let files: Vec<(&str, &str)> = given
        .files
        .iter()
        .map(|f| (f.name.as_str(), f.text.as_str()))
        .collect();
    let out = toolcall_check::check_texts(&args, &files);
    json!({
        "exit": out.exit,
        "stdout": out.stdout,
        "stderr": out.stderr,
        "sarif": out.sarif,
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::{check, judge};

    /// Every input that does not read is an error answer naming the field.
    #[test]
    fn bad_facts_are_errors_that_name_the_field() {
        for (input, names) in [
            ("not json", "the facts do not read"),
            (r#"{"memroy": "inside"}"#, "unknown field `memroy`"),
            (
                r#"{"limits": {"max_total_tool_calls": 0}}"#,
                "limits.max_total_tool_calls",
            ),
            (
                r#"{"limits": {"max_calls_per_tool_default": "lots"}}"#,
                "limits.max_calls_per_tool_default",
            ),
            (
                r#"{"limits": {"on_limit_exceeded": "SOMETIMES"}}"#,
                "limits.on_limit_exceeded: 'SOMETIMES'",
            ),
            (
                r#"{"memory_window": 0}"#,
                "maxMessages must be greater than 0",
            ),
            (r#"{"spring_ai": "1.0"}"#, "spring_ai: '1.0'"),
            (r#"{"tools": "xml"}"#, "tools: 'xml'"),
            (r#"{"fixes": "nonsense"}"#, "--fixes"),
            (r#"{"fix_library": "nonsense"}"#, "fix_library"),
            (r#"{"accepted": ["breach-1"]}"#, "SCENARIO MARK"),
        ] {
            let out: serde_json::Value = serde_json::from_str(&judge(input.as_bytes())).unwrap();
            let error = out["error"].as_str().unwrap_or_default();
            assert!(error.contains(names), "{input}: {out}");
        }
    }

    /// An accepted finding passes the gate where it alone breaks.
    #[test]
    fn accepted_findings_reach_the_gate() {
        let facts = |accepted: &str| {
            let f = format!(
                r#"{{"limits": {{"max_calls_per_tool_default": 3}}, "tools": "json", "provider": "none", "streaming": true, "accepted": [{accepted}]}}"#
            );
            serde_json::from_str::<serde_json::Value>(&judge(f.as_bytes())).unwrap()
        };
        let open = facts("");
        assert_eq!(
            open["asked"]["breaks"],
            serde_json::json!(["text+call"]),
            "{open}"
        );
        assert_eq!(open["asked"]["exit"], 1);
        let accepted = facts(r#""text+call dropped # streamed replies""#);
        assert_eq!(accepted["asked"]["exit"], 0, "{accepted}");
        assert_eq!(accepted["asked"]["accepted"][0]["origin"], "accepted");
    }

    /// With the fix library present, the remedy counts from the fixes in
    /// effect: a switch already on is not asked for again.
    #[test]
    fn the_remedy_counts_from_the_fix_library_in_effect() {
        let facts = |library: &str| {
            let f = format!(r#"{{"memory": "inside", "tools": "text"{library}}}"#);
            serde_json::from_str::<serde_json::Value>(&judge(f.as_bytes())).unwrap()
        };
        let absent = facts("");
        let none_on = facts(r#", "fix_library": "upstream""#);
        assert_eq!(absent["fix_it_today"], none_on["fix_it_today"]);
        let asked: Vec<String> = absent["fix_it_today"]["properties"]
            .as_array()
            .expect("a remedy with properties")
            .iter()
            .map(|p| p.as_str().unwrap().to_owned())
            .collect();
        assert!(!asked.is_empty(), "{absent}");
        let on = facts(r#", "fix_library": "all""#);
        assert_ne!(on["fix_it_today"], absent["fix_it_today"], "{on}");
    }

    #[test]
    fn check_input_that_does_not_read_is_an_error() {
        let out: serde_json::Value = serde_json::from_str(&check(br#"{"files": []}"#)).unwrap();
        assert_eq!(out["exit"], 2);
        assert_eq!(out["stderr"], "error: no file given\n");
        let out: serde_json::Value = serde_json::from_str(&check(br#"{"file": []}"#)).unwrap();
        assert!(
            out["error"]
                .as_str()
                .unwrap()
                .contains("unknown field `file`")
        );
    }
}
