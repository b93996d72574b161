#!/usr/bin/env python3
"""Writes corpus.txt: texts probing every rule of JACKSON.md section A, one JSON
string literal per line (ASCII only, so any text, control chars and lone
surrogates included, can be expressed). Run from this directory:

    python3 make_corpus.py > corpus.txt

The differential test (tests/jackson_diff.rs) reads corpus.txt and adds a few
thousand generated texts (mutations, random strings, long texts)."""

import json

texts = []


def add(*items):
    texts.extend(items)


# A.2 leading whitespace: every C0 control, DEL, C1 samples, Unicode spaces, BOM.
for c in list(range(0x00, 0x21)) + [0x7F, 0x85, 0xA0, 0x1680, 0x2000, 0x2007, 0x200B,
                                   0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF]:
    ch = chr(c)
    add(ch + "1", ch + "{}", ch, " " + ch + " []", ch + '"s"')
add("", " ", "\t", "\n", "\r", "\r\n", " \t\n\r", " \t\n\r1", "\n\n\n{}", "\r\r[1]",
    "\ufeff{}", "\ufeff[1]", "\ufeff\"a\"", "\ufeff1", "\ufeffnull", " \ufeff{}")

# A.3 no comments, single quotes, NaN/Infinity, leading '+' or '.'.
add("/", "//", "/*", "/* c */ 1", "/* c */1", "// c\n1", "# c\n1", "#", "#1", "/1",
    "'abc'", "'a'", "\"abc'", "NaN", "-NaN", "+NaN", "nan", "Infinity", "-Infinity",
    "+Infinity", "INF", "+INF", "-INF", "-inf", "+1", "+0", "+", "+I", "+IN", "+In",
    "+Inf", "-I", "-IN", "-In", "-Inf", "-Infinityx", ".5", "-.5", "+.5", ".", "-.",
    "-", "--1", "- 1", "-a", "-\n1", "-e5", "-0", "-00", "-01", "+-1", "0x10", "0b1",
    "1_000", "\"\\/\"", "[/* c */]", "[1 /* c */]", "{\"a\":1 // c\n}", "[#c\n1]")

# A.4 the first char picks the value kind; plain-text tool outputs.
add("]", "}", ",", ":", "x", "True", "TRUE", "False", "FALSE", "None", "nil",
    "undefined", "yes", "no", "ok", "OK", "Success", "success", "done", "Error",
    "error: something went wrong", "Error: ENOENT: no such file or directory",
    "[ERROR] disk full", "[WARN] low memory", "[INFO] started", "[1] item",
    "[x]", "{x}", "{ok}", "(1)", "<html></html>", "<?xml version=\"1.0\"?>",
    "404 Not Found", "500 Internal Server Error", "200 OK", "3.0 + 5.0 = 8.0",
    "2 + 2 = 4", "42", "42 apples", "Tool call limit (1) exceeded for tool 'x'. "
    "Do not call this tool again.",
    "Tool call limit (1) exceeded for tool 'weather'. You may call other tools.",
    "Total tool call limit (5) exceeded.", "The weather in Paris is 18°C.",
    "Temperature: 18C", "It's sunny", "\"quoted\" answer", "null pointer exception",
    "true story", "false alarm", "nullable", "NullPointerException",
    "java.lang.RuntimeException: boom", "Exception in thread \"main\"",
    "1. First item\n2. Second item", "1) First", "- item", "* item", "# Heading",
    "## Title", "| a | b |", "> quote", "`code`", "```json\n{}\n```", "~", "@user",
    "$100", "€5", "100%", "12:30", "2024-01-15", "2024-01-15T10:00:00Z", "1,000",
    "1 000", "1E5 units", "1e5", "0.5 probability", "-5 degrees", "-5°",
    "3 items found", "0 results", "0", "00", "007", "v1.2.3", "1.2.3", "192.168.0.1",
    "+33 1 23 45 67 89", "(555) 123-4567", "\u4f60\u597d", "\u00e9t\u00e9",
    "\U0001F600 smile", "OK.", "Done!", "{\"status\": \"ok\"}", "[\"a\", \"b\"]",
    "\"just a string\"", "{\"result\": 42}", "{\"error\": \"not found\"}")

# A.5 containers are read strictly, then anything may follow.
base = ["{\"a\":1}", "[1,2]", "[]", "{}", "[[]]", "{\"a\":{\"b\":[1,{\"c\":null}]}}"]
tails = [" trailing", "trailing", "}", "]", "]]", ",", ":", "x", "{", "[", "\u0000",
         "/* c */", "// c", "#", "\"", "'", "\u000b", "\ufeff", "\u00a0",
         " {\"b\":2}", "{\"b\":2}", "[3]", "null", "1", "\n\n\u0000garbage"]
for b in base:
    for t in tails:
        add(b + t)
add(" { \"a\" : [ ] , \"b\" : { } } ", "\t[\n1\r,\t2\n]\r", "{\"\":\"\"}", "[\"\"]",
    "[null,true,false,0,-0,1.5,\"s\",[],{}]", "{\"a\":[{\"b\":[{\"c\":[]}]}]}")
# Syntax errors inside containers.
add("[1,]", "[1,,2]", "[,1]", "[,]", "{,}", "{a:1}", "{1:2}", "{'a':1}", "{\"a\"}",
    "{\"a\" 1}", "{\"a\":}", "{\"a\"::1}", "{\"a\":1,}", "{\"a\":1,,\"b\":2}",
    "{\"a\":1 \"b\":2}", "[1 2]", "[1\n2]", "[}", "{]", "[1}", "{\"a\":1]", "[\"a\":1]",
    "[#]", "{\"a\":#}", "[1\u00a0]", "[\u00a01]", "[1\u000b]", "[\u000c]", "[1,\u000b2]",
    "[nul]", "[True]", "[01]", "[1.]", "[-]", "[+1]", "[.5]", "[1x]", "[truex]",
    "[true1]", "[null_]", "[\"a\"\"b\"]", "[1,\"a\"b]", "{\"a\":1}x", "{\"a\":tru}",
    "{\"a\":nul}", "{\"a\":\"b}", "{\"a\":\"b\"", "{\"a\":[1,2}", "{\"a\":{\"b\":1]}",
    "[{]", "[{}", "[[]", "[[],", "[[],]", "{\"a\":[],}", "[\"\\x\"]", "{\"\\x\":1}",
    "{\"a\u0000\":1}", "[\"a\u0001\"]", "{\"a\":1\"b\":2}", "[1]1", "[NaN]",
    "[Infinity]", "[-Infinity]", "['a']", "[/]", "[1/]", "{/}", "{\"a\"/:1}",
    "{\"a\":/1}", "[1,/]", "[\"a\"/]", "[\u0000]", "{\"a\":\u0000}", "[1,\u0000]")
# End of input inside containers (EOF classes differ by position).
add("[", "{", "[1", "[1 ", "[1,", "[1, ", "{\"a\"", "{\"a\" ", "{\"a\":", "{\"a\": ",
    "{\"a\":1", "{\"a\":1,", "{\"a\":1, ", "{\"a\":1 ", "[\"abc", "{\"ab", "[-", "[1e",
    "[1e+", "[1.", "[1.5e", "[t", "[tr", "[true", "[\"\\", "[\"\\u00", "{\"a\\",
    "[[", "[{", "{\"a\":[", "{\"a\":{", "[[1,[2", "[ \n", "{ \n", "[+", "[+I", "[-I")

# A.6 root strings end at their closing quote.
add("\"abc\" def", "\"abc\"def", "\"abc\",", "\"a\"\"b\"", "\"\"", "\"\"x", "\"abc",
    "\"", "\" ", "\"a\\\"", "\"a\\\"b\"", "\"x\"\u0000", "\"x\"}", "\"x\"]",
    "\"x\":1", "\"x\" : 1", "  \"padded\"  ", "\"tab\tinside\"", "\"nl\ninside\"")

# A.7 root literals and the one char after them.
follow = ["", " ", "\t", "\n", "\r", "\u0000", "\u0001", "\u001f", "!", "\"", "#", "$",
          "%", "&", "'", "(", ")", "*", "+", ",", "-", ".", "/", "0", "9", ":", ";",
          "<", "=", ">", "?", "@", "A", "Z", "[", "\\", "]", "^", "_", "`", "a", "z",
          "{", "|", "}", "~", "\u007f", "\u0080", "\u0085", "\u009f", "\u00a0",
          "\u00a1", "\u00a2", "\u00a5", "\u00a7", "\u00aa", "\u00ad", "\u00b2",
          "\u00b5", "\u00b7", "\u00ba", "\u00bf", "\u00c0", "\u00d7", "\u00e9",
          "\u00f7", "\u00ff", "\u0300", "\u0391", "\u0660", "\u06dd", "\u1680",
          "\u200b", "\u200c", "\u200d", "\u200e", "\u200f", "\u2028", "\u2029",
          "\u202a", "\u202e", "\u203f", "\u2040", "\u2060", "\u2064", "\u20ac",
          "\u2160", "\u3000", "\u3007", "\u4e2d", "\ufe33", "\ufeff", "\uff10",
          "\uff3f", "\ufffd", "\U0001F600", "\U0001D465", "\U00010000",
          "\ud800", "\udc00", "$x", "|x", " pointer", "1", "able", "_value"]
for lit in ["true", "false", "null"]:
    for f in follow:
        add(lit + f)
add("True", "NULL", "Null", "nul", "nu", "n", "tru", "t", "fals", "f", "nulL",
    "tRUE", "nuLL", "nnull", "null null", "truefalse", "null\u0000x", "false\t1",
    "true/false", "null:1", "null,", "[null]", "[true ]", "[false\n]", "{\"a\":null}")

# A.8 root number grammar and the root-space check.
nums = ["0", "-0", "1", "-1", "10", "123", "0.0", "-0.0", "0.5", "1.5", "-1.5",
        "1e5", "1E5", "1e+5", "1e-5", "1E-05", "1e05", "1e0", "0e0", "-0e0", "0e-0",
        "1.5e3", "1.5E+3", "2.5e-3", "9.999e999", "1e400", "-1e400", "1e-400"]
for n in nums:
    add(n, n + " ", n + "\t", n + "\n", n + "\r", n + "  x", n + "\n\u0000", n + "x",
        n + ",", n + "}", n + "]", n + "/", n + "-", n + "+", n + ".", n + ":",
        n + "\u000b", n + "\u00a0", n + "\ufeff", n + "\u0000", n + "\U0001F600")
add("01", "-01", "00", "00.5", "0.", "1.", "42.", "1.e5", "5.", "-5.", "1.x",
    "42e", "42e+", "42e-", "1.5e-", "1ex", "1e+x", "1e-", "1E", "1.5.2", "1..5",
    "1.5e5.5", "1e5e5", "2024-01-15", "12:30", "100%", "1,000", "0x1F", "-0x1",
    "0b101", "1_000", "1 000", "42 apples", "42 // c", "42 \u0000", "42\n\u0000garbage",
    "404 Not Found", "1E5 units", "3.0 + 5.0 = 8.0", "1. First item", "-",
    "- 1", "-a", "--1", "-NaN", "-Infinity", "-I", "\ud800", "42\ud800",
    "1\udc00", "0.5\ud800", "1e5\ud83d\ude00")

# A.9 number values: Integer/Long/BigInteger boundaries, doubles.
add("2147483647", "2147483648", "-2147483648", "-2147483649", "9223372036854775807",
    "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
    "1000000000000000000", "999999999999999999", "1234567890123456789",
    "-1234567890123456789", "18446744073709551615", "18446744073709551616",
    "123456789012345678901234567890", "-123456789012345678901234567890",
    "1.0", "-1.0", "3.0", "0.1", "0.2", "0.30000000000000004", "1e23",
    "8.98846567431158e307", "1.7976931348623157e308", "1.7976931348623158e308",
    "1.7976931348623159e308", "-1.7976931348623159e308", "2.2250738585072011e-308",
    "2.2250738585072012e-308", "4.9e-324", "5e-324", "2.4703282292062327e-324",
    "2.4703282292062328e-324", "1e-324", "-1e-400", "9007199254740993",
    "9007199254740993.0", "9007199254740993e0", "123456789012345678901234567890.0",
    "0.000001", "1e-7", "1E21", "1e22", "12345e-10", "1e99999999999999999999",
    "1e-99999999999999999999", "0e99999999999999999999",
    "9" * 400 + ".5", "-" + "9" * 400 + ".5", "0." + "0" * 400 + "1",
    "1" + "0" * 308, "1" + "0" * 309 + ".0", "[1.0, 2, 3.5e1, -0, -0.0]")

# A.10 strings: escapes, control chars, surrogates (escaped and raw).
add("\"a\u0000\"", "\"a\nb\"", "\"\t\"", "\"\u001f\"", "\"\u007f\u0085\u2028\u2029\"",
    r'"\"\\\/\b\f\n\r\t"', r'"\u0041\u00e9\uABCD\uabcd\u0000"', r'"\x"', r"'\''",
    r'"\'"', r'"\0"', r'"\U0041"', '"\\ "', r'"\u12"', r'"\u12g4"', r'"\u"',
    '"\\\u00e9"', '"\\', r'"\u12', r'"\u', r'"abc\n', r'"\ud800"', r'"\udc00\ud800"',
    r'"\ud83d\ude00"', r'"\ud83d\ud83d\ude00x"', r'"\ud83dx"', r'"\ud83d\n"',
    r'"\uDBFF\uDFFF"', r'"\uD800\uDC00"', r'{"\udc00":1}', r'{"\ud83d\ude00":1}',
    r'["\ud800", "\ude00"]', "\"\ud800\"", "\"a\udc00b\"", "{\"\ud800\":1}",
    "\"\U0001F600\"", "\"\u00e9\u4e2d\U0001D465\"", '"' + "\\u0041" * 50 + '"',
    r'"\/\/"', r'"a\u000Ab"', r'"\u0022"', r'"\u005C"', r'"\uFFFF"', r'"\uFEFF"')

# A.11 duplicate keys keep the first position, last value.
add('{"a":1,"b":2,"a":3}', '{"a":1,"a":2}', '{"a":{"x":1},"a":[2]}',
    '{"a":1,"b":2,"c":3,"b":null}', '{"":1,"":2}', '{"a":1,"A":2,"a":3}',
    '{"\\u0061":1,"a":2}', '[{"a":1,"a":2},{"a":3}]',
    "{" + ",".join('"k%d":%d' % (i % 7, i) for i in range(40)) + "}")

# A.13 limits: depth 499/500/501, number length 1000/1001 and the float quirk.
for d in [1, 2, 499, 500, 501, 502]:
    add("[" * d + "]" * d, "[" * d, "[" * d + "x", "[" * d + "]" * d + "garbage")
    add('{"a":' * d + "1" + "}" * d, '{"a":' * d)
add('{"a":' + "[" * 499 + "]" * 499 + "}", '{"a":' + "[" * 500 + "]" * 500 + "}",
    "[x" + "[" * 600, "[" * 500 + "x", "[" * 501 + "]", "[1," * 500 + "2" + "]" * 500,
    "[1," * 501 + "2" + "]" * 501, "[{\"a\":" * 250 + "1" + "}]" * 250,
    "[{\"a\":" * 251 + "1" + "}]" * 251)
d1000, d1001 = "9" * 1000, "9" * 1001
f1000 = "1." + "5" * 1000
add(d1000, d1001, "-" + d1000, "-" + d1001, d1001 + "x", d1000 + " ", d1001 + " ",
    "[" + d1000 + "]", "[" + d1001 + "]", '{"a":' + d1001 + "}",
    f1000, f1000 + " ", "[" + f1000 + "]", '{"a":' + f1000 + "}", f1000 + "x",
    "1." + "5" * 999, "1." + "5" * 999 + " ", "1." + "5" * 1001,
    "0." + "5" * 1000, "0." + "5" * 1000 + " ", "[0." + "5" * 1000 + "]",
    "[0." + "5" * 1001 + "]", "0." + "5" * 1001, "-0." + "5" * 1000 + " ",
    "1." + "5" * 998 + "e5", "1." + "5" * 999 + "e5", "1." + "5" * 997 + "e5 ",
    "5" * 996 + "e5", "5" * 1000 + "e5", "5" * 1000 + "e5 ", "5" * 999 + "e5 ",
    "[" + "5" * 1000 + "e5]", "[" + "5" * 999 + "e5]", "5" * 999 + "e+5",
    "5" * 1000 + "E-5", "1." + "0" * 1000, "1." + "0" * 1000 + "e0",
    "1e" + "0" * 999, "1e" + "0" * 1000, "1e" + "0" * 1000 + " ",
    "0e" + "0" * 1000 + " ", "-0." + "0" * 1000, d1000 + ".5", d1000 + ".5 ",
    "[1, " + f1000 + ", 2]", "[" + f1000 + "," + f1000 + "]")
# Name length 50,000 (Jackson 3 only) and a string under the 20M limit.
add('{"' + "k" * 50000 + '":1}', '{"' + "k" * 50001 + '":1}',
    '{"' + "k" * 50001 + '"', '["' + "s" * 100000 + '"]')

for t in texts:
    print(json.dumps(t, ensure_ascii=True))
