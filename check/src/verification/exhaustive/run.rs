//! Running a space: the workers, the shards, the sets a scenario
//! evaluates once, and the first counterexample of each refuted cell.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::json;

use crate::verification::footprint::{Alike, Conversions, Footprint};
use crate::verification::generators::with_set;
use crate::verification::invariants::{
    Evidence, Invariant, Replays, Verdict, check, check_as, stream_as_call_against, through_call,
};
use crate::verification::random::{MatrixCell, counterexample_vector};
use crate::verification::scenario::Scenario;
use toolcall_model::chat::Memory;
use toolcall_model::model::{Acts, BehaviorSet, Fix, Fixes, behavior_sets};

use super::report::{CellProof, Proof, Report};
use super::space::Space;

pub(super) const NONE: u64 = u64::MAX;

/// The bits of a key that hold the scenario's index.
const INDEX_BITS: u32 = 44;

/// A scenario's key: its size, then its index, as one ordered number.
pub(super) fn key(size: usize, index: u64) -> u64 {
    ((size as u64) << INDEX_BITS) | index
}

/// The (size, index) a [`key`] holds.
fn unkey(k: u64) -> (usize, u64) {
    ((k >> INDEX_BITS) as usize, k & ((1 << INDEX_BITS) - 1))
}

/// Items handed to a worker at a time.
const CHUNK: u64 = 64;

/// Runs every scenario of `space` under every behaviour set on `jobs`
/// threads, judging every invariant. `progress(done, total)` is called as
/// items finish (from worker threads). When the system refuses a thread,
/// the ones started do the work (the report does not depend on how many);
/// when it refuses the first, the error says so.
pub fn run(
    space: &Space,
    jobs: usize,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Report, String> {
    Ok(finish(
        space,
        &run_part(space, Shard::WHOLE, jobs, progress)?,
    ))
}

/// Which blocks of the space a run covers: shard `k` of `n` (1-based)
/// runs the blocks of 64 scenarios (`CHUNK`) whose number is `k - 1` modulo
/// `n`, so that every shard gets small and large scenarios alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This shard, from 1 to `n`.
    pub k: u64,
    /// Shards in all.
    pub n: u64,
}

impl Shard {
    /// The whole space: shard 1 of 1.
    pub const WHOLE: Shard = Shard { k: 1, n: 1 };

    /// Reads `K/N` with 1 <= K <= N.
    ///
    /// ```
    /// use toolcall_check::verification::exhaustive::Shard;
    /// assert_eq!(Shard::parse("2/3"), Ok(Shard { k: 2, n: 3 }));
    /// assert!(Shard::parse("0/3").is_err() && Shard::parse("4/3").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("'{text}' is not a shard K/N with 1 <= K <= N");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let k: u64 = k.trim().parse().map_err(|_| bad())?;
        let n: u64 = n.trim().parse().map_err(|_| bad())?;
        if k == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }

    /// The worker threads a run of this shard starts when asked for
    /// `jobs`: at least one, and no more than the shard has blocks to hand
    /// out, since a thread with no block only costs its stack (`--jobs
    /// 100000` on the tiny bound once started every one of them, and took
    /// 14 s where 0.1 s does).
    pub fn workers(&self, space: &Space, jobs: usize) -> usize {
        let blocks = self.scenarios(space).div_ceil(CHUNK);
        jobs.clamp(1, usize::try_from(blocks).unwrap_or(usize::MAX).max(1))
    }

    /// The scenarios of `space` this shard covers. The arithmetic is
    /// checked: a block past the last (`u64` overflows first) ends the
    /// count, where `from += n * CHUNK` once wrapped to the start and
    /// counted every scenario again.
    ///
    /// ```
    /// use toolcall_check::verification::exhaustive::{Bound, Shard, Space};
    /// let space = Space::new(&Bound::named("tiny").unwrap());
    /// let huge = Shard { k: 1, n: 288_230_376_151_711_745 };
    /// assert_eq!(huge.scenarios(&space), 64);
    /// assert_eq!(Shard { k: 5, n: u64::MAX }.scenarios(&space), 64);
    /// ```
    pub fn scenarios(&self, space: &Space) -> u64 {
        let total = space.scenarios();
        let mut sum = 0;
        let mut from = self.first_block().checked_mul(CHUNK);
        while let Some(f) = from.filter(|f| *f < total) {
            sum += (f + CHUNK).min(total) - f;
            from = self
                .n
                .checked_mul(CHUNK)
                .and_then(|step| f.checked_add(step));
        }
        sum
    }

    /// This shard's first block of `CHUNK` scenarios (`k - 1`).
    fn first_block(&self) -> u64 {
        self.k.saturating_sub(1)
    }

    /// The block a worker takes for its `taken`-th turn (`taken * n + k -
    /// 1`), or `None` past `u64`: no block of any space.
    fn block(&self, taken: u64) -> Option<u64> {
        taken
            .checked_mul(self.n)
            .and_then(|b| b.checked_add(self.first_block()))
    }

    /// Whether `space` has a block for each shard: shard K of N runs the
    /// blocks of 64 scenarios numbered K-1 modulo N, so past the space's
    /// blocks a shard would run nothing, and its findings could not be
    /// told from a shard of another count.
    pub(crate) fn usable(&self, space: &Space) -> Result<(), String> {
        let blocks = space.scenarios().div_ceil(CHUNK).max(1);
        if self.n > blocks {
            return Err(format!(
                "shard {}/{}: the bound has {} scenarios, {blocks} blocks of {CHUNK}: at most {blocks} shards",
                self.k,
                self.n,
                space.scenarios()
            ));
        }
        Ok(())
    }
}

/// What a run of part of a space found, per cell (as
/// [`crate::verification::random::cells`] orders them): scenarios judged,
/// applicable ones, and the key (size, then index) of the first refuting
/// scenario, if any. [`finish`] turns it into a [`Report`]; partial runs
/// of disjoint shards combine by adding the counts and taking the least key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// The shard run.
    pub shard: Shard,
    /// Per cell: scenarios, applicable.
    pub totals: Vec<(u64, u64)>,
    /// Per cell: the first refuting scenario as `(size, index)`.
    pub first: Vec<Option<(usize, u64)>>,
}

impl Part {
    /// Whether these findings can be a run of their shard of `space`: no
    /// cell judged more scenarios than the space has (a scenario judged
    /// counts for its symmetric twins, which other shards may hold), or
    /// found more applicable than it judged, and every first counterexample is a
    /// scenario of the shard with the size recorded. A shard's file read
    /// back (`merge`) is checked with it, since [`finish`] rebuilds each
    /// counterexample from its index.
    pub(crate) fn fits(&self, space: &Space) -> Result<(), String> {
        self.shard.usable(space)?;
        let cells = crate::verification::random::cells();
        let has = space.scenarios();
        for ((cell, &(judged, applicable)), first) in
            cells.iter().zip(&self.totals).zip(&self.first)
        {
            let name = || format!("{} × {}", cell.set.name, cell.invariant.name());
            if judged > has || applicable > judged {
                return Err(format!(
                    "{}: {judged} scenarios judged, {applicable} applicable, where the bound has {has}",
                    name()
                ));
            }
            if let Some((size, index)) = *first {
                let block = index / CHUNK;
                let item = space
                    .item(index)
                    .filter(|_| block % self.shard.n == self.shard.first_block());
                if item.as_ref().map(|i| space.size(i)) != Some(size) {
                    return Err(format!(
                        "{}: the first counterexample (scenario {index}, size {size}) is not one of shard {}/{}",
                        name(),
                        self.shard.k,
                        self.shard.n
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Runs the scenarios of `shard` (see [`run`]); `progress(done, total)`
/// counts the shard's scenarios.
///
/// ```
/// use toolcall_check::verification::exhaustive::{Bound, Shard, Space, run_part};
/// let space = Space::new(&Bound::tiny());
/// let part = run_part(&space, Shard::WHOLE, 1, &|_, _| {}).unwrap();
/// assert_eq!(part.first.len(), toolcall_check::verification::random::cells().len());
/// ```
pub fn run_part(
    space: &Space,
    shard: Shard,
    jobs: usize,
    progress: &(dyn Fn(u64, u64) + Sync),
) -> Result<Part, String> {
    let sets = behavior_sets();
    let cells: Vec<MatrixCell> = crate::verification::random::cells();
    let best: Vec<AtomicU64> = cells.iter().map(|_| AtomicU64::new(NONE)).collect();
    let next = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let totals: Mutex<Vec<(u64, u64)>> = Mutex::new(vec![(0, 0); cells.len()]);
    let total = space.scenarios();
    let shard_total = shard.scenarios(space);
    let started = std::thread::scope(|scope| {
        for n in 0..shard.workers(space, jobs) {
            let worker = || {
                let space = &space.for_worker();
                let mut local = vec![(0u64, 0u64); cells.len()];
                let mut memo = Conversions::default();
                loop {
                    let from = shard
                        .block(next.fetch_add(1, Ordering::Relaxed))
                        .and_then(|b| b.checked_mul(CHUNK))
                        .filter(|f| *f < total);
                    let Some(from) = from else { break };
                    let to = (from + CHUNK).min(total);
                    for index in from..to {
                        if judge_index(space, &sets, index, &best, &mut local, &mut memo).is_none()
                        {
                            break;
                        }
                    }
                    let d = done.fetch_add(to - from, Ordering::Relaxed) + (to - from);
                    progress(d, shard_total);
                }
                if let Ok(mut t) = totals.lock() {
                    for (a, b) in t.iter_mut().zip(&local) {
                        a.0 += b.0;
                        a.1 += b.1;
                    }
                }
            };
            if let Err(e) = std::thread::Builder::new()
                .stack_size(16 << 20)
                .spawn_scoped(scope, worker)
            {
                return if n == 0 {
                    Err(format!("cannot start a worker thread: {e}"))
                } else {
                    Ok(())
                };
            }
        }
        Ok(())
    });
    started?;
    Ok(Part {
        shard,
        totals: totals.into_inner().unwrap_or_default(),
        first: best
            .iter()
            .map(|b| match b.load(Ordering::Relaxed) {
                NONE => None,
                k => Some(unkey(k)),
            })
            .collect(),
    })
}

/// Judges scenario `index` of `space` under `sets` (the behaviour sets) as
/// a run's worker does: `best` holds each cell's least refuting key (size,
/// then index, as [`Part::first`] reads it; `u64::MAX` for none) and is
/// lowered where this scenario refutes, a cell whose key is already smaller
/// is not judged, and `local` gains the scenarios and applicable ones per
/// cell. `None` when `index` is past the space; `Some(None)` for the mirror
/// image of a scenario judged in its place; otherwise `Some(key)`. An entry
/// point for drivers outside the crate that search the space their own way.
/// ```
/// use std::sync::atomic::AtomicU64;
/// use toolcall_check::verification::{exhaustive::{Bound, Space, judge_index}, random::cells, footprint::Conversions};
/// use toolcall_model::model::behavior_sets;
/// let space = Space::new(&Bound::tiny());
/// let (sets, cells) = (behavior_sets(), cells().len());
/// let best: Vec<AtomicU64> = (0..cells).map(|_| AtomicU64::new(u64::MAX)).collect();
/// let (mut local, mut memo) = (vec![(0, 0); cells], Conversions::default());
/// // Every scenario in a different order than a run's: the same findings.
/// for index in (0..space.scenarios()).rev() {
///     assert!(judge_index(&space, &sets, index, &best, &mut local, &mut memo).is_some());
/// }
/// assert!(judge_index(&space, &sets, space.scenarios(), &best, &mut local, &mut memo).is_none());
/// ```
#[doc(hidden)]
pub fn judge_index(
    space: &Space,
    sets: &[BehaviorSet],
    index: u64,
    best: &[AtomicU64],
    local: &mut [(u64, u64)],
    memo: &mut Conversions,
) -> Option<Option<u64>> {
    let item = space.item(index)?;
    let Some(weight) = space.canonical(&item) else {
        return Some(None);
    };
    let k = key(space.size(&item), index);
    // One scenario for every set: only the two fields `with_set` writes
    // differ between the sets.
    let mut s = space.scenario(&item);
    let cells = Cells {
        n_inv: Invariant::ALL.len(),
        k,
        weight,
        best,
    };
    judge_scenario(&mut s, sets, &cells, local, memo);
    Some(Some(k))
}

/// The report of a run from what it found: each refuted cell's first
/// counterexample is built (and replayed) here.
pub fn finish(space: &Space, part: &Part) -> Report {
    let version = space.version();
    let left_out = crate::config::sets_on(version).1;
    let cells = crate::verification::random::cells()
        .iter()
        .enumerate()
        .map(|(c, cell)| {
            let (scenarios, applicable) = part.totals.get(c).copied().unwrap_or_default();
            let set_left_out = left_out
                .iter()
                .find(|(s, _)| s.name == cell.set.name)
                .map(|(_, why)| format!("not played on Spring AI {version}: {why}"));
            let not_here = crate::verification::random::not_arising(cell.invariant, version);
            let proof = match (
                set_left_out.or(not_here),
                part.first.get(c).copied().flatten(),
            ) {
                (Some(why), _) => Proof::NotApplicable(why),
                (None, None) => Proof::Proved,
                (None, Some(first)) => refuted(space, cell, first),
            };
            CellProof {
                set: cell.set.name,
                invariant: cell.invariant,
                scenarios,
                applicable,
                proof,
            }
        })
        .collect();
    Report {
        bound: space.bound().clone(),
        version,
        scenarios: space.scenarios(),
        evaluated: space.evaluated(),
        cells,
    }
}

/// Sets that a turn runs and is judged alike under: indices into the
/// behaviour sets, in order, the first evaluated for all.
#[derive(Debug)]
pub(super) struct Group {
    pub(super) sets: Vec<usize>,
    /// The class of its replay ([`Replays`]).
    pub(super) class: u64,
    /// The fixes the turn can feel ([`Footprint::felt`]), and the advisor.
    pub(super) felt: Fixes,
    pub(super) advisor: bool,
}

/// The behaviour sets grouped by what the turn of `s` can feel of them
/// ([`Footprint::felt`]: the fixes it can feel, and the advisor): the sets of one
/// group give the same run and the same verdicts, so the first is
/// evaluated for all. Groups alike in the felt fixes the manager reads
/// and, with the memory outside the loop (which makes the turn history the
/// batches start from), in the memory's fixes ([`Acts::Memory`]), replay alike.
pub(super) fn set_groups(s: &Scenario, sets: &[BehaviorSet]) -> Vec<Group> {
    let footprint = Footprint::of(s);
    let mut groups: Vec<Group> = Vec::new();
    for (si, set) in sets.iter().enumerate() {
        let felt = footprint.felt(set.fixes);
        match groups
            .iter_mut()
            .find(|g| g.felt == felt && g.advisor == set.gemini_tool_text)
        {
            Some(g) => g.sets.push(si),
            None => groups.push(Group {
                sets: vec![si],
                class: 0,
                felt,
                advisor: set.gemini_tool_text,
            }),
        }
    }
    let outside = s.config.memory == Memory::Outside;
    for g in &mut groups {
        g.class = Fix::ALL
            .into_iter()
            .enumerate()
            .filter(|&(_, fix)| {
                g.felt.contains(fix)
                    && (fix.read_by_manager() || (outside && fix.acts() == Acts::Memory))
            })
            .fold(0u64, |bits, (i, _)| bits | 1 << i);
    }
    groups
}

/// Where the verdicts of one scenario go: the cells' first refuting keys,
/// and what the scenario is worth.
struct Cells<'b> {
    n_inv: usize,
    /// The scenario's key (size, then index).
    k: u64,
    /// The scenarios of the bound it stands for.
    weight: u64,
    best: &'b [AtomicU64],
}

impl Cells<'_> {
    /// Counts the verdict of invariant `i` for the sets whose cells still
    /// need it, or makes the scenario their first counterexample.
    fn record(&self, sets: &[usize], i: usize, verdict: &Verdict, local: &mut [(u64, u64)]) {
        for c in sets.iter().map(|si| si * self.n_inv + i) {
            if self.best[c].load(Ordering::Relaxed) <= self.k {
                continue;
            }
            match verdict {
                Verdict::Holds => {
                    local[c].0 += self.weight;
                    local[c].1 += self.weight;
                }
                Verdict::NotApplicable => local[c].0 += self.weight,
                Verdict::Refuted(_) => {
                    self.best[c].fetch_min(self.k, Ordering::Relaxed);
                }
            }
        }
    }

    /// Whether some set of `sets` still needs invariant `i` judged: its cell
    /// holds no counterexample smaller than this scenario.
    fn live(&self, sets: &[usize], i: usize) -> bool {
        sets.iter()
            .any(|si| self.best[si * self.n_inv + i].load(Ordering::Relaxed) > self.k)
    }
}

/// Judges the scenario under every behaviour set: each group of
/// [`set_groups`] whose cells still need it runs once, under its first
/// set, and the later groups whose conversions of the turn's texts agree
/// with it ([`crate::verification::footprint::evaluates_alike`]) take its verdicts too. Each invariant is
/// judged once for all the sets that share a run; the replays of the
/// turn's batches are shared by class.
fn judge_scenario(
    s: &mut Scenario,
    sets: &[BehaviorSet],
    cells: &Cells<'_>,
    local: &mut [(u64, u64)],
    memo: &mut Conversions,
) {
    let n_inv = cells.n_inv;
    let groups = set_groups(s, sets);
    let replays = Replays::default();
    let mut taken = vec![false; groups.len()];
    for (gi, g) in groups.iter().enumerate() {
        if taken[gi] || !(0..n_inv).any(|i| cells.live(&g.sets, i)) {
            continue;
        }
        let set = &sets[g.sets[0]];
        // What `with_set` does, without a copy of the scenario.
        s.config.manager.fixes = set.fixes;
        s.config.gemini_tool_text = set.gemini_tool_text;
        let judgements = std::rc::Rc::clone(&memo.judgements);
        let ev = Evidence::gather(s).map(|ev| ev.sharing(&replays, g.class).judging(&judgements));
        let mut merged = vec![gi];
        let mut members = g.sets.clone();
        if let Ok(ev) = &ev {
            let mut alike = Alike::new(ev);
            for (hj, h) in groups.iter().enumerate().skip(gi + 1) {
                if !taken[hj]
                    && (0..n_inv).any(|i| cells.live(&h.sets, i))
                    && alike.sets((g.felt, g.advisor), (h.felt, h.advisor), memo)
                {
                    taken[hj] = true;
                    merged.push(hj);
                    members.extend(&h.sets);
                }
            }
        }
        for i in (0..n_inv).filter(|&i| cells.live(&members, i)) {
            let invariant = Invariant::ALL[i];
            let Ok(ev) = &ev else {
                cells.record(&members, i, &Verdict::NotApplicable, local);
                continue;
            };
            // A streamed turn is alike under the merged groups up to the
            // run `stream-as-call` makes through `call()`: that one is
            // judged under each group's own set.
            if invariant == Invariant::StreamAsCall && merged.len() > 1 {
                let live: Vec<usize> = merged
                    .iter()
                    .copied()
                    .filter(|&hj| cells.live(&groups[hj].sets, i))
                    .collect();
                for (hj, verdict) in live
                    .iter()
                    .zip(through_calls(ev, &groups, &live, sets, memo))
                {
                    cells.record(&groups[*hj].sets, i, &verdict, local);
                }
            } else {
                cells.record(&members, i, &check(invariant, ev), local);
            }
        }
    }
}

/// `stream-as-call`'s verdict for each of the `merged` groups of a
/// streamed turn (indices into `groups`, in order): the judge runs the turn
/// again through `call()` under each group's own set. The first group's
/// run is gathered as evidence, and each later group under which that run
/// evaluates alike ([`Alike`]) takes its verdict; the others run their own.
pub(super) fn through_calls(
    ev: &Evidence<'_>,
    groups: &[Group],
    merged: &[usize],
    sets: &[BehaviorSet],
    memo: &mut Conversions,
) -> Vec<Verdict> {
    let Some((&first, rest)) = merged.split_first() else {
        return Vec::new();
    };
    let set_of = |hj: usize| {
        let h = &sets[groups[hj].sets[0]];
        (h.fixes, h.gemini_tool_text)
    };
    let own = |hj: usize| check_as(Invariant::StreamAsCall, ev, set_of(hj));
    // A repeating model's turn is gathered cut off at its bound: not the
    // run the judge makes.
    let Some(blocking) = through_call(ev, set_of(first)).filter(|b| !b.config.repeat_last) else {
        return merged.iter().map(|&hj| own(hj)).collect();
    };
    let call = Evidence::gather(&blocking);
    let verdict = stream_as_call_against(ev, call.as_ref().ok().map(|c| (&c.run, &c.toolbox)));
    let g = &groups[first];
    let mut alike = call.as_ref().ok().map(Alike::new);
    let mut verdicts = vec![verdict.clone()];
    for &hj in rest {
        let h = &groups[hj];
        let shared = alike
            .as_mut()
            .is_some_and(|a| a.sets((g.felt, g.advisor), (h.felt, h.advisor), memo));
        verdicts.push(if shared { verdict.clone() } else { own(hj) });
    }
    verdicts
}

fn refuted(space: &Space, cell: &MatrixCell, (size, index): (usize, u64)) -> Proof {
    let item = space.item(index).expect("a recorded index is in the space");
    let s = with_set(&space.scenario(&item), &cell.set);
    let found_by = format!(
        "`toolcall-model explore --exhaustive --bound {}{}` (scenario {index}, size {size}, the first in order of size)",
        space.bound().name,
        crate::verification::random::version_flag(space.version())
    );
    match counterexample_vector(cell, &s, &found_by) {
        Some((counterexample, wanted, replays)) => Proof::Refuted {
            size,
            index,
            wanted,
            counterexample,
            replays,
        },
        None => Proof::Refuted {
            size,
            index,
            wanted: "(the refutation did not recur on a rerun)".to_owned(),
            counterexample: s.to_vector(
                &format!("exhaustive-{}-{}", cell.set.name, cell.invariant.name()),
                "the refutation did not recur on a rerun",
                json!({"refuted": "see about"}),
            ),
            replays: false,
        },
    }
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.

    #[test]
    fn example_workers() {
        use crate::verification::exhaustive::{Bound, Shard, Space};
        let space = Space::new(&Bound::named("tiny").unwrap());
        let blocks = space.scenarios().div_ceil(64) as usize;
        assert_eq!(Shard::WHOLE.workers(&space, 100_000), blocks);
        assert_eq!(Shard::WHOLE.workers(&space, 2), 2);
        assert_eq!(Shard::WHOLE.workers(&space, 0), 1);
    }

    #[test]
    fn example_usable() {
        use crate::verification::exhaustive::{Bound, Shard, Space};
        let space = Space::new(&Bound::named("tiny").unwrap());
        let blocks = space.scenarios().div_ceil(64);
        assert!(Shard { k: 1, n: blocks }.usable(&space).is_ok());
        let e = Shard {
            k: 1,
            n: blocks + 1,
        }
        .usable(&space)
        .unwrap_err();
        assert!(e.contains(&format!("at most {blocks} shards")), "{e}");
    }

    #[test]
    fn example_fits() {
        use crate::verification::exhaustive::{Bound, Shard, Space, run_part};
        let space = Space::new(&Bound::tiny());
        let mut part = run_part(&space, Shard { k: 1, n: 2 }, 1, &|_, _| {}).unwrap();
        assert!(part.fits(&space).is_ok());
        let refuted = part.first.iter().position(Option::is_some).unwrap();
        part.first[refuted] = Some((1, space.scenarios()));
        assert!(part.fits(&space).is_err());
    }
    #[test]
    fn example_run() {
        use crate::verification::exhaustive::bound::Bound;
        use crate::verification::exhaustive::run::run;
        use crate::verification::exhaustive::space::Space;
        let space = Space::new(&Bound::tiny());
        let r = run(&space, 2, &|_, _| {}).unwrap();
        let up = r
            .cells
            .iter()
            .find(|c| c.set == "upstream" && c.invariant.name() == "limits")
            .unwrap();
        assert_eq!(up.verdict(), "proved");
        assert_eq!(up.scenarios, space.scenarios());
    }
}
