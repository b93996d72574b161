//! Long texts shown to a person (an error, a verdict's detail, an echoed
//! input): where they are cut. Each surface words the cut its own way; the
//! cut is made here.

/// When `s` has more than `max` characters, its first `keep` characters and
/// its length in characters; `None` when it is shown whole.
///
/// ```
/// use toolcall_model::model::cut;
/// assert_eq!(cut("abcdef", 6, 2), None);
/// assert_eq!(cut("abcdefg", 6, 2), Some(("ab", 7)));
/// assert_eq!(cut("ééé", 2, 5), Some(("ééé", 3)));
/// ```
pub fn cut(s: &str, max: usize, keep: usize) -> Option<(&str, usize)> {
    s.char_indices().nth(max)?;
    let end = s.char_indices().nth(keep).map_or(s.len(), |(at, _)| at);
    Some((&s[..end], s.chars().count()))
}

/// When `s` is longer than `max` bytes, its longest head of at most `max`
/// bytes that ends on a character boundary; `None` when it is shown whole.
pub(crate) fn cut_bytes(s: &str, max: usize) -> Option<&str> {
    if s.len() <= max {
        return None;
    }
    let end = (0..=max)
        .rev()
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(0);
    Some(&s[..end])
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.
    #[test]
    fn example_cut_bytes() {
        use crate::model::text::cut_bytes;
        assert_eq!(cut_bytes("abc", 3), None);
        assert_eq!(cut_bytes("aéb", 2), Some("a"));
    }
}
