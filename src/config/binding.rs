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
//!
//! # Checked against Spring Boot
//!
//! `tests/spring_binding.rs` binds every file of `tests/spring_config/`
//! with a real Spring Boot 4.1.1 application and Spring AI 2.0.1's
//! `ToolCallingAutoConfiguration` (`conformance/java`'s `BindProbe`) and
//! requires the same limits or the same refusal. What it found, and what
//! this module now does as Spring does:
//!
//! * **Which spelling wins.** Within one document the property whose key
//!   is the canonical name wins; without one, the first of Spring's
//!   `HashSet` of the equal keys (by `String.hashCode()`), not the last in
//!   the file. A map entry's value is looked up by the entry's name, so
//!   `max-calls-per-tool.Foo` and `.FOO` are two keys that both take the
//!   value of `.foo` when the file has it (the model merged them into one).
//! * **Documents.** A later document wins per property, but a list is
//!   taken whole from the last document that gives it (its `[0]`, `[1]`
//!   or its value), and a map gathers the keys of every document.
//! * **Order of errors.** `JavaBeanBinder` binds `is` getters before `get`
//!   ones: `throw-exception-on-error` is checked before `limits`; map
//!   entries bind last document first; the builder takes the overrides in
//!   `HashMap` order, so of a blank name and a zero, either may be reported.
//! * **Primitive booleans.** An empty or blank value (YAML `~` or nothing)
//!   for `throw-exception-on-error`, `include-content` or
//!   `fallback.enabled` is refused: `A null value cannot be assigned to a
//!   primitive type` (the model read it as unset).
//! * **Names.** An element with no valid character (`_`, `天气`) is dropped,
//!   so `max-calls-per-tool.天气` is the map itself; `wetter_ä` is the key
//!   `wetter_`; a list child that is not an index (`excluded-tools.foo`) is
//!   ignored, while `[01]` or `[x]` is an unbound element; unbound elements
//!   are listed in `ConfigurationPropertyName` order (`[2]`, `[9]`, `[10]`,
//!   `[x]`); the reported property is the name bound, in canonical form.
//! * **Groups.** `spring.ai.tools.limits=` (YAML `limits:` with nothing
//!   under it) stops the application: `No setter found for property:
//!   limits`; another value there is refused only when no property of the
//!   group binds. A YAML boolean two levels under the map drops its entry.
//! * **Placeholders.** `${NAME:default}` is resolved (Spring 7's
//!   `PlaceholderParser`: nesting, `\` escapes, circular references
//!   refused); the file is the only source here, so a name it does not set
//!   is listed in [`Bound::placeholders_not_in_file`].
//! * **Origins.** An empty value at a line's end stands at the next line,
//!   column 0 (`CharacterReader.getLocation()`).
//!
//! Confirmed as modelled: `.properties` files are read as ISO-8859-1
//! (UTF-8 bytes become two characters); non-ASCII map keys keep only what
//! relaxed names keep (brackets keep everything); YAML numbers convert to
//! the enum by ordinal, and a `Long` or `Double` has no converter.
//!
//! Known limits: the JDK 17 `HashMap` sizing is modelled (JDK 19 and later
//! presize differently for 3, 6, 12... overrides, which can change which of
//! two builder errors is reported); an index past `long` in an unbound list
//! element is compared by its digits (Java throws `NumberFormatException`).

use std::collections::BTreeMap;

use crate::model::limits::{is_java_whitespace, Limits, LimitsError, OnExceeded};

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
    /// use toolcall_model::config::binding::JavaValue;
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

/// A file Spring cannot load, or one past this model's limits.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} (line {line})")]
pub struct LoadError {
    /// Spring's message, or the limit's.
    pub message: String,
    /// 1-based line.
    pub line: usize,
    /// Past a limit of this model ([`MAX_CONFIG_BYTES`],
    /// [`MAX_EXPANDED_BYTES`]), not Spring's refusal.
    pub not_modelled: bool,
}

/// The largest `application.properties` or `application.yml` read (4
/// MiB, some 50,000 lines): such a file is a few kilobytes; a file of this
/// size of nothing but tool-calling keys takes about a second and 150 MB.
pub const MAX_CONFIG_BYTES: usize = 4 << 20;

/// What one file may expand to, past its own bytes: the properties a
/// `key[]=a,b,...` line or a YAML file's flattening and aliases make (keys
/// and values), and the work of resolving its placeholders (text produced at
/// every level, values parsed, names looked up). 32 MiB, eight times the
/// largest file: a real configuration expands to a few times its size;
/// past this the file is `not_checked` instead of taking time and memory
/// exponential in its size (a 700-byte file of doubling placeholders
/// expands to terabytes). SnakeYAML bounds aliases the same way
/// (`maxAliasesForCollections`); Spring's resolver has no bound.
pub const MAX_EXPANDED_BYTES: usize = 8 * MAX_CONFIG_BYTES;

/// The refusal of a file that expands past [`MAX_EXPANDED_BYTES`]: what
/// expands, and where.
///
/// ```
/// let m = toolcall_model::config::binding::expands_too_much("aliases");
/// assert_eq!(m, "aliases expand past 33554432 bytes");
/// ```
pub fn expands_too_much(what: &str) -> String {
    format!("{what} expand past {MAX_EXPANDED_BYTES} bytes")
}

/// What one property costs against [`MAX_EXPANDED_BYTES`] besides its
/// key and value: the bookkeeping of an entry, so that a list of empty
/// items (`key[]=,,,,`) counts too.
pub const ENTRY_COST: usize = 64;

/// The refusal of a file past [`MAX_CONFIG_BYTES`].
///
/// ```
/// let e = toolcall_model::config::binding::too_large(20 << 20);
/// assert_eq!(e.to_string(), "larger than 4194304 bytes (20971520): not read (line 1)");
/// ```
pub fn too_large(len: usize) -> LoadError {
    LoadError {
        message: format!("larger than {MAX_CONFIG_BYTES} bytes ({len}): not read"),
        line: 1,
        not_modelled: true,
    }
}

/// `OriginTrackedPropertiesLoader.load`: the documents of an
/// `application.properties` file (`#---` or `!---` separates documents),
/// read as ISO-8859-1 as Spring Boot's loader does, with `\` escapes and
/// continuation lines, `=`, `:` or whitespace between key and value, the
/// value's leading whitespace dropped and its trailing whitespace kept, and
/// `key[]=a,b` expanded to `key[0]`, `key[1]`.
///
/// ```
/// use toolcall_model::config::binding::{parse_properties, JavaValue};
/// let docs = parse_properties(b"# c\nspring.ai.tools.limits.max-total-tool-calls = 5 \n").unwrap();
/// assert_eq!(docs[0][0].key, "spring.ai.tools.limits.max-total-tool-calls");
/// assert_eq!(docs[0][0].value, JavaValue::String("5 ".into()));
/// ```
pub fn parse_properties(bytes: &[u8]) -> Result<Vec<Vec<Entry>>, LoadError> {
    if bytes.len() > MAX_CONFIG_BYTES {
        return Err(too_large(bytes.len()));
    }
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
    let mut expanded = 0usize;
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
            load_key_and_value(&mut r, &mut document, &mut expanded)?;
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

    /// `CharacterReader.read()`. Java's `readEscaped` calls `read` again
    /// after a backslash-newline; here that is a turn of the loop, so a
    /// file of continuation lines takes no stack.
    fn read(&mut self) -> Result<bool, LoadError> {
        loop {
            self.escaped = false;
            self.ch = self.raw();
            self.column += 1;
            if self.column == 0 {
                self.line = self.char_line;
                self.skip_whitespace();
            }
            if self.ch == Some('\\') {
                self.escaped = true;
                if self.read_escaped()? {
                    continue;
                }
            } else if self.ch == Some('\n') {
                self.column = -1;
            }
            return Ok(self.ch.is_some());
        }
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

    /// The character after a backslash; `true` for a line continuation, where
    /// the caller reads on.
    fn read_escaped(&mut self) -> Result<bool, LoadError> {
        self.ch = self.raw();
        match self.ch {
            Some('t') => self.ch = Some('\t'),
            Some('r') => self.ch = Some('\r'),
            Some('n') => self.ch = Some('\n'),
            Some('f') => self.ch = Some('\u{c}'),
            Some('\n') => {
                self.column = -1;
                return Ok(true);
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
                                not_modelled: false,
                            })
                        }
                    }
                }
                // A lone surrogate cannot be held in a Rust string.
                self.ch = Some(char::from_u32(v).unwrap_or('\u{fffd}'));
            }
            _ => {}
        }
        Ok(false)
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

/// `expanded`: the bytes of the `key[]=` items made so far, against
/// [`MAX_EXPANDED_BYTES`].
fn load_key_and_value(
    r: &mut Reader<'_>,
    document: &mut Document,
    expanded: &mut usize,
) -> Result<(), LoadError> {
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
            // `CharacterReader.getLocation()`: the reader's line count, so an
            // empty value at a line's end stands at the next line, column 0.
            let (line, column) = (r.newlines + 1, usize::try_from(r.column + 1).unwrap_or(0));
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
            // Each item repeats the key: the only way a line makes more
            // than its own bytes.
            *expanded += base.len() + v.len() + ENTRY_COST;
            if *expanded > MAX_EXPANDED_BYTES {
                return Err(LoadError {
                    message: expands_too_much("key[]= lists"),
                    line,
                    not_modelled: true,
                });
            }
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
/// use toolcall_model::config::binding::{resolve_yaml_scalar, JavaValue};
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

/// The type `ConfigurationPropertyName`'s parser (`ElementsParser`) gives an
/// element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
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
    fn indexed(self) -> bool {
        matches!(self, Kind::Indexed | Kind::NumericallyIndexed)
    }
}

/// One element of a property name, as `ConfigurationPropertyName.adapt`
/// keeps it: its source text and its type.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Element {
    text: String,
    kind: Kind,
}

/// `ElementsParser.isValidChar`.
fn valid_char(c: char, index: usize) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit() || (index != 0 && c == '-')
}

/// `Character.toLowerCase(char)` (the simple mapping: `İ` gives `i`).
fn java_lower(c: char) -> char {
    c.to_lowercase().next().unwrap_or(c)
}

/// `ElementsParser.updateType`. Only whether `index` is 0 matters, so a
/// character index stands for Java's UTF-16 index.
fn update_kind(kind: Kind, ch: char, index: usize) -> Kind {
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
fn elements(name: &str) -> Vec<Element> {
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
fn uniform(e: &Element) -> String {
    match e.kind {
        Kind::Uniform | Kind::Indexed | Kind::NumericallyIndexed => e.text.clone(),
        _ => e
            .text
            .chars()
            .map(java_lower)
            .filter(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
            .collect(),
    }
}

/// `getElement(i, Form.ORIGINAL)`: a map key's element. A uniform or
/// dashed element as written; otherwise `_` and the characters valid once
/// lowercased, case kept (`wetter_ä` gives `wetter_`).
fn original(e: &Element) -> String {
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
fn dashed_element(e: &Element) -> String {
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
fn dashed(els: &[Element]) -> String {
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

fn uniform_key(els: &[Element]) -> Vec<String> {
    els.iter().map(uniform).collect()
}

fn target(s: &str) -> Vec<String> {
    uniform_key(&elements(s))
}

/// `String.hashCode()`.
fn java_hash(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, c| h.wrapping_mul(31).wrapping_add(i32::from(c)))
}

/// The bucket `HashMap` puts a `String` key in, for a table of `capacity`
/// (a power of two): `(h ^ (h >>> 16)) & (capacity - 1)`.
fn java_bucket(s: &str, capacity: usize) -> usize {
    let h = java_hash(s) as u32;
    ((h ^ (h >> 16)) as usize) & (capacity - 1)
}

/// `HashMap`'s iteration order of `keys` inserted in this order into a
/// table of `capacity`: by bucket, then by insertion within a bucket
/// (resizing splits buckets without reordering them). Trees (8 or more
/// keys in one bucket of a table of 64 or more) are not modelled.
fn java_hash_order(keys: &[&str], capacity: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..keys.len()).collect();
    order.sort_by_key(|&i| java_bucket(keys[i], capacity));
    order
}

/// The table size of a `HashSet` after `n` insertions into `new HashSet<>()`
/// (16, doubled each time the size passes three quarters of it).
fn hash_set_capacity(n: usize) -> usize {
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
fn put_all_capacity(n: usize) -> usize {
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
fn compare_names(a: &[Element], b: &[Element]) -> std::cmp::Ordering {
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
    /// Placeholders (`${LIMIT:20}`) a bound value names that the file does
    /// not set: read here with their default (or left as written, as Spring
    /// leaves an unresolvable one), where Spring would first look in the
    /// environment (system properties, environment variables).
    pub placeholders_not_in_file: Vec<String>,
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
    /// A value given to a group itself (`spring.ai.tools.limits=5`) that
    /// no converter takes, with none of the group's properties bound:
    /// `BindFailureAnalyzer` names no property then.
    Convert {
        /// `Failed to bind properties under 'NAME' to TYPE`.
        description: String,
        /// The `Reason:` line.
        reason: String,
    },
    /// Past what this model resolves ([`MAX_PLACEHOLDER_DEPTH`]): not an
    /// answer about Spring.
    Limit {
        /// What was not modelled, and where.
        message: String,
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
            BindFailure::Convert {
                description,
                reason,
            } => write!(f, "{description}:\n\n    Reason: {reason}"),
            BindFailure::Limit { message } => write!(f, "{message}"),
            BindFailure::Builder { message } => write!(
                f,
                "Error creating bean with name 'toolCallingManager' (ToolCallingAutoConfiguration): {message}"
            ),
        }
    }
}

/// Placeholders nested deeper than this are not resolved: the binding
/// stops with [`BindFailure::Limit`] (Spring resolves them, up to its
/// stack).
pub const MAX_PLACEHOLDER_DEPTH: usize = 100;

const PLACEHOLDER_LIMIT: &str =
    "placeholders nested more than 100 deep: toolcall-model does not resolve them";

const PLACEHOLDER_EXCEPTION: &str = "org.springframework.util.PlaceholderResolutionException: ";

fn placeholders_expand_too_much() -> String {
    format!(
        "{}: toolcall-model does not resolve them",
        expands_too_much("placeholders")
    )
}

/// What a name looked up costs against [`MAX_EXPANDED_BYTES`] besides its
/// length, so that placeholders resolving to nothing count too.
const LOOKUP_COST: usize = 16;

/// The text between `${` and its `}` (nested braces counted), as Spring's
/// `PlaceholderParser` parses a value: text and placeholders; a `${`
/// preceded by `\` is literal (the `\` dropped); an unclosed `${` is text.
#[derive(Debug, Clone)]
enum Part {
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

fn add_text(parts: &mut Vec<Part>, t: &str) {
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
fn placeholder_ends(v: &str) -> std::collections::HashMap<usize, usize> {
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
fn parse_section(v: &str) -> (String, Option<String>) {
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
fn parse_placeholders(v: &str, inside: bool, depth: usize) -> Result<Option<Vec<Part>>, String> {
    if depth > MAX_PLACEHOLDER_DEPTH {
        return Err(PLACEHOLDER_LIMIT.into());
    }
    let Some(mut start) = v.find("${") else {
        return Ok(None);
    };
    let ends = placeholder_ends(v);
    let mut parts = Vec::new();
    let mut pos = 0;
    loop {
        match ends.get(&start).copied() {
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
                match parse_placeholders(inner, true, depth + 1)? {
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
    // createNestedPlaceholderPart
    let mut key = Vec::new();
    for (i, p) in parts.iter().enumerate() {
        match p {
            Part::Text(t) => {
                let (k, fallback) = parse_section(t);
                key.push(Part::Text(k));
                if let Some(f) = fallback {
                    let mut d = vec![Part::Text(f)];
                    d.extend(parts[i + 1..].iter().cloned());
                    return Ok(Some(vec![Part::Nested {
                        key,
                        fallback: Some(d),
                    }]));
                }
            }
            other => key.push(other.clone()),
        }
    }
    Ok(Some(vec![Part::Nested {
        key,
        fallback: None,
    }]))
}

fn err_limit() -> PlaceholderError {
    PlaceholderError {
        reason: PLACEHOLDER_LIMIT.into(),
        values: Vec::new(),
    }
}

/// A placeholder that failed: `PlaceholderResolutionException`'s reason and
/// the values it was met in, innermost first.
struct PlaceholderError {
    reason: String,
    values: Vec<String>,
}

impl PlaceholderError {
    fn message(&self) -> String {
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

/// Resolves the `${...}` placeholders of property values as the binder's
/// `PropertySourcesPlaceholdersResolver` does, against the file alone: a
/// canonical name (`other.value`, `other-value`) through relaxed binding
/// over every document, another (`LIMIT`, `otherValue`) by its exact key;
/// unresolvable placeholders stay as written. The names not found in the
/// file are kept: Spring would read them from the environment first.
struct Placeholders<'a> {
    documents: &'a [Vec<Entry>],
    /// Every property of every document, last document first (built on
    /// the first placeholder).
    all: std::cell::OnceCell<AllSources<'a>>,
    /// The names not found, in order, and as a set (a file can name tens
    /// of thousands).
    missing: std::cell::RefCell<(Vec<String>, std::collections::HashSet<String>)>,
    /// The work done so far against [`MAX_EXPANDED_BYTES`]: a value is
    /// resolved again at every use, and each level may double the text.
    spent: std::cell::Cell<usize>,
}

/// Every document's properties, and where each name is first found: a
/// lookup asks only the first document that can answer it (asking each in
/// turn was quadratic over thousands of documents).
struct AllSources<'a> {
    docs: Vec<AllSource<'a>>,
    /// The first document with this exact key.
    exact: std::collections::HashMap<&'a str, usize>,
    /// The first document with a key of this relaxed name.
    relaxed: std::collections::HashMap<Vec<String>, usize>,
}

/// A document's properties, every key (not only `spring.ai.tools`).
struct AllSource<'a> {
    exact: std::collections::HashMap<&'a str, &'a Entry>,
    relaxed: std::collections::HashMap<Vec<String>, Vec<&'a Entry>>,
}

impl<'a> Placeholders<'a> {
    fn new(documents: &'a [Vec<Entry>]) -> Self {
        Placeholders {
            documents,
            all: std::cell::OnceCell::new(),
            missing: Default::default(),
            spent: std::cell::Cell::new(0),
        }
    }

    fn charge(&self, n: usize) -> Result<(), PlaceholderError> {
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

    fn sources(&self) -> &AllSources<'a> {
        self.all.get_or_init(|| {
            let docs: Vec<AllSource<'a>> = self
                .documents
                .iter()
                .rev()
                .map(|d| {
                    let mut s = AllSource {
                        exact: Default::default(),
                        relaxed: Default::default(),
                    };
                    for e in d {
                        if s.exact.insert(e.key.as_str(), e).is_none() {
                            s.relaxed
                                .entry(uniform_key(&elements(&e.key)))
                                .or_default()
                                .push(e);
                        }
                    }
                    s
                })
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
                for k in d.relaxed.keys() {
                    if !all.relaxed.contains_key(k) {
                        all.relaxed.insert(k.clone(), i);
                    }
                }
            }
            all.docs = docs;
            all
        })
    }

    /// `PropertySourcesPlaceholdersResolver.resolvePlaceholder`.
    fn lookup(&self, name: &str) -> Option<String> {
        let els = elements(name);
        let canonical = !name.is_empty()
            && !name.starts_with('.')
            && !name.ends_with('.')
            && els.iter().all(|e| e.kind != Kind::NonUniform);
        let all = self.sources();
        let mut first = all.exact.get(name).copied();
        if canonical && !els.is_empty() {
            let more = [
                all.exact.get(dashed(&els).as_str()),
                all.relaxed.get(&uniform_key(&els)),
            ];
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
            if !canonical || els.is_empty() {
                return None;
            }
            if let Some(e) = s.exact.get(dashed(&els).as_str()) {
                return Some(*e);
            }
            let candidates = s.relaxed.get(&uniform_key(&els))?;
            let keys: Vec<&str> = candidates.iter().map(|e| e.key.as_str()).collect();
            let first = *java_hash_order(&keys, hash_set_capacity(keys.len())).first()?;
            Some(candidates[first])
        });
        match found {
            Some(e) => Some(e.value.to_java_string()),
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
    fn resolve(&self, v: &JavaValue) -> Result<JavaValue, String> {
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

    fn replace(
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

    fn resolve_all(
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
    fn recursively(
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

    fn resolve_part(
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
                    if let Some(v) = self.recursively(text, visited, depth)? {
                        return Ok(v);
                    }
                }
                if let Some(v) = self.recursively(key, visited, depth)? {
                    return Ok(v);
                }
                Ok(fallback.clone().unwrap_or_else(|| format!("${{{key}}}")))
            }
            Part::Nested { key, fallback } => {
                let k = self.resolve_all(key, visited, depth)?;
                if let Some(v) = self.recursively(&k, visited, depth)? {
                    return Ok(v);
                }
                match fallback {
                    Some(d) => self.resolve_all(d, visited, depth),
                    None => Ok(format!("${{{k}}}")),
                }
            }
        }
    }
}

/// One property of one document, with its adapted name.
struct Prop<'a> {
    els: Vec<Element>,
    entry: &'a Entry,
}

/// Whether a key can name something under `spring.ai.tools`, without
/// parsing it: its letters and digits, lowercased, start with
/// `springaitools` (every element's uniform form is made of them, and a
/// dropped element has none).
fn may_be_under_tools(key: &str) -> bool {
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

/// `uniform(e) == u`, without building `uniform(e)`.
fn uniform_eq(e: &Element, u: &str) -> bool {
    match e.kind {
        Kind::Uniform | Kind::Indexed | Kind::NumericallyIndexed => e.text == u,
        _ => e
            .text
            .chars()
            .map(java_lower)
            .filter(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
            .eq(u.chars()),
    }
}

/// Whether `els` starts with the relaxed name `uni`.
fn starts_with_uniform(els: &[Element], uni: &[String]) -> bool {
    els.len() >= uni.len() && els.iter().zip(uni).all(|(e, u)| uniform_eq(e, u))
}

/// A hash of the relaxed name (equal names hash alike).
fn uni_hash(uni: &[String]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    uni.hash(&mut h);
    h.finish()
}

/// One document as Spring Boot's `SpringIterableConfigurationPropertySource`
/// over it sees it: its properties under `spring.ai.tools` in file order,
/// by exact key, and by relaxed name (in file order).
struct Source<'a> {
    props: Vec<Prop<'a>>,
    exact: std::collections::HashMap<&'a str, usize>,
    /// By the hash of the relaxed name (equal names are checked on lookup).
    relaxed: std::collections::HashMap<u64, Vec<usize>>,
}

impl<'a> Source<'a> {
    fn new(document: &'a [Entry]) -> Source<'a> {
        let tools = target("spring.ai.tools");
        let mut s = Source {
            props: Vec::new(),
            exact: Default::default(),
            relaxed: Default::default(),
        };
        for e in document {
            if !may_be_under_tools(&e.key) {
                continue;
            }
            // A key put again keeps its place and takes the new value
            // (the loaders' LinkedHashMap).
            if let Some(&i) = s.exact.get(e.key.as_str()) {
                s.props[i].entry = e;
                continue;
            }
            let els = elements(&e.key);
            if !starts_with_uniform(&els, &tools) {
                continue;
            }
            let uni = uniform_key(&els);
            let i = s.props.len();
            s.exact.insert(e.key.as_str(), i);
            s.relaxed.entry(uni_hash(&uni)).or_default().push(i);
            s.props.push(Prop { els, entry: e });
        }
        s
    }

    /// `getConfigurationProperty(name)`: the property whose key is the
    /// name's canonical form; else, among the keys with an equal relaxed
    /// name, the first in the order of the `HashSet` of keys Spring keeps
    /// for that name (by `String.hashCode()`, not by file order).
    fn get(&self, els: &[Element]) -> Option<&Prop<'a>> {
        let uni = uniform_key(els);
        self.get_uniform(els, &uni, uni_hash(&uni))
    }

    /// [`Source::get`] with the name's uniform form and its hash known.
    fn get_uniform(&self, els: &[Element], uni: &[String], hash: u64) -> Option<&Prop<'a>> {
        if let Some(&i) = self.exact.get(dashed(els).as_str()) {
            return Some(&self.props[i]);
        }
        let candidates: Vec<usize> = self
            .relaxed
            .get(&hash)?
            .iter()
            .copied()
            .filter(|&i| {
                self.props[i].els.len() == uni.len() && starts_with_uniform(&self.props[i].els, uni)
            })
            .collect();
        let keys: Vec<&str> = candidates
            .iter()
            .map(|&i| self.props[i].entry.key.as_str())
            .collect();
        let first = *java_hash_order(&keys, hash_set_capacity(keys.len())).first()?;
        Some(&self.props[candidates[first]])
    }

    /// The properties strictly under `uni`, in file order.
    fn under<'s>(&'s self, uni: &'s [String]) -> impl Iterator<Item = &'s Prop<'a>> + 's {
        self.props
            .iter()
            .filter(move |p| p.els.len() > uni.len() && starts_with_uniform(&p.els, uni))
    }
}

/// Up to this many documents, a name is looked up in each in turn.
const FEW_DOCUMENTS: usize = 8;

/// The documents as the binder sees them: the last document first, the
/// placeholder resolver over them, and for each relaxed name (by hash) the
/// documents that have a property of it, in order.
struct Sources<'a>(
    Vec<Source<'a>>,
    Placeholders<'a>,
    std::collections::HashMap<u64, Vec<usize>>,
);

impl<'a> Sources<'a> {
    fn new(documents: &'a [Vec<Entry>]) -> Sources<'a> {
        let sources: Vec<Source<'a>> = documents.iter().rev().map(|d| Source::new(d)).collect();
        let mut index: std::collections::HashMap<u64, Vec<usize>> = Default::default();
        // A few documents are asked in turn, as cheap as an index lookup.
        if sources.len() > FEW_DOCUMENTS {
            for (i, s) in sources.iter().enumerate() {
                for &h in s.relaxed.keys() {
                    index.entry(h).or_default().push(i);
                }
            }
        }
        Sources(sources, Placeholders::new(documents), index)
    }

    /// `Binder.findProperty`: the first document (last in the file) that
    /// has it. Only the documents with a property of its relaxed name are
    /// asked (an exact key is one of them): a map entry is looked up in
    /// every document, which over thousands of documents was quadratic.
    fn find(&self, els: &[Element]) -> Option<&Prop<'a>> {
        let uni = uniform_key(els);
        let hash = uni_hash(&uni);
        if self.0.len() <= FEW_DOCUMENTS {
            return self.0.iter().find_map(|s| s.get_uniform(els, &uni, hash));
        }
        let docs = self.2.get(&hash)?;
        docs.iter()
            .find_map(|&i| self.0[i].get_uniform(els, &uni, hash))
    }

    /// `containsDescendantOf`.
    fn has_descendants(&self, uni: &[String]) -> bool {
        self.0.iter().any(|s| s.under(uni).next().is_some())
    }

    /// The property's value with its placeholders resolved, or the
    /// resolver's failure as the `Reason:` line.
    fn value(&self, p: &Prop<'_>) -> Result<JavaValue, String> {
        self.1.resolve(&p.entry.value)
    }
}

fn failure(requested: &[Element], target_type: &str, p: &Prop<'_>, reason: String) -> BindFailure {
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
    BindFailure::Bind {
        description: format!("Failed to bind properties under '{name}' to {target_type}"),
        property: name,
        value: p.entry.value.to_java_string(),
        line: p.entry.line,
        column: p.entry.column,
        reason,
    }
}

const PROPERTIES_CLASS: &str =
    "org.springframework.ai.model.tool.autoconfigure.ToolCallingProperties";

/// A nested group of `ToolCallingProperties` (`limits`, `observations`,
/// `resolution`, `resolution.fallback`): a bean with a getter and no setter.
struct Group {
    name: &'static str,
    class: &'static str,
    parent: &'static str,
    parent_class: &'static str,
    /// The Java property name.
    java: &'static str,
}

/// `Binder.bindObject` on a group, before its properties: a value given to
/// the group itself. The empty value binds a new instance, which the
/// getter-only property cannot take (`No setter found for property`);
/// another value has no converter, which is an error only if none of the
/// group's own properties binds (`Ok(Some(failure))`, for the caller to
/// raise then).
fn group_value(sources: &Sources<'_>, g: &Group) -> Result<Option<BindFailure>, BindFailure> {
    let els = elements(g.name);
    let Some(p) = sources.find(&els) else {
        return Ok(None);
    };
    let value = sources.value(p).map_err(|r| failure(&els, g.class, p, r))?;
    if is_empty_string(&value) {
        let parent = elements(g.parent);
        return Err(BindFailure::Bind {
            description: format!(
                "Failed to bind properties under '{}' to {}",
                dashed(&parent),
                g.parent_class
            ),
            property: dashed(&els),
            value: String::new(),
            line: p.entry.line,
            column: p.entry.column,
            reason: format!(
                "java.lang.IllegalStateException: No setter found for property: {}",
                g.java
            ),
        });
    }
    Ok(Some(BindFailure::Convert {
        description: format!(
            "Failed to bind properties under '{}' to {}",
            dashed(&els),
            g.class
        ),
        reason: no_converter(value.class(), g.class),
    }))
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

const EXCLUDED: &str = "spring.ai.tools.limits.excluded-tools";
const PER_TOOL: &str = "spring.ai.tools.limits.max-calls-per-tool";
const PER_TOOL_TYPE: &str = "java.util.Map<java.lang.String, java.lang.Integer>";

fn note(read: &mut BTreeMap<String, String>, requested: &[Element], p: &Prop<'_>) {
    read.insert(dashed(requested), p.entry.value.to_java_string());
}

fn is_empty_string(v: &JavaValue) -> bool {
    matches!(v, JavaValue::String(s) if s.is_empty())
}

/// `IndexedElementsBinder` for `excludedTools`: the first document (last
/// in the file) that gives the list, either as a value (comma-separated;
/// empty means an empty list) or as `[0]`, `[1]`, ... up to the first gap,
/// where an indexed element past the gap (or not a plain index: `[01]`,
/// `[x]`) is an error; plain children (`excluded-tools.foo`) are ignored.
fn bind_list(
    sources: &Sources<'_>,
    read: &mut BTreeMap<String, String>,
) -> Result<Option<Vec<String>>, BindFailure> {
    let root = elements(EXCLUDED);
    let root_uni = uniform_key(&root);
    for src in &sources.0 {
        if let Some(p) = src.get(&root) {
            note(read, &root, p);
            if is_empty_string(&p.entry.value) {
                return Ok(Some(Vec::new()));
            }
            let value = sources
                .value(p)
                .map_err(|r| failure(&root, "java.util.List<java.lang.String>", p, r))?;
            return Ok(Some(match value {
                JavaValue::String(s) => split_list(&s),
                other => vec![other.to_java_string()],
            }));
        }
        let mut known: std::collections::HashSet<String> = src
            .under(&root_uni)
            .map(|p| &p.els[root.len()])
            .filter(|e| e.kind.indexed())
            .map(uniform)
            .collect();
        let mut items = Vec::new();
        let mut name = root.clone();
        for i in 0u64.. {
            name.truncate(root.len());
            name.push(Element {
                text: i.to_string(),
                kind: Kind::NumericallyIndexed,
            });
            let Some(p) = src.get(&name) else {
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
            for p in src.under(&root_uni) {
                let e = &p.els[root.len()];
                if e.kind.indexed() && known.contains(&uniform(e)) {
                    let found = src.get(&p.els).unwrap_or(p);
                    if let Err(at) = unbound.binary_search_by(|(n, _)| compare_names(n, &p.els)) {
                        unbound.insert(at, (&p.els, found));
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
fn bind_map(
    sources: &Sources<'_>,
    read: &mut BTreeMap<String, String>,
) -> Result<Option<Vec<(String, i32)>>, BindFailure> {
    let root = elements(PER_TOOL);
    let root_uni = uniform_key(&root);
    if !sources.has_descendants(&root_uni) {
        let Some(p) = sources.find(&root) else {
            return Ok(None);
        };
        note(read, &root, p);
        let value = sources
            .value(p)
            .map_err(|r| failure(&root, PER_TOOL_TYPE, p, r))?;
        if is_empty_string(&value) {
            return Ok(Some(Vec::new()));
        }
        return Err(failure(
            &root,
            PER_TOOL_TYPE,
            p,
            no_converter(value.class(), PER_TOOL_TYPE),
        ));
    }
    let mut entries: Vec<(String, i32)> = Vec::new();
    let mut keys = std::collections::HashSet::new();
    for src in &sources.0 {
        for p in src.under(&root_uni) {
            let parent_of = p.els.len() == root.len() + 1;
            // isScalarValue: the value converts to Integer (not a Boolean).
            let scalar = parent_of
                || src
                    .get(&p.els)
                    .is_some_and(|q| !matches!(q.entry.value, JavaValue::Boolean(_)));
            let entry = if scalar {
                &p.els[..]
            } else {
                &p.els[..=root.len()]
            };
            let key = entry[root.len()..]
                .iter()
                .map(original)
                .collect::<Vec<_>>()
                .join(".");
            if keys.contains(&key) {
                continue;
            }
            let Some(q) = sources.find(entry) else {
                continue;
            };
            match sources.value(q).and_then(|v| to_integer(&v)) {
                Ok(Some(n)) => {
                    note(read, entry, q);
                    keys.insert(key.clone());
                    entries.push((key, n));
                }
                Ok(None) => {}
                Err(reason) => return Err(failure(entry, "java.lang.Integer", q, reason)),
            }
        }
    }
    Ok((!entries.is_empty()).then_some(entries))
}

fn int_prop(
    sources: &Sources<'_>,
    name: &str,
    read: &mut BTreeMap<String, String>,
) -> Result<Option<i32>, BindFailure> {
    let els = elements(name);
    let Some(p) = sources.find(&els) else {
        return Ok(None);
    };
    note(read, &els, p);
    sources
        .value(p)
        .and_then(|v| to_integer(&v))
        .map_err(|r| failure(&els, "java.lang.Integer", p, r))
}

/// A primitive `boolean`: a value that converts to null (empty or blank)
/// cannot be assigned.
fn bool_prop(
    sources: &Sources<'_>,
    name: &str,
    read: &mut BTreeMap<String, String>,
) -> Result<Option<bool>, BindFailure> {
    let els = elements(name);
    let Some(p) = sources.find(&els) else {
        return Ok(None);
    };
    note(read, &els, p);
    let value = sources
        .value(p)
        .map_err(|r| failure(&els, "boolean", p, r))?;
    match to_boolean(&value) {
        Ok(Some(b)) => Ok(Some(b)),
        Ok(None) => Err(failure(
            &els,
            "boolean",
            p,
            conversion_failed(
                value.class(),
                "boolean",
                "java.lang.IllegalArgumentException: A null value cannot be assigned to a primitive type",
            ),
        )),
        Err(r) => Err(failure(&els, "boolean", p, r)),
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
/// use toolcall_model::{model::limits::{Max, OnExceeded}, config::binding::{bind, parse_properties}};
/// let docs = parse_properties(b"spring.ai.tools.limits.maxCallsPerTool.getWeather=2\nspring.ai.tools.limits.on-limit-exceeded=return-error-response\n").unwrap();
/// let b = bind(&docs).unwrap();
/// assert_eq!(b.limits.max_for("getWeather"), Some(Max::Limited(2)));
/// assert_eq!(b.limits.on_exceeded, OnExceeded::ReturnErrorResponse);
/// let bad = parse_properties(b"spring.ai.tools.limits.max-total-tool-calls=0\n").unwrap();
/// assert!(bind(&bad).unwrap_err().to_string().contains("maxTotalToolCalls must be greater than 0"));
/// let empty = parse_properties(b"spring.ai.tools.throw-exception-on-error=\n").unwrap();
/// assert!(bind(&empty).unwrap_err().to_string().contains("A null value cannot be assigned to a primitive type"));
/// ```
pub fn bind(documents: &[Vec<Entry>]) -> Result<Bound, BindFailure> {
    let sources = Sources::new(documents);
    let mut read = BTreeMap::new();

    let always_throw = bool_prop(
        &sources,
        "spring.ai.tools.throw-exception-on-error",
        &mut read,
    )?;

    let limits_group = Group {
        name: "spring.ai.tools.limits",
        class: "org.springframework.ai.model.tool.autoconfigure.ToolCallingProperties$Limits",
        parent: "spring.ai.tools",
        parent_class: PROPERTIES_CLASS,
        java: "limits",
    };
    let limits_value = group_value(&sources, &limits_group)?;
    let excluded = bind_list(&sources, &mut read)?;
    let per_tool = bind_map(&sources, &mut read)?;
    let per_default = int_prop(
        &sources,
        "spring.ai.tools.limits.max-calls-per-tool-default",
        &mut read,
    )?;
    let total = int_prop(
        &sources,
        "spring.ai.tools.limits.max-total-tool-calls",
        &mut read,
    )?;
    let on_name = elements("spring.ai.tools.limits.on-limit-exceeded");
    let mut on = None;
    if let Some(p) = sources.find(&on_name) {
        note(&mut read, &on_name, p);
        on = sources
            .value(p)
            .and_then(|v| to_behavior(&v))
            .map_err(|r| failure(&on_name, BEHAVIOR, p, r))?;
    }
    let limits_bound = excluded.is_some()
        || per_tool.is_some()
        || per_default.is_some()
        || total.is_some()
        || on.is_some();
    if let (false, Some(f)) = (limits_bound, limits_value) {
        return Err(f);
    }

    let observations_value = group_value(
        &sources,
        &Group {
            name: "spring.ai.tools.observations",
            class:
                "org.springframework.ai.model.tool.autoconfigure.ToolCallingProperties$Observations",
            parent: "spring.ai.tools",
            parent_class: PROPERTIES_CLASS,
            java: "observations",
        },
    )?;
    let include_content = bool_prop(
        &sources,
        "spring.ai.tools.observations.include-content",
        &mut read,
    )?;
    if let (None, Some(f)) = (include_content, observations_value) {
        return Err(f);
    }

    let resolution_value = group_value(
        &sources,
        &Group {
            name: "spring.ai.tools.resolution",
            class:
                "org.springframework.ai.model.tool.autoconfigure.ToolCallingProperties$Resolution",
            parent: "spring.ai.tools",
            parent_class: PROPERTIES_CLASS,
            java: "resolution",
        },
    )?;
    let fallback_value = group_value(
        &sources,
        &Group {
            name: "spring.ai.tools.resolution.fallback",
            class: "org.springframework.ai.model.tool.autoconfigure.ToolCallingProperties$Resolution$Fallback",
            parent: "spring.ai.tools.resolution",
            parent_class: "org.springframework.ai.model.tool.autoconfigure.ToolCallingProperties$Resolution",
            java: "fallback",
        },
    )?;
    let fallback = bool_prop(
        &sources,
        "spring.ai.tools.resolution.fallback.enabled",
        &mut read,
    )?;
    if fallback.is_none() {
        if let Some(f) = fallback_value.or(resolution_value) {
            return Err(f);
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

    Ok(Bound {
        limits,
        always_throw: always_throw.unwrap_or(false),
        resolution_fallback: fallback.unwrap_or(false),
        include_content: include_content.unwrap_or(false),
        read,
        unknown: unknown_keys(documents),
        placeholders_not_in_file: sources.1.missing.take().0,
    })
}

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
fn unknown_keys(documents: &[Vec<Entry>]) -> Vec<Unknown> {
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
        if let Some(s) = suggest(&uni, &known) {
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
/// beyond): a band of the table, stopped as soon as a row exceeds `max`,
/// so that a long key costs little.
fn edit_distance_within(a: &str, b: &str, max: usize) -> Option<usize> {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > max {
        return None;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        if cur.iter().min().is_some_and(|&m| m > max) {
            return None;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    Some(prev[b.len()]).filter(|&d| d <= max)
}

/// The largest distance [`suggest`] ever accepts.
const SUGGEST_MAX: usize = 8;

/// The known key an unknown one probably meant: within an edit distance of
/// a third of the key (on the relaxed form), or any key under
/// `spring.ai.tools` whose last element is close to a known last element.
/// `known` is [`KNOWN_KEYS`] in relaxed form.
fn suggest(uni: &[String], known: &[Vec<String>]) -> Option<String> {
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
