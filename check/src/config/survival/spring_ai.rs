//! The Spring AI lines `check` answers for, and what each means for the
//! answer: which version a build's text stands for, the fix library that
//! runs on it (its coordinates, its switches) and what of the
//! application exists there.
//!
//! The model describes 2.0.1, 2.0.0 and the 1.1 line as 1.1.2
//! ([`SpringAi::V1_1_2`]). Every 1.1 release from `v1.1.0` to `v1.1.8`
//! has 1.1.2's `GoogleGenAiChatModel.parseJsonToMap`, its tool loop in
//! `internalCall` and `internalStream`, `DefaultToolCallingManager` and
//! `ToolCallingProperties` (`git diff v1.1.2 v1.1.N` on those files: the
//! licence headers, the thought signatures and thinking levels of Gemini
//! 3), so each answers as the 1.1 line.

use super::{Application, Setup};
use crate::config::fix_reach::{Felt, FixReach};
use crate::config::library_table::LibraryColumns;
use toolcall_model::chat::Memory;
use toolcall_model::model::{BehaviorSet, Fix, SpringAi};

/// The 1.1 releases read against 1.1.2: `1.1.0` to `1.1.8`.
const LINE_1_1_PATCHES: std::ops::RangeInclusive<u32> = 0..=8;

/// How a build's version text relates to the version answered for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Match {
    /// The version the model describes, exactly.
    Exact,
    /// A release of the 1.1 line read against 1.1.2: answered as it.
    Line,
    /// A 1.1 version not among those read (a later patch, a milestone):
    /// answered as the 1.1 line, with a warning.
    Unread,
}

/// The version a build's version text is answered for, and how it
/// matches; `None` for a version of no line the model describes.
///
/// ```
/// use toolcall_check::config::{Match, answered_for};
/// use toolcall_model::model::SpringAi;
/// assert_eq!(answered_for("2.0.0"), Some((SpringAi::V2_0_0, Match::Exact)));
/// assert_eq!(answered_for("1.1.6"), Some((SpringAi::V1_1_2, Match::Line)));
/// assert_eq!(answered_for("1.1.0-M3"), Some((SpringAi::V1_1_2, Match::Unread)));
/// assert_eq!(answered_for("1.0.3"), None);
/// ```
pub fn answered_for(found: &str) -> Option<(SpringAi, Match)> {
    if let Ok(v) = found.parse::<SpringAi>() {
        return Some((v, Match::Exact));
    }
    let patch = found.strip_prefix("1.1.").filter(|p| {
        !p.is_empty()
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'))
    })?;
    let read = patch
        .parse::<u32>()
        .is_ok_and(|p| LINE_1_1_PATCHES.contains(&p));
    Some((
        SpringAi::V1_1_2,
        if read { Match::Line } else { Match::Unread },
    ))
}

/// The version a caller names (`judge`'s `spring_ai` fact): one the
/// model describes, or a 1.1 release read against 1.1.2.
///
/// ```
/// use toolcall_check::config::spring_ai_named;
/// use toolcall_model::model::SpringAi;
/// assert_eq!(spring_ai_named("1.1.6"), Ok(SpringAi::V1_1_2));
/// assert!(spring_ai_named("1.0").unwrap_err().contains("1.1.0 to 1.1.8"));
/// ```
pub fn spring_ai_named(v: &str) -> Result<SpringAi, String> {
    match answered_for(v) {
        Some((version, Match::Exact | Match::Line)) => Ok(version),
        _ => Err(format!(
            "use {} (or a 1.1 release from 1.1.0 to 1.1.8, answered as 1.1.2)",
            SpringAi::known()
        )),
    }
}

/// Whether `fix` can change a turn on `version`, by where the model reads
/// it ([`Fix::felt`]): a fix read only at a breach of a tool call limit
/// (`breach-through-processor`, `end-turn-after-breach`) needs the limits
/// (2.0.1). Every other fix acts on every version: `close-dangling-calls`
/// on a memory inside the loop, which 1.1 has inside `ToolCallAdvisor`'s.
///
/// ```
/// use toolcall_check::config::fix_acts_on;
/// use toolcall_model::model::{Fix, SpringAi};
/// assert!(fix_acts_on(SpringAi::V1_1_2, Fix::CloseDanglingCalls));
/// assert!(fix_acts_on(SpringAi::V2_0_0, Fix::CloseDanglingCalls));
/// assert!(!fix_acts_on(SpringAi::V2_0_0, Fix::EndTurnAfterBreach));
/// assert!(fix_acts_on(SpringAi::V1_1_2, Fix::StrictJsonOrWrap));
/// ```
pub fn fix_acts_on(version: SpringAi, fix: Fix) -> bool {
    // Every kind decided here: a new kind read only where a version lacks
    // something does not compile into "acts everywhere".
    match fix.felt() {
        Felt::Breach | Felt::SecondBreach => version.has_limits(),
        // A memory inside the loop is on every version (on 1.1 inside
        // ToolCallAdvisor's loop), and so are the calls it leaves without
        // a response.
        Felt::DanglingCalls => true,
        Felt::Conversion | Felt::MissingTool | Felt::WindowCut | Felt::StoredReply => true,
    }
}

/// The behaviour sets the main job and `explore` play on `version`, and
/// those they leave out, each with why: a set none of whose fixes acts
/// there ([`fix_acts_on`]: it is upstream on that version), and on 1.1 the
/// seed's advisor, which runs inside `ToolCallingAdvisor`'s loop. `all`
/// stays: the fixes of it that do not act there change nothing. On 2.0.1
/// every set is played.
///
/// ```
/// use toolcall_check::config::sets_on;
/// use toolcall_model::model::{SpringAi, behavior_sets};
/// assert_eq!(sets_on(SpringAi::V2_0_1).0, behavior_sets());
/// let (played, left_out) = sets_on(SpringAi::V1_1_2);
/// assert!(played.iter().any(|s| s.name == "all"));
/// assert!(left_out.iter().any(|(s, _)| s.name == "gemini-tool-text"));
/// assert!(left_out.iter().any(|(s, _)| s.name == "end-turn-after-breach"));
/// ```
pub fn sets_on(version: SpringAi) -> (Vec<BehaviorSet>, Vec<(BehaviorSet, String)>) {
    let mut played = Vec::new();
    let mut left_out = Vec::new();
    for set in toolcall_model::model::behavior_sets() {
        let fixes: Vec<Fix> = set.fixes.iter().collect();
        if set.gemini_tool_text && version.loop_in_chat_model() {
            left_out.push((set, format!("the seed's advisor, which runs inside ToolCallingAdvisor's loop, which Spring AI {version} does not have")));
        } else if !fixes.is_empty() && fixes.iter().all(|f| !fix_acts_on(version, *f)) {
            let what = "at a breach of a tool call limit";
            left_out.push((
                set,
                format!("fixes that act only {what}, which Spring AI {version} does not have"),
            ));
        } else {
            played.push(set);
        }
    }
    (played, left_out)
}

/// The fix library's starter for Spring Boot 4 and Spring AI 2.0.x.
pub(crate) const FIX_LIBRARY: &str =
    "io.github.toolcallmodel:toolcall-fixes-spring-boot-starter:0.1.0";

/// The fix library's starter for Spring Boot 3 and Spring AI 1.1.x.
pub(crate) const FIX_LIBRARY_BOOT3: &str =
    "io.github.toolcallmodel:toolcall-fixes-boot3-spring-boot-starter:0.1.0";

/// The artifact of the Boot 3 starter, as a build declares it.
pub(crate) const BOOT3_ARTIFACT: &str = "toolcall-fixes-boot3";

/// The fix library's starter that runs on `version`.
///
/// ```
/// use toolcall_check::config::fix_library;
/// use toolcall_model::model::SpringAi;
/// assert!(fix_library(SpringAi::V1_1_2).contains("boot3"));
/// assert!(!fix_library(SpringAi::V2_0_1).contains("boot3"));
/// ```
pub fn fix_library(version: SpringAi) -> &'static str {
    if version.loop_in_chat_model() {
        FIX_LIBRARY_BOOT3
    } else {
        FIX_LIBRARY
    }
}

/// Whether the library on `version` has the switch of `fix`. On 1.1 the
/// Boot 3 starter has one fix, the JSON-safe tool responses at the
/// Gemini chat model (`toolcall.fixes.strict-json-or-wrap`; its
/// `ToolCallFixesProperties`): the fix of `all` that changes the chat
/// model alone. There is no `ToolCallingAdvisor` on 1.1, the manager's
/// fixes read 2.0.1's internals, and 1.1's memory stands outside the chat
/// model's loop, where the memory's fixes have nothing to mend, or inside
/// `ToolCallAdvisor`'s, whose requests it breaks in a way no memory fix
/// mends (docs/FIXES.md).
///
/// ```
/// use toolcall_check::config::library_has;
/// use toolcall_model::model::{Fix, SpringAi};
/// assert!(library_has(SpringAi::V1_1_2, Fix::StrictJsonOrWrap));
/// assert!(!library_has(SpringAi::V1_1_2, Fix::EndTurnAfterBreach));
/// assert!(library_has(SpringAi::V2_0_1, Fix::EndTurnAfterBreach));
/// ```
pub fn library_has(version: SpringAi, fix: Fix) -> bool {
    !version.loop_in_chat_model() || (fix.in_all() && fix.beans() == ["chat-model"])
}

/// Whether the library on `version` has the `json-error-processor`
/// switch (its processor bean): the Boot 4 one only.
pub(crate) fn library_has_json_error_processor(version: SpringAi) -> bool {
    !version.loop_in_chat_model()
}

/// `setup` as it runs on its version: without 2.0.1's limits (2.0.0, 1.1)
/// the limits and the resolution fallback are the defaults, which nothing
/// reads; on 1.1 there is no `ToolCallingAdvisor` whose conversation
/// history could be switched. A memory inside the loop on 1.1 is 1.1's
/// opt-in `ToolCallAdvisor` with `MessageChatMemoryAdvisor` at its default
/// order ([`LoopConfig::on_its_version`](toolcall_model::chat::LoopConfig::on_its_version));
/// any other memory runs with the chat model's own loop. Unchanged on
/// 2.0.x.
///
/// ```
/// use toolcall_check::config::{Setup, on_its_version};
/// use toolcall_model::chat::Memory;
/// use toolcall_model::model::SpringAi;
/// let s = Setup { memory: Memory::Inside, version: SpringAi::V1_1_2, conversation_history: Some(false), ..Setup::default() };
/// assert_eq!(on_its_version(&s).memory, Memory::Inside);
/// assert_eq!(on_its_version(&s).conversation_history, None);
/// let s = Setup { memory: Memory::Inside, ..Setup::default() };
/// assert_eq!(on_its_version(&s), s);
/// ```
pub fn on_its_version(setup: &Setup) -> Setup {
    let mut s = setup.clone();
    if !s.version.has_limits() {
        // No `ToolCallLimits`, no resolution switch: Spring Boot binds no
        // such key there (a caller's facts may still state them).
        s.limits = toolcall_model::model::ToolCallLimits::default();
        s.resolution_fallback = false;
    }
    if s.version.loop_in_chat_model() {
        s.conversation_history = None;
    }
    s
}

/// The first 1.1 release whose `MessageChatMemoryAdvisor` and
/// `ToolCallAdvisor` differ from 1.1.2's.
const FIRST_PATCH_AFTER_1_1_2_ADVISORS: u32 = 3;

/// The notes for what the application states that its version does not
/// have or answers differently (`--memory inside`, `--history` on 1.1);
/// `named` is the version as the build declares it (`1.1.6`, answered as
/// `version`), `found` the build's version text when a build file names one.
pub(crate) fn not_on_version(
    app: &Application,
    version: SpringAi,
    named: &str,
    found: Option<&str>,
) -> Vec<String> {
    let mut notes = Vec::new();
    if !version.loop_in_chat_model() {
        return notes;
    }
    let v = named;
    if app.memory == Memory::Inside {
        notes.push(format!(
            "note: --memory inside: on Spring AI 1.1 that is ToolCallAdvisor (1.1.0 on) with MessageChatMemoryAdvisor at its default order, after ToolCallAdvisor's: answered for that, as on the {version} jars (docs/CHECK.md, Spring AI 1.1)"
        ));
        if let Some(f) = found.filter(|f| advisors_differ_from_1_1_2(f)) {
            notes.push(format!(
                "warning: --memory inside: the verdicts are {version}'s; from 1.1.3 MessageChatMemoryAdvisor stores the last user or tool message and moves the system message first, and ToolCallAdvisor streams and has a history switch: not verified for {f} (docs/CHECK.md, Spring AI 1.1)"
            ));
        }
    }
    if let Some(h) = app.conversation_history {
        notes.push(format!(
            "note: --history {}: Spring AI {v} has no ToolCallingAdvisor (the chat model's loop and ToolCallAdvisor always send the whole conversation): not read",
            if h { "on" } else { "off" }
        ));
    }
    notes
}

/// Whether a 1.1 version text names a release whose memory advisor and
/// `ToolCallAdvisor` differ from 1.1.2's: 1.1.3 and later, and any 1.1
/// text not read against 1.1.2 ([`Match::Unread`]).
fn advisors_differ_from_1_1_2(found: &str) -> bool {
    match answered_for(found) {
        Some((_, Match::Exact)) | None => false,
        Some((_, Match::Unread)) => true,
        Some((_, Match::Line)) => found
            .strip_prefix("1.1.")
            .and_then(|p| p.parse::<u32>().ok())
            .is_some_and(|p| p >= FIRST_PATCH_AFTER_1_1_2_ADVISORS),
    }
}

/// The warning for a build that declares the fix library's starter for
/// another Spring Boot than its Spring AI runs on.
pub(crate) fn wrong_starter_note(file: &str, wrong: &str, version: SpringAi, v: &str) -> String {
    if version.loop_in_chat_model() {
        format!(
            "warning: {file}: declares {wrong} (Spring Boot 4, Spring AI 2.0.x), which stops an application on Spring AI {v} at startup: not counted; on 1.1 use the Boot 3 starter"
        )
    } else {
        format!(
            "warning: {file}: declares {wrong} (Spring Boot 3, Spring AI 1.1.x): not counted; on Spring AI {v} use {FIX_LIBRARY}"
        )
    }
}

/// Which starters of the fix library a build declares: (Boot 4's, Boot
/// 3's), read from the build as it builds (no comments, no inactive
/// profile).
pub(crate) fn declared_starters(build_text: &str) -> (bool, bool) {
    let text = crate::config::profiles::what_the_build_reads(build_text);
    let mut boot4 = false;
    let mut boot3 = false;
    for (i, _) in text.match_indices("toolcall-fixes") {
        let before = &text[..i];
        let declared =
            before.ends_with("<artifactId>") || before.ends_with("io.github.toolcallmodel:");
        if !declared {
            continue;
        }
        if text[i..].starts_with(BOOT3_ARTIFACT) {
            boot3 = true;
        } else {
            boot4 = true;
        }
    }
    (boot4, boot3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_1_1_line_and_what_is_not_read() {
        for v in ["1.1.0", "1.1.6", "1.1.8"] {
            assert_eq!(
                answered_for(v),
                Some((SpringAi::V1_1_2, Match::Line)),
                "{v}"
            );
        }
        for v in ["1.1.9", "1.1.0-RC1", "1.1.x", "1.1.10"] {
            assert_eq!(
                answered_for(v),
                Some((SpringAi::V1_1_2, Match::Unread)),
                "{v}"
            );
        }
        for v in ["1.0.0", "2.0.2", "1.10.0", "", "1.1.", "1.1.${p}", "1.1.+1"] {
            assert_eq!(answered_for(v), None, "{v}");
        }
        assert_eq!(
            answered_for("1.1.2"),
            Some((SpringAi::V1_1_2, Match::Exact))
        );
        assert_eq!(spring_ai_named("2.0.1"), Ok(SpringAi::V2_0_1));
        assert!(spring_ai_named("1.1.9").is_err());
    }

    #[test]
    fn the_releases_whose_advisors_differ_from_1_1_2() {
        for v in ["1.1.0", "1.1.1", "1.1.2", "2.0.1", "1.0.3"] {
            assert!(!advisors_differ_from_1_1_2(v), "{v}");
        }
        for v in ["1.1.3", "1.1.8", "1.1.9", "1.1.0-RC1"] {
            assert!(advisors_differ_from_1_1_2(v), "{v}");
        }
        let app = Application {
            memory: Memory::Inside,
            ..Application::default()
        };
        let notes = not_on_version(&app, SpringAi::V1_1_2, "1.1.6", Some("1.1.6"));
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(notes[1].contains("not verified for 1.1.6"), "{notes:?}");
        assert_eq!(
            not_on_version(&app, SpringAi::V1_1_2, "1.1.2", Some("1.1.2")).len(),
            1
        );
        assert!(not_on_version(&app, SpringAi::V2_0_1, "2.0.1", Some("2.0.1")).is_empty());
    }

    #[test]
    fn the_starters_a_build_declares() {
        let dep = |a: &str| {
            format!(
                "<dependency><groupId>io.github.toolcallmodel</groupId><artifactId>{a}</artifactId></dependency>"
            )
        };
        assert_eq!(
            declared_starters(&dep("toolcall-fixes-boot3-spring-boot-starter")),
            (false, true)
        );
        assert_eq!(
            declared_starters(&dep("toolcall-fixes-spring-boot-starter")),
            (true, false)
        );
        assert_eq!(
            declared_starters(
                "implementation(\"io.github.toolcallmodel:toolcall-fixes-boot3-spring-boot-starter:0.1.0\")"
            ),
            (false, true)
        );
        assert_eq!(
            declared_starters("// io.github.toolcallmodel:toolcall-fixes-spring-boot-starter\n"),
            (false, false)
        );
    }

    #[test]
    fn the_boot3_library_s_switches() {
        let on: Vec<Fix> = Fix::ALL
            .into_iter()
            .filter(|f| library_has(SpringAi::V1_1_2, *f))
            .collect();
        assert_eq!(on, [Fix::StrictJsonOrWrap]);
        assert!(Fix::ALL.iter().all(|f| library_has(SpringAi::V2_0_0, *f)));
    }
}
