//! What a run proves: a cell per behaviour set and invariant, as text and
//! as JSON.

use serde_json::{Value, json};

use crate::verification::invariants::Invariant;
use toolcall_model::model::behavior_sets;

use super::bound::Bound;

/// How a cell came out.
#[derive(Debug, Clone, PartialEq)]
pub enum Proof {
    /// No scenario of the bound refutes it.
    Proved,
    /// Refuted; the first counterexample in order of size.
    Refuted {
        /// Its size (`Space::size`).
        size: usize,
        /// Its global index.
        index: u64,
        /// What the invariant wanted.
        wanted: String,
        /// The counterexample as a vector.
        counterexample: Value,
        /// Whether `verify` on the vector shows the failure.
        replays: bool,
    },
    /// Not applicable on the run's version: the invariant cannot arise
    /// there, or the set is not played there ([`crate::config::sets_on`]);
    /// why.
    NotApplicable(String),
}

/// One cell of the exhaustive matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct CellProof {
    /// The behaviour set's name.
    pub set: &'static str,
    /// The invariant.
    pub invariant: Invariant,
    /// Scenarios judged (all of the bound's when proved).
    pub scenarios: u64,
    /// Of those, the ones that met the invariant's preconditions.
    pub applicable: u64,
    /// How it came out.
    pub proof: Proof,
}

impl CellProof {
    /// `proved`, `vacuous` (proved, but no scenario of the bound is
    /// applicable), `refuted` or `n/a` (not applicable on the version).
    pub(crate) fn verdict(&self) -> &'static str {
        match self.proof {
            Proof::Proved if self.applicable == 0 => "vacuous",
            Proof::Proved => "proved",
            Proof::Refuted { .. } => "refuted",
            Proof::NotApplicable(_) => "n/a",
        }
    }
}

/// The result of an exhaustive run.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// The bound.
    pub bound: Bound,
    /// The Spring AI version every scenario ran on.
    pub version: toolcall_model::model::SpringAi,
    /// Scenarios in the bound.
    pub scenarios: u64,
    /// Scenarios run (one per symmetry class).
    pub evaluated: u64,
    /// Every cell, set by set, invariants in order.
    pub cells: Vec<CellProof>,
}

impl Report {
    /// The cell for `set` and `invariant`.
    pub fn cell(&self, set: &str, invariant: Invariant) -> Option<&CellProof> {
        self.cells
            .iter()
            .find(|c| c.set == set && c.invariant == invariant)
    }

    /// The report as text: the bound, a table whose cells say `proved A/N`
    /// (A applicable of N scenarios), `vacuous 0/N` or `REFUTED (size S)`,
    /// then each cell in words: `proved (N scenarios, bound B)` or its
    /// first counterexample in order of size, as a vector.
    pub(crate) fn to_text(&self) -> String {
        let sets = behavior_sets();
        let mut out = format!(
            "toolcall-model explore --exhaustive: {} invariants under {} behaviour sets, every scenario of bound {}{}: \
             {} scenarios ({} run, the rest their mirror images with tools a and b swapped)\n",
            Invariant::ALL.len(),
            sets.len(),
            self.bound.name,
            crate::verification::random::on_version(self.version),
            self.scenarios,
            self.evaluated
        );
        for line in self.bound.describe().lines() {
            out.push_str("  ");
            out.push_str(line);
            out.push('\n');
        }
        out.push_str(
            "A cell shows `proved A/N`: no scenario of the bound refutes it, A of its N scenarios met the precondition; \
             `REFUTED (size S)`: the smallest counterexample has size S.\n",
        );
        out.push_str(&crate::verification::random::left_out_line(self.version));
        out.push('\n');
        out.push_str(&crate::verification::random::table(&|set, inv| {
            self.cell(set, inv).map(|c| match &c.proof {
                Proof::Proved => format!(
                    "{} {}/{}",
                    c.verdict(),
                    crate::verification::random::compact(c.applicable),
                    crate::verification::random::compact(c.scenarios)
                ),
                Proof::Refuted { size, .. } => format!("REFUTED (size {size})"),
                Proof::NotApplicable(_) => "n/a".to_owned(),
            })
        }));
        out.push('\n');
        for c in &self.cells {
            match &c.proof {
                Proof::Proved if c.applicable == 0 => out.push_str(&format!(
                    "{} × {}: vacuous: no scenario of bound {} meets the precondition ({})\n",
                    c.set,
                    c.invariant,
                    self.bound.name,
                    c.invariant.precondition()
                )),
                Proof::Proved => out.push_str(&format!(
                    "{} × {}: proved ({} scenarios, bound {}; {} applicable)\n",
                    c.set, c.invariant, c.scenarios, self.bound.name, c.applicable
                )),
                Proof::NotApplicable(why) => {
                    out.push_str(&format!("{} × {}: n/a: {why}\n", c.set, c.invariant));
                }
                Proof::Refuted {
                    size,
                    index,
                    wanted,
                    counterexample,
                    replays,
                } => {
                    out.push_str(&format!(
                        "{} × {}: refuted; the first counterexample in order of size is scenario {index} (size {size})\n  wanted: {wanted}\n",
                        c.set, c.invariant
                    ));
                    crate::verification::random::push_counterexample(
                        &mut out,
                        counterexample,
                        *replays,
                    );
                }
            }
        }
        out
    }

    /// The report as JSON: `{"mode": "exhaustive", "bound": {...},
    /// "scenarios", "evaluated", "results": [{"set", "invariant", "verdict",
    /// "scenarios", "applicable", "precondition", "size", "wanted",
    /// "counterexample"}]}`; `verdict` is `proved`, `vacuous` or `refuted`.
    pub(crate) fn to_json(&self) -> Value {
        let mut v = json!({
            "mode": "exhaustive",
            "bound": self.bound.to_json(),
            "scenarios": self.scenarios,
            "evaluated": self.evaluated,
            "results": self.cells.iter().map(|c| {
                let (size, wanted, cx) = match &c.proof {
                    Proof::Proved => (Value::Null, Value::Null, Value::Null),
                    Proof::NotApplicable(why) => (Value::Null, json!(why), Value::Null),
                    Proof::Refuted { size, wanted, counterexample, .. } => (json!(size), json!(wanted), counterexample.clone()),
                };
                json!({
                    "set": c.set,
                    "invariant": c.invariant.name(),
                    "verdict": c.verdict(),
                    "scenarios": c.scenarios,
                    "applicable": c.applicable,
                    "precondition": c.invariant.precondition(),
                    "size": size,
                    "wanted": wanted,
                    "counterexample": cx,
                })
            }).collect::<Vec<_>>(),
        });
        if self.version != toolcall_model::model::SpringAi::default() {
            v["spring_ai"] = json!(self.version.name());
            v["left_out"] = crate::verification::random::left_out_value(self.version);
        }
        v
    }
}
