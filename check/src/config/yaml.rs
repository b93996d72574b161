//! The YAML reader of `check`: an `application.yml` read
//! as Spring Boot reads it (`YamlPropertySourceLoader`,
//! `OriginTrackedYamlLoader` over SnakeYAML 1.1): each document flattened to
//! property names (`a.b`, `a[0]`, non-string keys as `[key]`), plain scalars
//! typed by YAML 1.1 resolution ([`resolve_yaml_scalar`]), null as the
//! empty string, an empty list or map as the empty string, duplicate keys
//! refused, nesting past SnakeYAML's limit of 50 refused.
//!
//! The YAML syntax itself is saphyr-parser's (a maintained, safe, pure-Rust
//! parser); only the typing and flattening are Spring's.
//!
//! Pure: no IO.

use std::collections::HashMap;

use super::binding::{
    ENTRY_COST, Entry, JavaValue, MAX_EXPANDED_BYTES, expands_too_much, resolve_yaml_scalar,
};
use saphyr_parser::{Event, Parser, ScalarStyle};

/// SnakeYAML's `LoaderOptions.nestingDepthLimit` default.
const NESTING_DEPTH_LIMIT: usize = 50;
/// Nodes a document may have in all, aliases expanded: against alias
/// bombs, and a bound on the memory of a file far past any configuration
/// (100,000 nodes take about 0.5 s and 120 MB; Spring Boot sets no limit).
const MAX_NODES: usize = 100_000;

/// How an error this reader gives that is its own limit, not Spring's,
/// begins.
pub(crate) const NOT_MODELLED: &str = "toolcall-model does not read this: ";

#[derive(Clone)]
enum Node {
    /// `None` is null.
    Scalar(Option<JavaValue>, usize, usize),
    Seq(Vec<Node>, usize, usize),
    /// Entries: the key as `YamlProcessor` writes it, the value, and the
    /// key's identity as SnakeYAML compares keys.
    Map(Vec<(String, Node, KeyId)>, usize, usize),
}

/// A mapping key as SnakeYAML compares keys (`equals` of the constructed
/// objects): its class and value, so `1` and `'[1]'` are two keys even
/// though both are written `[1]`, and `1` and `0x1` are one.
type KeyId = (&'static str, String);

enum Frame {
    Seq(Vec<Node>, usize, usize, usize),
    /// Entries, pending key, anchor, line, column, and the keys (a
    /// duplicate is found in constant time).
    Map(
        Vec<(String, Node, KeyId)>,
        Option<(String, KeyId)>,
        usize,
        usize,
        usize,
        std::collections::HashSet<KeyId>,
    ),
}

fn scalar_value(
    value: &str,
    style: ScalarStyle,
    tag: Option<(&str, &str)>,
    line: usize,
) -> Result<Option<JavaValue>, String> {
    if let Some((handle, suffix)) = tag {
        let full = format!("{handle}{suffix}");
        let core = |s: &str| full == format!("!!{s}") || full == format!("tag:yaml.org,2002:{s}");
        if core("str") {
            return Ok(Some(JavaValue::String(value.to_owned())));
        }
        if core("int") || core("float") || core("bool") || core("null") {
            return Ok(resolve_yaml_scalar(value));
        }
        return Err(format!(
            "could not determine a constructor for the tag {full} (line {line})"
        ));
    }
    Ok(match style {
        ScalarStyle::Plain => resolve_yaml_scalar(value),
        _ => Some(JavaValue::String(value.to_owned())),
    })
}

fn key_text(n: &Node) -> Result<(String, KeyId), String> {
    match n {
        Node::Scalar(Some(JavaValue::String(s)), ..) => Ok((s.clone(), ("", s.clone()))),
        Node::Scalar(Some(v), ..) => {
            let text = v.to_java_string();
            Ok((format!("[{text}]"), (v.class(), text)))
        }
        Node::Scalar(None, ..) => Ok(("[null]".into(), ("null", String::new()))),
        Node::Seq(_, l, _) | Node::Map(_, l, _) => {
            Err(format!("{NOT_MODELLED}a list or map as a key (line {l})"))
        }
    }
}

/// A node's nodes and bytes (its keys and string values, and
/// [`ENTRY_COST`] a node): what one more alias to it makes.
fn count(n: &Node) -> (usize, usize) {
    let mut stack = vec![n];
    let (mut c, mut bytes) = (0, 0);
    while let Some(n) = stack.pop() {
        c += 1;
        bytes += ENTRY_COST;
        match n {
            Node::Scalar(Some(JavaValue::String(s)), ..) => bytes += s.len(),
            Node::Scalar(..) => {}
            Node::Seq(items, ..) => stack.extend(items.iter()),
            Node::Map(items, ..) => {
                bytes += items.iter().map(|(k, ..)| k.len()).sum::<usize>();
                stack.extend(items.iter().map(|(_, v, _)| v));
            }
        }
    }
    (c, bytes)
}

/// The character at a character index, for indexes that mostly grow (one
/// pass over the text in all).
struct CharCursor<'a> {
    text: &'a str,
    chars: usize,
    bytes: usize,
}

impl CharCursor<'_> {
    fn char_at(&mut self, index: usize) -> Option<char> {
        if index < self.chars {
            (self.chars, self.bytes) = (0, 0);
        }
        let mut it = self.text[self.bytes..].char_indices();
        while self.chars < index {
            let (_, c) = it.next()?;
            self.chars += 1;
            self.bytes += c.len_utf8();
        }
        self.text[self.bytes..].chars().next()
    }
}

/// Double-quoted scalars with escaped surrogates that [`read`] rewrites
/// before it gives up: each costs a parse of the file.
const MAX_SURROGATE_SCALARS: usize = 16;

/// Reads every document of `text` as flattened properties.
///
/// An escaped surrogate in a double-quoted scalar (`"\uD800"`), which
/// SnakeYAML keeps in a Java string, is refused by saphyr-parser: the
/// scalar is read again with a pair as its character and a lone surrogate
/// as U+FFFD (a Rust string cannot hold one; the `.properties` reader does
/// the same).
///
/// ```
/// use toolcall_check::config::{JavaValue, read_yaml};
/// let docs = read_yaml("a: \"x\\uD800y\\uD83D\\uDE00\"\n").unwrap();
/// assert_eq!(docs[0][0].value, JavaValue::String("x\u{fffd}y\u{1f600}".into()));
/// ```
pub fn read_yaml(text: &str) -> Result<Vec<Vec<Entry>>, String> {
    let mut text = std::borrow::Cow::Borrowed(text);
    for _ in 0..MAX_SURROGATE_SCALARS {
        match read_once(&text) {
            Err(Refused::Surrogate { at, message }) => match without_surrogates(&text, at) {
                Some(t) => text = std::borrow::Cow::Owned(t),
                None => return Err(message),
            },
            Err(Refused::Other(m)) => return Err(m),
            Ok(docs) => return Ok(docs),
        }
    }
    read_once(&text).map_err(|e| match e {
        Refused::Surrogate { message, .. } | Refused::Other(message) => message,
    })
}

/// Why [`read_once`] refused a text.
enum Refused {
    /// saphyr-parser's refusal of a `\u` escape in the double-quoted
    /// scalar that starts at the character index `at`.
    Surrogate {
        at: usize,
        message: String,
    },
    Other(String),
}

/// The text with the surrogate escapes of the double-quoted scalar that
/// starts at the character index `at` rewritten (a pair as `\U`, a lone
/// one as `\uFFFD`); `None` when it has none.
fn without_surrogates(text: &str, at: usize) -> Option<String> {
    let start = text.char_indices().nth(at).map(|(b, _)| b)?;
    if !text[start..].starts_with('"') {
        return None;
    }
    let hex = |s: &str| -> Option<u32> {
        let h = s.get(2..6)?;
        if !s.starts_with("\\u") || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        u32::from_str_radix(h, 16).ok()
    };
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..=start]);
    let mut i = start + 1;
    let mut changed = false;
    while i < text.len() {
        let rest = &text[i..];
        if rest.starts_with('"') {
            break;
        }
        if let Some(u) = hex(rest).filter(|u| (0xD800..0xE000).contains(u)) {
            let low = hex(&rest[6..]).filter(|l| (0xDC00..0xE000).contains(l));
            match low {
                Some(l) if u < 0xDC00 => {
                    let c = 0x10000 + ((u - 0xD800) << 10) + (l - 0xDC00);
                    out.push_str(&format!("\\U{c:08X}"));
                    i += 12;
                }
                _ => {
                    out.push_str("\\uFFFD");
                    i += 6;
                }
            }
            changed = true;
            continue;
        }
        // Any other escape is copied whole: an escaped quote ends nothing.
        let n = match rest.strip_prefix('\\') {
            Some(escaped) => 1 + escaped.chars().next().map_or(0, char::len_utf8),
            None => rest.chars().next().map_or(1, char::len_utf8),
        };
        out.push_str(&rest[..n]);
        i += n;
    }
    out.push_str(&text[i..]);
    changed.then_some(out)
}

fn read_once(text: &str) -> Result<Vec<Vec<Entry>>, Refused> {
    let mut surrogate = None;
    read_events(text, &mut surrogate).map_err(|message| match surrogate {
        Some(at) => Refused::Surrogate { at, message },
        None => Refused::Other(message),
    })
}

/// `surrogate`: set to where a double-quoted scalar with a `\u` escape
/// saphyr-parser refuses starts.
fn read_events(text: &str, surrogate: &mut Option<usize>) -> Result<Vec<Vec<Entry>>, String> {
    let mut docs = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut anchors: HashMap<usize, Node> = HashMap::new();
    let mut root: Option<Node> = None;
    let mut nodes = 0usize;
    // What aliases and flattening make, file-wide (node counts are per
    // document, as SnakeYAML's).
    let mut expanded = 0usize;
    let mut cursor = CharCursor {
        text,
        chars: 0,
        bytes: 0,
    };
    let parser = Parser::new_from_str(text);
    for ev in parser {
        let (ev, span) = ev.map_err(|e| parse_error(&e, surrogate))?;
        let (line, mut col) = (span.start.line(), span.start.col() + 1);
        // A value left empty after `:` stands, for SnakeYAML, just after
        // the indicator (`processEmptyScalar(token.getEndMark())`); saphyr
        // gives the indicator itself, as an empty span.
        if let Event::Scalar(v, ScalarStyle::Plain, 0, None) = &ev
            && v.is_empty()
            && span.end.index() == span.start.index()
            && cursor.char_at(span.start.index()) == Some(':')
        {
            col += 1;
        }
        let depth = stack.len() + 1;
        let complete: Option<(Node, usize)> = match ev {
            Event::DocumentStart(_) => {
                root = None;
                anchors.clear();
                None
            }
            Event::DocumentEnd => {
                if let Some(r) = root.take() {
                    docs.push(flatten(r, &mut expanded)?);
                }
                None
            }
            Event::Scalar(v, style, anchor, tag) => {
                nesting_allowed(depth, line)?;
                let tag = tag.as_ref().map(|t| (t.handle.as_str(), t.suffix.as_str()));
                let value = scalar_value(&v, style, tag, line)?;
                Some((Node::Scalar(value, line, col), anchor))
            }
            Event::Alias(id) => Some((alias(&anchors, id, line, &mut nodes, &mut expanded)?, 0)),
            Event::SequenceStart(anchor, _) => {
                nesting_allowed(depth, line)?;
                stack.push(Frame::Seq(Vec::new(), anchor, line, col));
                None
            }
            Event::MappingStart(anchor, _) => {
                nesting_allowed(depth, line)?;
                stack.push(Frame::Map(
                    Vec::new(),
                    None,
                    anchor,
                    line,
                    col,
                    Default::default(),
                ));
                None
            }
            Event::SequenceEnd => match stack.pop() {
                Some(Frame::Seq(items, anchor, l, c)) => Some((Node::Seq(items, l, c), anchor)),
                _ => return Err(format!("unbalanced sequence (line {line})")),
            },
            Event::MappingEnd => match stack.pop() {
                Some(Frame::Map(items, _, anchor, l, c, _)) => {
                    Some((Node::Map(items, l, c), anchor))
                }
                _ => return Err(format!("unbalanced mapping (line {line})")),
            },
            _ => None,
        };
        if let Some((node, anchor)) = complete {
            nodes += 1;
            if nodes > MAX_NODES {
                return Err(format!(
                    "{NOT_MODELLED}more than {MAX_NODES} nodes (line {line})"
                ));
            }
            if anchor > 0 {
                anchors.insert(anchor, node.clone());
            }
            attach(&mut stack, &mut root, node, line)?;
        }
    }
    if let Some(r) = root.take() {
        docs.push(flatten(r, &mut expanded)?);
    }
    Ok(docs)
}

/// saphyr-parser's refusal as a message with its line and column;
/// `surrogate` set to where it is when it is the `\u` escape it refuses.
fn parse_error(e: &saphyr_parser::ScanError, surrogate: &mut Option<usize>) -> String {
    if e.info().contains("invalid Unicode character escape code") {
        *surrogate = Some(e.marker().index());
    }
    format!(
        "{} (line {}, column {})",
        e.info(),
        e.marker().line(),
        e.marker().col() + 1
    )
}

/// SnakeYAML's nesting limit: a node `depth` deep (the root is 1) is
/// refused past it.
fn nesting_allowed(depth: usize, line: usize) -> Result<(), String> {
    if depth > NESTING_DEPTH_LIMIT + 1 {
        return Err(format!(
            "org.yaml.snakeyaml.error.YAMLException: Nesting Depth exceeded max {NESTING_DEPTH_LIMIT} (line {line})"
        ));
    }
    Ok(())
}

/// The node an alias names, counted against the document's nodes and the
/// file's expanded bytes.
fn alias(
    anchors: &HashMap<usize, Node>,
    id: usize,
    line: usize,
    nodes: &mut usize,
    expanded: &mut usize,
) -> Result<Node, String> {
    let n = anchors
        .get(&id)
        .cloned()
        .ok_or_else(|| format!("found undefined alias (line {line})"))?;
    let (c, bytes) = count(&n);
    *nodes += c;
    if *nodes > MAX_NODES {
        return Err(format!(
            "{NOT_MODELLED}aliases expand past {MAX_NODES} nodes (line {line})"
        ));
    }
    // Nodes alone do not bound it: one alias can be a scalar of
    // megabytes (SnakeYAML's `maxAliasesForCollections` guards
    // the same way).
    *expanded += bytes;
    if *expanded > MAX_EXPANDED_BYTES {
        return Err(format!(
            "{NOT_MODELLED}{} (line {line})",
            expands_too_much("aliases")
        ));
    }
    Ok(n)
}

/// A complete node put where it belongs: the document's root, the next
/// item of the open sequence, or the open mapping's pending key or its
/// value (a merge key's entries merged, a duplicate key refused).
fn attach(
    stack: &mut [Frame],
    root: &mut Option<Node>,
    node: Node,
    line: usize,
) -> Result<(), String> {
    match stack.last_mut() {
        None => *root = Some(node),
        Some(Frame::Seq(items, ..)) => items.push(node),
        Some(Frame::Map(items, pending, _, map_line, map_col, keys)) => {
            match pending.take() {
                None => *pending = Some(key_text(&node)?),
                Some((k, id)) => {
                    if k == "<<" {
                        // A merge key: the merged map's entries that are not set.
                        let merged = match node {
                            Node::Map(m, ..) => m,
                            Node::Seq(s, ..) => s
                                .into_iter()
                                .flat_map(|n| match n {
                                    Node::Map(m, ..) => m,
                                    _ => vec![],
                                })
                                .collect(),
                            _ => vec![],
                        };
                        for (mk, mv, mid) in merged {
                            if keys.insert(mid.clone()) {
                                items.push((mk, mv, mid));
                            }
                        }
                    } else if keys.contains(&id) {
                        // SnakeYAML names the key object (`1`, not `[1]`).
                        let shown = if id.0 == "null" {
                            "null"
                        } else {
                            id.1.as_str()
                        };
                        return Err(format!(
                            "while constructing a mapping (line {map_line}, column {map_col}): found duplicate key {shown} (line {line})"
                        ));
                    } else {
                        keys.insert(id.clone());
                        items.push((k, node, id));
                    }
                }
            }
        }
    }
    Ok(())
}

/// `YamlProcessor.getFlattenedMap(map, true, "")` of one document.
/// `expanded` counts the bytes of the entries against
/// [`MAX_EXPANDED_BYTES`]: every entry repeats its parents' keys, so long
/// keys over many children make far more than the file.
fn flatten(root: Node, expanded: &mut usize) -> Result<Vec<Entry>, String> {
    let mut out = Vec::new();
    let root = match root {
        Node::Map(m, ..) => m.into_iter().map(|(k, v, _)| (k, v)).collect(),
        Node::Scalar(None, ..) => return Ok(out),
        other => vec![("document".to_owned(), other)],
    };
    // (path, node), explicit stack in document order.
    let mut stack: Vec<(String, Node)> = root.into_iter().rev().collect();
    // Charged before a key is made: a map's children are all made at once.
    let mut charge = |path_len: usize, node: &Node| {
        *expanded += path_len + ENTRY_COST;
        let line = match node {
            Node::Scalar(Some(JavaValue::String(s)), l, _) => {
                *expanded += s.len();
                *l
            }
            Node::Scalar(_, l, _) | Node::Seq(_, l, _) | Node::Map(_, l, _) => *l,
        };
        if *expanded > MAX_EXPANDED_BYTES {
            return Err(format!(
                "{NOT_MODELLED}{} (line {line})",
                expands_too_much("keys and values")
            ));
        }
        Ok(())
    };
    for (k, v) in &stack {
        charge(k.len(), v)?;
    }
    while let Some((path, node)) = stack.pop() {
        match node {
            Node::Scalar(v, line, column) => out.push(Entry {
                key: path,
                value: v.unwrap_or(JavaValue::String(String::new())),
                line,
                column,
            }),
            Node::Map(m, line, column) => {
                if m.is_empty() {
                    out.push(Entry {
                        key: path.clone(),
                        value: JavaValue::String(String::new()),
                        line,
                        column,
                    });
                }
                for (k, v, _) in m.into_iter().rev() {
                    charge(path.len() + 1 + k.len(), &v)?;
                    let key = if k.starts_with('[') {
                        format!("{path}{k}")
                    } else {
                        format!("{path}.{k}")
                    };
                    stack.push((key, v));
                }
            }
            Node::Seq(items, line, column) => {
                if items.is_empty() {
                    out.push(Entry {
                        key: path.clone(),
                        value: JavaValue::String(String::new()),
                        line,
                        column,
                    });
                }
                for (i, v) in items.into_iter().enumerate().rev() {
                    charge(path.len() + 22, &v)?;
                    stack.push((format!("{path}[{i}]"), v));
                }
            }
        }
    }
    Ok(out)
}
