//! `${NAME:default}` placeholders, resolved as Spring 7's
//! `PlaceholderParser` does, within this model's bounds.

use std::collections::HashMap;

use super::names::{Key, Kind, ParsedDocument, dashed, hash_set_capacity, java_hash_order};
use super::{Entry, JavaValue, MAX_EXPANDED_BYTES, expands_too_much};

/// Placeholders nested deeper than this are not resolved: the binding
/// stops with [`BindFailure::Limit`](super::BindFailure::Limit) (Spring resolves them, up to its
/// stack).
pub(crate) const MAX_PLACEHOLDER_DEPTH: usize = 100;

pub(super) const PLACEHOLDER_LIMIT: &str =
    "placeholders nested more than 100 deep: toolcall-model does not resolve them";

pub(super) const PLACEHOLDER_EXCEPTION: &str =
    "org.springframework.util.PlaceholderResolutionException: ";

pub(super) fn placeholders_expand_too_much() -> String {
    format!(
        "{}: toolcall-model does not resolve them",
        expands_too_much("placeholders")
    )
}

/// What a name looked up costs against [`MAX_EXPANDED_BYTES`] besides its
/// length, so that placeholders resolving to nothing count too.
pub(super) const LOOKUP_COST: usize = 16;

/// The text between `${` and its `}` (nested braces counted), as Spring's
/// `PlaceholderParser` parses a value: text and placeholders; a `${`
/// preceded by `\` is literal (the `\` dropped); an unclosed `${` is text.
#[derive(Debug, Clone)]
pub(super) enum Part {
    Text(String),
    /// `${key}` or `${key:fallback}` without nested placeholders; `text` is
    /// all between the braces (tried as a key first).
    Simple {
        text: String,
        key: String,
        fallback: Option<String>,
    },
    /// A placeholder with placeholders inside: the key's parts and the
    /// fallback's parts (after the first unescaped `:` of a text part).
    Nested {
        key: Vec<Part>,
        fallback: Option<Vec<Part>>,
    },
}

pub(super) fn add_text(parts: &mut Vec<Part>, t: &str) {
    if t.is_empty() {
        return;
    }
    if let Some(Part::Text(last)) = parts.last_mut() {
        last.push_str(t);
    } else {
        parts.push(Part::Text(t.to_owned()));
    }
}

/// `nextValidEndPrefix` for every `${` of `v` at once: the `}` closing
/// the `${` at each start, counting `{`. Java scans from each `${` to its
/// end, quadratic in a value of unclosed `${`; one pass finds them all: the
/// `${` at `s` closes at the first `}` that takes the count of `{` minus `}`
/// below its value just after `s + 2`.
pub(super) fn placeholder_ends(v: &str) -> std::collections::HashMap<usize, usize> {
    let b = v.as_bytes();
    let mut ends = std::collections::HashMap::new();
    // Starts waiting for their `}`, with the count they wait to go below
    // (non-decreasing from bottom to top).
    let mut open: Vec<(usize, i64)> = Vec::new();
    let mut balance = 0i64;
    for i in 0..b.len() {
        if i >= 2 && b[i - 2] == b'$' && b[i - 1] == b'{' {
            open.push((i - 2, balance));
        }
        match b[i] {
            b'{' => balance += 1,
            b'}' => {
                balance -= 1;
                while let Some(&(s, level)) = open.last() {
                    if level <= balance {
                        break;
                    }
                    ends.insert(s, i);
                    open.pop();
                }
            }
            _ => {}
        }
    }
    ends
}

/// `parseSection`: the key and the fallback after the first `:` not
/// preceded by `\` (an escaped `:` loses its `\`).
pub(super) fn parse_section(v: &str) -> (String, Option<String>) {
    let mut key = String::new();
    let mut pos = 0;
    while let Some(off) = v[pos..].find(':') {
        let i = pos + off;
        if i > 0 && v.as_bytes()[i - 1] == b'\\' {
            key.push_str(&v[pos..i - 1]);
            key.push(':');
            pos = i + 1;
        } else {
            key.push_str(&v[pos..i]);
            return (key, Some(v[i + 1..].to_owned()));
        }
    }
    key.push_str(&v[pos..]);
    (key, None)
}

/// `PlaceholderParser.parse`: `None` when the value has no `${`.
pub(super) fn parse_placeholders(
    v: &str,
    inside: bool,
    depth: usize,
) -> Result<Option<Vec<Part>>, String> {
    // One pass finds every `${`'s end for every level: an inner `${`
    // closes inside its outer one, at the same place whether counted from
    // the outer value or from the inner text alone. A map per level was the
    // whole value again at each of the 100 levels (a 2 MB value of nested
    // `${x:` took 906 MB).
    parse_within(v, 0, &placeholder_ends(v), inside, depth)
}

/// [`parse_placeholders`] on `v`, the text at `base` of the value whose
/// `${` ends are `ends`.
fn parse_within(
    v: &str,
    base: usize,
    ends: &std::collections::HashMap<usize, usize>,
    inside: bool,
    depth: usize,
) -> Result<Option<Vec<Part>>, String> {
    if depth > MAX_PLACEHOLDER_DEPTH {
        return Err(PLACEHOLDER_LIMIT.into());
    }
    let Some(mut start) = v.find("${") else {
        return Ok(None);
    };
    let mut parts = Vec::new();
    let mut pos = 0;
    loop {
        match ends.get(&(base + start)).map(|&end| end - base) {
            None => {
                add_text(&mut parts, &v[pos..start + 2]);
                pos = start + 2;
            }
            Some(_) if start > 0 && v.as_bytes()[start - 1] == b'\\' => {
                add_text(&mut parts, &v[pos..start - 1]);
                add_text(&mut parts, "${");
                pos = start + 2;
            }
            Some(end) => {
                add_text(&mut parts, &v[pos..start]);
                let inner = &v[start + 2..end];
                match parse_within(inner, base + start + 2, ends, true, depth + 1)? {
                    None => {
                        let (key, fallback) = parse_section(inner);
                        parts.push(Part::Simple {
                            text: inner.to_owned(),
                            key,
                            fallback,
                        });
                    }
                    Some(p) => parts.extend(p),
                }
                pos = end + 1;
            }
        }
        match v[pos..].find("${") {
            Some(off) => start = pos + off,
            None => break,
        }
    }
    add_text(&mut parts, &v[pos..]);
    if !inside {
        return Ok(Some(parts));
    }
    // createNestedPlaceholderPart: the parts after the first fallback are
    // moved into it, not copied (a copy at each level was the depth times
    // the value).
    let mut key = Vec::new();
    let mut rest = parts.into_iter();
    while let Some(p) = rest.next() {
        match p {
            Part::Text(t) => {
                let (k, fallback) = parse_section(&t);
                key.push(Part::Text(k));
                if let Some(f) = fallback {
                    let mut d = vec![Part::Text(f)];
                    d.extend(rest);
                    return Ok(Some(vec![Part::Nested {
                        key,
                        fallback: Some(d),
                    }]));
                }
            }
            other => key.push(other),
        }
    }
    Ok(Some(vec![Part::Nested {
        key,
        fallback: None,
    }]))
}

/// A `${NAME}` or `${NAME:default}` a value names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PlaceholderRef {
    /// The name, as written between `${` and its `:` or `}`.
    pub(crate) name: String,
    /// Whether a default follows the name.
    pub(crate) has_default: bool,
}

/// The placeholders of `value` as Spring's `PlaceholderParser` reads them,
/// in the order their `${` stand, nested ones included: `\${` is text, an
/// unclosed `${` is text, an escaped `\:` is part of the name. A
/// placeholder whose name is itself built from placeholders (`${a${b}}`)
/// has no name of its own: only the ones inside it are listed. `check`'s
/// one reading of `${`: the binder resolves through [`parse_placeholders`]
/// too. A value nested past [`MAX_PLACEHOLDER_DEPTH`] lists none.
pub(crate) fn placeholder_refs(value: &str) -> Vec<PlaceholderRef> {
    let mut out = Vec::new();
    if let Ok(Some(parts)) = parse_placeholders(value, false, 0) {
        refs_in(&parts, &mut out);
    }
    out
}

fn refs_in(parts: &[Part], out: &mut Vec<PlaceholderRef>) {
    for part in parts {
        match part {
            Part::Text(_) => {}
            Part::Simple { key, fallback, .. } => out.push(PlaceholderRef {
                name: key.clone(),
                has_default: fallback.is_some(),
            }),
            Part::Nested { key, fallback } => {
                let mut name = String::new();
                let fixed = key.iter().all(|k| match k {
                    Part::Text(t) => {
                        name.push_str(t);
                        true
                    }
                    _ => false,
                });
                if fixed {
                    out.push(PlaceholderRef {
                        name,
                        has_default: fallback.is_some(),
                    });
                }
                refs_in(key, out);
                if let Some(f) = fallback {
                    refs_in(f, out);
                }
            }
        }
    }
}

pub(super) fn err_limit() -> PlaceholderError {
    PlaceholderError {
        reason: PLACEHOLDER_LIMIT.into(),
        values: Vec::new(),
    }
}

/// A placeholder that failed: `PlaceholderResolutionException`'s reason and
/// the values it was met in, innermost first.
pub(super) struct PlaceholderError {
    pub(super) reason: String,
    pub(super) values: Vec<String>,
}

impl PlaceholderError {
    pub(super) fn message(&self) -> String {
        let mut m = format!("{PLACEHOLDER_EXCEPTION}{}", self.reason);
        if !self.values.is_empty() {
            m.push_str(" in value ");
            m.push_str(
                &self
                    .values
                    .iter()
                    .map(|v| format!("\"{v}\""))
                    .collect::<Vec<_>>()
                    .join(" <-- "),
            );
        }
        m
    }
}

/// A value with its `${...}` placeholders resolved against `documents`
/// as the binder resolves a bound value's (a later document first; an
/// unresolvable placeholder stays as written); an error is Spring's
/// refusal (a circular reference, past the depth or work limits).
///
/// ```
/// use toolcall_check::config::{parse_properties, resolve_placeholders};
/// let docs = parse_properties(b"env=prod\n").unwrap();
/// assert_eq!(resolve_placeholders(&docs, "${env},${zone:eu}").unwrap(), "prod,eu");
/// assert_eq!(resolve_placeholders(&docs, "${other}").unwrap(), "${other}");
/// ```
pub fn resolve_placeholders(documents: &[Vec<Entry>], value: &str) -> Result<String, String> {
    ValueResolver::new(documents).resolve(value)
}

/// [`resolve_placeholders`] for many values of the same documents: the
/// documents are indexed once, and the work of all the values counts
/// against one limit.
pub(crate) struct ValueResolver<'a>(Placeholders<'a>);

impl<'a> ValueResolver<'a> {
    /// A resolver over these documents (the last one first).
    pub(crate) fn new(documents: &'a [Vec<Entry>]) -> Self {
        ValueResolver(Placeholders::new(documents))
    }

    /// The value with its placeholders resolved.
    pub(crate) fn resolve(&self, value: &str) -> Result<String, String> {
        match self.0.resolve(&JavaValue::String(value.to_owned()))? {
            JavaValue::String(s) => Ok(s),
            other => Ok(other.to_java_string()),
        }
    }

    /// [`resolve`](Self::resolve), and whether every placeholder found a
    /// value: a `${` left in a resolved value may be an escaped one's
    /// text (`\${x}`), which is the value, not a name left open.
    pub(crate) fn resolve_all(&self, value: &str) -> Result<(String, bool), String> {
        let before = self.0.left_open.get();
        let v = self.resolve(value)?;
        Ok((v, self.0.left_open.get() == before))
    }
}

/// Resolves the `${...}` placeholders of property values as the binder's
/// `PropertySourcesPlaceholdersResolver` does, against the file alone: a
/// canonical name (`other.value`, `other-value`) through relaxed binding
/// over every document, another (`LIMIT`, `otherValue`) by its exact key;
/// unresolvable placeholders stay as written. The names not found in the
/// file are kept: Spring would read them from the environment first.
pub(super) struct Placeholders<'a> {
    pub(super) documents: Documents<'a>,
    /// Every property of every document, last document first (built on
    /// the first placeholder).
    pub(super) all: std::cell::OnceCell<AllSources<'a>>,
    /// The names not found, in order, and as a set (a file can name tens
    /// of thousands).
    pub(super) missing: std::cell::RefCell<(Vec<String>, std::collections::HashSet<String>)>,
    /// The work done so far against [`MAX_EXPANDED_BYTES`]: a value is
    /// resolved again at every use, and each level may double the text.
    pub(super) spent: std::cell::Cell<usize>,
    /// How many placeholders were left as written (no value, no default):
    /// whether a `${` in a resolved value is a placeholder left open or
    /// the text of an escaped one.
    pub(super) left_open: std::cell::Cell<usize>,
    /// Set while `${key:fallback}` is tried whole as a key first (the next
    /// lookup clears it): a name not found then is not a placeholder of
    /// the file's (its key is), and is not listed as missing.
    pub(super) quiet: std::cell::Cell<bool>,
}

/// The documents a resolver reads, in file order: its own, or the
/// binder's (whose keys are parsed once for both).
pub(super) enum Documents<'a> {
    Own(Vec<ParsedDocument<'a>>),
    Shared(&'a [&'a ParsedDocument<'a>]),
}

impl<'a> Documents<'a> {
    fn len(&self) -> usize {
        match self {
            Documents::Own(d) => d.len(),
            Documents::Shared(d) => d.len(),
        }
    }

    fn get(&self, i: usize) -> &ParsedDocument<'a> {
        match self {
            Documents::Own(d) => &d[i],
            Documents::Shared(d) => d[i],
        }
    }
}

/// Every document's properties, and where each name is first found: a
/// lookup asks only the first document that can answer it (asking each in
/// turn was quadratic over thousands of documents).
pub(super) struct AllSources<'a> {
    pub(super) docs: Vec<AllSource<'a>>,
    /// The first document with this exact key.
    pub(super) exact: HashMap<&'a str, usize>,
    /// The first document with a key of a relaxed name of this hash (no
    /// later than the first with the name).
    pub(super) relaxed: HashMap<u64, usize>,
}

/// A document's properties, every key (not only `spring.ai.tools`).
pub(super) struct AllSource<'a> {
    /// Its place in [`Placeholders::documents`].
    pub(super) doc: usize,
    pub(super) exact: HashMap<&'a str, &'a Entry>,
    /// The entries (by index) of each relaxed name's hash, in file order.
    pub(super) relaxed: HashMap<u64, Vec<usize>>,
}

impl<'a> Placeholders<'a> {
    pub(super) fn new(documents: &'a [Vec<Entry>]) -> Self {
        Placeholders::over(Documents::Own(
            documents.iter().map(|d| ParsedDocument::new(d)).collect(),
        ))
    }

    /// A resolver over the binder's documents.
    pub(super) fn shared(documents: &'a [&'a ParsedDocument<'a>]) -> Self {
        Placeholders::over(Documents::Shared(documents))
    }

    fn over(documents: Documents<'a>) -> Self {
        Placeholders {
            documents,
            all: std::cell::OnceCell::new(),
            missing: Default::default(),
            spent: std::cell::Cell::new(0),
            left_open: std::cell::Cell::new(0),
            quiet: std::cell::Cell::new(false),
        }
    }

    pub(super) fn charge(&self, n: usize) -> Result<(), PlaceholderError> {
        let spent = self.spent.get().saturating_add(n);
        self.spent.set(spent);
        if spent > MAX_EXPANDED_BYTES {
            return Err(PlaceholderError {
                reason: placeholders_expand_too_much(),
                values: Vec::new(),
            });
        }
        Ok(())
    }

    /// Document `doc` indexed: by exact key (the last entry of a key put
    /// twice) and by relaxed name (its first).
    fn source(&self, doc: usize) -> AllSource<'a> {
        let parsed = self.documents.get(doc);
        let entries: &'a [Entry] = parsed.entries;
        let mut s = AllSource {
            doc,
            exact: Default::default(),
            relaxed: Default::default(),
        };
        for (i, e) in entries.iter().enumerate() {
            if s.exact.insert(e.key.as_str(), e).is_none() {
                s.relaxed.entry(parsed.key(i).hash).or_default().push(i);
            }
        }
        s
    }

    pub(super) fn sources(&self) -> &AllSources<'a> {
        self.all.get_or_init(|| {
            let docs: Vec<AllSource<'a>> = (0..self.documents.len())
                .rev()
                .map(|d| self.source(d))
                .collect();
            let mut all = AllSources {
                docs: Vec::new(),
                exact: Default::default(),
                relaxed: Default::default(),
            };
            for (i, d) in docs.iter().enumerate() {
                for k in d.exact.keys() {
                    all.exact.entry(*k).or_insert(i);
                }
                for &h in d.relaxed.keys() {
                    all.relaxed.entry(h).or_insert(i);
                }
            }
            all.docs = docs;
            all
        })
    }

    /// The entry of `s` whose relaxed name is `name`'s: of several, the
    /// first in Spring's `HashSet` order of their keys.
    fn relaxed_in(&self, s: &AllSource<'a>, name: &Key) -> Option<&'a Entry> {
        let parsed = self.documents.get(s.doc);
        let entries: &'a [Entry] = parsed.entries;
        let candidates: Vec<&'a Entry> = s
            .relaxed
            .get(&name.hash)?
            .iter()
            .filter(|&&i| parsed.key(i).uni == name.uni)
            .map(|&i| &entries[i])
            .collect();
        if let [only] = candidates[..] {
            return Some(only);
        }
        let keys: Vec<&str> = candidates.iter().map(|e| e.key.as_str()).collect();
        let first = *java_hash_order(&keys, hash_set_capacity(keys.len())).first()?;
        Some(candidates[first])
    }

    /// `PropertySourcesPlaceholdersResolver.resolvePlaceholder`.
    pub(super) fn lookup(&self, name: &str) -> Option<String> {
        // The flag speaks for this one name, not for those its value names.
        let quiet = self.quiet.replace(false);
        let key = Key::new(name);
        let canonical = !name.is_empty()
            && !name.starts_with('.')
            && !name.ends_with('.')
            && key.els.iter().all(|e| e.kind != Kind::NonUniform);
        // A canonical name is also looked up by its canonical form and
        // relaxed name.
        let relaxed = (canonical && !key.els.is_empty()).then(|| dashed(&key.els));
        let all = self.sources();
        let mut first = all.exact.get(name).copied();
        if let Some(d) = &relaxed {
            let more = [all.exact.get(d.as_str()), all.relaxed.get(&key.hash)];
            first = first
                .into_iter()
                .chain(more.into_iter().flatten().copied())
                .min();
        }
        let from = first.unwrap_or(all.docs.len());
        let found = all.docs[from..].iter().find_map(|s| {
            if let Some(e) = s.exact.get(name) {
                return Some(*e);
            }
            let d = relaxed.as_ref()?;
            if let Some(e) = s.exact.get(d.as_str()) {
                return Some(*e);
            }
            self.relaxed_in(s, &key)
        });
        match found {
            Some(e) => Some(e.value.to_java_string()),
            None if quiet => None,
            None => {
                let (order, seen) = &mut *self.missing.borrow_mut();
                if seen.insert(name.to_owned()) {
                    order.push(name.to_owned());
                }
                None
            }
        }
    }

    /// The value with its placeholders resolved (a non-string value as is).
    pub(super) fn resolve(&self, v: &JavaValue) -> Result<JavaValue, String> {
        match v {
            JavaValue::String(s) if s.contains("${") => {
                let mut visited = Vec::new();
                self.replace(s, &mut visited, 0)
                    .map(JavaValue::String)
                    .map_err(|e| e.message())
            }
            other => Ok(other.clone()),
        }
    }

    pub(super) fn replace(
        &self,
        v: &str,
        visited: &mut Vec<String>,
        depth: usize,
    ) -> Result<String, PlaceholderError> {
        let err = |reason: String| PlaceholderError {
            reason,
            values: Vec::new(),
        };
        self.charge(v.len())?;
        let parts = match parse_placeholders(v, false, 0).map_err(err)? {
            None => return Ok(v.to_owned()),
            Some(p) => p,
        };
        self.resolve_all(&parts, visited, depth).map_err(|mut e| {
            e.values.push(v.to_owned());
            e
        })
    }

    pub(super) fn resolve_all(
        &self,
        parts: &[Part],
        visited: &mut Vec<String>,
        depth: usize,
    ) -> Result<String, PlaceholderError> {
        let mut out = String::new();
        for p in parts {
            let piece = self.resolve_part(p, visited, depth)?;
            self.charge(piece.len() + 1)?;
            out.push_str(&piece);
        }
        Ok(out)
    }

    /// `resolveRecursively(context, key)`.
    pub(super) fn recursively(
        &self,
        key: &str,
        visited: &mut Vec<String>,
        depth: usize,
    ) -> Result<Option<String>, PlaceholderError> {
        self.charge(key.len() + LOOKUP_COST)?;
        let Some(value) = self.lookup(key) else {
            return Ok(None);
        };
        if !value.contains("${") {
            return Ok(Some(value));
        }
        if depth > MAX_PLACEHOLDER_DEPTH {
            return Err(err_limit());
        }
        if visited.iter().any(|k| k == key) {
            return Err(PlaceholderError {
                reason: format!("Circular placeholder reference '{key}'"),
                values: Vec::new(),
            });
        }
        visited.push(key.to_owned());
        let r = self.replace(&value, visited, depth + 1)?;
        visited.retain(|k| k != key);
        Ok(Some(r))
    }

    /// An unresolvable placeholder, as Spring leaves it: `${key}`.
    fn leave_open(&self, key: &str) -> String {
        self.left_open.set(self.left_open.get() + 1);
        format!("${{{key}}}")
    }

    pub(super) fn resolve_part(
        &self,
        p: &Part,
        visited: &mut Vec<String>,
        depth: usize,
    ) -> Result<String, PlaceholderError> {
        match p {
            Part::Text(t) => Ok(t.clone()),
            Part::Simple {
                text,
                key,
                fallback,
            } => {
                if text != key {
                    self.quiet.set(true);
                    let whole = self.recursively(text, visited, depth);
                    self.quiet.set(false);
                    if let Some(v) = whole? {
                        return Ok(v);
                    }
                }
                if let Some(v) = self.recursively(key, visited, depth)? {
                    return Ok(v);
                }
                Ok(fallback.clone().unwrap_or_else(|| self.leave_open(key)))
            }
            Part::Nested { key, fallback } => {
                let k = self.resolve_all(key, visited, depth)?;
                if let Some(v) = self.recursively(&k, visited, depth)? {
                    return Ok(v);
                }
                match fallback {
                    Some(d) => self.resolve_all(d, visited, depth),
                    None => Ok(self.leave_open(&k)),
                }
            }
        }
    }
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.

    #[test]
    fn example_value_resolver() {
        use crate::config::{ValueResolver, parse_properties};
        let docs = parse_properties(b"a=1\nb=${a}${a}\n").unwrap();
        let r = ValueResolver::new(&docs);
        assert_eq!(r.resolve("${b}").unwrap(), "11");
        assert_eq!(r.resolve("${c:2}").unwrap(), "2");
    }
}
