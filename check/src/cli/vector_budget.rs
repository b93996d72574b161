//! The work a vector may ask of `run` and `verify`, bounded before it is
//! done: a reply can call a tool returning megabytes hundreds of times,
//! and a loop repeats every result in each later request, so a small
//! vector could ask for gigabytes. The bound is an upper estimate read from
//! the file ([`estimate`]); past a budget the command stops with exit 2
//! and the budget's name, before running. `run`'s output is also counted
//! as it is written ([`Capped`]).

use serde_json::Value;

/// The budget of tool results one run may produce: every call's result
/// held at once (with the model's copies of it, a few times this).
pub(crate) const MAX_TOOL_RESULT_BYTES: u64 = 256 << 20;

/// The budget of what the requests of a run may repeat (a loop's request
/// carries every result so far), and of `run`'s output as written.
pub(crate) const MAX_RUN_OUTPUT_BYTES: u64 = 1 << 30;

/// The model calls a tool loop makes at most (its guard).
const MAX_ROUNDS: u64 = 1000;

/// An upper estimate of what running a vector takes.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Estimate {
    /// Bytes of every tool result of the run: its calls times the largest
    /// result a tool can give (JSON-escaped, as a converter may write it).
    pub tool_results: u64,
    /// Bytes the requests may repeat: the request of model call `r`
    /// carries the results of the calls before it, so about the results
    /// times half the model calls.
    pub requests: u64,
}

/// Reads the estimate from the vector's JSON (already checked by
/// `Vector::parse`): the tool calls of its input (a `repeat_last` loop's
/// last reply counted for every round up to the guard), the largest
/// string in its tools and input (a tool returns one of its texts, or
/// echoes an argument), and its model calls.
pub(crate) fn estimate(doc: &Value) -> Estimate {
    let input = &doc["input"];
    let mut calls = count_calls(&input["generations"]);
    let mut rounds = 1;
    if let Some(model) = input["model"].as_array() {
        calls = count_calls(&input["model"]);
        rounds = (model.len() as u64).min(MAX_ROUNDS);
        if input["repeat_last"] == Value::Bool(true) {
            let last = model.last().map_or(0, count_calls);
            calls = calls.saturating_add(last.saturating_mul(MAX_ROUNDS));
            rounds = MAX_ROUNDS;
        }
    }
    let largest = largest_string(&doc["tools"])
        .max(largest_string(input))
        .saturating_add(64);
    // Past its limits a call is answered with the breach sentence, not
    // run: only the calls within the limits return a tool's result.
    let run = executed(doc).map_or(calls, |cap| calls.min(cap));
    if run < calls && doc["manager"]["on_limit_exceeded"] == "THROW" {
        // THROW ends the turn at the first breach: every round before it
        // runs at least one call.
        rounds = rounds.min(run.saturating_add(1));
    }
    let breach = longest_name(doc).saturating_add(BREACH_TEXT);
    let tool_results = run
        .saturating_mul(largest)
        .saturating_add((calls - run).saturating_mul(breach));
    Estimate {
        tool_results,
        requests: tool_results.saturating_mul(rounds.div_ceil(2)),
    }
}

/// The bytes of a breach answer besides the tool's name: Spring's
/// sentence with its limit, or a processor's message of it, as JSON.
const BREACH_TEXT: u64 = 512;

/// How many calls of a turn may run a tool at most, when the vector's
/// limits bound them: Spring AI 2.0.1's limits, no tool excluded from
/// them, and each limit given. `None` when nothing bounds them.
fn executed(doc: &Value) -> Option<u64> {
    let m = &doc["manager"];
    let version = doc["spring_ai"].as_str().unwrap_or("2.0.1");
    let excluded = m["exclude_from_limit"].as_array().map_or(0, Vec::len);
    if version != "2.0.1" || excluded > 0 {
        return None;
    }
    let total = m["max_total_tool_calls"].as_u64()?;
    let default = m["max_calls_per_tool"].as_u64()?;
    let overrides = &m["max_calls_per_tool_overrides"];
    let per_tool = doc["tools"]
        .as_array()?
        .iter()
        .map(|t| {
            t["name"]
                .as_str()
                .and_then(|n| overrides[n].as_u64())
                .unwrap_or(default)
        })
        .fold(0, u64::saturating_add);
    Some(total.min(per_tool))
}

/// The longest `name` a tool or a call has, JSON-escaped: a breach answer
/// names its tool.
fn longest_name(v: &Value) -> u64 {
    match v {
        Value::Object(o) => o
            .iter()
            .map(|(k, v)| match (k.as_str(), v) {
                ("name", Value::String(s)) => escaped_len(s),
                _ => longest_name(v),
            })
            .max()
            .unwrap_or(0),
        Value::Array(a) => a.iter().map(longest_name).max().unwrap_or(0),
        _ => 0,
    }
}

/// The entries of every `tool_calls` array in `v`.
fn count_calls(v: &Value) -> u64 {
    match v {
        Value::Object(o) => o
            .iter()
            .map(|(k, v)| match (k.as_str(), v) {
                ("tool_calls", Value::Array(a)) => a.len() as u64,
                _ => count_calls(v),
            })
            .fold(0, u64::saturating_add),
        Value::Array(a) => a.iter().map(count_calls).fold(0, u64::saturating_add),
        _ => 0,
    }
}

/// The length of the longest string in `v`, JSON-escaped.
fn largest_string(v: &Value) -> u64 {
    match v {
        Value::String(s) => escaped_len(s),
        Value::Object(o) => o.values().map(largest_string).max().unwrap_or(0),
        Value::Array(a) => a.iter().map(largest_string).max().unwrap_or(0),
        _ => 0,
    }
}

fn escaped_len(s: &str) -> u64 {
    s.chars()
        .map(|c| match c {
            '"' | '\\' => 2,
            c if c.is_control() => 6,
            c => c.len_utf8() as u64,
        })
        .sum::<u64>()
        + 2
}

/// `Ok` when the vector is within both budgets; else the message naming
/// the budget hit, its figure and the estimate.
pub(crate) fn within(doc: &Value) -> Result<(), String> {
    let e = estimate(doc);
    if e.tool_results > MAX_TOOL_RESULT_BYTES {
        return Err(format!(
            "budget 'tool results' hit: the vector's tool calls could return about {} MiB together (calls times the largest result), over {} MiB; not run",
            e.tool_results >> 20,
            MAX_TOOL_RESULT_BYTES >> 20
        ));
    }
    if e.requests > MAX_RUN_OUTPUT_BYTES {
        return Err(format!(
            "budget 'requests' hit: the loop's requests could repeat about {} MiB of tool results (results times half the model calls), over {} MiB; not run",
            e.requests >> 20,
            MAX_RUN_OUTPUT_BYTES >> 20
        ));
    }
    Ok(())
}

/// A writer that refuses to write past [`MAX_RUN_OUTPUT_BYTES`]: `run`'s
/// output is bounded whatever the estimate missed (the messages' own
/// fields, repeated in each request).
pub(crate) struct Capped<W> {
    pub inner: W,
    pub written: u64,
}

impl<W> Capped<W> {
    /// Whether a write was refused for the budget.
    pub(crate) fn written_past(&self) -> bool {
        self.written == u64::MAX
    }
}

/// The error [`Capped`] gives at its budget.
pub(crate) fn output_budget_hit() -> String {
    format!(
        "budget 'run output' hit: the output would exceed {} MiB; stopped (the output so far is incomplete)",
        MAX_RUN_OUTPUT_BYTES >> 20
    )
}

impl<W: std::io::Write> std::io::Write for Capped<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.written.saturating_add(buf.len() as u64) > MAX_RUN_OUTPUT_BYTES {
            self.written = u64::MAX;
            return Err(std::io::Error::other(output_budget_hit()));
        }
        let n = self.inner.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_times_the_largest_result_times_rounds() {
        let doc = serde_json::json!({
            "tools": [{"name": "t", "outcomes": [{"returns": "x".repeat(1000)}]}],
            "input": {"model": [
                [{"tool_calls": [{"id": "1", "name": "t", "arguments": "{}"},
                                 {"id": "2", "name": "t", "arguments": "{}"}]}],
                [{"text": "done", "tool_calls": []}]
            ]}
        });
        let e = estimate(&doc);
        assert_eq!(e.tool_results, 2 * (1002 + 64));
        assert_eq!(e.requests, e.tool_results);
        let mut doc = doc;
        doc["input"]["repeat_last"] = Value::Bool(true);
        doc["input"]["model"].as_array_mut().unwrap().pop();
        let e = estimate(&doc);
        assert_eq!(e.tool_results, 2002 * (1002 + 64));
        assert_eq!(e.requests, e.tool_results * 500);
        assert!(within(&doc).is_ok());
    }

    /// A tool returning a large text, called by a model that repeats its
    /// call: within the limits the calls run, past them the breach
    /// sentence answers, and THROW ends the turn at the first breach.
    #[test]
    fn the_limits_bound_the_calls_that_run() {
        let mut doc = serde_json::json!({
            "manager": {"max_calls_per_tool": 2, "max_calls_per_tool_overrides": {},
                        "exclude_from_limit": [], "max_total_tool_calls": 150,
                        "on_limit_exceeded": "THROW"},
            "tools": [{"name": "t", "outcomes": [{"returns": "x".repeat(1 << 20)}]}],
            "input": {"repeat_last": true, "model": [
                [{"tool_calls": [{"id": "1", "name": "t", "arguments": "{}"}]}]
            ]}
        });
        let big = (1 << 20) + 2 + 64;
        let e = estimate(&doc);
        assert_eq!(e.tool_results, 2 * big + 999 * (3 + BREACH_TEXT));
        assert_eq!(e.requests, e.tool_results * 2);
        assert!(within(&doc).is_ok());
        // RETURN_ERROR_RESPONSE goes on to the guard: the same calls run,
        // and every request may repeat them.
        doc["manager"]["on_limit_exceeded"] = "RETURN_ERROR_RESPONSE".into();
        let e = estimate(&doc);
        assert_eq!(e.tool_results, 2 * big + 999 * (3 + BREACH_TEXT));
        assert_eq!(e.requests, e.tool_results * 500);
        // A tool excluded from the limits, or Spring AI 2.0.0 (no limits):
        // every call may run.
        doc["manager"]["exclude_from_limit"] = serde_json::json!(["t"]);
        assert_eq!(estimate(&doc).tool_results, 1001 * big);
        assert!(within(&doc).is_err());
        doc["manager"]["exclude_from_limit"] = serde_json::json!([]);
        doc["spring_ai"] = "2.0.0".into();
        assert_eq!(estimate(&doc).tool_results, 1001 * big);
    }

    #[test]
    fn the_output_stops_at_its_budget() {
        use std::io::Write as _;
        let mut w = Capped {
            inner: std::io::sink(),
            written: 0,
        };
        let block = vec![b'x'; 64 << 20];
        let fits = (MAX_RUN_OUTPUT_BYTES / block.len() as u64) as usize;
        for _ in 0..fits {
            w.write_all(&block).unwrap();
        }
        assert!(!w.written_past());
        let e = w.write_all(b"!").unwrap_err();
        assert!(e.to_string().contains("budget 'run output' hit"), "{e}");
        assert!(w.written_past());
    }
}
