//! An exhaustive run past one machine: each shard of a bound
//! ([`Shard`]) is run on its own (`explore --exhaustive --shard K/N
//! --json`), its findings written as JSON (`part_to_json`), and
//! [`merge`] combines the files of shards 1 to N into what one run of the
//! whole bound finds; [`crate::verification::exhaustive::finish`] then builds
//! the same matrix and the same smallest counterexamples as one run.

use serde_json::{Value, json};

use crate::verification::exhaustive::{Part, Shard, Space};
use crate::verification::random::cells;
use toolcall_model::model::SpringAi;

/// The `mode` of a shard's JSON.
pub(crate) const MODE: &str = "exhaustive-shard";

/// A shard's findings as JSON: `{"mode": "exhaustive-shard", "bound",
/// "shard": "K/N", "scenarios" (the bound's), "shard_scenarios", "cells":
/// [{"set", "invariant", "scenarios", "applicable", "first": {"size",
/// "index"} or null}]}`.
pub(crate) fn part_to_json(space: &Space, part: &Part) -> Value {
    let cells = cells();
    let mut v = json!({
        "mode": MODE,
        "bound": space.bound().name,
        "shard": format!("{}/{}", part.shard.k, part.shard.n),
        "scenarios": space.scenarios(),
        "shard_scenarios": part.shard.scenarios(space),
        "cells": cells.iter().enumerate().map(|(c, cell)| {
            let (scenarios, applicable) = part.totals.get(c).copied().unwrap_or_default();
            json!({
                "set": cell.set.name,
                "invariant": cell.invariant.name(),
                "scenarios": scenarios,
                "applicable": applicable,
                "first": part.first.get(c).copied().flatten().map(|(size, index)| json!({"size": size, "index": index})),
            })
        }).collect::<Vec<_>>(),
    });
    // Absent: 2.0.1, as in the shards written before other versions.
    if space.version() != SpringAi::default() {
        v["spring_ai"] = json!(space.version().name());
    }
    v
}

/// Reads a shard's JSON back: the bound's name, the Spring AI version (absent:
/// 2.0.1) and the findings. The cells must be this build's, in its order.
pub(crate) fn part_from_json(v: &Value) -> Result<(String, SpringAi, Part), String> {
    if v.get("mode").and_then(Value::as_str) != Some(MODE) {
        return Err(format!("not a shard's findings (mode is not \"{MODE}\")"));
    }
    let version = match v.get("spring_ai") {
        None | Some(Value::Null) => SpringAi::default(),
        Some(x) => x
            .as_str()
            .ok_or("spring_ai is not a string")?
            .parse::<SpringAi>()
            .map_err(|e| e.to_string())?,
    };
    let bound = v
        .get("bound")
        .and_then(Value::as_str)
        .ok_or("no bound")?
        .to_owned();
    let shard = Shard::parse(v.get("shard").and_then(Value::as_str).ok_or("no shard")?)?;
    let got = v.get("cells").and_then(Value::as_array).ok_or("no cells")?;
    let want = cells();
    if got.len() != want.len() {
        return Err(format!(
            "{} cells where this build has {}",
            got.len(),
            want.len()
        ));
    }
    let mut totals = Vec::with_capacity(got.len());
    let mut first = Vec::with_capacity(got.len());
    for (g, w) in got.iter().zip(&want) {
        let (set, inv) = (w.set.name, w.invariant.name());
        if g.get("set").and_then(Value::as_str) != Some(set)
            || g.get("invariant").and_then(Value::as_str) != Some(inv)
        {
            return Err(format!(
                "the cells are not this build's (expected {set} × {inv})"
            ));
        }
        let num = |k: &str| {
            g.get(k)
                .and_then(Value::as_u64)
                .ok_or_else(|| format!("{set} × {inv}: no {k}"))
        };
        totals.push((num("scenarios")?, num("applicable")?));
        first.push(match g.get("first") {
            None | Some(Value::Null) => None,
            Some(f) => {
                let size = f.get("size").and_then(Value::as_u64);
                let index = f.get("index").and_then(Value::as_u64);
                match (size, index) {
                    (Some(s), Some(i)) => Some((s as usize, i)),
                    _ => return Err(format!("{set} × {inv}: a bad first counterexample")),
                }
            }
        });
    }
    Ok((
        bound,
        version,
        Part {
            shard,
            totals,
            first,
        },
    ))
}

/// Combines the findings of shards 1 to N of one bound (each exactly once,
/// in any order) into the whole bound's: counts added, the least first
/// counterexample (by size, then index) kept.
pub fn merge(parts: &[Part]) -> Result<Part, String> {
    let Some(p0) = parts.first() else {
        return Err("no shard to merge".to_owned());
    };
    let n = p0.shard.n;
    let mut seen = vec![false; usize::try_from(n).unwrap_or(usize::MAX).min(1 << 20)];
    for p in parts {
        if p.shard.n != n {
            return Err(format!(
                "shards of {} and of {n} cannot be merged",
                p.shard.n
            ));
        }
        let slot = seen
            .get_mut((p.shard.k - 1) as usize)
            .ok_or_else(|| format!("too many shards ({n})"))?;
        if *slot {
            return Err(format!("shard {}/{n} given twice", p.shard.k));
        }
        *slot = true;
        if p.totals.len() != p0.totals.len() || p.first.len() != p0.first.len() {
            return Err("the shards have different cells".to_owned());
        }
    }
    if let Some(k) = seen.iter().position(|s| !s) {
        return Err(format!("shard {}/{n} is missing", k + 1));
    }
    let mut totals = vec![(0u64, 0u64); p0.totals.len()];
    let mut first: Vec<Option<(usize, u64)>> = vec![None; p0.first.len()];
    for p in parts {
        for (t, x) in totals.iter_mut().zip(&p.totals) {
            let sum = |a: u64, b: u64| {
                a.checked_add(b)
                    .ok_or_else(|| "the shards' counts add up past 2^64".to_owned())
            };
            *t = (sum(t.0, x.0)?, sum(t.1, x.1)?);
        }
        for (f, x) in first.iter_mut().zip(&p.first) {
            *f = match (*f, *x) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
    }
    Ok(Part {
        shard: Shard::WHOLE,
        totals,
        first,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verification::exhaustive::{Bound, Proof, finish, run, run_part};

    #[test]
    fn two_shards_merged_give_the_matrix_and_counterexamples_of_one_run() {
        let space = Space::new(&Bound::tiny());
        let one = run(&space, 2, &|_, _| {}).unwrap();
        // Written as JSON and read back, as the files of two machines are;
        // merged in the order the files come.
        let parts: Vec<Part> = [2, 1]
            .into_iter()
            .map(|k| {
                let p = run_part(&space, Shard { k, n: 2 }, 1, &|_, _| {}).unwrap();
                let text = serde_json::to_string(&part_to_json(&space, &p)).unwrap();
                let (bound, version, back) =
                    part_from_json(&serde_json::from_str(&text).unwrap()).unwrap();
                assert_eq!(bound, "tiny");
                assert_eq!(version, SpringAi::V2_0_1);
                assert_eq!(back, p);
                back
            })
            .collect();
        assert_eq!(
            parts.iter().map(|p| p.shard.scenarios(&space)).sum::<u64>(),
            space.scenarios()
        );
        let merged = finish(&space, &merge(&parts).unwrap());
        assert_eq!(merged.cells.len(), one.cells.len());
        assert!(one.cells.iter().any(|c| c.verdict() == "refuted"));
        for (m, o) in merged.cells.iter().zip(&one.cells) {
            assert_eq!((m.set, m.invariant), (o.set, o.invariant));
            assert_eq!(m.verdict(), o.verdict(), "{} × {}", o.set, o.invariant);
            match (&m.proof, &o.proof) {
                (Proof::Proved, Proof::Proved) => {
                    assert_eq!((m.scenarios, m.applicable), (o.scenarios, o.applicable));
                }
                // A refuted cell stops counting once refuted, at a point
                // that depends on the threads: only its counterexample is
                // compared.
                (a, b) => assert_eq!(a, b, "{} × {}", o.set, o.invariant),
            }
        }
        assert!(!merged.to_text().is_empty());
    }

    #[test]
    fn a_merge_wants_every_shard_once() {
        let space = Space::new(&Bound::tiny());
        let p1 = run_part(&space, Shard { k: 1, n: 2 }, 1, &|_, _| {}).unwrap();
        assert!(
            merge(std::slice::from_ref(&p1))
                .unwrap_err()
                .contains("2/2 is missing")
        );
        assert!(merge(&[p1.clone(), p1]).unwrap_err().contains("twice"));
        assert!(merge(&[]).is_err());
    }
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.

    #[test]
    fn example_module() {
        use crate::verification::exhaustive::{Bound, Shard, Space, run_part};
        use crate::verification::shard::{merge, part_from_json, part_to_json};
        let space = Space::new(&Bound::tiny());
        let parts: Vec<_> = (1..=2)
            .map(|k| run_part(&space, Shard { k, n: 2 }, 1, &|_, _| {}).unwrap())
            .map(|p| part_from_json(&part_to_json(&space, &p)).unwrap().2)
            .collect();
        let whole = run_part(&space, Shard::WHOLE, 1, &|_, _| {}).unwrap();
        assert_eq!(merge(&parts).unwrap().first, whole.first);
    }
}
