//! Tool failures: `DefaultToolExecutionExceptionProcessor.process` and the
//! seed's JSON-error processor.

use crate::model::java::{ClassTable, JavaException, Kind, TOOL_EXECUTION_EXCEPTION, simple_name};
use crate::model::shared_str::SharedStr;

/// Which processor the manager uses.
///
/// ```
/// assert_eq!(toolcall_model::model::ProcessorKind::default(), toolcall_model::model::ProcessorKind::Default);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProcessorKind {
    /// `DefaultToolExecutionExceptionProcessor`: the message as plain text.
    #[default]
    Default,
    /// The seed's processor: the same decisions, but the text it returns is
    /// `{"error":"MESSAGE"}`, written as Spring's `JsonHelper.toJson(Map.of("error", message))`.
    JsonError,
}

/// A configured exception processor.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Processor {
    /// Which kind.
    pub kind: ProcessorKind,
    /// `alwaysThrow`.
    pub always_throw: bool,
    /// `rethrowExceptions`: class names whose instances (and subclasses' instances) are rethrown.
    pub rethrow: Vec<String>,
}

/// The `ToolExecutionException` a tool failure is wrapped in: its message is
/// the cause's message (`super(cause.getMessage(), cause)`).
pub(crate) fn tool_execution_exception(cause: &JavaException) -> JavaException {
    JavaException::caused(TOOL_EXECUTION_EXCEPTION, cause.clone())
}

impl Processor {
    /// `process(new ToolExecutionException(definition(tool), cause))`: the
    /// text for the model, or the exception that propagates. See
    /// `Processor::process_exception`.
    pub fn process(
        &self,
        tool_name: &str,
        cause: &JavaException,
        classes: &ClassTable,
    ) -> Result<SharedStr, JavaException> {
        // The exception's message is its cause's: nothing reads the
        // wrapper but a rethrow of it, so it is built only then.
        match self.handling(&cause.class, classes) {
            Handling::RethrowCause => Err(cause.clone()),
            Handling::RethrowException => Err(tool_execution_exception(cause)),
            Handling::Answer => Ok(self.text(tool_name, &cause.class, cause.message.as_ref())),
        }
    }

    /// `DefaultToolExecutionExceptionProcessor.process(exception)` for a
    /// `ToolExecutionException` (or subclass) `exception` thrown by tool
    /// `tool_name`; the cause is `exception.cause` (`getCause()`):
    ///
    /// 1. a cause that is not a runtime exception (or no cause) rethrows
    ///    `exception` itself;
    /// 2. a cause assignable to a rethrow class is rethrown itself;
    /// 3. `alwaysThrow` rethrows `exception`;
    /// 4. else `exception`'s message (its cause's, as the constructor set
    ///    it), or `Exception occurred in tool: NAME (SIMPLE_NAME)` with the
    ///    cause's simple name when it is null or blank (`String.isBlank`).
    ///
    /// An unknown cause class counts as a runtime exception: the vector loader
    /// refuses unknown classes, so this only matters to library callers.
    pub(crate) fn process_exception(
        &self,
        tool_name: &str,
        exception: &JavaException,
        classes: &ClassTable,
    ) -> Result<SharedStr, JavaException> {
        let Some(cause) = exception.cause.as_deref() else {
            return Err(exception.clone());
        };
        match self.handling(&cause.class, classes) {
            Handling::RethrowCause => Err(cause.clone()),
            Handling::RethrowException => Err(exception.clone()),
            Handling::Answer => Ok(self.text(tool_name, &cause.class, exception.message.as_ref())),
        }
    }

    /// The answer to an exception with `message` whose cause has class
    /// `cause_class` (rule 4 of [`Processor::process_exception`]).
    fn text(&self, tool_name: &str, cause_class: &str, message: Option<&SharedStr>) -> SharedStr {
        match message {
            Some(m) if !is_blank(m) => match self.kind {
                // The message itself, shared rather than copied.
                ProcessorKind::Default => m.clone(),
                ProcessorKind::JsonError => self.answer(&[Piece::Text(m)]),
            },
            _ => self.answer(&[
                Piece::Plain("Exception occurred in tool: "),
                Piece::Text(tool_name),
                Piece::Plain(" ("),
                Piece::Text(simple_name(cause_class)),
                Piece::Plain(")"),
            ]),
        }
    }

    /// What [`Processor::process_exception`] does with a
    /// `ToolExecutionException` whose cause has class `cause_class`: the
    /// decision reads the cause's class alone, so a caller that knows the
    /// cause's message has text (a limit breach's) needs no exception built
    /// unless one is thrown.
    pub(crate) fn handling(&self, cause_class: &str, classes: &ClassTable) -> Handling {
        match classes.kind(cause_class).unwrap_or(Kind::Runtime) {
            Kind::Runtime => {
                if self
                    .rethrow
                    .iter()
                    .any(|r| classes.is_assignable(r, cause_class))
                {
                    return Handling::RethrowCause;
                }
            }
            Kind::Checked | Kind::Error => return Handling::RethrowException,
        }
        if self.always_throw {
            Handling::RethrowException
        } else {
            Handling::Answer
        }
    }

    /// The text the processor answers with for a message that has text,
    /// given in pieces: the message (`Default`) or `{"error":"MESSAGE"}`
    /// (`JsonError`), built with one allocation. [`Piece::Plain`] pieces are
    /// copied as they are into the JSON too.
    pub(crate) fn answer(&self, pieces: &[Piece<'_>]) -> SharedStr {
        match self.kind {
            ProcessorKind::Default => SharedStr::concat(pieces.iter().map(Piece::text)),
            ProcessorKind::JsonError if !pieces.iter().any(Piece::escapes) => SharedStr::concat(
                std::iter::once(JSON_ERROR_OPEN)
                    .chain(pieces.iter().map(Piece::text))
                    .chain(std::iter::once(JSON_ERROR_CLOSE)),
            ),
            ProcessorKind::JsonError => {
                let mut out = String::from(JSON_ERROR_OPEN);
                for p in pieces {
                    match *p {
                        Piece::Plain(s) => out.push_str(s),
                        Piece::Text(s) => write_escaped(&mut out, s),
                    }
                }
                out.push_str(JSON_ERROR_CLOSE);
                out.into()
            }
        }
    }
}

/// What the processor does with a `ToolExecutionException`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Handling {
    /// The cause is rethrown.
    RethrowCause,
    /// The `ToolExecutionException` itself is rethrown.
    RethrowException,
    /// The message (or the fallback text) becomes the tool's response.
    Answer,
}

/// A piece of a text the processor answers with: [`Piece::Plain`] holds no
/// character JSON escapes (a fixed wording, digits), so the JSON-error form
/// copies it as it is; [`Piece::Text`] may hold any.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Piece<'a> {
    /// Text with no `"`, `\` or control character.
    Plain(&'a str),
    /// Any text.
    Text(&'a str),
}

impl<'a> Piece<'a> {
    /// Whether the JSON-error form must escape some of the piece.
    fn escapes(&self) -> bool {
        match *self {
            Piece::Plain(_) => false,
            Piece::Text(s) => s.bytes().any(escapes),
        }
    }

    /// The piece's text, as it is.
    pub(crate) fn text(&self) -> &'a str {
        match *self {
            Piece::Plain(s) | Piece::Text(s) => s,
        }
    }
}

/// What [`json_error_text`] writes before and after the escaped message.
const JSON_ERROR_OPEN: &str = "{\"error\":\"";
const JSON_ERROR_CLOSE: &str = "\"}";

/// `String.isBlank`: empty or only code points that are `Character.isWhitespace`.
pub(crate) fn is_blank(s: &str) -> bool {
    !crate::model::java::has_text(s)
}

/// `{"error":"TEXT"}` as Jackson writes a one-entry map: no spaces, `"` and
/// `\` escaped, `\b \t \n \f \r` as short escapes, other controls below
/// U+0020 as upper-case `\u00XX`, everything else (including `/` and
/// non-ASCII) as is.
///
/// ```
/// assert_eq!(toolcall_model::model::json_error_text("a\"b\u{1}"), r#"{"error":"a\"b\u0001"}"#);
/// ```
pub fn json_error_text(message: &str) -> String {
    let mut out = String::with_capacity(message.len() + 12);
    out.push_str(JSON_ERROR_OPEN);
    write_escaped(&mut out, message);
    out.push_str(JSON_ERROR_CLOSE);
    out
}

/// Appends `s` as a JSON string literal the way Jackson's generator escapes it.
///
/// ```
/// let mut s = String::new();
/// toolcall_model::model::write_jackson_string(&mut s, "\n\u{1f}");
/// assert_eq!(s, r#""\n\u001F""#);
/// ```
#[cfg(test)]
pub(crate) fn write_jackson_string(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    write_escaped(out, s);
    out.push('"');
}

/// Whether Jackson escapes the byte `b` inside a string: `"`, `\\` and
/// the controls below U+0020.
fn escapes(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

/// Appends `s` escaped as [`write_jackson_string`] escapes it, without the quotes.
fn write_escaped(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    // Every character that is escaped is ASCII, and no byte of a multi-byte
    // UTF-8 sequence is: the text is copied in runs between them.
    let mut run = 0;
    for (i, &b) in s.as_bytes().iter().enumerate() {
        if !escapes(b) {
            continue;
        }
        let escaped = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            0x08 => "\\b",
            b'\t' => "\\t",
            b'\n' => "\\n",
            0x0C => "\\f",
            b'\r' => "\\r",
            _ => "",
        };
        out.push_str(&s[run..i]);
        run = i + 1;
        if escaped.is_empty() {
            out.push_str("\\u00");
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 15)] as char);
        } else {
            out.push_str(escaped);
        }
    }
    out.push_str(&s[run..]);
}

#[cfg(test)]
mod tests {
    use super::{Piece, Processor, ProcessorKind, json_error_text, write_jackson_string};

    /// Jackson's escapes, one character at a time: the reference the run
    /// copying writer is held to.
    fn by_char(s: &str) -> String {
        let mut out = String::from("\"");
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\u{08}' => out.push_str("\\b"),
                '\t' => out.push_str("\\t"),
                '\n' => out.push_str("\\n"),
                '\u{0C}' => out.push_str("\\f"),
                '\r' => out.push_str("\\r"),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04X}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    #[test]
    fn runs_are_escaped_as_jackson_escapes_each_character() {
        let mut texts: Vec<String> = (0u8..0x80).map(|b| char::from(b).to_string()).collect();
        texts.extend(
            [
                "",
                "plain",
                "a\"b\\c\nd\u{1}e",
                "\u{7f}é€😀\u{1f}\"",
                "\"\"\\\\",
                "end\u{0}",
            ]
            .map(String::from),
        );
        let all: String = texts.concat();
        texts.push(all);
        for t in &texts {
            let mut got = String::from("x");
            write_jackson_string(&mut got, t);
            assert_eq!(got, format!("x{}", by_char(t)), "{t:?}");
        }
    }

    /// The processor's answer written from pieces is the message (default)
    /// or `json_error_text` of the whole message (JSON error), however the
    /// message is cut into pieces, the plain pieces copied unescaped.
    #[test]
    fn an_answer_in_pieces_is_the_answer_to_the_whole_message() {
        let default = Processor::default();
        let json = Processor {
            kind: ProcessorKind::JsonError,
            ..Processor::default()
        };
        let texts = [
            "",
            "plain",
            "a\"b\\c\nd\u{1}e",
            "\u{7f}é€😀\u{1f}\"",
            &"long ".repeat(80),
        ];
        for t in texts {
            let whole = [Piece::Text(t)];
            assert_eq!(default.answer(&whole), t);
            assert_eq!(json.answer(&whole), json_error_text(t));
            for at in (0..=t.len()).filter(|&i| t.is_char_boundary(i)) {
                let (a, b) = t.split_at(at);
                let cut = [Piece::Plain("fixed "), Piece::Text(a), Piece::Text(b)];
                let message = format!("fixed {t}");
                assert_eq!(default.answer(&cut), message);
                assert_eq!(json.answer(&cut), json_error_text(&message));
            }
        }
    }
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.
    #[test]
    fn example_processor() {
        use crate::model::ClassTable;
        use crate::model::JavaException;
        use crate::model::Processor;
        let p = Processor::default();
        let cause = JavaException::new("java.lang.IllegalStateException", Some("nope"));
        assert_eq!(
            p.process("t", &cause, &ClassTable::builtin()),
            Ok("nope".into())
        );
    }

    #[test]
    fn example_tool_execution_exception() {
        let c = crate::model::JavaException::new("java.io.IOException", None);
        let e = crate::model::processor::tool_execution_exception(&c);
        assert_eq!(e.message, None);
        assert_eq!(e.cause.as_deref(), Some(&c));
    }

    #[test]
    fn example_process() {
        use crate::model::ClassTable;
        use crate::model::JavaException;
        use crate::model::Processor;
        let p = Processor::default();
        let cause = JavaException::new("java.lang.NullPointerException", None);
        assert_eq!(
            p.process("calc", &cause, &ClassTable::builtin()).unwrap(),
            "Exception occurred in tool: calc (NullPointerException)"
        );
    }

    #[test]
    fn example_process_exception() {
        use crate::model::ClassTable;
        use crate::model::JavaException;
        use crate::model::Processor;
        let mut t = ClassTable::builtin();
        t.declare(
            "com.acme.ToolFailed",
            crate::model::java::TOOL_EXECUTION_EXCEPTION,
        )
        .unwrap();
        let tee = JavaException::caused(
            "com.acme.ToolFailed",
            JavaException::new("java.io.IOException", Some("io")),
        );
        let p = Processor::default();
        assert_eq!(p.process_exception("x", &tee, &t).unwrap_err(), tee); // checked cause: rethrown as is
    }

    #[test]
    fn example_is_blank() {
        assert!(crate::model::processor::is_blank(" \u{2003}"));
        assert!(!crate::model::processor::is_blank("\u{a0}"));
    }
}
