//! The verdict matrix: every [`Invariant`] under every behaviour set of
//! [`toolcall_model::model::behavior_sets`], each cell a proptest run over generated
//! turns ([`crate::verification::generators::scenario`]), with the shrunk counterexample of every
//! refuted cell printed as a `tool_loop` vector whose `expect` records what
//! the invariant wanted, so that `toolcall-model verify` on it fails and
//! says where.
//!
//! A cell that holds says how many of its cases were applicable (met the
//! invariant's preconditions): "not refuted in N applicable cases" is
//! evidence, not proof. With no refutation in N independent applicable
//! cases, a kind of refuting case that makes up a fraction p of the
//! applicable ones had a chance of at most (1 - p)^N to be missed, so the
//! fraction is below 3/N with 95% confidence (the rule of three). A cell
//! with fewer than `MIN_APPLICABLE` applicable cases (a bound of 3%) says
//! `too few` instead of `holds`. For proofs within a bound, see
//! [`crate::verification::exhaustive`].
//!
//! Each cell draws its cases from a ChaCha generator seeded with the same
//! seed, so a seed reproduces the whole matrix, and every cell of one
//! invariant sees the same turns. This module does no IO and reads no
//! clock; the command line times the cells and draws the progress display.
//!
//! ```
//! use toolcall_check::verification::random::{cells, run_cell, CellOutcome, Options};
//! use toolcall_check::verification::invariants::Invariant;
//! let cell = cells().into_iter()
//!     .find(|c| c.set.name == "upstream" && c.invariant == Invariant::JsonSafe).unwrap();
//! let opts = Options { cases: 300, seed: 1, max_shrink_iters: 32, ..Options::default() };
//! let r = run_cell(&cell, &opts, &|_| {});
//! let CellOutcome::Refuted { counterexample, .. } = &r.outcome else { panic!("upstream breaks json-safe") };
//! // The counterexample is a vector that replays and shows the failure.
//! let v = toolcall_model::vectors::Vector::from_value(counterexample).unwrap();
//! assert!(!v.check().is_empty());
//! ```

use std::cell::Cell as StdCell;

use proptest::test_runner::{Config, RngAlgorithm, TestError, TestRng, TestRunner};
use serde_json::{Map, Value, json};

use crate::verification::generators::{scenario, with_set};
use crate::verification::invariants::{
    Evidence, Invariant, Locus, Verdict, check_scenario, refutation,
};
use crate::verification::scenario::Scenario;
use toolcall_model::chat::{Memory, Provider};
use toolcall_model::model::{BehaviorSet, SpringAi, behavior_sets};
use toolcall_model::vectors::Vector;

/// Fewer applicable cases than this and a cell that was not refuted says
/// `too few` instead of `holds` (see the module doc).
pub(crate) const MIN_APPLICABLE: u32 = 100;

/// How to explore.
///
/// ```
/// assert_eq!(toolcall_check::verification::random::Options::default().cases, 256);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Generated turns per cell.
    pub cases: u32,
    /// The seed of every cell's random generator.
    pub seed: u64,
    /// At most this many shrinking steps per refuted cell.
    pub max_shrink_iters: u32,
    /// The Spring AI version every turn runs on ([`Scenario::on_version`]).
    pub spring_ai: SpringAi,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            cases: 256,
            seed: 0,
            max_shrink_iters: 4096,
            spring_ai: SpringAi::default(),
        }
    }
}

/// One cell of the matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatrixCell {
    /// The behaviour set.
    pub set: BehaviorSet,
    /// The invariant.
    pub invariant: Invariant,
}

/// Every cell, set by set, invariants in docs/INVARIANTS.md's order.
///
/// ```
/// use toolcall_check::verification::invariants::Invariant;
/// use toolcall_model::model::behavior_sets;
/// let cells = toolcall_check::verification::random::cells();
/// assert_eq!(cells.len(), behavior_sets().len() * Invariant::ALL.len());
/// ```
pub fn cells() -> Vec<MatrixCell> {
    cells_for(&behavior_sets())
}

/// Every cell of the given sets (a combination of fixes of one's own
/// beside the named ones), set by set.
pub(crate) fn cells_for(sets: &[BehaviorSet]) -> Vec<MatrixCell> {
    sets.iter()
        .copied()
        .flat_map(|set| {
            Invariant::ALL
                .into_iter()
                .map(move |invariant| MatrixCell { set, invariant })
        })
        .collect()
}

/// What a running cell reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// This many cases have run.
    Cases(u32),
    /// A case failed; this many shrinking steps have run.
    Shrinking(u32),
}

/// How a cell came out.
#[derive(Debug, Clone, PartialEq)]
pub enum CellOutcome {
    /// No generated case refuted the invariant (which says `holds` only with
    /// at least `MIN_APPLICABLE` applicable cases, see
    /// [`CellResult::verdict`]).
    Holds,
    /// Refuted.
    Refuted {
        /// What the invariant wanted, on the shrunk case.
        wanted: String,
        /// The shrunk case as a format-1 `tool_loop` vector.
        counterexample: Value,
        /// Whether running the vector shows a difference from its `expect`.
        replays: bool,
    },
    /// Proptest gave up (for example, the generator failed).
    Aborted(String),
    /// No turn on the version meets the invariant's precondition
    /// ([`Invariant::arises_on`]): why. No case is run.
    NotApplicable(String),
}

/// The result of one cell.
#[derive(Debug, Clone, PartialEq)]
pub struct CellResult {
    /// The behaviour set's name.
    pub set: &'static str,
    /// The invariant.
    pub invariant: Invariant,
    /// Generated cases evaluated (the failing one included).
    pub cases_run: u32,
    /// Of those, the ones that met the invariant's preconditions and held.
    pub applicable: u32,
    /// Shrinking steps run.
    pub shrink_steps: u32,
    /// How it came out.
    pub outcome: CellOutcome,
}

impl CellResult {
    /// `holds` (not refuted, with at least `MIN_APPLICABLE` applicable
    /// cases), `too-few` (not refuted, but fewer applicable cases),
    /// `refuted`, `aborted` or `n/a` (the precondition cannot arise on the
    /// version).
    ///
    /// ```
    /// use toolcall_check::verification::{random::{CellOutcome, CellResult}, invariants::Invariant};
    /// let mut r = CellResult { set: "all", invariant: Invariant::Limits, cases_run: 2000, applicable: 468, shrink_steps: 0, outcome: CellOutcome::Holds };
    /// assert_eq!(r.verdict(), "holds");
    /// r.applicable = 12;
    /// assert_eq!(r.verdict(), "too-few");
    /// ```
    pub fn verdict(&self) -> &'static str {
        match self.outcome {
            CellOutcome::Holds if self.applicable < MIN_APPLICABLE => "too-few",
            CellOutcome::Holds => "holds",
            CellOutcome::Refuted { .. } => "refuted",
            CellOutcome::Aborted(_) => "aborted",
            CellOutcome::NotApplicable(_) => "n/a",
        }
    }
}

/// Why `invariant` does not arise on `version`, or `None` where it does.
///
/// ```
/// use toolcall_check::verification::{random::not_arising, invariants::Invariant};
/// use toolcall_model::model::SpringAi;
/// assert!(not_arising(Invariant::TurnEnds, SpringAi::V1_1_2).unwrap().contains("no tool call limits"));
/// assert_eq!(not_arising(Invariant::TurnEnds, SpringAi::V2_0_1), None);
/// ```
pub fn not_arising(invariant: Invariant, version: SpringAi) -> Option<String> {
    (!invariant.arises_on(version)).then(|| {
        format!(
            "Spring AI {version} has no tool call limits: no turn meets the precondition of {invariant}"
        )
    })
}

/// The ChaCha generator every cell starts from for `seed`.
///
/// ```
/// use proptest::strategy::{Strategy, ValueTree};
/// use proptest::test_runner::{Config, TestRunner};
/// let draw = |seed| {
///     let mut r = TestRunner::new_with_rng(Config::default(), toolcall_check::verification::random::rng(seed));
///     (0u64..u64::MAX).new_tree(&mut r).unwrap().current()
/// };
/// assert_eq!(draw(7), draw(7));
/// assert_ne!(draw(7), draw(8));
/// ```
pub fn rng(seed: u64) -> TestRng {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes[8..].copy_from_slice(b"toolcall-model explore matrix\0\0\0"[..24].as_ref());
    TestRng::from_seed(RngAlgorithm::ChaCha, &bytes)
}

/// The proptest configuration of a cell: `cases` cases, no failure
/// persistence, bounded shrinking.
///
/// ```
/// let c = toolcall_check::verification::random::config(&Default::default());
/// assert!(c.failure_persistence.is_none());
/// ```
pub fn config(opts: &Options) -> Config {
    Config {
        cases: opts.cases,
        max_shrink_iters: opts.max_shrink_iters,
        max_shrink_time: 0,
        failure_persistence: None,
        max_local_rejects: 65_536,
        max_global_rejects: 65_536,
        // proptest has no fork nor timeout for WebAssembly (check/Cargo.toml).
        #[cfg(not(target_family = "wasm"))]
        fork: false,
        #[cfg(not(target_family = "wasm"))]
        timeout: 0,
        verbose: 0,
        source_file: None,
        test_name: None,
        ..Config::default()
    }
}

/// Runs one cell: `opts.cases` generated turns under the cell's set, judged
/// by its invariant; on a refutation, the shrunk turn as a vector.
/// `progress` is called every few cases.
pub fn run_cell(cell: &MatrixCell, opts: &Options, progress: &dyn Fn(Progress)) -> CellResult {
    if let Some(why) = not_arising(cell.invariant, opts.spring_ai) {
        return CellResult {
            set: cell.set.name,
            invariant: cell.invariant,
            cases_run: 0,
            applicable: 0,
            shrink_steps: 0,
            outcome: CellOutcome::NotApplicable(why),
        };
    }
    let mut runner = TestRunner::new_with_rng(config(opts), rng(opts.seed));
    let cases = StdCell::new(0u32);
    let applicable = StdCell::new(0u32);
    let shrinks = StdCell::new(0u32);
    let failed = StdCell::new(false);
    let result = runner.run(&scenario(), |s| {
        let s = with_set(&s.on_version(opts.spring_ai), &cell.set);
        let verdict = check_scenario(cell.invariant, &s);
        if failed.get() {
            shrinks.set(shrinks.get() + 1);
            if shrinks.get().is_multiple_of(16) {
                progress(Progress::Shrinking(shrinks.get()));
            }
        } else {
            cases.set(cases.get() + 1);
            if cases.get().is_multiple_of(16) {
                progress(Progress::Cases(cases.get()));
            }
        }
        match verdict {
            Verdict::Holds => {
                if !failed.get() {
                    applicable.set(applicable.get() + 1);
                }
                Ok(())
            }
            Verdict::NotApplicable => Ok(()),
            Verdict::Refuted(w) => {
                failed.set(true);
                Err(proptest::test_runner::TestCaseError::fail(w))
            }
        }
    });
    let outcome = match result {
        Ok(()) => CellOutcome::Holds,
        Err(TestError::Fail(reason, value)) => {
            let s = with_set(&value.on_version(opts.spring_ai), &cell.set);
            let found_by = format!(
                "`toolcall-model explore --cases {} --seed {}{}`",
                opts.cases,
                opts.seed,
                version_flag(opts.spring_ai)
            );
            match counterexample_vector(cell, &s, &found_by) {
                Some((counterexample, wanted, replays)) => CellOutcome::Refuted {
                    wanted,
                    counterexample,
                    replays,
                },
                None => CellOutcome::Refuted {
                    wanted: reason.to_string(),
                    counterexample: s.to_vector(
                        &vector_name(cell),
                        &format!("(the shrunk case no longer refutes the invariant on a rerun: {reason})"),
                        json!({ "refuted": "see about: the shrunk case no longer refutes the invariant on a rerun" }),
                    ),
                    replays: false,
                },
            }
        }
        Err(TestError::Abort(reason)) => CellOutcome::Aborted(reason.to_string()),
    };
    CellResult {
        set: cell.set.name,
        invariant: cell.invariant,
        cases_run: cases.get(),
        applicable: applicable.get(),
        shrink_steps: shrinks.get(),
        outcome,
    }
}

/// Runs every cell in order (the command line runs them in parallel).
pub fn explore(opts: &Options, progress: &dyn Fn(usize, Progress)) -> Vec<CellResult> {
    cells()
        .iter()
        .enumerate()
        .map(|(i, c)| run_cell(c, opts, &|p| progress(i, p)))
        .collect()
}

/// ` --spring-ai V` for a version other than 2.0.1, else nothing: what a
/// command line adds to run on it.
pub(crate) fn version_flag(version: SpringAi) -> String {
    if version == SpringAi::default() {
        String::new()
    } else {
        format!(" --spring-ai {version}")
    }
}

fn vector_name(cell: &MatrixCell) -> String {
    format!("explore-{}-{}", cell.set.name, cell.invariant.name())
}

/// What `toolcall-model run` prints for the scenario, or `None`.
fn actual_output(s: &Scenario) -> Option<Value> {
    Vector::from_value(&s.to_vector("x", "", json!({})))
        .ok()?
        .run()
        .ok()
}

/// Builds the counterexample vector for a refuted cell: the scenario (under
/// the cell's set), an `about` saying who found it (`found_by`) and what was
/// wanted, and an `expect` holding, at the place where the run shows the
/// failure, what the invariant wanted there; where the run cannot show it,
/// an `expect` with a key no run produces, so that the vector fails under
/// every set and its `about` says why. Returns the vector, the wanted text,
/// and whether `verify` on the vector fails. `None` if the scenario does not
/// refute the cell's invariant.
pub(crate) fn counterexample_vector(
    cell: &MatrixCell,
    s: &Scenario,
    found_by: &str,
) -> Option<(Value, String, bool)> {
    let ev = Evidence::gather(s).ok()?;
    let r = refutation(cell.invariant, &ev)?;
    let (used, expect, note) = expect_for(s, &r.locus);
    let about = format!(
        "Found by {found_by}: under {}, {} ({}) is refuted. Wanted: {}.{}",
        cell.set.name,
        cell.invariant.name(),
        cell.invariant.statement(),
        r.wanted,
        note
    );
    let v = used.to_vector(&vector_name(cell), &about, expect);
    let replays = Vector::from_value(&v).is_ok_and(|x| !x.check().is_empty());
    Some((v, r.wanted, replays))
}

fn expect_for(s: &Scenario, locus: &Locus) -> (Scenario, Value, &'static str) {
    let generic = |s: &Scenario| {
        (
            s.clone(),
            json!({ "refuted": "see about: the run does not show this invariant's failure in the vector output" }),
            "",
        )
    };
    let edits: Vec<(String, Value)> = match locus {
        Locus::OutcomeError => vec![("/outcome/error".into(), Value::Null)],
        Locus::MemoryApi => vec![("/memory/api".into(), json!({"accepted": true}))],
        Locus::Api => vec![("/api".into(), json!({"accepted": true}))],
        Locus::Payload {
            request,
            content,
            part,
            wanted,
            ..
        } => vec![(
            format!(
                "/requests/{request}/contents/{content}/parts/{part}/functionResponse/response"
            ),
            wanted.clone(),
        )],
        Locus::Invocations(list) => vec![(
            "/invocations".into(),
            Value::Array(
                list.iter()
                    .map(|i| json!({"tool": i.tool, "arguments": i.arguments}))
                    .collect(),
            ),
        )],
        Locus::Text { data, wanted } => {
            // The emitted text surfaces in generations, in memory, or (with
            // provider none) in the requests; the manager's output does not
            // depend on either switch, so try them in turn.
            let mut variants = vec![(s.clone(), "")];
            let mut none = s.clone();
            none.config.provider = Provider::None;
            variants.push((none.clone(), " The vector uses provider none so that the emitted response shows in the requests; the manager's output does not depend on the provider."));
            let mut inside = none;
            inside.config.memory = Memory::Inside;
            variants.push((inside, " The vector uses provider none and a memory inside the loop so that the emitted response shows; the manager's output depends on neither."));
            for (v, note) in variants {
                let Some(actual) = actual_output(&v) else {
                    continue;
                };
                let mut found = Vec::new();
                find_text(&actual, data, &mut String::new(), &mut found);
                if !found.is_empty() {
                    let edits: Vec<(String, Value)> = found
                        .into_iter()
                        .map(|p| (p, Value::String(wanted.clone())))
                        .collect();
                    return (v, skeleton(&actual, &edits), note);
                }
            }
            return generic(s);
        }
        Locus::Unlocated => return generic(s),
    };
    match actual_output(s) {
        Some(actual) => (s.clone(), skeleton(&actual, &edits), ""),
        None => generic(s),
    }
}

fn escape_token(t: &str) -> String {
    t.replace('~', "~0").replace('/', "~1")
}

/// JSON pointers of every `data` or `text` string equal to `needle`.
fn find_text(v: &Value, needle: &str, path: &mut String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let len = path.len();
                path.push('/');
                path.push_str(&escape_token(k));
                if (k == "data" || k == "text") && x.as_str() == Some(needle) {
                    out.push(path.clone());
                } else {
                    find_text(x, needle, path, out);
                }
                path.truncate(len);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                let len = path.len();
                path.push('/');
                path.push_str(&i.to_string());
                find_text(x, needle, path, out);
                path.truncate(len);
            }
        }
        _ => {}
    }
}

/// A stand-in that matches anything of the same shape: `{}` for objects,
/// arrays of stand-ins, scalars as they are.
fn placeholder(v: &Value) -> Value {
    match v {
        Value::Object(_) => Value::Object(Map::new()),
        Value::Array(a) => Value::Array(a.iter().map(placeholder).collect()),
        other => other.clone(),
    }
}

/// The smallest `expect` that holds `actual` with `edits` applied: only the
/// keys on an edited path, arrays at full length with stand-ins elsewhere.
fn skeleton(actual: &Value, edits: &[(String, Value)]) -> Value {
    let split: Vec<(Vec<String>, &Value)> = edits
        .iter()
        .map(|(p, v)| {
            let tokens = p
                .split('/')
                .skip(1)
                .map(|t| t.replace("~1", "/").replace("~0", "~"))
                .collect();
            (tokens, v)
        })
        .collect();
    build(
        actual,
        &split.iter().map(|(t, v)| (&t[..], *v)).collect::<Vec<_>>(),
    )
}

fn build(actual: &Value, edits: &[(&[String], &Value)]) -> Value {
    if let Some((_, v)) = edits.iter().find(|(p, _)| p.is_empty()) {
        return (*v).clone();
    }
    match actual {
        Value::Array(a) => Value::Array(
            a.iter()
                .enumerate()
                .map(|(i, x)| {
                    let sub: Vec<(&[String], &Value)> = edits
                        .iter()
                        .filter(|(p, _)| p[0] == i.to_string())
                        .map(|(p, v)| (&p[1..], *v))
                        .collect();
                    if sub.is_empty() {
                        placeholder(x)
                    } else {
                        build(x, &sub)
                    }
                })
                .collect(),
        ),
        _ => {
            let mut m = Map::new();
            for (p, _) in edits {
                let key = &p[0];
                if m.contains_key(key) {
                    continue;
                }
                let sub: Vec<(&[String], &Value)> = edits
                    .iter()
                    .filter(|(q, _)| &q[0] == key)
                    .map(|(q, v)| (&q[1..], *v))
                    .collect();
                let child = actual.get(key).unwrap_or(&Value::Null);
                m.insert(key.clone(), build(child, &sub));
            }
            Value::Object(m)
        }
    }
}

/// The matrix as one JSON object:
/// `{"mode": "random", "cases": N, "seed": S, "min_applicable": 100,
/// "results": [{"set", "invariant", "verdict", "cases_run", "applicable",
/// "precondition", "wanted", "counterexample"}]}`. `verdict` is `holds`,
/// `too-few`, `refuted` or `aborted` ([`CellResult::verdict`]).
pub(crate) fn to_json(opts: &Options, results: &[CellResult]) -> Value {
    let mut v = json!({
        "mode": "random",
        "cases": opts.cases,
        "seed": opts.seed,
        "min_applicable": MIN_APPLICABLE,
        "results": results.iter().map(|r| {
            let (wanted, cx) = match &r.outcome {
                CellOutcome::Refuted { wanted, counterexample, .. } => (json!(wanted), counterexample.clone()),
                CellOutcome::Aborted(why) | CellOutcome::NotApplicable(why) => (json!(why), Value::Null),
                CellOutcome::Holds => (Value::Null, Value::Null),
            };
            json!({
                "set": r.set,
                "invariant": r.invariant.name(),
                "verdict": r.verdict(),
                "cases_run": r.cases_run,
                "applicable": r.applicable,
                "precondition": r.invariant.precondition(),
                "wanted": wanted,
                "counterexample": cx,
            })
        }).collect::<Vec<_>>(),
    });
    if opts.spring_ai != SpringAi::default() {
        v["spring_ai"] = json!(opts.spring_ai.name());
        v["left_out"] = left_out_value(opts.spring_ai);
    }
    v
}

/// The behaviour sets not played on `version`, each with why, as JSON.
pub(crate) fn left_out_value(version: SpringAi) -> Value {
    crate::config::sets_on(version)
        .1
        .iter()
        .map(|(s, why)| json!({ "set": s.name, "why": why }))
        .collect()
}

/// The line saying which sets are not played on `version` (none on 2.0.1).
pub(crate) fn left_out_line(version: SpringAi) -> String {
    crate::config::not_played(version, &crate::config::sets_on(version).1)
        .map(|l| l + "\n")
        .unwrap_or_default()
}

/// A count for a table cell: exact below 100,000, else in thousands or
/// millions with three significant digits.
pub(crate) fn compact(n: u64) -> String {
    if n < 100_000 {
        n.to_string()
    } else if n < 1_000_000 {
        format!("{}k", n / 1000)
    } else if n < 10_000_000 {
        format!("{:.2}M", n as f64 / 1e6)
    } else if n < 100_000_000 {
        format!("{:.1}M", n as f64 / 1e6)
    } else {
        format!("{}M", n / 1_000_000)
    }
}

/// The matrix as a table: invariants down, behaviour sets across, the
/// text `cell(set, invariant)` gives in each cell (`-` for none).
pub(crate) fn table(cell: &dyn Fn(&str, Invariant) -> Option<String>) -> String {
    let names: Vec<&str> = behavior_sets().iter().map(|s| s.name).collect();
    table_of(&names, cell)
}

/// [`table`] for the sets named, in that order.
pub(crate) fn table_of(sets: &[&str], cell: &dyn Fn(&str, Invariant) -> Option<String>) -> String {
    struct Named<'a> {
        name: &'a str,
    }
    let sets: Vec<Named<'_>> = sets.iter().map(|name| Named { name }).collect();
    let w0 = Invariant::ALL
        .iter()
        .map(|i| i.name().len())
        .max()
        .unwrap_or(0)
        .max("invariant".len());
    let texts: Vec<Vec<String>> = Invariant::ALL
        .iter()
        .map(|&inv| {
            sets.iter()
                .map(|s| cell(s.name, inv).unwrap_or_else(|| "-".to_owned()))
                .collect()
        })
        .collect();
    let widths: Vec<usize> = sets
        .iter()
        .enumerate()
        .map(|(j, s)| {
            texts
                .iter()
                .map(|row| row[j].chars().count())
                .max()
                .unwrap_or(0)
                .max(s.name.len())
        })
        .collect();
    let mut out = format!("{:<w0$}", "invariant");
    for (s, w) in sets.iter().zip(&widths) {
        out.push_str(&format!("  {:<w$}", s.name));
    }
    out = out.trim_end().to_owned();
    out.push('\n');
    for (inv, row) in Invariant::ALL.iter().zip(&texts) {
        let mut line = format!("{:<w0$}", inv.name());
        for (t, w) in row.iter().zip(&widths) {
            line.push_str(&format!("  {t:<w$}"));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Prints a counterexample vector indented under its cell, with how to
/// replay it.
pub(crate) fn push_counterexample(out: &mut String, counterexample: &Value, replays: bool) {
    // The matrix stays readable: the vector itself goes to a file
    // (`--out DIR`) or to `--json`, not into the text.
    let file = counterexample_file(counterexample);
    if let Some(version) = fixed_on_another_version(counterexample) {
        out.push_str(&format!("  counterexample {file} (`--out DIR` writes it, to read: a vector of Spring AI {version} is upstream (docs/VECTORS.md), so `toolcall-model verify` refuses one under fixes)\n"));
        return;
    }
    out.push_str(&if replays {
        format!("  counterexample {file} (`--out DIR` writes it; `toolcall-model verify FILE.json` shows the refutation, `toolcall-model run FILE.json` the whole run)\n")
    } else {
        format!("  counterexample {file} (`--out DIR` writes it; its expect cannot show this invariant's failure, see about; `toolcall-model verify FILE.json` fails on it under every set)\n")
    });
}

/// The version of a counterexample under fixes on a version other than
/// 2.0.1, which the vector format refuses (a vector of another version is
/// upstream, `toolcall_model::vectors`); `None` for one it reads.
fn fixed_on_another_version(counterexample: &Value) -> Option<&str> {
    let fixed = counterexample["fixes"]
        .as_array()
        .is_some_and(|f| !f.is_empty());
    counterexample["spring_ai"].as_str().filter(|_| fixed)
}

/// The file name a counterexample vector is written under: its `name`,
/// with any character other than letters, digits, `-`, `_`, `+` and `.`
/// made `_`, and `.json`.
pub(crate) fn counterexample_file(counterexample: &Value) -> String {
    let name: String = counterexample["name"]
        .as_str()
        .unwrap_or("counterexample")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '+' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{}.json", name.trim_start_matches('.'))
}

/// `, on Spring AI V` for a version other than 2.0.1, else nothing.
pub(crate) fn on_version(version: SpringAi) -> String {
    if version == SpringAi::default() {
        String::new()
    } else {
        format!(", on Spring AI {version}")
    }
}

/// The text of one cell in the table: `holds A/N`, `too few A/N`,
/// `REFUTED` or `aborted`, where A is the applicable cases and N the cases
/// run.
pub(crate) fn cell_text(r: &CellResult) -> String {
    match r.verdict() {
        "holds" => format!(
            "holds {}/{}",
            compact(r.applicable.into()),
            compact(r.cases_run.into())
        ),
        "too-few" => format!(
            "too few {}/{}",
            compact(r.applicable.into()),
            compact(r.cases_run.into())
        ),
        "refuted" => "REFUTED".to_owned(),
        other => other.to_owned(),
    }
}

/// The matrix as text: a table (invariants down, sets across) whose cells
/// give each verdict with its applicable and run cases, then each cell's
/// verdict in words, with the counterexample vector of every refuted one.
pub(crate) fn to_text(opts: &Options, results: &[CellResult]) -> String {
    // The sets the results cover, in their order (the named ones when
    // there is none yet).
    let mut names: Vec<&str> = Vec::new();
    for r in results {
        if !names.contains(&r.set) {
            names.push(r.set);
        }
    }
    if names.is_empty() {
        names = behavior_sets().iter().map(|s| s.name).collect();
    }
    let sets = &names;
    let mut out = format!(
        "toolcall-model explore: {} invariants under {} behaviour sets, {} random cases per cell, seed {}{}\n\
         A cell shows its verdict and applicable/run cases. `holds` means not refuted in that many applicable cases \
         (evidence, not proof: a refuting kind of case below 3/applicable of them may be missed, 95% confidence); \
         fewer than {MIN_APPLICABLE} applicable cases say `too few`. `--exhaustive` proves within a bound.\n\n",
        Invariant::ALL.len(),
        sets.len(),
        opts.cases,
        opts.seed,
        on_version(opts.spring_ai)
    );
    out.push_str(&left_out_line(opts.spring_ai));
    if opts.spring_ai != SpringAi::default() {
        out.push('\n');
    }
    out.push_str(&table_of(&names, &|set, inv| {
        results
            .iter()
            .find(|r| r.set == set && r.invariant == inv)
            .map(cell_text)
    }));
    out.push('\n');
    for r in results {
        match (&r.outcome, r.verdict()) {
            (CellOutcome::Holds, "too-few") => out.push_str(&format!(
                "{} × {}: too few applicable cases to say holds: {} of {} met the precondition ({}); fewer than {MIN_APPLICABLE}\n",
                r.set, r.invariant, r.applicable, r.cases_run, r.invariant.precondition()
            )),
            (CellOutcome::Holds, _) => out.push_str(&format!(
                "{} × {}: holds: not refuted in {} applicable cases of {}\n",
                r.set, r.invariant, r.applicable, r.cases_run
            )),
            (CellOutcome::Aborted(why), _) => out.push_str(&format!(
                "{} × {}: aborted after {} cases: {why}\n",
                r.set, r.invariant, r.cases_run
            )),
            (CellOutcome::NotApplicable(why), _) => {
                out.push_str(&format!("{} × {}: n/a: {why}\n", r.set, r.invariant));
            }
            (
                CellOutcome::Refuted {
                    wanted,
                    counterexample,
                    replays,
                },
                _,
            ) => {
                out.push_str(&format!(
                    "{} × {}: refuted at case {} (shrunk in {} steps)\n  wanted: {wanted}\n",
                    r.set, r.invariant, r.cases_run, r.shrink_steps,
                ));
                push_counterexample(&mut out, counterexample, *replays);
            }
        }
    }
    out
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.

    #[test]
    fn example_cells_for() {
        use toolcall_model::model::{BehaviorSet, Fix, Fixes};
        let mine = BehaviorSet {
            name: "mine",
            fixes: Fixes::only(Fix::ErrorKey).with(Fix::CloseDanglingCalls),
            gemini_tool_text: false,
        };
        let invariants = crate::verification::invariants::Invariant::ALL.len();
        assert_eq!(
            crate::verification::random::cells_for(&[mine]).len(),
            invariants
        );
    }

    #[test]
    fn example_to_json() {
        let v = crate::verification::random::to_json(&Default::default(), &[]);
        assert_eq!(v["cases"], 256);
        assert_eq!(v["mode"], "random");
    }

    #[test]
    fn example_counterexample_file() {
        let v = serde_json::json!({"name": "explore-upstream-json-safe"});
        assert_eq!(
            crate::verification::random::counterexample_file(&v),
            "explore-upstream-json-safe.json"
        );
    }

    #[test]
    fn example_to_text() {
        let t = crate::verification::random::to_text(&Default::default(), &[]);
        assert!(t.contains("json-safe"));
    }
    #[test]
    fn example_min_applicable() {
        assert_eq!(crate::verification::random::MIN_APPLICABLE, 100);
    }

    #[test]
    fn example_counterexample_vector() {
        use crate::verification::invariants::Invariant;
        use crate::verification::random::cells;
        use crate::verification::random::counterexample_vector;
        use crate::verification::scenario::Scenario;
        use toolcall_model::chat::LoopConfig;
        use toolcall_model::model::Generation;
        use toolcall_model::model::Message;
        let cell = cells()
            .into_iter()
            .find(|c| c.set.name == "all" && c.invariant == Invariant::Limits)
            .unwrap();
        let s = Scenario {
            config: LoopConfig::new(Default::default()),
            tools: vec![],
            history: vec![Message::user("hi")],
            model: vec![vec![Generation::default()]],
        };
        assert!(counterexample_vector(&cell, &s, "a test").is_none()); // nothing to refute
    }

    #[test]
    fn example_compact() {
        use crate::verification::random::compact;
        assert_eq!(compact(2000), "2000");
        assert_eq!(compact(468_123), "468k");
        assert_eq!(compact(1_234_567), "1.23M");
    }

    #[test]
    fn example_table_of() {
        use crate::verification::random::table_of;
        let t = table_of(&["upstream", "mine"], &|set, _| Some(format!("{set}!")));
        assert!(t.starts_with("invariant") && t.contains("mine!"));
    }

    #[test]
    fn example_cell_text() {
        use crate::verification::{
            invariants::Invariant,
            random::{CellOutcome, CellResult, cell_text},
        };
        let r = CellResult {
            set: "all",
            invariant: Invariant::JsonSafe,
            cases_run: 2000,
            applicable: 468,
            shrink_steps: 0,
            outcome: CellOutcome::Holds,
        };
        assert_eq!(cell_text(&r), "holds 468/2000");
    }

    #[test]
    fn example_table() {
        let t = crate::verification::random::table(&|_, _| Some("holds 1/1".to_owned()));
        assert!(
            t.lines()
                .nth(1)
                .unwrap()
                .starts_with("one-response-per-call")
        );
    }
}
