//! Relaxed names (`ConfigurationPropertyName`): elements, their uniform
//! and dashed forms, Java's hash order of equal keys, and the names' order.

use toolcall_model::model::hash_map_bucket;

use super::Entry;

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
    // By byte offsets: the delimiters are ASCII, and only whether a
    // character is its element's first matters to `update_kind`.
    split_elements(name.char_indices(), name.len(), |start, end| {
        name[start..end].to_owned()
    })
}

/// `ElementsParser.parse` over `chars`, each character with its offset in
/// any unit that `text` cuts an element's text by (`end` the offset past
/// the last).
fn split_elements(
    chars: impl Iterator<Item = (usize, char)>,
    end: usize,
    text: impl Fn(usize, usize) -> String,
) -> Vec<Element> {
    let mut out = Vec::new();
    let add = |out: &mut Vec<Element>, start: usize, end: usize, kind: Kind| {
        if end > start && kind != Kind::Empty {
            out.push(Element {
                text: text(start, end),
                kind,
            });
        }
    };
    let mut open: i64 = 0;
    let mut start = 0;
    let mut kind = Kind::Empty;
    for (i, ch) in chars {
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
    add(&mut out, start, end, kind);
    out
}

/// A name parsed as a relaxed name: its elements, their uniform forms (what
/// relaxed equality compares) and a hash of those (equal names hash alike).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Key {
    pub(super) els: Vec<Element>,
    pub(super) uni: Vec<String>,
    pub(super) hash: u64,
}

impl Key {
    pub(super) fn new(name: &str) -> Key {
        Key::of(elements(name))
    }

    pub(super) fn of(els: Vec<Element>) -> Key {
        let uni = uniform_key(&els);
        let hash = uni_hash(&uni);
        Key { els, uni, hash }
    }
}

/// A hash of a relaxed name (FNV-1a over its elements, each closed by a
/// byte UTF-8 never holds): equal names hash alike; names that hash alike
/// are compared.
pub(super) fn uni_hash(uni: &[String]) -> u64 {
    use std::hash::Hasher;
    let mut h = toolcall_model::collections::Fnv::default();
    for u in uni {
        h.write(u.as_bytes());
        h.write_u8(0xff);
    }
    h.finish()
}

/// One document with each key parsed as a relaxed name on first use, once
/// for every reader of it in a binding (the binder's sources, the
/// placeholder resolver, the unknown keys) and, kept, for every binding of
/// the same document (`check` binds a file once per value it tries).
pub(crate) struct ParsedDocument<'a> {
    pub(super) entries: &'a [Entry],
    keys: Vec<std::cell::OnceCell<Key>>,
}

impl<'a> ParsedDocument<'a> {
    /// The document, none of its keys parsed yet.
    pub(crate) fn new(entries: &'a [Entry]) -> Self {
        ParsedDocument {
            entries,
            keys: std::iter::repeat_with(std::cell::OnceCell::new)
                .take(entries.len())
                .collect(),
        }
    }

    /// The key of entry `i`, parsed.
    pub(super) fn key(&self, i: usize) -> &Key {
        self.keys[i].get_or_init(|| Key::new(&self.entries[i].key))
    }
}

/// A name the binder asks for: parsed, and in canonical form (the exact
/// key a source is asked for first).
pub(super) struct Name {
    pub(super) key: Key,
    pub(super) dashed: String,
}

impl Name {
    fn new(name: &str) -> Name {
        let key = Key::new(name);
        let dashed = dashed(&key.els);
        Name { key, dashed }
    }
}

/// Every name the binder asks for, parsed once.
pub(super) struct Names {
    pub(super) tools: Name,
    pub(super) throw_exception_on_error: Name,
    pub(super) limits: Name,
    pub(super) excluded_tools: Name,
    pub(super) max_calls_per_tool: Name,
    pub(super) max_calls_per_tool_default: Name,
    pub(super) max_total_tool_calls: Name,
    pub(super) on_limit_exceeded: Name,
    pub(super) observations: Name,
    pub(super) include_content: Name,
    pub(super) resolution: Name,
    pub(super) fallback: Name,
    pub(super) fallback_enabled: Name,
}

/// The names of `ToolCallingProperties`, parsed: a constant, worked out
/// once rather than for every binding (parsing them was a tenth of
/// `config_binder`'s time).
pub(super) static NAMES: std::sync::LazyLock<Names> = std::sync::LazyLock::new(|| Names {
    tools: Name::new("spring.ai.tools"),
    throw_exception_on_error: Name::new("spring.ai.tools.throw-exception-on-error"),
    limits: Name::new("spring.ai.tools.limits"),
    excluded_tools: Name::new("spring.ai.tools.limits.excluded-tools"),
    max_calls_per_tool: Name::new("spring.ai.tools.limits.max-calls-per-tool"),
    max_calls_per_tool_default: Name::new("spring.ai.tools.limits.max-calls-per-tool-default"),
    max_total_tool_calls: Name::new("spring.ai.tools.limits.max-total-tool-calls"),
    on_limit_exceeded: Name::new("spring.ai.tools.limits.on-limit-exceeded"),
    observations: Name::new("spring.ai.tools.observations"),
    include_content: Name::new("spring.ai.tools.observations.include-content"),
    resolution: Name::new("spring.ai.tools.resolution"),
    fallback: Name::new("spring.ai.tools.resolution.fallback"),
    fallback_enabled: Name::new("spring.ai.tools.resolution.fallback.enabled"),
});

/// `getElement(i, Form.UNIFORM)`: what relaxed equality compares
/// (lowercase ASCII letters and digits; an indexed element verbatim).
pub(super) fn uniform(e: &Element) -> String {
    match e.kind {
        Kind::Uniform | Kind::Indexed | Kind::NumericallyIndexed => e.text.clone(),
        _ => uniform_chars(&e.text).collect(),
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

/// A property name as Spring's relaxed binding compares names
/// (`ConfigurationPropertyName`): its elements' uniform forms, an indexed
/// element verbatim. `check`'s one rule for names: every key comparison,
/// map of keys and prefix test goes through this, [`same_property`] or
/// [`property_under`], as the binder's own lookups do.
pub(crate) fn relaxed_name(name: &str) -> Vec<String> {
    target(name)
}

/// Whether `a` and `b` name one property: `spring.ai.tools.limits.onLimitExceeded`
/// is `spring.ai.tools.limits.on-limit-exceeded`, `max-calls-per-tool[a]`
/// is `max-calls-per-tool.a`; `[A]` is not `.a` (an index is kept as
/// written) and `Ärger` is `rger` (only ASCII letters and digits count).
pub(crate) fn same_property(a: &str, b: &str) -> bool {
    target(a) == target(b)
}

/// Whether `key` is `prefix` or a property under it: its elements begin
/// with the prefix's, so a prefix ends at an element boundary
/// (`spring.ai.tools.Limits[x]` is under `spring.ai.tools.limits`,
/// `spring.ai.tools.limitsx` is not).
pub(crate) fn property_under(key: &str, prefix: &str) -> bool {
    target(key).starts_with(&target(prefix))
}

/// The key of the map `prefix` that `key` names an entry of, as
/// `MapBinder` gives it: the element after the map's, in its original
/// form (`group.Prod` gives `Prod`, `group[prod]` gives `prod`); `None`
/// unless `key` is exactly one element under `prefix`.
pub(crate) fn map_key_under(key: &str, prefix: &str) -> Option<String> {
    let (els, root) = (elements(key), target(prefix));
    (els.len() == root.len() + 1 && uniform_key(&els[..root.len()]) == root)
        .then(|| original(&els[root.len()]))
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

#[cfg(test)]
mod tests {
    use super::{Element, elements, split_elements, uni_hash, uniform_key};

    /// `elements` as it was written first: by character offsets into a
    /// vector of characters.
    fn elements_by_chars(name: &str) -> Vec<Element> {
        let chars: Vec<char> = name.chars().collect();
        split_elements(
            chars.iter().copied().enumerate(),
            chars.len(),
            |start, end| chars[start..end].iter().collect(),
        )
    }

    #[test]
    fn elements_by_bytes_are_those_by_characters() {
        let alphabet: Vec<char> = "..[[]]--__aAzZ09 İäß天\u{1b}".chars().collect();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut names = 0;
        for _ in 0..50_000 {
            let len = (next() % 16) as usize;
            let name: String = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect();
            let els = elements(&name);
            assert_eq!(els, elements_by_chars(&name), "{name:?}");
            names += usize::from(!els.is_empty());
        }
        assert!(names > 40_000, "{names}");
    }

    #[test]
    fn equal_relaxed_names_hash_alike_and_elements_do_not_run_together() {
        let hash = |name: &str| uni_hash(&uniform_key(&elements(name)));
        assert_eq!(
            hash("spring.ai.tools.limits.maxCallsPerTool"),
            hash("spring.ai.tools.limits.max-calls-per-tool")
        );
        assert_ne!(hash("a.bc"), hash("ab.c"));
        assert_ne!(hash("a[b.c]"), hash("a[b].c"));
    }
}
