//! Differential test of `toolcall_model::jackson::read_lenient` against real
//! Jackson (Debian's `libjackson2-databind-java` 2.14, run by
//! `tests/jackson_diff/Harness.java`).
//!
//! Texts: `tests/jackson_diff/corpus.txt` (one JSON string literal per line,
//! written by `make_corpus.py`) plus texts generated here from a constant
//! seed. Both sides must agree on accept/reject, on the value (integers by
//! exact text, doubles by bits, object key order included) and on the
//! exception class once Jackson 2.14's names are mapped to Jackson 3's.
//!
//! Without `javac`/`java` or the Jackson jars the test prints `SKIPPED` and
//! passes, unless `TOOLCALL_REQUIRE_JAVA=1` is set.

use std::fmt::Write as _;
use std::io::{BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use toolcall_model::jackson::{
    is_strict_json, read_lenient, read_lenient_with, read_strict, JValue, JacksonError, Limits,
};

const JARS: [&str; 3] = [
    "jackson-core.jar",
    "jackson-databind.jar",
    "jackson-annotations.jar",
];

#[test]
fn jackson_differential() {
    let jar_dir = PathBuf::from(
        std::env::var("JACKSON_JAR_DIR").unwrap_or_else(|_| "/usr/share/java".to_owned()),
    );
    if let Err(reason) = check_tools(&jar_dir) {
        if std::env::var("TOOLCALL_REQUIRE_JAVA").as_deref() == Ok("1") {
            panic!("TOOLCALL_REQUIRE_JAVA=1 but the Java differential cannot run: {reason}");
        }
        println!("SKIPPED: jackson differential ({reason})");
        return;
    }

    // Per process, so concurrent test runs sharing a target dir do not clash.
    let work =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("jackson_diff-{}", std::process::id()));
    std::fs::create_dir_all(work.join("classes")).expect("create work dir");
    let classpath = std::iter::once(work.join("classes"))
        .chain(JARS.iter().map(|j| jar_dir.join(j)))
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(":");
    let harness = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/jackson_diff/Harness.java");
    run(Command::new("javac")
        .arg("-cp")
        .arg(&classpath)
        .arg("-d")
        .arg(work.join("classes"))
        .arg(&harness));

    let (texts, skipped) = all_texts();

    let input = work.join("texts.txt");
    let output = work.join("results.txt");
    {
        let mut w = BufWriter::new(std::fs::File::create(&input).expect("create input"));
        for t in &texts {
            w.write_all(literal(t).as_bytes()).expect("write");
            w.write_all(b"\n").expect("write");
        }
        w.flush().expect("flush");
    }
    run(Command::new("java")
        .arg("-Xss16m")
        .arg("-cp")
        .arg(&classpath)
        .arg("Harness")
        .arg(&input)
        .arg(&output));

    let results: Vec<String> =
        std::io::BufReader::new(std::fs::File::open(&output).expect("open output"))
            .split(b'\n')
            .map(|l| String::from_utf8_lossy(&l.expect("read output")).into_owned())
            .collect();
    assert_eq!(
        results.len(),
        texts.len(),
        "the harness must answer every text"
    );

    let mut explained = 0usize;
    let mut unexplained = Vec::new();
    for (text, java) in texts.iter().zip(&results) {
        let rust = outcome(&read_lenient(text));
        if rust == normalize_java(java) {
            continue;
        }
        // JACKSON.md B.1: Debian's 2.14 backport has no 50,000-char property
        // name limit (Jackson 3's StreamReadConstraints.maxNameLength), so a
        // text that differs only through that limit is explained when the
        // model without the name limit agrees with Debian's Jackson.
        let no_name_limit = Limits {
            max_name_length: usize::MAX,
            ..Limits::default()
        };
        if outcome(&read_lenient_with(text, &no_name_limit)) == normalize_java(java) {
            explained += 1;
            continue;
        }
        unexplained.push((text, rust, java.clone()));
    }

    // The inputs hold ~150 MB of long texts; keep them only for a failure.
    if unexplained.is_empty() {
        let _ = std::fs::remove_dir_all(&work);
    }
    println!(
        "jackson differential: {} texts compared, {} mismatches explained, {} unexplained \
         ({} corpus lines skipped: raw lone surrogates cannot be a Rust &str)",
        texts.len(),
        explained,
        unexplained.len(),
        skipped
    );
    if !unexplained.is_empty() {
        let mut report = String::new();
        for (text, rust, java) in unexplained.iter().take(40) {
            let _ = writeln!(
                report,
                "text {}\n  rust: {}\n  java: {}",
                shorten(&format!("{text:?}")),
                shorten(rust),
                shorten(java)
            );
        }
        panic!(
            "{} unexplained mismatches, first ones:\n{report}",
            unexplained.len()
        );
    }
}

/// The strict reader over the same texts, no Java needed: `is_strict_json`
/// agrees with `read_strict`, a whole value reads the same leniently (or
/// hits a Jackson limit), and
/// acceptance matches serde_json's where its recursion limit (128) allows.
#[test]
fn strict_reader_consistency() {
    let (texts, _) = all_texts();
    let mut accepted = 0usize;
    for text in &texts {
        let strict = read_strict(text);
        assert_eq!(
            is_strict_json(text),
            strict.is_some(),
            "{}",
            shorten(&format!("{text:?}"))
        );
        if let Some(v) = &strict {
            accepted += 1;
            // Jackson's limits may still refuse a whole value; nothing else may.
            match read_lenient(text) {
                Ok(lenient) => assert_eq!(&lenient, v, "{}", shorten(&format!("{text:?}"))),
                Err(e) => assert_eq!(
                    e.class,
                    "StreamConstraintsException",
                    "{}",
                    shorten(&format!("{text:?}"))
                ),
            }
        }
        let nesting = text.bytes().filter(|b| matches!(b, b'[' | b'{')).count();
        if nesting < 100 {
            // Value, not IgnoredAny: only a decoded string rejects lone surrogates.
            let serde_ok = serde_json::from_str::<serde_json::Value>(text).is_ok();
            assert_eq!(
                strict.is_some(),
                serde_ok,
                "{}",
                shorten(&format!("{text:?}"))
            );
        }
    }
    println!(
        "strict reader: {} texts, {accepted} whole JSON values",
        texts.len()
    );
}

fn all_texts() -> (Vec<String>, usize) {
    let (corpus, skipped) = read_corpus();
    let mut texts = corpus.clone();
    generate(&corpus, &mut texts);
    (texts, skipped)
}

fn check_tools(jar_dir: &Path) -> Result<(), String> {
    for tool in ["javac", "java"] {
        match Command::new(tool).arg("-version").output() {
            Ok(o) if o.status.success() => {}
            Ok(o) => {
                return Err(format!(
                    "`{tool} -version` failed: {}",
                    String::from_utf8_lossy(&o.stderr).trim()
                ))
            }
            Err(e) => return Err(format!("`{tool}` not runnable: {e}")),
        }
    }
    for jar in JARS {
        if !jar_dir.join(jar).is_file() {
            return Err(format!(
                "{} missing; install with `apt-get install -y libjackson2-databind-java` or set JACKSON_JAR_DIR",
                jar_dir.join(jar).display()
            ));
        }
    }
    Ok(())
}

fn run(cmd: &mut Command) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Corpus texts Rust can hold; a line whose text has a raw lone surrogate is
/// skipped (Jackson's answer for those is in JACKSON.md; the model cannot be
/// asked).
fn read_corpus() -> (Vec<String>, usize) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/jackson_diff/corpus.txt");
    let data = std::fs::read_to_string(&path).expect("read corpus.txt");
    let mut texts = Vec::new();
    let mut skipped = 0;
    for line in data.lines() {
        match serde_json::from_str::<String>(line) {
            Ok(t) => texts.push(t),
            Err(_) => skipped += 1,
        }
    }
    assert!(texts.len() >= 500, "corpus too small: {}", texts.len());
    (texts, skipped)
}

/// A JSON string literal: only '"', '\\' and control chars are escaped, so
/// long non-ASCII texts stay compact.
fn literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The harness line the model predicts.
fn outcome(r: &Result<JValue, JacksonError>) -> String {
    match r {
        Ok(v) => {
            let mut s = String::from("OK ");
            canon(v, &mut s);
            s
        }
        Err(e) => format!("ERR {}", e.class),
    }
}

/// Harness line without the message, 2.14 class names mapped to 3.x ones.
fn normalize_java(line: &str) -> String {
    if line.starts_with("OK ") {
        return line.to_owned();
    }
    let class = line
        .strip_prefix("ERR ")
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or(line);
    // JACKSON.md B.3: 2.14's JsonParseException is 3.x's StreamReadException,
    // and JsonEOFException is UnexpectedEndOfInputException; the others kept
    // their simple names.
    let class = match class {
        "JsonParseException" => "StreamReadException",
        "JsonEOFException" => "UnexpectedEndOfInputException",
        other => other,
    };
    format!("ERR {class}")
}

/// Same canonical form as `Harness.canon`. Recursion is bounded by the
/// model's depth limit (500).
fn canon(v: &JValue, out: &mut String) {
    match v {
        JValue::Null => out.push('n'),
        JValue::Bool(b) => out.push(if *b { 't' } else { 'f' }),
        JValue::Int(text) => {
            out.push('i');
            out.push_str(text);
        }
        JValue::Double(d) => {
            let _ = write!(out, "d{:016x}", d.to_bits());
        }
        JValue::String(s) => canon_string(s, out),
        JValue::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canon(item, out);
            }
            out.push(']');
        }
        JValue::Object(entries) => {
            out.push('{');
            for (i, (k, item)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canon_string(k, out);
                out.push(':');
                canon(item, out);
            }
            out.push('}');
        }
    }
}

fn canon_string(s: &str, out: &mut String) {
    out.push_str("s\"");
    for unit in s.encode_utf16() {
        if (0x20..0x7f).contains(&unit) && unit != u16::from(b'"') && unit != u16::from(b'\\') {
            out.push(char::from(unit as u8));
        } else {
            let _ = write!(out, "\\u{unit:04x}");
        }
    }
    out.push('"');
}

fn shorten(s: &str) -> String {
    if s.chars().count() <= 300 {
        return s.to_owned();
    }
    let head: String = s.chars().take(300).collect();
    format!("{head}... ({} chars)", s.chars().count())
}

/// xorshift64: deterministic, so every run compares the same texts.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const PIECES: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    " ",
    "\n",
    "\t",
    "\r",
    "\"",
    "\\",
    "\"a\"",
    "\"\\u0041\"",
    "\\ud800",
    "\\udc00",
    "\\u",
    "0",
    "1",
    "9",
    "-",
    "+",
    ".",
    "e",
    "E",
    "12",
    "007",
    "true",
    "false",
    "null",
    "nul",
    "x",
    "_",
    "$",
    "é",
    "€",
    "😀",
    "\u{0}",
    "\u{b}",
    "\u{1f}",
    "\u{7f}",
    "\u{85}",
    "\u{a0}",
    "\u{200b}",
    "\u{2028}",
    "\u{feff}",
    "/",
    "*",
    "#",
    "'",
    "\"k\":",
    "1.5",
    "1e5",
    "\\n",
    "\\\"",
    "00",
    "NaN",
    "Infinity",
    "I",
    "%",
    "=",
    "Error",
];

/// Generated texts: the identifier-part table over the whole BMP, the
/// root-space check over many chars, mutations of corpus texts, random
/// JSON-ish strings, nesting around the depth limit, numbers around every
/// rule, and long texts for the length limits and Reader chunk boundaries.
fn generate(corpus: &[String], out: &mut Vec<String>) {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);

    // A.7: `null` followed by every BMP scalar value at or above '0'.
    for u in 0x30u32..=0xFFFF {
        if let Some(c) = char::from_u32(u) {
            out.push(format!("null{c}"));
        }
    }
    // A.2 and A.8: leading chars and chars after a root number.
    for u in (0u32..0x800).chain([
        0x1680, 0x2000, 0x200b, 0x2028, 0x202f, 0x3000, 0xfeff, 0x1f600,
    ]) {
        if let Some(c) = char::from_u32(u) {
            out.push(format!("42{c}"));
            out.push(format!("1.5{c}x"));
            out.push(format!("{c}1"));
            out.push(format!("[1{c}]"));
            out.push(format!("{{\"a\"{c}:1}}"));
        }
    }

    // Mutations of corpus texts.
    for text in corpus.iter().filter(|t| t.chars().count() <= 2000) {
        for _ in 0..3 {
            out.push(mutate(&mut rng, text));
        }
    }

    // Random short JSON-ish strings.
    for _ in 0..4000 {
        let n = 1 + rng.below(10);
        out.push((0..n).map(|_| rng.pick(PIECES)).collect());
    }

    // Nesting around the depth limit.
    for _ in 0..120 {
        let depth = 495 + rng.below(11);
        let mut text = String::new();
        let mut closers = Vec::new();
        for _ in 0..depth {
            if rng.below(3) == 0 {
                text.push_str("{\"k\":");
                closers.push('}');
            } else {
                text.push('[');
                closers.push(']');
            }
        }
        text.push_str(rng.pick(&["1", "\"s\"", "", "x", "[]", "{}", "null"]));
        let close = closers.len().saturating_sub(rng.below(3));
        for c in closers.iter().rev().take(close) {
            text.push(*c);
        }
        text.push_str(rng.pick(&["", " tail", "]", "}", ","]));
        out.push(text);
    }

    // Numbers.
    let follow = [
        "", " ", "\n", "\t", "\r", "x", ",", "]", "}", ".", "e", "-", "+", "/", "\u{a0}", " rest",
    ];
    for _ in 0..3000 {
        let mut n = String::new();
        if rng.below(3) == 0 {
            n.push('-');
        }
        match rng.below(6) {
            0 => n.push('0'),
            1 => n.push_str("00"),
            _ => {
                let len = 1 + rng.below(25);
                n.push_str(&digits(&mut rng, len, true));
            }
        }
        if rng.below(2) == 0 {
            n.push('.');
            let len = rng.below(20);
            n.push_str(&digits(&mut rng, len, false));
        }
        if rng.below(3) == 0 {
            n.push(if rng.below(2) == 0 { 'e' } else { 'E' });
            n.push_str(rng.pick(&["", "", "+", "-"]));
            let len = rng.below(5);
            n.push_str(&digits(&mut rng, len, false));
        }
        let tail = follow[rng.below(follow.len())];
        out.push(match rng.below(3) {
            0 => format!("{n}{tail}"),
            1 => format!("[{n}{tail}]"),
            _ => format!("{{\"n\":{n}{tail}}}"),
        });
    }
    // Number lengths around 1000 in every shape, at the end, before a space, nested.
    for total in [998usize, 999, 1000, 1001, 1002] {
        let shapes = [
            digits(&mut rng, total, true),
            format!("1.{}", digits(&mut rng, total - 1, false)),
            format!("0.{}", digits(&mut rng, total - 1, false)),
            format!("{}e5", digits(&mut rng, total - 1, true)),
            format!("{}e+5", digits(&mut rng, total - 1, true)),
            format!("1.{}e7", digits(&mut rng, total - 2, false)),
            format!("-0.{}", digits(&mut rng, total - 1, false)),
            format!("0e{}", digits(&mut rng, total - 1, false)),
        ];
        for s in shapes {
            out.push(s.clone());
            out.push(format!("{s} "));
            out.push(format!("{s}\n1"));
            out.push(format!("[{s}]"));
            out.push(format!("{{\"a\":{s}}}"));
        }
    }

    // Texts over 32,768 UTF-16 units are read through 4,000-unit Reader chunks:
    // put floats with 1,001 fast-path digits around chunk ends.
    let floats = [
        format!("1.{}", "5".repeat(1000)),
        format!("{}e5", "7".repeat(1000)),
    ];
    for f in &floats {
        for chunk in [1usize, 2, 8] {
            for delta in -3i64..=3 {
                let end = (chunk * 4000) as i64 + delta;
                let pad = end - 1 - f.len() as i64;
                if pad >= 0 {
                    out.push(format!(
                        "[{}{f}  ]{}",
                        " ".repeat(pad as usize),
                        " ".repeat(40_000)
                    ));
                    out.push(format!(
                        "{{\"a\":{}{f}}}{}",
                        " ".repeat((pad - 4).max(0) as usize),
                        " ".repeat(40_000)
                    ));
                }
            }
        }
        // UTF-16 offsets: two-unit chars before the number.
        for delta in -2i64..=2 {
            let units = 4000 + delta - 3 - f.len() as i64;
            let emoji = (units / 2) as usize;
            let odd = if units % 2 == 1 { "x" } else { "" };
            out.push(format!(
                "[\"{}{odd}\",{f} ]{}",
                "😀".repeat(emoji),
                " ".repeat(40_000)
            ));
            out.push(format!(
                "[\"{}{odd}\",{f} ]{}",
                "é".repeat(emoji * 2),
                " ".repeat(40_000)
            ));
        }
        // Just over and at the one-buffer threshold.
        for total in [32_767usize, 32_768, 32_769, 32_770] {
            let body = format!("[{f} ]");
            out.push(format!("{body}{}", " ".repeat(total - body.len())));
            let at_end = format!("{}{f}", " ".repeat(total - f.len()));
            out.push(at_end);
        }
    }

    // Tokens split by a Reader chunk end: literals with their following char,
    // short numbers, escapes. Jackson falls back to its slow paths there.
    let tokens = [
        "nullx",
        "null:",
        "nullé",
        "null😀",
        "null",
        "true1",
        "false]",
        "1e5",
        "-1",
        "1.5",
        "0.5",
        "-0",
        "1e+5",
        "12",
        "1.",
        "1e",
        "-",
        "\"a\\u00e9b\"",
        "\"\\n\"",
        "\"\\ud83d\\ude00\"",
        "\"ab\"",
        "{\"k\":1}",
    ];
    for token in tokens {
        for delta in -6i64..=2 {
            let pad = (4000 + delta) as usize;
            out.push(format!("{}{token} {}", " ".repeat(pad), " ".repeat(40_000)));
            out.push(format!(
                "[{}{token}]{}",
                " ".repeat(pad - 1),
                " ".repeat(40_000)
            ));
        }
    }
    out.push("[".repeat(100_000));
    out.push("{\"a\":".repeat(100_000));
    out.push("[".repeat(100_000) + &"]".repeat(100_000));

    // String and name length limits (20,000,000 and 50,000 UTF-16 units).
    let x = "x".repeat(20_000_000);
    out.push(format!("\"{x}\""));
    out.push(format!("\"{x}x\""));
    out.push(format!("[\"{x}\"]"));
    out.push(format!("\"{}\\n\"", &x[1..]));
    out.push(format!("\"{x}\\n\""));
    out.push(format!("\"{x}{}", "x".repeat(5_000_000)));
    drop(x);
    let emoji = "😀".repeat(10_000_000);
    out.push(format!("\"{emoji}\""));
    out.push(format!("\"{emoji}x\""));
    drop(emoji);
    for n in [49_999usize, 50_000, 50_001] {
        out.push(format!("{{\"{}\":1}}", "k".repeat(n)));
        out.push(format!("{{\"{}\":1}}", "é".repeat(n)));
        out.push(format!("{{\"{}\":1}}", "😀".repeat(n / 2)));
        out.push(format!("{{\"a\":1,\"{}\\u0041\":1}}", "k".repeat(n - 1)));
    }
}

fn digits(rng: &mut Rng, n: usize, nonzero_first: bool) -> String {
    (0..n)
        .map(|i| {
            let d = if i == 0 && nonzero_first {
                1 + rng.below(9)
            } else {
                rng.below(10)
            };
            char::from(b'0' + d as u8)
        })
        .collect()
}

fn mutate(rng: &mut Rng, text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let at = rng.below(chars.len() + 1);
    let mut out: String = chars[..at].iter().collect();
    let rest: String = chars[at..].iter().collect();
    match rng.below(5) {
        0 => {
            out.push_str(rng.pick(PIECES));
            out.push_str(&rest);
        }
        1 => out.extend(rest.chars().skip(1)),
        2 => {
            out.push_str(rng.pick(PIECES));
            out.extend(rest.chars().skip(1));
        }
        3 => {}
        _ => {
            out.push_str(&rest);
            out.push_str(&rest);
        }
    }
    out
}
