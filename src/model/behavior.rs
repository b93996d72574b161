//! Behaviour sets: upstream Spring AI at a version ([`SpringAi`], 2.0.1 by
//! default, 2.0.0 or 1.1.2), or upstream plus chosen fixes (docs/FIXES.md),
//! plus the seed's workaround advisor.
//!
//! One engine reads these switches; there is no copy of the engine per mode
//! and none per version: a version is a value the engine reads, as a fix is.
//!
//! Most switches are this project's fixes, and `all` turns them all on.
//! Three are upstream proposals modelled for comparison, which `all` leaves
//! off ([`Fix::in_all`]): [`Fix::EvictOrphanResponses`] replaces the same
//! step of the memory window as [`Fix::KeepCurrentTurn`], and
//! [`Fix::Pr6907WrapOnFailure`] and [`Fix::Pr6049StrictWrap`] the same
//! step of the Gemini conversion as [`Fix::StrictJsonOrWrap`].

use std::fmt;

use crate::model::table::enum_table;

enum_table! {
    /// The Spring AI release whose upstream behaviour is modelled.
    ///
    /// Where 2.0.0 differs from 2.0.1 in what this model covers
    /// (docs/BEHAVIOUR.md, "Spring AI 2.0.0"): `DefaultToolCallingManager` has no
    /// tool call limits (no `ToolCallLimits`, no `onLimitExceeded`, no
    /// `ToolCallLimitExceededException`), and no `resolutionFallbackEnabled`: a
    /// name not among the request's tools is always looked up through the
    /// resolver. The rest (the exception processor, the memory, the advisors'
    /// order, Gemini's request building) is the same code.
    ///
    /// 1.1.2 stands for the 1.1 line (docs/BEHAVIOUR.md, "Spring AI 1.1"):
    /// its manager decides as 2.0.0's does, Gemini's conversion reads JSON
    /// with Jackson 2, and its tool loop runs inside each chat model.
    ///
    /// ```
    /// use toolcall_model::model::SpringAi;
    /// assert_eq!("2.0.0".parse::<SpringAi>(), Ok(SpringAi::V2_0_0));
    /// assert_eq!("1.1.2".parse::<SpringAi>(), Ok(SpringAi::V1_1_2));
    /// assert_eq!(SpringAi::default().to_string(), "2.0.1");
    /// assert!(!SpringAi::V2_0_0.has_limits());
    /// assert!(SpringAi::V1_1_2.loop_in_chat_model());
    /// ```
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
    pub enum SpringAi (SpringAiRow, parse UnknownSpringAi) {
        fields {
            /// Whether `DefaultToolCallingManager` checks tool call limits
            /// (`ToolCallLimits`, new in 2.0.1).
            has_limits: bool,
            /// Whether the manager's builder has `resolutionFallbackEnabled`
            /// (new in 2.0.1, off by default); 2.0.0's manager always asks its
            /// resolver for a name not among the request's tools
            /// (`.orElseGet(() -> this.toolCallbackResolver.resolve(toolName))`).
            has_resolution_switch: bool,
            /// Whether `ToolCallingAdvisor` hands the manager
            /// `fullTurnHistory` (the last batch's history, new in 2.0.1)
            /// rather than the prompt it forwarded, so that messages an
            /// application adds to the next instructions reach one model
            /// call only (spring-ai issue 6842).
            manager_runs_on_turn_history: bool,
            /// Whether the tool loop runs inside each chat model
            /// (`GoogleGenAiChatModel#internalCall` and `#internalStream`
            /// call `toolCallingManager.executeToolCalls` themselves, 1.1)
            /// rather than in `ToolCallingAdvisor` (2.0). The tool loop
            /// (docs/BEHAVIOUR.md section 13) reads it: on 1.1 no advisor runs
            /// inside the loop (a memory inside it, conversation history
            /// off, the seed's advisor and `tool-feedback` are not
            /// applicable), a streamed round hands the manager the chunk that
            /// holds the calls rather than the round's aggregate, and nothing
            /// bounds the rounds but the scenario's own guard.
            loop_in_chat_model: bool,
            /// Whether the memory is 2.0's: `MessageChatMemoryAdvisor#before`
            /// merges (no memory prepended that the prompt already holds, the
            /// system message moved first, the last user-or-tool message
            /// stored), `MessageWindowChatMemory#process` moves its cut to the
            /// next user message, and a streamed turn whose client received
            /// nothing has no conversation id. 1.1's `before` prepends the
            /// memory as is and stores `Prompt#getUserMessage` (the last user
            /// message, else an empty one), its window drops the oldest
            /// non-system messages one by one, and the conversation id falls
            /// back to the default one.
            ///
            /// ```
            /// use toolcall_model::model::SpringAi;
            /// assert!(!SpringAi::V1_1_2.memory_of_2_0());
            /// assert!(SpringAi::V2_0_0.memory_of_2_0());
            /// ```
            memory_of_2_0: bool,
            /// The major version of the Jackson that `parseJsonToMap`
            /// reads tool responses with: 2 (`ModelOptionsUtils.OBJECT_MAPPER`,
            /// jackson-core 2's `StreamReadConstraints`: nesting depth 1000,
            /// strings of 20,000,000 units) or 3 (depth 500, strings of
            /// 100,000,000); docs/JSON.md, A.13.
            jackson: u8,
        }
        /// Spring AI 1.1.2, for the 1.1 line.
        V1_1_2 = "1.1.2" { has_limits: false, has_resolution_switch: false, manager_runs_on_turn_history: false, loop_in_chat_model: true, memory_of_2_0: false, jackson: 2 },
        /// Spring AI 2.0.0.
        V2_0_0 = "2.0.0" { has_limits: false, has_resolution_switch: false, manager_runs_on_turn_history: false, loop_in_chat_model: false, memory_of_2_0: true, jackson: 3 },
        /// Spring AI 2.0.1 (the default).
        #[default]
        V2_0_1 = "2.0.1" { has_limits: true, has_resolution_switch: true, manager_runs_on_turn_history: true, loop_in_chat_model: false, memory_of_2_0: true, jackson: 3 },
    }
}

/// A version this model does not describe.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Spring AI '{0}' is not modelled (known: {known})", known = SpringAi::known())]
pub struct UnknownSpringAi(pub String);

enum_table! {
    /// A fix, by its public name.
    ///
    /// ```
    /// use toolcall_model::model::Fix;
    /// assert_eq!("error-key".parse::<Fix>(), Ok(Fix::ErrorKey));
    /// assert_eq!(Fix::ErrorKey.to_string(), "error-key");
    /// ```
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum Fix (FixRow, parse UnknownFix) {
        fields {
            /// Whether `all` turns this fix on: every fix except the upstream
            /// proposals, modelled for comparison: [`Fix::EvictOrphanResponses`]
            /// replaces the step of the memory window that
            /// [`Fix::KeepCurrentTurn`] fixes (with both on, the cut would split
            /// earlier turns), and the two pull requests on the Gemini
            /// conversion replace the step [`Fix::StrictJsonOrWrap`] fixes
            /// (which takes precedence over them when both are on).
            ///
            /// ```
            /// use toolcall_model::model::Fix;
            /// assert!(Fix::KeepCurrentTurn.in_all());
            /// assert!(!Fix::EvictOrphanResponses.in_all());
            /// assert!(!Fix::Pr6049StrictWrap.in_all());
            /// ```
            in_all: bool,
            /// Where the model reads this switch ([`Acts`]): the checker
            /// derives from it which fixes the manager reads
            /// ([`Fix::read_by_manager`]), which only the conversion reads
            /// and which only the memory reads.
            ///
            /// ```
            /// use toolcall_model::model::{Acts, Fix};
            /// assert_eq!(Fix::EndTurnAfterBreach.acts(), Acts::Manager);
            /// assert_eq!(Fix::ErrorKey.acts(), Acts::Conversion);
            /// ```
            acts: Acts,
        }
        /// `breach-through-processor`: a breach is shaped by the exception processor.
        BreachThroughProcessor = "breach-through-processor" { in_all: true, acts: Acts::Manager },
        /// `strict-json-or-wrap`: tool responses convert strictly, non-JSON is wrapped.
        StrictJsonOrWrap = "strict-json-or-wrap" { in_all: true, acts: Acts::Conversion },
        /// `error-key`: failure responses go to Gemini under `error`.
        ErrorKey = "error-key" { in_all: true, acts: Acts::Conversion },
        /// `close-dangling-calls`: a THROW batch answers every call.
        CloseDanglingCalls = "close-dangling-calls" { in_all: true, acts: Acts::Manager },
        /// `store-answered-generation`: `MessageChatMemoryAdvisor.after` stores,
        /// of a reply with tool calls, only the generation the manager answers
        /// (the first with calls), the one the loop continues with; a reply
        /// without calls is stored whole, as upstream. Why: upstream stores
        /// every generation, so an unanswered one sits between the turn's
        /// messages; the memory is then no longer one contiguous run of the
        /// loop's prompt and is prepended again, repeating an answered call
        /// (conversation history on), or two model turns follow each other and
        /// a call follows a model turn (history off). Storing the generation
        /// the loop continues with keeps the memory equal to the loop's own
        /// history.
        StoreAnsweredGeneration = "store-answered-generation" { in_all: true, acts: Acts::Memory },
        /// `keep-current-turn`: the memory window never evicts the current
        /// turn's user message. In `MessageWindowChatMemory.process`, when the
        /// cut, moved forward to the next user message, finds none (the
        /// current turn alone is longer than the window), it moves back to the
        /// last user message instead: earlier turns go whole, the current turn
        /// stays whole, over the window, until the next user message lets the
        /// cut pass it. Why: upstream then removes every non-system message,
        /// the turn's question first, so with conversation history off the
        /// next requests lose the question, and the stored transcript starts
        /// with a call no user message asked for (Gemini refuses it). The
        /// memory exceeds the window by at most the current turn, which the
        /// tool-call limits bound; the memory stays a suffix of the turn, so a
        /// memory inside the loop still finds itself in the loop's prompt.
        KeepCurrentTurn = "keep-current-turn" { in_all: true, acts: Acts::Memory },
        /// `evict-orphan-responses`: the memory window cuts at the count and
        /// evicts the tool responses left without their call (spring-ai PR
        /// 6029, LangChain4j PR 666). In `MessageWindowChatMemory.process`, the
        /// cut is the plain count (`size - maxMessages`, without 2.0.1's move
        /// to the next user message, PR 6312), then the tool messages left at
        /// the head of the kept messages are removed too: spring-ai PR 6029
        /// (issue 5940) as written, against the eviction before PR 6312, and
        /// LangChain4j's eviction of orphan tool results with their call (its
        /// PR 666), which keep the same messages for every transcript Spring
        /// stores (one tool message after each call). On 2.0.1's own cut PR
        /// 6029 changes nothing: the kept messages always start at a user
        /// message or are none. Modelled for comparison; not in `all`: it
        /// keeps the pairs, but evicts the oldest message first, the question
        /// included, and splits earlier turns.
        EvictOrphanResponses = "evict-orphan-responses" { in_all: false, acts: Acts::Memory },
        /// `pr-6907-wrap-on-failure`: spring-ai PR 6907 (issue 6902). A tool
        /// response is read as upstream reads it (Jackson's lenient read, the
        /// first value only); only when that read fails is the text sent
        /// verbatim as `{"result": TEXT}`. Function-call arguments keep the
        /// upstream reading. So plain text and the empty string no longer fail
        /// the request, but half-JSON (`3.0 + 5.0 = 8.0`) is still truncated
        /// and decimals still arrive as doubles. Modelled for comparison; not
        /// in `all`; [`Fix::StrictJsonOrWrap`] and [`Fix::Pr6049StrictWrap`]
        /// take precedence over it.
        Pr6907WrapOnFailure = "pr-6907-wrap-on-failure" { in_all: false, acts: Acts::Conversion },
        /// `pr-6049-strict-wrap`: spring-ai PR 6049 (issue 5437).
        /// `parseJsonToMap` reads with Spring's mapper plus
        /// `FAIL_ON_TRAILING_TOKENS`: one whole value is sent as upstream builds
        /// it (an object as is, anything else under `result`, decimals as
        /// doubles), and any text that read refuses (plain text, trailing text,
        /// the empty string, a text past Jackson's limits) verbatim as
        /// `{"result": TEXT}`. The PR changes `parseJsonToMap` itself, so
        /// function-call arguments convert the same way (null arguments as
        /// `{"result": null}`). Modelled for comparison; not in `all`;
        /// [`Fix::StrictJsonOrWrap`] takes precedence over it.
        Pr6049StrictWrap = "pr-6049-strict-wrap" { in_all: false, acts: Acts::Conversion },
        /// `end-turn-after-breach`: under `RETURN_ERROR_RESPONSE`, the first
        /// batch of a turn with a breach is answered and the model is called
        /// again, as upstream, so that it can read the error and answer; a
        /// later batch of the same turn with a breach is answered whole and
        /// then ends the turn as `THROW` does (`buildGeneration()` of the
        /// batch's first breach response). Why: upstream answers every breach
        /// and calls the model again, and `ToolCallingAdvisor` has no round
        /// cap, so a model that keeps calling a tool past its limit keeps the
        /// turn running for ever; with the fix the limits bound the model
        /// calls of a turn, as they do under `THROW`.
        EndTurnAfterBreach = "end-turn-after-breach" { in_all: true, acts: Acts::Manager },
        /// `unknown-tool-to-processor`: the manager's `No ToolCallback
        /// found for tool name: NAME` becomes a `ToolExecutionException` for
        /// that call (its cause the `IllegalStateException`), handed to the
        /// exception processor: its text is the call's response and the batch
        /// goes on; what it throws fails the batch (spring-ai issues 6816,
        /// 6869). Why: upstream throws out of the manager and ends the call,
        /// so a model that misspells a tool name never learns it; the
        /// processor the application chose decides instead. Not in `all`: it
        /// changes what the application sees (an exception becomes a
        /// response), a policy rather than a fix of an invariant.
        UnknownToolToProcessor = "unknown-tool-to-processor" { in_all: false, acts: Acts::Manager },
    }
}

enum_table! {
    /// Where the model reads a fix's switch ([`Fix::acts`]).
    ///
    /// ```
    /// use toolcall_model::model::{Acts, Fix};
    /// assert_eq!(Acts::Manager.to_string(), "manager");
    /// assert!(Fix::BreachThroughProcessor.read_by_manager());
    /// assert!(!Fix::StrictJsonOrWrap.read_by_manager());
    /// ```
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub enum Acts (ActsRow) {
        fields {
            /// The modelled code that reads the switch.
            code: &'static str,
        }
        /// `DefaultToolCallingManager` ([`crate::model::execute_tool_calls`] and
        /// its step engine), and what the loop does with its batches.
        Manager = "manager" { code: "src/model/manager.rs, src/chat/tool_loop" },
        /// Gemini's conversion of tool responses and call arguments only
        /// (`gemini::convert`), and the judges through it.
        Conversion = "conversion" { code: "src/gemini/convert.rs" },
        /// The chat memory only (`MessageChatMemoryAdvisor`, `MessageWindowChatMemory`).
        Memory = "memory" { code: "src/chat/memory.rs" },
    }
}

impl Fix {
    /// Whether `DefaultToolCallingManager` (the model's
    /// [`crate::model::execute_tool_calls`]) reads this switch
    /// ([`Acts::Manager`]): a turn's batches run alike under sets that
    /// differ only in fixes it does not read.
    ///
    /// ```
    /// use toolcall_model::model::Fix;
    /// assert!(Fix::BreachThroughProcessor.read_by_manager());
    /// assert!(!Fix::StrictJsonOrWrap.read_by_manager());
    /// ```
    pub fn read_by_manager(self) -> bool {
        self.acts() == Acts::Manager
    }
}

/// A name that is not a fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown fix '{0}' (known: {known}, all)", known = Fix::known())]
pub struct UnknownFix(pub String);

/// Which fixes are on: a set of [`Fix`], one bit per row of the table.
/// `Fixes::default()` is upstream (the empty set); iteration follows
/// [`Fix::ALL`].
///
/// ```
/// use toolcall_model::model::{Fix, Fixes};
/// let f = Fixes::parse_list("strict-json-or-wrap,error-key").unwrap();
/// assert!(f.contains(Fix::ErrorKey) && !f.contains(Fix::CloseDanglingCalls));
/// assert!(Fixes::all().contains(Fix::CloseDanglingCalls));
/// let g: Fixes = [Fix::ErrorKey, Fix::StrictJsonOrWrap].into_iter().collect();
/// assert_eq!(f, g);
/// assert_eq!(g.iter().collect::<Vec<_>>(), [Fix::StrictJsonOrWrap, Fix::ErrorKey]);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct Fixes(u32);

// One bit per fix: the table may grow to 32 rows before `Fixes` widens.
const _: () = assert!(Fix::ALL.len() <= u32::BITS as usize);

impl Fix {
    /// This fix's bit in [`Fixes`]: its place in [`Fix::ALL`] (the
    /// variants are declared in the table's order).
    const fn bit(self) -> u32 {
        1 << self as u32
    }
}

impl Fixes {
    /// Upstream: no fix.
    ///
    /// ```
    /// assert!(toolcall_model::model::Fixes::upstream().is_upstream());
    /// ```
    pub fn upstream() -> Self {
        Fixes::default()
    }

    /// Every fix of this project ([`Fix::in_all`]): all but the upstream
    /// proposals `evict-orphan-responses`, `pr-6907-wrap-on-failure` and
    /// `pr-6049-strict-wrap`.
    ///
    /// ```
    /// use toolcall_model::model::{Fix, Fixes};
    /// assert!(!Fixes::all().is_upstream());
    /// assert!(!Fixes::all().contains(Fix::EvictOrphanResponses));
    /// ```
    pub fn all() -> Self {
        Fix::ALL.into_iter().filter(|f| f.in_all()).collect()
    }

    /// Just one fix.
    ///
    /// ```
    /// use toolcall_model::model::{Fix, Fixes};
    /// assert_eq!(Fixes::only(Fix::ErrorKey).iter().collect::<Vec<_>>(), [Fix::ErrorKey]);
    /// ```
    pub fn only(fix: Fix) -> Self {
        Fixes(fix.bit())
    }

    /// These fixes plus `fix`.
    ///
    /// ```
    /// use toolcall_model::model::{Fix, Fixes};
    /// assert!(Fixes::default().with(Fix::ErrorKey).contains(Fix::ErrorKey));
    /// ```
    #[must_use]
    pub fn with(mut self, fix: Fix) -> Self {
        self.insert(fix);
        self
    }

    /// Turns `fix` on; whether it was off.
    ///
    /// ```
    /// use toolcall_model::model::{Fix, Fixes};
    /// let mut f = Fixes::upstream();
    /// assert!(f.insert(Fix::ErrorKey));
    /// assert!(!f.insert(Fix::ErrorKey));
    /// ```
    pub fn insert(&mut self, fix: Fix) -> bool {
        let was_off = !self.contains(fix);
        self.0 |= fix.bit();
        was_off
    }

    /// Whether `fix` is on.
    ///
    /// ```
    /// use toolcall_model::model::{Fix, Fixes};
    /// assert!(!Fixes::upstream().contains(Fix::ErrorKey));
    /// ```
    pub fn contains(self, fix: Fix) -> bool {
        self.0 & fix.bit() != 0
    }

    /// Whether no fix is on.
    ///
    /// ```
    /// assert!(toolcall_model::model::Fixes::default().is_upstream());
    /// ```
    pub fn is_upstream(self) -> bool {
        self.0 == 0
    }

    /// The fixes that are on, in [`Fix::ALL`] order.
    ///
    /// ```
    /// use toolcall_model::model::{Fix, Fixes};
    /// let all: Vec<Fix> = Fixes::all().iter().collect();
    /// assert_eq!(all.first(), Some(&Fix::BreachThroughProcessor));
    /// assert!(!all.contains(&Fix::EvictOrphanResponses));
    /// ```
    pub fn iter(self) -> impl Iterator<Item = Fix> {
        Fix::ALL.into_iter().filter(move |f| self.contains(*f))
    }

    /// Parses a comma-separated list of fix names, or `all` (which can be
    /// combined: `all,evict-orphan-responses`); empty is upstream.
    /// `all` means [`Fixes::all`], in one place.
    ///
    /// ```
    /// assert!(toolcall_model::model::Fixes::parse_list("nope").is_err());
    /// assert!(toolcall_model::model::Fixes::parse_list("").unwrap().is_upstream());
    /// ```
    pub fn parse_list(list: &str) -> Result<Self, UnknownFix> {
        let mut f = Fixes::default();
        for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if name == "all" {
                f.extend(Fixes::all().iter());
            } else {
                f.insert(name.parse()?);
            }
        }
        Ok(f)
    }
}

impl FromIterator<Fix> for Fixes {
    fn from_iter<I: IntoIterator<Item = Fix>>(fixes: I) -> Self {
        let mut set = Fixes::default();
        set.extend(fixes);
        set
    }
}

impl Extend<Fix> for Fixes {
    fn extend<I: IntoIterator<Item = Fix>>(&mut self, fixes: I) {
        for fix in fixes {
            self.insert(fix);
        }
    }
}

impl fmt::Debug for Fixes {
    /// The set of the fixes that are on: `{ErrorKey, EndTurnAfterBreach}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl fmt::Display for Fixes {
    /// `upstream`, `all`, or the enabled names joined with `+`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_upstream() {
            return f.write_str("upstream");
        }
        if *self == Fixes::all() {
            return f.write_str("all");
        }
        let names: Vec<_> = self.iter().map(Fix::name).collect();
        f.write_str(&names.join("+"))
    }
}

/// A behaviour set of the matrix: fixes plus the workaround advisor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BehaviorSet {
    /// The name shown (`upstream`, a fix's name, `all`, `gemini-tool-text`).
    pub name: &'static str,
    /// The fixes.
    pub fixes: Fixes,
    /// Whether the seed's workaround advisor runs.
    pub gemini_tool_text: bool,
}

/// The behaviour sets every report covers, in order: upstream, each single
/// fix (the upstream proposals included), all fixes (`Fixes::all()`: every
/// fix but the upstream proposals), and the workaround advisor on upstream.
///
/// ```
/// let sets = toolcall_model::model::behavior_sets();
/// use toolcall_model::model::Fix;
/// assert_eq!(sets.len(), Fix::ALL.len() + 3);
/// assert!(sets.iter().any(|s| s.name == "pr-6049-strict-wrap"));
/// assert_eq!(sets[0].name, "upstream");
/// ```
pub fn behavior_sets() -> Vec<BehaviorSet> {
    let mut v = vec![BehaviorSet {
        name: "upstream",
        fixes: Fixes::upstream(),
        gemini_tool_text: false,
    }];
    v.extend(Fix::ALL.iter().map(|f| BehaviorSet {
        name: f.name(),
        fixes: Fixes::only(*f),
        gemini_tool_text: false,
    }));
    v.push(BehaviorSet {
        name: "all",
        fixes: Fixes::all(),
        gemini_tool_text: false,
    });
    v.push(BehaviorSet {
        name: "gemini-tool-text",
        fixes: Fixes::upstream(),
        gemini_tool_text: true,
    });
    v
}

/// A name no behaviour set is made of.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown fix '{0}' (known: {known})", known = BehaviorSet::known_names())]
pub struct UnknownSetName(pub String);

impl BehaviorSet {
    /// Every name a behaviour-set list may hold, as every command lists
    /// them: each fix, `all`, `upstream` and `gemini-tool-text`.
    pub(crate) fn known_names() -> String {
        format!("{}, all, upstream, gemini-tool-text", Fix::known())
    }

    /// The fixes and the workaround advisor a comma-separated list names:
    /// fix names, `all` (every fix [`Fix::in_all`]), `upstream` (none) and
    /// `gemini-tool-text` (the advisor). The one reader of such a list for
    /// every command (`check`, `run`, `explore`, `convert`).
    ///
    /// ```
    /// use toolcall_model::model::{BehaviorSet, Fix, Fixes};
    /// assert_eq!(BehaviorSet::parse_names("upstream"), Ok((Fixes::upstream(), false)));
    /// assert_eq!(
    ///     BehaviorSet::parse_names("error-key, gemini-tool-text"),
    ///     Ok((Fixes::only(Fix::ErrorKey), true))
    /// );
    /// assert!(BehaviorSet::parse_names("nonsense").unwrap_err().to_string().contains("upstream, gemini-tool-text"));
    /// ```
    pub fn parse_names(list: &str) -> Result<(Fixes, bool), UnknownSetName> {
        let mut advisor = false;
        let mut rest = Vec::new();
        for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match name {
                "gemini-tool-text" => advisor = true,
                "upstream" => {}
                other => rest.push(other),
            }
        }
        let fixes =
            Fixes::parse_list(&rest.join(",")).map_err(|UnknownFix(n)| UnknownSetName(n))?;
        Ok((fixes, advisor))
    }
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.
    use super::BehaviorSet;

    #[test]
    fn example_known_names() {
        let known = BehaviorSet::known_names();
        assert!(known.starts_with("breach-through-processor, "));
        assert!(known.ends_with(", all, upstream, gemini-tool-text"));
    }
}

#[cfg(test)]
mod tests {
    use super::{Fix, Fixes};

    #[test]
    fn each_fix_has_a_bit_of_its_own() {
        for fix in Fix::ALL {
            assert_eq!(
                Fixes::only(fix).iter().collect::<Vec<_>>(),
                vec![fix],
                "{fix}"
            );
        }
    }
}
