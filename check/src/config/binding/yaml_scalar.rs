//! SnakeYAML 1.1's resolution of a plain scalar to the Java type the
//! binder sees (`Resolver`, `SafeConstructor`).

use super::JavaValue;

/// SnakeYAML 1.1's resolution of a plain (unquoted, untagged) scalar as
/// Spring Boot's `OriginTrackedYamlLoader` runs it (no timestamps): the
/// Java object it becomes. `None` is null (`~`, `null`, empty), which the
/// loader turns into the empty string.
pub(crate) fn resolve_yaml_scalar(v: &str) -> Option<JavaValue> {
    const BOOL: [&str; 18] = [
        "yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE",
        "on", "On", "ON", "off", "Off", "OFF",
    ];
    if v.is_empty() || matches!(v, "~" | "null" | "Null" | "NULL" | " ") {
        return None;
    }
    if BOOL.contains(&v) {
        let l = v.to_ascii_lowercase();
        return Some(JavaValue::Boolean(matches!(
            l.as_str(),
            "yes" | "true" | "on"
        )));
    }
    if is_yaml_int(v)
        && let Some(n) = construct_int(v)
    {
        return Some(n);
    }
    if is_yaml_float(v)
        && let Some(d) = construct_float(v)
    {
        return Some(JavaValue::Double(d));
    }
    Some(JavaValue::String(v.to_owned()))
}

pub(super) fn strip_sign(v: &str) -> (bool, &str) {
    match v.as_bytes().first() {
        Some(b'-') => (true, &v[1..]),
        Some(b'+') => (false, &v[1..]),
        _ => (false, v),
    }
}

pub(super) fn all(s: &str, f: impl Fn(u8) -> bool) -> bool {
    s.bytes().all(f)
}

/// Resolver.INT (YAML 1.1, with `_`).
pub(super) fn is_yaml_int(v: &str) -> bool {
    let (_, b) = strip_sign(v);
    let bin = b.strip_prefix("0b").is_some_and(|r| {
        let r = r.trim_start_matches('_');
        r.starts_with(['0', '1']) && all(r, |c| matches!(c, b'0' | b'1' | b'_'))
    });
    let oct = b.strip_prefix('0').is_some_and(|r| {
        let r = r.trim_start_matches('_');
        r.starts_with(|c: char| ('0'..='7').contains(&c))
            && all(r, |c| (b'0'..=b'7').contains(&c) || c == b'_')
    });
    let dec = b == "0"
        || (b.starts_with(|c: char| ('1'..='9').contains(&c))
            && all(b, |c| c.is_ascii_digit() || c == b'_'));
    let hex = b.strip_prefix("0x").is_some_and(|r| {
        let r = r.trim_start_matches('_');
        r.starts_with(|c: char| c.is_ascii_hexdigit())
            && all(r, |c| c.is_ascii_hexdigit() || c == b'_')
    });
    let sexa = {
        let mut parts = b.split(':');
        let first = parts.next().unwrap_or("");
        let rest: Vec<&str> = parts.collect();
        !rest.is_empty()
            && first.starts_with(|c: char| ('1'..='9').contains(&c))
            && all(first, |c| c.is_ascii_digit() || c == b'_')
            && rest.iter().all(|p| sexagesimal_digit(p))
    };
    bin || oct || dec || hex || sexa
}

/// `[0-5]?[0-9]`.
pub(super) fn sexagesimal_digit(p: &str) -> bool {
    let b = p.as_bytes();
    match b.len() {
        1 => b[0].is_ascii_digit(),
        2 => (b'0'..=b'5').contains(&b[0]) && b[1].is_ascii_digit(),
        _ => false,
    }
}

/// Resolver.FLOAT.
pub(super) fn is_yaml_float(v: &str) -> bool {
    let (_, b) = strip_sign(v);
    let digits_us = |s: &str| all(s, |c| c.is_ascii_digit() || c == b'_');
    let exp_ok = |e: &str| {
        let e = e.strip_prefix(['-', '+']).unwrap_or(e);
        !e.is_empty() && all(e, |c| c.is_ascii_digit())
    };
    let split_exp = |s: &str| -> (String, Option<String>) {
        match s.find(['e', 'E']) {
            Some(i) => (s[..i].to_owned(), Some(s[i + 1..].to_owned())),
            None => (s.to_owned(), None),
        }
    };
    let (m, e) = split_exp(b);
    let e_ok = none_or(e.as_deref(), exp_ok);
    // [0-9][0-9_]*\.[0-9_]*(e)?
    let a = e_ok
        && m.split_once('.').is_some_and(|(i, f)| {
            i.starts_with(|c: char| c.is_ascii_digit()) && digits_us(i) && digits_us(f)
        });
    // [0-9][0-9_]*[eE][-+]?[0-9]+
    let sci = e.is_some() && e_ok && m.starts_with(|c: char| c.is_ascii_digit()) && digits_us(&m);
    // \.[0-9_]+(e)?
    let dot = e_ok
        && m.strip_prefix('.')
            .is_some_and(|f| !f.is_empty() && digits_us(f));
    // [0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]*
    let sexa = b.split_once('.').is_some_and(|(i, f)| {
        let mut parts = i.split(':');
        let first = parts.next().unwrap_or("");
        let rest: Vec<&str> = parts.collect();
        !rest.is_empty()
            && first.starts_with(|c: char| c.is_ascii_digit())
            && digits_us(first)
            && rest.iter().all(|p| sexagesimal_digit(p))
            && digits_us(f)
    });
    let inf = matches!(b, ".inf" | ".Inf" | ".INF");
    let nan = matches!(v, ".nan" | ".NaN" | ".NAN");
    a || sci || dot || sexa || inf || nan
}

/// `None`, or `Some` that satisfies `f` (`Option::is_none_or`, stable since 1.82).
pub(super) fn none_or(o: Option<&str>, f: impl Fn(&str) -> bool) -> bool {
    match o {
        None => true,
        Some(s) => f(s),
    }
}

/// `ConstructYamlInt` + `createNumber`: Integer, else Long, else BigInteger.
pub(super) fn construct_int(v: &str) -> Option<JavaValue> {
    let v = v.replace('_', "");
    let (neg, b) = strip_sign(&v);
    if b == "0" {
        return Some(JavaValue::Integer(0));
    }
    let (digits, radix) = if let Some(r) = b.strip_prefix("0b") {
        (r.to_owned(), 2)
    } else if let Some(r) = b.strip_prefix("0x") {
        (r.to_owned(), 16)
    } else if let Some(r) = b.strip_prefix('0') {
        (r.to_owned(), 8)
    } else if b.contains(':') {
        // Sexagesimal: an int accumulator, as SnakeYAML's.
        let mut val: i32 = 0;
        let mut bes: i32 = 1;
        for d in b.split(':').rev() {
            let n: i64 = d.parse().ok()?;
            val = val.wrapping_add((n.wrapping_mul(i64::from(bes))) as i32);
            bes = bes.wrapping_mul(60);
        }
        let s = if neg {
            format!("-{val}")
        } else {
            val.to_string()
        };
        return number(&s, 10);
    } else {
        (b.to_owned(), 10)
    };
    let s = if neg { format!("-{digits}") } else { digits };
    number(&s, radix)
}

pub(super) fn number(s: &str, radix: u32) -> Option<JavaValue> {
    if let Ok(n) = i32::from_str_radix(s, radix) {
        return Some(JavaValue::Integer(n));
    }
    if let Ok(n) = i64::from_str_radix(s, radix) {
        return Some(JavaValue::Long(n));
    }
    // BigInteger: keep the decimal text.
    let (neg, d) = strip_sign(s);
    let mut acc: Vec<u32> = vec![0]; // base 1e9, little endian
    for c in d.chars() {
        let digit = c.to_digit(radix)?;
        let mut carry = u64::from(digit);
        for limb in acc.iter_mut() {
            let x = u64::from(*limb) * u64::from(radix) + carry;
            *limb = (x % 1_000_000_000) as u32;
            carry = x / 1_000_000_000;
        }
        while carry > 0 {
            acc.push((carry % 1_000_000_000) as u32);
            carry /= 1_000_000_000;
        }
    }
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    let mut it = acc.iter().rev();
    if let Some(first) = it.next() {
        out.push_str(&first.to_string());
    }
    for l in it {
        out.push_str(&format!("{l:09}"));
    }
    Some(JavaValue::BigInteger(out))
}

/// `ConstructYamlFloat`.
pub(super) fn construct_float(v: &str) -> Option<f64> {
    let v = v.replace('_', "");
    let (neg, b) = strip_sign(&v);
    let sign = if neg { -1.0 } else { 1.0 };
    let lower = b.to_ascii_lowercase();
    if lower == ".inf" {
        return Some(sign * f64::INFINITY);
    }
    if lower == ".nan" {
        return Some(f64::NAN);
    }
    if b.contains(':') {
        let mut val = 0.0;
        let mut bes: i32 = 1;
        for d in b.split(':').rev() {
            val += d.parse::<f64>().ok()? * f64::from(bes);
            bes = bes.wrapping_mul(60);
        }
        return Some(sign * val);
    }
    // Double.valueOf accepts "1." and ".5".
    let t = if b.ends_with('.') {
        format!("{b}0")
    } else {
        b.to_owned()
    };
    let t = t.replace(".e", ".0e").replace(".E", ".0E");
    t.parse::<f64>().ok().map(|d| d * sign)
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.

    #[test]
    fn example_resolve_yaml_scalar() {
        use super::resolve_yaml_scalar;
        use crate::config::JavaValue;
        assert_eq!(resolve_yaml_scalar("010"), Some(JavaValue::Integer(8)));
        assert_eq!(resolve_yaml_scalar("0x1F"), Some(JavaValue::Integer(31)));
        assert_eq!(resolve_yaml_scalar("on"), Some(JavaValue::Boolean(true)));
        assert_eq!(resolve_yaml_scalar("1_000"), Some(JavaValue::Integer(1000)));
        assert_eq!(
            resolve_yaml_scalar("08"),
            Some(JavaValue::String("08".into()))
        );
        assert_eq!(resolve_yaml_scalar("~"), None);
    }
}
