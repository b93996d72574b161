//! The exhaustive verdict matrix searched by stateright's BFS checker
//! instead of the project's own enumerator, for a side-by-side measurement.
//!
//! States choose a scenario of a bound digit by digit (radix 64 over the
//! scenarios a shard covers); a leaf is judged by the library's own
//! `judge_index`, the exhaustive run's per-scenario path, and holds the
//! cells its scenario refutes as bits. Each cell of the matrix is one
//! `always` property ("this cell is not refuted here").

#![forbid(unsafe_code)]

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use stateright::{Checker, Model, Path, Property};
use toolcall_check::verification::exhaustive::{judge_index, run_part, Bound, Shard, Space};
use toolcall_check::verification::random::cells;
use toolcall_check::verification::footprint::Conversions;
use toolcall_model::model::{behavior_sets, BehaviorSet};

const RADIX: u64 = 64;
/// The project's shard blocks (`CHUNK` in the exhaustive run).
const BLOCK: u64 = 64;
const NONE: u64 = u64::MAX;
/// The most cells a leaf holds.
const CELLS: usize = 256;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Prune {
    /// Every leaf judged for every cell: a leaf's state is a function of
    /// its scenario alone, as a model checker expects.
    None,
    /// Cells holding a smaller counterexample are not judged (the
    /// project's run does this through its shared `best` keys).
    Shared,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum State {
    Node {
        depth: u8,
        prefix: u64,
    },
    Leaf {
        index: u64,
        key: u64,
        refuted: [u64; CELLS / 64],
    },
}

struct Search {
    space: Space,
    sets: Vec<BehaviorSet>,
    shard: Shard,
    /// Scenarios the shard covers: the leaves.
    slots: u64,
    depth: u8,
    prune: Prune,
    names: Vec<&'static str>,
    /// Per cell, the least refuting key (size, then index) seen.
    best: Vec<AtomicU64>,
    totals: Mutex<Vec<(u64, u64)>>,
    judged: AtomicU64,
    /// Time spent in `judge_index`, in nanoseconds, all threads.
    judging: AtomicU64,
}

thread_local! {
    static MEMO: RefCell<Conversions> = RefCell::new(Conversions::default());
}

impl Search {
    fn new(space: Space, shard: Shard, prune: Prune) -> Search {
        let names: Vec<&'static str> = cells()
            .iter()
            .map(|c| &*Box::leak(format!("{}/{}", c.set.name, c.invariant.name()).into_boxed_str()))
            .collect();
        assert!(names.len() <= CELLS, "a leaf holds at most {CELLS} cells");
        let slots = shard.scenarios(&space);
        let mut depth = 1u8;
        while RADIX.pow(depth as u32) < slots {
            depth += 1;
        }
        Search {
            space,
            sets: behavior_sets(),
            shard,
            slots,
            depth,
            prune,
            best: names.iter().map(|_| AtomicU64::new(NONE)).collect(),
            totals: Mutex::new(vec![(0, 0); names.len()]),
            names,
            judged: AtomicU64::new(0),
            judging: AtomicU64::new(0),
        }
    }

    /// The global index of the shard's `slot`-th scenario.
    fn index(&self, slot: u64) -> u64 {
        ((slot / BLOCK) * self.shard.n + (self.shard.k - 1)) * BLOCK + slot % BLOCK
    }

    fn leaf(&self, index: u64) -> State {
        let n = self.names.len();
        let fresh: Vec<AtomicU64>;
        let best = match self.prune {
            Prune::Shared => &self.best,
            Prune::None => {
                fresh = (0..n).map(|_| AtomicU64::new(NONE)).collect();
                &fresh
            }
        };
        let mut local = vec![(0u64, 0u64); n];
        let started = Instant::now();
        let k = MEMO.with(|m| {
            judge_index(
                &self.space,
                &self.sets,
                index,
                best,
                &mut local,
                &mut m.borrow_mut(),
            )
        });
        self.judging
            .fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
        let Some(Some(k)) = k else {
            return State::Leaf {
                index,
                key: NONE,
                refuted: [0; CELLS / 64],
            };
        };
        self.judged.fetch_add(1, Ordering::Relaxed);
        let mut refuted = [0u64; CELLS / 64];
        for c in 0..n {
            if best[c].load(Ordering::Relaxed) == k {
                refuted[c / 64] |= 1 << (c % 64);
                self.best[c].fetch_min(k, Ordering::Relaxed);
            }
        }
        if let Ok(mut t) = self.totals.lock() {
            for (a, b) in t.iter_mut().zip(&local) {
                a.0 += b.0;
                a.1 += b.1;
            }
        }
        State::Leaf {
            index,
            key: k,
            refuted,
        }
    }
}

fn holds<const C: usize>(_: &Search, s: &State) -> bool {
    match s {
        State::Leaf { refuted, .. } => refuted[C / 64] & (1 << (C % 64)) == 0,
        State::Node { .. } => true,
    }
}

macro_rules! conditions {
    ($($c:literal)*) => { [$(holds::<$c> as fn(&Search, &State) -> bool),*] };
}
const CONDITIONS: [fn(&Search, &State) -> bool; CELLS] = conditions!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95 96 97 98 99 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115 116 117 118 119 120 121 122 123 124 125 126 127 128 129 130 131 132 133 134 135 136 137 138 139 140 141 142 143 144 145 146 147 148 149 150 151 152 153 154 155 156 157 158 159 160 161 162 163 164 165 166 167 168 169 170 171 172 173 174 175 176 177 178 179 180 181 182 183 184 185 186 187 188 189 190 191 192 193 194 195 196 197 198 199 200 201 202 203 204 205 206 207 208 209 210 211 212 213 214 215 216 217 218 219 220 221 222 223 224 225 226 227 228 229 230 231 232 233 234 235 236 237 238 239 240 241 242 243 244 245 246 247 248 249 250 251 252 253 254 255);

impl Model for Search {
    type State = State;
    type Action = u64;

    fn init_states(&self) -> Vec<State> {
        vec![State::Node {
            depth: 0,
            prefix: 0,
        }]
    }

    fn actions(&self, state: &State, actions: &mut Vec<u64>) {
        if let State::Node { depth, prefix } = *state {
            let below = RADIX.pow((self.depth - depth - 1) as u32);
            for d in 0..RADIX {
                if (prefix * RADIX + d) * below < self.slots {
                    actions.push(d);
                }
            }
        }
    }

    fn next_state(&self, state: &State, d: u64) -> Option<State> {
        let State::Node { depth, prefix } = *state else {
            return None;
        };
        let prefix = prefix * RADIX + d;
        Some(if depth + 1 == self.depth {
            self.leaf(self.index(prefix))
        } else {
            State::Node {
                depth: depth + 1,
                prefix,
            }
        })
    }

    fn properties(&self) -> Vec<Property<Self>> {
        self.names
            .iter()
            .zip(CONDITIONS)
            .map(|(name, c)| Property::always(name, c))
            .collect()
    }
}

fn cpu_seconds() -> f64 {
    // user + system time of this process, from /proc (Linux).
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

fn split(k: u64) -> (u64, u64) {
    (k >> 44, k & ((1 << 44) - 1))
}

/// The command line: see README.md.
struct Args {
    bound: String,
    shard: Shard,
    threads: usize,
    prune: Prune,
    compare: bool,
    dfs: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut out = Args {
        bound: "tiny".to_owned(),
        shard: Shard::WHOLE,
        threads: 1,
        prune: Prune::None,
        compare: false,
        dfs: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} wants a value"));
        match a.as_str() {
            "--bound" => out.bound = value()?,
            "--shard" => out.shard = Shard::parse(&value()?)?,
            "--threads" => out.threads = value()?.parse().map_err(|e| format!("--threads: {e}"))?,
            "--prune" => {
                out.prune = match value()?.as_str() {
                    "none" => Prune::None,
                    "shared" => Prune::Shared,
                    p => return Err(format!("--prune none|shared, not {p}")),
                }
            }
            "--compare" => out.compare = true,
            "--dfs" => out.dfs = true,
            _ => return Err(format!("unknown argument {a}; see README.md")),
        }
    }
    Ok(out)
}

fn main() -> Result<(), String> {
    let Args {
        bound,
        shard,
        threads,
        prune,
        compare,
        dfs,
    } = parse_args()?;
    let b = Bound::named(&bound).ok_or(format!("no bound {bound}"))?;
    let space = Space::new(&b);
    let search = Search::new(space, shard, prune);
    let cpu0 = cpu_seconds();
    let t0 = Instant::now();
    let builder = search.checker().threads(threads);
    let checker: Box<dyn Checker<Search>> = if dfs {
        Box::new(builder.spawn_dfs().join())
    } else {
        Box::new(builder.spawn_bfs().join())
    };
    let wall = t0.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu0;
    let m = checker.model();
    let judged = m.judged.load(Ordering::Relaxed);
    println!(
        "stateright {}: bound {bound}, shard {}/{}, threads {threads}, prune {prune:?}",
        if dfs { "dfs" } else { "bfs" },
        shard.k,
        shard.n
    );
    println!(
        "  {} scenarios ({} judged), {} states ({} unique), max depth {}",
        m.slots,
        judged,
        checker.state_count(),
        checker.unique_state_count(),
        checker.max_depth()
    );
    println!(
        "  wall {wall:.2} s, cpu {cpu:.2} s, {:.0} scenarios per cpu second",
        m.slots as f64 / cpu
    );
    println!(
        "  of which judging (judge_index, wall time summed over threads) {:.2} s",
        m.judging.load(Ordering::Relaxed) as f64 / 1e9
    );
    let totals = m.totals.lock().map(|t| t.clone()).unwrap_or_default();
    let firsts: Vec<u64> = m.best.iter().map(|b| b.load(Ordering::Relaxed)).collect();
    // Rebuilding a discovery's path runs next_state again (its leaf is judged again).
    let discoveries = checker.discoveries();
    print_discoveries(m, &discoveries, &firsts);
    if compare {
        compare_with_run_part(m, shard, &discoveries, &firsts, &totals)?;
    }
    Ok(())
}

/// Each refuted cell's discovery beside the least (size, index) the
/// judging saw.
fn print_discoveries(
    m: &Search,
    discoveries: &HashMap<&'static str, Path<State, u64>>,
    firsts: &[u64],
) {
    let mut refuted = 0;
    let mut same_as_least = 0;
    for (c, name) in m.names.iter().enumerate() {
        let Some(path) = discoveries.get(name) else {
            continue;
        };
        refuted += 1;
        let (found_size, found_index) = match path.last_state() {
            State::Leaf { key, .. } => split(*key),
            State::Node { .. } => (0, 0),
        };
        let (size, index) = split(firsts[c]);
        if (found_size, found_index) == (size, index) {
            same_as_least += 1;
        }
        println!(
            "  {name:<40} discovery (size {found_size}, index {found_index}); least (size {size}, index {index})"
        );
    }
    println!(
        "  refuted cells: {refuted} of {}; discovery is the least (size, index) in {same_as_least}",
        m.names.len()
    );
}

/// The same shard through the project's own `run_part`: the same cells
/// refuted at the same least keys, the same counts in proved cells.
fn compare_with_run_part(
    m: &Search,
    shard: Shard,
    discoveries: &HashMap<&'static str, Path<State, u64>>,
    firsts: &[u64],
    totals: &[(u64, u64)],
) -> Result<(), String> {
    let part = run_part(&m.space, shard, 1, &|_, _| {})?;
    let ours: Vec<u64> = part
        .first
        .iter()
        .map(|f| f.map_or(NONE, |(s, i)| ((s as u64) << 44) | i))
        .collect();
    let cells_found = m
        .names
        .iter()
        .filter(|n| discoveries.contains_key(*n))
        .count();
    let refuted_ours = ours.iter().filter(|&&k| k != NONE).count();
    let same_cells = m
        .names
        .iter()
        .zip(&ours)
        .all(|(n, &k)| discoveries.contains_key(n) == (k != NONE));
    // A refuted cell's counts depend on when its judging stopped; a
    // proved cell's do not.
    let same_totals = (0..m.names.len())
        .filter(|&c| ours[c] == NONE)
        .all(|c| part.totals[c] == totals[c]);
    println!(
        "  compare with run_part: refuted {refuted_ours} vs {cells_found}, same cells {same_cells}, same least keys {}, same counts in proved cells {same_totals}",
        ours == firsts,
    );
    if ours != firsts || !same_cells || !same_totals {
        return Err("stateright's search and run_part disagree".to_owned());
    }
    Ok(())
}
