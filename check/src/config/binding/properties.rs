//! The `application.properties` loader (`OriginTrackedPropertiesLoader`):
//! bytes to documents of entries, each key with its origin.

use super::{
    ENTRY_COST, Entry, JavaValue, LoadError, MAX_CONFIG_BYTES, MAX_EXPANDED_BYTES,
    expands_too_much, too_large,
};

/// `OriginTrackedPropertiesLoader.load`: the documents of an
/// `application.properties` file (`#---` or `!---` separates documents),
/// read as ISO-8859-1 as Spring Boot's loader does, with `\` escapes and
/// continuation lines, `=`, `:` or whitespace between key and value, the
/// value's leading whitespace dropped and its trailing whitespace kept, and
/// `key[]=a,b` expanded to `key[0]`, `key[1]`.
///
/// ```
/// use toolcall_check::config::{parse_properties, JavaValue};
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
        at_end: false,
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
pub(super) struct Document {
    pub(super) entries: Vec<Entry>,
    pub(super) index: std::collections::HashMap<String, usize>,
}

impl Document {
    pub(super) fn put(&mut self, e: Entry) {
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

pub(super) struct Reader<'a> {
    /// ISO-8859-1: one char per byte.
    pub(super) bytes: &'a [u8],
    pub(super) pos: usize,
    pub(super) ch: Option<char>,
    pub(super) escaped: bool,
    pub(super) column: i64,
    /// `LineNumberReader.getLineNumber()`: line ends consumed so far, and
    /// one more once the end is reached after a last line without one.
    pub(super) newlines: usize,
    /// Whether the end has been read (the last line counted once).
    pub(super) at_end: bool,
    /// 0-based line of the character last taken.
    pub(super) char_line: usize,
    /// 0-based line of the current line's first character.
    pub(super) line: usize,
    pub(super) last_comment_prefix: Option<char>,
}

impl Reader<'_> {
    /// `LineNumberReader.read()`: `\r\n` and `\r` read as `\n`.
    pub(super) fn raw(&mut self) -> Option<char> {
        let Some(&b) = self.bytes.get(self.pos) else {
            // JDK 16+ (JDK-8235792): reaching the end after a line without
            // its terminator counts that line, so an empty value at the end
            // of such a file stands on the line after it.
            if !self.at_end {
                self.at_end = true;
                if self.pos > 0 && !matches!(self.bytes[self.pos - 1], b'\n' | b'\r') {
                    self.newlines += 1;
                }
            }
            return None;
        };
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
    pub(super) fn read(&mut self) -> Result<bool, LoadError> {
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

    pub(super) fn skip_whitespace(&mut self) {
        while self.is_whitespace() {
            self.ch = self.raw();
            self.column += 1;
        }
    }

    pub(super) fn skip_comment(&mut self) {
        while self.ch != Some('\n') && self.ch.is_some() {
            self.ch = self.raw();
        }
        self.column = -1;
    }

    /// The character after a backslash; `true` for a line continuation, where
    /// the caller reads on.
    pub(super) fn read_escaped(&mut self) -> Result<bool, LoadError> {
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
                            });
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

    pub(super) fn is_whitespace(&self) -> bool {
        !self.escaped && matches!(self.ch, Some(' ' | '\t' | '\u{c}'))
    }

    pub(super) fn is_end_of_line(&self) -> bool {
        self.ch.is_none() || (!self.escaped && self.ch == Some('\n'))
    }

    pub(super) fn is_comment_prefix(&self) -> bool {
        matches!(self.ch, Some('#' | '!'))
    }

    pub(super) fn is_new_document(&mut self) -> Result<bool, LoadError> {
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
pub(super) fn load_key_and_value(
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
