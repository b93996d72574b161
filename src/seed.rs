//! The main job: seed 000's two failures under every behaviour set.
//!
//! * `breach`: Gemini, `RETURN_ERROR_RESPONSE`, a per-tool limit of 1, the
//!   seed's JSON-error processor, and a model that calls one tool twice in one
//!   round.
//! * `throw+memory`: the same with `THROW` and a chat memory inside the loop;
//!   what matters is whether the next turn, built from memory, is accepted.

use serde_json::{json, Value};

use crate::behavior::{Fix, Fixes};
use crate::limits::{Limits, OnExceeded};
use crate::manager::Config;
use crate::message::{Generation, Message, ToolCall};
use crate::processor::{Processor, ProcessorKind};
use crate::tool_loop::{run_loop, EndKind, LoopConfig, LoopError, LoopRun, Memory, Sent};
use crate::tools::{ToolSpec, Toolbox};

/// A behaviour set of the matrix: fixes plus the workaround advisor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BehaviorSet {
    /// The name shown (`upstream`, a fix's name, `all`, `gemini-tool-text`).
    pub name: &'static str,
    /// The fixes.
    pub fixes: Fixes,
    /// Whether the seed's workaround advisor runs.
    pub gemini_tool_text: bool,
}

/// The behaviour sets every report covers, in order: upstream, each single
/// fix, all fixes, and the workaround advisor on upstream.
///
/// ```
/// let sets = toolcall_model::seed::behavior_sets();
/// assert_eq!(sets.len(), 7);
/// assert_eq!(sets[0].name, "upstream");
/// ```
pub fn behavior_sets() -> Vec<BehaviorSet> {
    let mut v = vec![BehaviorSet {
        name: "upstream",
        fixes: Fixes::upstream(),
        gemini_tool_text: false,
    }];
    v.extend(Fix::ALL.iter().map(|f| BehaviorSet {
        name: f.name(),
        fixes: Fixes::only(*f),
        gemini_tool_text: false,
    }));
    v.push(BehaviorSet {
        name: "all",
        fixes: Fixes::all(),
        gemini_tool_text: false,
    });
    v.push(BehaviorSet {
        name: "gemini-tool-text",
        fixes: Fixes::upstream(),
        gemini_tool_text: true,
    });
    v
}

/// One row of the main job's table.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// `breach` or `throw+memory`.
    pub scenario: &'static str,
    /// The behaviour set's name.
    pub set: &'static str,
    /// The breached call's response as Gemini received it, or why it never did.
    pub reached_gemini: String,
    /// How the turn ended.
    pub outcome: String,
    /// The verdict on the next turn built from memory (`throw+memory` only).
    pub next_turn: Option<String>,
    /// Whether this row shows the seed's failure.
    pub fails: bool,
}

impl Row {
    /// The row as JSON.
    pub fn to_value(&self) -> Value {
        json!({
            "scenario": self.scenario,
            "set": self.set,
            "reached_gemini": self.reached_gemini,
            "outcome": self.outcome,
            "next_turn": self.next_turn,
            "fails": self.fails,
        })
    }
}

fn call(id: &str) -> ToolCall {
    ToolCall::new(id, "x", "{}")
}

fn scenario(set: BehaviorSet, on: OnExceeded, memory: Memory) -> Result<LoopRun, LoopError> {
    let limits = Limits {
        on_exceeded: on,
        ..Limits::default()
    }
    .max_calls_per_tool(1)
    .expect("1 is a valid maximum");
    let manager = Config {
        limits,
        processor: Processor {
            kind: ProcessorKind::JsonError,
            ..Processor::default()
        },
        fixes: set.fixes,
        ..Config::default()
    };
    let cfg = LoopConfig {
        memory,
        gemini_tool_text: set.gemini_tool_text,
        ..LoopConfig::new(manager)
    };
    let model = vec![
        vec![Generation {
            tool_calls: vec![call("call-1"), call("call-2")],
            ..Generation::default()
        }],
        vec![Generation {
            text: Some("It is sunny.".into()),
            ..Generation::default()
        }],
    ];
    let mut tools = Toolbox::new(vec![ToolSpec::returning("x", "\"sunny\"")]);
    run_loop(
        &cfg,
        vec![Message::user("weather twice")],
        &model,
        &mut tools,
    )
}

fn breach_as_sent(run: &LoopRun) -> String {
    let last = run.requests.iter().rev().find_map(|r| match r {
        Sent::Gemini(req) => req.contents.last(),
        Sent::Messages(_) => None,
    });
    let sent = last.and_then(|c| c.parts.get(1)).map(|p| p.to_value());
    match sent {
        Some(v) => v
            .pointer("/functionResponse/response")
            .map_or_else(|| "-".to_owned(), Value::to_string),
        None => "(never sent)".to_owned(),
    }
}

fn outcome_text(run: &LoopRun) -> String {
    match run.kind {
        EndKind::Error => format!(
            "error: {}",
            run.error
                .as_ref()
                .map_or_else(String::new, ToString::to_string)
        ),
        EndKind::LimitExceeded => format!(
            "limit_exceeded: {}",
            run.generations
                .first()
                .and_then(|g| g.text.clone())
                .unwrap_or_default()
        ),
        k => format!(
            "{}: {}",
            k.name(),
            run.generations
                .first()
                .and_then(|g| g.text.clone())
                .unwrap_or_default()
        ),
    }
}

/// Runs both scenarios under every behaviour set.
///
/// ```
/// let rows = toolcall_model::seed::reproduce().unwrap();
/// let upstream = &rows[0];
/// assert!(upstream.fails);
/// assert!(upstream.outcome.contains("Failed to parse JSON: Tool call limit (1) exceeded for tool 'x'"));
/// assert!(rows.iter().filter(|r| r.set == "all").all(|r| !r.fails));
/// ```
pub fn reproduce() -> Result<Vec<Row>, LoopError> {
    let mut rows = Vec::new();
    for set in behavior_sets() {
        let run = scenario(set, OnExceeded::ReturnErrorResponse, Memory::None)?;
        rows.push(Row {
            scenario: "breach",
            set: set.name,
            reached_gemini: if run.requests.len() > 1 {
                breach_as_sent(&run)
            } else {
                "(request not built)".into()
            },
            fails: run.kind == EndKind::Error || run.api().is_err(),
            outcome: outcome_text(&run),
            next_turn: None,
        });
    }
    for set in behavior_sets() {
        let run = scenario(set, OnExceeded::Throw, Memory::Inside)?;
        let next = match &run.memory_verdict {
            Ok(()) => "accepted".to_owned(),
            Err(m) => format!("rejected: {m}"),
        };
        rows.push(Row {
            scenario: "throw+memory",
            set: set.name,
            reached_gemini: "(loop ends at the breach)".into(),
            fails: run.memory_verdict.is_err() || run.kind == EndKind::Error,
            outcome: outcome_text(&run),
            next_turn: Some(next),
        });
    }
    Ok(rows)
}

fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_owned()
    } else {
        let t: String = s.chars().take(n.saturating_sub(1)).collect();
        format!("{t}…")
    }
}

/// A short phrase for one row: what happened, in a few words.
fn phrase(r: &Row) -> String {
    match &r.next_turn {
        None if r.fails => r
            .outcome
            .trim_start_matches("error: ")
            .trim_start_matches("java.lang.RuntimeException: ")
            .to_owned(),
        None => format!("Gemini got {}", r.reached_gemini),
        Some(n) if n == "accepted" => "next turn accepted".to_owned(),
        Some(n) if n.contains("number of function response parts") => {
            "next turn rejected: dangling call".to_owned()
        }
        Some(n) => format!(
            "next turn fails: {}",
            n.trim_start_matches("rejected: ")
                .trim_start_matches("java.lang.RuntimeException: ")
        ),
    }
}

/// The rows as a compact text table: one line per behaviour set, one
/// column per scenario.
///
/// ```
/// let t = toolcall_model::seed::table(&toolcall_model::seed::reproduce().unwrap());
/// assert!(t.lines().any(|l| l.starts_with("upstream ") && l.contains("FAIL")));
/// ```
pub fn table(rows: &[Row]) -> String {
    const W: usize = 50;
    let mut out = String::new();
    out.push_str("Seed 000: tool x is limited to 1 call per turn; the model calls it twice in one round.\n\n");
    out.push_str(&format!(
        "{:<26}{:<W$}  {}\n",
        "behaviour set", "RETURN_ERROR_RESPONSE, Gemini", "THROW, chat memory inside the loop"
    ));
    for set in behavior_sets() {
        let cell = |scenario: &str| {
            rows.iter()
                .find(|r| r.set == set.name && r.scenario == scenario)
                .map_or_else(String::new, |r| {
                    let mark = if r.fails { "FAIL" } else { "ok" };
                    clip(&format!("{mark:<5} {}", phrase(r)), W)
                })
        };
        out.push_str(&format!(
            "{:<26}{:<W$}  {}\n",
            set.name,
            cell("breach"),
            cell("throw+memory")
        ));
    }
    out.push_str("\nFull texts: toolcall-model --json\n");
    out
}
