//! The fix library's columns of the model's fix table, and the table as
//! data that the Java runner (conformance/java) and the fix libraries
//! (conformance/fixes-common, which both fix libraries build from) read
//! instead of keeping their own lists (`fixes.tsv`). Per [`Fix`]: the beans
//! of a Spring application the library changes to install it, and its Java
//! name. The model reads neither; `check` reads the beans. One row per fix
//! in an exhaustive match: a row added to the model's table does not
//! compile until it has its row here.

use toolcall_model::model::Fix;

/// The beans of a Spring application the fix library changes
/// ([`LibraryColumns::beans`]): the `ToolCallingManager`, the chat model
/// (Gemini's conversion), the `ToolCallingAdvisor.Builder`, the
/// `ChatMemory` replaced by its window, the `ChatMemory` wrapped.
pub const LIBRARY_BEANS: [&str; 5] = ["manager", "chat-model", "tool-advisor", "window", "memory"];

/// The library's columns of a [`Fix`].
pub trait LibraryColumns {
    /// The beans of a Spring application the fix library
    /// (conformance/fixes) changes to install the fix, among
    /// [`LIBRARY_BEANS`]: the Java runner and the library read them from
    /// the fix table as data ([`fix_table`]).
    ///
    /// ```
    /// use toolcall_check::config::LibraryColumns;
    /// use toolcall_model::model::Fix;
    /// assert_eq!(Fix::CloseDanglingCalls.beans(), &["manager", "tool-advisor"]);
    /// ```
    fn beans(self) -> &'static [&'static str];

    /// The fix's name as a Java identifier (`end-turn-after-breach` is
    /// `endTurnAfterBreach`): its field in the fix library's properties.
    ///
    /// ```
    /// use toolcall_check::config::LibraryColumns;
    /// use toolcall_model::model::Fix;
    /// assert_eq!(Fix::Pr6907WrapOnFailure.java_name(), "pr6907WrapOnFailure");
    /// ```
    fn java_name(self) -> String;
}

impl LibraryColumns for Fix {
    fn beans(self) -> &'static [&'static str] {
        match self {
            Fix::BreachThroughProcessor => &["manager"],
            Fix::StrictJsonOrWrap => &["chat-model"],
            Fix::ErrorKey => &["manager", "chat-model"],
            Fix::CloseDanglingCalls => &["manager", "tool-advisor"],
            Fix::StoreAnsweredGeneration => &["memory"],
            Fix::KeepCurrentTurn | Fix::EvictOrphanResponses => &["window"],
            Fix::Pr6907WrapOnFailure | Fix::Pr6049StrictWrap => &["chat-model"],
            Fix::EndTurnAfterBreach | Fix::UnknownToolToProcessor => &["manager"],
        }
    }

    fn java_name(self) -> String {
        let mut out = String::new();
        let mut upper = false;
        for c in self.name().chars() {
            if c == '-' {
                upper = true;
            } else if upper {
                out.extend(c.to_uppercase());
                upper = false;
            } else {
                out.push(c);
            }
        }
        out
    }
}

/// The fix table as data: a comment, a header, then one tab-separated line
/// per fix in [`Fix::ALL`] order: its name, whether `all` holds it, where
/// the model reads it (`Fix::acts`), the library's beans
/// ([`LibraryColumns::beans`], joined with `,`) and its Java name.
/// `FIX_TABLE` in the test suite keeps the libraries' copy equal to it.
///
/// ```
/// let table = toolcall_check::config::fix_table();
/// assert!(table.contains("\nend-turn-after-breach\ttrue\tmanager\tmanager\tendTurnAfterBreach\n"));
/// ```
pub fn fix_table() -> String {
    let mut out = String::from(
        "# The fixes, written from the model's Fix table (src/model/behavior.rs) and the\n\
         # library's columns (check/src/config/library_table.rs) by\n\
         # TOOLCALL_WRITE_DOCS=1 cargo test --test lib fix_table; do not edit.\n\
         name\tin_all\tacts\tbeans\tjava\n",
    );
    for fix in Fix::ALL {
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\n",
            fix.name(),
            fix.in_all(),
            fix.acts(),
            fix.beans().join(","),
            fix.java_name()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{LIBRARY_BEANS, LibraryColumns};
    use toolcall_model::model::Fix;

    #[test]
    fn each_fix_names_library_beans() {
        for fix in Fix::ALL {
            assert!(!fix.beans().is_empty(), "{fix}");
            for bean in fix.beans() {
                assert!(LIBRARY_BEANS.contains(bean), "{fix}: {bean}");
            }
        }
    }
}
