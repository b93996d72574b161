//! The fix library's columns of the model's fix table, and the table as
//! data that the Java runner (conformance/java) and the fix libraries
//! (conformance/fixes-common, which both fix libraries build from) read
//! instead of keeping their own lists (`fixes.tsv`). Per [`Fix`]: the beans
//! of a Spring application the library changes to install it, what the
//! library makes of it when its switch is unset, and its Java name. The
//! model reads none; `check` reads the beans and the unset. One row per fix
//! in an exhaustive match: a row added to the model's table does not
//! compile until it has its row here.

use toolcall_model::model::Fix;

/// The beans of a Spring application the fix library changes
/// ([`LibraryColumns::beans`]): the `ToolCallingManager`, the chat model
/// (Gemini's conversion), the `ToolCallingAdvisor.Builder`, the
/// `ChatMemory` replaced by its window, the `ChatMemory` wrapped.
pub const LIBRARY_BEANS: [&str; 5] = ["manager", "chat-model", "tool-advisor", "window", "memory"];

/// What the fix library makes of a fix whose switch is unset
/// ([`LibraryColumns::unset`], the table's column `unset`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unset {
    /// Off: the upstream proposals, and the fixes the decided ones make
    /// unnecessary.
    Off,
    /// Decided by the library from the application's beans at start-up (or
    /// at each request, for the memory fixes): on where the [`Decider`]
    /// holds.
    Decided(Decider),
}

/// What the library reads of an application to decide an unset switch
/// ([`Unset::Decided`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decider {
    /// A Gemini chat model (`GoogleGenAiChatModel` bean).
    GeminiChatModel,
    /// The manager's `on-limit-exceeded` is `RETURN_ERROR_RESPONSE`.
    ReturnErrorResponse,
    /// A memory advisor inside the tool loop.
    MemoryInsideLoop,
}

impl Unset {
    /// The column's word: `off` or `decided`.
    ///
    /// ```
    /// use toolcall_check::config::{Decider, Unset};
    /// assert_eq!(Unset::Decided(Decider::GeminiChatModel).as_str(), "decided");
    /// assert_eq!(Unset::Off.as_str(), "off");
    /// ```
    pub fn as_str(self) -> &'static str {
        match self {
            Unset::Off => "off",
            Unset::Decided(_) => "decided",
        }
    }
}

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

    /// What the library makes of the fix when its switch is unset: the one
    /// home of that rule, read by `check` and, as the table's column
    /// `unset`, by the library (`InstalledFixes.DECIDED_UNSET`).
    ///
    /// ```
    /// use toolcall_check::config::{Decider, LibraryColumns, Unset};
    /// use toolcall_model::model::Fix;
    /// assert_eq!(Fix::EndTurnAfterBreach.unset(), Unset::Decided(Decider::ReturnErrorResponse));
    /// assert_eq!(Fix::BreachThroughProcessor.unset(), Unset::Off);
    /// ```
    fn unset(self) -> Unset;
}

/// The library's row of a fix: its beans and what it is unset.
fn row(fix: Fix) -> (&'static [&'static str], Unset) {
    use Decider::{GeminiChatModel, MemoryInsideLoop, ReturnErrorResponse};
    use Unset::{Decided, Off};
    match fix {
        Fix::BreachThroughProcessor => (&["manager"], Off),
        Fix::StrictJsonOrWrap => (&["chat-model"], Decided(GeminiChatModel)),
        Fix::ErrorKey => (&["manager", "chat-model"], Off),
        Fix::CloseDanglingCalls => (&["manager", "tool-advisor"], Decided(MemoryInsideLoop)),
        Fix::StoreAnsweredGeneration => (&["memory"], Decided(MemoryInsideLoop)),
        Fix::KeepCurrentTurn => (&["window"], Decided(MemoryInsideLoop)),
        Fix::EvictOrphanResponses => (&["window"], Off),
        Fix::Pr6907WrapOnFailure | Fix::Pr6049StrictWrap => (&["chat-model"], Off),
        Fix::EndTurnAfterBreach => (&["manager"], Decided(ReturnErrorResponse)),
        Fix::UnknownToolToProcessor => (&["manager"], Off),
    }
}

impl LibraryColumns for Fix {
    fn beans(self) -> &'static [&'static str] {
        row(self).0
    }

    fn unset(self) -> Unset {
        row(self).1
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
/// ([`LibraryColumns::beans`], joined with `,`), its Java name and what
/// it is when its switch is unset ([`LibraryColumns::unset`]).
/// `FIX_TABLE` in the test suite keeps the libraries' copy equal to it.
///
/// ```
/// let table = toolcall_check::config::fix_table();
/// assert!(table.contains("\nend-turn-after-breach\ttrue\tmanager\tmanager\tendTurnAfterBreach\tdecided\n"));
/// ```
pub fn fix_table() -> String {
    let mut out = String::from(
        "# The fixes, written from the model's Fix table (src/model/behavior.rs) and the\n\
         # library's columns (check/src/config/library_table.rs) by\n\
         # TOOLCALL_WRITE_DOCS=1 cargo test --test lib fix_table; do not edit.\n\
         name\tin_all\tacts\tbeans\tjava\tunset\n",
    );
    for fix in Fix::ALL {
        out.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{}\n",
            fix.name(),
            fix.in_all(),
            fix.acts(),
            fix.beans().join(","),
            fix.java_name(),
            fix.unset().as_str()
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
