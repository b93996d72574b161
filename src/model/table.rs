//! One table per enumerated concept (a fix, a Spring AI version, an
//! invariant, a check scenario), in the manner of rustls's `enum_builder!`:
//! [`enum_table!`] declares the enum from rows of a variant, its public
//! name and the concept's other per-variant fields, and writes from them
//! `ALL` in the table's order, `name()`, one accessor per field, `known()`
//! (the names for an error message), `Display` and `FromStr`. The names are
//! checked distinct at compile time ([`distinct`]). Adding a variant is
//! adding its row.

/// Whether no two of `names` are equal (a `const fn`, so a table with a
/// repeated name does not compile).
pub const fn distinct(names: &[&str]) -> bool {
    let mut i = 0;
    while i < names.len() {
        let mut j = i + 1;
        while j < names.len() {
            if same(names[i].as_bytes(), names[j].as_bytes()) {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    true
}

/// `a == b` for bytes, as a compile-time function (the class table is
/// checked with it too).
pub(crate) const fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// An enum from its table: the enum, `ALL` in the table's order, `name()`,
/// one accessor per field, `known()` (the names for an error message),
/// `Display` and `FromStr`, the names checked distinct at compile time.
///
/// ```text
/// enum_table! {
///     /// Docs.
///     #[derive(Debug, Clone, Copy, PartialEq, Eq)]
///     pub enum Colour (ColourRow, parse UnknownColour) {
///         fields {
///             /// The colour's hex code.
///             hex: &'static str,
///         }
///         /// Red.
///         Red = "red" { hex: "#f00" },
///         /// Green.
///         Green = "green" { hex: "#0f0" },
///     }
/// }
/// ```
///
/// `UnknownColour`, if given, is a tuple struct holding an unknown name,
/// written beside the table (its message may list `Colour::known()`), and
/// the enum parses with `FromStr`; `ColourRow`
/// names the private struct of one row's fields, so that a row missing a
/// field, or with one too many, does not compile.
#[macro_export]
macro_rules! enum_table {
    (
        $(#[$meta:meta])*
        $vis:vis enum $Name:ident ($Row:ident $(, parse $Unknown:ident)?) {
            fields {
                $( $(#[$fmeta:meta])* $field:ident : $fty:ty, )*
            }
            $( $(#[$vmeta:meta])* $Variant:ident = $name:literal { $( $f:ident : $v:expr_2021 ),* $(,)? }, )+
        }
    ) => {
        $(#[$meta])*
        $vis enum $Name {
            $( $(#[$vmeta])* $Variant, )+
        }

        /// One row of the table's fields.
        struct $Row {
            $( $field: $fty, )*
        }

        const _: () = assert!(
            $crate::model::__private::distinct(&[$($name),+]),
            concat!("two rows of ", stringify!($Name), " share a name")
        );

        impl $Name {
            /// Every variant, in the table's order.
            pub const ALL: [$Name; [$($name),+].len()] = [$($Name::$Variant),+];

            /// The public name.
            pub fn name(self) -> &'static str {
                match self {
                    $( $Name::$Variant => $name, )+
                }
            }

            /// Every public name, joined with `, `.
            pub fn known() -> String {
                [$($name),+].join(", ")
            }

            fn row(self) -> $Row {
                match self {
                    $( $Name::$Variant => $Row { $( $f: $v ),* }, )+
                }
            }

            $(
                $(#[$fmeta])*
                pub fn $field(self) -> $fty {
                    self.row().$field
                }
            )*
        }

        impl ::std::fmt::Display for $Name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.name())
            }
        }

        $(
            impl ::std::str::FromStr for $Name {
                type Err = $Unknown;
                fn from_str(s: &str) -> Result<Self, Self::Err> {
                    $Name::ALL
                        .into_iter()
                        .find(|v| v.name() == s)
                        .ok_or_else(|| $Unknown(s.to_owned()))
                }
            }
        )?
    };
}
pub(crate) use enum_table;

#[cfg(test)]
// The table writes its methods `pub` for the crate's public enums; this
// test enum is private.
#[allow(unreachable_pub)]
mod tests {
    use super::distinct;

    #[derive(Debug, PartialEq)]
    struct UnknownColour(String);

    enum_table! {
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        enum Colour (ColourRow, parse UnknownColour) {
            fields {
                hex: &'static str,
            }
            Red = "red" { hex: "#f00" },
            Green = "green" { hex: "#0f0" },
        }
    }

    #[test]
    fn a_table_gives_names_parsing_and_fields() {
        assert_eq!(Colour::ALL, [Colour::Red, Colour::Green]);
        for c in Colour::ALL {
            assert_eq!(c.name().parse::<Colour>(), Ok(c));
            assert_eq!(c.to_string(), c.name());
        }
        assert_eq!(Colour::Green.hex(), "#0f0");
        assert_eq!(Colour::known(), "red, green");
        assert_eq!("blue".parse::<Colour>(), Err(UnknownColour("blue".into())));
    }

    #[test]
    fn repeated_names_are_found() {
        assert!(distinct(&["a", "b", "ab"]));
        assert!(!distinct(&["a", "b", "a"]));
    }
}
