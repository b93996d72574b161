//! Tool-call limits: `ToolCallLimits` and the limit half of
//! `DefaultToolCallingManager.Builder`.
//!
//! Counting follows `ToolCallLimits.countPriorToolCalls`: the turn is the
//! messages from the last user message on, and every response of every tool
//! message in it counts once for its name. [`Counts`] is the incremental form
//! of that recount; [`Counts::recount`] is the recount itself.

use std::collections::{BTreeMap, BTreeSet};

use crate::collections::SmallMap;
// Read by config::binding and verification::fuzzing through this path.
pub(crate) use crate::model::java::has_text;
use crate::model::message::Message;
use crate::model::processor::Piece;
use crate::model::shared_str::SharedStr;

/// Upstream default per-tool maximum (`DEFAULT_MAX_CALLS_PER_TOOL`).
pub(crate) const DEFAULT_MAX_CALLS_PER_TOOL: u32 = 40;
/// Upstream default total maximum (`DEFAULT_MAX_TOTAL_TOOL_CALLS`).
pub(crate) const DEFAULT_MAX_TOTAL_TOOL_CALLS: u32 = 150;

/// A maximum: a positive count or unlimited (`ToolCallLimits.NO_LIMIT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Max {
    /// At most this many (always > 0).
    Limited(u32),
    /// No limit.
    Unlimited,
}

impl Max {
    /// `count > max` (`ToolCallLimits.check`'s comparison).
    pub(crate) fn exceeded_by(self, count: u64) -> bool {
        match self {
            Max::Limited(m) => count > u64::from(m),
            Max::Unlimited => false,
        }
    }
}

/// What happens on a breach (`ToolCallLimitBehavior`).
///
/// ```
/// assert_eq!(toolcall_model::model::OnExceeded::default(), toolcall_model::model::OnExceeded::Throw);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnExceeded {
    /// `THROW`: stop the batch with `ToolCallLimitExceededException`.
    #[default]
    Throw,
    /// `RETURN_ERROR_RESPONSE`: answer the call with the breach text and go on.
    ReturnErrorResponse,
}

/// A builder call that the builder refused (`Assert.isTrue` / `Assert.hasText`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LimitsError {
    /// A maximum was not > 0; the text is the builder's own.
    #[error("java.lang.IllegalArgumentException: {0}")]
    NotPositive(&'static str),
    /// A tool name was empty or blank.
    #[error("java.lang.IllegalArgumentException: toolName cannot be null or empty")]
    BlankName,
}

impl LimitsError {
    /// The Java exception message alone.
    pub(crate) fn java_message(&self) -> &'static str {
        match self {
            LimitsError::NotPositive(m) => m,
            LimitsError::BlankName => "toolName cannot be null or empty",
        }
    }
}

/// The configured limits (`ToolCallLimits`), built with the builder's rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCallLimits {
    /// The per-tool default maximum.
    pub default_max_per_tool: Max,
    /// Per-name overrides.
    pub overrides: BTreeMap<String, u32>,
    /// Names exempt from the per-tool limit (they still count toward the total).
    pub excluded: BTreeSet<String>,
    /// The total maximum.
    pub max_total: Max,
    /// What a breach does.
    pub on_exceeded: OnExceeded,
}

impl Default for ToolCallLimits {
    fn default() -> Self {
        ToolCallLimits {
            default_max_per_tool: Max::Limited(DEFAULT_MAX_CALLS_PER_TOOL),
            overrides: BTreeMap::new(),
            excluded: BTreeSet::new(),
            max_total: Max::Limited(DEFAULT_MAX_TOTAL_TOOL_CALLS),
            on_exceeded: OnExceeded::Throw,
        }
    }
}

/// `Assert.isTrue(n > 0, what)` on a Java `int`: a positive `int` always
/// fits a `u32`.
fn positive(n: i32, what: &'static str) -> Result<u32, LimitsError> {
    u32::try_from(n)
        .ok()
        .filter(|&n| n > 0)
        .ok_or(LimitsError::NotPositive(what))
}

impl ToolCallLimits {
    /// `maxCallsPerTool(int)`. The builder methods take Java's `int`, so
    /// their maxima are `i32`: `Integer.MAX_VALUE` is the largest limit.
    ///
    /// ```
    /// use toolcall_model::model::{ToolCallLimits, Max};
    /// assert!(ToolCallLimits::default().max_calls_per_tool(0).is_err());
    /// assert!(ToolCallLimits::default().max_calls_per_tool(i32::MIN).is_err());
    /// assert_eq!(ToolCallLimits::default().max_calls_per_tool(i32::MAX).unwrap().default_max_per_tool, Max::Limited(2147483647));
    /// ```
    pub fn max_calls_per_tool(mut self, n: i32) -> Result<Self, LimitsError> {
        self.default_max_per_tool =
            Max::Limited(positive(n, "maxCallsPerTool must be greater than 0")?);
        Ok(self)
    }

    /// `unlimitedCallsPerTool()`.
    ///
    /// ```
    /// use toolcall_model::model::{ToolCallLimits, Max};
    /// assert_eq!(ToolCallLimits::default().unlimited_calls_per_tool().default_max_per_tool, Max::Unlimited);
    /// ```
    pub fn unlimited_calls_per_tool(mut self) -> Self {
        self.default_max_per_tool = Max::Unlimited;
        self
    }

    /// `maxCallsPerTool(String, int)`: sets an override and removes the name from the excluded set.
    pub fn max_calls_per_tool_for(mut self, name: &str, n: i32) -> Result<Self, LimitsError> {
        if !has_text(name) {
            return Err(LimitsError::BlankName);
        }
        let n = positive(n, "maxCallsPerTool must be greater than 0")?;
        self.overrides.insert(name.to_owned(), n);
        self.excluded.remove(name);
        Ok(self)
    }

    /// `excludeToolFromLimit(String)`: excludes the name and removes its override.
    ///
    /// ```
    /// assert!(toolcall_model::model::ToolCallLimits::default().exclude_tool_from_limit(" ").is_err());
    /// ```
    pub fn exclude_tool_from_limit(mut self, name: &str) -> Result<Self, LimitsError> {
        if !has_text(name) {
            return Err(LimitsError::BlankName);
        }
        self.excluded.insert(name.to_owned());
        self.overrides.remove(name);
        Ok(self)
    }

    /// `maxTotalToolCalls(int)`.
    ///
    /// ```
    /// use toolcall_model::model::{ToolCallLimits, Max};
    /// assert_eq!(ToolCallLimits::default().max_total_tool_calls(2).unwrap().max_total, Max::Limited(2));
    /// ```
    pub fn max_total_tool_calls(mut self, n: i32) -> Result<Self, LimitsError> {
        self.max_total = Max::Limited(positive(n, "maxTotalToolCalls must be greater than 0")?);
        Ok(self)
    }

    /// `unlimitedTotalToolCalls()`.
    ///
    /// ```
    /// use toolcall_model::model::{ToolCallLimits, Max};
    /// assert_eq!(ToolCallLimits::default().unlimited_total_tool_calls().max_total, Max::Unlimited);
    /// ```
    pub fn unlimited_total_tool_calls(mut self) -> Self {
        self.max_total = Max::Unlimited;
        self
    }

    /// The per-tool maximum that applies to `name`; `None` when excluded.
    pub fn max_for(&self, name: &str) -> Option<Max> {
        if self.excluded.contains(name) {
            return None;
        }
        Some(
            self.overrides
                .get(name)
                .map_or(self.default_max_per_tool, |&n| Max::Limited(n)),
        )
    }

    /// `ToolCallLimits.check`: with counts that include the call being checked,
    /// the breach if any. The per-tool check comes first.
    ///
    /// ```
    /// use toolcall_model::model::ToolCallLimits;
    /// let l = ToolCallLimits::default().max_calls_per_tool(1).unwrap();
    /// let b = l.check("x", 2, 2).unwrap();
    /// assert_eq!(b.message(), "Tool call limit (1) exceeded for tool 'x'. No further calls to this tool are allowed in this turn.");
    /// ```
    pub fn check<N: AsRef<str> + Into<SharedStr>>(
        &self,
        name: N,
        count: u64,
        total: u64,
    ) -> Option<Breach> {
        // Without overrides or exclusions every name has the default
        // maximum: no lookup by name.
        let max_for = if self.overrides.is_empty() && self.excluded.is_empty() {
            Some(self.default_max_per_tool)
        } else {
            self.max_for(name.as_ref())
        };
        if let Some(Max::Limited(max)) = max_for
            && Max::Limited(max).exceeded_by(count)
        {
            return Some(Breach {
                tool_name: Some(name.into()),
                limit: max,
            });
        }
        match self.max_total {
            Max::Limited(max) if self.max_total.exceeded_by(total) => Some(Breach {
                tool_name: None,
                limit: max,
            }),
            _ => None,
        }
    }
}

impl ToolCallLimits {
    /// The first of `names` that breaches a limit, called in order after
    /// the calls `counts` holds (which it advances by each name checked, the
    /// breaching one included, as the manager counts): its index and the
    /// breach. The manager's own check, replayed where the loop needs to
    /// know whether a batch (or the turn so far) breached. Names given as
    /// [`SharedStr`]s (a call's or a response's) are counted shared.
    ///
    /// ```
    /// use toolcall_model::model::{Counts, ToolCallLimits};
    /// let l = ToolCallLimits::default().max_calls_per_tool(1).unwrap();
    /// let mut c = Counts::default();
    /// assert_eq!(l.first_breach(&mut c, ["x", "y", "x"]).map(|(i, _)| i), Some(2));
    /// ```
    pub fn first_breach<N: AsRef<str> + Into<SharedStr> + Copy>(
        &self,
        counts: &mut Counts,
        names: impl IntoIterator<Item = N>,
    ) -> Option<(usize, Breach)> {
        names.into_iter().enumerate().find_map(|(i, name)| {
            let (count, total) = counts.add(name);
            self.check(name, count, total).map(|b| (i, b))
        })
    }
}

/// A limit breach (`ToolCallLimits.Breach`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Breach {
    /// The tool whose per-tool limit broke (the call's name, shared);
    /// `None` for the total limit.
    pub tool_name: Option<SharedStr>,
    /// The maximum that was exceeded.
    pub limit: u32,
}

impl Breach {
    /// The response text (`Breach.message()`).
    ///
    /// ```
    /// let b = toolcall_model::model::Breach { tool_name: None, limit: 2 };
    /// assert_eq!(b.message(), "Total tool call limit (2) exceeded for this turn. No further tool calls are allowed.");
    /// ```
    pub fn message(&self) -> SharedStr {
        // A breach answers every call past a limit: its text is written
        // once, from its pieces, rather than formatted and copied.
        let mut digits = [0u8; 10];
        SharedStr::concat(
            self.pieces(decimal(self.limit, &mut digits))
                .map(|p| p.text()),
        )
    }

    /// The response text in pieces, the limit's `digits` among them: the
    /// fixed wording and the digits hold no character JSON escapes, the
    /// tool's name may. The exception processor writes its JSON answer
    /// from them without escaping the rest.
    pub(crate) fn pieces<'a>(&'a self, digits: &'a str) -> [Piece<'a>; 5] {
        match &self.tool_name {
            Some(n) => [
                Piece::Plain("Tool call limit ("),
                Piece::Plain(digits),
                Piece::Plain(") exceeded for tool '"),
                Piece::Text(n),
                Piece::Plain("'. No further calls to this tool are allowed in this turn."),
            ],
            None => [
                Piece::Plain("Total tool call limit ("),
                Piece::Plain(digits),
                Piece::Plain(") exceeded for this turn. No further tool calls are allowed."),
                Piece::Plain(""),
                Piece::Plain(""),
            ],
        }
    }

    /// The exception message (`ToolCallLimitExceededException.buildMessage`).
    pub(crate) fn exception_message(&self) -> String {
        match &self.tool_name {
            Some(n) => format!("Tool call limit ({}) exceeded for tool '{}'", self.limit, n),
            None => format!(
                "Total tool call limit ({}) exceeded for this turn",
                self.limit
            ),
        }
    }
}

/// `n` in decimal, written at the end of `buf` (a `u32` has at most ten
/// digits).
pub(crate) fn decimal(mut n: u32, buf: &mut [u8; 10]) -> &str {
    let mut start = buf.len();
    loop {
        start -= 1;
        buf[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    std::str::from_utf8(&buf[start..]).unwrap_or_default()
}

/// Calls counted so far in the turn: per name and in total (h2-style counters,
/// checked arithmetic).
///
/// ```
/// use toolcall_model::model::Counts;
/// let mut c = Counts::default();
/// assert_eq!(c.add("x"), (1, 1));
/// assert_eq!(c.add("x"), (2, 2));
/// assert_eq!(c.get("x"), 2);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Counts {
    /// Names shared, not copied, by the copies a turn and its checkers make
    /// of the counts (one a batch, one a checked call).
    per_name: PerName,
    total: u64,
}

/// The per-name counts: held in place while a turn has called few names,
/// as nearly every turn has, so that the counts a batch and its checkers
/// copy at every call allocate nothing; a hash map beyond.
type PerName = SmallMap<SharedStr, u64, FEW_NAMES>;

/// The most names [`PerName`] holds in place.
const FEW_NAMES: usize = 4;

/// Equal when they hold the same counts, whatever order the names came in.
impl PartialEq for Counts {
    fn eq(&self, other: &Self) -> bool {
        self.total == other.total
            && self.per_name.len() == other.per_name.len()
            && self
                .per_name
                .iter()
                .all(|(k, n)| other.per_name.get(k) == Some(n))
    }
}

impl Eq for Counts {}

/// The messages of the current turn: from the last user message (inclusive)
/// to the end, or all messages when there is none
/// (`ToolCallLimits.currentTurnMessages`).
pub(crate) fn current_turn(history: &[Message]) -> &[Message] {
    match history.iter().rposition(Message::is_user) {
        Some(i) => &history[i..],
        None => history,
    }
}

impl Counts {
    /// The recount of docs/BEHAVIOUR.md section 3.1: every response of every tool message of
    /// the current turn counts once for its name.
    ///
    /// ```
    /// use toolcall_model::model::{Counts, Message, ToolResponse};
    /// let h = [Message::user("u"), Message::Tool { responses: vec![ToolResponse::new("1", "x", "")].into() }];
    /// assert_eq!(Counts::recount(&h).total(), 1);
    /// ```
    pub fn recount(history: &[Message]) -> Counts {
        let mut c = Counts::default();
        for m in current_turn(history) {
            for r in m.responses() {
                c.add(&r.name);
            }
        }
        c
    }

    /// Counts one more call to `name`; returns (this name's count, total),
    /// both including the call. Saturates rather than wraps: no turn can hold
    /// 2^64 calls, and a saturated count still compares as exceeded. A name
    /// given as a [`SharedStr`] (a call's or a response's) is kept shared,
    /// not copied.
    ///
    /// ```
    /// let mut c = toolcall_model::model::Counts::default();
    /// c.add("a");
    /// assert_eq!(c.add("b"), (1, 2));
    /// ```
    pub fn add<N: AsRef<str> + Into<SharedStr>>(&mut self, name: N) -> (u64, u64) {
        self.total = self.total.saturating_add(1);
        let n = match self.per_name.get_mut(name.as_ref()) {
            Some(n) => {
                *n = n.saturating_add(1);
                *n
            }
            None => {
                self.per_name.insert(name.into(), 1);
                1
            }
        };
        (n, self.total)
    }

    /// The count for `name`.
    ///
    /// ```
    /// assert_eq!(toolcall_model::model::Counts::default().get("x"), 0);
    /// ```
    pub fn get(&self, name: &str) -> u64 {
        self.per_name.get(name).copied().unwrap_or(0)
    }

    /// The total count.
    ///
    /// ```
    /// assert_eq!(toolcall_model::model::Counts::default().total(), 0);
    /// ```
    pub fn total(&self) -> u64 {
        self.total
    }

    /// How many names have a count.
    ///
    /// ```
    /// let mut c = toolcall_model::model::Counts::default();
    /// c.add("b"); c.add("a"); c.add("a");
    /// assert_eq!(c.names(), 2);
    /// ```
    pub fn names(&self) -> usize {
        self.per_name.len()
    }

    /// Per-name counts, sorted by name (for reports and comparisons).
    ///
    /// ```
    /// let mut c = toolcall_model::model::Counts::default();
    /// c.add("b"); c.add("a");
    /// assert_eq!(c.sorted(), vec![("a".to_string(), 1), ("b".to_string(), 1)]);
    /// ```
    pub fn sorted(&self) -> Vec<(String, u64)> {
        let mut v: Vec<_> = self
            .per_name
            .iter()
            .map(|(k, v)| (k.to_string(), *v))
            .collect();
        v.sort();
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::message::ToolResponse;

    fn tool(responses: &[(&str, &str)]) -> Message {
        Message::Tool {
            responses: responses
                .iter()
                .map(|(id, name)| ToolResponse::new(id, name, ""))
                .collect(),
        }
    }

    /// Counts are equal when every name's count is: the same total over
    /// other names is another state (the per-name limit breaks for one
    /// name and not the other).
    #[test]
    fn counts_with_the_same_total_over_other_names_differ() {
        let of = |names: &[&str]| {
            let mut c = Counts::default();
            for n in names {
                c.add(*n);
            }
            c
        };
        assert_eq!(of(&["a", "b"]), of(&["b", "a"]));
        assert_ne!(of(&["a", "b"]), of(&["a", "c"]));
        assert_ne!(of(&["a", "b"]), of(&["a", "a"]));
        assert_ne!(of(&["a"]), of(&["a", "a"]));
    }

    /// `ToolCallLimits.countPriorToolCalls`: the map it builds (per name,
    /// from the last user message on) and the total the manager sums from
    /// it. No vector can see these counts except through a breach, so the
    /// accessors the invariant checker reads are pinned here.
    #[test]
    fn recount_is_java_count_prior_tool_calls_per_name_and_total() {
        let h = [
            Message::user("earlier turn"),
            tool(&[("0", "x"), ("1", "z")]),
            Message::user("this turn"),
            tool(&[("2", "x"), ("3", "y")]),
            tool(&[("4", "x")]),
        ];
        let c = Counts::recount(&h);
        assert_eq!((c.get("x"), c.get("y"), c.get("z")), (2, 1, 0));
        assert_eq!(c.total(), 3);
        assert_eq!(c.sorted(), vec![("x".to_owned(), 2), ("y".to_owned(), 1)]);
        let empty = Counts::recount(&h[..3]);
        assert_eq!((empty.get("x"), empty.total()), (0, 0));
        assert!(empty.sorted().is_empty());
    }

    /// The incremental form equals the recount: adding each response of a
    /// tool message to the counts before it gives the counts after it
    /// (`toolCallCounts.merge(toolName, 1, Integer::sum)` and
    /// `totalToolCallCount++` in `executeToolCall`).
    #[test]
    fn add_is_the_recount_of_one_more_response() {
        let mut h = vec![Message::user("go"), tool(&[("1", "x")])];
        let mut c = Counts::recount(&h);
        for (i, name) in ["x", "y", "x", "x"].into_iter().enumerate() {
            let before = (c.get(name), c.total());
            assert_eq!(c.add(name), (before.0 + 1, before.1 + 1));
            h.push(tool(&[(&i.to_string(), name)]));
            assert_eq!(c, Counts::recount(&h));
        }
        assert_eq!(c.sorted(), vec![("x".to_owned(), 4), ("y".to_owned(), 1)]);
    }

    /// Past [`FEW_NAMES`] names the counts move from a list to a map: every
    /// count survives the move, later calls count on, and counts holding
    /// the same numbers are equal whatever order their names came in.
    #[test]
    fn counts_keep_every_name_across_the_move_to_a_map() {
        let names: Vec<String> = (0..3 * FEW_NAMES).map(|i| format!("t{i}")).collect();
        let mut c = Counts::default();
        let mut reference = BTreeMap::new();
        for round in 0..3 {
            for name in names.iter().take(FEW_NAMES + 1 + round * FEW_NAMES) {
                let n = reference.entry(name.clone()).or_insert(0u64);
                *n += 1;
                assert_eq!(c.add(name.as_str()).0, *n, "{name} in round {round}");
            }
            assert_eq!(c.names(), reference.len());
            assert!(reference.iter().all(|(k, &n)| c.get(k) == n));
        }
        assert!(c.per_name.len() > FEW_NAMES);
        assert_eq!(c.sorted(), reference.into_iter().collect::<Vec<_>>());

        let (mut few, mut many) = (Counts::default(), Counts::default());
        for name in &names[..FEW_NAMES + 1] {
            many.add(name.as_str());
        }
        for name in &names[1..FEW_NAMES + 1] {
            few.add(name.as_str());
        }
        assert_ne!(few, many);
        few.add(names[0].as_str());
        assert!(few.per_name.len() > FEW_NAMES);
        assert_eq!(few, many);
        let (mut a, mut b) = (Counts::default(), Counts::default());
        a.add("x");
        a.add("y");
        b.add("y");
        b.add("x");
        assert_eq!(a, b);
        b.add("x");
        assert_ne!(a, b);
    }

    /// The digits of a limit are `to_string`'s, and a breach's text reads
    /// as `ToolCallLimits.Breach.message()` words it.
    #[test]
    fn a_breach_text_is_its_wording_with_the_limit_in_decimal() {
        for n in [0, 1, 9, 10, 40, 99, 100, 150, 1_234_567_890, u32::MAX] {
            assert_eq!(decimal(n, &mut [0; 10]), n.to_string());
            let per_tool = Breach {
                tool_name: Some("t\"x".into()),
                limit: n,
            };
            assert_eq!(
                per_tool.message(),
                format!(
                    "Tool call limit ({n}) exceeded for tool 't\"x'. No further calls to this tool are allowed in this turn."
                )
            );
            let total = Breach {
                tool_name: None,
                limit: n,
            };
            assert_eq!(
                total.message(),
                format!(
                    "Total tool call limit ({n}) exceeded for this turn. No further tool calls are allowed."
                )
            );
        }
    }
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.
    #[test]
    fn example_max() {
        use crate::model::Max;
        assert!(Max::Limited(2).exceeded_by(3));
        assert!(!Max::Unlimited.exceeded_by(u64::MAX));
    }

    #[test]
    fn example_exceeded_by() {
        assert!(!crate::model::Max::Limited(1).exceeded_by(1));
    }

    #[test]
    fn example_java_message() {
        use crate::model::ToolCallLimits;
        let e = ToolCallLimits::default()
            .max_total_tool_calls(0)
            .unwrap_err();
        assert_eq!(e.java_message(), "maxTotalToolCalls must be greater than 0");
    }

    #[test]
    fn example_toolcalllimits() {
        use crate::model::Max;
        use crate::model::ToolCallLimits;
        let l = ToolCallLimits::default()
            .max_calls_per_tool_for("x", 3)
            .unwrap()
            .exclude_tool_from_limit("x")
            .unwrap();
        assert_eq!(l.max_for("x"), None); // excluding removed the override
        assert_eq!(l.max_for("y"), Some(Max::Limited(40)));
    }

    #[test]
    fn example_max_calls_per_tool_for() {
        use crate::model::Max;
        use crate::model::ToolCallLimits;
        let l = ToolCallLimits::default()
            .exclude_tool_from_limit("x")
            .unwrap()
            .max_calls_per_tool_for("x", 2)
            .unwrap();
        assert_eq!(l.max_for("x"), Some(Max::Limited(2)));
    }

    #[test]
    fn example_max_for() {
        use crate::model::Max;
        use crate::model::ToolCallLimits;
        assert_eq!(
            ToolCallLimits::default().max_for("any"),
            Some(Max::Limited(40))
        );
    }

    #[test]
    fn example_breach() {
        let b = crate::model::Breach {
            tool_name: None,
            limit: 2,
        };
        assert_eq!(
            b.exception_message(),
            "Total tool call limit (2) exceeded for this turn"
        );
    }

    #[test]
    fn example_exception_message() {
        let b = crate::model::Breach {
            tool_name: Some("x".into()),
            limit: 40,
        };
        assert_eq!(
            b.exception_message(),
            "Tool call limit (40) exceeded for tool 'x'"
        );
    }

    #[test]
    fn example_current_turn() {
        use crate::model::Message;
        let h = [
            Message::user("a"),
            Message::Tool {
                responses: vec![].into(),
            },
            Message::user("b"),
        ];
        assert_eq!(crate::model::limits::current_turn(&h).len(), 1);
    }
}
