use super::ident::{JAVA_IDENT_PART, is_java_identifier_part};
use super::*;

const SRE: &str = STREAM_READ;
const EOF: &str = UNEXPECTED_EOF;
const SCE: &str = CONSTRAINTS;
const MIE: &str = MISMATCHED;

fn ok(text: &str) -> JValue {
    match read_lenient(text) {
        Ok(v) => v,
        Err(e) => panic!("{text:?} should be accepted, got {e}"),
    }
}

fn fails(text: &str) -> &'static str {
    match read_lenient(text) {
        Ok(v) => panic!("{text:?} should fail, got {v:?}"),
        Err(e) => e.class,
    }
}

fn int(s: &str) -> JValue {
    JValue::Int(s.to_owned())
}

fn string(s: &str) -> JValue {
    JValue::String(s.to_owned())
}

fn obj(entries: &[(&str, JValue)]) -> JValue {
    JValue::Object(
        entries
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect(),
    )
}

#[test]
fn a2_leading_whitespace() {
    assert_eq!(fails(""), MIE);
    assert_eq!(fails(" \t\n\r "), MIE);
    assert_eq!(ok(" \t\r\n 1"), int("1"));
    for bad in [
        "\u{b}1",
        "\u{c}1",
        "\u{0}1",
        "\u{1e}1",
        "\u{a0}1",
        "\u{2028}1",
        "\u{3000}1",
        "\u{200b}1",
        "\u{85}1",
    ] {
        assert_eq!(fails(bad), SRE, "{bad:?}");
    }
    assert_eq!(fails("\u{feff}{}"), SRE);
    assert_eq!(fails("\u{feff}"), SRE);
}

#[test]
fn a3_no_extensions() {
    for bad in [
        "/",
        "#",
        "/* c */ 1",
        "// c\n1",
        "# c\n1",
        "'abc'",
        "NaN",
        "Infinity",
        "-Infinity",
        "+INF",
        "+1",
        ".5",
        "-.5",
        "+",
    ] {
        assert!(read_lenient(bad).is_err(), "{bad:?}");
    }
    assert_eq!(fails("NaN"), SRE);
    assert_eq!(fails("-Infinity"), SRE);
    assert_eq!(fails("+1"), SRE);
    assert_eq!(fails("+"), EOF);
    assert_eq!(fails("+I"), EOF);
    assert_eq!(fails("-I"), EOF);
    assert_eq!(fails("+In"), SRE);
}

#[test]
fn a4_first_char_picks_kind() {
    for bad in [
        "]",
        "}",
        ",",
        ":",
        "abc",
        "Error: boom",
        "[ERROR] disk full",
    ] {
        assert!(read_lenient(bad).is_err(), "{bad:?}");
    }
    assert_eq!(fails("]"), SRE);
    assert_eq!(fails("[ERROR] disk full"), SRE);
    assert_eq!(
        fails("Tool call limit (1) exceeded for tool 'x'. Do not call it again."),
        SRE
    );
    assert_eq!(fails("Success"), SRE);
}

#[test]
fn a5_containers_then_anything() {
    let a1 = obj(&[("a", int("1"))]);
    for t in [
        "{\"a\":1} trailing",
        "{\"a\":1}trailing",
        "{\"a\":1}}",
        "{\"a\":1}{\"b\":2}",
        "{\"a\":1}{",
        "{\"a\":1}\u{0}",
        "{\"a\":1}/* c */",
    ] {
        assert_eq!(ok(t), a1, "{t:?}");
    }
    assert_eq!(ok("[1,2]x"), JValue::Array(vec![int("1"), int("2")]));
    assert_eq!(ok("[]]"), JValue::Array(vec![]));
    assert_eq!(
        ok(" { \"a\" : [ ] , \"b\" : { } } "),
        obj(&[("a", JValue::Array(vec![])), ("b", obj(&[]))])
    );
    for bad in [
        "[1,]",
        "[1,,2]",
        "[,1]",
        "{a:1}",
        "{1:2}",
        "{'a':1}",
        "[1/*c*/]",
        "[1,\u{b}2]",
        "{\"a\":1,}",
        "{\"a\"}",
        "{\"a\" 1}",
        "{\"a\":}",
        "[1 2]",
        "[}",
        "{]",
        "[1}",
        "{\"a\":1]",
        "[\"a\":1]",
        "{,}",
        "[#]",
        "{\"a\":#}",
        "[1\u{a0}]",
        "[nul]",
        "[True]",
        "[01]",
        "[1.]",
        "[-]",
        "[+1]",
        "[.5]",
        "[1x]",
        "[truex]",
        "[\"a\"\"b\"]",
    ] {
        assert_eq!(fails(bad), SRE, "{bad:?}");
    }
    for eof in [
        "[",
        "{",
        "[1",
        "[1 ",
        "{\"a\"",
        "{\"a\":",
        "{\"a\":1",
        "[\"abc",
        "{\"ab",
        "[-",
        "[1e",
        "{\"a\": 1 ",
    ] {
        assert_eq!(fails(eof), EOF, "{eof:?}");
    }
    // After a comma the end of input is a plain read error (_skipAfterComma2).
    assert_eq!(fails("[1,"), SRE);
    assert_eq!(fails("{\"a\":1, "), SRE);
}

#[test]
fn a6_root_strings() {
    assert_eq!(ok("\"abc\" def"), string("abc"));
    assert_eq!(ok("\"abc\"def"), string("abc"));
    assert_eq!(ok("\"abc\","), string("abc"));
    assert_eq!(ok("\"a\"\"b\""), string("a"));
    assert_eq!(ok("\"\""), string(""));
    assert_eq!(fails("\"abc"), EOF);
    assert_eq!(fails("\""), EOF);
}

#[test]
fn a7_root_literals() {
    for bad in ["True", "NULL", "nul", "tru", "fals", "nulL", "n"] {
        assert_eq!(fails(bad), SRE, "{bad:?}");
    }
    for t in [
        "null$",
        "null\u{0}",
        "null:",
        "null;",
        "null<",
        "null=",
        "null>",
        "null?",
        "null@",
        "null[",
        "null\\",
        "null^",
        "null{",
        "null|",
        "null~",
        "null`",
        "null]",
        "null}",
        "null\u{a0}",
        "null😀",
        "null\u{1d465}",
        "null pointer",
        "null$x",
        "null|x",
        "null\u{2028}",
    ] {
        assert_eq!(ok(t), JValue::Null, "{t:?}");
    }
    assert_eq!(ok("true\u{0}"), JValue::Bool(true));
    assert_eq!(ok("true/false"), JValue::Bool(true));
    assert_eq!(ok("true story"), JValue::Bool(true));
    assert_eq!(ok("false\t1"), JValue::Bool(false));
    for bad in [
        "nullable",
        "null1",
        "null_value",
        "null€",
        "null\u{7f}",
        "null\u{85}",
        "null\u{200b}",
        "null\u{feff}",
        "nullé",
        "null\u{ad}",
        "null\u{300}",
        "true1",
        "falsey",
    ] {
        assert_eq!(fails(bad), SRE, "{bad:?}");
    }
}

#[test]
fn a8_root_numbers() {
    for bad in [
        "01",
        "-01",
        "00",
        "1.",
        "42.",
        "1.e5",
        "5.",
        "--1",
        "- 1",
        "-a",
        "-NaN",
        "1. First item",
        "-.5",
    ] {
        assert_eq!(fails(bad), SRE, "{bad:?}");
    }
    for eof in ["42e", "42e+", "1.5e-", "-", "1E"] {
        assert_eq!(fails(eof), EOF, "{eof:?}");
    }
    for bad in [
        "42apples",
        "42,",
        "42}",
        "42]",
        "42/",
        "42-",
        "1.5.2",
        "2024-01-15",
        "12:30",
        "100%",
        "1,000",
        "0x1F",
        "42\u{b}",
        "42\u{a0}",
        "42\u{feff}",
        "42\u{0}",
        "42😀",
        "1e5x",
        "0.5x",
        "-0x",
    ] {
        assert_eq!(fails(bad), SRE, "{bad:?}");
    }
    assert_eq!(ok("3.0 + 5.0 = 8.0"), JValue::Double(3.0));
    assert_eq!(ok("42 apples"), int("42"));
    assert_eq!(ok("42 // c"), int("42"));
    assert_eq!(ok("42 \u{0}"), int("42"));
    assert_eq!(ok("42\n\u{0}garbage"), int("42"));
    assert_eq!(ok("42\r"), int("42"));
    assert_eq!(ok("42\t}"), int("42"));
    assert_eq!(ok("404 Not Found"), int("404"));
    assert_eq!(ok("1 000"), int("1"));
    assert_eq!(ok("1E5 units"), JValue::Double(100000.0));
    assert_eq!(ok("1e05"), JValue::Double(100000.0));
    assert_eq!(ok("0"), int("0"));
    assert_eq!(ok("0.5"), JValue::Double(0.5));
}

#[test]
fn a9_number_values() {
    assert_eq!(ok("-0"), int("0"));
    assert_eq!(ok("1.0"), JValue::Double(1.0));
    for (t, v) in [
        ("2147483647", "2147483647"),
        ("2147483648", "2147483648"),
        ("-9223372036854775808", "-9223372036854775808"),
        ("9223372036854775808", "9223372036854775808"),
        (
            "123456789012345678901234567890",
            "123456789012345678901234567890",
        ),
    ] {
        assert_eq!(ok(t), int(v));
    }
    assert_eq!(ok("1e400"), JValue::Double(f64::INFINITY));
    assert_eq!(ok("-1e400"), JValue::Double(f64::NEG_INFINITY));
    assert_eq!(ok("1.7976931348623159e308"), JValue::Double(f64::INFINITY));
    assert_eq!(ok("1.7976931348623157e308"), JValue::Double(f64::MAX));
    assert_eq!(
        ok(&format!("{}.5", "9".repeat(400))),
        JValue::Double(f64::INFINITY)
    );
    assert_eq!(ok("1e-400"), JValue::Double(0.0));
    assert_eq!(ok("1e99999999999999999999"), JValue::Double(f64::INFINITY));
    assert_eq!(ok("1e-99999999999999999999"), JValue::Double(0.0));
    for neg_zero in ["-0.0", "-0e0", "-1e-400"] {
        match ok(neg_zero) {
            JValue::Double(d) => assert!(d == 0.0 && d.is_sign_negative(), "{neg_zero}"),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(ok("0.1"), JValue::Double(0.1));
    assert_eq!(
        ok("2.2250738585072011e-308"),
        JValue::Double(2.225_073_858_507_201e-308)
    );
}

#[test]
fn a10_strings() {
    for bad in ["\"a\u{0}\"", "\"a\nb\"", "\"\t\"", "\"\u{1f}\""] {
        assert_eq!(fails(bad), SRE, "{bad:?}");
    }
    assert_eq!(
        ok("\"\u{7f}\u{85}\u{2028}\u{2029}\""),
        string("\u{7f}\u{85}\u{2028}\u{2029}")
    );
    assert_eq!(
        ok(r#""\"\\\/\b\f\n\r\t\u0041\u00e9\uABCD\uabcd""#),
        string("\"\\/\u{8}\u{c}\n\r\tAé\u{abcd}\u{abcd}")
    );
    for bad in [
        r#""\x""#,
        r#""\'""#,
        r#""\0""#,
        r#""\U0041""#,
        r#""\ ""#,
        r#""\u12""#,
        r#""\u12g4""#,
        r#""\é""#,
    ] {
        assert_eq!(fails(bad), SRE, "{bad:?}");
    }
    for eof in [r#""\"#, r#""\u12"#, r#""\u"#, r#""abc\n"#] {
        assert_eq!(fails(eof), EOF, "{eof:?}");
    }
    assert_eq!(ok(r#""\ud800""#), string("\u{FFFD}"));
    assert_eq!(ok(r#""\udc00\ud800""#), string("\u{FFFD}\u{FFFD}"));
    assert_eq!(ok(r#""\ud83d\ude00""#), string("😀"));
    assert_eq!(ok(r#""\ud83d\ud83d\ude00x""#), string("\u{FFFD}😀x"));
    assert_eq!(ok(r#""\ud83dx""#), string("\u{FFFD}x"));
    assert_eq!(ok(r#""\ud83d\n""#), string("\u{FFFD}\n"));
    assert_eq!(ok(r#"{"\udc00":1}"#), obj(&[("\u{FFFD}", int("1"))]));
}

#[test]
fn a11_duplicate_keys() {
    assert_eq!(
        ok(r#"{"a":1,"b":2,"a":3}"#),
        obj(&[("a", int("3")), ("b", int("2"))])
    );
    // Past the index threshold too.
    let mut text = String::from("{");
    for i in 0..40 {
        text.push_str(&format!("\"k{i}\":{i},"));
    }
    text.push_str("\"k3\":\"x\",\"k39\":null}");
    let JValue::Object(entries) = ok(&text) else {
        panic!()
    };
    assert_eq!(entries.len(), 40);
    assert_eq!(entries[3], ("k3".to_owned(), string("x")));
    assert_eq!(entries[39], ("k39".to_owned(), JValue::Null));
}

#[test]
fn a12_result_values() {
    assert_eq!(ok(r#"{"result":42}"#), obj(&[("result", int("42"))]));
    assert_eq!(ok("42"), int("42"));
    assert_eq!(ok("null"), JValue::Null);
    assert_eq!(ok("\"\""), string(""));
}

fn nested(depth: usize) -> String {
    "[".repeat(depth) + &"]".repeat(depth)
}

#[test]
fn a13_depth() {
    assert!(read_lenient(&nested(499)).is_ok());
    assert!(read_lenient(&nested(500)).is_ok());
    assert_eq!(fails(&nested(501)), SCE);
    assert_eq!(fails(&"[".repeat(501)), SCE);
    assert_eq!(fails(&"[".repeat(500)), EOF);
    // The 501st bracket fails before a later syntax error.
    assert_eq!(fails(&("[".repeat(501) + "x")), SCE);
    assert_eq!(fails(&("[".repeat(500) + "x")), SRE);
    assert_eq!(fails(&("[x".to_owned() + &"[".repeat(600))), SRE);
    let in_object = format!("{{\"a\":{}}}", nested(499));
    assert!(read_lenient(&in_object).is_ok());
    let too_deep = format!("{{\"a\":{}}}", nested(500));
    assert_eq!(fails(&too_deep), SCE);
    assert_eq!(fails(&"{\"a\":".repeat(501)), SCE);
    assert_eq!(fails(&"{\"a\":".repeat(500)), EOF);
    // No stack overflow on deep input, in any function.
    assert_eq!(fails(&"[".repeat(100_000)), SCE);
    assert_eq!(fails(&nested(100_000)), SCE);
    assert_eq!(read_strict(&nested(100_000)), None);
    assert!(!is_strict_json(&nested(100_000)));
    // The deepest tree can be cloned, compared, printed and dropped.
    let deep = ok(&nested(500));
    assert_eq!(deep.clone(), deep);
    assert!(format!("{deep:?}").len() > 1000);
    drop(deep);
    // Jackson 2's limit: 1000 deep reads, and the tree is cloned, compared
    // and dropped; 1001 fails.
    let deep = read_lenient_with(&nested(1000), &ReadConstraints::jackson_2()).unwrap();
    assert_eq!(deep.clone(), deep);
    drop(deep);
    assert_eq!(
        read_lenient_with(&nested(1001), &ReadConstraints::jackson_2())
            .unwrap_err()
            .class,
        SCE
    );
    // A larger configured depth is clamped to what the tree can afford.
    let limits = ReadConstraints {
        max_nesting_depth: 1_000_000,
        ..ReadConstraints::default()
    };
    assert_eq!(
        read_lenient_with(&nested(1001), &limits).unwrap_err().class,
        SCE
    );
}

#[test]
fn a13_number_length() {
    let d1000 = "9".repeat(1000);
    let d1001 = "9".repeat(1001);
    assert!(read_lenient(&d1000).is_ok());
    assert_eq!(fails(&d1001), SCE);
    assert_eq!(fails(&format!("-{d1001}")), SCE);
    assert!(read_lenient(&format!("-{d1000}")).is_ok());
    // The root-space check runs first.
    assert_eq!(fails(&format!("{d1001}x")), SRE);
    assert_eq!(fails(&format!("[{d1001}]")), SCE);
    // Floats: the slow path counts a missing part as -1.
    let f1000 = format!("1.{}", "5".repeat(1000));
    assert!(read_lenient(&f1000).is_ok());
    assert_eq!(fails(&format!("{f1000} ")), SCE);
    assert_eq!(fails(&format!("[{f1000}]")), SCE);
    assert_eq!(fails(&format!("{{\"a\":{f1000}}}")), SCE);
    assert!(read_lenient(&format!("1.{}", "5".repeat(999))).is_ok());
    assert!(read_lenient(&format!("1.{} ", "5".repeat(999))).is_ok());
    assert_eq!(fails(&format!("1.{}", "5".repeat(1001))), SCE);
    // A leading zero always takes the slow path.
    assert!(read_lenient(&format!("0.{} ", "5".repeat(1000))).is_ok());
    assert!(read_lenient(&format!("[0.{}]", "5".repeat(1000))).is_ok());
    assert_eq!(fails(&format!("[0.{}]", "5".repeat(1001))), SCE);
    // Both parts present: exact count.
    assert_eq!(fails(&format!("1.{}e5", "5".repeat(999))), SCE);
    assert!(read_lenient(&format!("1.{}e5", "5".repeat(998))).is_ok());
    // Exponent without fraction.
    assert!(read_lenient(&format!("{}e5", "5".repeat(996))).is_ok());
    assert!(read_lenient(&format!("{}e5", "5".repeat(1000))).is_ok());
    assert_eq!(fails(&format!("{}e5 ", "5".repeat(1000))), SCE);
    assert!(read_lenient(&format!("{}e5 ", "5".repeat(999))).is_ok());
}

#[test]
fn a13_number_length_across_reader_chunks() {
    // Texts over 32,768 units are read in 4,000-unit chunks: a float
    // touching a chunk end takes the slow path, one inside a chunk not.
    let f = format!("1.{}", "5".repeat(1000));
    let pad_to = |n: usize| " ".repeat(n);
    let crossing = format!("[{}{f}  ]{}", pad_to(4000 - 1 - 500), pad_to(40_000));
    assert!(read_lenient(&crossing).is_ok());
    let inside = format!("[{}{f}  ]{}", pad_to(10), pad_to(40_000));
    assert_eq!(fails(&inside), SCE);
    // Ends exactly at the chunk end: the fast scan needs the next char.
    let touching = format!("[{}{f}  ]{}", pad_to(4000 - 1 - f.len()), pad_to(40_000));
    assert!(read_lenient(&touching).is_ok());
    let one_short = format!("[{}{f}  ]{}", pad_to(4000 - 2 - f.len()), pad_to(40_000));
    assert_eq!(fails(&one_short), SCE);
    // Non-ASCII before the number shifts UTF-16 offsets, not byte offsets.
    let wide = format!(
        "[\"{}\",{f}  ]{}",
        "é".repeat(4000 - 4 - 500),
        pad_to(40_000)
    );
    assert!(read_lenient(&wide).is_ok());
}

#[test]
fn a13_string_and_name_length() {
    // jackson-core 3.1 (3.0 had 20,000,000).
    assert_eq!(ReadConstraints::default().max_string_length, 100_000_000);
    let s = "x".repeat(20_000_001);
    assert_eq!(ok(&format!("\"{s}\"")), JValue::String(s.clone()));
    // The rules at a small limit (the differential checks the real one).
    let limits = ReadConstraints {
        max_string_length: 2000,
        ..ReadConstraints::default()
    };
    let fails_with = |t: &str| read_lenient_with(t, &limits).unwrap_err().class;
    let s = "x".repeat(2000);
    assert!(read_lenient_with(&format!("\"{s}\""), &limits).is_ok());
    assert_eq!(fails_with(&format!("\"{s}x\"")), SCE);
    assert_eq!(fails_with(&format!("\"{s}\\n\"")), SCE);
    // Non-BMP chars count two units each.
    let pairs = "😀".repeat(1000);
    assert!(read_lenient_with(&format!("\"{pairs}\""), &limits).is_ok());
    assert_eq!(fails_with(&format!("\"{pairs}x\"")), SCE);
    drop((s, pairs));
    let name = "k".repeat(50_000);
    assert!(read_lenient(&format!("{{\"{name}\":1}}")).is_ok());
    assert_eq!(fails(&format!("{{\"{name}k\":1}}")), SCE);
    assert_eq!(fails(&format!("{{\"{name}\\u0041\":1}}")), SCE);
    assert!(read_lenient(&format!("{{\"{}\":1}}", "é".repeat(50_000))).is_ok());
    assert_eq!(fails(&format!("{{\"{}\":1}}", "😀".repeat(25_001))), SCE);
    assert!(read_lenient(&format!("{{\"{}\":1}}", "😀".repeat(25_000))).is_ok());
    // Checked when the name is complete, before the colon.
    assert_eq!(fails(&format!("{{\"{name}k\" x")), SCE);
}

#[test]
fn big_inputs_do_not_crash() {
    let spaces = " ".repeat(100_000_000) + "1";
    assert_eq!(ok(&spaces), int("1"));
    let long = format!("\"{}", "a".repeat(100_000_001));
    assert_eq!(fails(&long), SCE);
    let many = format!("[{}0]", "0,".repeat(1_000_000));
    let JValue::Array(items) = ok(&many) else {
        panic!()
    };
    assert_eq!(items.len(), 1_000_001);
}

#[test]
fn identifier_table_spot_checks() {
    for (c, part) in [
        ('0', true),
        ('a', true),
        ('_', true),
        ('$', true),
        ('\u{7f}', true),
        ('\u{85}', true),
        ('\u{a0}', false),
        ('\u{a2}', true),
        ('\u{ad}', true),
        ('\u{b2}', false),
        ('\u{b5}', true),
        ('\u{d7}', false),
        ('€', true),
        ('\u{200b}', true),
        ('\u{200f}', true),
        ('\u{202a}', true),
        ('\u{2060}', true),
        ('\u{feff}', true),
        ('\u{203f}', true),
        ('\u{2040}', true),
        ('\u{300}', true),
        (':', false),
        ('~', false),
        ('\u{2028}', false),
        ('\u{3000}', false),
        ('中', true),
    ] {
        assert_eq!(is_java_identifier_part(c as u16), part, "{c:?}");
    }
    for u in 0xD800..=0xDFFFu16 {
        assert!(!is_java_identifier_part(u));
    }
    assert!(JAVA_IDENT_PART.windows(2).all(|w| w[0].1 < w[1].0));
}

#[test]
fn to_serde_forms() {
    let v = ok(
        r#"{"i":-12,"big":123456789012345678901234567890,"d":3.0,"z":-0.0,"inf":-1e999,"s":"x","n":null,"b":[true,{}]}"#,
    );
    let text = serde_json::to_string(&v.to_serde()).unwrap();
    assert_eq!(
        text,
        r#"{"i":-12,"big":123456789012345678901234567890,"d":3.0,"z":-0.0,"inf":"-Infinity","s":"x","n":null,"b":[true,{}]}"#
    );
    assert_eq!(ok("[1e999]").to_serde(), serde_json::json!(["Infinity"]));
    let deep = ok(&nested(500));
    let mut depth = 0;
    let mut cur = &deep.to_serde();
    while let serde_json::Value::Array(items) = cur {
        depth += 1;
        match items.first() {
            Some(next) => cur = next,
            None => break,
        }
    }
    assert_eq!(depth, 500);
    assert_eq!(
        JValue::Double(f64::NAN).to_serde(),
        serde_json::json!("NaN")
    );
    assert_eq!(JValue::Int("x".into()).to_serde(), serde_json::json!("x"));
    // Every finite double reads back as a float with the same bits.
    for d in [0.1, 1.0, 1e21, 1e-7, 5e-324, f64::MAX, -2.5, 123456789.0] {
        let s = serde_json::to_string(&JValue::Double(d).to_serde()).unwrap();
        assert!(s.contains('.') || s.contains('e'), "{s}");
        assert_eq!(s.parse::<f64>().unwrap().to_bits(), d.to_bits());
    }
}

#[test]
fn strict_examples() {
    assert_eq!(read_strict("42"), Some(int("42")));
    assert_eq!(
        read_strict(" \t\n\r{\"a\":[1]} \r\n"),
        Some(obj(&[("a", JValue::Array(vec![int("1")]))]))
    );
    assert_eq!(
        read_strict("{\"a\":1,\"a\":2}"),
        Some(obj(&[("a", int("2"))]))
    );
    assert_eq!(read_strict("1e400"), Some(JValue::Double(f64::INFINITY)));
    assert_eq!(read_strict(&"9".repeat(5000)), Some(int(&"9".repeat(5000))));
    for bad in [
        "",
        " ",
        "3.0 + 5.0 = 8.0",
        "42 apples",
        "null pointer",
        "\"a\"\"b\"",
        "{\"a\":1} x",
        "[1,]",
        "01",
        "1.",
        "\u{feff}1",
        "1\u{a0}",
        "\u{b}1",
        "\"\\ud800\"",
        "\"\\udc00\"",
        "\"\\ud800\\u0041\"",
        "\"\\ud800x\"",
        "{\"\\ud800\":1}",
        "nullx",
        "null]",
        "[1]]",
        "+1",
        "'a'",
        "NaN",
        "[1 2]",
        "{\"a\"}",
        "\"a\nb\"",
    ] {
        assert_eq!(read_strict(bad), None, "{bad:?}");
        assert!(!is_strict_json(bad), "{bad:?}");
    }
    assert!(read_strict(&nested(500)).is_some());
    assert!(is_strict_json(&nested(500)));
    assert!(read_strict(&nested(501)).is_none());
    assert!(!is_strict_json(&nested(501)));
}

/// Deterministic xorshift so failures reproduce.
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
}

fn random_text(rng: &mut Rng) -> String {
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
        "\"",
        "\\",
        "\"a\"",
        "\"\\u0041\"",
        "\\ud800",
        "\\udc00",
        "\\u",
        "0",
        "1",
        "-",
        ".",
        "e",
        "E",
        "+",
        "12",
        "true",
        "false",
        "null",
        "x",
        "é",
        "😀",
        "\u{0}",
        "\u{1f}",
        "/",
        "#",
        "\"k\":",
        "{\"k\":1,",
        "\"k\":0}",
        "1.5",
        "\\n",
        "\\\"",
        "00",
        "\r",
    ];
    let n = rng.below(12);
    (0..n).map(|_| PIECES[rng.below(PIECES.len())]).collect()
}

/// Floats compared by value: serde_json keeps their source text.
fn normalize(v: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match v {
        Value::Number(n) if n.to_string().contains(['.', 'e', 'E']) => {
            let d: f64 = n.to_string().parse().unwrap();
            if d.is_finite() {
                Value::from(d)
            } else {
                Value::String(if d > 0.0 { "Infinity" } else { "-Infinity" }.to_owned())
            }
        }
        // Jackson reads -0 as Integer 0.
        Value::Number(n) if n.to_string() == "-0" => Value::from(0),
        Value::Array(items) => Value::Array(items.iter().map(normalize).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), normalize(v))).collect())
        }
        other => other.clone(),
    }
}

#[test]
fn strict_validator_agrees_with_strict_reader_and_serde() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut accepted = 0;
    let mut plain = 0;
    for _ in 0..300_000 {
        let text = random_text(&mut rng);
        let strict = read_strict(&text);
        assert_eq!(is_strict_json(&text), strict.is_some(), "{text:?}");
        let serde = serde_json::from_str::<serde_json::Value>(&text).ok();
        assert_eq!(strict.is_some(), serde.is_some(), "{text:?}");
        if let (Some(v), Some(s)) = (&strict, &serde) {
            accepted += 1;
            assert_eq!(normalize(&v.to_serde()), normalize(s), "{text:?}");
        }
        if strict.is_some() {
            // One whole value is also what the lenient reader reads.
            assert_eq!(read_lenient(&text).ok(), strict, "{text:?}");
        }
        let shape = strict_shape(&text);
        assert_eq!(shape == StrictShape::Invalid, strict.is_none(), "{text:?}");
        if let StrictShape::Object { plain: true } | StrictShape::Value { plain: true } = shape {
            plain += 1;
            assert_eq!(
                matches!(strict, Some(JValue::Object(_))),
                matches!(shape, StrictShape::Object { .. }),
                "{text:?}"
            );
            let distinct = serde_json::from_str::<DistinctCheck>(&text).unwrap();
            assert!(distinct.0, "{text:?} has a repeated key");
        }
    }
    assert!(accepted > 1000, "{accepted}");
    assert!(plain > 20, "{plain}");
}

/// A reference for "no object repeats a key", by decoded key, through
/// serde's visitor (which sees every key, repeats included).
struct DistinctCheck(bool);

impl<'de> serde::Deserialize<'de> for DistinctCheck {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = DistinctCheck;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("any JSON")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut m: A,
            ) -> Result<DistinctCheck, A::Error> {
                let mut keys: Vec<String> = Vec::new();
                let mut ok = true;
                while let Some(k) = m.next_key::<String>()? {
                    ok &= !keys.contains(&k);
                    keys.push(k);
                    ok &= m.next_value::<DistinctCheck>()?.0;
                }
                // arbitrary_precision hands numbers over as a one-key map.
                Ok(DistinctCheck(ok))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut a: A,
            ) -> Result<DistinctCheck, A::Error> {
                let mut ok = true;
                while let Some(x) = a.next_element::<DistinctCheck>()? {
                    ok &= x.0;
                }
                Ok(DistinctCheck(ok))
            }
            fn visit_bool<E>(self, _: bool) -> Result<DistinctCheck, E> {
                Ok(DistinctCheck(true))
            }
            fn visit_str<E>(self, _: &str) -> Result<DistinctCheck, E> {
                Ok(DistinctCheck(true))
            }
            fn visit_unit<E>(self) -> Result<DistinctCheck, E> {
                Ok(DistinctCheck(true))
            }
            fn visit_u64<E>(self, _: u64) -> Result<DistinctCheck, E> {
                Ok(DistinctCheck(true))
            }
            fn visit_i64<E>(self, _: i64) -> Result<DistinctCheck, E> {
                Ok(DistinctCheck(true))
            }
            fn visit_f64<E>(self, _: f64) -> Result<DistinctCheck, E> {
                Ok(DistinctCheck(true))
            }
        }
        d.deserialize_any(V)
    }
}

#[test]
fn strict_shape_examples() {
    use StrictShape::*;
    const PLAIN_OBJECT: StrictShape = Object { plain: true };
    const OTHER: StrictShape = Object { plain: false };
    for (text, want) in [
        ("{}", PLAIN_OBJECT),
        (" { } ", PLAIN_OBJECT),
        (r#"{"a":{"a":1},"b":[{"a":1,"b":2}]}"#, PLAIN_OBJECT),
        (r#"{"a":1,"b":2,"a":3}"#, OTHER),
        (r#"{"x":{"a":1,"a":2}}"#, OTHER),
        (r#"{"\u0061":1,"a":2}"#, OTHER),
        (r#"{"a\n":1}"#, OTHER),
        ("[]", Value { plain: true }),
        ("[{\"a\":1,\"a\":1}]", Value { plain: false }),
        ("\"s\"", Value { plain: true }),
        ("{\"a\":1} x", Invalid),
        ("", Invalid),
    ] {
        assert_eq!(strict_shape(text), want, "{text:?}");
    }
    let many: String = format!(
        "{{{}}}",
        (0..40)
            .map(|i| format!("\"k{}\":{i}", i % 39))
            .collect::<Vec<_>>()
            .join(",")
    );
    assert_eq!(strict_shape(&many), OTHER);
    let distinct: String = format!(
        "{{{}}}",
        (0..40)
            .map(|i| format!("\"k{i}\":{i}"))
            .collect::<Vec<_>>()
            .join(",")
    );
    assert_eq!(strict_shape(&distinct), PLAIN_OBJECT);
}

#[test]
fn strict_validator_long_strings() {
    for n in 0..40 {
        let body: String = "ab\u{e9}\u{1f600}".chars().cycle().take(n).collect();
        for tail in ["", "\\n", "\\u00e9", "\\ud83d\\ude00"] {
            let text = format!("\"{body}{tail}{body}\"");
            assert!(is_strict_json(&text), "{text:?}");
            assert!(read_strict(&text).is_some());
            let bad = format!("\"{body}\u{1}{body}\"");
            assert!(!is_strict_json(&bad));
            let open = format!("\"{body}{tail}{body}");
            assert!(!is_strict_json(&open));
        }
    }
}

/// The check that drops string values (`check_lenient`, upstream's
/// conversion) fails exactly where and how the reader that decodes them
/// does: escapes, surrogates, control characters, lengths and the end of
/// input inside an escaped string.
#[test]
fn skipping_a_string_value_fails_as_decoding_it() {
    let bodies = [
        r"plain",
        r"a\nb",
        r#"q\"q"#,
        r"\u0041\u00e9",
        r"\uD83D\uDE00",
        r"\uD800",
        r"\uDC00x",
        r"\uD800\u0041",
        r"\x",
        r"\u12",
        r"\u12G4",
        "tab\there",
        "\\n\u{1}",
        r"\",
        r"ab\u",
        r"ab\uD83D",
    ];
    let long_escaped = format!("{}\\n", "x".repeat(20_000_000));
    let mut texts = Vec::new();
    for b in bodies.iter().copied().chain([long_escaped.as_str()]) {
        for (open, close) in [
            ("\"", "\""),
            ("{\"k\":\"", "\"}"),
            ("[1,\"", "\",2]"),
            ("\"", ""),
        ] {
            texts.push(format!("{open}{b}{close}"));
        }
        // As a name the string is decoded by both: they agree as well.
        texts.push(format!("{{\"{b}\":1,\"{b}\":2}}"));
    }
    let mut failures = 0;
    for text in &texts {
        let read = read_lenient(text).map(|_| ());
        let checked = check_lenient(text).map(|_| ());
        assert_eq!(checked, read, "{}", &text[..text.len().min(60)]);
        failures += usize::from(read.is_err());
    }
    // The list reaches both sides of every check.
    assert!(
        failures > 20 && failures < texts.len() - 10,
        "{failures} of {}",
        texts.len()
    );
}

/// The chunked count of UTF-16 units is Java's `String.length()`, across
/// chunk boundaries and for every width of character.
#[test]
fn utf16_len_counts_java_chars() {
    let pieces = ["a", "é", "€", "😀", "\u{7f}", "\u{10ffff}"];
    for n in [0, 1, 126, 127, 128, 300, 1000] {
        for p in pieces {
            for q in pieces {
                let s: String = std::iter::repeat_n(p, n).chain([q]).collect();
                assert_eq!(
                    super::lenient::utf16_len(s.as_bytes()),
                    s.encode_utf16().count(),
                    "{n} x {p:?} then {q:?}"
                );
            }
        }
    }
}
