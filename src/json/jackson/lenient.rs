//! The lenient parser: Jackson 3's `ReaderBasedJsonParser` as the Gemini
//! conversion drives it (first value, trailing content per the rules),
//! on an explicit stack, counting in UTF-16 units.

use std::borrow::Cow;

use super::ident::is_java_identifier_part;
use super::inline_stack::InlineStack;
use super::strict::{hex_value, skip_digits};
use super::{
    JValue, JacksonError, MAX_LENIENT_TREE_DEPTH, MISMATCHED, ReadConstraints, constraints,
    stream_read, unexpected_eof,
};

/// A scalar as the lenient parser read it, borrowed from the text: the
/// sinks that only check or write a value need no `JValue` of it.
pub(super) enum Scalar<'a> {
    Null,
    Bool(bool),
    /// Exact canonical integer text ("0" for "-0").
    Int(&'a str),
    Double(f64),
}

impl Scalar<'_> {
    pub(super) fn into_jvalue(self) -> JValue {
        match self {
            Scalar::Null => JValue::Null,
            Scalar::Bool(b) => JValue::Bool(b),
            Scalar::Int(t) => JValue::Int(t.to_owned()),
            Scalar::Double(d) => JValue::Double(d),
        }
    }
}

/// What the lenient parser hands on while it reads a value, in text order:
/// a container opened (not empty) and its end, an empty one, an object's
/// names, and scalars. Names and strings without escapes are slices of the
/// text, so a sink that keeps nothing allocates nothing.
pub(super) trait Sink<'a> {
    /// Whether [`Sink::string`] reads the value: a sink that drops string
    /// values gets `""` and the reader does not decode their escapes.
    const KEEPS_STRINGS: bool = true;
    /// `[` or `{` with something inside.
    fn open(&mut self, is_object: bool);
    /// `[]` or `{}`, a whole value.
    fn empty(&mut self, is_object: bool);
    /// The name whose value comes next.
    fn name(&mut self, name: Cow<'a, str>);
    /// A string value.
    fn string(&mut self, s: Cow<'a, str>);
    /// Another scalar: null, a boolean or a number.
    fn scalar(&mut self, v: Scalar<'a>);
    /// The innermost open container ends.
    fn close(&mut self);
}

/// Jackson reads a `String` longer than this through a `StringReader`
/// (`TextualTSFactory.createParser(String)`), otherwise as one buffer.
pub(super) const READER_THRESHOLD: usize = 0x8000;
/// Size of a fresh `BufferRecycler` token buffer, the `StringReader` chunk.
pub(super) const READER_CHUNK: usize = 4000;

pub(super) struct Parser<'a> {
    s: &'a str,
    b: &'a [u8],
    pos: usize,
    limits: ReadConstraints,
    /// RFC 8259 whole-text mode of `read_strict`.
    strict: bool,
    /// Total UTF-16 length, computed on first need.
    len16: Option<usize>,
    /// A byte offset and its UTF-16 offset, so positions are counted once.
    mark_byte: usize,
    mark16: usize,
}

impl<'a> Parser<'a> {
    pub(super) fn new(s: &'a str, mut limits: ReadConstraints, strict: bool) -> Self {
        limits.max_nesting_depth = limits.max_nesting_depth.min(MAX_LENIENT_TREE_DEPTH);
        Parser {
            s,
            b: s.as_bytes(),
            pos: 0,
            limits,
            strict,
            len16: None,
            mark_byte: 0,
            mark16: 0,
        }
    }

    /// `_skipWSOrEnd` and friends: only the four RFC blanks are skipped; other
    /// control chars and `/` (comments are off) fail; `#` comes back as a
    /// token char (YAML comments are off) and fails at its caller.
    fn skip_ws(&mut self) -> Result<Option<u8>, JacksonError> {
        while let Some(&c) = self.b.get(self.pos) {
            match c {
                b' ' | b'\t' | b'\n' | b'\r' => self.pos += 1,
                b'/' => {
                    return Err(stream_read(
                        "Unexpected character ('/' (code 47)): maybe a (non-standard) comment? \
                         (not recognized as one since Feature 'ALLOW_COMMENTS' not enabled for parser)",
                    ));
                }
                0..=0x1f => {
                    return Err(stream_read(format!(
                        "Illegal character ({}): only regular white space (\\r, \\n, \\t) is allowed between tokens",
                        char_desc(u32::from(c))
                    )));
                }
                _ => return Ok(Some(c)),
            }
        }
        Ok(None)
    }

    /// The UTF-16 code unit Jackson sees at byte offset `p` (a high
    /// surrogate for a supplementary char).
    fn unit_at(&self, p: usize) -> Option<u16> {
        let c = self.s.get(p..)?.chars().next()?;
        let mut buf = [0u16; 2];
        Some(c.encode_utf16(&mut buf)[0])
    }

    fn desc_at(&self, p: usize) -> String {
        match self.s.get(p..).and_then(|rest| rest.chars().next()) {
            Some(c) => char_desc(c as u32),
            None => "end-of-input".to_owned(),
        }
    }

    fn total_len16(&mut self) -> usize {
        if let Some(n) = self.len16 {
            return n;
        }
        let n = utf16_len(self.b);
        self.len16 = Some(n);
        n
    }

    /// UTF-16 offset of byte offset `p`; callers ask in increasing order, so
    /// the text is counted about once in total.
    fn offset16(&mut self, p: usize) -> usize {
        if p < self.mark_byte {
            self.mark_byte = 0;
            self.mark16 = 0;
        }
        self.mark16 += utf16_len(&self.b[self.mark_byte..p]);
        self.mark_byte = p;
        self.mark16
    }

    /// The whole value, handed to `sink` as it is read.
    pub(super) fn parse_root_into<S: Sink<'a>>(
        &mut self,
        sink: &mut S,
    ) -> Result<(), JacksonError> {
        let Some(c) = self.skip_ws()? else {
            return Err(JacksonError {
                class: MISMATCHED,
                message: "No content to map due to end-of-input".to_owned(),
            });
        };
        self.parse_into(c, sink)?;
        if self.strict {
            self.expect_end()?;
        }
        Ok(())
    }

    /// Whole-text mode, and `FAIL_ON_TRAILING_TOKENS`: after the value only
    /// blanks may follow (Jackson's next token is then the end; any other
    /// character is a token or a syntax error).
    pub(super) fn expect_end(&mut self) -> Result<(), JacksonError> {
        while matches!(self.b.get(self.pos), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
        if self.pos != self.b.len() {
            return Err(stream_read("trailing content after the value"));
        }
        Ok(())
    }

    /// Reads one value starting with byte `c` at `self.pos`, handing it to
    /// `sink` piece by piece. Containers are read completely on an explicit
    /// stack; nothing after the value is read except what the root rules
    /// for numbers and literals look at. The sink sees nothing of a text
    /// that fails but what came before the failure.
    fn parse_into<S: Sink<'a>>(&mut self, mut c: u8, sink: &mut S) -> Result<(), JacksonError> {
        // Whether each open container is an object.
        let mut stack: InlineStack<bool, 32> = InlineStack::default();
        loop {
            match c {
                b'[' | b'{' => {
                    let depth = stack.len() + 1;
                    if depth > self.limits.max_nesting_depth {
                        return Err(constraints(format!(
                            "Document nesting depth ({depth}) exceeds the maximum allowed ({}, from \
                             `StreamReadConstraints.getMaxNestingDepth()`)",
                            self.limits.max_nesting_depth
                        )));
                    }
                    self.pos += 1;
                    let is_object = c == b'{';
                    match self.entry_or_close(is_object)? {
                        None => sink.empty(is_object),
                        Some(t) if is_object => {
                            let name = self.parse_name(t)?;
                            c = self.skip_colon()?;
                            sink.open(true);
                            sink.name(name);
                            stack.push(true);
                            continue;
                        }
                        Some(t) => {
                            sink.open(false);
                            stack.push(false);
                            c = t;
                            continue;
                        }
                    }
                }
                b'"' => {
                    self.pos += 1;
                    if S::KEEPS_STRINGS {
                        let s = self.parse_string(false)?;
                        sink.string(s);
                    } else {
                        self.skip_string_value()?;
                        sink.string(Cow::Borrowed(""));
                    }
                }
                b't' => {
                    self.match_literal(b"true")?;
                    sink.scalar(Scalar::Bool(true));
                }
                b'f' => {
                    self.match_literal(b"false")?;
                    sink.scalar(Scalar::Bool(false));
                }
                b'n' => {
                    self.match_literal(b"null")?;
                    sink.scalar(Scalar::Null);
                }
                b'-' | b'0'..=b'9' => {
                    let v = self.parse_number(stack.is_empty())?;
                    sink.scalar(v);
                }
                _ => return Err(self.odd_value(c, stack.is_empty())),
            }
            // A value is complete: close containers until a comma asks for
            // the next value.
            match self.after_value(&mut stack, sink)? {
                Some(next) => c = next,
                None => return Ok(()),
            }
        }
    }

    /// Inside a container (an object when `is_object`), past white space:
    /// the container's close, read (`None`), or the byte that comes
    /// instead (`Some`, not read). A close of the other kind, or the end
    /// of the text, is an error.
    #[inline]
    fn entry_or_close(&mut self, is_object: bool) -> Result<Option<u8>, JacksonError> {
        let Some(t) = self.skip_ws()? else {
            return Err(eof_in_container(is_object));
        };
        if t == b']' || t == b'}' {
            if (t == b'}') != is_object {
                return Err(mismatched_close(t, is_object));
            }
            self.pos += 1;
            return Ok(None);
        }
        Ok(Some(t))
    }

    /// After a value inside containers: closes each container that ends
    /// here, then past a comma reads the next entry's name (in an object)
    /// and gives the first byte of the next value; `None` when the outermost
    /// container closed.
    #[inline]
    fn after_value<S: Sink<'a>>(
        &mut self,
        stack: &mut InlineStack<bool, 32>,
        sink: &mut S,
    ) -> Result<Option<u8>, JacksonError> {
        loop {
            let Some(&is_object) = stack.last() else {
                return Ok(None);
            };
            let Some(t) = self.entry_or_close(is_object)? else {
                stack.pop();
                sink.close();
                continue;
            };
            if t != b',' {
                return Err(stream_read(format!(
                    "Unexpected character ({}): was expecting comma to separate {} entries",
                    self.desc_at(self.pos),
                    if is_object { "Object" } else { "Array" }
                )));
            }
            self.pos += 1;
            let Some(t) = self.skip_ws()? else {
                // _skipAfterComma2 throws a plain read exception here, not an EOF one.
                return Err(stream_read(format!(
                    "Unexpected end-of-input within/between {} entries",
                    if is_object { "Object" } else { "Array" }
                )));
            };
            if is_object {
                let name = self.parse_name(t)?;
                let c = self.skip_colon()?;
                sink.name(name);
                return Ok(Some(c));
            }
            return Ok(Some(t));
        }
    }

    /// `_handleOddValue`: every char that cannot start a value. Only `+` at
    /// the end, or `+I` at the end, is an end-of-input error.
    fn odd_value(&self, c: u8, root: bool) -> JacksonError {
        match c {
            b'+' => match self.b.get(self.pos + 1) {
                None => unexpected_eof("Unexpected end-of-input in a Number value"),
                Some(b'I') if self.pos + 2 == self.b.len() => {
                    unexpected_eof("Unexpected end-of-input in a Number value")
                }
                Some(_) => stream_read(
                    "Unexpected character ('+' (code 43)) in numeric value: JSON spec does not allow numbers \
                     to have plus signs: enable `JsonReadFeature.ALLOW_LEADING_PLUS_SIGN_FOR_NUMBERS` to allow",
                ),
            },
            b']' | b'}' if root => stream_read(format!(
                "Unexpected close marker {}: no open {} to close",
                self.desc_at(self.pos),
                if c == b']' { "Array" } else { "Object" }
            )),
            _ => stream_read(format!(
                "Unexpected character ({}): expected a valid value (JSON String, Number, Array, Object or \
                 token 'null', 'true' or 'false')",
                self.desc_at(self.pos)
            )),
        }
    }

    /// A property name starting at byte `t` (already known not blank).
    fn parse_name(&mut self, t: u8) -> Result<Cow<'a, str>, JacksonError> {
        if t != b'"' {
            return Err(stream_read(format!(
                "Unexpected character ({}): was expecting double-quote to start field name",
                self.desc_at(self.pos)
            )));
        }
        self.pos += 1;
        self.parse_string(true)
    }

    /// `_skipColon`: blanks, `:`, blanks; returns the first byte of the value.
    fn skip_colon(&mut self) -> Result<u8, JacksonError> {
        match self.skip_ws()? {
            None => {
                return Err(unexpected_eof(
                    "Unexpected end-of-input within/between Object entries",
                ));
            }
            Some(b':') => self.pos += 1,
            Some(_) => {
                return Err(stream_read(format!(
                    "Unexpected character ({}): was expecting a colon to separate property name and value",
                    self.desc_at(self.pos)
                )));
            }
        }
        match self.skip_ws()? {
            None => Err(unexpected_eof(
                "Unexpected end-of-input within/between Object entries",
            )),
            Some(c) => Ok(c),
        }
    }

    /// `_matchToken`: the exact word, then rule A.7's look at one following
    /// UTF-16 unit.
    fn match_literal(&mut self, word: &[u8]) -> Result<(), JacksonError> {
        let start = self.pos;
        let end = start + word.len();
        let matched = self.b.get(start..end) == Some(word);
        if matched {
            self.pos = end;
            match self.unit_at(end) {
                None => return Ok(()),
                Some(u) if u < u16::from(b'0') || u == u16::from(b']') || u == u16::from(b'}') => {
                    return Ok(());
                }
                Some(u) if !is_java_identifier_part(u) => return Ok(()),
                Some(_) => {}
            }
        }
        // Jackson's message shows the token extended by identifier parts.
        let token: String = self.s[start..]
            .chars()
            .enumerate()
            .take_while(|&(i, ch)| {
                i == 0 || {
                    let mut buf = [0u16; 2];
                    is_java_identifier_part(ch.encode_utf16(&mut buf)[0])
                }
            })
            .take(256)
            .map(|(_, ch)| ch)
            .collect();
        Err(stream_read(format!(
            "Unrecognized token '{token}': was expecting (JSON String, Number, Array, Object or token 'null', \
             'true' or 'false')"
        )))
    }

    /// A number starting at `self.pos` ('-' or a digit), rules A.8, A.9 and
    /// the number-length part of A.13.
    fn parse_number(&mut self, root: bool) -> Result<Scalar<'a>, JacksonError> {
        let b = self.b;
        let start = self.pos;
        let mut i = start;
        if b[i] == b'-' {
            i += 1;
            match b.get(i) {
                None => {
                    return Err(unexpected_eof(
                        "Unexpected end-of-input: No digit following sign",
                    ));
                }
                Some(b'0'..=b'9') => {}
                Some(b'I') if i + 1 == b.len() => {
                    return Err(unexpected_eof("Unexpected end-of-input in a Number value"));
                }
                Some(_) => {
                    return Err(stream_read(format!(
                        "Unexpected character ({}) in numeric value: expected digit (0-9) to follow minus sign, \
                         for valid numeric value",
                        self.desc_at(i)
                    )));
                }
            }
        }
        let int_start = i;
        if b[i] == b'0' && matches!(b.get(i + 1), Some(b'0'..=b'9')) {
            return Err(stream_read(
                "Invalid numeric value: Leading zeroes not allowed",
            ));
        }
        i = skip_digits(b, i);
        let int_len = i - int_start;
        let (i, frac_len, exp_len) = self.fraction_and_exponent(i)?;
        let end = i;
        if root
            && let Some(&c) = b.get(end)
            && !matches!(c, b' ' | b'\t' | b'\n' | b'\r')
        {
            return Err(stream_read(format!(
                "Unexpected character ({}): Expected space separating root-level values",
                self.desc_at(end)
            )));
        }
        self.pos = end;
        let all: &'a str = self.s;
        let text = &all[start..end];
        if frac_len.is_none() && exp_len.is_none() {
            if int_len > self.limits.max_number_length {
                return Err(number_too_long(int_len, self.limits.max_number_length));
            }
            let canonical = if text == "-0" { "0" } else { text };
            return Ok(Scalar::Int(canonical));
        }
        // _parseNumber2 (the slow path) counts a missing fraction or exponent
        // part as -1, the fast path as 0.
        let missing: isize = if b[int_start] == b'0' || self.number_reaches_buffer_end(start, end) {
            -1
        } else {
            0
        };
        let count = int_len as isize
            + frac_len.map_or(missing, |n| n as isize)
            + exp_len.map_or(missing, |n| n as isize);
        if count > 0 && count as usize > self.limits.max_number_length {
            return Err(number_too_long(
                count as usize,
                self.limits.max_number_length,
            ));
        }
        match text.parse::<f64>() {
            Ok(d) => Ok(Scalar::Double(d)),
            Err(_) => Err(stream_read(format!("Malformed numeric value ({text})"))),
        }
    }

    /// The fraction and exponent of a number whose integer part ends at
    /// `i`: where the number ends, and each part's digit count if present.
    #[inline]
    fn fraction_and_exponent(
        &self,
        mut i: usize,
    ) -> Result<(usize, Option<usize>, Option<usize>), JacksonError> {
        let b = self.b;
        let mut frac_len = None;
        if b.get(i) == Some(&b'.') {
            let frac_start = i + 1;
            i = skip_digits(b, frac_start);
            if i == frac_start {
                return Err(stream_read(format!(
                    "Unexpected character ({}) in numeric value: Decimal point not followed by a digit",
                    // At the end Jackson reports the '.' itself.
                    if i == b.len() {
                        char_desc(u32::from(b'.'))
                    } else {
                        self.desc_at(i)
                    }
                )));
            }
            frac_len = Some(i - frac_start);
        }
        let mut exp_len = None;
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            let exp_start = i;
            if exp_start == b.len() {
                return Err(unexpected_eof(
                    "Unexpected end-of-input: expected a digit for number exponent",
                ));
            }
            i = skip_digits(b, exp_start);
            if i == exp_start {
                return Err(stream_read(format!(
                    "Unexpected character ({}) in numeric value: Exponent indicator not followed by a digit",
                    self.desc_at(i)
                )));
            }
            exp_len = Some(i - exp_start);
        }
        Ok((i, frac_len, exp_len))
    }

    /// Whether Jackson's fast number scan, started at `start`, needs the char
    /// at the end of its input buffer and so falls back to `_parseNumber2`.
    fn number_reaches_buffer_end(&mut self, start: usize, end: usize) -> bool {
        if end == self.b.len() {
            return true;
        }
        if self.b.len() <= READER_THRESHOLD || self.total_len16() <= READER_THRESHOLD {
            return false;
        }
        let total = self.total_len16();
        let start16 = self.offset16(start);
        let buffer_end = total.min((start16 / READER_CHUNK + 1) * READER_CHUNK);
        start16 + (end - start) >= buffer_end
    }

    /// A string body after its opening quote (rule A.10), with the string
    /// length limit and, for names, the name length limit.
    /// A string without escapes is handed on as a slice of the text.
    fn parse_string(&mut self, name: bool) -> Result<Cow<'a, str>, JacksonError> {
        match self.plain_string(name)? {
            Ok(raw) => Ok(Cow::Borrowed(raw)),
            Err(i) => {
                let mut out = String::with_capacity(i - self.pos + 16);
                out.push_str(&self.s[self.pos..i]);
                self.decode_escaped(i, name, &mut out)
                    .map(|()| Cow::Owned(out))
            }
        }
    }

    /// A string value read for its errors only: the same checks as
    /// [`Self::parse_string`], nothing decoded (a sink that drops string
    /// values need not pay for their escapes).
    fn skip_string_value(&mut self) -> Result<(), JacksonError> {
        match self.plain_string(false)? {
            Ok(_) => Ok(()),
            Err(i) => self.decode_escaped(i, false, &mut Skipped),
        }
    }

    /// The string from `self.pos` when it has no escape: borrowed from the
    /// text, the parser past its closing quote. Otherwise where the first
    /// escape (or control character, or the end) stands, the parser unmoved.
    fn plain_string(&mut self, name: bool) -> Result<Result<&'a str, usize>, JacksonError> {
        let b = self.b;
        let start = self.pos;
        let mut i = start;
        while let Some(&c) = b.get(i) {
            if c == b'"' || c == b'\\' || c < 0x20 {
                break;
            }
            i += 1;
        }
        if b.get(i) != Some(&b'"') {
            return Ok(Err(i));
        }
        let all: &'a str = self.s;
        let raw = &all[start..i];
        self.pos = i + 1;
        // UTF-16 length never exceeds UTF-8 length, so short text needs no count.
        let len16 = if raw.len()
            > self
                .limits
                .max_string_length
                .min(self.limits.max_name_length)
        {
            utf16_len(raw.as_bytes())
        } else {
            0
        };
        self.check_string_length(len16, name)?;
        Ok(Ok(raw))
    }

    /// Reads the rest of the string that starts at `self.pos` from `i`, its
    /// first escape, into `out`.
    fn decode_escaped<O: Decoded>(
        &mut self,
        mut i: usize,
        name: bool,
        out: &mut O,
    ) -> Result<(), JacksonError> {
        let b = self.b;
        let start = self.pos;
        let mut len16 = utf16_len(&b[start..i]);
        let mut pending_high: Option<u16> = None;
        loop {
            if len16 > self.limits.max_string_length {
                return Err(string_too_long(len16, self.limits.max_string_length));
            }
            let Some(&c) = b.get(i) else {
                self.pos = i;
                return Err(unexpected_eof(if name {
                    "Unexpected end-of-input in property name"
                } else {
                    "Unexpected end-of-input: was expecting closing quote for a string value"
                }));
            };
            match c {
                b'"' => {
                    self.flush_high(&mut pending_high, out)?;
                    i += 1;
                    break;
                }
                b'\\' => {
                    i += 1;
                    let Some(&e) = b.get(i) else {
                        return Err(unexpected_eof(
                            "Unexpected end-of-input in character escape sequence",
                        ));
                    };
                    i += 1;
                    let simple = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => '\0',
                        _ => {
                            return Err(stream_read(format!(
                                "Unrecognized character escape {}",
                                self.desc_at(i - 1)
                            )));
                        }
                    };
                    len16 += 1;
                    if e != b'u' {
                        self.flush_high(&mut pending_high, out)?;
                        out.push(simple);
                        continue;
                    }
                    let unit = self.hex_unit(i)?;
                    i += 4;
                    self.push_unit(unit, &mut pending_high, out)?;
                }
                0..=0x1f => {
                    return Err(stream_read(format!(
                        "Illegal unquoted character ({}): has to be escaped using backslash to be included in {}",
                        char_desc(u32::from(c)),
                        if name { "name" } else { "string value" }
                    )));
                }
                _ => {
                    self.flush_high(&mut pending_high, out)?;
                    let run_start = i;
                    while let Some(&c) = b.get(i) {
                        if c == b'"' || c == b'\\' || c < 0x20 {
                            break;
                        }
                        i += 1;
                    }
                    out.push_str(&self.s[run_start..i]);
                    len16 += utf16_len(&b[run_start..i]);
                }
            }
        }
        self.pos = i;
        self.check_string_length(len16, name)
    }

    /// The UTF-16 unit of the four hex digits of a `\u` escape at `i`.
    #[inline]
    fn hex_unit(&self, mut i: usize) -> Result<u16, JacksonError> {
        let b = self.b;
        let mut unit = 0u16;
        for _ in 0..4 {
            let Some(&h) = b.get(i) else {
                return Err(unexpected_eof(
                    "Unexpected end-of-input in character escape sequence",
                ));
            };
            let Some(d) = hex_value(h) else {
                return Err(stream_read(format!(
                    "Unexpected character ({}): expected a hex-digit for character escape sequence",
                    self.desc_at(i)
                )));
            };
            unit = (unit << 4) | u16::from(d);
            i += 1;
        }
        Ok(unit)
    }

    /// A `\u` escape's unit: a high surrogate waits for its low one in
    /// `pending_high`; a pair is one character.
    #[inline]
    fn push_unit<O: Decoded>(
        &self,
        unit: u16,
        pending_high: &mut Option<u16>,
        out: &mut O,
    ) -> Result<(), JacksonError> {
        match unit {
            0xD800..=0xDBFF => {
                self.flush_high(pending_high, out)?;
                *pending_high = Some(unit);
            }
            0xDC00..=0xDFFF => match pending_high.take() {
                Some(high) => {
                    let cp =
                        0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
                    out.push(char::from_u32(cp).unwrap_or('\u{FFFD}'));
                }
                None => self.push_lone_surrogate(out)?,
            },
            _ => {
                self.flush_high(pending_high, out)?;
                out.push(char::from_u32(u32::from(unit)).unwrap_or('\u{FFFD}'));
            }
        }
        Ok(())
    }

    /// Checks a finished string: the string limit, then for names the
    /// symbol-table name limit. `len16` may be 0 when the text is known short.
    fn check_string_length(&self, len16: usize, name: bool) -> Result<(), JacksonError> {
        if len16 > self.limits.max_string_length {
            return Err(string_too_long(len16, self.limits.max_string_length));
        }
        if name && len16 > self.limits.max_name_length {
            return Err(constraints(format!(
                "Name length ({len16}) exceeds the maximum allowed ({}, from \
                 `StreamReadConstraints.getMaxNameLength()`)",
                self.limits.max_name_length
            )));
        }
        Ok(())
    }

    fn flush_high<O: Decoded>(
        &self,
        pending: &mut Option<u16>,
        out: &mut O,
    ) -> Result<(), JacksonError> {
        if pending.take().is_some() {
            self.push_lone_surrogate(out)?;
        }
        Ok(())
    }

    /// Jackson keeps an unpaired surrogate; a Rust `String` cannot, so the
    /// lenient reader stores U+FFFD and the strict one refuses.
    fn push_lone_surrogate<O: Decoded>(&self, out: &mut O) -> Result<(), JacksonError> {
        if self.strict {
            return Err(stream_read("lone surrogate escape"));
        }
        out.push('\u{FFFD}');
        Ok(())
    }
}

/// Where a string's decoded characters go: a `String`, or nowhere.
trait Decoded {
    fn push(&mut self, c: char);
    fn push_str(&mut self, s: &str);
}

impl Decoded for String {
    fn push(&mut self, c: char) {
        String::push(self, c);
    }
    fn push_str(&mut self, s: &str) {
        String::push_str(self, s);
    }
}

/// Drops what it is given.
struct Skipped;

impl Decoded for Skipped {
    fn push(&mut self, _: char) {}
    fn push_str(&mut self, _: &str) {}
}

pub(super) fn eof_in_container(is_object: bool) -> JacksonError {
    unexpected_eof(format!(
        "Unexpected end-of-input: expected close marker for {}",
        if is_object { "Object" } else { "Array" }
    ))
}

pub(super) fn mismatched_close(t: u8, is_object: bool) -> JacksonError {
    stream_read(format!(
        "Unexpected close marker '{}': expected '{}'",
        t as char,
        if is_object { '}' } else { ']' }
    ))
}

pub(super) fn number_too_long(len: usize, max: usize) -> JacksonError {
    constraints(format!(
        "Number value length ({len}) exceeds the maximum allowed ({max}, from \
         `StreamReadConstraints.getMaxNumberLength()`)"
    ))
}

pub(super) fn string_too_long(len: usize, max: usize) -> JacksonError {
    constraints(format!(
        "String value length ({len}) exceeds the maximum allowed ({max}, from \
         `StreamReadConstraints.getMaxStringLength()`)"
    ))
}

/// UTF-16 length of valid UTF-8: one unit per char, two for 4-byte chars.
pub(super) fn utf16_len(b: &[u8]) -> usize {
    // Each byte adds 0 to 2: summed in a byte over chunks of 127 (at most
    // 254), which the compiler vectorizes byte-wide, instead of widening
    // every byte to a usize.
    b.chunks(127)
        .map(|chunk| {
            let units: u8 = chunk
                .iter()
                .map(|&x| u8::from(x & 0xC0 != 0x80) + u8::from(x >= 0xF0))
                .fold(0, u8::wrapping_add);
            usize::from(units)
        })
        .sum()
}

/// `ParserMinimalBase._getCharDesc`.
pub(super) fn char_desc(c: u32) -> String {
    let is_iso_control = c < 0x20 || (0x7F..=0x9F).contains(&c);
    if is_iso_control {
        return format!("(CTRL-CHAR, code {c})");
    }
    let shown = char::from_u32(c).unwrap_or('\u{FFFD}');
    if c > 255 {
        format!("'{shown}' (code {c} / 0x{c:x})")
    } else {
        format!("'{shown}' (code {c})")
    }
}
