//! Numbers compared by value: JSON number texts as exact decimals, the way
//! the vectors, the invariants and the fuzz targets all compare them
//! (`3.0` equals `3`, `1e2` equals `100`, `0.1` differs from
//! `0.1000000000000000000001`).

/// A JSON number text as an exact decimal: sign, significant digits (no
/// leading or trailing zeros), exponent. `None` if the text is not a JSON
/// number or its exponent does not fit.
pub fn decimal(text: &str) -> Option<(bool, String, i128)> {
    let (neg, t) = match text.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, text),
    };
    let (mant, exp) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], t[i + 1..].parse::<i128>().ok()?),
        None => (t, 0),
    };
    let (int, frac) = mant.split_once('.').unwrap_or((mant, ""));
    if int.is_empty() || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut digits = format!("{int}{frac}");
    let mut exp = exp.checked_sub(i128::try_from(frac.len()).ok()?)?;
    let lead = digits.len() - digits.trim_start_matches('0').len();
    digits.drain(..lead);
    while digits.ends_with('0') {
        digits.pop();
        exp = exp.checked_add(1)?;
    }
    if digits.is_empty() {
        // Zero has no sign here: -0 and 0.0 are the same value.
        return Some((false, String::new(), 0));
    }
    Some((neg, digits, exp))
}

/// Whether two number texts are the same value; texts that are not
/// numbers compare as text.
pub fn same_number(a: &str, b: &str) -> bool {
    match (decimal(a), decimal(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.
    use super::*;

    #[test]
    fn example_decimal() {
        assert_eq!(decimal("-1.50e1"), Some((true, "15".to_string(), 0)));
        assert_eq!(decimal("0.0"), Some((false, String::new(), 0)));
        assert_eq!(decimal("x"), None);
    }

    #[test]
    fn example_same_number() {
        assert!(same_number("3.0", "3") && same_number("1E310", "1e+310"));
        assert!(!same_number("0.11623512015512211", "0.1162351201551221"));
    }
}
