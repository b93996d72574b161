//! Spring Boot's reading of the `spring.ai.tools.*` properties for Spring
//! AI 2.0.1's `ToolCallingAutoConfiguration`: the `application.properties`
//! loader (`OriginTrackedPropertiesLoader`), relaxed names
//! (`ConfigurationPropertyName`), the binder's conversions
//! (`ApplicationConversionService`) and messages (`BindFailureAnalyzer`),
//! and the auto-configuration's builder calls on `ToolCallLimits`.
//!
//! YAML is parsed outside the library (the command line's YAML reader): it
//! hands over [`Entry`]s whose values carry the Java type SnakeYAML 1.1
//! resolution gives a plain scalar ([`resolve_yaml_scalar`]).
//!
//! Pure: no IO.

use std::collections::BTreeMap;

use crate::limits::{is_java_whitespace, Limits, LimitsError, OnExceeded};

/// A property value as its property source holds it: the Java object.
#[derive(Debug, Clone, PartialEq)]
pub enum JavaValue {
    /// `java.lang.String` (every `.properties` value, quoted YAML scalars).
    String(String),
    /// `java.lang.Integer`.
    Integer(i32),
    /// `java.lang.Long`.
    Long(i64),
    /// `java.math.BigInteger`, as decimal text.
    BigInteger(String),
    /// `java.lang.Double`.
    Double(f64),
    /// `java.lang.Boolean`.
    Boolean(bool),
}

impl JavaValue {
    /// The Java class name.
    pub fn class(&self) -> &'static str {
        match self {
            JavaValue::String(_) => "java.lang.String",
            JavaValue::Integer(_) => "java.lang.Integer",
            JavaValue::Long(_) => "java.lang.Long",
            JavaValue::BigInteger(_) => "java.math.BigInteger",
            JavaValue::Double(_) => "java.lang.Double",
            JavaValue::Boolean(_) => "java.lang.Boolean",
        }
    }

    /// `toString()`.
    ///
    /// ```
    /// use toolcall_model::spring_config::JavaValue;
    /// assert_eq!(JavaValue::Double(1e10).to_java_string(), "1.0E10");
    /// assert_eq!(JavaValue::Double(5.0).to_java_string(), "5.0");
    /// ```
    pub fn to_java_string(&self) -> String {
        match self {
            JavaValue::String(s) => s.clone(),
            JavaValue::Integer(n) => n.to_string(),
            JavaValue::Long(n) => n.to_string(),
            JavaValue::BigInteger(s) => s.clone(),
            JavaValue::Double(d) => java_double(*d),
            JavaValue::Boolean(b) => b.to_string(),
        }
    }
}

/// `Double.toString` (shortest digits, Java's layout).
fn java_double(d: f64) -> String {
    if d.is_nan() {
        return "NaN".into();
    }
    if d.is_infinite() {
        return if d > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if d == 0.0 {
        return if d.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    let a = d.abs();
    if (1e-3..1e7).contains(&a) {
        let s = format!("{d:?}");
        return if s.contains('.') { s } else { format!("{s}.0") };
    }
    // Scientific: d.dddE±n with at least one fractional digit.
    let s = format!("{d:e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let mant = if mant.contains('.') {
        mant.to_owned()
    } else {
        format!("{mant}.0")
    };
    format!("{mant}E{exp}")
}

/// One property: its name as written, its value, and where it stands
/// (1-based line and column).
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The name as the source gives it (`spring.ai.tools.limits.excluded-tools[0]`).
    pub key: String,
    /// The value.
    pub value: JavaValue,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

/// A file Spring cannot load.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} (line {line})")]
pub struct LoadError {
    /// Spring's message.
    pub message: String,
    /// 1-based line.
    pub line: usize,
}

/// `OriginTrackedPropertiesLoader.load`: the documents of an
/// `application.properties` file (`#---` or `!---` separates documents),
/// read as ISO-8859-1 as Spring Boot's loader does, with `\` escapes and
/// continuation lines, `=`, `:` or whitespace between key and value, the
/// value's leading whitespace dropped and its trailing whitespace kept, and
/// `key[]=a,b` expanded to `key[0]`, `key[1]`.
///
/// ```
/// use toolcall_model::spring_config::{parse_properties, JavaValue};
/// let docs = parse_properties(b"# c\nspring.ai.tools.limits.max-total-tool-calls = 5 \n").unwrap();
/// assert_eq!(docs[0][0].key, "spring.ai.tools.limits.max-total-tool-calls");
/// assert_eq!(docs[0][0].value, JavaValue::String("5 ".into()));
/// ```
pub fn parse_properties(bytes: &[u8]) -> Result<Vec<Vec<Entry>>, LoadError> {
    let mut r = Reader {
        bytes,
        pos: 0,
        ch: None,
        escaped: false,
        column: -1,
        newlines: 0,
        char_line: 0,
        line: 0,
        last_comment_prefix: None,
    };
    let mut documents: Vec<Document> = Vec::new();
    let mut document = Document::default();
    while r.read()? {
        if r.is_comment_prefix() {
            let prefix = r.ch;
            if r.is_new_document()? {
                if !document.entries.is_empty() {
                    documents.push(std::mem::take(&mut document));
                }
            } else {
                if document.entries.is_empty() && !documents.is_empty() {
                    document = documents.pop().unwrap_or_default();
                }
                r.last_comment_prefix = prefix;
                r.skip_comment();
            }
        } else {
            r.last_comment_prefix = None;
            load_key_and_value(&mut r, &mut document)?;
        }
    }
    if !document.entries.is_empty() {
        documents.push(document);
    }
    Ok(documents.into_iter().map(|d| d.entries).collect())
}

/// A `LinkedHashMap`: a key put again keeps its place and takes the new value.
#[derive(Default)]
struct Document {
    entries: Vec<Entry>,
    index: std::collections::HashMap<String, usize>,
}

impl Document {
    fn put(&mut self, e: Entry) {
        if e.key.is_empty() {
            return;
        }
        match self.index.get(&e.key) {
            Some(&i) => self.entries[i] = e,
            None => {
                self.index.insert(e.key.clone(), self.entries.len());
                self.entries.push(e);
            }
        }
    }
}

struct Reader<'a> {
    /// ISO-8859-1: one char per byte.
    bytes: &'a [u8],
    pos: usize,
    ch: Option<char>,
    escaped: bool,
    column: i64,
    /// Line ends consumed so far.
    newlines: usize,
    /// 0-based line of the character last taken.
    char_line: usize,
    /// 0-based line of the current line's first character.
    line: usize,
    last_comment_prefix: Option<char>,
}

impl Reader<'_> {
    /// `LineNumberReader.read()`: `\r\n` and `\r` read as `\n`.
    fn raw(&mut self) -> Option<char> {
        let b = *self.bytes.get(self.pos)?;
        self.pos += 1;
        self.char_line = self.newlines;
        let c = if b == b'\r' {
            if self.bytes.get(self.pos) == Some(&b'\n') {
                self.pos += 1;
            }
            '\n'
        } else {
            char::from(b)
        };
        if c == '\n' {
            self.newlines += 1;
        }
        Some(c)
    }

    fn read(&mut self) -> Result<bool, LoadError> {
        self.escaped = false;
        self.ch = self.raw();
        self.column += 1;
        if self.column == 0 {
            self.line = self.char_line;
            self.skip_whitespace();
        }
        if self.ch == Some('\\') {
            self.escaped = true;
            self.read_escaped()?;
        } else if self.ch == Some('\n') {
            self.column = -1;
        }
        Ok(self.ch.is_some())
    }

    fn skip_whitespace(&mut self) {
        while self.is_whitespace() {
            self.ch = self.raw();
            self.column += 1;
        }
    }

    fn skip_comment(&mut self) {
        while self.ch != Some('\n') && self.ch.is_some() {
            self.ch = self.raw();
        }
        self.column = -1;
    }

    fn read_escaped(&mut self) -> Result<(), LoadError> {
        self.ch = self.raw();
        match self.ch {
            Some('t') => self.ch = Some('\t'),
            Some('r') => self.ch = Some('\r'),
            Some('n') => self.ch = Some('\n'),
            Some('f') => self.ch = Some('\u{c}'),
            Some('\n') => {
                self.column = -1;
                self.read()?;
            }
            Some('u') => {
                let mut v: u32 = 0;
                for _ in 0..4 {
                    match self.raw().and_then(|c| c.to_digit(16)) {
                        Some(d) => v = (v << 4) + d,
                        None => {
                            return Err(LoadError {
                                message:
                                    "java.lang.IllegalStateException: Malformed \\uxxxx encoding."
                                        .into(),
                                line: self.char_line + 1,
                            })
                        }
                    }
                }
                // A lone surrogate cannot be held in a Rust string.
                self.ch = Some(char::from_u32(v).unwrap_or('\u{fffd}'));
            }
            _ => {}
        }
        Ok(())
    }

    fn is_whitespace(&self) -> bool {
        !self.escaped && matches!(self.ch, Some(' ' | '\t' | '\u{c}'))
    }

    fn is_end_of_line(&self) -> bool {
        self.ch.is_none() || (!self.escaped && self.ch == Some('\n'))
    }

    fn is_comment_prefix(&self) -> bool {
        matches!(self.ch, Some('#' | '!'))
    }

    fn is_new_document(&mut self) -> Result<bool, LoadError> {
        if self.last_comment_prefix == self.ch {
            return Ok(false);
        }
        let mut result = self.column == 0;
        for _ in 0..3 {
            if result {
                self.read()?;
                result = self.ch == Some('-');
            }
        }
        if !self.is_end_of_line() {
            self.read()?;
            self.skip_whitespace();
        }
        Ok(result && self.is_end_of_line())
    }
}

fn load_key_and_value(r: &mut Reader<'_>, document: &mut Document) -> Result<(), LoadError> {
    // loadKey
    let mut key = String::new();
    let mut previous_whitespace = false;
    while !r.is_end_of_line() {
        if !r.escaped && matches!(r.ch, Some('=' | ':')) {
            r.read()?;
            break;
        }
        if !r.is_whitespace() && previous_whitespace {
            break;
        }
        previous_whitespace = r.is_whitespace();
        if let Some(c) = r.ch {
            key.push(c);
        }
        r.read()?;
    }
    // String.trim(): code points <= U+0020.
    let key = key.trim_matches(|c: char| c <= ' ').to_owned();
    let mut put = |key: String, value: String, line: usize, column: usize| {
        document.put(Entry {
            key,
            value: JavaValue::String(value),
            line,
            column,
        });
    };
    let load_value =
        |r: &mut Reader<'_>, split: bool| -> Result<(String, usize, usize), LoadError> {
            while r.is_whitespace() && !r.is_end_of_line() {
                r.read()?;
            }
            let (line, column) = (r.char_line + 1, usize::try_from(r.column + 1).unwrap_or(1));
            let mut v = String::new();
            while !(r.is_end_of_line() || split && !r.escaped && r.ch == Some(',')) {
                if let Some(c) = r.ch {
                    v.push(c);
                }
                r.read()?;
            }
            Ok((v, line, column))
        };
    if let Some(base) = key.strip_suffix("[]") {
        let base = base.to_owned();
        let mut index = 0;
        loop {
            let (v, line, column) = load_value(r, true)?;
            put(format!("{base}[{index}]"), v, line, column);
            index += 1;
            if !r.is_end_of_line() {
                r.read()?;
            }
            if r.is_end_of_line() {
                break;
            }
        }
    } else {
        let (v, line, column) = load_value(r, false)?;
        put(key, v, line, column);
    }
    Ok(())
}

/// SnakeYAML 1.1's resolution of a plain (unquoted, untagged) scalar as
/// Spring Boot's `OriginTrackedYamlLoader` runs it (no timestamps): the
/// Java object it becomes. `None` is null (`~`, `null`, empty), which the
/// loader turns into the empty string.
///
/// ```
/// use toolcall_model::spring_config::{resolve_yaml_scalar, JavaValue};
/// assert_eq!(resolve_yaml_scalar("010"), Some(JavaValue::Integer(8)));
/// assert_eq!(resolve_yaml_scalar("0x1F"), Some(JavaValue::Integer(31)));
/// assert_eq!(resolve_yaml_scalar("on"), Some(JavaValue::Boolean(true)));
/// assert_eq!(resolve_yaml_scalar("1_000"), Some(JavaValue::Integer(1000)));
/// assert_eq!(resolve_yaml_scalar("08"), Some(JavaValue::String("08".into())));
/// assert_eq!(resolve_yaml_scalar("~"), None);
/// ```
pub fn resolve_yaml_scalar(v: &str) -> Option<JavaValue> {
    const BOOL: [&str; 18] = [
        "yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE",
        "on", "On", "ON", "off", "Off", "OFF",
    ];
    if v.is_empty() || matches!(v, "~" | "null" | "Null" | "NULL" | " ") {
        return None;
    }
    if BOOL.contains(&v) {
        let l = v.to_ascii_lowercase();
        return Some(JavaValue::Boolean(matches!(
            l.as_str(),
            "yes" | "true" | "on"
        )));
    }
    if is_yaml_int(v) {
        if let Some(n) = construct_int(v) {
            return Some(n);
        }
    }
    if is_yaml_float(v) {
        if let Some(d) = construct_float(v) {
            return Some(JavaValue::Double(d));
        }
    }
    Some(JavaValue::String(v.to_owned()))
}

fn strip_sign(v: &str) -> (bool, &str) {
    match v.as_bytes().first() {
        Some(b'-') => (true, &v[1..]),
        Some(b'+') => (false, &v[1..]),
        _ => (false, v),
    }
}

fn all(s: &str, f: impl Fn(u8) -> bool) -> bool {
    s.bytes().all(f)
}

/// Resolver.INT (YAML 1.1, with `_`).
fn is_yaml_int(v: &str) -> bool {
    let (_, b) = strip_sign(v);
    let bin = b.strip_prefix("0b").is_some_and(|r| {
        let r = r.trim_start_matches('_');
        r.starts_with(['0', '1']) && all(r, |c| matches!(c, b'0' | b'1' | b'_'))
    });
    let oct = b.strip_prefix('0').is_some_and(|r| {
        let r = r.trim_start_matches('_');
        r.starts_with(|c: char| ('0'..='7').contains(&c))
            && all(r, |c| (b'0'..=b'7').contains(&c) || c == b'_')
    });
    let dec = b == "0"
        || (b.starts_with(|c: char| ('1'..='9').contains(&c))
            && all(b, |c| c.is_ascii_digit() || c == b'_'));
    let hex = b.strip_prefix("0x").is_some_and(|r| {
        let r = r.trim_start_matches('_');
        r.starts_with(|c: char| c.is_ascii_hexdigit())
            && all(r, |c| c.is_ascii_hexdigit() || c == b'_')
    });
    let sexa = {
        let mut parts = b.split(':');
        let first = parts.next().unwrap_or("");
        let rest: Vec<&str> = parts.collect();
        !rest.is_empty()
            && first.starts_with(|c: char| ('1'..='9').contains(&c))
            && all(first, |c| c.is_ascii_digit() || c == b'_')
            && rest.iter().all(|p| sexagesimal_digit(p))
    };
    bin || oct || dec || hex || sexa
}

/// `[0-5]?[0-9]`.
fn sexagesimal_digit(p: &str) -> bool {
    let b = p.as_bytes();
    match b.len() {
        1 => b[0].is_ascii_digit(),
        2 => (b'0'..=b'5').contains(&b[0]) && b[1].is_ascii_digit(),
        _ => false,
    }
}

/// Resolver.FLOAT.
fn is_yaml_float(v: &str) -> bool {
    let (_, b) = strip_sign(v);
    let digits_us = |s: &str| all(s, |c| c.is_ascii_digit() || c == b'_');
    let exp_ok = |e: &str| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && all(e, |c| c.is_ascii_digit())
    };
    let split_exp = |s: &str| -> (String, Option<String>) {
        match s.find(['e', 'E']) {
            Some(i) => (s[..i].to_owned(), Some(s[i + 1..].to_owned())),
            None => (s.to_owned(), None),
        }
    };
    let (m, e) = split_exp(b);
    let e_ok = none_or(e.as_deref(), exp_ok);
    // [0-9][0-9_]*\.[0-9_]*(e)?
    let a = e_ok
        && m.split_once('.').is_some_and(|(i, f)| {
            i.starts_with(|c: char| c.is_ascii_digit()) && digits_us(i) && digits_us(f)
        });
    // [0-9][0-9_]*[eE][-+]?[0-9]+
    let sci = e.is_some() && e_ok && m.starts_with(|c: char| c.is_ascii_digit()) && digits_us(&m);
    // \.[0-9_]+(e)?
    let dot = e_ok
        && m.strip_prefix('.')
            .is_some_and(|f| !f.is_empty() && digits_us(f));
    // [0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]*
    let sexa = b.split_once('.').is_some_and(|(i, f)| {
        let mut parts = i.split(':');
        let first = parts.next().unwrap_or("");
        let rest: Vec<&str> = parts.collect();
        !rest.is_empty()
            && first.starts_with(|c: char| c.is_ascii_digit())
            && digits_us(first)
            && rest.iter().all(|p| sexagesimal_digit(p))
            && digits_us(f)
    });
    let inf = matches!(b, ".inf" | ".Inf" | ".INF");
    let nan = matches!(v, ".nan" | ".NaN" | ".NAN");
    a || sci || dot || sexa || inf || nan
}

/// `None`, or `Some` that satisfies `f` (`Option::is_none_or`, stable since 1.82).
fn none_or(o: Option<&str>, f: impl Fn(&str) -> bool) -> bool {
    match o {
        None => true,
        Some(s) => f(s),
    }
}

/// `ConstructYamlInt` + `createNumber`: Integer, else Long, else BigInteger.
fn construct_int(v: &str) -> Option<JavaValue> {
    let v = v.replace('_', "");
    let (neg, b) = strip_sign(&v);
    if b == "0" {
        return Some(JavaValue::Integer(0));
    }
    let (digits, radix) = if let Some(r) = b.strip_prefix("0b") {
        (r.to_owned(), 2)
    } else if let Some(r) = b.strip_prefix("0x") {
        (r.to_owned(), 16)
    } else if let Some(r) = b.strip_prefix('0') {
        (r.to_owned(), 8)
    } else if b.contains(':') {
        // Sexagesimal: an int accumulator, as SnakeYAML's.
        let mut val: i32 = 0;
        let mut bes: i32 = 1;
        for d in b.split(':').rev() {
            let n: i64 = d.parse().ok()?;
            val = val.wrapping_add((n.wrapping_mul(i64::from(bes))) as i32);
            bes = bes.wrapping_mul(60);
        }
        let s = if neg {
            format!("-{val}")
        } else {
            val.to_string()
        };
        return number(&s, 10);
    } else {
        (b.to_owned(), 10)
    };
    let s = if neg { format!("-{digits}") } else { digits };
    number(&s, radix)
}

fn number(s: &str, radix: u32) -> Option<JavaValue> {
    if let Ok(n) = i32::from_str_radix(s, radix) {
        return Some(JavaValue::Integer(n));
    }
    if let Ok(n) = i64::from_str_radix(s, radix) {
        return Some(JavaValue::Long(n));
    }
    // BigInteger: keep the decimal text.
    let (neg, d) = strip_sign(s);
    let mut acc: Vec<u32> = vec![0]; // base 1e9, little endian
    for c in d.chars() {
        let digit = c.to_digit(radix)?;
        let mut carry = u64::from(digit);
        for limb in acc.iter_mut() {
            let x = u64::from(*limb) * u64::from(radix) + carry;
            *limb = (x % 1_000_000_000) as u32;
            carry = x / 1_000_000_000;
        }
        while carry > 0 {
            acc.push((carry % 1_000_000_000) as u32);
            carry /= 1_000_000_000;
        }
    }
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    let mut it = acc.iter().rev();
    if let Some(first) = it.next() {
        out.push_str(&first.to_string());
    }
    for l in it {
        out.push_str(&format!("{l:09}"));
    }
    Some(JavaValue::BigInteger(out))
}

/// `ConstructYamlFloat`.
fn construct_float(v: &str) -> Option<f64> {
    let v = v.replace('_', "");
    let (neg, b) = strip_sign(&v);
    let sign = if neg { -1.0 } else { 1.0 };
    let lower = b.to_ascii_lowercase();
    if lower == ".inf" {
        return Some(sign * f64::INFINITY);
    }
    if lower == ".nan" {
        return Some(f64::NAN);
    }
    if b.contains(':') {
        let mut val = 0.0;
        let mut bes: i32 = 1;
        for d in b.split(':').rev() {
            val += d.parse::<f64>().ok()? * f64::from(bes);
            bes = bes.wrapping_mul(60);
        }
        return Some(sign * val);
    }
    // Double.valueOf accepts "1." and ".5".
    let t = if b.ends_with('.') {
        format!("{b}0")
    } else {
        b.to_owned()
    };
    let t = t.replace(".e", ".0e").replace(".E", ".0E");
    t.parse::<f64>().ok().map(|d| d * sign)
}

/// The properties `ToolCallingProperties` (prefix `spring.ai.tools`) binds,
/// in canonical form, with their Java types.
pub const KNOWN_KEYS: [(&str, &str); 8] = [
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

/// One element of a property name.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Element {
    text: String,
    indexed: bool,
}

/// `ConfigurationPropertyName.adapt(name, '.')`: elements split at dots
/// outside brackets; `[...]` is an indexed element.
fn elements(name: &str) -> Vec<Element> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut depth = 0usize;
    let flush = |cur: &mut String, out: &mut Vec<Element>| {
        if !cur.is_empty() {
            out.push(Element {
                text: std::mem::take(cur),
                indexed: false,
            });
        }
    };
    for c in name.chars() {
        match c {
            '[' if depth == 0 => {
                flush(&mut cur, &mut out);
                depth = 1;
            }
            '[' => {
                depth += 1;
                cur.push(c);
            }
            ']' if depth == 1 => {
                out.push(Element {
                    text: std::mem::take(&mut cur),
                    indexed: true,
                });
                depth = 0;
            }
            ']' if depth > 1 => {
                depth -= 1;
                cur.push(c);
            }
            '.' if depth == 0 => flush(&mut cur, &mut out),
            _ => cur.push(c),
        }
    }
    flush(&mut cur, &mut out);
    out
}

fn ascii_alnum(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit()
}

/// The uniform form of a non-indexed element: lowercase ASCII letters and
/// digits only (what relaxed equality compares).
fn uniform(e: &Element) -> String {
    if e.indexed {
        return e.text.clone();
    }
    e.text
        .chars()
        .map(|c| c.to_lowercase().next().unwrap_or(c))
        .filter(|&c| ascii_alnum(c))
        .collect()
}

/// `getElement(i, Form.ORIGINAL)`: a uniform element as is; otherwise `_`
/// and the characters that are valid once lowercased (ASCII letters,
/// digits, `-` after the first), case kept.
fn original(e: &Element) -> String {
    if e.indexed {
        return e.text.clone();
    }
    let valid = |c: char, i: usize| ascii_alnum(c) || (i != 0 && c == '-');
    let is_uniform = e.text.chars().enumerate().all(|(i, c)| valid(c, i));
    if is_uniform {
        return e.text.clone();
    }
    e.text
        .chars()
        .enumerate()
        .filter(|&(i, c)| c == '_' || valid(c.to_lowercase().next().unwrap_or(c), i))
        .map(|(_, c)| c)
        .collect()
}

/// `toString()` of a name: dashed form (lowercase, valid characters),
/// indexed elements in brackets.
fn dashed(els: &[Element]) -> String {
    let mut s = String::new();
    for e in els {
        if e.indexed {
            s.push('[');
            s.push_str(&e.text);
            s.push(']');
        } else {
            if !s.is_empty() {
                s.push('.');
            }
            let valid = |c: char, i: usize| ascii_alnum(c) || (i != 0 && c == '-');
            s.extend(
                e.text
                    .chars()
                    .map(|c| c.to_lowercase().next().unwrap_or(c))
                    .enumerate()
                    .filter(|&(i, c)| valid(c, i))
                    .map(|(_, c)| c),
            );
        }
    }
    s
}

fn uniform_key(els: &[Element]) -> Vec<String> {
    els.iter().map(uniform).collect()
}

fn target(s: &str) -> Vec<String> {
    uniform_key(&elements(s))
}

/// What a setup's properties say, as the auto-configuration applies them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bound {
    /// `ToolCallLimits`, built by `toolCallingManager(...)`'s builder calls.
    pub limits: Limits,
    /// `spring.ai.tools.throw-exception-on-error` (the processor's `alwaysThrow`).
    pub always_throw: bool,
    /// `spring.ai.tools.resolution.fallback.enabled`.
    pub resolution_fallback: bool,
    /// `spring.ai.tools.observations.include-content`.
    pub include_content: bool,
    /// The properties read, canonical name → value as written.
    pub read: BTreeMap<String, String>,
    /// Keys Spring ignores that look like a tool-calling key, each with the
    /// key it probably meant.
    pub unknown: Vec<Unknown>,
}

/// An ignored key and its likely meaning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unknown {
    /// The key as written.
    pub key: String,
    /// Where.
    pub line: usize,
    /// The known key it is closest to.
    pub suggestion: String,
}

/// Why Spring refuses the properties, in Spring's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BindFailure {
    /// `BindException`, as `BindFailureAnalyzer` describes it.
    Bind {
        /// `Failed to bind properties under 'NAME' to TYPE`.
        description: String,
        /// The property's canonical name.
        property: String,
        /// Its value (`toString()`).
        value: String,
        /// 1-based line and column.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The `Reason:` line.
        reason: String,
    },
    /// Indexed elements with a gap (`UnboundConfigurationPropertiesException`).
    Unbound {
        /// The properties left unbound.
        properties: Vec<String>,
        /// 1-based line of the first.
        line: usize,
    },
    /// The auto-configuration's builder call failed (`IllegalArgumentException`).
    Builder {
        /// `java.lang.IllegalArgumentException: MESSAGE`.
        message: String,
    },
}

impl std::fmt::Display for BindFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BindFailure::Bind {
                description,
                property,
                value,
                line,
                column,
                reason,
            } => write!(
                f,
                "{description}:\n\n    Property: {property}\n    Value: \"{value}\"\n    Origin: line {line}, column {column}\n    Reason: {reason}"
            ),
            BindFailure::Unbound { properties, line } => write!(
                f,
                "The elements [{}] were left unbound (line {line}).",
                properties.join(",")
            ),
            BindFailure::Builder { message } => write!(
                f,
                "Error creating bean with name 'toolCallingManager' (ToolCallingAutoConfiguration): {message}"
            ),
        }
    }
}

/// The key Spring reads: a property name as relaxed binding sees it.
struct Prop<'a> {
    els: Vec<Element>,
    uni: Vec<String>,
    entry: &'a Entry,
}

/// Merges documents: a later document's property replaces an earlier one
/// with the same relaxed name (Spring adds later documents ahead).
fn merge(documents: &[Vec<Entry>]) -> Vec<Prop<'_>> {
    let mut out: Vec<Prop<'_>> = Vec::new();
    let mut index: std::collections::HashMap<Vec<String>, usize> = Default::default();
    for d in documents {
        for e in d {
            let els = elements(&e.key);
            let uni = uniform_key(&els);
            let p = Prop {
                els,
                uni: uni.clone(),
                entry: e,
            };
            match index.get(&uni) {
                Some(&i) => out[i] = p,
                None => {
                    index.insert(uni, out.len());
                    out.push(p);
                }
            }
        }
    }
    out
}

fn failure(p: &Prop<'_>, target_type: &str, reason: String, name_els: &[Element]) -> BindFailure {
    let name = dashed(name_els);
    BindFailure::Bind {
        description: format!("Failed to bind properties under '{name}' to {target_type}"),
        property: dashed(&p.els),
        value: p.entry.value.to_java_string(),
        line: p.entry.line,
        column: p.entry.column,
        reason,
    }
}

fn conversion_failed(source: &str, target: &str, cause: &str) -> String {
    format!("failed to convert {source} to {target} (caused by {cause})")
}

fn no_converter(source: &str, target: &str) -> String {
    format!("org.springframework.core.convert.ConverterNotFoundException: No converter found capable of converting from type [{source}] to type [{target}]")
}

/// `Integer.valueOf(s)` / `Integer.decode(s)` as `NumberUtils.parseNumber`
/// calls them, with Java's `NumberFormatException` messages.
fn parse_java_int(text: &str) -> Result<i32, String> {
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
        return value_of(&signed, 16, &signed).map_err(|e| {
            if digits.is_empty() {
                nfe("", 16)
            } else {
                e
            }
        });
    }
    value_of(&trimmed, 10, &trimmed)
}

/// `Character.isLetterOrDigit` + `toLowerCase` canonical form of the enum binder.
fn enum_canonical(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

const BEHAVIOR: &str = "org.springframework.ai.model.tool.ToolCallLimitBehavior";

fn to_behavior(v: &JavaValue) -> Result<Option<OnExceeded>, String> {
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
        JavaValue::String(s) => named(s)
            .map_err(|e| conversion_failed("java.lang.String", BEHAVIOR, &e)),
        JavaValue::Boolean(b) => named(&b.to_string())
            .map_err(|e| conversion_failed("java.lang.Boolean", BEHAVIOR, &e)),
        // IntegerToEnumConverterFactory: by ordinal.
        JavaValue::Integer(n) => match *n {
            0 => Ok(Some(OnExceeded::Throw)),
            1 => Ok(Some(OnExceeded::ReturnErrorResponse)),
            _ => Err(conversion_failed(
                "java.lang.Integer",
                BEHAVIOR,
                &format!("java.lang.ArrayIndexOutOfBoundsException: Index {n} out of bounds for length 2"),
            )),
        },
        other => Err(no_converter(other.class(), BEHAVIOR)),
    }
}

fn to_integer(v: &JavaValue) -> Result<Option<i32>, String> {
    let overflow = |shown: String, class: &str| {
        conversion_failed(
            class,
            "java.lang.Integer",
            &format!("java.lang.IllegalArgumentException: Could not convert number [{shown}] of type [{class}] to target class [java.lang.Integer]: overflow"),
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

fn to_boolean(v: &JavaValue) -> Result<Option<bool>, String> {
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
fn split_list(s: &str) -> Vec<String> {
    if s.is_empty() {
        return vec![];
    }
    s.split(',')
        .map(|x| x.trim_matches(|c: char| c <= ' ').to_owned())
        .collect()
}

/// Binds the `spring.ai.tools.*` properties of `documents` (later documents
/// win) and applies the auto-configuration's builder calls, as Spring Boot
/// and `ToolCallingAutoConfiguration.toolCallingManager` do.
///
/// ```
/// use toolcall_model::{limits::{Max, OnExceeded}, spring_config::{bind, parse_properties}};
/// let docs = parse_properties(b"spring.ai.tools.limits.maxCallsPerTool.getWeather=2\nspring.ai.tools.limits.on-limit-exceeded=return-error-response\n").unwrap();
/// let b = bind(&docs).unwrap();
/// assert_eq!(b.limits.max_for("getWeather"), Some(Max::Limited(2)));
/// assert_eq!(b.limits.on_exceeded, OnExceeded::ReturnErrorResponse);
/// let bad = parse_properties(b"spring.ai.tools.limits.max-total-tool-calls=0\n").unwrap();
/// assert!(bind(&bad).unwrap_err().to_string().contains("maxTotalToolCalls must be greater than 0"));
/// ```
pub fn bind(documents: &[Vec<Entry>]) -> Result<Bound, BindFailure> {
    let props = merge(documents);
    let k = |s: &str| target(s);
    let find = |name: &str| props.iter().find(|p| p.uni == k(name));
    let under = |name: &str| -> Vec<&Prop<'_>> {
        let t = k(name);
        props
            .iter()
            .filter(|p| p.uni.len() > t.len() && p.uni[..t.len()] == t[..])
            .collect()
    };
    let mut read = BTreeMap::new();
    let mut note = |p: &Prop<'_>| {
        read.insert(dashed(&p.els), p.entry.value.to_java_string());
    };
    let els = |s: &str| elements(s);

    // JavaBeanBinder order: limits (excludedTools, maxCallsPerTool,
    // maxCallsPerToolDefault, maxTotalToolCalls, onLimitExceeded),
    // observations, resolution, throwExceptionOnError.
    let excl_name = "spring.ai.tools.limits.excluded-tools";
    let mut excluded: Vec<String> = Vec::new();
    if let Some(p) = find(excl_name) {
        note(p);
        match &p.entry.value {
            JavaValue::String(s) => excluded = split_list(s),
            other => excluded = vec![other.to_java_string()],
        }
    } else {
        let t = k(excl_name);
        let mut indexed: BTreeMap<u64, &Prop<'_>> = BTreeMap::new();
        let mut odd = Vec::new();
        for p in under(excl_name) {
            let idx = p
                .els
                .get(t.len())
                .filter(|e| e.indexed && p.els.len() == t.len() + 1);
            match idx.and_then(|e| e.text.trim().parse::<u64>().ok()) {
                Some(i) => {
                    indexed.insert(i, p);
                }
                None => odd.push(p),
            }
        }
        let mut i = 0u64;
        while let Some(p) = indexed.remove(&i) {
            note(p);
            excluded.push(p.entry.value.to_java_string());
            i += 1;
        }
        let mut left: Vec<&Prop<'_>> = indexed.into_values().chain(odd).collect();
        left.sort_by_key(|p| p.entry.line);
        if let Some(first) = left.first() {
            return Err(BindFailure::Unbound {
                properties: left.iter().map(|p| dashed(&p.els)).collect(),
                line: first.entry.line,
            });
        }
    }

    let map_name = "spring.ai.tools.limits.max-calls-per-tool";
    let map_type = "java.util.Map<java.lang.String, java.lang.Integer>";
    let mut per_tool: Vec<(String, i32)> = Vec::new();
    if let Some(p) = find(map_name) {
        if under(map_name).is_empty() {
            let v = &p.entry.value;
            let empty = matches!(v, JavaValue::String(s) if s.is_empty());
            if !empty {
                return Err(failure(
                    p,
                    map_type,
                    no_converter(v.class(), map_type),
                    &els(map_name),
                ));
            }
        }
    }
    let t = k(map_name);
    for p in under(map_name) {
        // A scalar value type: the key is every remaining element, joined.
        let key = p.els[t.len()..]
            .iter()
            .map(original)
            .collect::<Vec<_>>()
            .join(".");
        note(p);
        match to_integer(&p.entry.value) {
            Ok(Some(n)) => {
                if let Some(e) = per_tool.iter_mut().find(|(k, _)| *k == key) {
                    e.1 = n;
                } else {
                    per_tool.push((key, n));
                }
            }
            Ok(None) => {}
            Err(reason) => return Err(failure(p, "java.lang.Integer", reason, &p.els)),
        }
    }

    let int_prop = |name: &str| -> Result<Option<i32>, BindFailure> {
        match find(name) {
            None => Ok(None),
            Some(p) => to_integer(&p.entry.value)
                .map_err(|r| failure(p, "java.lang.Integer", r, &els(name))),
        }
    };
    let default_name = "spring.ai.tools.limits.max-calls-per-tool-default";
    let total_name = "spring.ai.tools.limits.max-total-tool-calls";
    let per_default = int_prop(default_name)?;
    if let Some(p) = find(default_name) {
        note(p);
    }
    let total = int_prop(total_name)?;
    if let Some(p) = find(total_name) {
        note(p);
    }
    let on_name = "spring.ai.tools.limits.on-limit-exceeded";
    let mut on = OnExceeded::Throw;
    if let Some(p) = find(on_name) {
        note(p);
        match to_behavior(&p.entry.value) {
            Ok(Some(b)) => on = b,
            Ok(None) => {}
            Err(r) => return Err(failure(p, BEHAVIOR, r, &els(on_name))),
        }
    }
    let bool_prop = |name: &str| -> Result<Option<bool>, BindFailure> {
        match find(name) {
            None => Ok(None),
            Some(p) => to_boolean(&p.entry.value).map_err(|r| failure(p, "boolean", r, &els(name))),
        }
    };
    let include_content = bool_prop("spring.ai.tools.observations.include-content")?;
    let fallback = bool_prop("spring.ai.tools.resolution.fallback.enabled")?;
    let always_throw = bool_prop("spring.ai.tools.throw-exception-on-error")?;
    for n in [
        "spring.ai.tools.observations.include-content",
        "spring.ai.tools.resolution.fallback.enabled",
        "spring.ai.tools.throw-exception-on-error",
    ] {
        if let Some(p) = find(n) {
            note(p);
        }
    }

    // ToolCallingAutoConfiguration.toolCallingManager's builder calls.
    let builder = |e: LimitsError| BindFailure::Builder {
        message: e.to_string(),
    };
    let mut limits = Limits::default();
    let per_default = per_default.unwrap_or(40);
    limits = if per_default == -1 {
        limits.unlimited_calls_per_tool()
    } else {
        limits.max_calls_per_tool(per_default).map_err(builder)?
    };
    for (name, n) in &per_tool {
        limits = if *n == -1 {
            limits.exclude_tool_from_limit(name).map_err(builder)?
        } else {
            limits.max_calls_per_tool_for(name, *n).map_err(builder)?
        };
    }
    for name in &excluded {
        limits = limits.exclude_tool_from_limit(name).map_err(builder)?;
    }
    let total = total.unwrap_or(150);
    limits = if total == -1 {
        limits.unlimited_total_tool_calls()
    } else {
        limits.max_total_tool_calls(total).map_err(builder)?
    };
    limits.on_exceeded = on;

    let unknown = props
        .iter()
        .filter(|p| {
            !KNOWN_KEYS.iter().any(|(n, _)| {
                let t = k(n);
                p.uni == t || (p.uni.len() > t.len() && p.uni[..t.len()] == t[..])
            })
        })
        .filter_map(|p| {
            suggest(&p.uni).map(|s| Unknown {
                key: p.entry.key.clone(),
                line: p.entry.line,
                suggestion: s,
            })
        })
        .collect();
    Ok(Bound {
        limits,
        always_throw: always_throw.unwrap_or(false),
        resolution_fallback: fallback.unwrap_or(false),
        include_content: include_content.unwrap_or(false),
        read,
        unknown,
    })
}

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

/// The known key an unknown one probably meant: within an edit distance of
/// a third of the key (on the relaxed form), or any key under
/// `spring.ai.tools` whose last element is close to a known last element.
fn suggest(uni: &[String]) -> Option<String> {
    let joined = uni.join(".");
    let mut best: Option<(usize, &str)> = None;
    for (name, _) in KNOWN_KEYS {
        let t = target(name);
        // Compare against the known key, or its map prefix for map entries.
        let cand: String = if name.ends_with("max-calls-per-tool") && uni.len() > t.len() {
            uni[..t.len()].join(".")
        } else {
            joined.clone()
        };
        let d = edit_distance(&cand, &t.join("."));
        if !matches!(best, Some((b, _)) if b <= d) {
            best = Some((d, name));
        }
    }
    let (d, name) = best?;
    let tools =
        uni.len() >= 3 && uni[0] == "spring" && uni[1] == "ai" && uni[2].starts_with("tool");
    (d > 0 && (d * 3 <= joined.len().min(40) / 2 || (tools && d <= 8))).then(|| name.to_owned())
}
