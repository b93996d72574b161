//! Keys under `spring.ai.tools` that no property binds, with a suggestion
//! of the known key they were likely meant to be.

use super::names::{KNOWN_KEYS, elements, target, uniform_key};
use super::{Entry, Unknown};

/// At most this many unknown keys are reported, and at most
/// [`SUGGEST_TRIES`] keys are compared with the known ones, so that a file
/// of millions of keys costs little.
pub const MAX_UNKNOWN: usize = 1000;

/// How many keys of a file are compared with the known ones for
/// suggestions (see [`MAX_UNKNOWN`]).
pub const SUGGEST_TRIES: usize = 10_000;

/// Keys Spring ignores that look like a tool-calling key: each relaxed
/// name once (its last spelling, at its first place), at most
/// [`MAX_UNKNOWN`].
pub(super) fn unknown_keys(documents: &[Vec<Entry>]) -> Vec<Unknown> {
    let known: Vec<Vec<String>> = KNOWN_KEYS.iter().map(|(n, _)| target(n)).collect();
    // A suggestion is within SUGGEST_MAX of a known key (or of the map's
    // name, for a longer key), so a shorter key never gets one: a relaxed
    // name is never longer than the key it comes from.
    let shortest = known
        .iter()
        .map(|t| t.join(".").len())
        .min()
        .unwrap_or(0)
        .saturating_sub(SUGGEST_MAX);
    let mut out: Vec<Unknown> = Vec::new();
    let mut index: std::collections::HashMap<Vec<String>, usize> = Default::default();
    let mut tries = 0;
    for e in documents.iter().flatten() {
        if e.key.len() < shortest {
            continue;
        }
        let uni = uniform_key(&elements(&e.key));
        if known
            .iter()
            .any(|t| uni.len() >= t.len() && uni[..t.len()] == t[..])
        {
            continue;
        }
        if let Some(&i) = index.get(&uni) {
            out[i].key.clone_from(&e.key);
            out[i].line = e.line;
            continue;
        }
        if tries == SUGGEST_TRIES || out.len() == MAX_UNKNOWN {
            continue;
        }
        tries += 1;
        if let Some(mut s) = suggest(&uni, &known) {
            // A per-tool key keeps its tool, as written.
            let map = target(&s).len();
            if s.ends_with("max-calls-per-tool") && uni.len() > map {
                for el in &elements(&e.key)[map..] {
                    if el.kind.indexed() {
                        s.push_str(&format!("[{}]", el.text));
                    } else {
                        s.push_str(&format!(".{}", el.text));
                    }
                }
            }
            index.insert(uni, out.len());
            out.push(Unknown {
                key: e.key.clone(),
                line: e.line,
                suggestion: s,
            });
        }
    }
    out
}

/// The edit distance of `a` and `b` when it is at most `max` (`None`
/// beyond): only the band of the table within `max` of its diagonal (a
/// cell outside it is past `max` already), stopped as soon as a row
/// exceeds `max`, so that a long key costs little.
pub(super) fn edit_distance_within(a: &str, b: &str, max: usize) -> Option<usize> {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > max {
        return None;
    }
    // Every value past `max` is held as `past`: only whether it is past matters.
    let past = max + 1;
    let mut prev: Vec<usize> = (0..=b.len()).map(|j| j.min(past)).collect();
    let mut cur = vec![past; b.len() + 1];
    for i in 1..=a.len() {
        let lo = i.saturating_sub(max).max(1);
        let hi = (i + max).min(b.len());
        cur.fill(past);
        cur[0] = i.min(past);
        let mut row_min = cur[0];
        for j in lo..=hi {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let v = (prev[j] + 1)
                .min(cur[j - 1] + 1)
                .min(prev[j - 1] + cost)
                .min(past);
            cur[j] = v;
            row_min = row_min.min(v);
        }
        if row_min > max {
            return None;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    Some(prev[b.len()]).filter(|&d| d <= max)
}

/// The largest distance [`suggest`] ever accepts.
pub(super) const SUGGEST_MAX: usize = 8;

/// The known key an unknown one probably meant: within an edit distance of
/// a third of the key (on the relaxed form), or any key under
/// `spring.ai.tools` whose last element is close to a known last element.
/// `known` is [`KNOWN_KEYS`] in relaxed form.
pub(super) fn suggest(uni: &[String], known: &[Vec<String>]) -> Option<String> {
    let joined = uni.join(".");
    let mut best: Option<(usize, &str)> = None;
    for ((name, _), t) in KNOWN_KEYS.iter().zip(known) {
        // Compare against the known key, or its map prefix for map entries.
        let cand: String = if name.ends_with("max-calls-per-tool") && uni.len() > t.len() {
            uni[..t.len()].join(".")
        } else {
            joined.clone()
        };
        // A distance past SUGGEST_MAX is never accepted, so it never needs
        // computing.
        let Some(d) = edit_distance_within(&cand, &t.join("."), SUGGEST_MAX) else {
            continue;
        };
        if !matches!(best, Some((b, _)) if b <= d) {
            best = Some((d, name));
        }
    }
    let (d, name) = best?;
    let tools =
        uni.len() >= 3 && uni[0] == "spring" && uni[1] == "ai" && uni[2].starts_with("tool");
    (d > 0 && (d * 3 <= joined.len().min(40) / 2 || (tools && d <= SUGGEST_MAX)))
        .then(|| name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::edit_distance_within;

    /// The whole table, for comparison.
    fn edit_distance(a: &str, b: &str) -> usize {
        let a: Vec<char> = a.chars().collect();
        let b: Vec<char> = b.chars().collect();
        let mut prev: Vec<usize> = (0..=b.len()).collect();
        for i in 1..=a.len() {
            let mut cur = vec![i; b.len() + 1];
            for j in 1..=b.len() {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            }
            prev = cur;
        }
        prev[b.len()]
    }

    #[test]
    fn the_band_gives_the_distance_of_the_whole_table_up_to_max() {
        // Keys of a few letters, so that distances near every `max` occur.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut checked = 0;
        for _ in 0..20_000 {
            let mut word = || -> String {
                let len = (next() % 24) as usize;
                (0..len)
                    .map(|_| ['a', 'b', '.', 'é'][(next() % 4) as usize])
                    .collect()
            };
            let (a, b) = (word(), word());
            let d = edit_distance(&a, &b);
            for max in 0..10 {
                let want = (d <= max).then_some(d);
                assert_eq!(
                    edit_distance_within(&a, &b, max),
                    want,
                    "{a:?} {b:?} max {max}"
                );
                checked += 1;
            }
        }
        assert_eq!(checked, 200_000);
        assert_eq!(
            edit_distance_within("spring.ai.tool.limits", "spring.ai.tools.limits", 8),
            Some(1)
        );
    }
}
