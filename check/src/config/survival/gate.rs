//! What makes `check` a gate a team can keep green honestly: findings the
//! team accepted (each named by scenario, the mark it breaks with and,
//! optionally, the behaviour set), the properties whose value the
//! environment can still change, and the names as the team wrote them.
//!
//! Pure: the accepted-findings text is given, not read.

use std::collections::{BTreeSet, HashMap};

use super::{CheckScenario, Mark, SetReport};
use crate::config::binding::{BoundProperties, Entry};
use crate::config::binding::{placeholder_refs, relaxed_name};
use toolcall_model::model::Fixes;

/// One accepted finding: the scenario (its column id or its name), the
/// mark it breaks with, and the behaviour set it is accepted under (any
/// when `None`), with the team's reason. A finding is accepted only while
/// the scenario breaks with exactly that mark: when the answer changes,
/// the gate fails again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Accepted {
    /// The scenario.
    pub scenario: CheckScenario,
    /// The mark's word (`dropped`, `runaway`, ...).
    pub mark: String,
    /// The behaviour set's name, or any.
    pub set: Option<String>,
    /// Why the team accepts it (the text after `#`), possibly empty.
    pub reason: String,
    /// Where it was given (`FILE:LINE` or `--accept`).
    pub origin: String,
}

impl Accepted {
    /// Reads one finding: `SCENARIO MARK [SET] [# reason]`, the scenario by
    /// its column id (`text+call`) or name (`text-and-call`).
    ///
    /// ```
    /// use toolcall_check::config::{Accepted, CheckScenario};
    /// let a = Accepted::parse("text+call dropped upstream # streamed replies, spring-ai issue", "ci").unwrap();
    /// assert_eq!(a.scenario, CheckScenario::TextAndCall);
    /// assert_eq!((a.mark.as_str(), a.set.as_deref()), ("dropped", Some("upstream")));
    /// assert!(Accepted::parse("text+call", "ci").is_err());
    /// assert!(Accepted::parse("nope dropped", "ci").is_err());
    /// ```
    pub fn parse(line: &str, origin: &str) -> Result<Accepted, String> {
        let (spec, reason) = match line.split_once('#') {
            Some((s, r)) => (s, r.trim()),
            None => (line, ""),
        };
        let words: Vec<&str> = spec.split_whitespace().collect();
        let usage = "use SCENARIO MARK [SET] [# reason]";
        let (scenario, mark, set) = match words[..] {
            [s, m] => (s, m, None),
            [s, m, set] => (s, m, Some(set.to_owned())),
            _ => return Err(format!("'{}': {usage}", spec.trim())),
        };
        let Some(found) = CheckScenario::ALL
            .iter()
            .find(|c| c.column() == scenario || c.name() == scenario)
        else {
            return Err(format!(
                "'{scenario}' is no scenario: use one of {}",
                CheckScenario::ALL
                    .iter()
                    .map(|c| c.column())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        };
        let breaking = || Mark::ALL.iter().filter(|m| !m.survives()).map(|m| m.word());
        if !breaking().any(|w| w == mark) {
            return Err(format!(
                "'{mark}' is no mark a scenario breaks with: use one of {}",
                breaking().collect::<Vec<_>>().join(", ")
            ));
        }
        if let Some(name) = &set
            && !known_set(name)
        {
            return Err(format!(
                "'{name}' is no behaviour set: use upstream, all, gemini-tool-text, a fix name or fix names joined by + (--all-sets lists the sets)"
            ));
        }
        Ok(Accepted {
            scenario: *found,
            mark: mark.to_owned(),
            set,
            reason: reason.to_owned(),
            origin: origin.to_owned(),
        })
    }

    /// Reads an accepted-findings file: one finding a line, blank lines and
    /// lines starting with `#` skipped; an error names its line.
    ///
    /// ```
    /// use toolcall_check::config::Accepted;
    /// let v = Accepted::read("# streaming\ntext+call dropped # known upstream\n\n", ".toolcall-accepted").unwrap();
    /// assert_eq!(v.len(), 1);
    /// assert_eq!(v[0].origin, ".toolcall-accepted:2");
    /// assert!(Accepted::read("repeats\n", "f").unwrap_err().starts_with("f:1: "));
    /// ```
    pub fn read(text: &str, name: &str) -> Result<Vec<Accepted>, String> {
        text.lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
            .map(|(i, l)| {
                let origin = format!("{name}:{}", i + 1);
                Accepted::parse(l, &origin).map_err(|e| format!("{origin}: {e}"))
            })
            .collect()
    }

    /// What makes two accepted findings one: the same scenario, mark and
    /// set (the reason and the place aside).
    fn finding(&self) -> (CheckScenario, &str, Option<&str>) {
        (self.scenario, &self.mark, self.set.as_deref())
    }

    /// Whether this accepts `scenario` breaking with `mark` under the
    /// fixes `fixes` (a finding for any set, or for a set of those fixes).
    pub(crate) fn accepts(&self, scenario: CheckScenario, mark: Mark, fixes: Fixes) -> bool {
        self.scenario == scenario
            && self.mark == mark.word()
            && self.set.as_deref().is_none_or(|name| {
                toolcall_model::model::behavior_sets()
                    .iter()
                    .find(|s| s.name == name)
                    .map(|s| s.fixes == fixes && !s.gemini_tool_text)
                    .or_else(|| {
                        toolcall_model::model::BehaviorSet::parse_names(&name.replace('+', ","))
                            .ok()
                            .map(|(f, advisor)| f == fixes && !advisor)
                    })
                    .unwrap_or(false)
            })
    }

    /// Whether this accepts the scenario's verdict under the report's set.
    fn covers(&self, report: &SetReport, scenario: CheckScenario) -> bool {
        self.scenario == scenario
            && self.set.as_deref().is_none_or(|s| s == report.set.name)
            && report
                .verdicts
                .iter()
                .any(|v| v.scenario == scenario && v.mark.word() == self.mark)
    }
}

/// Whether `name` names a behaviour set `check` reports or `--fixes` can
/// ask for: a set of the report, or fix names joined by `+`.
fn known_set(name: &str) -> bool {
    toolcall_model::model::behavior_sets()
        .iter()
        .any(|s| s.name == name)
        || toolcall_model::model::BehaviorSet::parse_names(&name.replace('+', ",")).is_ok()
}

/// The findings of one set's report against the accepted ones: each
/// breaking scenario accepted (with the finding that accepts it) or not,
/// and the accepted findings that no longer match anything.
#[derive(Debug, Clone, PartialEq)]
pub struct Gate {
    /// The breaking scenarios a finding accepts, in table order.
    pub accepted: Vec<(CheckScenario, Accepted)>,
    /// The breaking scenarios nothing accepts, in table order.
    pub open: Vec<CheckScenario>,
    /// Accepted findings that match no breaking scenario of the report
    /// (fixed, or broken otherwise now: the line can go, or be updated).
    pub stale: Vec<Accepted>,
}

impl Gate {
    /// Sorts the report's breaking scenarios into accepted and open.
    ///
    /// ```
    /// use toolcall_check::config::{report, Accepted, Gate, Setup};
    /// let upstream = &report(&Setup::default())[0];
    /// let plain = Accepted::parse("plain parse", "ci").unwrap();
    /// let g = Gate::judge(upstream, &[plain]);
    /// assert_eq!(g.accepted.len(), 1);
    /// assert!(!g.open.is_empty() && g.stale.is_empty());
    /// // The same scenario with another mark is not accepted: it is stale.
    /// let g = Gate::judge(upstream, &[Accepted::parse("plain runaway", "ci").unwrap()]);
    /// assert!(g.accepted.is_empty() && g.stale.len() == 1);
    /// ```
    pub fn judge(report: &SetReport, accepted: &[Accepted]) -> Gate {
        let mut gate = Gate {
            accepted: Vec::new(),
            open: Vec::new(),
            stale: Vec::new(),
        };
        let mut used = BTreeSet::new();
        for v in report.verdicts.iter().filter(|v| !v.mark.survives()) {
            match accepted
                .iter()
                .enumerate()
                .find(|(_, a)| a.covers(report, v.scenario))
            {
                Some((i, a)) => {
                    used.insert(i);
                    gate.accepted.push((v.scenario, a.clone()));
                }
                None => gate.open.push(v.scenario),
            }
        }
        // A finding given twice (two lines, two files) is one: stale only
        // when no copy of it is used, and named once.
        let used: BTreeSet<_> = used.iter().map(|&i| accepted[i].finding()).collect();
        let mut named = BTreeSet::new();
        gate.stale = accepted
            .iter()
            .filter(|a| {
                !used.contains(&a.finding())
                    && a.set.as_deref().is_none_or(|s| s == report.set.name)
                    && named.insert(a.finding())
            })
            .cloned()
            .collect();
        gate
    }

    /// Whether the gate passes: every breaking scenario accepted.
    pub fn passes(&self) -> bool {
        self.open.is_empty()
    }
}

/// The key of each property read as the team wrote it (the last entry of
/// that name, as Spring reads the last), for the canonical names of
/// [`BoundProperties::read`] (`max-calls-per-tool.searchflights` was
/// written `max-calls-per-tool.searchFlights`).
pub(crate) fn written_names(
    bound: &BoundProperties,
    docs: &[Vec<Entry>],
) -> HashMap<String, String> {
    let wanted: HashMap<Vec<String>, &String> =
        bound.read.keys().map(|k| (relaxed_name(k), k)).collect();
    // Two spellings of one property (`on-limit-exceeded`,
    // `onLimitExceeded`): the one whose value is the value bound names it,
    // so that no key is printed with another's value.
    let mut out: HashMap<String, (String, bool)> = HashMap::new();
    for e in docs.iter().flatten() {
        if let Some(k) = wanted.get(&relaxed_name(&e.key)) {
            let own = bound.read.get(*k) == Some(&e.value.to_java_string());
            match out.get(*k) {
                Some((_, true)) if !own => {}
                _ => {
                    out.insert((*k).clone(), (e.key.clone(), own));
                }
            }
        }
    }
    out.into_iter().map(|(k, (w, _))| (k, w)).collect()
}

/// A property whose value takes a placeholder's default because nothing
/// here sets the placeholder (`on-limit-exceeded=${TOOL_POLICY:THROW}`):
/// the environment that runs the application may set it to any value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Defaulted {
    /// The property, as Spring names it ([`BoundProperties::read`]).
    pub property: String,
    /// The value as written (`${TOOL_POLICY:THROW}`).
    pub written: String,
    /// The placeholders it names that nothing set.
    pub placeholders: Vec<String>,
}

/// The properties read whose value names a placeholder with a default
/// that nothing here sets ([`BoundProperties::placeholders_not_in_file`]):
/// each is open to the environment, as a placeholder without a default is.
pub(crate) fn defaulted(bound: &BoundProperties) -> Vec<Defaulted> {
    if bound.placeholders_not_in_file.is_empty() {
        return Vec::new();
    }
    let missing: BTreeSet<&str> = bound
        .placeholders_not_in_file
        .iter()
        .map(String::as_str)
        .collect();
    bound
        .read
        .iter()
        .filter_map(|(k, v)| {
            let names: Vec<String> = placeholders_with_default(v)
                .into_iter()
                .filter(|n| missing.contains(n.as_str()))
                .collect();
            (!names.is_empty()).then(|| Defaulted {
                property: k.clone(),
                written: v.clone(),
                placeholders: names,
            })
        })
        .collect()
}

/// The names of the `${NAME:default}` placeholders of a value, each once.
fn placeholders_with_default(v: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in placeholder_refs(v) {
        if r.has_default && !r.name.is_empty() && !out.contains(&r.name) {
            out.push(r.name);
        }
    }
    out
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.

    #[test]
    fn example_defaulted() {
        use super::defaulted;
        use crate::config::{bind, parse_properties};
        let docs =
            parse_properties(b"spring.ai.tools.limits.on-limit-exceeded=${TOOL_POLICY:THROW}\n")
                .unwrap();
        let d = defaulted(&bind(&docs).unwrap());
        assert_eq!(d[0].property, "spring.ai.tools.limits.on-limit-exceeded");
        assert_eq!(d[0].placeholders, ["TOOL_POLICY"]);
    }

    #[test]
    fn example_written_names() {
        use crate::config::{bind, parse_properties, written_names};
        let docs = parse_properties(b"spring.ai.tools.limits.max-calls-per-tool.searchFlights=2\n")
            .unwrap();
        let bound = bind(&docs).unwrap();
        let names = written_names(&bound, &docs);
        assert_eq!(
            names["spring.ai.tools.limits.max-calls-per-tool.searchflights"],
            "spring.ai.tools.limits.max-calls-per-tool.searchFlights"
        );
    }
}
