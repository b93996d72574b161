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
//! conversation history off); and, under `RETURN_ERROR_RESPONSE`, a model
//! that keeps calling a tool past its limit. Each cell is a [`crate::config::CheckScenario`]
//! played on a [`crate::config::Setup`].

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::config::survival::{CheckScenario, CheckVerdict, Mark, Setup, evaluate};
use toolcall_model::chat::Memory;
use toolcall_model::model::{BehaviorSet, SpringAi};
use toolcall_model::model::{OnExceeded, ToolCallLimits};
use toolcall_model::model::{Processor, ProcessorKind};

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
    pub scenario: CheckScenario,
    /// Whether the text table shows it: a column where every set survives,
    /// or one past the table's width (the turn that never ends), is said in
    /// its problem's line instead (JSON has every column).
    pub in_table: bool,
}

/// The problems the table is grouped by: each group's two header lines
/// and its name in the conclusion.
pub const GROUPS: [([&str; 2], &str); 5] = [
    (
        ["issue 6902: breach,", "RETURN_ERROR_RESPONSE"],
        "Issue 6902's breach (RETURN_ERROR_RESPONSE: the limit's text goes to Gemini; either processor, no chat memory)",
    ),
    (
        ["plain tool output", "(issue 5437)"],
        "Plain tool output (issue 5437: a tool's text, half-JSON, or an exception's message; Spring's default processor, no chat memory)",
    ),
    (
        ["THROW:", "dangling"],
        "The dangling call after THROW (the breached call stays unanswered in memory; Spring's default processor, memory inside the loop)",
    ),
    (
        ["long turn,", "12 rounds"],
        "The long turn (12 tool rounds against a 20-message window; Spring's default processor, memory inside the loop)",
    ),
    (
        ["never", "ends"],
        "The turn that never ends (RETURN_ERROR_RESPONSE: a model that keeps calling a tool past its limit is called again and again; either processor, no chat memory)",
    ),
];

/// Limits of 1 call per tool, with `on` on a breach.
fn breach(on: OnExceeded) -> ToolCallLimits {
    ToolCallLimits {
        on_exceeded: on,
        ..ToolCallLimits::default()
            .max_calls_per_tool(1)
            .expect("1 is a valid maximum")
    }
}

/// A column's memory, in words.
fn memory(m: Memory) -> String {
    match m {
        Memory::None => "no chat memory".to_owned(),
        Memory::Outside => "MessageChatMemoryAdvisor at its default order (HIGHEST_PRECEDENCE + 200, outside the tool loop) over MessageWindowChatMemory (20 messages); conversation history on".to_owned(),
        Memory::Inside => "MessageChatMemoryAdvisor ordered after ToolCallingAdvisor (> HIGHEST_PRECEDENCE + 300, inside the tool loop) over MessageWindowChatMemory (20 messages); ChatClient then turns the tool advisor's conversation history off".to_owned(),
    }
}

/// The columns of tool text: plain text, half-JSON and a tool that throws,
/// each followed by one more tool round, under default limits.
fn text_columns(gemini: &str, v: &mut Vec<Column>) {
    for (id, scenario, head, what) in [
        (
            "plain/default-processor",
            CheckScenario::PlainText,
            ["plain", "text"],
            "a tool returns the plain text Sunny, 22 °C, then the model calls another tool once more",
        ),
        (
            "half-json/default-processor",
            CheckScenario::HalfJson,
            ["half", "JSON"],
            "a tool returns the half-JSON text 3.0 + 5.0 = 8.0, then the model calls another tool once more",
        ),
        (
            "throws/default-processor",
            CheckScenario::ToolThrows,
            ["tool", "throws"],
            "a tool throws IllegalStateException(\"Service unavailable\"), wrapped as method tools do, then the model calls another tool once more",
        ),
    ] {
        v.push(Column {
            id,
            head,
            group: 1,
            assumptions: format!("{gemini}; default limits (40 per tool, 150 in total, THROW); Spring's default exception processor; {what}; {}", memory(Memory::None)),
            setup: Setup::default(),
            scenario,
            in_table: true,
        });
    }
}

/// The columns of `THROW`: the breach with no memory, the memory outside
/// the loop and inside it.
fn throw_columns(gemini: &str, seed: &str, throw: &Setup, v: &mut Vec<Column>) {
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
            group: 2,
            assumptions: format!("{gemini}; {seed}; on-limit-exceeded=THROW; Spring's default exception processor; {}; the next turn is built from the memory", memory(m)),
            setup: Setup {
                memory: m,
                ..throw.clone()
            },
            scenario: CheckScenario::BreachOneRound,
            in_table: m == Memory::Inside,
        });
    }
}

/// The columns of the long turn: 12 tool rounds against the memory's
/// window, the memory outside the loop and inside it.
fn long_turn_columns(gemini: &str, v: &mut Vec<Column>) {
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
            group: 3,
            assumptions: format!("{gemini}; default limits (40 per tool, 150 in total, THROW); Spring's default exception processor; the model calls a JSON-returning tool once per round for 12 rounds, then answers; {}; the next turn is built from the memory", memory(m)),
            setup: Setup {
                memory: m,
                ..Setup::default()
            },
            scenario: CheckScenario::LongTurn,
            in_table: m == Memory::Inside,
        });
    }
}

/// The columns of the turn that never ends, under each processor.
fn runaway_columns(gemini: &str, v: &mut Vec<Column>) {
    for (id, kind, what) in [
        (
            "runaway/default-processor",
            ProcessorKind::Default,
            "Spring's DefaultToolExecutionExceptionProcessor (auto-configured)",
        ),
        (
            "runaway/json-error-processor",
            ProcessorKind::JsonError,
            "an exception processor bean that writes {\"error\":MESSAGE}, like the seed's",
        ),
    ] {
        v.push(Column {
            id,
            head: ["model", "repeats"],
            group: 4,
            assumptions: format!("{gemini}; spring.ai.tools.limits.max-calls-per-tool-default=1; the model calls tool x once per round and never stops; on-limit-exceeded=RETURN_ERROR_RESPONSE; {what}; {}", memory(Memory::None)),
            setup: Setup {
                limits: breach(OnExceeded::ReturnErrorResponse),
                processor: Processor {
                    kind,
                    ..Processor::default()
                },
                ..Setup::default()
            },
            scenario: CheckScenario::Runaway,
            // Past the table's 100 columns: its problem's line names who
            // runs away under each processor and who closes it.
            in_table: false,
        });
    }
}

/// The columns, in order, on Spring AI 2.0.1.
///
/// ```
/// let c = toolcall_check::config::columns();
/// assert_eq!(c.len(), 13);
/// assert_eq!(c[0].id, "breach/default-processor");
/// ```
pub fn columns() -> Vec<Column> {
    columns_on(SpringAi::default())
}

/// What a version other than 2.0.1 is, for the header and each column's
/// assumptions; `None` on 2.0.1, whose table says nothing of it.
///
/// ```
/// use toolcall_check::config::version_facts;
/// use toolcall_model::model::SpringAi;
/// assert!(version_facts(SpringAi::V1_1_2).unwrap().contains("no tool call limits"));
/// assert_eq!(version_facts(SpringAi::V2_0_1), None);
/// ```
pub fn version_facts(version: SpringAi) -> Option<String> {
    if version == SpringAi::default() {
        None
    } else if version.loop_in_chat_model() {
        Some(format!(
            "Spring AI {version} (the 1.1 line): the tool loop runs inside GoogleGenAiChatModel, or in ToolCallAdvisor where the application adds it, with no ToolCallingAdvisor and no tool call limits (the limits' keys are not read)"
        ))
    } else if !version.has_limits() {
        Some(format!(
            "Spring AI {version}: no tool call limits (the limits' keys are not read)"
        ))
    } else {
        Some(format!("Spring AI {version}"))
    }
}

/// The columns, in order, each setup on `version` as stated: on a version
/// without tool call limits the breach columns are played as they are and
/// found not applicable ([`crate::config::Mark::NotApplicable`]), never
/// read as another setup; on 1.1 a memory inside the loop is inside
/// `ToolCallAdvisor`'s.
///
/// ```
/// use toolcall_model::model::SpringAi;
/// let c = toolcall_check::config::columns_on(SpringAi::V1_1_2);
/// assert!(c.iter().all(|c| c.setup.version == SpringAi::V1_1_2));
/// assert!(c[0].assumptions.ends_with("(the limits' keys are not read)"));
/// ```
pub fn columns_on(version: SpringAi) -> Vec<Column> {
    let mut v = columns_of_2_0_1();
    if let Some(facts) = version_facts(version) {
        // On 1.1 a memory inside the loop is inside ToolCallAdvisor's.
        let inside = memory(Memory::Inside);
        let inside_1_1 = "MessageChatMemoryAdvisor at its default order (HIGHEST_PRECEDENCE + 1000), after ToolCallAdvisor's (HIGHEST_PRECEDENCE + 300): inside ToolCallAdvisor's tool loop, over MessageWindowChatMemory (20 messages); the whole conversation sent every round";
        for c in &mut v {
            c.setup.version = version;
            if version.loop_in_chat_model() {
                c.assumptions = c.assumptions.replace(&inside, inside_1_1);
            }
            c.assumptions = format!("{}; {facts}", c.assumptions);
        }
    }
    v
}

/// The columns as Spring AI 2.0.1 runs them.
fn columns_of_2_0_1() -> Vec<Column> {
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
    let seed = "spring.ai.tools.limits.max-calls-per-tool-default=1; the model calls tool x twice in one round";
    let mut v = vec![
        Column {
            id: "breach/default-processor",
            head: ["Spring's", "processor"],
            group: 0,
            assumptions: format!(
                "{gemini}; {seed}; on-limit-exceeded=RETURN_ERROR_RESPONSE; Spring's DefaultToolExecutionExceptionProcessor (auto-configured); {}",
                memory(Memory::None)
            ),
            setup: rer.clone(),
            scenario: CheckScenario::BreachOneRound,
            in_table: true,
        },
        Column {
            id: "breach/json-error-processor",
            head: ["JSON-error", "processor"],
            group: 0,
            assumptions: format!(
                "{gemini}; {seed}; on-limit-exceeded=RETURN_ERROR_RESPONSE; an exception processor bean that writes {{\"error\":MESSAGE}}, like the seed's; {}",
                memory(Memory::None)
            ),
            setup: Setup {
                processor: Processor {
                    kind: ProcessorKind::JsonError,
                    ..Processor::default()
                },
                ..rer.clone()
            },
            scenario: CheckScenario::BreachOneRound,
            in_table: true,
        },
        Column {
            id: "breach-then-round/default-processor",
            head: ["+1 round,", "Spring's"],
            group: 0,
            assumptions: format!(
                "{gemini}; {seed}, then calls another tool once more before it answers; on-limit-exceeded=RETURN_ERROR_RESPONSE; Spring's DefaultToolExecutionExceptionProcessor (auto-configured); {}",
                memory(Memory::None)
            ),
            setup: rer,
            scenario: CheckScenario::BreachThenRound,
            in_table: true,
        },
    ];
    text_columns(gemini, &mut v);
    throw_columns(gemini, seed, &throw, &mut v);
    long_turn_columns(gemini, &mut v);
    runaway_columns(gemini, &mut v);
    v
}

/// The main job's result: one verdict per behaviour set and column.
#[derive(Debug, Clone, PartialEq)]
pub struct MainJob {
    /// The Spring AI version played.
    pub version: SpringAi,
    /// The columns.
    pub columns: Vec<Column>,
    /// Per behaviour set, one verdict per column.
    pub rows: Vec<(BehaviorSet, Vec<CheckVerdict>)>,
    /// The behaviour sets not played on the version, each with why
    /// ([`crate::config::sets_on`]).
    pub left_out: Vec<(BehaviorSet, String)>,
}

impl MainJob {
    /// The names of the sets that survive column `c`, played (a cell
    /// not applicable on the version closes nothing).
    pub(crate) fn survivors(&self, c: usize) -> Vec<&'static str> {
        self.rows
            .iter()
            .filter(|(_, v)| v[c].mark.survives() && v[c].mark != Mark::NotApplicable)
            .map(|(s, _)| s.name)
            .collect()
    }

    /// The verdict for a column id and a set name.
    pub fn cell(&self, column: &str, set: &str) -> Option<&CheckVerdict> {
        let c = self.columns.iter().position(|c| c.id == column)?;
        self.rows
            .iter()
            .find(|(s, _)| s.name == set)
            .map(|(_, v)| &v[c])
    }

    /// The faults of the model itself (a scenario that could not be played).
    pub(crate) fn faults(&self) -> Vec<String> {
        self.rows
            .iter()
            .flat_map(|(_, v)| v.iter().filter_map(|x| x.fault.clone()))
            .collect()
    }

    /// The result as JSON: the columns with their assumptions, one row per
    /// behaviour set with every cell's full texts, and the conclusion.
    pub fn to_value(&self) -> Value {
        let mut v = self.value_of_2_0_1();
        if self.version != SpringAi::default() {
            // Only where the version changes the answer: 2.0.1's JSON is
            // as it always was.
            v["spring_ai"] = json!(self.version.name());
            v["spring_ai_facts"] = json!(version_facts(self.version));
            v["left_out"] = self
                .left_out
                .iter()
                .map(|(s, why)| json!({ "set": s.name, "why": why }))
                .collect();
        }
        v
    }

    /// [`MainJob::to_value`] without what only another version adds.
    fn value_of_2_0_1(&self) -> Value {
        json!({
            "columns": self.columns.iter().map(|c| json!({
                "id": c.id,
                "scenario": c.scenario.name(),
                "assumptions": c.assumptions,
                "problem": GROUPS.get(c.group).map(|g| g.1),
                "head": c.head.join(" "),
                "in_table": c.in_table,
            })).collect::<Vec<_>>(),
            "rows": self.rows.iter().map(|(s, vs)| json!({
                "set": s.name,
                "fixes": s.fixes.iter().map(|f| f.name()).collect::<Vec<_>>(),
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

/// Plays every column under every behaviour set (about 70 short loops),
/// on Spring AI 2.0.1.
///
/// ```
/// let job = toolcall_check::config::reproduce();
/// let up = job.cell("breach/json-error-processor", "upstream").unwrap();
/// assert!(!up.mark.survives());
/// assert!(up.detail.contains("Failed to parse JSON: Tool call limit (1) exceeded for tool 'x'"));
/// // breach-through-processor helps only with a JSON-error processor
/// assert!(!job.cell("breach/default-processor", "breach-through-processor").unwrap().mark.survives());
/// assert!(job.cell("breach/json-error-processor", "breach-through-processor").unwrap().mark.survives());
/// ```
pub fn reproduce() -> MainJob {
    reproduce_on(SpringAi::default())
}

/// [`reproduce`] on `version`: its columns ([`columns_on`]) under the
/// behaviour sets played there ([`crate::config::sets_on`]).
///
/// ```
/// use toolcall_check::config::{Mark, reproduce_on};
/// use toolcall_model::model::SpringAi;
/// let job = reproduce_on(SpringAi::V1_1_2);
/// let breach = job.cell("breach/default-processor", "upstream").unwrap();
/// assert_eq!(breach.mark, Mark::NotApplicable);
/// let plain = job.cell("plain/default-processor", "upstream").unwrap();
/// assert_eq!(plain.mark, Mark::ParseError);
/// ```
pub fn reproduce_on(version: SpringAi) -> MainJob {
    let columns = columns_on(version);
    let (sets, left_out) = crate::config::sets_on(version);
    let rows = sets
        .into_iter()
        .map(|set| {
            let v = columns
                .iter()
                .map(|c| evaluate(&c.setup, &set, c.scenario))
                .collect();
            (set, v)
        })
        .collect();
    MainJob {
        version,
        columns,
        rows,
        left_out,
    }
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

/// The conclusion under the table: one line per problem naming the sets
/// that close it (survive each of its columns), then what is enough only
/// for some teams, computed from the verdicts.
pub fn conclusion(job: &MainJob) -> Vec<String> {
    let s = Survivors {
        job,
        all: job.rows.iter().map(|(s, _)| s.name).collect(),
    };
    let all = &s.all;
    let mut out = Vec::new();
    breach_lines(&s, &mut out);
    out.push(s.line(1, text_extra(&s)));
    let (n, o) = (s.ok("throw/memory-none"), s.ok("throw/memory-outside"));
    out.push(s.line(
        2,
        if s.not_applicable(2).is_some() {
            String::new()
        } else if n == o {
            format!(
                " With no memory or the memory outside the loop, {} survives.",
                names(all, &n)
            )
        } else {
            format!(
                " With no memory, {} survives; with the memory outside the loop, {}.",
                names(all, &n),
                names(all, &o)
            )
        },
    ));
    let why = s
        .col("long-turn/memory-inside")
        .and_then(|c| job.rows.first().map(|(_, v)| &v[c]))
        .filter(|v| !v.mark.survives())
        .map(|v| {
            format!(
                " Upstream with the memory inside: {}.",
                v.detail.split(": ").next().unwrap_or_default()
            )
        })
        .unwrap_or_default();
    out.push(s.line(
        3,
        format!(
            " With the memory outside the loop, {} survives.{why}",
            names(all, &s.ok("long-turn/memory-outside"))
        ),
    ));
    out.push(s.line(4, runaway_extra(&s)));
    let every: Vec<&'static str> = job
        .rows
        .iter()
        .filter(|(_, v)| {
            v.iter().all(|x| x.mark.survives()) && v.iter().any(|x| x.mark != Mark::NotApplicable)
        })
        .map(|(s, _)| s.name)
        .collect();
    out.push(
        if job.columns.iter().any(|c| c.in_table) && s.any_not_applicable() {
            format!(
                "Every column that applies on Spring AI {} survives under {}.",
                job.version,
                names(all, &every)
            )
        } else {
            format!("Every column survives under {}.", names(all, &every))
        },
    );
    out
}

/// The main job's verdicts read by column, for [`conclusion`].
struct Survivors<'a> {
    job: &'a MainJob,
    /// Every behaviour set's name, in the rows' order.
    all: Vec<&'static str>,
}

impl Survivors<'_> {
    /// The column of this id.
    fn col(&self, id: &str) -> Option<usize> {
        self.job.columns.iter().position(|c| c.id == id)
    }

    /// The sets that survive the column of this id.
    fn ok(&self, id: &str) -> Vec<&'static str> {
        self.col(id)
            .map(|c| self.job.survivors(c))
            .unwrap_or_default()
    }

    /// The sets that survive every column of group `g`.
    fn closing(&self, g: usize) -> Vec<&'static str> {
        self.all
            .iter()
            .copied()
            .filter(|n| {
                self.job
                    .columns
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.group == g)
                    .all(|(i, _)| self.job.survivors(i).contains(n))
            })
            .collect()
    }

    /// Group `g`'s line: its problem, the sets that close it (or why it
    /// does not apply on the version), then `extra`.
    fn line(&self, g: usize, extra: String) -> String {
        if let Some(why) = self.not_applicable(g) {
            return format!("{}: not applicable: {why}.{extra}", GROUPS[g].1);
        }
        format!(
            "{}: closed by {}.{extra}",
            GROUPS[g].1,
            names(&self.all, &self.closing(g))
        )
    }

    /// Why group `g` does not apply on the version, when every cell of its
    /// columns in the table (of all its columns, when none is) is not
    /// applicable: the first cell's reason.
    fn not_applicable(&self, g: usize) -> Option<String> {
        let cols = &self.job.columns;
        let shown = cols.iter().any(|c| c.group == g && c.in_table);
        let mut cells = cols
            .iter()
            .enumerate()
            .filter(|(_, c)| c.group == g && (c.in_table || !shown))
            .flat_map(|(i, _)| self.job.rows.iter().map(move |(_, v)| &v[i]));
        let first = cells.next()?;
        let all = first.mark == Mark::NotApplicable && cells.all(|v| v.mark == Mark::NotApplicable);
        all.then(|| first.detail.trim_end_matches(": not applicable").to_owned())
    }

    /// Whether any cell is not applicable.
    fn any_not_applicable(&self) -> bool {
        self.job
            .rows
            .iter()
            .any(|(_, v)| v.iter().any(|x| x.mark == Mark::NotApplicable))
    }
}

/// The breach's line, and the sets enough only with a JSON-error processor.
fn breach_lines(s: &Survivors, out: &mut Vec<String>) {
    let d = s.ok("breach/default-processor");
    let j = s.ok("breach/json-error-processor");
    let then = s.ok("breach-then-round/default-processor");
    let until: Vec<&'static str> = d.iter().copied().filter(|n| !then.contains(n)).collect();
    out.push(s.line(
        0,
        if until.is_empty() {
            String::new()
        } else {
            format!(
                " {} {} only until another tool round follows the breach (docs/BEHAVIOUR.md, section 7).",
                until.join(", "),
                if until.len() == 1 { "holds" } else { "hold" }
            )
        },
    ));
    let only_json: Vec<&'static str> = j.iter().copied().filter(|n| !d.contains(n)).collect();
    if !only_json.is_empty() {
        out.push(format!(
            "{} {} enough only for teams that configured a JSON-error processor.",
            only_json.join(", "),
            if only_json.len() == 1 { "is" } else { "are" }
        ));
    }
}

/// What the tool-text line adds: the sets that close only the
/// exceptions' messages, and those that wrap plain text but cut half-JSON.
fn text_extra(s: &Survivors) -> String {
    let plain = s.ok("plain/default-processor");
    let throws_only: Vec<&'static str> = s
        .ok("throws/default-processor")
        .into_iter()
        .filter(|n| !plain.contains(n))
        .collect();
    let half = s.ok("half-json/default-processor");
    let truncating: Vec<&'static str> = plain
        .iter()
        .copied()
        .filter(|n| !half.contains(n))
        .collect();
    let mut extra = String::new();
    if !throws_only.is_empty() {
        extra.push_str(&format!(
            " {} {} the exceptions' messages, not a tool's own text.",
            throws_only.join(", "),
            if throws_only.len() == 1 {
                "closes"
            } else {
                "close"
            }
        ));
    }
    if !truncating.is_empty() {
        extra.push_str(&format!(
            " {} {} plain text but still {} half-JSON to its first value.",
            truncating.join(", "),
            if truncating.len() == 1 {
                "wraps"
            } else {
                "wrap"
            },
            if truncating.len() == 1 { "cuts" } else { "cut" }
        ));
    }
    extra
}

/// What the runaway line adds: the sets under which the turn ran away,
/// per processor. A Gemini conversion failure ends it first under the
/// others, so a fix of that exposes it, and a processor that writes JSON
/// exposes it too.
fn runaway_extra(s: &Survivors) -> String {
    if !s.job.version.has_limits() {
        return runaway_without_limits(s);
    }
    let runaway = |id: &str| -> Vec<&'static str> {
        s.col(id)
            .map(|c| {
                s.job
                    .rows
                    .iter()
                    .filter(|(_, v)| v[c].mark == Mark::Runaway)
                    .map(|(s, _)| s.name)
                    .collect()
            })
            .unwrap_or_default()
    };
    let (spring, json) = (
        runaway("runaway/default-processor"),
        runaway("runaway/json-error-processor"),
    );
    let more: Vec<&'static str> = json
        .iter()
        .copied()
        .filter(|n| !spring.contains(n))
        .collect();
    let mut extra = String::new();
    if !spring.is_empty() {
        extra.push_str(&format!(
            " With Spring's processor it runs away under {}, whose Gemini fix lets the loop go on; under the others \"Failed to parse JSON\" ends it first.",
            spring.join(", ")
        ));
    }
    if !more.is_empty() {
        extra.push_str(&format!(
            " With a JSON-error processor (--processor json-error) it runs away under {} too.",
            more.join(", ")
        ));
    }
    extra
}

/// What the runaway line adds on a version without tool call limits:
/// under which sets a repeating model is called again and again, with
/// nothing to bound it.
fn runaway_without_limits(s: &Survivors) -> String {
    let ran: Vec<&'static str> = s
        .job
        .rows
        .iter()
        .filter(|(_, v)| {
            s.job
                .columns
                .iter()
                .zip(v.iter())
                .any(|(c, x)| c.group == 4 && x.mark == Mark::Runaway)
        })
        .map(|(set, _)| set.name)
        .collect();
    if ran.is_empty() {
        return String::new();
    }
    format!(
        " Spring AI {} has no tool call limits: the model is called again and again under {}.",
        s.job.version,
        names(&s.all, &ran)
    )
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

/// The table's legend: each mark its shown columns hold, in order of
/// first appearance, with its meaning wrapped under itself past the word's
/// column.
fn legend(job: &MainJob, shown: &[usize]) -> String {
    let mut marks = Vec::new();
    let mut seen = BTreeSet::new();
    for (_, vs) in &job.rows {
        for &i in shown {
            if seen.insert(vs[i].mark.word()) {
                marks.push(vs[i].mark);
            }
        }
    }
    let mut out = String::new();
    for m in &marks {
        let meaning = if *m == Mark::NotApplicable {
            not_applicable_meaning(job.version)
        } else {
            m.meaning().to_owned()
        };
        let text = wrap(&meaning, 90);
        for (i, l) in text.lines().enumerate() {
            let word = if i == 0 { m.word() } else { "" };
            out.push_str(&format!("{word:<10}{l}\n"));
        }
    }
    out
}

/// What `n/a` means in the main job's table on `version`: what of the
/// columns' setups the version does not have.
fn not_applicable_meaning(version: SpringAi) -> String {
    format!("not applicable: Spring AI {version} has no tool call limits to breach")
}

/// The header above the table: the version when it is not 2.0.1, the
/// seed, and what every column runs.
fn header(version: SpringAi) -> String {
    let mut out = String::new();
    if let Some(facts) = version_facts(version) {
        out.push_str(&wrap(&format!("{facts}."), 100));
    }
    out.push_str(
        "Seed 000: tool x is limited to 1 call per turn; the model calls it twice in one round.\n",
    );
    out.push_str(if version.loop_in_chat_model() {
        "Every column: Gemini, a ChatClient; the loop GoogleGenAiChatModel's own (inside*: ToolCallAdvisor's).\n\n"
    } else {
        "Every column: Gemini, and a ChatClient that registers ToolCallingAdvisor itself.\n\n"
    });
    out
}

/// The notes under the table: its words, its columns' memory, and the
/// sets not played on the version.
fn footnote(job: &MainJob) -> String {
    let inside = if job.version.loop_in_chat_model() {
        format!(
            "inside*: ToolCallAdvisor added, with MessageChatMemoryAdvisor at its default order, after ToolCallAdvisor's: the memory advisor stands inside that loop (Spring AI {} has no ToolCallingAdvisor).",
            job.version
        )
    } else {
        "inside*: the memory advisor ordered after ToolCallingAdvisor; ChatClient then turns the tool advisor's conversation history off.".to_owned()
    };
    let hidden = if job.version.has_limits() {
        "Columns where every set survives (THROW with no memory or the memory outside, the long \
         turn outside)"
    } else {
        "Columns not shown (THROW with no memory or the memory outside: n/a; the long turn \
         outside: every set survives)"
    };
    let mut out = wrap(
        &format!(
            "+1 round: the breach, then one more tool round before the answer (plain text and tool \
             throws go on one more round too). {inside} Memory: MessageWindowChatMemory, 20 messages. \
             The next turn is built from the memory. {hidden} and the turn that never ends are in \
             --json and the lines below."
        ),
        100,
    );
    if let Some(line) = not_played(job.version, &job.left_out) {
        out.push_str(&wrap(&line, 100));
    }
    out
}

/// The sentence naming the behaviour sets not played on `version` (the
/// second list of [`crate::config::sets_on`]), those of one reason
/// together; `None` when every set is played.
///
/// ```
/// use toolcall_check::config::{not_played, sets_on};
/// use toolcall_model::model::SpringAi;
/// let v = SpringAi::V1_1_2;
/// let line = not_played(v, &sets_on(v).1).unwrap();
/// assert!(line.starts_with("Not played on Spring AI 1.1.2: breach-through-processor, end-turn-after-breach ("));
/// assert_eq!(not_played(SpringAi::V2_0_1, &sets_on(SpringAi::V2_0_1).1), None);
/// ```
pub fn not_played(version: SpringAi, left_out: &[(BehaviorSet, String)]) -> Option<String> {
    let mut groups: Vec<(Vec<&str>, &str)> = Vec::new();
    for (set, why) in left_out {
        match groups.iter_mut().find(|(_, w)| *w == why.as_str()) {
            Some((names, _)) => names.push(set.name),
            None => groups.push((vec![set.name], why)),
        }
    }
    if groups.is_empty() {
        return None;
    }
    let parts: Vec<String> = groups
        .iter()
        .map(|(names, why)| format!("{} ({why})", names.join(", ")))
        .collect();
    Some(format!(
        "Not played on Spring AI {version}: {}. all is played with them: they change nothing there.",
        parts.join("; ")
    ))
}

/// The table: one line per behaviour set, the columns grouped by problem
/// under its header, then the legend and one line per problem naming the
/// sets that close it; at most 100 columns wide.
///
/// ```
/// let t = toolcall_check::config::table(&toolcall_check::config::reproduce());
/// assert!(t.lines().all(|l| l.chars().count() <= 100));
/// assert!(t.lines().any(|l| l.starts_with("upstream ") && l.contains("parse")));
/// assert!(t.contains("Issue 6902's breach"));
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
    let shown: Vec<usize> = (0..job.columns.len())
        .filter(|&i| job.columns[i].in_table)
        .collect();
    // A group's columns share its header's width (a lone column is as
    // wide as its group's header), and each is as wide as its widest
    // word: the table stays within 100 columns with a dozen sets.
    let width = |i: usize| {
        let c = &job.columns[i];
        let n = shown
            .iter()
            .filter(|&&i| job.columns[i].group == c.group)
            .count()
            .max(1);
        let head = GROUPS[c.group].0.iter().map(|h| h.len()).max().unwrap_or(0);
        let words = job
            .rows
            .iter()
            .map(|(_, v)| v[i].mark.word().len())
            .chain(c.head.iter().map(|h| h.len()))
            .max()
            .unwrap_or(0);
        head.div_ceil(n).max(words)
    };
    let mut out = header(job.version);
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
        for (g, (titles, _)) in GROUPS.iter().enumerate() {
            let span: usize = shown
                .iter()
                .filter(|&&i| job.columns[i].group == g)
                .map(|&i| width(i) + 1)
                .sum();
            if span > 0 {
                cells.push((span - 1, titles[k].to_owned()));
            }
        }
        line(cells, "");
    }
    for k in 0..2 {
        let cells = shown
            .iter()
            .map(|&i| (width(i), job.columns[i].head[k].to_owned()))
            .collect();
        line(cells, if k == 1 { "behaviour set" } else { "" });
    }
    for (set, verdicts) in &job.rows {
        let cells = shown
            .iter()
            .map(|&i| (width(i), verdicts[i].mark.word().to_owned()))
            .collect();
        line(cells, set.name);
    }
    out.push('\n');
    out.push_str(&footnote(job));
    out.push_str(&legend(job, &shown));
    out.push('\n');
    for c in conclusion(job) {
        out.push_str(&wrap(&c, 100));
    }
    out.push_str("\nFull texts and each column's assumptions: toolcall-model --json\n");
    out
}
