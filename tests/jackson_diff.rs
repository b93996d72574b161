//! Differential test of `toolcall_model::json::jackson` against the real Jackson 3
//! of Spring AI 2.0.1, through the real, private
//! `GoogleGenAiChatModel.parseJsonToMap` (run by
//! `conformance/java/src/main/java/org/springframework/ai/google/genai/JacksonProbe.java`,
//! built with Maven from the conformance project: `spring-ai-bom` 2.0.1,
//! the Jackson 3 family aligned on the jackson-databind 3.1.5 Spring AI
//! declares). The first line of output names the jackson-core and
//! jackson-databind versions the probe ran on.
//!
//! Texts: `tests/jackson_diff/corpus.txt` (one JSON string literal per line,
//! written by `make_corpus.py`) plus texts generated here from a constant
//! seed, and three texts of 20 to 100 million chars for the string length
//! limit. One Java process reads them all, one per line; a text longer than
//! one Jackson buffer (32,768 units) is read through a fresh recycler pool
//! (see `JacksonProbe`). For each text:
//!
//! * `read_lenient`, shaped as `parseJsonToMap` shapes it (an object as is,
//!   anything else under `result`), must give exactly the map the real method
//!   returns: integers by exact text and Java class (Integer/Long/BigInteger
//!   by magnitude), doubles by bits (so -0.0 and ±Infinity), strings by UTF-16
//!   unit, object key order included, and Spring's `HashMap` wrapper apart
//!   from Jackson's own `LinkedHashMap`; or the method must throw
//!   `RuntimeException("Failed to parse JSON: " + text)` caused by the Jackson
//!   3 exception class the model names.
//! * `read_strict`'s accept/reject verdict must equal that of Spring's mapper
//!   with `FAIL_ON_TRAILING_TOKENS` enabled (the Java form of
//!   `strict-json-or-wrap`'s "one whole JSON value"), except where the model's
//!   strict reader differs on purpose: it has no length limits (Jackson's
//!   number, string and name limits reject; counted apart when the model's
//!   lenient reader hits the same limit) and it rejects escaped lone
//!   surrogates, which Jackson accepts (counted apart when the text has one).
//!
//! Debian's Jackson 2.14 (`libjackson2-databind-java`), this test's earlier
//! oracle, is no longer used: Jackson 3 itself covers everything it did, and
//! also the name length limit and the 19-digit `Long`s the 2.14 backport got
//! wrong.
//!
//! Strings longer than [`HASHED`] UTF-16 units are compared by length and
//! FNV-1a hash of their units, so that the 100,000,000-unit strings of the
//! limit checks do not travel back as text.
//!
//! Without `java` and `mvn` (or when the conformance project does not build:
//! the first build downloads Spring AI and its dependencies into `~/.m2`) the
//! test prints `SKIPPED` and passes, unless `TOOLCALL_REQUIRE_JAVA=1` is set.
//! The build is shared with `tests/java_diff.rs` (`support::java_build`).

use std::fmt::Write as _;
use std::io::{BufRead, BufWriter, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use toolcall_model::json::{JValue, JacksonError, is_strict_json, read_lenient, read_strict};

use crate::support::{self, Rng};

const PROBE: &str = "org.springframework.ai.google.genai.JacksonProbe";

/// Strings longer than this many UTF-16 units print as `s#LEN#HASH`
/// (same constant in `JacksonProbe.java`).
const HASHED: usize = 1000;

#[test]
fn jackson_differential() {
    let started = Instant::now();
    if let Err(reason) = support::java_build() {
        assert!(
            !support::java_required(),
            "TOOLCALL_REQUIRE_JAVA=1 but the Jackson 3 differential cannot run: {reason}"
        );
        println!("SKIPPED: jackson differential against Jackson 3 ({reason})");
        return;
    }
    let java_dir = support::root().join("conformance/java");
    let deps = std::fs::read_to_string(java_dir.join("target/classpath.txt"))
        .expect("read conformance/java/target/classpath.txt");
    let classpath = format!(
        "{}:{}",
        java_dir.join("target/classes").display(),
        deps.trim()
    );
    let built = started.elapsed();

    // Per process, so concurrent test runs sharing a target dir do not clash.
    let work =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("jackson_diff-{}", std::process::id()));
    std::fs::create_dir_all(&work).expect("create work dir");

    let (mut texts, skipped) = all_texts();
    huge_texts(&mut texts);
    let generated = started.elapsed();
    let input = work.join("texts.txt");
    {
        let mut w = BufWriter::new(std::fs::File::create(&input).expect("create input"));
        for t in &texts {
            write_literal(&mut w, t).expect("write");
        }
        w.flush().expect("flush");
    }
    let written = started.elapsed();

    // Java reads while this thread asks the model.
    let java_started = Instant::now();
    let output = work.join("results.txt");
    let child = Command::new("java")
        .arg("-Xmx3g")
        .arg("-cp")
        .arg(&classpath)
        .arg(PROBE)
        .arg(&input)
        .arg(&output)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start java: {e}"));
    let expected = model_answers(&texts);
    let rust_time = java_started.elapsed();
    let finished = child.wait_with_output().expect("wait for java");
    let java_time = java_started.elapsed();
    assert!(
        finished.status.success(),
        "JacksonProbe failed: {}\n{}",
        String::from_utf8_lossy(&finished.stdout),
        String::from_utf8_lossy(&finished.stderr)
    );
    let results: Vec<String> =
        std::io::BufReader::new(std::fs::File::open(&output).expect("open the probe's output"))
            .split(b'\n')
            .map(|l| String::from_utf8_lossy(&l.expect("read the probe's output")).into_owned())
            .collect();
    assert_eq!(
        results.len(),
        texts.len(),
        "the probe must answer every text"
    );

    let mut tally = Tally::default();
    let mut unexplained = Vec::new();
    for ((text, (rust_strict, rust_lenient)), java) in texts.iter().zip(&expected).zip(&results) {
        tally.compare(text, *rust_strict, rust_lenient, java, &mut unexplained);
    }

    // The inputs hold ~300 MB of long texts; keep them only for a failure.
    if unexplained.is_empty() {
        let _ = std::fs::remove_dir_all(&work);
    }
    println!(
        "jackson differential against Jackson 3 through the real parseJsonToMap ({}): {} texts \
         compared, {} unexplained mismatches ({} corpus lines skipped: raw lone surrogates \
         cannot be a Rust &str); strict verdicts: {} equal, {} differ by design on length \
         limits, {} on escaped lone surrogates; times: build {:.1}s, texts {:.1}s, written \
         {:.1}s, model {:.1}s and java {:.1}s in parallel, total {:.1}s",
        jackson_versions(&classpath),
        texts.len(),
        unexplained.len(),
        skipped,
        tally.strict_same,
        tally.strict_limits,
        tally.strict_surrogates,
        built.as_secs_f64(),
        (generated - built).as_secs_f64(),
        (written - generated).as_secs_f64(),
        rust_time.as_secs_f64(),
        java_time.as_secs_f64(),
        started.elapsed().as_secs_f64()
    );
    if !unexplained.is_empty() {
        let mut report = String::new();
        for (what, text, rust, java) in unexplained.iter().take(40) {
            let _ = writeln!(
                report,
                "{what} of {}\n  rust: {}\n  java: {}",
                shorten(&format!("{text:?}")),
                shorten(rust),
                shorten(java)
            );
        }
        panic!(
            "{} unexplained mismatches (inputs kept in {}), first ones:\n{report}",
            unexplained.len(),
            work.display()
        );
    }
}

/// The model's answers, `(strict verdict, LENIENT field)` per text, on
/// every core (Java needs one only until it is done). `is_strict_json` is
/// `read_strict(..).is_some()` without the tree (`strict_reader_consistency`
/// checks that on every text).
fn model_answers(texts: &[String]) -> Vec<(bool, String)> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    // Longest first, each taken by the next free worker: the 100 MB texts
    // go to different cores.
    let mut order: Vec<usize> = (0..texts.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(texts[i].len()));
    let next = AtomicUsize::new(0);
    let mut out = vec![(false, String::new()); texts.len()];
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    let mut done = Vec::new();
                    while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                        let t = &texts[i];
                        done.push((i, is_strict_json(t), lenient_line(&read_lenient(t))));
                    }
                    done
                })
            })
            .collect();
        for w in workers {
            for (i, strict, lenient) in w.join().expect("model worker") {
                out[i] = (strict, lenient);
            }
        }
    });
    out
}

/// A mismatch: which comparison, the text, the model's answer, Java's.
type Mismatch<'a> = (&'static str, &'a str, String, String);

#[derive(Default)]
struct Tally {
    strict_same: usize,
    strict_limits: usize,
    strict_surrogates: usize,
}

impl Tally {
    /// One probe line (`STRICT LENIENT`) against the model's answers.
    fn compare<'a>(
        &mut self,
        text: &'a str,
        rust_strict: bool,
        rust_lenient: &str,
        java: &str,
        unexplained: &mut Vec<Mismatch<'a>>,
    ) {
        let (java_strict, java_lenient) = java.split_once(' ').unwrap_or((java, ""));
        if rust_lenient != java_lenient {
            unexplained.push((
                "parseJsonToMap",
                text,
                rust_lenient.to_owned(),
                java_lenient.to_owned(),
            ));
        }
        match strict_verdict(text, rust_strict, java_strict) {
            Some(StrictAgreement::Same) => self.strict_same += 1,
            Some(StrictAgreement::Limits) => self.strict_limits += 1,
            Some(StrictAgreement::LoneSurrogate) => self.strict_surrogates += 1,
            None => unexplained.push((
                "strict verdict",
                text,
                if rust_strict { "+" } else { "-" }.to_owned(),
                java_strict.to_owned(),
            )),
        }
    }
}

enum StrictAgreement {
    Same,
    /// The model's strict reader has no length limits; Jackson's refused
    /// the text for one, and the model's lenient reader hits it too.
    Limits,
    /// The model's strict reader refuses an escaped lone surrogate, which
    /// Jackson reads into a Java string.
    LoneSurrogate,
}

fn strict_verdict(text: &str, rust: bool, java: &str) -> Option<StrictAgreement> {
    match (rust, java) {
        (true, "+") => Some(StrictAgreement::Same),
        (false, j) if j.starts_with('-') => Some(StrictAgreement::Same),
        (true, "-StreamConstraintsException")
            if matches!(
                read_lenient(text),
                Err(JacksonError {
                    class: "StreamConstraintsException",
                    ..
                })
            ) =>
        {
            Some(StrictAgreement::Limits)
        }
        (false, "+") if has_lone_surrogate_escape(text) => Some(StrictAgreement::LoneSurrogate),
        _ => None,
    }
}

/// Whether a string (value or key) of `text`, a text Jackson accepted as
/// whole JSON, holds a `\uXXXX` surrogate escape that is not half of a pair.
fn has_lone_surrogate_escape(text: &str) -> bool {
    let b = text.as_bytes();
    let unit = |i: usize| -> Option<u16> {
        let hex = std::str::from_utf8(b.get(i..i + 4)?).ok()?;
        u16::from_str_radix(hex, 16).ok()
    };
    let mut i = 0;
    let mut in_string = false;
    // The high surrogate escape just read, waiting for its low half.
    let mut pending_high = false;
    while i < b.len() {
        let c = b[i];
        if !in_string {
            in_string = c == b'"';
            i += 1;
            continue;
        }
        if c == b'\\' && b.get(i + 1) == Some(&b'u') {
            let u = unit(i + 2).unwrap_or(0);
            let low = (0xdc00..0xe000).contains(&u);
            if pending_high != low {
                return true;
            }
            pending_high = (0xd800..0xdc00).contains(&u);
            i += 6;
            continue;
        }
        if pending_high {
            return true;
        }
        match c {
            b'\\' => i += 2,
            b'"' => {
                in_string = false;
                i += 1;
            }
            _ => i += 1,
        }
    }
    pending_high
}

/// `jackson-core X, jackson-databind Y` as found on a classpath.
fn jackson_versions(classpath: &str) -> String {
    let version = |artifact: &str| {
        classpath
            .split(':')
            .filter_map(|e| Path::new(e).file_name()?.to_str())
            .find_map(|f| {
                f.strip_prefix(&format!("{artifact}-"))?
                    .strip_suffix(".jar")
                    .filter(|v| v.starts_with('3'))
            })
            .unwrap_or("?")
            .to_owned()
    };
    format!(
        "jackson-core {}, jackson-databind {}",
        version("jackson-core"),
        version("jackson-databind")
    )
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

/// `convert`'s streaming path: for every text, what
/// `gemini::write_tool_response` writes (upstream: checked, then written
/// as read, no tree; a repeated name built) is byte for byte what the
/// conversion's payload writes (`Payload::write_compact` of the tree), or
/// the same failure, under every behaviour set that changes the conversion.
#[test]
fn streamed_conversion_is_byte_identical_to_the_tree() {
    use toolcall_model::gemini::{convert_tool_response, write_tool_response};
    use toolcall_model::model::{Fix, Fixes};
    let (texts, _) = all_texts();
    let sets = [
        Fixes::upstream(),
        Fixes::only(Fix::StrictJsonOrWrap),
        Fixes::only(Fix::ErrorKey),
    ];
    let (mut streamed, mut built) = (0usize, 0usize);
    for text in &texts {
        for (i, fixes) in sets.iter().enumerate() {
            // Every text for upstream, which streams; the fixed paths are
            // unchanged, a sample of them suffices.
            if i > 0 && text.len() > 1 << 16 {
                continue;
            }
            for error in [false, true] {
                let mut out = Vec::new();
                let got = write_tool_response(text, error, *fixes, &mut out)
                    .expect("a Vec takes any write");
                match convert_tool_response(text, error, *fixes) {
                    Ok(p) => {
                        let mut want = Vec::new();
                        p.write_compact(&mut want).unwrap();
                        assert!(got.is_ok(), "{}", shorten(&format!("{text:?}")));
                        assert!(out == want, "{}", shorten(&format!("{text:?}")));
                        if i == 0 && !error {
                            same_as_the_tree(text, &p, &want);
                        }
                    }
                    Err(e) => {
                        assert_eq!(got, Err(e), "{}", shorten(&format!("{text:?}")));
                        assert!(out.is_empty());
                    }
                }
            }
        }
        if toolcall_model::json::check_lenient(text) == Ok(true) {
            streamed += 1;
        } else {
            built += 1;
        }
    }
    println!("streamed conversion: {streamed} texts written as read, {built} built or refused");
    assert!(streamed > 1000 && built > 1000, "{streamed} {built}");
}

/// An upstream payload (kept as text where the reader found nothing to
/// build for) against the tree Jackson's reading builds: the same value,
/// written byte for byte as that tree, the same emptiness and the same
/// infinite-number flag.
fn same_as_the_tree(text: &str, p: &toolcall_model::gemini::Payload, written: &[u8]) {
    let read = read_lenient(text).expect("the conversion accepted it");
    let tree = match read.to_serde() {
        serde_json::Value::Object(m) => serde_json::Value::Object(m),
        other => serde_json::json!({ "result": other }),
    };
    let shown = || shorten(&format!("{text:?}"));
    assert!(
        written == serde_json::to_vec(&tree).unwrap().as_slice(),
        "{}",
        shown()
    );
    assert!(p.to_value() == tree, "{}", shown());
    assert_eq!(
        p.is_empty(),
        tree.as_object().is_some_and(|m| m.is_empty()),
        "{}",
        shown()
    );
    let mut stack = vec![&read];
    let mut infinite = false;
    while let Some(v) = stack.pop() {
        match v {
            JValue::Double(d) => infinite |= d.is_infinite(),
            JValue::Array(items) => stack.extend(items),
            JValue::Object(entries) => stack.extend(entries.iter().map(|(_, v)| v)),
            _ => {}
        }
    }
    assert_eq!(p.has_non_finite(), infinite, "{}", shown());
}

fn all_texts() -> (Vec<String>, usize) {
    let (corpus, skipped) = read_corpus();
    let mut texts = corpus.clone();
    generate(&corpus, &mut texts);
    (texts, skipped)
}

/// Corpus texts Rust can hold; a line whose text has a raw lone surrogate is
/// skipped (Jackson's answer for those is in docs/JSON.md; the model cannot be
/// asked).
fn read_corpus() -> (Vec<String>, usize) {
    let path = crate::support::root().join("tests/jackson_diff/corpus.txt");
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

/// One line for the probe: `text` between quotes with '"', '\\', CR and LF
/// escaped (the probe splits lines at CR and LF; other chars pass raw).
/// The escapes are found with `memchr` (`str::find` of a char), so the
/// 100,000,000-unit texts are written in a few runs.
fn write_literal(w: &mut impl Write, text: &str) -> std::io::Result<()> {
    const SPECIAL: [char; 4] = ['"', '\\', '\n', '\r'];
    let next = |from: usize, c: char| text[from..].find(c).map_or(text.len(), |i| from + i);
    let mut at = SPECIAL.map(|c| next(0, c));
    let mut run = 0;
    w.write_all(b"\"")?;
    loop {
        let (k, &i) = at
            .iter()
            .enumerate()
            .min_by_key(|&(_, i)| *i)
            .expect("four specials");
        w.write_all(&text.as_bytes()[run..i])?;
        if i == text.len() {
            break;
        }
        w.write_all(match SPECIAL[k] {
            '"' => b"\\\"",
            '\\' => b"\\\\",
            '\n' => b"\\n",
            _ => b"\\r",
        })?;
        run = i + 1;
        at[k] = next(run, SPECIAL[k]);
    }
    w.write_all(b"\"\n")
}

/// The probe's LENIENT field the model predicts: `parseJsonToMap` returns
/// Jackson's map for an object (`L`) and Spring's `{"result": value}`
/// wrapper for anything else (`H`), or throws with a Jackson 3 cause.
fn lenient_line(r: &Result<JValue, JacksonError>) -> String {
    match r {
        Ok(v @ JValue::Object(_)) => {
            let mut s = String::from("OK L");
            canon(v, &mut s);
            s
        }
        Ok(v) => {
            let mut s = String::from("OK H{s\"result\":");
            canon(v, &mut s);
            s.push('}');
            s
        }
        Err(e) => format!("ERR {}", e.class),
    }
}

/// Same canonical form as `JacksonProbe.canon`. Recursion is bounded by the
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

/// A long string prints as `s#LEN#HASH`: its UTF-16 length and the FNV-1a
/// 64 hash of its units (as `JacksonProbe.canonString`).
fn canon_string(s: &str, out: &mut String) {
    if s.len() > HASHED {
        let (mut len, mut h) = (0usize, 0xcbf2_9ce4_8422_2325_u64);
        if s.is_ascii() {
            len = s.len();
            for &b in s.as_bytes() {
                h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            }
        } else {
            for unit in s.encode_utf16() {
                len += 1;
                h = (h ^ u64::from(unit)).wrapping_mul(0x0100_0000_01b3);
            }
        }
        if len > HASHED {
            let _ = write!(out, "s#{len}#{h:016x}");
            return;
        }
    }
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

    // The name length limit (50,000 UTF-16 units); see `huge_texts` for strings.
    for n in [49_999usize, 50_000, 50_001] {
        out.push(format!("{{\"{}\":1}}", "k".repeat(n)));
        out.push(format!("{{\"{}\":1}}", "é".repeat(n)));
        out.push(format!("{{\"{}\":1}}", "😀".repeat(n / 2)));
        out.push(format!("{{\"a\":1,\"{}\\u0041\":1}}", "k".repeat(n - 1)));
    }
}

/// The string length limit (100,000,000 UTF-16 units), for the
/// differential only (~220 MB of text): a plain string at the limit; one
/// unit over it, with non-BMP chars (two units each) and an escape (one
/// unit for two chars), in an array; and one just over jackson-core 3.0's
/// limit (20,000,000), which 3.1 accepts.
fn huge_texts(out: &mut Vec<String>) {
    const LIMIT: usize = 100_000_000;
    let x = "x".repeat(LIMIT);
    out.push(format!("\"{x}\""));
    out.push(format!(
        "[\"{}{}\\n\"]",
        "😀".repeat(1000),
        &x[..LIMIT - 2000]
    ));
    out.push(format!("\"{}x\"", &x[..20_000_000]));
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
