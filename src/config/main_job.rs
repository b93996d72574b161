//! The main job: the configurations that change the answer to seed 000,
//! under every behaviour set.
//!
//! Seed 000's breach (Gemini, a per-tool limit of 1, a model that calls
//! tool x twice in one round) under `RETURN_ERROR_RESPONSE` with Spring's
//! default exception processor and with a JSON-error one like the seed's;
//! the same breach under `THROW` with the chat memory absent, outside the
//! tool loop and inside it; and a long turn of a dozen tool rounds with the
//! memory outside and inside, in the setup `ChatClient` gives by default
//! (`MessageWindowChatMemory` of 20 messages; with the memory advisor
//! inside the loop, `ChatClient` registers `ToolCallingAdvisor` with
//! conversation history off). Each cell is a [`crate::config::check`] scenario
//! played on a [`crate::config::check::Setup`].

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::chat::tool_loop::Memory;
use crate::config::check::{evaluate, Scenario, Setup, Verdict};
use crate::model::behavior::{behavior_sets, BehaviorSet};
use crate::model::limits::{Limits, OnExceeded};
use crate::model::processor::{Processor, ProcessorKind};

/// One column of the main job's table: a setup and a scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// A stable name (JSON).
    pub id: &'static str,
    /// The column's two header lines (under its group's).
    pub head: [&'static str; 2],
    /// Index into [`GROUPS`].
    pub group: usize,
    /// Everything the column assumes, in full.
    pub assumptions: String,
    /// The setup.
    pub setup: Setup,
    /// The scenario played.
    pub scenario: Scenario,
}

/// Column groups: two header lines each, above their columns.
pub const GROUPS: [[&str; 2]; 3] = [
    ["RETURN_ERROR_RESPONSE,", "no memory"],
    ["THROW, Spring's", "processor"],
    ["12 tool rounds,", "default limits"],
];

/// The columns, in order.
///
/// ```
/// let c = toolcall_model::config::main_job::columns();
/// assert_eq!(c.len(), 7);
/// assert_eq!(c[0].id, "breach/default-processor");
/// ```
pub fn columns() -> Vec<Column> {
    let breach = |on: OnExceeded| Limits {
        on_exceeded: on,
        ..Limits::default()
            .max_calls_per_tool(1)
            .expect("1 is a valid maximum")
    };
    let rer = Setup {
        limits: breach(OnExceeded::ReturnErrorResponse),
        ..Setup::default()
    };
    let throw = Setup {
        limits: breach(OnExceeded::Throw),
        ..Setup::default()
    };
    let gemini =
        "Gemini (GoogleGenAiChatModel), a ChatClient that registers ToolCallingAdvisor itself";
    let memory = |m: Memory| {
        match m {
        Memory::None => "no chat memory".to_owned(),
        Memory::Outside => "MessageChatMemoryAdvisor at its default order (HIGHEST_PRECEDENCE + 200, outside the tool loop) over MessageWindowChatMemory (20 messages); conversation history on".to_owned(),
        Memory::Inside => "MessageChatMemoryAdvisor ordered after ToolCallingAdvisor (> HIGHEST_PRECEDENCE + 300, inside the tool loop) over MessageWindowChatMemory (20 messages); ChatClient then turns the tool advisor's conversation history off".to_owned(),
    }
    };
    let seed = "spring.ai.tools.limits.max-calls-per-tool-default=1; the model calls tool x twice in one round";
    let mut v = vec![
        Column {
            id: "breach/default-processor",
            head: ["Spring's", "processor"],
            group: 0,
            assumptions: format!("{gemini}; {seed}; on-limit-exceeded=RETURN_ERROR_RESPONSE; Spring's DefaultToolExecutionExceptionProcessor (auto-configured); {}", memory(Memory::None)),
            setup: rer.clone(),
            scenario: Scenario::BreachOneRound,
        },
        Column {
            id: "breach/json-error-processor",
            head: ["JSON-error", "processor"],
            group: 0,
            assumptions: format!("{gemini}; {seed}; on-limit-exceeded=RETURN_ERROR_RESPONSE; an exception processor bean that writes {{\"error\":MESSAGE}}, like the seed's; {}", memory(Memory::None)),
            setup: Setup {
                processor: Processor {
                    kind: ProcessorKind::JsonError,
                    ..Processor::default()
                },
                ..rer
            },
            scenario: Scenario::BreachOneRound,
        },
    ];
    for (id, m, head) in [
        ("throw/memory-none", Memory::None, ["memory", "none"]),
        (
            "throw/memory-outside",
            Memory::Outside,
            ["memory", "outside"],
        ),
        ("throw/memory-inside", Memory::Inside, ["memory", "inside*"]),
    ] {
        v.push(Column {
            id,
            head,
            group: 1,
            assumptions: format!("{gemini}; {seed}; on-limit-exceeded=THROW; Spring's default exception processor; {}; the next turn is built from the memory", memory(m)),
            setup: Setup {
                memory: m,
                ..throw.clone()
            },
            scenario: Scenario::BreachOneRound,
        });
    }
    for (id, m, head) in [
        (
            "long-turn/memory-outside",
            Memory::Outside,
            ["memory", "outside"],
        ),
        (
            "long-turn/memory-inside",
            Memory::Inside,
            ["memory", "inside*"],
        ),
    ] {
        v.push(Column {
            id,
            head,
            group: 2,
            assumptions: format!("{gemini}; default limits (40 per tool, 150 in total, THROW); Spring's default exception processor; the model calls a JSON-returning tool once per round for 12 rounds, then answers; {}; the next turn is built from the memory", memory(m)),
            setup: Setup {
                memory: m,
                ..Setup::default()
            },
            scenario: Scenario::LongTurn,
        });
    }
    v
}

/// The main job's result: one verdict per behaviour set and column.
#[derive(Debug, Clone, PartialEq)]
pub struct MainJob {
    /// The columns.
    pub columns: Vec<Column>,
    /// Per behaviour set, one verdict per column.
    pub rows: Vec<(BehaviorSet, Vec<Verdict>)>,
}

impl MainJob {
    /// The names of the sets that survive column `c`.
    pub fn survivors(&self, c: usize) -> Vec<&'static str> {
        self.rows
            .iter()
            .filter(|(_, v)| v[c].mark.survives())
            .map(|(s, _)| s.name)
            .collect()
    }

    /// The verdict for a column id and a set name.
    pub fn cell(&self, column: &str, set: &str) -> Option<&Verdict> {
        let c = self.columns.iter().position(|c| c.id == column)?;
        self.rows
            .iter()
            .find(|(s, _)| s.name == set)
            .map(|(_, v)| &v[c])
    }

    /// The faults of the model itself (a scenario that could not be played).
    pub fn faults(&self) -> Vec<String> {
        self.rows
            .iter()
            .flat_map(|(_, v)| v.iter().filter_map(|x| x.fault.clone()))
            .collect()
    }

    /// The result as JSON: the columns with their assumptions, one row per
    /// behaviour set with every cell's full texts, and the conclusion.
    pub fn to_value(&self) -> Value {
        json!({
            "columns": self.columns.iter().map(|c| json!({
                "id": c.id,
                "scenario": c.scenario.name(),
                "assumptions": c.assumptions,
            })).collect::<Vec<_>>(),
            "rows": self.rows.iter().map(|(s, vs)| json!({
                "set": s.name,
                "fixes": s.fixes.enabled().iter().map(|f| f.name()).collect::<Vec<_>>(),
                "gemini_tool_text": s.gemini_tool_text,
                "cells": self.columns.iter().zip(vs).map(|(c, v)| {
                    let mut o = v.to_value();
                    o["column"] = json!(c.id);
                    o
                }).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "conclusion": conclusion(self),
        })
    }
}

/// Plays every column under every behaviour set (about 70 short loops).
///
/// ```
/// let job = toolcall_model::config::main_job::reproduce();
/// let up = job.cell("breach/json-error-processor", "upstream").unwrap();
/// assert!(!up.mark.survives());
/// assert!(up.detail.contains("Failed to parse JSON: Tool call limit (1) exceeded for tool 'x'"));
/// // breach-through-processor helps only with a JSON-error processor
/// assert!(!job.cell("breach/default-processor", "breach-through-processor").unwrap().mark.survives());
/// assert!(job.cell("breach/json-error-processor", "breach-through-processor").unwrap().mark.survives());
/// ```
pub fn reproduce() -> MainJob {
    let columns = columns();
    let rows = behavior_sets()
        .into_iter()
        .map(|set| {
            let v = columns
                .iter()
                .map(|c| evaluate(&c.setup, &set, c.scenario))
                .collect();
            (set, v)
        })
        .collect();
    MainJob { columns, rows }
}

fn names(all: &[&'static str], some: &[&'static str]) -> String {
    if some.is_empty() {
        "no behaviour set".to_owned()
    } else if some.len() == all.len() {
        "every behaviour set".to_owned()
    } else {
        some.join(", ")
    }
}

/// The conclusion under the table: which fix is enough for whom, computed
/// from the verdicts.
pub fn conclusion(job: &MainJob) -> Vec<String> {
    let all: Vec<&'static str> = job.rows.iter().map(|(s, _)| s.name).collect();
    let col = |id: &str| job.columns.iter().position(|c| c.id == id);
    let ok = |id: &str| col(id).map(|c| job.survivors(c)).unwrap_or_default();
    let mut out = Vec::new();
    let d = ok("breach/default-processor");
    let j = ok("breach/json-error-processor");
    let only_json: Vec<&'static str> = j.iter().copied().filter(|n| !d.contains(n)).collect();
    out.push(format!(
        "RETURN_ERROR_RESPONSE: with Spring's processor the breach survives under {}.",
        names(&all, &d)
    ));
    if !only_json.is_empty() {
        out.push(format!(
            "{} {} enough only for teams that configured a JSON-error processor.",
            only_json.join(", "),
            if only_json.len() == 1 { "is" } else { "are" }
        ));
    }
    let (n, o, i) = (
        ok("throw/memory-none"),
        ok("throw/memory-outside"),
        ok("throw/memory-inside"),
    );
    out.push(if n == o {
        format!(
            "THROW: with no memory or the memory outside the loop, {} survives; with it inside, \
             only {}.",
            names(&all, &n),
            names(&all, &i)
        )
    } else {
        format!(
            "THROW: with no memory, {} survives; with the memory outside the loop, {}; inside \
             it, {}.",
            names(&all, &n),
            names(&all, &o),
            names(&all, &i)
        )
    });
    let (lo, li) = (
        ok("long-turn/memory-outside"),
        ok("long-turn/memory-inside"),
    );
    let why = col("long-turn/memory-inside")
        .and_then(|c| job.rows.first().map(|(_, v)| &v[c]))
        .filter(|v| !v.mark.survives())
        .map(|v| {
            format!(
                " (upstream: {})",
                v.detail.split(": ").next().unwrap_or_default()
            )
        })
        .unwrap_or_default();
    out.push(format!(
        "12 tool rounds: memory outside survives under {}; inside, where the 20-message window \
         evicts the turn as it runs, under {}{why}.",
        names(&all, &lo),
        names(&all, &li)
    ));
    let every: Vec<&'static str> = job
        .rows
        .iter()
        .filter(|(_, v)| v.iter().all(|x| x.mark.survives()))
        .map(|(s, _)| s.name)
        .collect();
    out.push(format!(
        "Every column survives under {}.",
        names(&all, &every)
    ));
    out
}

fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for w in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + w.chars().count() > width {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(w);
    }
    if !line.is_empty() {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The table: one line per behaviour set, one column per setup, each header
/// stating its assumptions, then the legend and the conclusion; at most
/// 100 columns wide.
///
/// ```
/// let t = toolcall_model::config::main_job::table(&toolcall_model::config::main_job::reproduce());
/// assert!(t.lines().all(|l| l.chars().count() <= 100));
/// assert!(t.lines().any(|l| l.starts_with("upstream ") && l.contains("parse")));
/// ```
pub fn table(job: &MainJob) -> String {
    let name_w = job
        .rows
        .iter()
        .map(|(s, _)| s.name.len())
        .chain(["behaviour set".len()])
        .max()
        .unwrap_or(13)
        + 1;
    // The first group's columns are wider: its header is RETURN_ERROR_RESPONSE.
    let width = |c: &Column| if c.group == 0 { 11 } else { 9 };
    let mut out = String::new();
    out.push_str(
        "Seed 000: tool x is limited to 1 call per turn; the model calls it twice in one round.\n",
    );
    out.push_str(
        "Every column: Gemini, and a ChatClient that registers ToolCallingAdvisor itself.\n\n",
    );
    let mut line = |cells: Vec<(usize, String)>, first: &str| {
        let mut l = format!("{first:<name_w$}");
        for (w, c) in cells {
            l.push_str(&format!("{c:<w$} "));
        }
        out.push_str(l.trim_end());
        out.push('\n');
    };
    // Group header lines: each group spans its columns.
    for k in 0..2 {
        let mut cells = Vec::new();
        for (g, titles) in GROUPS.iter().enumerate() {
            let span: usize = job
                .columns
                .iter()
                .filter(|c| c.group == g)
                .map(|c| width(c) + 1)
                .sum();
            if span > 0 {
                cells.push((span - 1, titles[k].to_owned()));
            }
        }
        line(cells, "");
    }
    for k in 0..2 {
        let cells = job
            .columns
            .iter()
            .map(|c| (width(c), c.head[k].to_owned()))
            .collect();
        line(cells, if k == 1 { "behaviour set" } else { "" });
    }
    for (set, verdicts) in &job.rows {
        let cells = job
            .columns
            .iter()
            .zip(verdicts)
            .map(|(c, v)| (width(c), v.mark.word().to_owned()))
            .collect();
        line(cells, set.name);
    }
    out.push('\n');
    out.push_str(&wrap(
        "inside*: the memory advisor ordered after ToolCallingAdvisor; ChatClient then turns the \
         tool advisor's conversation history off. outside: its default order. Memory: \
         MessageWindowChatMemory, 20 messages. The next turn is built from the memory.",
        100,
    ));
    let mut marks = Vec::new();
    let mut seen = BTreeSet::new();
    for (_, vs) in &job.rows {
        for v in vs {
            if seen.insert(v.mark.word()) {
                marks.push(v.mark);
            }
        }
    }
    let legend: Vec<String> = marks
        .iter()
        .map(|m| format!("{}: {}", m.word(), m.meaning()))
        .collect();
    out.push_str(&wrap(&legend.join("; "), 100));
    out.push('\n');
    for c in conclusion(job) {
        out.push_str(&wrap(&c, 100));
    }
    out.push_str("\nFull texts and each column's assumptions: toolcall-model --json\n");
    out
}
