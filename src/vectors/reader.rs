//! Reading a vector: the bytes checked for size, depth and repeated keys,
//! then the document read into a [`Vector`] with located errors
//! ([`Vector::parse`], [`Vector::from_value`]).

use serde_json::{Map, Value};

use crate::chat::stream::{Chunks, Script, may_hang_a_stream};
use crate::chat::tool_loop::{LoopConfig, Memory, Provider};
use crate::gemini::ValidatorOptions;
use crate::model::behavior::{Fix, Fixes, SpringAi};
use crate::model::java::ClassTable;
use crate::model::limits::{LimitsError, ToolCallLimits};
use crate::model::manager::Config;
use crate::model::processor::{Processor, ProcessorKind};

use super::fields::{
    MANAGER_KEYS, OP_INPUT_KEYS, ProcessorDoc, as_max, field, fixes_from, generations, limits_from,
    messages, object, pointer_token, refuse_2_0_1_keys, spring_ai_from, tools_from, typed,
};
use super::matcher::{canonical_signatures, short};
use super::{
    FORMAT, MAX_REPEATED_REPLY_BYTES, MAX_VECTOR_BYTES, MAX_VECTOR_VALUES, Op, Vector, VectorError,
    err, too_large,
};

/// The first key an object of `text` (valid JSON) repeats: its JSON
/// pointer and 1-based line and column. serde_json keeps the last of
/// duplicate keys without a word, so a vector could say one thing twice
/// and mean the second. One pass; the keys compared as decoded.
pub(super) fn duplicate_key(text: &str) -> Option<(String, usize, usize)> {
    enum Frame {
        Object {
            keys: std::collections::HashSet<String>,
            key: Option<String>,
            want_key: bool,
        },
        Array(usize),
    }
    let pointer = |stack: &[Frame]| {
        let mut p = String::new();
        for f in stack {
            match f {
                Frame::Object { key: Some(k), .. } => p.push_str(&format!("/{}", pointer_token(k))),
                Frame::Object { .. } => {}
                Frame::Array(i) => p.push_str(&format!("/{i}")),
            }
        }
        p
    };
    let b = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let (mut line, mut line_start, mut i) = (1usize, 0usize, 0usize);
    while i < b.len() {
        match b[i] {
            b'\n' => {
                line += 1;
                line_start = i + 1;
            }
            b'{' => stack.push(Frame::Object {
                keys: Default::default(),
                key: None,
                want_key: true,
            }),
            b'[' => stack.push(Frame::Array(0)),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => match stack.last_mut() {
                Some(Frame::Object { want_key, .. }) => *want_key = true,
                Some(Frame::Array(n)) => *n += 1,
                None => {}
            },
            b'"' => {
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                if let Some(Frame::Object {
                    keys,
                    key,
                    want_key: want @ true,
                }) = stack.last_mut()
                {
                    *want = false;
                    let k: String = serde_json::from_str(text.get(start..=i)?).ok()?;
                    if !keys.insert(k.clone()) {
                        let column = text[line_start..start].chars().count() + 1;
                        *key = Some(k);
                        return Some((pointer(&stack), line, column));
                    }
                    *key = Some(k);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// An upper bound on the number of JSON values in `text`, without reading
/// it: the values after a comma, the arrays and objects, and one.
pub(super) fn values_at_most(text: &[u8]) -> usize {
    let (mut n, mut in_string, mut escaped) = (1usize, false, false);
    for &b in text {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b',' | b'[' | b'{' => n += 1,
            _ => {}
        }
    }
    n
}
/// One streamed reply: a non-empty list of chunks, each a generation list.
fn chunks(v: &Value, place: &str) -> Result<Chunks, VectorError> {
    let list = v
        .as_array()
        .ok_or_else(|| err(place, "must be an array of chunks (each a generation list)"))?;
    if list.is_empty() {
        return Err(err(place, "a streamed reply needs at least one chunk"));
    }
    list.iter()
        .enumerate()
        .map(|(j, c)| generations(Some(c), &format!("{place}/{j}")))
        .collect()
}

impl Vector {
    /// Loads a vector from its bytes.
    ///
    /// ```
    /// use toolcall_model::vectors::Vector;
    /// let v = Vector::parse(br#"{"format":"toolcall-model/1","name":"n","op":"convert_tool_response","input":{"text":"1"},"expect":{}}"#).unwrap();
    /// assert_eq!(v.name, "n");
    /// assert!(Vector::parse(br#"{"format":"toolcall-model/2"}"#).unwrap_err().to_string().contains("format"));
    /// ```
    pub fn parse(bytes: &[u8]) -> Result<Vector, VectorError> {
        if bytes.len() > MAX_VECTOR_BYTES {
            return Err(too_large());
        }
        let text = std::str::from_utf8(bytes)
            .map_err(|e| err(format!("byte {}", e.valid_up_to()), "not valid UTF-8"))?;
        if values_at_most(bytes) > MAX_VECTOR_VALUES {
            return Err(err(
                "(file)",
                format!("more than {MAX_VECTOR_VALUES} JSON values"),
            ));
        }
        let doc: Value = serde_json::from_str(text).map_err(|e| {
            err(
                format!("line {} column {}", e.line(), e.column()),
                format!("not JSON: {e}"),
            )
        })?;
        if let Some((place, line, column)) = duplicate_key(text) {
            return Err(err(
                place,
                format!("a duplicate key (line {line} column {column}): each key once"),
            ));
        }
        Self::from_value(&doc)
    }

    /// Loads a vector from a parsed JSON document: each part read in turn
    /// (the document's keys and format, the names, the behaviour, the
    /// manager object, the tools, the configuration, the op and its input,
    /// the expectations), the first fault found reported.
    ///
    /// ```
    /// use toolcall_model::vectors::Vector;
    /// let doc = serde_json::json!({"format": "toolcall-model/1", "op": "convert_tool_response", "input": {"text": "1"}, "expect": {}});
    /// assert_eq!(Vector::from_value(&doc).unwrap().name, "(unnamed)");
    /// let bad = serde_json::json!({"format": "toolcall-model/1", "op": "nope", "input": {}, "expect": {}});
    /// assert!(Vector::from_value(&bad).unwrap_err().to_string().contains("unknown op 'nope'"));
    /// ```
    pub fn from_value(doc: &Value) -> Result<Vector, VectorError> {
        let obj = document(doc)?;
        let name = text_key(obj, "name", "(unnamed)")?;
        let about = text_key(obj, "about", "")?;
        let spring_ai = spring_ai_from(obj.get("spring_ai"))?;
        let fixes = fixes_for(obj, spring_ai)?;
        let advisors = advisors_from(obj.get("advisors"), fixes)?;
        let empty = Map::new();
        let manager = manager_object(obj, spring_ai, &empty)?;
        // The tools declare the exception classes the processor may name.
        let mut classes = ClassTable::builtin();
        let tools = match obj.get("tools") {
            None | Some(Value::Null) => vec![],
            Some(v) => tools_from(v, &mut classes)?,
        };
        let config = config_from(
            manager,
            Config {
                limits: ToolCallLimits::default(),
                resolution_fallback: false,
                processor: Processor::default(),
                classes,
                fixes,
                version: spring_ai,
            },
            advisors,
        )?;
        let history_on = !matches!(&config, Ok(c) if !c.conversation_history);
        let op = op_for(obj, spring_ai, advisors, history_on)?;
        if let (
            Op::ToolLoop {
                model: Script::Streamed(_),
                ..
            },
            Ok(cfg),
        ) = (&op, &config)
            && may_hang_a_stream(&tools, &cfg.manager.classes)
        {
            return Err(err(
                "/input/stream",
                "a streamed turn whose tool may throw an error Reactor treats as fatal to the JVM (VirtualMachineError, ThreadDeath, LinkageError) never ends; not modelled",
            ));
        }
        let expect = match obj.get("expect") {
            Some(v @ Value::Object(_)) => v.clone(),
            _ => return Err(err("/expect", "missing or not an object")),
        };
        Ok(Vector {
            name,
            about,
            spring_ai,
            config,
            tools,
            op,
            expect,
        })
    }
}

/// The vector's object: only known keys, and this format.
fn document(doc: &Value) -> Result<&Map<String, Value>, VectorError> {
    let obj = doc
        .as_object()
        .ok_or_else(|| err("/", "a vector is a JSON object"))?;
    for k in obj.keys() {
        if ![
            "format",
            "name",
            "about",
            "spring_ai",
            "fixes",
            "advisors",
            "manager",
            "tools",
            "op",
            "input",
            "expect",
        ]
        .contains(&k.as_str())
        {
            return Err(err(format!("/{k}"), "unknown key"));
        }
    }
    match obj.get("format").and_then(Value::as_str) {
        Some(FORMAT) => Ok(obj),
        Some(other) => Err(err("/format", format!("format '{other}' is not {FORMAT}"))),
        None => Err(err(
            "/format",
            format!("missing format (expected \"{FORMAT}\")"),
        )),
    }
}

/// A text key of the vector (`absent` when it is missing).
fn text_key(obj: &Map<String, Value>, k: &str, absent: &str) -> Result<String, VectorError> {
    match obj.get(k) {
        None => Ok(absent.to_owned()),
        Some(Value::String(s)) => Ok(s.clone()),
        Some(v) => Err(err(
            format!("/{k}"),
            format!("must be a string, not {}", short(v)),
        )),
    }
}

/// The fixes, which only a 2.0.1 vector may have.
fn fixes_for(obj: &Map<String, Value>, spring_ai: SpringAi) -> Result<Fixes, VectorError> {
    let fixes = fixes_from(obj.get("fixes"))?;
    if spring_ai != SpringAi::V2_0_1 && !fixes.is_upstream() {
        return Err(err(
            "/fixes",
            format!(
                "the fixes are written for Spring AI 2.0.1 (its limits and its fix library); a {spring_ai} vector is upstream"
            ),
        ));
    }
    Ok(fixes)
}

/// The op, and what the vector's version runs of it: on a version whose
/// tool loop runs inside the chat model (Spring AI 1.1, docs/BEHAVIOUR.md
/// section 13), a `tool_loop` is that loop unless `/input/loop` names 1.1's
/// opt-in `ToolCallAdvisor` (section 13.1). The chat model's loop has no
/// advisor inside it, so a memory inside it, conversation history off and
/// an advisor are refused; `ToolCallAdvisor` takes a memory inside it but
/// has no history switch, and this project's advisors are not modelled in
/// it. On 2.0 the loop is always the advisor's, and `/input/loop` is refused.
fn op_for(
    obj: &Map<String, Value>,
    spring_ai: SpringAi,
    advisors: Advisors,
    conversation_history: bool,
) -> Result<Op, VectorError> {
    let op = op_from(obj)?;
    let Op::ToolLoop {
        memory,
        tool_call_advisor,
        ..
    } = &op
    else {
        return Ok(op);
    };
    let named = obj
        .get("input")
        .and_then(|i| field(i.as_object()?, "loop"))
        .is_some();
    if !spring_ai.loop_in_chat_model() {
        return match named {
            true => Err(err(
                "/input/loop",
                format!(
                    "on Spring AI {spring_ai} the tool loop is ToolCallingAdvisor's: /input/loop names the loop of a 1.1 vector"
                ),
            )),
            false => Ok(op),
        };
    }
    let refused = if *memory == Memory::Inside && !tool_call_advisor {
        Some(("/input/memory", "a memory inside the tool loop"))
    } else if !conversation_history {
        Some(("/manager/conversation_history", "conversation history off"))
    } else if advisors.gemini_tool_text || advisors.tool_feedback {
        Some(("/advisors", "an advisor inside the tool loop"))
    } else {
        None
    };
    let why = match tool_call_advisor {
        false => crate::chat::tool_loop::NO_ADVISOR,
        true => crate::chat::tool_loop::IN_TOOL_CALL_ADVISOR,
    };
    match refused {
        Some((at, what)) => Err(err(
            at,
            format!("{what}: Spring AI {spring_ai} {why}: not applicable"),
        )),
        None => Ok(op),
    }
}

/// The advisors a vector names.
#[derive(Debug, Clone, Copy, Default)]
struct Advisors {
    /// The seed's `GeminiToolTextAdvisor`.
    gemini_tool_text: bool,
    /// An application's `ToolCallingAdvisor` that adds feedback after each
    /// tool round (docs/BEHAVIOUR.md section 6.4).
    tool_feedback: bool,
}

/// The advisors: the seed's `GeminiToolTextAdvisor` and the application's
/// `tool-feedback` advisor, which cannot stand with `close-dangling-calls`.
fn advisors_from(v: Option<&Value>, fixes: Fixes) -> Result<Advisors, VectorError> {
    let mut on = Advisors::default();
    match v {
        None | Some(Value::Null) => {}
        Some(Value::Array(a)) => {
            for (i, x) in a.iter().enumerate() {
                match x.as_str() {
                    Some("gemini-tool-text") => on.gemini_tool_text = true,
                    Some("tool-feedback") => on.tool_feedback = true,
                    _ => {
                        let known = "\"gemini-tool-text\", \"tool-feedback\"";
                        return Err(err(
                            format!("/advisors/{i}"),
                            format!("unknown advisor {x} (known: {known})"),
                        ));
                    }
                }
            }
        }
        Some(other) => return Err(err("/advisors", format!("must be a list, not {other}"))),
    }
    if on.tool_feedback && fixes.contains(Fix::CloseDanglingCalls) {
        // The fix lives in the fix library's own ToolCallingAdvisor,
        // which the application's subclass replaces.
        return Err(err(
            "/advisors",
            "the tool-feedback advisor is not combined with close-dangling-calls",
        ));
    }
    Ok(on)
}

/// The manager object (`empty` when absent): only known keys, and only those
/// the vector's Spring AI version has.
fn manager_object<'a>(
    obj: &'a Map<String, Value>,
    spring_ai: SpringAi,
    empty: &'a Map<String, Value>,
) -> Result<&'a Map<String, Value>, VectorError> {
    let m = match obj.get("manager") {
        None | Some(Value::Null) => empty,
        Some(Value::Object(m)) => m,
        Some(_) => return Err(err("/manager", "must be an object")),
    };
    for k in m.keys() {
        if !MANAGER_KEYS.contains(&k.as_str()) {
            return Err(err(format!("/manager/{k}"), "unknown key"));
        }
    }
    if !spring_ai.has_limits() || !spring_ai.has_resolution_switch() {
        refuse_2_0_1_keys(m, spring_ai)?;
    }
    Ok(m)
}

/// The loop's configuration from the manager object, over `base` (its
/// classes, fixes and version already read); `Err` inside when the limits'
/// builder refuses them.
fn config_from(
    m: &Map<String, Value>,
    base: Config,
    advisors: Advisors,
) -> Result<Result<LoopConfig, LimitsError>, VectorError> {
    let processor = processor_from(m, &base.classes)?;
    let resolution_fallback = bool_key(m, "resolution_fallback", false)?;
    let conversation_history = bool_key(m, "conversation_history", true)?;
    let validator = validator_from(m)?;
    Ok(limits_from(m)?.map(|limits| {
        let manager = Config {
            limits,
            resolution_fallback,
            processor,
            ..base
        };
        LoopConfig {
            conversation_history,
            gemini_tool_text: advisors.gemini_tool_text,
            tool_feedback: advisors.tool_feedback,
            validator,
            ..LoopConfig::new(manager)
        }
    }))
}

/// The exception processor; the classes it rethrows must be known.
fn processor_from(m: &Map<String, Value>, classes: &ClassTable) -> Result<Processor, VectorError> {
    let Some(v) = field(m, "exception_processor") else {
        return Ok(Processor::default());
    };
    object(v, "/manager/exception_processor", "an exception processor")?;
    let d: ProcessorDoc = typed(v, "/manager/exception_processor")?;
    let kind = match d.kind.as_deref() {
        None | Some("default") => ProcessorKind::Default,
        Some("json_error") => ProcessorKind::JsonError,
        Some(k) => {
            return Err(err(
                "/manager/exception_processor/kind",
                format!("unknown processor kind '{k}' (known: default, json_error)"),
            ));
        }
    };
    for (i, c) in d.rethrow.iter().enumerate() {
        if !classes.contains(c) {
            return Err(err(
                format!("/manager/exception_processor/rethrow/{i}"),
                format!(
                    "unknown exception class '{c}' (declare it in a tool outcome with \"extends\")"
                ),
            ));
        }
    }
    Ok(Processor {
        kind,
        always_throw: d.always_throw,
        rethrow: d.rethrow,
    })
}

/// A boolean key of the manager object (`default` when absent).
fn bool_key(m: &Map<String, Value>, k: &str, default: bool) -> Result<bool, VectorError> {
    match field(m, k) {
        None => Ok(default),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(err(format!("/manager/{k}"), "must be a boolean")),
    }
}

/// The validator's optional rules.
fn validator_from(m: &Map<String, Value>) -> Result<ValidatorOptions, VectorError> {
    match field(m, "validator") {
        None => Ok(ValidatorOptions::default()),
        Some(Value::Object(v)) => {
            let mut o = ValidatorOptions::default();
            for (k, x) in v {
                let b = x
                    .as_bool()
                    .ok_or_else(|| err(format!("/manager/validator/{k}"), "must be a boolean"))?;
                match k.as_str() {
                    "thought_signatures" => o.thought_signatures = b,
                    "alternate_roles" => o.alternate_roles = b,
                    _ => {
                        return Err(err(
                            format!("/manager/validator/{k}"),
                            "unknown validator switch (known: thought_signatures, alternate_roles)",
                        ));
                    }
                }
            }
            Ok(o)
        }
        Some(_) => Err(err("/manager/validator", "must be an object")),
    }
}

/// The op and its input: the input an object, the op known, the input's
/// keys those the op reads (thought signatures in their canonical form).
fn op_from(obj: &Map<String, Value>) -> Result<Op, VectorError> {
    let input = match obj.get("input") {
        Some(Value::Object(i)) => i,
        _ => return Err(err("/input", "missing or not an object")),
    };
    let op_name = match obj.get("op").and_then(Value::as_str) {
        Some(name) => name,
        None => return Err(err("/op", "missing")),
    };
    let Some((_, input_keys)) = OP_INPUT_KEYS.iter().find(|(o, _)| *o == op_name) else {
        let known: Vec<&str> = OP_INPUT_KEYS.iter().map(|(o, _)| *o).collect();
        return Err(err(
            "/op",
            format!("unknown op '{op_name}' (known: {})", known.join(", ")),
        ));
    };
    for k in input.keys() {
        if !input_keys.contains(&k.as_str()) {
            return Err(err(
                format!("/input/{}", pointer_token(k)),
                format!(
                    "unknown key: op '{op_name}' reads only {}",
                    input_keys.join(", ")
                ),
            ));
        }
    }
    let input = canonical_signatures(input)?
        .map_or(std::borrow::Cow::Borrowed(input), std::borrow::Cow::Owned);
    let input = &input;
    Ok(match op_name {
        "execute_tool_calls" => Op::ExecuteToolCalls {
            history: messages(input.get("history"), "/input/history")?,
            generations: generations(input.get("generations"), "/input/generations")?,
        },
        "gemini_request" => Op::GeminiRequest {
            history: messages(input.get("history"), "/input/history")?,
        },
        "convert_tool_response" => Op::ConvertToolResponse {
            text: input
                .get("text")
                .and_then(Value::as_str)
                .ok_or_else(|| err("/input/text", "must be a string"))?
                .to_owned(),
            error: match input.get("error") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(b)) => *b,
                Some(_) => return Err(err("/input/error", "must be a boolean")),
            },
        },
        "tool_loop" => tool_loop_from(input)?,
        // OP_INPUT_KEYS has refused every other name above.
        other => return Err(err("/op", format!("unknown op '{other}'"))),
    })
}

/// The input of a `tool_loop` op: the script, the provider and the memory.
fn tool_loop_from(input: &Map<String, Value>) -> Result<Op, VectorError> {
    let model = script_from(input)?;
    let provider = match choice(input, "provider")? {
        None | Some("gemini") => Provider::Gemini,
        Some("none") => Provider::None,
        Some(p) => {
            return Err(err(
                "/input/provider",
                format!("unknown provider '{p}' (known: gemini, none)"),
            ));
        }
    };
    let (memory, memory_max_messages, memory_start) = memory_from(input)?;
    let repeat_last = repeat_last_from(input)?;
    let tool_call_advisor = match choice(input, "loop")? {
        None | Some("chat-model") => false,
        Some("tool-call-advisor") => true,
        Some(l) => {
            return Err(err(
                "/input/loop",
                format!("unknown loop '{l}' (known: chat-model, tool-call-advisor)"),
            ));
        }
    };
    Ok(Op::ToolLoop {
        tool_call_advisor,
        history: messages(input.get("history"), "/input/history")?,
        model,
        repeat_last,
        provider,
        memory,
        memory_max_messages,
        memory_start,
    })
}

/// The model's script, streamed (`"stream": true`) or not.
fn script_from(input: &Map<String, Value>) -> Result<Script, VectorError> {
    let stream = match field(input, "stream") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(v) => {
            return Err(err(
                "/input/stream",
                format!("must be a boolean, not {}", short(v)),
            ));
        }
    };
    Ok(match input.get("model") {
        Some(Value::Array(a)) if stream => Script::Streamed(
            a.iter()
                .enumerate()
                .map(|(i, r)| chunks(r, &format!("/input/model/{i}")))
                .collect::<Result<_, _>>()?,
        ),
        Some(Value::Array(a)) => Script::Replies(
            a.iter()
                .enumerate()
                .map(|(i, g)| generations(Some(g), &format!("/input/model/{i}")))
                .collect::<Result<_, _>>()?,
        ),
        _ if stream => {
            return Err(err(
                "/input/model",
                "must be an array of chunk lists (\"stream\": true)",
            ));
        }
        _ => return Err(err("/input/model", "must be an array of generation lists")),
    })
}

/// The string or null at `k`.
fn choice<'a>(input: &'a Map<String, Value>, k: &str) -> Result<Option<&'a str>, VectorError> {
    match field(input, k) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.as_str())),
        Some(v) => Err(err(
            format!("/input/{k}"),
            format!("must be a string or null, not {}", short(v)),
        )),
    }
}

/// The memory, its window and what it holds at the start (both only with
/// a memory).
fn memory_from(
    input: &Map<String, Value>,
) -> Result<(Memory, i32, Vec<crate::model::message::Message>), VectorError> {
    let memory = match choice(input, "memory")? {
        None | Some("none") => Memory::None,
        Some("inside") => Memory::Inside,
        Some("outside") => Memory::Outside,
        Some(p) => {
            return Err(err(
                "/input/memory",
                format!("unknown memory '{p}' (known: none, inside, outside)"),
            ));
        }
    };
    let memory_max_messages = match field(input, "memory_max_messages") {
        None => crate::chat::memory::DEFAULT_MEMORY_MAX_MESSAGES.get() as i32,
        Some(v) => as_max(v, "/input/memory_max_messages")?
            .ok_or_else(|| err("/input/memory_max_messages", "must be an integer"))?,
    };
    let memory_start = match field(input, "memory_start") {
        None => vec![],
        Some(v) => messages(Some(v), "/input/memory_start")?,
    };
    if memory == Memory::None {
        for k in ["memory_max_messages", "memory_start"] {
            if field(input, k).is_some() {
                return Err(err(
                    format!("/input/{k}"),
                    "needs a memory (\"memory\": \"inside\" or \"outside\")",
                ));
            }
        }
    }
    Ok((memory, memory_max_messages, memory_start))
}

/// Whether the model repeats its last reply, which must stay small enough
/// to replay.
fn repeat_last_from(input: &Map<String, Value>) -> Result<bool, VectorError> {
    let repeat_last = match field(input, "repeat_last") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(err("/input/repeat_last", "must be a boolean")),
    };
    // The repeated reply is replayed up to the loop's guard of model calls:
    // its size times the guard must stay within what a vector may hold.
    if let (true, Some(last)) = (
        repeat_last,
        input
            .get("model")
            .and_then(|m| m.as_array())
            .and_then(|a| a.last()),
    ) {
        let bytes = serde_json::to_string(last).map_or(usize::MAX, |t| t.len());
        if bytes > MAX_REPEATED_REPLY_BYTES {
            return Err(err(
                "/input/repeat_last",
                format!(
                    "the repeated last reply holds {bytes} bytes of JSON, over {MAX_REPEATED_REPLY_BYTES}: replayed up to 1000 model calls it would outgrow what a vector may hold"
                ),
            ));
        }
    }
    Ok(repeat_last)
}
