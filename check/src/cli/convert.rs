//! `convert`: tool-response texts from standard input to Gemini's JSON.

use std::io::{BufRead, Write};
use std::process::ExitCode;

use toolcall_model::chat::gemini_tool_text;
use toolcall_model::gemini::write_tool_response;
use toolcall_model::model::{BehaviorSet, Fixes, JavaException, Message, ToolResponse, cut};

/// The budget of `convert`'s input: the whole of standard input, or one
/// line with `--jsonl`. Jackson's own limit on a string is 100,000,000
/// characters; a line may escape them. Past it: exit 2, nothing converted.
pub(crate) const MAX_CONVERT_INPUT_BYTES: usize = 128 << 20;

/// The message of an input past [`MAX_CONVERT_INPUT_BYTES`].
fn over_budget(what: &str) -> ExitCode {
    errln!(
        "error: budget 'convert input' hit: {what} is longer than {MAX_CONVERT_INPUT_BYTES} bytes; not converted"
    );
    ExitCode::from(2)
}

/// At most this many characters of an input are echoed in a message; the
/// rest is named by its length.
const ECHO_CHARS: usize = 200;

/// `text` with any run of it past [`ECHO_CHARS`] characters cut: the first
/// part, then the full length.
pub(crate) fn clip_echo(text: &str) -> String {
    match cut(text, ECHO_CHARS, ECHO_CHARS) {
        None => text.to_owned(),
        Some((head, n)) => format!("{head}… [{n} characters in all]"),
    }
}

/// The payload of `text`, or with `advised_only` the text itself as a JSON
/// string.
fn write<W: Write>(
    text: &str,
    error: bool,
    fixes: Fixes,
    advised_only: bool,
    out: &mut W,
) -> std::io::Result<Result<(), JavaException>> {
    if advised_only {
        return serde_json::to_writer(out, text)
            .map_err(std::io::Error::from)
            .map(Ok);
    }
    write_tool_response(text, error, fixes, out)
}

/// `convert`: reads standard input once (no copy for UTF-8 checking) and
/// writes the payload straight from the conversion, without building a
/// JSON tree of it. With `--jsonl`, each line is a JSON string literal and
/// gets one line back: `{"ok": PAYLOAD}`, `{"error": MESSAGE}` (the
/// conversion failed, as Spring's would), or `{"input_error": MESSAGE}`
/// (the line is not a JSON string literal, or not UTF-8; an empty line is
/// such a line: the empty text is `""`). Exit 1 if any line was malformed.
/// The answers so far are flushed whenever every line read is answered, so
/// that one process can serve a caller line by line. With `advised`, what
/// is written in place of the payload is the text the set's advisor passes
/// on (the seed's `GeminiToolTextAdvisor` under
/// `gemini-tool-text`; the text itself without it), as a JSON string.
pub(crate) fn convert(fixes: &str, error: bool, jsonl: bool, advised_only: bool) -> ExitCode {
    let (fixes, advisor) = match BehaviorSet::parse_names(fixes) {
        Ok(f) => f,
        Err(e) => {
            errln!("error: --fixes: {e}");
            return ExitCode::from(2);
        }
    };
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    if !jsonl {
        return convert_whole(&stdin, error, fixes, advisor, advised_only, &mut out);
    }
    // Our own buffer, so that the answers are flushed whenever the lines
    // read so far are answered: a caller that writes one line and waits for
    // its answer gets it at once, and a batch is still written in blocks.
    let mut reader = std::io::BufReader::with_capacity(1 << 16, stdin.lock());
    let mut line = Vec::new();
    let mut line_out = Vec::new();
    let mut n = 0usize;
    let mut malformed = 0usize;
    loop {
        line.clear();
        if reader.buffer().is_empty()
            && let Err(e) = out.flush()
        {
            super::output_lost(&e);
        }
        match std::io::Read::take(&mut reader, MAX_CONVERT_INPUT_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)
        {
            Ok(0) => break,
            Ok(_) if line.len() > MAX_CONVERT_INPUT_BYTES => {
                let _ = out.flush();
                return over_budget(&format!("line {}", n + 1));
            }
            Ok(_) => {}
            Err(e) => {
                errln!("error: cannot read standard input: {e}");
                return ExitCode::FAILURE;
            }
        }
        n += 1;
        let raw = line.strip_suffix(b"\n").unwrap_or(&line);
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        let written = match std::str::from_utf8(raw) {
            Err(e) => {
                malformed += 1;
                let m = format!("line {n}: not valid UTF-8 (byte {})", e.valid_up_to());
                writeln!(out, "{}", serde_json::json!({ "input_error": m }))
            }
            Ok(s) => match serde_json::from_str::<String>(s) {
                Err(e) => {
                    malformed += 1;
                    let m = if s.trim().is_empty() {
                        format!(
                            "line {n}: an empty line is not a JSON string literal (the empty text is \"\")"
                        )
                    } else {
                        format!("line {n}: not a JSON string literal: {e}: {}", clip_echo(s))
                    };
                    writeln!(out, "{}", serde_json::json!({ "input_error": m }))
                }
                Ok(text) => {
                    let text = advised(advisor, text);
                    // The payload goes straight out; a failed conversion
                    // writes nothing, so `{"ok":` is written only after it
                    // succeeds (into a line buffer, then copied).
                    line_out.clear();
                    match write(&text, error, fixes, advised_only, &mut line_out) {
                        Ok(Ok(())) => out
                            .write_all(b"{\"ok\":")
                            .and_then(|()| out.write_all(&line_out))
                            .and_then(|()| out.write_all(b"}\n")),
                        Ok(Err(e)) => writeln!(
                            out,
                            "{}",
                            serde_json::json!({ "error": clip_echo(&e.to_string()) })
                        ),
                        Err(e) => Err(e),
                    }
                }
            },
        };
        if let Err(e) = written {
            super::output_lost(&e);
        }
    }
    if let Err(e) = out.flush() {
        super::output_lost(&e);
    }
    if malformed > 0 {
        errln!("error: {malformed} of {n} lines were not JSON string literals");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// The workaround advisor's rewriting, when it runs (`advisor`), before
/// Gemini's conversion: the advisor is given a request whose last message
/// is this one response, and passes on its text.
fn advised(advisor: bool, text: String) -> String {
    if !advisor {
        return text;
    }
    let mut request = [Message::Tool {
        responses: vec![ToolResponse::new("1", "x", &text)].into(),
    }];
    match gemini_tool_text(&mut request) {
        // The request is not empty, so the advisor never throws here.
        Ok(()) | Err(_) => request[0].responses()[0].data.to_string(),
    }
}

/// `convert` without `--jsonl`: the whole of standard input is one text.
fn convert_whole(
    stdin: &std::io::Stdin,
    error: bool,
    fixes: Fixes,
    advisor: bool,
    advised_only: bool,
    out: &mut impl Write,
) -> ExitCode {
    let bytes = match super::read_at_most(stdin.lock(), MAX_CONVERT_INPUT_BYTES) {
        Ok(b) if b.len() > MAX_CONVERT_INPUT_BYTES => return over_budget("standard input"),
        Ok(b) => b,
        Err(e) => {
            errln!("error: cannot read standard input: {e}");
            return ExitCode::FAILURE;
        }
    };
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            errln!(
                "error: standard input is not valid UTF-8 (byte {})",
                e.utf8_error().valid_up_to()
            );
            return ExitCode::FAILURE;
        }
    };
    let text = advised(advisor, text);
    match write(&text, error, fixes, advised_only, out) {
        Ok(Ok(())) => {
            if let Err(e) = out.write_all(b"\n").and_then(|()| out.flush()) {
                super::output_lost(&e);
            }
            ExitCode::SUCCESS
        }
        Ok(Err(e)) => {
            // The message quotes the input: its control characters escaped.
            errln!("error: {}", super::shown(&clip_echo(&e.to_string())));
            ExitCode::FAILURE
        }
        Err(e) => super::output_lost(&e),
    }
}
