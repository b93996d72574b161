//! `check`'s answer as text: what Spring Boot reads, the open values, the
//! setup, what breaks under the set asked for, the remedy and the verdict
//! line (with `--all-sets`, every set's row and smallest change).

use std::collections::BTreeSet;

use crate::config::LibraryColumns;
use crate::config::{
    Answer, BuildVersion, CheckScenario, Entry, Format, MAX_BUILD_INTERPOLATION,
    MODELLED_SPRING_AI, Mark, Match, SetReport, clip_lines, describe_setup, fix_library,
    written_names,
};
use toolcall_model::model::{SpringAi, cut};

/// The answer as text, its exit `code` in its verdict line.
pub(super) fn answer(a: &Answer, all_sets: bool, code: u8) -> String {
    Text { a, code }.to_text(all_sets)
}

/// A name or value from the input as one line of text output: its
/// control characters and newlines escaped (`\n`, `\u{1b}`).
pub(super) fn text(s: &str) -> std::borrow::Cow<'_, str> {
    super::super::shown(s)
}

/// Text for a person: every line past 300 characters cut to its first 200
/// and its length (a value can be megabytes long).
pub(super) fn clip(s: &str) -> String {
    clip_lines(s, 300, 200)
}

/// Everything the text answer says.
struct Text<'a> {
    a: &'a Answer,
    code: u8,
}

/// A verdict's text past this many characters is cut (at a word, after
/// the sentence that says what broke) with its length; `--json` has it
/// whole. One line per cause: a terminal wraps it, a log keeps it whole.
const DETAIL_CHARS: usize = 400;

/// `text` on one line, cut at a word past [`DETAIL_CHARS`], and without
/// the `java.lang.` of the exceptions it names.
fn one_line(text: &str) -> String {
    let text = text.replace("java.lang.", "");
    let n = text.chars().count();
    let line = if n > DETAIL_CHARS {
        let head: String = text.chars().take(DETAIL_CHARS).collect();
        let head = head.rsplit_once(' ').map_or(head.as_str(), |(h, _)| h);
        format!("{head}... ({n} characters; --json has them all)")
    } else {
        text
    };
    line.trim_end().to_owned()
}

impl Text<'_> {
    fn to_text(&self, all_sets: bool) -> String {
        let (a, mine) = (self.a, self.a.asked());
        let mut out = String::new();
        if let Some(b) = &a.build {
            out.push_str(&version_line(b));
            out.push('\n');
        }
        out.push_str(&self.read_text());
        if let Some(open) = &a.open {
            out.push_str(&open.to_text(mine.set.name));
        }
        if let Some(i) = &a.installed {
            out.push_str(&installed_text(i));
        }
        out.push_str(&format!(
            "Setup: Spring AI {}, {}\n",
            a.setup.version,
            text(&describe_setup(&a.setup))
        ));
        if all_sets {
            out.push_str(&matrix_text(&a.reports));
        }
        out.push_str(&self.breaks_text());
        out.push_str(&remedy_text(a, self.code));
        out.push('\n');
        if all_sets {
            let safe: Vec<&str> = a
                .reports
                .iter()
                .filter(|r| r.safe())
                .map(|r| r.set.name)
                .collect();
            out.push_str(&format!(
                "Safe as configured under: {}\n",
                if safe.is_empty() {
                    "no behaviour set".to_owned()
                } else {
                    safe.join(", ")
                }
            ));
        }
        out.push_str(&self.verdict_line());
        out.push_str(if all_sets {
            "Full texts: --json; another set: --fixes LIST\n"
        } else {
            "Every behaviour set: --all-sets; full texts: --json; another set: --fixes LIST\n"
        });
        out
    }

    /// What Spring Boot reads: the files, the notes, every property bound
    /// and every key or placeholder it ignores or leaves open.
    fn read_text(&self) -> String {
        let a = self.a;
        let mut out = String::new();
        let profiles = if a.active == ["default"] {
            String::new()
        } else {
            format!(" (profiles {})", text(&a.active.join(", ")))
        };
        let files: Vec<_> = a.files.iter().map(|f| text(f)).collect();
        out.push_str(&format!(
            "{}{profiles}: Spring Boot reads\n",
            files.join(" + ")
        ));
        for n in &a.notes {
            out.push_str(&clip(&text(n)));
            out.push('\n');
        }
        if a.bound.read.is_empty() {
            out.push_str("  (no spring.ai.tools key: every default)\n");
        }
        let docs: Vec<Vec<Entry>> = a.sources.iter().map(|(_, d)| d.clone()).collect();
        let written = written_names(&a.bound, &docs);
        let answered_for = a.open.as_ref().map(|o| o.named(&o.tried[0].0));
        for (k, v) in &a.bound.read {
            let open = answered_for
                .iter()
                .flatten()
                .any(|(p, set)| p == k && set.is_some());
            let mark = if open { " (an open value: below)" } else { "" };
            let k = written.get(k).unwrap_or(k);
            out.push_str(&clip(&text(&format!("  {k} = {v}{mark}"))));
            out.push('\n');
        }
        for u in &a.bound.unknown {
            out.push_str(&clip(&text(&format!(
                "{}: line {}: Spring ignores '{}'{}",
                if a.keys_fail { "error" } else { "warning" },
                u.line,
                u.key,
                crate::cli::sarif::did_you_mean(u)
            ))));
            out.push('\n');
        }
        let open_names: Vec<&str> = a
            .open
            .iter()
            .flat_map(|o| o.properties.iter())
            .filter(|p| p.default.is_some())
            .map(|p| p.key.as_str())
            .collect();
        for p in &a.bound.placeholders_not_in_file {
            let how = if open_names.is_empty() {
                "read with its default (or as written); Spring would take it from a system property or environment variable first; --set NAME=VALUE gives it"
            } else {
                "the environment may set it: answered at its default and at each value that can change the answer (below); --set NAME=VALUE, or --defaults-run, says what runs"
            };
            out.push_str(&clip(&text(&format!(
                "warning: ${{{p}}} is not set here: {how}"
            ))));
            out.push('\n');
        }
        for u in &a.unresolved {
            out.push_str(&one_line(&text(&format!("warning: {u}"))));
            out.push('\n');
        }
        out
    }

    /// What breaks under the set asked for, one line per cause (scenarios
    /// that break with the same text share it), then the accepted ones.
    fn breaks_text(&self) -> String {
        let mine = self.a.asked();
        let failing: Vec<_> = mine
            .verdicts
            .iter()
            .filter(|v| !v.mark.survives())
            .collect();
        if failing.is_empty() {
            // A line that accepts what no longer breaks is named all the
            // same: the file should say what the team accepts today.
            let stale = self.stale_text();
            return if stale.is_empty() {
                stale
            } else {
                format!("\n{stale}")
            };
        }
        let accepted = |s: CheckScenario| self.a.gate.accepted.iter().find(|(x, _)| *x == s);
        let mut groups: Vec<(Vec<&str>, &str, &str)> = Vec::new();
        for v in failing.iter().filter(|v| accepted(v.scenario).is_none()) {
            match groups
                .iter_mut()
                .find(|(_, m, d)| *m == v.mark.word() && *d == v.detail)
            {
                Some(g) => g.0.push(v.scenario.column()),
                None => groups.push((vec![v.scenario.column()], v.mark.word(), &v.detail)),
            }
        }
        let mut out = format!(
            "\nWhat breaks under {} ({} of {} scenarios):\n",
            mine.set.name,
            failing.len(),
            mine.verdicts.len()
        );
        for (columns, mark, detail) in groups {
            let line = format!("  {} ({mark}): {}", columns.join(", "), text(detail));
            out.push_str(&one_line(&line));
            out.push('\n');
        }
        for (s, a) in &self.a.gate.accepted {
            let why = if a.reason.is_empty() {
                String::new()
            } else {
                format!(": {}", a.reason)
            };
            out.push_str(&one_line(&text(&format!(
                "  accepted ({}): {} ({}){why}",
                a.origin,
                s.column(),
                a.mark
            ))));
            out.push('\n');
        }
        out.push_str(&self.stale_text());
        out
    }

    /// A note per accepted finding that matches nothing that breaks.
    fn stale_text(&self) -> String {
        let mut out = String::new();
        for a in &self.a.gate.stale {
            out.push_str(&one_line(&text(&format!(
                "  note: {} accepts {} ({}), which does not break so under {}: update or remove it",
                a.origin,
                a.scenario.column(),
                a.mark,
                self.a.asked().set.name
            ))));
            out.push('\n');
        }
        out
    }

    fn verdict_line(&self) -> String {
        let (mine, gate) = (self.a.asked(), &self.a.gate);
        let mut why: Vec<String> = Vec::new();
        if !gate.open.is_empty() {
            why.push(
                gate.open
                    .iter()
                    .map(|s| s.column())
                    .collect::<Vec<_>>()
                    .join(", "),
            );
        }
        if self.a.keys_fail {
            why.push(format!(
                "{} key(s) Spring ignores (--strict-keys)",
                self.a.bound.unknown.len()
            ));
        }
        let accepted = if gate.accepted.is_empty() {
            String::new()
        } else {
            format!(
                " ({} accepted: {})",
                gate.accepted.len(),
                gate.accepted
                    .iter()
                    .map(|(s, _)| s.column())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        if why.is_empty() {
            let how = if mine.safe() { "safe" } else { "passes" };
            format!(
                "Verdict: {how} under {}{accepted} (exit {})\n",
                mine.set.name, self.code
            )
        } else {
            format!(
                "Verdict: not safe under {}: {}{accepted} (exit {})\n",
                mine.set.name,
                why.join("; "),
                self.code
            )
        }
    }
}

/// `--all-sets`: every behaviour set's row, the marks, the scenarios, and
/// each set's smallest change (the sets that share one named together).
fn matrix_text(reports: &[SetReport]) -> String {
    let mut out = String::from("\n");
    let name_w = reports
        .iter()
        .map(|r| r.set.name.len())
        .max()
        .unwrap_or(13)
        .max(13)
        + 1;
    let mut head = format!("{:<name_w$}", "behaviour set");
    for s in CheckScenario::ALL {
        head.push_str(&format!("{:<10}", s.column()));
    }
    out.push_str(head.trim_end());
    out.push('\n');
    for r in reports {
        let mut l = format!("{:<name_w$}", r.set.name);
        for v in &r.verdicts {
            l.push_str(&format!("{:<10}", v.mark.word()));
        }
        out.push_str(l.trim_end());
        out.push('\n');
    }
    out.push_str("\nMarks:");
    for m in marks_used(reports) {
        out.push_str(&format!("\n  {:<10}{}", m.word(), m.meaning()));
    }
    out.push_str("\n\nScenarios:");
    for s in CheckScenario::ALL {
        out.push_str(&format!("\n  {:<10}{}", s.column(), s.describe()));
    }
    out.push_str("\n\nThe smallest change that makes it safe, per set:\n");
    let mut changes: Vec<(String, Vec<&str>)> = Vec::new();
    for r in reports {
        let c = change_text(r);
        match changes.iter_mut().find(|(t, _)| *t == c) {
            Some((_, sets)) => sets.push(r.set.name),
            None => changes.push((c, vec![r.set.name])),
        }
    }
    for (change, sets) in changes {
        out.push_str(&one_line(&format!(
            "  {}: {}",
            text(&change),
            sets.join(", ")
        )));
        out.push('\n');
    }
    out
}

/// A set's smallest change, as the matrix names it.
fn change_text(r: &SetReport) -> String {
    match &r.smallest_change {
        Some(c) if c.is_empty() => "safe as configured".to_owned(),
        Some(c) => c
            .iter()
            .map(|x| x.describe())
            .collect::<Vec<_>>()
            .join(" and "),
        None => "no configuration change of one or two settings is enough".to_owned(),
    }
}

/// "Fix it today": the configuration change, and the fix library's
/// switches in the first file's syntax. Beside a failing verdict (exit
/// `code` 1) it never says there is nothing to change.
fn remedy_text(a: &Answer, code: u8) -> String {
    let r = &a.remedy;
    let mut out = String::from("\nFix it today:\n");
    match &r.change {
        Some(c) if c.is_empty() && code == 0 => {
            out.push_str(&format!(
                "  nothing to change: upstream Spring AI {} survives every scenario\n",
                r.version
            ));
            return out;
        }
        Some(c) if c.is_empty() => {
            out.push_str(&format!(
                "  the scenarios: upstream Spring AI {} survives every one\n",
                r.version
            ));
            if a.keys_fail {
                out.push_str(
                    "  the keys Spring ignores (above): spell each as Spring binds it, or remove it\n",
                );
            }
            return out;
        }
        Some(c) => out.push_str(&format!(
            "  without a new library: {}\n",
            c.iter()
                .map(|x| x.describe())
                .collect::<Vec<_>>()
                .join(" and ")
        )),
        None => {
            out.push_str("  without a new library: no change of one or two settings is enough\n")
        }
    }
    let installed = a.installed.as_ref().map(|i| i.fixes);
    match r.fixes {
        Some(f) if installed == Some(f) => out.push_str(
            "  with the fix library: the switches it installs (above) are enough; none more\n",
        ),
        Some(f) if !f.is_upstream() => {
            // On a version without 2.0.1's limits the library starts, but
            // the fixes that change the manager read 2.0.1's internals and
            // stay off there (docs/FIXES.md, the fixes on each version).
            let off: Vec<&str> = f
                .iter()
                .filter(|x| x.beans().contains(&"manager"))
                .map(|x| x.name())
                .collect();
            if !r.version.has_limits() && !off.is_empty() {
                out.push_str(&format!(
                    "  on Spring AI {} the fix library runs without the fixes that read 2.0.1's manager ({}): upgrade to 2.0.1 for those\n",
                    r.version,
                    off.join(", ")
                ));
            }
            // The switches the library installs already are not repeated.
            let more: Vec<String> = r
                .properties()
                .into_iter()
                .filter(|p| {
                    !installed.is_some_and(|i| {
                        i.iter()
                            .any(|x| p == &format!("toolcall.fixes.{}=true", x.name()))
                    })
                })
                .collect();
            out.push_str(&switches_text(&more, a.format, fix_library(r.version)));
        }
        _ => out.push_str("  no combination of the fix library's switches makes it safe\n"),
    }
    out.push_str(&beyond_text(r));
    if a.keys_fail {
        out.push_str(
            "  the keys Spring ignores (above): spell each as Spring binds it, or remove it\n",
        );
    }
    out
}

/// On 1.1, what no switch of the library closes, what the application
/// can do instead, and how to accept it.
fn beyond_text(r: &crate::config::Remedy) -> String {
    let mut out = String::new();
    for (s, m) in &r.beyond {
        let v = r.version;
        let (why, instead) = if *m == Mark::Runaway {
            (
                format!(
                    "Spring AI {v} has no tool call limits: nothing bounds the chat model's tool loop"
                ),
                "bound the loop in the application",
            )
        } else if r.memory_in_tool_call_advisor {
            (
                format!("not one of its switches on Spring AI {v} changes it"),
                "order MessageChatMemoryAdvisor before ToolCallAdvisor (--memory outside)",
            )
        } else {
            (
                format!("not one of its switches on Spring AI {v} changes it"),
                "change the application",
            )
        };
        out.push_str(&format!(
            "  {} ({}) stays with every switch of the fix library: {why}; {instead}, or accept it: --accept-finding '{} {}'\n",
            s.column(),
            m.word(),
            s.column(),
            m.word()
        ));
    }
    out
}

/// What the fix library installs: its fixes, then why each.
fn installed_text(i: &crate::config::Installed) -> String {
    let fixes: Vec<_> = i.fixes.iter().collect();
    let mut out = if fixes.is_empty() {
        "The fix library installs no fix".to_owned()
    } else {
        format!(
            "The fix library installs {}",
            fixes
                .iter()
                .map(|f| f.name())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    if i.json_error_processor {
        out.push_str(" and its JSON-error processor");
    }
    out.push('\n');
    for r in &i.reasons {
        out.push_str(&clip(&text(&format!("  {r}"))));
        out.push('\n');
    }
    out
}

/// The fix library's switches (`toolcall.fixes.NAME=true`) as lines to
/// add to the file: properties as they are, YAML as one block.
pub(super) fn switches_text(properties: &[String], format: Format, library: &str) -> String {
    match format {
        Format::Properties => {
            let mut out =
                format!("  with the fix library ({library}), in application.properties:\n");
            for p in properties {
                out.push_str(&format!("    {p}\n"));
            }
            out
        }
        Format::Yaml => {
            let mut out = format!(
                "  with the fix library ({library}), in application.yml:\n    toolcall:\n      fixes:\n"
            );
            for p in properties {
                let (key, value) = p.split_once('=').unwrap_or((p, "true"));
                let name = key.strip_prefix("toolcall.fixes.").unwrap_or(key);
                out.push_str(&format!("        {name}: {value}\n"));
            }
            out
        }
    }
}

/// Every mark the reports use, each once, in table order.
pub(super) fn marks_used(reports: &[SetReport]) -> Vec<Mark> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for r in reports {
        for v in &r.verdicts {
            if seen.insert(v.mark.word()) {
                out.push(v.mark);
            }
        }
    }
    out
}

/// The build file's Spring AI version as the answer's first line (a
/// warning when it is not 2.0.1): one line, control characters escaped, a
/// long text cut so that the line stays whole.
pub(super) fn version_line(b: &BuildVersion) -> String {
    let name = text(&b.file).into_owned();
    let found = &b.found;
    let v = found
        .as_deref()
        .map(|v| match cut(v, 64, 40) {
            Some((head, n)) => format!("{}... ({n} characters)", text(head)),
            None => text(v).into_owned(),
        })
        .unwrap_or_default();
    let line = b.version;
    match found {
        Some(f) if f == MODELLED_SPRING_AI => format!("{name}: Spring AI {v}"),
        Some(_) if b.matched == Some(Match::Exact) && line.loop_in_chat_model() => format!(
            "{name}: Spring AI {v}: answered for the 1.1 line: the tool loop inside the chat model, no tool call limits (the breach scenarios do not apply: n/a)"
        ),
        Some(_) if b.matched == Some(Match::Line) => format!(
            "{name}: Spring AI {v}: answered for the 1.1 line, as {line} (from 1.1.0 to 1.1.8 the Gemini conversion, the manager and the chat model's tool loop are 1.1.2's): the tool loop inside the chat model, no tool call limits (the breach scenarios do not apply: n/a)"
        ),
        Some(_) if b.matched == Some(Match::Unread) => format!(
            "warning: {name}: Spring AI {v}: not a 1.1 release this model was read against (1.1.0 to 1.1.8); answered for the 1.1 line as {line}; the verdicts may not hold for {v}"
        ),
        Some(f) if f == SpringAi::V2_0_0.name() => format!(
            "{name}: Spring AI {v}: answered for {v}, which has no tool call limits: the breach scenarios do not apply (n/a)"
        ),
        Some(f) if f.contains("${") => format!(
            "warning: {name}: Spring AI {v}: unresolved (a property the file does not set, one that refers to itself, or one nested past {MAX_BUILD_INTERPOLATION} levels); answered for {MODELLED_SPRING_AI}, which this model reproduces"
        ),
        Some(f)
            if !f.starts_with(|c: char| c.is_ascii_digit())
                || !f
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_')) =>
        {
            format!(
                "warning: {name}: Spring AI `{v}`: cannot be read as a version; answered for {MODELLED_SPRING_AI}"
            )
        }
        Some(_) => format!(
            "warning: {name}: Spring AI {v}, not {MODELLED_SPRING_AI}: this model reproduces {MODELLED_SPRING_AI}; the verdicts may not hold for {v}"
        ),
        None => format!(
            "warning: {name}: no Spring AI version found (spring-ai.version, springAiVersion or an org.springframework.ai artifact); this model reproduces {MODELLED_SPRING_AI}"
        ),
    }
}
