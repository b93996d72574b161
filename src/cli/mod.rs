//! The command line's modules: arguments, one module per group of
//! subcommands, and the YAML reader of `check`.

pub(crate) mod args;
pub(crate) mod check;
pub(crate) mod convert;
pub(crate) mod explore;
pub(crate) mod main_job;
pub(crate) mod sarif;
pub(crate) mod vectors;

/// Ends the program when standard output cannot be written (a full disk,
/// a pipe whose reader has gone): exit 2, no verdict, with the reason on
/// standard error. An answer that did not reach its reader is not the
/// answer, whatever it was.
pub(crate) fn output_lost(e: &std::io::Error) -> ! {
    errln!("error: cannot write to standard output: {e}");
    std::process::exit(2);
}

/// `reader` to its end, but never more than `max + 1` bytes: a result
/// longer than `max` says the input is past its limit without reading it
/// whole (a device such as `/dev/zero` never ends). Every command that reads
/// a whole input reads it through this.
pub(crate) fn read_at_most(reader: impl std::io::Read, max: usize) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut reader.take(max as u64 + 1), &mut bytes)?;
    Ok(bytes)
}

/// `s` with its control characters shown as escapes (`\n`, `\u{1b}`), for
/// human output where a name or a path from a file stands in a line: a
/// newline in a vector's name could otherwise print a line of its own
/// (`3 passed, 0 failed`), an escape sequence could drive the terminal.
pub(crate) fn shown(s: &str) -> std::borrow::Cow<'_, str> {
    shown_but(s, None)
}

/// [`shown`] of a text of several lines: its newlines kept.
pub(crate) fn shown_lines(s: &str) -> std::borrow::Cow<'_, str> {
    shown_but(s, Some('\n'))
}

fn shown_but(s: &str, keep: Option<char>) -> std::borrow::Cow<'_, str> {
    let escaped = |c: char| c.is_control() && Some(c) != keep;
    if !s.chars().any(escaped) {
        return std::borrow::Cow::Borrowed(s);
    }
    std::borrow::Cow::Owned(
        s.chars()
            .map(|c| match c {
                c if !escaped(c) => c.to_string(),
                '\n' => "\\n".to_owned(),
                '\r' => "\\r".to_owned(),
                '\t' => "\\t".to_owned(),
                c => c.escape_unicode().to_string(),
            })
            .collect(),
    )
}
