//! The binder: each property of `ToolCallingProperties` taken from the
//! documents, converted (`ApplicationConversionService`), and handed to the
//! auto-configuration's `ToolCallLimits` builder calls.

use std::collections::{BTreeMap, HashMap};

use toolcall_model::model::{LimitsError, OnExceeded, ToolCallLimits, is_java_whitespace};

use super::names::{
    Element, Key, Kind, NAMES, Name, ParsedDocument, compare_names, dashed, hash_set_capacity,
    java_hash_order, java_lower, original, put_all_capacity, uniform,
};
use super::placeholders::{
    PLACEHOLDER_EXCEPTION, PLACEHOLDER_LIMIT, Placeholders, placeholders_expand_too_much,
};
use super::unknown::unknown_keys;
use super::{BindFailure, BoundProperties, Entry, JavaValue, PropertyFailure, java_double};

/// One property of one document, with its key parsed.
pub(super) struct Prop<'a> {
    pub(super) key: &'a Key,
    pub(super) entry: &'a Entry,
}

/// Whether a key can name something under `spring.ai.tools`, without
/// parsing it: its letters and digits, lowercased, start with
/// `springaitools` (every element's uniform form is made of them, and a
/// dropped element has none).
pub(super) fn may_be_under_tools(key: &str) -> bool {
    let mut want = "springaitools".chars();
    let mut next = want.next();
    for c in key.chars().map(java_lower) {
        let Some(w) = next else {
            return true;
        };
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            if c != w {
                return false;
            }
            next = want.next();
        }
    }
    next.is_none()
}

/// One document as Spring Boot's `SpringIterableConfigurationPropertySource`
/// over it sees it: its properties under `spring.ai.tools` in file order,
/// by exact key, and by relaxed name (in file order).
pub(super) struct Source<'a> {
    pub(super) props: Vec<Prop<'a>>,
    pub(super) exact: HashMap<&'a str, usize>,
    /// By the hash of the relaxed name (equal names are checked on lookup).
    pub(super) relaxed: HashMap<u64, Vec<usize>>,
}

impl<'a> Source<'a> {
    pub(super) fn new(document: &'a ParsedDocument<'a>) -> Source<'a> {
        let tools = &NAMES.tools.key.uni;
        let mut s = Source {
            props: Vec::new(),
            exact: Default::default(),
            relaxed: Default::default(),
        };
        for (i, e) in document.entries.iter().enumerate() {
            if !may_be_under_tools(&e.key) {
                continue;
            }
            // A key put again keeps its place and takes the new value
            // (the loaders' LinkedHashMap).
            if let Some(&j) = s.exact.get(e.key.as_str()) {
                s.props[j].entry = e;
                continue;
            }
            let key = document.key(i);
            if !key.uni.starts_with(tools) {
                continue;
            }
            let j = s.props.len();
            s.exact.insert(e.key.as_str(), j);
            s.relaxed.entry(key.hash).or_default().push(j);
            s.props.push(Prop { key, entry: e });
        }
        s
    }

    /// `getConfigurationProperty(name)`: the property whose key is the
    /// name's canonical form (`dashed`); else, among the keys with an equal
    /// relaxed name, the first in the order of the `HashSet` of keys Spring
    /// keeps for that name (by `String.hashCode()`, not by file order).
    pub(super) fn get(&self, name: &Key, dashed: &str) -> Option<&Prop<'a>> {
        if let Some(&i) = self.exact.get(dashed) {
            return Some(&self.props[i]);
        }
        let candidates: Vec<usize> = self
            .relaxed
            .get(&name.hash)?
            .iter()
            .copied()
            .filter(|&i| self.props[i].key.uni == name.uni)
            .collect();
        if let [only] = candidates[..] {
            return Some(&self.props[only]);
        }
        let keys: Vec<&str> = candidates
            .iter()
            .map(|&i| self.props[i].entry.key.as_str())
            .collect();
        let first = *java_hash_order(&keys, hash_set_capacity(keys.len())).first()?;
        Some(&self.props[candidates[first]])
    }

    /// [`Source::get`] of a property's own name.
    pub(super) fn get_prop(&self, p: &Prop<'_>) -> Option<&Prop<'a>> {
        self.get(p.key, &dashed(&p.key.els))
    }

    /// The properties strictly under `uni`, in file order.
    pub(super) fn under<'s>(
        &'s self,
        uni: &'s [String],
    ) -> impl Iterator<Item = &'s Prop<'a>> + 's {
        self.props
            .iter()
            .filter(move |p| p.key.uni.len() > uni.len() && p.key.uni.starts_with(uni))
    }
}

/// Up to this many documents, a name is looked up in each in turn.
pub(super) const FEW_DOCUMENTS: usize = 8;

/// The documents as the binder sees them: the last document first, the
/// placeholder resolver over them, and for each relaxed name (by hash) the
/// documents that have a property of it, in order.
pub(super) struct Sources<'a>(Vec<Source<'a>>, Placeholders<'a>, HashMap<u64, Vec<usize>>);

impl<'a> Sources<'a> {
    pub(super) fn new(documents: &'a [&'a ParsedDocument<'a>]) -> Sources<'a> {
        let sources: Vec<Source<'a>> = documents.iter().rev().map(|d| Source::new(d)).collect();
        let mut index: HashMap<u64, Vec<usize>> = Default::default();
        // A few documents are asked in turn, as cheap as an index lookup.
        if sources.len() > FEW_DOCUMENTS {
            for (i, s) in sources.iter().enumerate() {
                for &h in s.relaxed.keys() {
                    index.entry(h).or_default().push(i);
                }
            }
        }
        Sources(sources, Placeholders::shared(documents), index)
    }

    /// `Binder.findProperty`: the first document (last in the file) that
    /// has it. Only the documents with a property of its relaxed name are
    /// asked (an exact key is one of them): a map entry is looked up in
    /// every document, which over thousands of documents was quadratic.
    pub(super) fn find_key(&self, name: &Key, dashed: &str) -> Option<&Prop<'a>> {
        if self.0.len() <= FEW_DOCUMENTS {
            return self.0.iter().find_map(|s| s.get(name, dashed));
        }
        let docs = self.2.get(&name.hash)?;
        docs.iter().find_map(|&i| self.0[i].get(name, dashed))
    }

    /// [`Sources::find_key`] of one of the binder's names.
    pub(super) fn find(&self, name: &Name) -> Option<&Prop<'a>> {
        self.find_key(&name.key, &name.dashed)
    }

    /// `containsDescendantOf`.
    pub(super) fn has_descendants(&self, uni: &[String]) -> bool {
        self.0.iter().any(|s| s.under(uni).next().is_some())
    }

    /// The property's value with its placeholders resolved, or the
    /// resolver's failure as the `Reason:` line.
    pub(super) fn value(&self, p: &Prop<'_>) -> Result<JavaValue, String> {
        self.1.resolve(&p.entry.value)
    }
}

pub(super) fn failure(
    requested: &[Element],
    target_type: &str,
    p: &Prop<'_>,
    reason: String,
) -> BindFailure {
    let name = dashed(requested);
    let said = reason
        .strip_prefix(PLACEHOLDER_EXCEPTION)
        .unwrap_or(&reason);
    let limits = [PLACEHOLDER_LIMIT.to_owned(), placeholders_expand_too_much()];
    // The limit's own words, without the chain of values (as long as the
    // file can be).
    if let Some(limit) = limits.iter().find(|l| said.starts_with(l.as_str())) {
        return BindFailure::Limit {
            message: format!("{name} (line {}): {limit}", p.entry.line),
        };
    }
    BindFailure::Bind(PropertyFailure {
        description: format!("Failed to bind properties under '{name}' to {target_type}"),
        property: name,
        value: p.entry.value.to_java_string(),
        line: p.entry.line,
        column: p.entry.column,
        reason,
    })
}

pub(super) const PROPERTIES_CLASS: &str =
    "org.springframework.ai.model.tool.autoconfigure.ToolCallingProperties";

/// A nested group of `ToolCallingProperties` (`limits`, `observations`,
/// `resolution`, `resolution.fallback`): a bean with a getter and no setter.
pub(super) struct Group {
    pub(super) name: &'static Name,
    pub(super) class: &'static str,
    pub(super) parent: &'static Name,
    pub(super) parent_class: &'static str,
    /// The Java property name.
    pub(super) java: &'static str,
}

/// `Binder.bindObject` on a group, before its properties: a value given to
/// the group itself. The empty value binds a new instance, which the
/// getter-only property cannot take (`No setter found for property`);
/// another value has no converter, which is an error only if none of the
/// group's own properties binds (`Ok(Some(failure))`, for the caller to
/// raise then).
pub(super) fn group_value(
    sources: &Sources<'_>,
    g: &Group,
) -> Result<Option<BindFailure>, BindFailure> {
    let Some(p) = sources.find(g.name) else {
        return Ok(None);
    };
    let value = sources
        .value(p)
        .map_err(|r| failure(&g.name.key.els, g.class, p, r))?;
    if is_empty_string(&value) {
        return Err(BindFailure::Bind(PropertyFailure {
            description: format!(
                "Failed to bind properties under '{}' to {}",
                g.parent.dashed, g.parent_class
            ),
            property: g.name.dashed.clone(),
            value: String::new(),
            line: p.entry.line,
            column: p.entry.column,
            reason: format!(
                "java.lang.IllegalStateException: No setter found for property: {}",
                g.java
            ),
        }));
    }
    Ok(Some(BindFailure::Convert {
        description: format!(
            "Failed to bind properties under '{}' to {}",
            g.name.dashed, g.class
        ),
        reason: no_converter(value.class(), g.class),
    }))
}

pub(super) fn conversion_failed(source: &str, target: &str, cause: &str) -> String {
    format!("failed to convert {source} to {target} (caused by {cause})")
}

pub(super) fn no_converter(source: &str, target: &str) -> String {
    format!(
        "org.springframework.core.convert.ConverterNotFoundException: No converter found capable of converting from type [{source}] to type [{target}]"
    )
}

/// `Integer.valueOf(s)` / `Integer.decode(s)` as `NumberUtils.parseNumber`
/// calls them, with Java's `NumberFormatException` messages.
pub(super) fn parse_java_int(text: &str) -> Result<i32, String> {
    let trimmed: String = text.chars().filter(|c| !is_java_whitespace(*c)).collect();
    let nfe = |s: &str, radix: u32| {
        if radix == 10 {
            format!("java.lang.NumberFormatException: For input string: \"{s}\"")
        } else {
            format!(
                "java.lang.NumberFormatException: For input string: \"{s}\" under radix {radix}"
            )
        }
    };
    let is_hex = {
        let i = usize::from(trimmed.starts_with('-'));
        let r = &trimmed[i..];
        r.starts_with("0x") || r.starts_with("0X") || r.starts_with('#')
    };
    let value_of = |s: &str, radix: u32, shown: &str| -> Result<i32, String> {
        // Integer.parseInt: an optional sign, then digits of the radix.
        let (neg, d) = match s.as_bytes().first() {
            Some(b'-') => (true, &s[1..]),
            Some(b'+') => (false, &s[1..]),
            _ => (false, s),
        };
        if d.is_empty() || !d.chars().all(|c| c.is_digit(radix)) {
            return Err(nfe(shown, radix));
        }
        // Java's parseInt accepts non-ASCII digits; the filter above does not
        // (is_digit is ASCII-only for radix <= 36): a rare difference.
        let v = i64::from_str_radix(d, radix)
            .ok()
            .map(|v| if neg { -v } else { v })
            .and_then(|v| i32::try_from(v).ok());
        v.ok_or_else(|| nfe(shown, radix))
    };
    if is_hex {
        // Integer.decode
        if trimmed.is_empty() {
            return Err("java.lang.NumberFormatException: Zero length string".into());
        }
        let (neg, rest) = match trimmed.as_bytes()[0] {
            b'-' => (true, &trimmed[1..]),
            b'+' => (false, &trimmed[1..]),
            _ => (false, &trimmed[..]),
        };
        let digits = rest
            .strip_prefix("0x")
            .or_else(|| rest.strip_prefix("0X"))
            .or_else(|| rest.strip_prefix('#'))
            .unwrap_or(rest);
        if digits.starts_with(['-', '+']) {
            return Err("java.lang.NumberFormatException: Sign character in wrong position".into());
        }
        let signed = if neg {
            format!("-{digits}")
        } else {
            digits.to_owned()
        };
        return value_of(&signed, 16, &signed)
            .map_err(|e| if digits.is_empty() { nfe("", 16) } else { e });
    }
    value_of(&trimmed, 10, &trimmed)
}

/// `Character.isLetterOrDigit` + `toLowerCase` canonical form of the enum binder.
pub(super) fn enum_canonical(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

pub(super) const BEHAVIOR: &str = "org.springframework.ai.model.tool.ToolCallLimitBehavior";

pub(super) fn to_behavior(v: &JavaValue) -> Result<Option<OnExceeded>, String> {
    let named = |s: &str| -> Result<Option<OnExceeded>, String> {
        let t = s.trim_matches(|c: char| c <= ' ');
        if t.is_empty() {
            return Ok(None);
        }
        let c = enum_canonical(t);
        let aliases: &[&str] = match c.as_str() {
            "true" => &["on"],
            "false" => &["off"],
            _ => &[],
        };
        for (name, b) in [
            ("THROW", OnExceeded::Throw),
            ("RETURN_ERROR_RESPONSE", OnExceeded::ReturnErrorResponse),
        ] {
            let cn = enum_canonical(name);
            if t == name || c == cn || aliases.contains(&cn.as_str()) {
                return Ok(Some(b));
            }
        }
        Err(format!(
            "java.lang.IllegalArgumentException: No enum constant {BEHAVIOR}.{t}"
        ))
    };
    match v {
        JavaValue::String(s) => {
            named(s).map_err(|e| conversion_failed("java.lang.String", BEHAVIOR, &e))
        }
        JavaValue::Boolean(b) => {
            named(&b.to_string()).map_err(|e| conversion_failed("java.lang.Boolean", BEHAVIOR, &e))
        }
        // IntegerToEnumConverterFactory: by ordinal.
        JavaValue::Integer(n) => match *n {
            0 => Ok(Some(OnExceeded::Throw)),
            1 => Ok(Some(OnExceeded::ReturnErrorResponse)),
            _ => Err(conversion_failed(
                "java.lang.Integer",
                BEHAVIOR,
                &format!(
                    "java.lang.ArrayIndexOutOfBoundsException: Index {n} out of bounds for length 2"
                ),
            )),
        },
        other => Err(no_converter(other.class(), BEHAVIOR)),
    }
}

pub(super) fn to_integer(v: &JavaValue) -> Result<Option<i32>, String> {
    let overflow = |shown: String, class: &str| {
        conversion_failed(
            class,
            "java.lang.Integer",
            &format!(
                "java.lang.IllegalArgumentException: Could not convert number [{shown}] of type [{class}] to target class [java.lang.Integer]: overflow"
            ),
        )
    };
    match v {
        JavaValue::String(s) if s.is_empty() => Ok(None),
        JavaValue::String(s) => parse_java_int(s)
            .map(Some)
            .map_err(|e| conversion_failed("java.lang.String", "java.lang.Integer", &e)),
        JavaValue::Integer(n) => Ok(Some(*n)),
        JavaValue::Long(n) => i32::try_from(*n)
            .map(Some)
            .map_err(|_| overflow(n.to_string(), "java.lang.Long")),
        JavaValue::BigInteger(s) => Err(overflow(s.clone(), "java.math.BigInteger")),
        JavaValue::Double(d) => {
            // NumberUtils: longValue() (saturating, NaN 0), then the int range.
            let l = if d.is_nan() { 0 } else { *d as i64 };
            i32::try_from(l)
                .map(Some)
                .map_err(|_| overflow(java_double(*d), "java.lang.Double"))
        }
        JavaValue::Boolean(_) => Err(no_converter("java.lang.Boolean", "java.lang.Integer")),
    }
}

pub(super) fn to_boolean(v: &JavaValue) -> Result<Option<bool>, String> {
    match v {
        JavaValue::Boolean(b) => Ok(Some(*b)),
        JavaValue::String(s) => {
            let t = s.trim_matches(|c: char| c <= ' ');
            if t.is_empty() {
                return Ok(None);
            }
            match t.to_lowercase().as_str() {
                "true" | "on" | "yes" | "1" => Ok(Some(true)),
                "false" | "off" | "no" | "0" => Ok(Some(false)),
                _ => Err(conversion_failed(
                    "java.lang.String",
                    "boolean",
                    &format!("java.lang.IllegalArgumentException: Invalid boolean value '{t}'"),
                )),
            }
        }
        other => Err(no_converter(other.class(), "boolean")),
    }
}

/// `StringToCollectionConverter`: comma-separated, each element trimmed.
pub(super) fn split_list(s: &str) -> Vec<String> {
    if s.is_empty() {
        return vec![];
    }
    s.split(',')
        .map(|x| x.trim_matches(|c: char| c <= ' ').to_owned())
        .collect()
}

pub(super) const PER_TOOL_TYPE: &str = "java.util.Map<java.lang.String, java.lang.Integer>";

pub(super) fn note(read: &mut BTreeMap<String, String>, requested: &[Element], p: &Prop<'_>) {
    read.insert(dashed(requested), p.entry.value.to_java_string());
}

pub(super) fn is_empty_string(v: &JavaValue) -> bool {
    matches!(v, JavaValue::String(s) if s.is_empty())
}

/// `IndexedElementsBinder` for `excludedTools`: the first document (last
/// in the file) that gives the list, either as a value (comma-separated;
/// empty means an empty list) or as `[0]`, `[1]`, ... up to the first gap,
/// where an indexed element past the gap (or not a plain index: `[01]`,
/// `[x]`) is an error; plain children (`excluded-tools.foo`) are ignored.
pub(super) fn bind_list(
    sources: &Sources<'_>,
    read: &mut BTreeMap<String, String>,
) -> Result<Option<Vec<String>>, BindFailure> {
    let root = &NAMES.excluded_tools;
    let (root_els, root_uni) = (&root.key.els, &root.key.uni);
    for src in &sources.0 {
        if let Some(p) = src.get(&root.key, &root.dashed) {
            note(read, root_els, p);
            if is_empty_string(&p.entry.value) {
                return Ok(Some(Vec::new()));
            }
            let value = sources
                .value(p)
                .map_err(|r| failure(root_els, "java.util.List<java.lang.String>", p, r))?;
            return Ok(Some(match value {
                JavaValue::String(s) => split_list(&s),
                other => vec![other.to_java_string()],
            }));
        }
        let mut known: std::collections::HashSet<String> = src
            .under(root_uni)
            .map(|p| &p.key.els[root_els.len()])
            .filter(|e| e.kind.indexed())
            .map(uniform)
            .collect();
        let mut items = Vec::new();
        let mut name = root_els.clone();
        for i in 0u64.. {
            name.truncate(root_els.len());
            name.push(Element {
                text: i.to_string(),
                kind: Kind::NumericallyIndexed,
            });
            let Some(p) = src.get(&Key::of(name.clone()), &dashed(&name)) else {
                break;
            };
            note(read, &name, p);
            known.remove(&i.to_string());
            let value = sources
                .value(p)
                .map_err(|r| failure(&name, "java.lang.String", p, r))?;
            items.push(value.to_java_string());
        }
        if !known.is_empty() {
            // A TreeSet of the properties, by name.
            let mut unbound: Vec<(&[Element], &Prop<'_>)> = Vec::new();
            for p in src.under(root_uni) {
                let e = &p.key.els[root_els.len()];
                if e.kind.indexed() && known.contains(&uniform(e)) {
                    let found = src.get_prop(p).unwrap_or(p);
                    if let Err(at) = unbound.binary_search_by(|(n, _)| compare_names(n, &p.key.els))
                    {
                        unbound.insert(at, (&p.key.els, found));
                    }
                }
            }
            if let Some((_, first)) = unbound.first() {
                return Err(BindFailure::Unbound {
                    properties: unbound.iter().map(|(n, _)| dashed(n)).collect(),
                    line: first.entry.line,
                });
            }
        }
        if !items.is_empty() {
            return Ok(Some(items));
        }
    }
    Ok(None)
}

/// `MapBinder` for `maxCallsPerTool`, in the order Spring binds the
/// entries: documents last first, each in file order; a key already bound
/// is skipped. The key is the name's elements after the map's, in their
/// original form, joined by dots; its value is whatever property has the
/// entry's name (any spelling, any document: `Foo` and `FOO` both take the
/// value of `foo` when the file has it). A value that cannot become an
/// `Integer` (a YAML boolean) two or more levels down names only its first
/// level, which has no value: the entry is dropped. Without entries, a value
/// of the map itself: empty is an empty map, anything else has no converter.
pub(super) fn bind_map(
    sources: &Sources<'_>,
    read: &mut BTreeMap<String, String>,
) -> Result<Option<Vec<(String, i32)>>, BindFailure> {
    let root = &NAMES.max_calls_per_tool;
    let (root_els, root_uni) = (&root.key.els, &root.key.uni);
    if !sources.has_descendants(root_uni) {
        let Some(p) = sources.find(root) else {
            return Ok(None);
        };
        note(read, root_els, p);
        let value = sources
            .value(p)
            .map_err(|r| failure(root_els, PER_TOOL_TYPE, p, r))?;
        if is_empty_string(&value) {
            return Ok(Some(Vec::new()));
        }
        return Err(failure(
            root_els,
            PER_TOOL_TYPE,
            p,
            no_converter(value.class(), PER_TOOL_TYPE),
        ));
    }
    let mut entries: Vec<(String, i32)> = Vec::new();
    let mut keys = std::collections::HashSet::new();
    for src in &sources.0 {
        for p in src.under(root_uni) {
            let parent_of = p.key.els.len() == root_els.len() + 1;
            // isScalarValue: the value converts to Integer (not a Boolean).
            let scalar = parent_of
                || src
                    .get_prop(p)
                    .is_some_and(|q| !matches!(q.entry.value, JavaValue::Boolean(_)));
            let first_level;
            let entry = if scalar {
                p.key
            } else {
                first_level = Key::of(p.key.els[..=root_els.len()].to_vec());
                &first_level
            };
            let key = entry.els[root_els.len()..]
                .iter()
                .map(original)
                .collect::<Vec<_>>()
                .join(".");
            if keys.contains(&key) {
                continue;
            }
            let Some(q) = sources.find_key(entry, &dashed(&entry.els)) else {
                continue;
            };
            match sources.value(q).and_then(|v| to_integer(&v)) {
                Ok(Some(n)) => {
                    note(read, &entry.els, q);
                    keys.insert(key.clone());
                    entries.push((key, n));
                }
                Ok(None) => {}
                Err(reason) => return Err(failure(&entry.els, "java.lang.Integer", q, reason)),
            }
        }
    }
    Ok((!entries.is_empty()).then_some(entries))
}

pub(super) fn int_prop(
    sources: &Sources<'_>,
    name: &Name,
    read: &mut BTreeMap<String, String>,
) -> Result<Option<i32>, BindFailure> {
    let els = &name.key.els;
    let Some(p) = sources.find(name) else {
        return Ok(None);
    };
    note(read, els, p);
    sources
        .value(p)
        .and_then(|v| to_integer(&v))
        .map_err(|r| failure(els, "java.lang.Integer", p, r))
}

/// A primitive `boolean`: a value that converts to null (empty or blank)
/// cannot be assigned.
pub(super) fn bool_prop(
    sources: &Sources<'_>,
    name: &Name,
    read: &mut BTreeMap<String, String>,
) -> Result<Option<bool>, BindFailure> {
    let els = &name.key.els;
    let Some(p) = sources.find(name) else {
        return Ok(None);
    };
    note(read, els, p);
    let value = sources
        .value(p)
        .map_err(|r| failure(els, "boolean", p, r))?;
    match to_boolean(&value) {
        Ok(Some(b)) => Ok(Some(b)),
        Ok(None) => Err(failure(
            els,
            "boolean",
            p,
            conversion_failed(
                value.class(),
                "boolean",
                "java.lang.IllegalArgumentException: A null value cannot be assigned to a primitive type",
            ),
        )),
        Err(r) => Err(failure(els, "boolean", p, r)),
    }
}

/// Binds the `spring.ai.tools.*` properties of `documents` (later documents
/// win) and applies the auto-configuration's builder calls, as Spring Boot
/// and `ToolCallingAutoConfiguration.toolCallingManager` do.
///
/// The binder's order decides which error is reported when several values
/// are bad: `JavaBeanBinder` takes the `is` getters before the `get` ones,
/// each sorted by name, so `throw-exception-on-error` comes first, then
/// `limits` (`excluded-tools`, `max-calls-per-tool`,
/// `max-calls-per-tool-default`, `max-total-tool-calls`,
/// `on-limit-exceeded`), `observations`, `resolution`. The builder then
/// takes the per-tool map in `HashMap` order (by the keys' hash codes), so
/// of two overrides the builder refuses, the one reported is not always the
/// first in the file.
///
/// ```
/// use toolcall_check::config::{bind, parse_properties};
/// use toolcall_model::model::{Max, OnExceeded};
/// let docs = parse_properties(b"spring.ai.tools.limits.maxCallsPerTool.getWeather=2\nspring.ai.tools.limits.on-limit-exceeded=return-error-response\n").unwrap();
/// let b = bind(&docs).unwrap();
/// assert_eq!(b.limits.max_for("getWeather"), Some(Max::Limited(2)));
/// assert_eq!(b.limits.on_exceeded, OnExceeded::ReturnErrorResponse);
/// let bad = parse_properties(b"spring.ai.tools.limits.max-total-tool-calls=0\n").unwrap();
/// assert!(bind(&bad).unwrap_err().to_string().contains("maxTotalToolCalls must be greater than 0"));
/// let empty = parse_properties(b"spring.ai.tools.throw-exception-on-error=\n").unwrap();
/// assert!(bind(&empty).unwrap_err().to_string().contains("A null value cannot be assigned to a primitive type"));
/// ```
pub fn bind(documents: &[Vec<Entry>]) -> Result<BoundProperties, BindFailure> {
    let parsed: Vec<ParsedDocument<'_>> =
        documents.iter().map(|d| ParsedDocument::new(d)).collect();
    let refs: Vec<&ParsedDocument<'_>> = parsed.iter().collect();
    bind_parsed(&refs)
}

/// [`bind`] on documents whose keys are parsed once for every binding of
/// them (`check` binds a file again for each value it tries).
pub(crate) fn bind_parsed(
    documents: &[&ParsedDocument<'_>],
) -> Result<BoundProperties, BindFailure> {
    let sources = Sources::new(documents);
    let mut read = BTreeMap::new();
    let always_throw = bool_prop(&sources, &NAMES.throw_exception_on_error, &mut read)?;
    let limits = bind_limits(&sources, &mut read)?;
    let observations_value = group_value(
        &sources,
        &Group {
            name: &NAMES.observations,
            class: "org.springframework.ai.model.tool.autoconfigure.ToolCallingProperties$Observations",
            parent: &NAMES.tools,
            parent_class: PROPERTIES_CLASS,
            java: "observations",
        },
    )?;
    let include_content = bool_prop(&sources, &NAMES.include_content, &mut read)?;
    if let (None, Some(f)) = (include_content, observations_value) {
        return Err(f);
    }
    let fallback = bind_resolution(&sources, &mut read)?;
    let limits = builder_calls(limits)?;
    Ok(BoundProperties {
        limits,
        always_throw: always_throw.unwrap_or(false),
        resolution_fallback: fallback.unwrap_or(false),
        include_content: include_content.unwrap_or(false),
        read,
        unknown: unknown_keys(documents),
        placeholders_not_in_file: sources.1.missing.take().0,
    })
}

/// The properties of the `limits` group, as bound (`None`: not given).
struct BoundLimits {
    per_default: Option<i32>,
    per_tool: Option<Vec<(String, i32)>>,
    excluded: Option<Vec<String>>,
    total: Option<i32>,
    on: Option<OnExceeded>,
}

/// The `limits` group bound, in the binder's order (the builder calls on
/// it come after the groups bound after it: their failures come first).
fn bind_limits(
    sources: &Sources<'_>,
    read: &mut BTreeMap<String, String>,
) -> Result<BoundLimits, BindFailure> {
    let limits_group = Group {
        name: &NAMES.limits,
        class: "org.springframework.ai.model.tool.autoconfigure.ToolCallingProperties$Limits",
        parent: &NAMES.tools,
        parent_class: PROPERTIES_CLASS,
        java: "limits",
    };
    let limits_value = group_value(sources, &limits_group)?;
    let excluded = bind_list(sources, read)?;
    let per_tool = bind_map(sources, read)?;
    let per_default = int_prop(sources, &NAMES.max_calls_per_tool_default, read)?;
    let total = int_prop(sources, &NAMES.max_total_tool_calls, read)?;
    let on_name = &NAMES.on_limit_exceeded;
    let mut on = None;
    if let Some(p) = sources.find(on_name) {
        note(read, &on_name.key.els, p);
        on = sources
            .value(p)
            .and_then(|v| to_behavior(&v))
            .map_err(|r| failure(&on_name.key.els, BEHAVIOR, p, r))?;
    }
    let limits_bound = excluded.is_some()
        || per_tool.is_some()
        || per_default.is_some()
        || total.is_some()
        || on.is_some();
    if let (false, Some(f)) = (limits_bound, limits_value) {
        return Err(f);
    }
    Ok(BoundLimits {
        per_default,
        per_tool,
        excluded,
        total,
        on,
    })
}

/// `spring.ai.tools.resolution.fallback.enabled`, with the failure of its
/// groups when a group's value cannot be bound and the property is absent.
fn bind_resolution(
    sources: &Sources,
    read: &mut BTreeMap<String, String>,
) -> Result<Option<bool>, BindFailure> {
    let resolution_value = group_value(
        sources,
        &Group {
            name: &NAMES.resolution,
            class: "org.springframework.ai.model.tool.autoconfigure.ToolCallingProperties$Resolution",
            parent: &NAMES.tools,
            parent_class: PROPERTIES_CLASS,
            java: "resolution",
        },
    )?;
    let fallback_value = group_value(
        sources,
        &Group {
            name: &NAMES.fallback,
            class: "org.springframework.ai.model.tool.autoconfigure.ToolCallingProperties$Resolution$Fallback",
            parent: &NAMES.resolution,
            parent_class: "org.springframework.ai.model.tool.autoconfigure.ToolCallingProperties$Resolution",
            java: "fallback",
        },
    )?;
    let fallback = bool_prop(sources, &NAMES.fallback_enabled, read)?;
    if fallback.is_none()
        && let Some(f) = fallback_value.or(resolution_value)
    {
        return Err(f);
    }
    Ok(fallback)
}

/// `ToolCallingAutoConfiguration.toolCallingManager`'s builder calls on
/// the bound limits, in its order, with Spring's defaults (40 per tool, 150
/// in total, `THROW`) for what is not bound.
fn builder_calls(bound: BoundLimits) -> Result<ToolCallLimits, BindFailure> {
    let BoundLimits {
        per_default,
        per_tool,
        excluded,
        total,
        on,
    } = bound;
    let builder = |e: LimitsError| BindFailure::Builder {
        message: e.to_string(),
    };
    let mut limits = ToolCallLimits::default();
    let per_default = per_default.unwrap_or(40);
    limits = if per_default == -1 {
        limits.unlimited_calls_per_tool()
    } else {
        limits.max_calls_per_tool(per_default).map_err(builder)?
    };
    // The bound map is merged into the field's HashMap and copied into
    // another, both pre-sized by putAll for its size.
    let per_tool = per_tool.unwrap_or_default();
    let keys: Vec<&str> = per_tool.iter().map(|(k, _)| k.as_str()).collect();
    for i in java_hash_order(&keys, put_all_capacity(keys.len())) {
        let (name, n) = &per_tool[i];
        limits = if *n == -1 {
            limits.exclude_tool_from_limit(name).map_err(builder)?
        } else {
            limits.max_calls_per_tool_for(name, *n).map_err(builder)?
        };
    }
    for name in excluded.unwrap_or_default() {
        limits = limits.exclude_tool_from_limit(&name).map_err(builder)?;
    }
    let total = total.unwrap_or(150);
    limits = if total == -1 {
        limits.unlimited_total_tool_calls()
    } else {
        limits.max_total_tool_calls(total).map_err(builder)?
    };
    limits.on_exceeded = on.unwrap_or(OnExceeded::Throw);
    Ok(limits)
}
