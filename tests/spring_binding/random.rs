//! Random `application.properties` and `application.yml` files for the
//! binding differential: every `spring.ai.tools` key in its relaxed
//! spellings, values Spring converts and refuses (numbers past `int`,
//! decimals, hex, underscores, enum spellings, YAML 1.1 booleans, quoted and
//! typed scalars), map keys with dots, brackets and non-ASCII letters,
//! indexed and comma lists, placeholders with and without defaults,
//! comments, several documents, `spring.config.activate.on-profile` and
//! `spring.profiles.active`. A seeded generator, so a disagreement names a
//! file that can be made again.

pub use crate::support::Rng;

const INTS: &[&str] = &[
    "3",
    "0",
    "-1",
    "1",
    "7",
    " 4 ",
    "+5",
    "2147483647",
    "2147483648",
    "-2147483649",
    "1.0",
    "1_000",
    "0x10",
    "",
    "abc",
    "010",
    "1e3",
    "99999999999999999999",
    "-0",
    "2 ",
    "${n}",
    "${missing:6}",
    "${n:2}",
    "#{1}",
];
const ENUMS: &[&str] = &[
    "THROW",
    "RETURN_ERROR_RESPONSE",
    "throw",
    "return-error-response",
    "return_error_response",
    "Return-Error-Response",
    "0",
    "1",
    "",
    "THROWS",
    " THROW",
    "returnErrorResponse",
    "${policy:THROW}",
    "RETURN ERROR RESPONSE",
];
const BOOLS: &[&str] = &[
    "true",
    "false",
    "TRUE",
    "yes",
    "on",
    "1",
    "0",
    "",
    "maybe",
    "off",
    "no",
    " true",
    "False",
    "${flag:true}",
];
const TOOLS: &[&str] = &[
    "search",
    "fetch",
    "getWeather",
    "a.b",
    "A",
    "x-y",
    "x_y",
    "ünï",
    "1",
    "a b",
    "[q]",
    "*",
];
const LISTS: &[&str] = &["a,b", " a , b ", "a,,b", "", ",", "listFiles", "[a]", "a;b"];
const PROFILES: &[&str] = &[
    "dev",
    "prod",
    "default",
    "!dev",
    "dev & prod",
    "dev | cloud",
    "default,dev",
    "(dev)",
    "!default",
    "a-b",
];
const ACTIVE: &[&str] = &["dev", "prod", "dev,prod", "", "cloud"];

/// One element in one of its relaxed spellings.
fn spelled(r: &mut Rng, part: &str) -> String {
    match r.below(10) {
        0..=6 => part.to_owned(),
        7 => {
            let mut words = part.split('-');
            let mut out = words.next().unwrap_or_default().to_owned();
            for w in words {
                let mut c = w.chars();
                if let Some(f) = c.next() {
                    out.extend(f.to_uppercase());
                    out.push_str(c.as_str());
                }
            }
            out
        }
        8 => part.replace('-', "_"),
        _ => part.replace('-', ""),
    }
}

fn key(r: &mut Rng, parts: &[&str]) -> String {
    let spelled: Vec<String> = parts.iter().map(|p| spelled(r, p)).collect();
    format!("spring.ai.tools.{}", spelled.join("."))
}

/// A `.properties` file.
pub fn properties(r: &mut Rng) -> String {
    let mut lines: Vec<String> = Vec::new();
    for _ in 0..1 + r.below(9) {
        let sep = r.pick(&["=", "=", "=", ": ", " = ", " "]);
        let (k, v): (String, String) = match r.below(100) {
            0..=14 => (
                key(r, &["limits", "max-calls-per-tool-default"]),
                r.pick(INTS).into(),
            ),
            15..=27 => (
                key(r, &["limits", "max-total-tool-calls"]),
                r.pick(INTS).into(),
            ),
            28..=42 => (
                key(r, &["limits", "on-limit-exceeded"]),
                r.pick(ENUMS).into(),
            ),
            43..=57 => {
                let base = key(r, &["limits", "max-calls-per-tool"]);
                let t = r.pick(TOOLS);
                let k = match r.below(10) {
                    0..=4 => format!("{base}.{t}"),
                    5..=8 => format!("{base}[{t}]"),
                    _ => base,
                };
                (k, r.pick(INTS).into())
            }
            58..=71 => {
                let base = key(r, &["limits", "excluded-tools"]);
                if r.chance(0.6) {
                    (base, r.pick(LISTS).into())
                } else {
                    let i = r.pick(&["0", "1", "2", "3", "0", "1"]);
                    (format!("{base}[{i}]"), r.pick(TOOLS).into())
                }
            }
            72..=77 => (key(r, &["throw-exception-on-error"]), r.pick(BOOLS).into()),
            78..=81 => (
                key(r, &["resolution", "fallback", "enabled"]),
                r.pick(BOOLS).into(),
            ),
            82..=83 => (
                key(r, &["observations", "include-content"]),
                r.pick(BOOLS).into(),
            ),
            84..=87 => (
                r.pick(&["n", "policy", "flag"]).into(),
                r.pick(&["2", "THROW", "true", "RETURN_ERROR_RESPONSE", "x"])
                    .into(),
            ),
            88..=90 => (
                format!(
                    "spring.ai.tools.limits.{}",
                    r.pick(&["unknown", "max-calls", "foo.bar"])
                ),
                r.pick(&["1", "x"]).into(),
            ),
            91..=93 => {
                lines.push(r.pick(&["# comment", "! bang", "", "   "]).into());
                continue;
            }
            94..=96 => ("spring.profiles.active".into(), r.pick(ACTIVE).into()),
            _ => {
                lines.push("#---".into());
                if r.chance(0.8) {
                    lines.push(format!(
                        "spring.config.activate.on-profile={}",
                        r.pick(PROFILES)
                    ));
                }
                continue;
            }
        };
        // The escapes `.properties` allows: a continuation line, a
        // `\uXXXX` letter, an escaped separator in the value.
        let v = match r.below(20) {
            0 if v.chars().count() > 1 => {
                let cut = v.char_indices().nth(1).map_or(v.len(), |(i, _)| i);
                format!("{}\\\n    {}", &v[..cut], &v[cut..])
            }
            1 => v.replacen('e', "\\u0065", 1),
            2 => format!("{v}\\:x"),
            _ => v,
        };
        let k = if r.below(20) == 0 {
            k.replacen('o', "\\u006f", 1)
        } else {
            k
        };
        lines.push(format!("{k}{sep}{v}"));
    }
    let mut text = lines.join("\n");
    if r.chance(0.9) {
        text.push('\n');
    }
    text
}

/// A YAML scalar: plain when YAML reads it back as written, else quoted.
fn scalar(r: &mut Rng, v: &str) -> String {
    if v.is_empty() {
        return r.pick(&["", "''", "\"\"", "~", "null"]).into();
    }
    let plain_ok = !v.starts_with(['#', '*', '&', '!', '%', '@', '`', '[', '{', ',', ' '])
        && !v.ends_with(' ')
        && !v.contains(": ")
        && !v.contains(" #");
    match r.below(10) {
        0..=5 if plain_ok => v.to_owned(),
        0..=7 => format!("'{}'", v.replace('\'', "''")),
        _ => format!("\"{}\"", v.replace('\\', "\\\\").replace('"', "\\\"")),
    }
}

enum Tree {
    Leaf(String),
    List(Vec<String>),
    Map(Vec<(String, Tree)>),
}

fn put(tree: &mut Vec<(String, Tree)>, path: &[String], leaf: Tree) {
    let Some((head, rest)) = path.split_first() else {
        return;
    };
    let at = match tree.iter().position(|(k, _)| k == head) {
        Some(i) => i,
        None => {
            tree.push((head.clone(), Tree::Map(Vec::new())));
            tree.len() - 1
        }
    };
    if rest.is_empty() {
        tree[at].1 = leaf;
        return;
    }
    if !matches!(tree[at].1, Tree::Map(_)) {
        tree[at].1 = Tree::Map(Vec::new());
    }
    if let Tree::Map(m) = &mut tree[at].1 {
        put(m, rest, leaf);
    }
}

fn emit(r: &mut Rng, tree: &[(String, Tree)], indent: usize, out: &mut Vec<String>) {
    let pad = " ".repeat(indent);
    for (k, v) in tree {
        let k = if !k.is_empty()
            && k.chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '.'))
        {
            k.clone()
        } else {
            format!("'{}'", k.replace('\'', "''"))
        };
        match v {
            Tree::Map(m) if m.is_empty() => out.push(format!("{pad}{k}: {{}}")),
            Tree::Map(m) => {
                out.push(format!("{pad}{k}:"));
                emit(r, m, indent + 2, out);
            }
            Tree::List(items) if items.is_empty() => out.push(format!("{pad}{k}: []")),
            Tree::List(items) => {
                if r.chance(0.3) {
                    let flow: Vec<String> = items
                        .iter()
                        .map(|x| {
                            if x.is_empty() {
                                "''".into()
                            } else {
                                scalar(r, x)
                            }
                        })
                        .collect();
                    out.push(format!("{pad}{k}: [{}]", flow.join(", ")));
                } else {
                    out.push(format!("{pad}{k}:"));
                    for x in items {
                        out.push(format!("{pad}  - {}", scalar(r, x)));
                    }
                }
            }
            Tree::Leaf(s) => {
                let s = scalar(r, s);
                if s.is_empty() {
                    out.push(format!("{pad}{k}:"));
                } else {
                    out.push(format!("{pad}{k}: {s}"));
                }
            }
        }
    }
}

/// `spring:` / `ai:` / `tools:` written as one key `spring.ai.tools`.
fn dotted(tree: Vec<(String, Tree)>) -> Vec<(String, Tree)> {
    let mut out = Vec::new();
    for (k, v) in tree {
        match v {
            Tree::Map(m) if k == "spring" => {
                for (k2, v2) in m {
                    match v2 {
                        Tree::Map(m2) if k2 == "ai" => {
                            for (k3, v3) in m2 {
                                out.push((format!("spring.ai.{k3}"), v3));
                            }
                        }
                        other => out.push((format!("spring.{k2}"), other)),
                    }
                }
            }
            other => out.push((k, other)),
        }
    }
    out
}

/// An `application.yml` of one to three documents.
pub fn yaml(r: &mut Rng) -> String {
    let mut out = Vec::new();
    let docs = r
        .pick(&["1", "1", "1", "2", "3"])
        .parse::<usize>()
        .unwrap_or(1);
    for d in 0..docs {
        if d > 0 {
            out.push("---".to_owned());
        }
        let mut tree = Vec::new();
        for _ in 0..1 + r.below(7) {
            let limits = ["spring", "ai", "tools"]
                .iter()
                .map(|s| s.to_string())
                .chain([spelled(r, "limits")])
                .collect::<Vec<_>>();
            let at = |r: &mut Rng, last: &str| {
                let mut p = limits.clone();
                p.push(spelled(r, last));
                p
            };
            match r.below(100) {
                0..=14 => {
                    let v = r.pick(&[INTS, &["true", "1.5", "0o7", "0x1F"]].concat());
                    put(
                        &mut tree,
                        &at(r, "max-calls-per-tool-default"),
                        Tree::Leaf(v.into()),
                    );
                }
                15..=26 => {
                    let v = r.pick(INTS);
                    put(
                        &mut tree,
                        &at(r, "max-total-tool-calls"),
                        Tree::Leaf(v.into()),
                    );
                }
                27..=41 => {
                    let v = r.pick(&[ENUMS, &["true", "1.5"]].concat());
                    put(&mut tree, &at(r, "on-limit-exceeded"), Tree::Leaf(v.into()));
                }
                42..=57 => {
                    let mut m = Vec::new();
                    for _ in 0..r.below(4) {
                        let t = r.pick(TOOLS);
                        let name = if r.chance(0.8) {
                            t.to_owned()
                        } else {
                            format!("[{t}]")
                        };
                        if m.iter().all(|(k, _): &(String, Tree)| *k != name) {
                            m.push((name, Tree::Leaf(r.pick(INTS).into())));
                        }
                    }
                    put(&mut tree, &at(r, "max-calls-per-tool"), Tree::Map(m));
                }
                58..=71 => {
                    let path = at(r, "excluded-tools");
                    if r.chance(0.5) {
                        let items = (0..r.below(4))
                            .map(|_| r.pick(&[TOOLS, &["null"]].concat()).to_owned())
                            .collect();
                        put(&mut tree, &path, Tree::List(items));
                    } else {
                        put(&mut tree, &path, Tree::Leaf(r.pick(LISTS).into()));
                    }
                }
                72..=79 => {
                    let mut p = limits[..3].to_vec();
                    p.push(spelled(r, "throw-exception-on-error"));
                    put(&mut tree, &p, Tree::Leaf(r.pick(BOOLS).into()));
                }
                80..=84 => {
                    let p: Vec<String> =
                        ["spring", "ai", "tools", "resolution", "fallback", "enabled"]
                            .iter()
                            .map(|s| s.to_string())
                            .collect();
                    put(&mut tree, &p, Tree::Leaf(r.pick(BOOLS).into()));
                }
                85..=89 => {
                    let k = r.pick(&["n", "policy", "flag"]).to_owned();
                    put(
                        &mut tree,
                        &[k],
                        Tree::Leaf(r.pick(&["2", "THROW", "true", "x"]).into()),
                    );
                }
                90..=94 if d > 0 => {
                    let p: Vec<String> = ["spring", "config", "activate", "on-profile"]
                        .iter()
                        .map(|s| s.to_string())
                        .collect();
                    put(&mut tree, &p, Tree::Leaf(r.pick(PROFILES).into()));
                }
                _ => {
                    let p: Vec<String> = ["spring", "profiles", "active"]
                        .iter()
                        .map(|s| s.to_string())
                        .collect();
                    let v = r.pick(&["dev", "prod", "dev,prod", "cloud"]);
                    put(&mut tree, &p, Tree::Leaf(v.into()));
                }
            }
        }
        // A dotted key for the first levels, as YAML files often write them.
        if r.below(4) == 0 {
            tree = dotted(tree);
        }
        emit(r, &tree, 0, &mut out);
    }
    out.join("\n") + "\n"
}
