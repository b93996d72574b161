//! Relaxed names (`ConfigurationPropertyName`): elements, their uniform
//! and dashed forms, Java's hash order of equal keys, and the names' order.

use crate::model::hash_map_bucket;

/// The properties `ToolCallingProperties` (prefix `spring.ai.tools`) binds,
/// in canonical form, with their Java types.
pub(crate) const KNOWN_KEYS: [(&str, &str); 8] = [
    (
        "spring.ai.tools.limits.excluded-tools",
        "java.util.List<java.lang.String>",
    ),
    (
        "spring.ai.tools.limits.max-calls-per-tool",
        "java.util.Map<java.lang.String, java.lang.Integer>",
    ),
    (
        "spring.ai.tools.limits.max-calls-per-tool-default",
        "java.lang.Integer",
    ),
    (
        "spring.ai.tools.limits.max-total-tool-calls",
        "java.lang.Integer",
    ),
    (
        "spring.ai.tools.limits.on-limit-exceeded",
        "org.springframework.ai.model.tool.ToolCallLimitBehavior",
    ),
    ("spring.ai.tools.observations.include-content", "boolean"),
    ("spring.ai.tools.resolution.fallback.enabled", "boolean"),
    ("spring.ai.tools.throw-exception-on-error", "boolean"),
];

/// The type `ConfigurationPropertyName`'s parser (`ElementsParser`) gives an
/// element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// No valid character: the parser drops the element.
    Empty,
    /// `a-z0-9`, starting with a letter or digit.
    Uniform,
    /// Uniform with a dash (not first).
    Dashed,
    /// Anything else outside brackets: compared in its uniform form.
    NonUniform,
    /// `[...]`, not all digits: compared verbatim.
    Indexed,
    /// `[0-9...]`.
    NumericallyIndexed,
}

impl Kind {
    pub(super) fn indexed(self) -> bool {
        matches!(self, Kind::Indexed | Kind::NumericallyIndexed)
    }
}

/// One element of a property name, as `ConfigurationPropertyName.adapt`
/// keeps it: its source text and its type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Element {
    pub(super) text: String,
    pub(super) kind: Kind,
}

/// `ElementsParser.isValidChar`.
pub(super) fn valid_char(c: char, index: usize) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit() || (index != 0 && c == '-')
}

/// `Character.toLowerCase(char)` (the simple mapping: `İ` gives `i`).
pub(super) fn java_lower(c: char) -> char {
    c.to_lowercase().next().unwrap_or(c)
}

/// `ElementsParser.updateType`. Only whether `index` is 0 matters, so a
/// character index stands for Java's UTF-16 index.
pub(super) fn update_kind(kind: Kind, ch: char, index: usize) -> Kind {
    if kind.indexed() {
        return if kind == Kind::NumericallyIndexed && !ch.is_ascii_digit() {
            Kind::Indexed
        } else {
            kind
        };
    }
    if kind == Kind::Empty && valid_char(ch, index) {
        return if index == 0 {
            Kind::Uniform
        } else {
            Kind::NonUniform
        };
    }
    if kind == Kind::Uniform && ch == '-' {
        return Kind::Dashed;
    }
    if !valid_char(ch, index) {
        if kind == Kind::Empty && !valid_char(java_lower(ch), index) {
            return Kind::Empty;
        }
        return Kind::NonUniform;
    }
    kind
}

/// `ConfigurationPropertyName.adapt(name, '.')` (`ElementsParser.parse`):
/// elements split at dots outside brackets, `[...]` an indexed element
/// (brackets nest), an unclosed bracket's text a plain element. An element
/// with no valid character (`_`, `天气`, `-`) and an empty one (`a..b`,
/// `a[]`) are dropped, so `max-calls-per-tool.天气` names the map itself.
pub(super) fn elements(name: &str) -> Vec<Element> {
    let chars: Vec<char> = name.chars().collect();
    let mut out = Vec::new();
    let add = |out: &mut Vec<Element>, start: usize, end: usize, kind: Kind| {
        if end > start && kind != Kind::Empty {
            out.push(Element {
                text: chars[start..end].iter().collect(),
                kind,
            });
        }
    };
    let mut open: i64 = 0;
    let mut start = 0;
    let mut kind = Kind::Empty;
    for (i, &ch) in chars.iter().enumerate() {
        if ch == '[' {
            if open == 0 {
                add(&mut out, start, i, kind);
                start = i + 1;
                kind = Kind::NumericallyIndexed;
            }
            open += 1;
        } else if ch == ']' {
            open -= 1;
            if open == 0 {
                add(&mut out, start, i, kind);
                start = i + 1;
                kind = Kind::Empty;
            }
        } else if !kind.indexed() && ch == '.' {
            add(&mut out, start, i, kind);
            start = i + 1;
            kind = Kind::Empty;
        } else {
            kind = update_kind(kind, ch, i - start);
        }
    }
    if open != 0 {
        kind = Kind::NonUniform;
    }
    add(&mut out, start, chars.len(), kind);
    out
}

/// `getElement(i, Form.UNIFORM)`: what relaxed equality compares
/// (lowercase ASCII letters and digits; an indexed element verbatim).
pub(super) fn uniform(e: &Element) -> String {
    match e.kind {
        Kind::Uniform | Kind::Indexed | Kind::NumericallyIndexed => e.text.clone(),
        _ => uniform_chars(&e.text).collect(),
    }
}

/// `uniform(e) == u`, without building `uniform(e)`.
pub(super) fn uniform_eq(e: &Element, u: &str) -> bool {
    match e.kind {
        Kind::Uniform | Kind::Indexed | Kind::NumericallyIndexed => e.text == u,
        _ => uniform_chars(&e.text).eq(u.chars()),
    }
}

/// The uniform form of a non-uniform element's text: lowercased, its
/// ASCII letters and digits.
fn uniform_chars(text: &str) -> impl Iterator<Item = char> + '_ {
    text.chars()
        .map(java_lower)
        .filter(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
}

/// `getElement(i, Form.ORIGINAL)`: a map key's element. A uniform or
/// dashed element as written; otherwise `_` and the characters valid once
/// lowercased, case kept (`wetter_ä` gives `wetter_`).
pub(super) fn original(e: &Element) -> String {
    match e.kind {
        Kind::NonUniform | Kind::Empty => e
            .text
            .chars()
            .enumerate()
            .filter(|&(i, c)| c == '_' || valid_char(java_lower(c), i))
            .map(|(_, c)| c)
            .collect(),
        _ => e.text.clone(),
    }
}

/// `getElement(i, Form.DASHED)`.
pub(super) fn dashed_element(e: &Element) -> String {
    match e.kind {
        Kind::NonUniform | Kind::Empty => e
            .text
            .chars()
            .map(java_lower)
            .enumerate()
            .filter(|&(i, c)| valid_char(c, i))
            .map(|(_, c)| c)
            .collect(),
        _ => e.text.clone(),
    }
}

/// `ConfigurationPropertyName.toString()`: dashed elements joined by dots,
/// indexed ones in brackets.
pub(super) fn dashed(els: &[Element]) -> String {
    let mut s = String::new();
    for e in els {
        if e.kind.indexed() {
            s.push('[');
            s.push_str(&e.text);
            s.push(']');
        } else {
            if !s.is_empty() {
                s.push('.');
            }
            s.push_str(&dashed_element(e));
        }
    }
    s
}

pub(super) fn uniform_key(els: &[Element]) -> Vec<String> {
    els.iter().map(uniform).collect()
}

pub(super) fn target(s: &str) -> Vec<String> {
    uniform_key(&elements(s))
}

/// `HashMap`'s iteration order of `keys` inserted in this order into a
/// table of `capacity`: by bucket, then by insertion within a bucket
/// (resizing splits buckets without reordering them). Trees (8 or more
/// keys in one bucket of a table of 64 or more) are not modelled.
pub(super) fn java_hash_order(keys: &[&str], capacity: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by_key(|&i| hash_map_bucket(keys[i], capacity));
    order
}

/// The table size of a `HashSet` after `n` insertions into `new HashSet<>()`
/// (16, doubled each time the size passes three quarters of it).
pub(super) fn hash_set_capacity(n: usize) -> usize {
    let mut cap = 16;
    while n > cap / 4 * 3 {
        cap *= 2;
    }
    cap
}

/// The table size of a `HashMap` that `putAll` pre-sized for `n` entries
/// (JDK 17's `putMapEntries`: `tableSizeFor((int) (n / 0.75f + 1.0f))`).
/// JDK 19 and later size for `ceil(n / 0.75)`, a smaller table when `n` is
/// 3 times a power of two, so their iteration order can differ there.
pub(super) fn put_all_capacity(n: usize) -> usize {
    #[allow(
        clippy::cast_precision_loss,
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss
    )]
    let t = (n as f32 / 0.75f32 + 1.0f32) as usize;
    t.max(1).next_power_of_two()
}

/// `ConfigurationPropertyName.compareTo`: element by element in uniform
/// form, indexed before plain, two numeric indexes by value (`Long.parseLong`;
/// an index past `long` is compared by length then digits, where Java
/// throws), others as Java strings (UTF-16 order).
pub(super) fn compare_names(a: &[Element], b: &[Element]) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    for i in 0..a.len().max(b.len()) {
        let (Some(x), Some(y)) = (a.get(i), b.get(i)) else {
            return if a.len() < b.len() {
                Ordering::Less
            } else {
                Ordering::Greater
            };
        };
        let r = y.kind.indexed().cmp(&x.kind.indexed());
        if r != Ordering::Equal {
            return r;
        }
        let (ux, uy) = (uniform(x), uniform(y));
        let r = if x.kind == Kind::NumericallyIndexed && y.kind == Kind::NumericallyIndexed {
            match (ux.parse::<i64>(), uy.parse::<i64>()) {
                (Ok(p), Ok(q)) => p.cmp(&q),
                _ => {
                    let (tx, ty) = (ux.trim_start_matches('0'), uy.trim_start_matches('0'));
                    tx.len().cmp(&ty.len()).then_with(|| tx.cmp(ty))
                }
            }
        } else {
            ux.encode_utf16().cmp(uy.encode_utf16())
        };
        if r != Ordering::Equal {
            return r;
        }
    }
    Ordering::Equal
}
