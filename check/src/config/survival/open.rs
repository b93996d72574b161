//! Values the environment can still change: a property whose placeholder
//! nothing here resolves (`${TOOL_POLICY}`, which Spring Boot refuses
//! until the environment gives it) or whose placeholder's default is read
//! (`${TOOL_POLICY:THROW}`). `check` binds the rest, tries each such
//! property at every value that can change a verdict, and answers for the
//! worst.
//!
//! Pure: the sources are given; the environment is whatever they hold.

use serde_json::{Value, json};

use super::{Application, SetReport, Setup};
use super::{breaks_under, defaulted, open_values, report_sets, written_names};
use crate::config::binding::placeholder_refs;
use crate::config::binding::{
    BindFailure, BoundProperties, Entry, ParsedDocument, PropertyFailure, bind, bind_parsed,
};
use crate::config::binding::{property_under, relaxed_name, same_property};
use crate::config::profiles::source;
use toolcall_model::model::{BehaviorSet, SpringAi, behavior_sets};

/// The properties bound with every property a placeholder nothing
/// resolves leaves open left out ([`bind_open`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Lenient {
    /// What Spring Boot binds without them.
    pub bound: BoundProperties,
    /// The sources without them, with the file each comes from.
    pub sources: Vec<(String, Vec<Entry>)>,
    /// One warning per property left out, with its file and line.
    pub unresolved: Vec<String>,
    /// The properties left out.
    pub open: Vec<OpenProperty>,
}

/// Spring Boot's refusal of the sources ([`bind_open`]): the failure, the
/// sources as they were then, and the properties left out before it
/// (Spring would have refused their placeholders first, unless the
/// environment sets them).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Refused {
    /// Spring's refusal.
    pub failure: BindFailure,
    /// The sources bound, with the file each comes from.
    pub sources: Vec<(String, Vec<Entry>)>,
    /// The warnings of the properties left out before it.
    pub unresolved: Vec<String>,
    /// Whether it is a placeholder nothing sets past [`MAX_UNRESOLVED`]
    /// open ones: this model's limit, not Spring's refusal.
    pub past_limit: bool,
}

/// The answer for the worst values: what is bound there, the setup, every
/// set's report, and what the open properties were tried at.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct WorstOpen {
    /// The properties bound at the values answered for.
    pub bound: BoundProperties,
    /// The setup there.
    pub setup: Setup,
    /// Every behaviour set's report there (and the set asked for).
    pub reports: Vec<SetReport>,
    /// The combinations tried, when a property was open.
    pub open: Option<OpenAnswer>,
}

/// Binds the sources; a property whose value holds a placeholder nothing
/// resolves (no source sets it) is left out, with a warning, instead of
/// Spring's refusal: the application's real environment may well set it.
/// A refusal for any other reason (or past [`MAX_UNRESOLVED`] such
/// properties) comes back with the sources and warnings so far.
pub(crate) fn bind_open(mut sources: Vec<(String, Vec<Entry>)>) -> Result<Lenient, Box<Refused>> {
    let (mut unresolved, mut open) = (Vec::new(), Vec::new());
    // Every such property found in one pass over the sources, each judged
    // by binding its entry alone, and all left out in one more: binding
    // the whole file again for each made a hundred of them cost a hundred
    // bindings of the file.
    let first = unset_placeholder_properties(&sources, MAX_UNRESOLVED);
    leave_out(&mut sources, &mut unresolved, &mut open, first);
    loop {
        let docs: Vec<Vec<Entry>> = sources.iter().map(|(_, d)| d.clone()).collect();
        match bind(&docs) {
            Ok(bound) => {
                return Ok(Lenient {
                    bound,
                    sources,
                    unresolved,
                    open,
                });
            }
            Err(BindFailure::Bind(PropertyFailure {
                property, value, ..
            })) if unresolved.len() < MAX_UNRESOLVED
                && names_an_unset_placeholder(&value, &sources)
                && written_as(&property, &sources) =>
            {
                leave_out(
                    &mut sources,
                    &mut unresolved,
                    &mut open,
                    vec![(property, value)],
                );
            }
            Err(failure) => {
                let past_limit = matches!(&failure, BindFailure::Bind(PropertyFailure { value, .. })
                    if unresolved.len() >= MAX_UNRESOLVED && names_an_unset_placeholder(value, &sources));
                return Err(Box::new(Refused {
                    failure,
                    sources,
                    unresolved,
                    past_limit,
                }));
            }
        }
    }
}

/// A property the environment can still set: its placeholder has no
/// value here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenProperty {
    /// As Spring names it.
    pub property: String,
    /// As the team wrote it (what a combination sets).
    pub key: String,
    /// The value as written when it is read with a placeholder's default.
    pub default: Option<String>,
}

/// At most this many combinations of open values are each checked; past
/// it the open properties are tried one at a time.
pub(crate) const MAX_OPEN_COMBINATIONS: usize = 64;

/// What the open properties were tried at, and which values the answer is
/// for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenAnswer {
    /// Whether every combination was checked, else one property at a time.
    pub every_combination: bool,
    /// Each combination checked (`None`: left unset), with the breaks of
    /// the set asked for there; the one answered for first.
    pub tried: Vec<(Vec<Option<&'static str>>, Vec<&'static str>)>,
    /// The properties, in the order of each combination's values.
    pub properties: Vec<OpenProperty>,
    /// Open properties past `MAX_OPEN_TRIED`: answered at their default
    /// (or unset).
    pub untried: Vec<OpenProperty>,
}

/// At most this many open properties are tried at their values.
pub(crate) const MAX_OPEN_TRIED: usize = 16;

/// The answer for the worst values the open properties may take: a
/// property whose placeholder nothing here resolves is set by the
/// application's real environment, to any of its values, so each value
/// that can change a verdict (`open_values`) is tried and the answer is
/// for the combination that breaks the set asked for in the most
/// scenarios (unset first among equals). Every combination is checked
/// when there are at most `MAX_OPEN_COMBINATIONS`, else each property in
/// turn, keeping the worst value of those before it.
pub(crate) fn worst_open(
    sources: &[Vec<Entry>],
    found: Lenient,
    app: &Application,
    version: SpringAi,
    asked: BehaviorSet,
    defaults_run: bool,
) -> WorstOpen {
    let Lenient {
        bound: mut first,
        open,
        ..
    } = found;
    let (choices, untried) = tried_properties(open, &first, sources, defaults_run);
    // Each combination is judged under the set asked for alone; every set
    // is reported for the one answered for.
    let judge = |values: Vec<Option<&'static str>>, bound: BoundProperties| {
        let setup = Setup::of(&bound, app, version);
        let breaks = breaks_under(&setup, &asked);
        Candidate {
            values,
            bound,
            setup,
            breaks,
        }
    };
    let unset = judge(vec![None; choices.len()], first.clone());
    if choices.is_empty() {
        let reports = evaluate_sets(&unset.setup, asked);
        return WorstOpen {
            bound: unset.bound,
            setup: unset.setup,
            reports,
            open: None,
        };
    }
    // The sources' keys parsed once for every combination.
    let parsed: Vec<ParsedDocument<'_>> = sources.iter().map(|d| ParsedDocument::new(d)).collect();
    let mut tried = vec![(unset.values.clone(), unset.breaks.clone())];
    let mut best = unset;
    let mut consider = |values: Vec<Option<&'static str>>, best: &mut Candidate| {
        if let Some(bound) = bind_with(&parsed, &choices, &values) {
            let c = judge(values, bound);
            tried.push((c.values.clone(), c.breaks.clone()));
            if c.breaks.len() > best.breaks.len() {
                *best = c;
            }
        }
    };
    let combinations = choices
        .iter()
        .try_fold(1usize, |n, (_, v)| n.checked_mul(v.len() + 1))
        .filter(|n| *n <= MAX_OPEN_COMBINATIONS);
    if let Some(n) = combinations {
        for i in 1..n {
            consider(combination(i, &choices), &mut best);
        }
    } else {
        for (i, (_, v)) in choices.iter().enumerate() {
            for value in v.iter() {
                let mut values = best.values.clone();
                values[i] = Some(value);
                consider(values, &mut best);
            }
        }
    }
    if let Some(k) = tried.iter().position(|(v, _)| *v == best.values) {
        let answered = tried.remove(k);
        tried.insert(0, answered);
    }
    // The placeholders the file leaves to the environment, as read before
    // any combination set them.
    let mut bound = best.bound;
    bound.placeholders_not_in_file = std::mem::take(&mut first.placeholders_not_in_file);
    let reports = evaluate_sets(&best.setup, asked);
    WorstOpen {
        bound,
        setup: best.setup,
        reports,
        open: Some(OpenAnswer {
            every_combination: combinations.is_some(),
            tried,
            properties: choices.into_iter().map(|(p, _)| p).collect(),
            untried,
        }),
    }
}

/// The sources bound with the open properties set at `values` (`None`:
/// left unset), last, as `--set` would set them; `None` when Spring
/// refuses: a value the builder refuses is not one a running application
/// has.
fn bind_with(
    sources: &[ParsedDocument<'_>],
    choices: &[(OpenProperty, &'static [&'static str])],
    values: &[Option<&'static str>],
) -> Option<BoundProperties> {
    let pairs: Vec<(String, String)> = choices
        .iter()
        .zip(values)
        .filter_map(|((p, _), v)| v.map(|v| (p.key.clone(), v.to_owned())))
        .collect();
    let set = source(&pairs);
    let set = ParsedDocument::new(&set);
    let docs: Vec<&ParsedDocument<'_>> = sources.iter().chain([&set]).collect();
    bind_parsed(&docs).ok()
}

/// The properties whose values are tried (each with them), at most
/// [`MAX_OPEN_TRIED`], and those left at their default (or unset) and
/// named: with `defaults_run` off, every placeholder default is open too.
#[allow(clippy::type_complexity)]
fn tried_properties(
    mut open: Vec<OpenProperty>,
    first: &BoundProperties,
    sources: &[Vec<Entry>],
    defaults_run: bool,
) -> (
    Vec<(OpenProperty, &'static [&'static str])>,
    Vec<OpenProperty>,
) {
    // A placeholder's default is one value of many unless the team says
    // it is what runs.
    if !defaults_run {
        let names = written_names(first, sources);
        for d in defaulted(first) {
            open.push(OpenProperty {
                key: names
                    .get(&d.property)
                    .cloned()
                    .unwrap_or(d.property.clone()),
                property: d.property,
                default: Some(d.written),
            });
        }
    }
    let choices: Vec<(OpenProperty, &'static [&'static str])> = open
        .iter()
        .map(|p| (p.clone(), open_values(&p.property)))
        .filter(|(_, v)| !v.is_empty())
        .collect();
    // Only the most properties are tried (the rest answered at their
    // default, or unset, and named): each tried costs two more checks, and
    // per-tool limits play the same part.
    let mut choices = choices;
    let untried: Vec<OpenProperty> = if choices.len() > MAX_OPEN_TRIED {
        choices.sort_by_key(|(p, _)| {
            open_values(&p.property).len() == 2 && p.property.contains("max-calls-per-tool.")
        });
        choices
            .split_off(MAX_OPEN_TRIED)
            .into_iter()
            .map(|(p, _)| p)
            .collect()
    } else {
        Vec::new()
    };
    (choices, untried)
}

/// Combination `i` of the choices: each property's digit in base (its
/// values + 1), 0 for unset.
fn combination(
    i: usize,
    choices: &[(OpenProperty, &'static [&'static str])],
) -> Vec<Option<&'static str>> {
    let mut rest = i;
    choices
        .iter()
        .map(|(_, v)| {
            let k: usize = rest % (v.len() + 1);
            rest /= v.len() + 1;
            k.checked_sub(1).map(|k| v[k])
        })
        .collect()
}

/// At most this many combinations are listed in the text answer.
const OPEN_LINES: usize = 8;

impl OpenAnswer {
    /// `property=value` for each property a combination sets, as Spring
    /// names it.
    pub fn named(&self, values: &[Option<&'static str>]) -> Vec<(String, Option<&'static str>)> {
        self.properties
            .iter()
            .map(|p| p.property.clone())
            .zip(values.iter().copied())
            .collect()
    }

    /// The text: the combination answered for, then at most eight
    /// combinations tried, each with what breaks there.
    pub(crate) fn to_text(&self, set: &str) -> String {
        let show = |values: &[Option<&'static str>]| {
            self.properties
                .iter()
                .zip(values)
                .map(|(p, v)| match (v, &p.default) {
                    (Some(v), _) => format!("{}={v}", p.key),
                    (None, Some(d)) => format!("{}={d} (its default)", p.key),
                    (None, None) => format!("{} unset", p.key),
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut out = format!(
            "Open values: the answer is for {}, where {set} breaks in the most scenarios of the {} combination(s) checked ({}):\n",
            show(&self.tried[0].0),
            self.tried.len(),
            if self.every_combination {
                "every combination of the values that can change it"
            } else {
                "each property in turn"
            }
        );
        for (values, breaks) in self.tried.iter().take(OPEN_LINES) {
            let verdict = if breaks.is_empty() {
                "safe".to_owned()
            } else {
                format!("breaks {}", breaks.join(", "))
            };
            out.push_str(&format!("  {}: {verdict}", show(values)));
            out.push('\n');
        }
        if self.tried.len() > OPEN_LINES {
            out.push_str(&format!(
                "  ... and {} more (--json lists them)\n",
                self.tried.len() - OPEN_LINES
            ));
        }
        if !self.untried.is_empty() {
            out.push_str(&format!(
                "  {} more open properties, past the {MAX_OPEN_TRIED} tried, are answered at their default or unset (--json lists them; --set gives them)\n",
                self.untried.len()
            ));
        }
        out
    }

    /// The same as JSON, every combination tried.
    pub fn to_value(&self) -> Value {
        let values = |v: &[Option<&'static str>]| {
            Value::Object(
                self.named(v)
                    .into_iter()
                    .map(|(p, v)| (p, json!(v)))
                    .collect(),
            )
        };
        json!({
            "properties": self.properties.iter().map(|p| &p.property).collect::<Vec<_>>(),
            "defaults": self.properties.iter().filter_map(|p| p.default.as_ref().map(|d| (p.property.clone(), json!(d)))).collect::<serde_json::Map<_, _>>(),
            "every_combination": self.every_combination,
            "not_tried": self.untried.iter().map(|p| &p.property).collect::<Vec<_>>(),
            "answered_for": values(&self.tried[0].0),
            "tried": self.tried.iter().map(|(v, breaks)| json!({
                "values": values(v),
                "safe": breaks.is_empty(),
                "breaks": breaks,
            })).collect::<Vec<_>>(),
        })
    }
}

/// One combination of open values, bound and judged.
struct Candidate {
    values: Vec<Option<&'static str>>,
    bound: BoundProperties,
    setup: Setup,
    /// The scenarios the set asked for breaks in (their columns).
    breaks: Vec<&'static str>,
}

/// At most this many properties are left out for a placeholder nothing
/// resolves; past them Spring's refusal stands.
pub(crate) const MAX_UNRESOLVED: usize = 100;

/// Leaves the properties out of the sources (one pass), each with its
/// warning and as an open property.
/// Whether an entry of the sources is `property` (as Spring names it):
/// only then does leaving it out change what Spring binds. A value Spring
/// reports under another name (a map's key `*` reported as the map) is
/// refused as Spring refuses it.
fn written_as(property: &str, sources: &[(String, Vec<Entry>)]) -> bool {
    let p = relaxed_name(property);
    sources
        .iter()
        .any(|(_, d)| d.iter().any(|e| relaxed_name(&e.key) == p))
}

fn leave_out(
    sources: &mut [(String, Vec<Entry>)],
    unresolved: &mut Vec<String>,
    open: &mut Vec<OpenProperty>,
    properties: Vec<(String, String)>,
) {
    if properties.is_empty() {
        return;
    }
    let index: std::collections::HashMap<Vec<String>, usize> = properties
        .iter()
        .enumerate()
        .map(|(i, (p, _))| (relaxed_name(p), i))
        .collect();
    let mut found: Vec<(Vec<String>, Option<String>)> = vec![(Vec::new(), None); properties.len()];
    for (origin, d) in sources.iter_mut() {
        d.retain(|e| match index.get(&relaxed_name(&e.key)) {
            Some(&i) => {
                found[i].0.push(format!("{origin}:{}", e.line));
                found[i].1 = Some(e.key.clone());
                false
            }
            None => true,
        });
    }
    for ((property, value), (lines, written)) in properties.into_iter().zip(found) {
        let written = written.unwrap_or(property.clone());
        unresolved.push(format!(
            "{} ({written} = {value}): a placeholder nothing here resolves (not in the files, the environment or --set); Spring Boot refuses the file unless the environment sets it; left out here, and checked at each value that can change the answer; give it with --set NAME=VALUE",
            lines.join(", ")
        ));
        open.push(OpenProperty {
            property,
            key: written,
            default: None,
        });
    }
}

/// The `spring.ai.tools` properties whose value names a `${NAME}` no
/// source sets and that Spring refuses for it: each entry bound alone
/// (cheap), the property and value as Spring's refusal names them, each
/// property once, at most `at_most`.
fn unset_placeholder_properties(
    sources: &[(String, Vec<Entry>)],
    at_most: usize,
) -> Vec<(String, String)> {
    let keys: std::collections::HashSet<Vec<String>> = sources
        .iter()
        .flat_map(|(_, d)| d.iter())
        .map(|e| relaxed_name(&e.key))
        .collect();
    let exact: std::collections::HashSet<&str> = sources
        .iter()
        .flat_map(|(_, d)| d.iter())
        .map(|e| e.key.as_str())
        .collect();
    let prefix = "spring.ai.tools";
    // Only a property written once (in any spelling, in any source) is
    // judged here: where it is written more than once, which entry Spring
    // reads is the binder's to say, and the binding loop asks it.
    let mut written: std::collections::HashMap<Vec<String>, usize> = Default::default();
    for e in sources.iter().flat_map(|(_, d)| d.iter()) {
        if property_under(&e.key, prefix) {
            *written.entry(relaxed_name(&e.key)).or_default() += 1;
        }
    }
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for e in sources.iter().flat_map(|(_, d)| d.iter()) {
        let v = e.value.to_java_string();
        if !v.contains("${")
            || !property_under(&e.key, prefix)
            || written.get(&relaxed_name(&e.key)) != Some(&1)
        {
            continue;
        }
        if !placeholder_names_in(&v)
            .iter()
            .any(|n| !exact.contains(n.as_str()) && !keys.contains(&relaxed_name(n)))
        {
            continue;
        }
        if let Err(BindFailure::Bind(PropertyFailure {
            property, value, ..
        })) = bind(&[vec![e.clone()]])
            && seen.insert(relaxed_name(&property))
        {
            out.push((property, value));
            if out.len() == at_most {
                break;
            }
        }
    }
    out
}

/// The names of a value's `${NAME}` placeholders without a default.
fn placeholder_names_in(value: &str) -> Vec<String> {
    placeholder_refs(value)
        .into_iter()
        .filter(|r| !r.has_default && !r.name.is_empty())
        .map(|r| r.name)
        .collect()
}

/// Whether `value` (as Spring left it) holds a `${NAME}` without a default
/// whose name no source sets: Spring refuses it only for want of a value
/// the real environment may give. A circular reference or an empty
/// default is a refusal of its own, whatever the environment.
fn names_an_unset_placeholder(value: &str, sources: &[(String, Vec<Entry>)]) -> bool {
    placeholder_names_in(value).iter().any(|name| {
        !sources.iter().any(|(_, d)| {
            d.iter()
                .any(|e| e.key == *name || same_property(&e.key, name))
        })
    })
}

/// Every scenario under every named behaviour set and the one asked for.
pub(crate) fn evaluate_sets(setup: &Setup, asked: BehaviorSet) -> Vec<SetReport> {
    let mut sets = behavior_sets();
    if !sets.contains(&asked) {
        sets.push(asked);
    }
    report_sets(setup, &sets)
}

#[cfg(test)]
mod tests {
    /// A placeholder nothing resolves leaves its property open, with a
    /// warning at its file and line.
    #[test]
    fn bind_open_leaves_an_unresolved_property_open() {
        use super::bind_open;
        use crate::config::parse_properties;
        let docs =
            parse_properties(b"spring.ai.tools.limits.on-limit-exceeded=${TOOL_POLICY}\n").unwrap();
        let found = bind_open(
            docs.into_iter()
                .map(|d| ("a.properties".to_owned(), d))
                .collect(),
        )
        .unwrap();
        assert_eq!(
            found.open[0].property,
            "spring.ai.tools.limits.on-limit-exceeded"
        );
        assert!(found.unresolved[0].starts_with("a.properties:1 "));
    }

    /// The answer is for the value the environment may set that breaks
    /// most, unless the default is what runs.
    #[test]
    fn worst_open_answers_for_the_worst_value() {
        use super::{bind_open, worst_open};
        use crate::config::{Application, parse_properties};
        use toolcall_model::model::{OnExceeded, SpringAi, behavior_sets};
        let docs =
            parse_properties(b"spring.ai.tools.limits.on-limit-exceeded=${TOOL_POLICY:THROW}\n")
                .unwrap();
        let answer = |defaults_run| {
            let found =
                bind_open(docs.iter().cloned().map(|d| ("a".to_owned(), d)).collect()).unwrap();
            worst_open(
                &docs,
                found,
                &Application::default(),
                SpringAi::default(),
                behavior_sets()[0],
                defaults_run,
            )
        };
        // The environment may set RETURN_ERROR_RESPONSE, which breaks more
        // than the default: the answer is for it, unless the default runs.
        assert_eq!(
            answer(false).bound.limits.on_exceeded,
            OnExceeded::ReturnErrorResponse
        );
        assert!(answer(false).open.unwrap().properties[0].default.is_some());
        assert_eq!(answer(true).bound.limits.on_exceeded, OnExceeded::Throw);
    }

    /// A set asked for that is not a named one gets a report of its own.
    #[test]
    fn evaluate_sets_adds_the_set_asked_for() {
        use super::evaluate_sets;
        use crate::config::Setup;
        use toolcall_model::model::{BehaviorSet, Fixes, behavior_sets};
        let mine = BehaviorSet {
            name: "mine",
            fixes: Fixes::all(),
            gemini_tool_text: true,
        };
        assert_eq!(
            evaluate_sets(&Setup::default(), mine).len(),
            behavior_sets().len() + 1
        );
    }
}
