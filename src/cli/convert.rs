//! `convert`: tool-response texts from standard input to Gemini's JSON.

use std::io::{BufRead, Read, Write};
use std::process::ExitCode;

use toolcall_model::chat::advisor_thinks_json;
use toolcall_model::gemini::write_tool_response;
use toolcall_model::model::{BehaviorSet, Fixes, cut, json_error_text};

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

/// `convert`: reads standard input once (no copy for UTF-8 checking) and
/// writes the payload straight from the conversion, without building a
/// JSON tree of it. With `--jsonl`, each line is a JSON string literal and
/// gets one line back: `{"ok": PAYLOAD}`, `{"error": MESSAGE}` (the
/// conversion failed, as Spring's would), or `{"input_error": MESSAGE}`
/// (the line is not a JSON string literal, or not UTF-8; an empty line is
/// such a line: the empty text is `""`). Exit 1 if any line was malformed.
pub(crate) fn convert(fixes: &str, error: bool, jsonl: bool) -> ExitCode {
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
        return convert_whole(&stdin, error, fixes, advisor, &mut out);
    }
    let mut reader = stdin.lock();
    let mut line = Vec::new();
    let mut line_out = Vec::new();
    let mut n = 0usize;
    let mut malformed = 0usize;
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => break,
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
                    match write_tool_response(&text, error, fixes, &mut line_out) {
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
/// Gemini's conversion: a text it does not take for JSON becomes
/// `{"error":TEXT}`.
fn advised(advisor: bool, text: String) -> String {
    if advisor && !advisor_thinks_json(&text) {
        json_error_text(&text)
    } else {
        text
    }
}

/// `convert` without `--jsonl`: the whole of standard input is one text.
fn convert_whole(
    stdin: &std::io::Stdin,
    error: bool,
    fixes: Fixes,
    advisor: bool,
    out: &mut impl Write,
) -> ExitCode {
    let mut bytes = Vec::new();
    if let Err(e) = stdin.lock().read_to_end(&mut bytes) {
        errln!("error: cannot read standard input: {e}");
        return ExitCode::FAILURE;
    }
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
    match write_tool_response(&text, error, fixes, out) {
        Ok(Ok(())) => {
            if let Err(e) = out.write_all(b"\n").and_then(|()| out.flush()) {
                super::output_lost(&e);
            }
            ExitCode::SUCCESS
        }
        Ok(Err(e)) => {
            errln!("error: {}", clip_echo(&e.to_string()));
            ExitCode::FAILURE
        }
        Err(e) => super::output_lost(&e),
    }
}
