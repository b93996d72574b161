//! Keys under `spring.ai.tools` that no property binds, with a suggestion
//! of the known key they were likely meant to be.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use super::Unknown;
use super::names::{KNOWN_KEYS, ParsedDocument, target};

/// At most this many unknown keys are reported, and at most
/// [`SUGGEST_TRIES`] keys are compared with the known ones, so that a file
/// of millions of keys costs little.
pub(crate) const MAX_UNKNOWN: usize = 1000;

/// How many keys of a file are compared with the known ones for
/// suggestions (see [`MAX_UNKNOWN`]).
pub(crate) const SUGGEST_TRIES: usize = 10_000;

/// A known key in the relaxed form suggestions compare.
struct Known {
    /// As [`KNOWN_KEYS`] writes it: what is suggested.
    name: &'static str,
    /// Its uniform elements.
    target: Vec<String>,
    /// Its uniform elements joined by dots (ASCII, as every known key).
    joined: String,
    /// `joined` for the bit-parallel distance (every known key fits one).
    pattern: Option<Pattern>,
    /// The per-tool map, whose entries are compared by the map's name.
    map: bool,
}

/// The known keys in relaxed form, and the shortest key that can be within
/// [`SUGGEST_MAX`] of one: a constant of [`KNOWN_KEYS`], worked out once
/// rather than for every file (it was a tenth of `config_binder`'s time).
struct KnownKeys {
    keys: Vec<Known>,
    shortest: usize,
}

static KNOWN: LazyLock<KnownKeys> = LazyLock::new(|| {
    let keys: Vec<Known> = KNOWN_KEYS
        .iter()
        .map(|&(name, _)| {
            let target = target(name);
            let joined = target.join(".");
            Known {
                name,
                pattern: Pattern::new(&joined),
                joined,
                target,
                map: name.ends_with("max-calls-per-tool"),
            }
        })
        .collect();
    // A suggestion is within SUGGEST_MAX of a known key (or of the map's
    // name, for a longer key), so a shorter key never gets one: a relaxed
    // name is never longer than the key it comes from.
    let shortest = keys
        .iter()
        .map(|k| k.joined.len())
        .min()
        .unwrap_or(0)
        .saturating_sub(SUGGEST_MAX);
    KnownKeys { keys, shortest }
});

/// Keys Spring ignores: every key under `spring.ai.tools` that binds
/// nothing, and a key elsewhere that looks like a tool-calling key (with
/// its suggestion); each relaxed name once (its last spelling, at its
/// first place), at most [`MAX_UNKNOWN`].
pub(super) fn unknown_keys(documents: &[&ParsedDocument<'_>]) -> Vec<Unknown> {
    let known = &*KNOWN;
    let mut out: Vec<Unknown> = Vec::new();
    let mut index: HashMap<Vec<String>, usize> = HashMap::new();
    // Keys compared before with no suggestion: compared again, they would
    // give none again, but each still counts as a try.
    let mut missed: HashSet<Vec<String>> = HashSet::new();
    let mut tries = 0;
    let entries = documents
        .iter()
        .flat_map(|d| d.entries.iter().enumerate().map(move |(i, e)| (d, i, e)));
    for (doc, i, e) in entries {
        let parsed = doc.key(i);
        let uni = &parsed.uni;
        let under_tools = uni.len() > 3 && uni[..3] == ["spring", "ai", "tools"];
        if e.key.len() < known.shortest && !under_tools {
            continue;
        }
        // A key that binds, or a prefix of one (`spring.ai.tools.limits`:
        // not ignored, Spring binds or refuses its value as the object).
        if known.keys.iter().any(|k| {
            let n = uni.len().min(k.target.len());
            uni[..n] == k.target[..n]
        }) {
            continue;
        }
        if let Some(&i) = index.get(uni) {
            out[i].key.clone_from(&e.key);
            out[i].line = e.line;
            continue;
        }
        if out.len() == MAX_UNKNOWN {
            continue;
        }
        let suggestion = if tries == SUGGEST_TRIES {
            None
        } else {
            tries += 1;
            // Compared before with no suggestion: none again, but a try.
            (!missed.contains(uni))
                .then(|| suggest(uni, &known.keys))
                .flatten()
        };
        let Some(k) = suggestion else {
            missed.insert(uni.clone());
            // Every key under spring.ai.tools that Spring does not bind is
            // reported, near a known key or not.
            if under_tools {
                index.insert(uni.clone(), out.len());
                out.push(Unknown {
                    key: e.key.clone(),
                    line: e.line,
                    suggestion: None,
                });
            }
            continue;
        };
        let mut s = k.name.to_owned();
        // A per-tool key keeps its tool, as written.
        let map = k.target.len();
        if k.map && uni.len() > map {
            for el in &parsed.els[map..] {
                if el.kind.indexed() {
                    s.push_str(&format!("[{}]", el.text));
                } else {
                    s.push_str(&format!(".{}", el.text));
                }
            }
        }
        index.insert(uni.clone(), out.len());
        out.push(Unknown {
            key: e.key.clone(),
            line: e.line,
            suggestion: Some(s),
        });
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

/// A known key as bit masks, for Myers' bit-parallel edit distance
/// (Hyyrö's form for the distance of two whole strings): one pass over the
/// other key, a few word operations per character, where the table takes a
/// row of comparisons.
struct Pattern {
    /// For each ASCII character, the positions in the key where it stands.
    masks: [u64; 128],
    /// The key's length (1 to 64).
    len: usize,
}

impl Pattern {
    /// `None` when `key` is empty, longer than 64 or not ASCII.
    fn new(key: &str) -> Option<Pattern> {
        if key.is_empty() || key.len() > 64 || !key.is_ascii() {
            return None;
        }
        let mut masks = [0u64; 128];
        for (i, b) in key.bytes().enumerate() {
            masks[usize::from(b)] |= 1 << i;
        }
        Some(Pattern {
            masks,
            len: key.len(),
        })
    }

    /// The edit distance of `text` and the key, by characters, when it is
    /// at most `max`.
    fn distance_within(&self, text: &str, max: usize) -> Option<usize> {
        let n = if text.is_ascii() {
            text.len()
        } else {
            text.chars().count()
        };
        if n.abs_diff(self.len) > max {
            return None;
        }
        // The last row of the table (the key down, `text` across), kept as
        // its vertical differences (+1 in `pv`, -1 in `mv`) and its last
        // cell; the first row counts insertions (`| 1` shifted in).
        let last = self.len - 1;
        let (mut pv, mut mv, mut score) = (!0u64, 0u64, self.len);
        let mut step = |mask: u64| {
            let xv = mask | mv;
            let xh = ((mask & pv).wrapping_add(pv) ^ pv) | mask;
            let ph = mv | !(xh | pv);
            let mh = pv & xh;
            // Bits rather than branches: the fuzz targets trace every
            // comparison.
            score = score + ((ph >> last) & 1) as usize - ((mh >> last) & 1) as usize;
            let ph = (ph << 1) | 1;
            let mh = mh << 1;
            pv = mh | !(xv | ph);
            mv = ph & xv;
        };
        if text.is_ascii() {
            for b in text.bytes() {
                step(self.masks[usize::from(b)]);
            }
        } else {
            for c in text.chars() {
                // A character past ASCII is in no known key.
                step(if c.is_ascii() {
                    self.masks[c as usize]
                } else {
                    0
                });
            }
        }
        (score <= max).then_some(score)
    }
}

/// The largest distance [`suggest`] ever accepts.
pub(super) const SUGGEST_MAX: usize = 8;

/// The known key an unknown one probably meant: within an edit distance of
/// a third of the key (on the relaxed form), or any key under
/// `spring.ai.tools` whose last element is close to a known last element;
/// of the closest, the first in [`KNOWN_KEYS`].
fn suggest<'k>(uni: &[String], known: &'k [Known]) -> Option<&'k Known> {
    let joined = uni.join(".");
    let tools =
        uni.len() >= 3 && uni[0] == "spring" && uni[1] == "ai" && uni[2].starts_with("tool");
    // The farthest distance accepted: any up to SUGGEST_MAX under
    // `spring.ai.tool...`, else a third of half the key (up to 40 bytes of
    // it). Nothing past it needs computing.
    let accepted = if tools {
        SUGGEST_MAX
    } else {
        (joined.len().min(40) / 2 / 3).min(SUGGEST_MAX)
    };
    let mut map_name: Option<String> = None;
    let mut best: Option<(usize, &Known)> = None;
    for k in known {
        // Compare against the known key, or its map prefix for map entries.
        let cand: &str = if k.map && uni.len() > k.target.len() {
            map_name.get_or_insert_with(|| uni[..k.target.len()].join("."))
        } else {
            &joined
        };
        // Only a key closer than the closest so far replaces it.
        let max = match best {
            None => accepted,
            Some((0, _)) => break,
            Some((b, _)) => b - 1,
        };
        let d = match &k.pattern {
            Some(p) => p.distance_within(cand, max),
            None => edit_distance_within(cand, &k.joined, max),
        };
        if let Some(d) = d {
            best = Some((d, k));
        }
    }
    best.filter(|&(d, _)| d > 0).map(|(_, k)| k)
}

#[cfg(test)]
mod tests {
    use super::super::names::{KNOWN_KEYS, ParsedDocument, elements, target, uniform_key};
    use super::super::{Entry, JavaValue, Unknown};
    use super::{MAX_UNKNOWN, Pattern, SUGGEST_MAX, SUGGEST_TRIES, edit_distance_within};

    /// `unknown_keys` over the documents, parsed as the binder parses them.
    fn unknown_keys(documents: &[Vec<Entry>]) -> Vec<Unknown> {
        let parsed: Vec<ParsedDocument<'_>> =
            documents.iter().map(|d| ParsedDocument::new(d)).collect();
        super::unknown_keys(&parsed.iter().collect::<Vec<_>>())
    }

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

    /// A xorshift generator: the same cases on every run.
    fn generator(seed: u64) -> impl FnMut() -> u64 {
        let mut x = seed;
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    #[test]
    fn the_band_gives_the_distance_of_the_whole_table_up_to_max() {
        let mut next = generator(0x9e37_79b9_7f4a_7c15);
        let (mut checked, mut by_bits) = (0, 0);
        for n in 0..20_000 {
            // Keys of a few letters, so that distances near every `max`
            // occur; every other pair shares a start and an end, as keys
            // under `spring.ai.tools` do; in one pair in two the second key
            // is ASCII (as every known key is) and in one in four both are;
            // one in eight is up to 66 characters long.
            let mut word = |len: u64, ascii: bool| -> String {
                let alphabet = if ascii {
                    ['a', 'b', '.', 'c']
                } else {
                    ['a', 'b', '.', 'é']
                };
                let len = (next() % len) as usize;
                (0..len).map(|_| alphabet[(next() % 4) as usize]).collect()
            };
            let long = if n % 8 == 4 { 66 } else { 24 };
            let (mut a, mut b) = (word(long, n % 4 == 0), word(long, n % 4 < 2));
            if n % 2 == 1 {
                let (start, end) = (word(12, n % 4 < 2), word(6, n % 4 < 2));
                a = format!("{start}{a}{end}");
                b = format!("{start}{b}{end}");
            }
            let d = edit_distance(&a, &b);
            let pattern = Pattern::new(&b);
            for max in 0..10 {
                let want = (d <= max).then_some(d);
                assert_eq!(
                    edit_distance_within(&a, &b, max),
                    want,
                    "{a:?} {b:?} max {max}"
                );
                checked += 1;
                if let Some(p) = &pattern {
                    assert_eq!(p.distance_within(&a, max), want, "{a:?} {b:?} max {max}");
                    by_bits += 1;
                }
            }
        }
        assert_eq!(checked, 200_000);
        assert!(by_bits > 90_000, "{by_bits}");
        assert_eq!(
            edit_distance_within("spring.ai.tool.limits", "spring.ai.tools.limits", 8),
            Some(1)
        );
    }

    /// The unknown keys as first written: every key compared in full with
    /// every known key, the whole table each time.
    fn reference_unknown_keys(documents: &[Vec<Entry>]) -> Vec<Unknown> {
        let known: Vec<Vec<String>> = KNOWN_KEYS.iter().map(|(n, _)| target(n)).collect();
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
            let uni = uniform_key(&elements(&e.key));
            let tools = uni.len() > 3 && uni[..3] == ["spring", "ai", "tools"];
            if e.key.len() < shortest && !tools {
                continue;
            }
            if known.iter().any(|t| {
                let n = uni.len().min(t.len());
                uni[..n] == t[..n]
            }) {
                continue;
            }
            if let Some(&i) = index.get(&uni) {
                out[i].key.clone_from(&e.key);
                out[i].line = e.line;
                continue;
            }
            if out.len() == MAX_UNKNOWN {
                continue;
            }
            let found = if tries == SUGGEST_TRIES {
                None
            } else {
                tries += 1;
                reference_suggest(&uni, &known)
            };
            match found {
                Some(mut s) => {
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
                        suggestion: Some(s),
                    });
                }
                None if tools => {
                    index.insert(uni, out.len());
                    out.push(Unknown {
                        key: e.key.clone(),
                        line: e.line,
                        suggestion: None,
                    });
                }
                None => {}
            }
        }
        out
    }

    fn reference_suggest(uni: &[String], known: &[Vec<String>]) -> Option<String> {
        let joined = uni.join(".");
        let mut best: Option<(usize, &str)> = None;
        for ((name, _), t) in KNOWN_KEYS.iter().zip(known) {
            let cand: String = if name.ends_with("max-calls-per-tool") && uni.len() > t.len() {
                uni[..t.len()].join(".")
            } else {
                joined.clone()
            };
            let d = edit_distance(&cand, &t.join("."));
            if d <= SUGGEST_MAX && !matches!(best, Some((b, _)) if b <= d) {
                best = Some((d, name));
            }
        }
        let (d, name) = best?;
        let tools =
            uni.len() >= 3 && uni[0] == "spring" && uni[1] == "ai" && uni[2].starts_with("tool");
        (d > 0 && (d * 3 <= joined.len().min(40) / 2 || (tools && d <= SUGGEST_MAX)))
            .then(|| name.to_owned())
    }

    /// A key near a known one: pieces of the known keys, misspelt, cased,
    /// dashed, bracketed or cut.
    fn near_key(next: &mut impl FnMut() -> u64) -> String {
        const PIECES: [&str; 14] = [
            "spring",
            "ai",
            "tools",
            "tool",
            "limits",
            "limit",
            "max",
            "calls",
            "per",
            "tool",
            "weather",
            "SPRING",
            "Max_Calls",
            "天气",
        ];
        let mut key = if next().is_multiple_of(3) {
            let mut k = String::new();
            for _ in 0..(1 + next() % 7) {
                if !k.is_empty() {
                    k.push(['.', '.', '-', '_'][(next() % 4) as usize]);
                }
                k.push_str(PIECES[(next() % PIECES.len() as u64) as usize]);
            }
            k
        } else {
            KNOWN_KEYS[(next() % KNOWN_KEYS.len() as u64) as usize]
                .0
                .to_owned()
        };
        for _ in 0..(next() % 6) {
            let mut chars: Vec<char> = key.chars().collect();
            let at = (next() % (chars.len() as u64 + 1)) as usize;
            let c = ['x', '.', '-', '[', ']', 'é', 'S', '0', 'l', 's'][(next() % 10) as usize];
            match next() % 4 {
                0 if at < chars.len() => {
                    chars.remove(at);
                }
                1 if at < chars.len() => chars[at] = c,
                2 => chars.insert(at, c),
                _ => chars.truncate(at.max(12)),
            }
            key = chars.into_iter().collect();
        }
        if next().is_multiple_of(4) {
            key.push_str([".weather", "[weather]", ".x.y", "[0]"][(next() % 4) as usize]);
        }
        key
    }

    fn entry(key: String, line: usize) -> Entry {
        Entry {
            key,
            value: JavaValue::String(String::new()),
            line,
            column: 1,
        }
    }

    #[test]
    fn the_suggestions_are_those_of_the_whole_comparison() {
        let mut next = generator(0x2545_f491_4f6c_dd1d);
        let (mut files, mut suggested) = (0, 0);
        for n in 0..400 {
            // A few documents of up to 40 keys, some repeated.
            let mut docs = Vec::new();
            let mut keys: Vec<String> = Vec::new();
            for _ in 0..(1 + next() % 3) {
                let mut doc = Vec::new();
                for _ in 0..(next() % 40) {
                    let key = if !keys.is_empty() && next().is_multiple_of(4) {
                        keys[(next() % keys.len() as u64) as usize].clone()
                    } else {
                        near_key(&mut next)
                    };
                    keys.push(key.clone());
                    doc.push(entry(key, n + doc.len() + 1));
                }
                docs.push(doc);
            }
            let want = reference_unknown_keys(&docs);
            assert_eq!(unknown_keys(&docs), want, "{docs:?}");
            files += 1;
            suggested += want.len();
        }
        assert_eq!(files, 400);
        assert!(suggested > 2_000, "only {suggested} suggestions compared");
    }

    #[test]
    fn the_suggestions_stop_where_the_whole_comparison_stops() {
        let mut next = generator(0x1234_5678_9abc_def1);
        let near: Vec<Entry> = (0..2_000)
            .map(|n| {
                entry(
                    format!("spring.ai.tools.limits.max-calls-per-tols.t{n}"),
                    n + 1,
                )
            })
            .chain((0..200).map(|n| entry(near_key(&mut next), n + 1)))
            .collect();
        // Past MAX_UNKNOWN suggestions.
        let want = reference_unknown_keys(std::slice::from_ref(&near));
        assert_eq!(want.len(), MAX_UNKNOWN);
        assert_eq!(unknown_keys(std::slice::from_ref(&near)), want);
        // Past SUGGEST_TRIES keys compared, one key (outside
        // spring.ai.tools) again and again with no suggestion: every
        // comparison counts, so the keys after get none; under
        // spring.ai.tools they are still reported, without one.
        let tail = &near[..50];
        assert_eq!(reference_unknown_keys(&[tail.to_vec()]).len(), 50);
        let mut docs = vec![vec![
            entry("spring.ai.toolz.zzzzzzzzzzzzzzzzzzzz".into(), 1);
            SUGGEST_TRIES
        ]];
        docs.push(tail.to_vec());
        let suggested = |u: &[Unknown]| u.iter().filter(|u| u.suggestion.is_some()).count();
        let want = reference_unknown_keys(&docs);
        assert_eq!((want.len(), suggested(&want)), (50, 0), "{want:?}");
        assert_eq!(unknown_keys(&docs), want);
        docs[0].pop();
        let want = reference_unknown_keys(&docs);
        assert_eq!(suggested(&want), 1);
        assert_eq!(unknown_keys(&docs), want);
    }
}
