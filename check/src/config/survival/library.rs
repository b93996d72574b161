//! What the fix library (`toolcall-fixes`, its starter) installs in the
//! application the files describe: its switches `toolcall.fixes.NAME` read
//! from the same sources Spring reads (relaxed names, the last one
//! winning), and for an unset switch the library's own rule
//! (docs/FIXES.md, "What it installs"): `strict-json-or-wrap` with a
//! Gemini chat model, `end-turn-after-breach` under
//! `RETURN_ERROR_RESPONSE`, the three memory fixes with the memory inside
//! the loop; `toolcall.fixes.enabled=false` turns it off.

use super::Setup;
use crate::config::binding::{Entry, JavaValue};
use crate::config::binding::{property_under, same_property};
use crate::config::library_table::{Decider, LibraryColumns, Unset};
use toolcall_model::chat::{Memory, Provider};
use toolcall_model::model::{Fix, Fixes, OnExceeded};

/// The prefix of the library's switches.
const PREFIX: &str = "toolcall.fixes";

/// What the library installs, and why each fix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    /// The fixes installed.
    pub fixes: Fixes,
    /// `toolcall.fixes.json-error-processor`: the library's processor
    /// bean writes `{"error": MESSAGE}`.
    pub json_error_processor: bool,
    /// Per fix installed (and per switch set to false or not read), why:
    /// `end-turn-after-breach: unset, on-limit-exceeded is
    /// RETURN_ERROR_RESPONSE`.
    pub reasons: Vec<String>,
}

/// A switch as the sources set it: its value and where.
struct Switch {
    value: Result<bool, String>,
    at: String,
}

/// Spring's conversion of a text to `boolean`, as the binder does it
/// (`true`/`false`, `on`/`off`, `yes`/`no`, `1`/`0`, any case).
fn boolean(v: &JavaValue) -> Result<bool, String> {
    match v {
        JavaValue::Boolean(b) => Ok(*b),
        JavaValue::Integer(1) => Ok(true),
        JavaValue::Integer(0) => Ok(false),
        JavaValue::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "on" | "yes" | "1" => Ok(true),
            "false" | "off" | "no" | "0" => Ok(false),
            _ if s.contains("${") => Err(format!("'{s}' names a placeholder")),
            _ => Err(format!("'{s}' is not a boolean")),
        },
        other => Err(format!("'{}' is not a boolean", other.to_java_string())),
    }
}

/// The switch `name` (`strict-json-or-wrap`, `enabled`) as the sources
/// set it: the last entry of that relaxed name.
fn switch(sources: &[(String, Vec<Entry>)], name: &str) -> Option<Switch> {
    let want = format!("{PREFIX}.{name}");
    sources.iter().rev().find_map(|(origin, entries)| {
        entries
            .iter()
            .rev()
            .find(|e| same_property(&e.key, &want))
            .map(|e| Switch {
                value: boolean(&e.value),
                at: if e.line > 0 {
                    format!("{origin}:{}", e.line)
                } else {
                    origin.clone()
                },
            })
    })
}

/// Whether any source sets a `toolcall.fixes.*` key.
fn any_switch(sources: &[(String, Vec<Entry>)]) -> bool {
    sources
        .iter()
        .flat_map(|(_, e)| e.iter())
        .any(|e| property_under(&e.key, PREFIX) && !same_property(&e.key, PREFIX))
}

/// The library's rule for an unset switch: whether it installs `fix` for
/// `setup`, and why. Which fixes it decides is the fix table's
/// ([`LibraryColumns::unset`]); what each decision reads of the setup is
/// here.
fn by_default(fix: Fix, setup: &Setup) -> Option<&'static str> {
    let Unset::Decided(decider) = fix.unset() else {
        return None;
    };
    match decider {
        Decider::GeminiChatModel => {
            (setup.provider == Provider::Gemini).then_some("a Gemini chat model")
        }
        Decider::ReturnErrorResponse => (setup.limits.on_exceeded
            == OnExceeded::ReturnErrorResponse)
            .then_some("on-limit-exceeded is RETURN_ERROR_RESPONSE"),
        Decider::MemoryInsideLoop => {
            (setup.memory == Memory::Inside).then_some("the memory is inside the loop")
        }
    }
}

/// What the library installs for the sources and `setup` (the setup the
/// sources bind, before the library): `None` when the library is not
/// there, neither declared (`library`: the build's starter, or the flag)
/// nor implied by a `toolcall.fixes.*` key of the sources.
pub(crate) fn installed(
    sources: &[(String, Vec<Entry>)],
    library: bool,
    setup: &Setup,
) -> Option<Installed> {
    if !library && !any_switch(sources) {
        return None;
    }
    let mut out = Installed {
        fixes: Fixes::upstream(),
        json_error_processor: false,
        reasons: Vec::new(),
    };
    if let Some(s) = switch(sources, "enabled") {
        match s.value {
            Ok(false) => {
                out.reasons.push(format!(
                    "the library is off: toolcall.fixes.enabled=false ({})",
                    s.at
                ));
                return Some(out);
            }
            Ok(true) => {}
            Err(e) => out.reasons.push(format!(
                "toolcall.fixes.enabled ({}): {e}: read as unset (on)",
                s.at
            )),
        }
    }
    for fix in Fix::ALL {
        let name = fix.name();
        if !super::library_has(setup.version, fix) {
            if let Some(s) = switch(sources, name) {
                out.reasons.push(format!(
                    "{name} ({}): not a switch of {} (Spring AI {}): not read",
                    s.at,
                    super::fix_library(setup.version),
                    setup.version
                ));
            }
            continue;
        }
        let on = match switch(sources, name) {
            Some(Switch { value: Ok(v), at }) => {
                out.reasons.push(format!("{name}={v} ({at})"));
                v
            }
            Some(Switch { value: Err(e), at }) => {
                let d = by_default(fix, setup);
                out.reasons.push(format!(
                    "{name} ({at}): {e}: read as unset ({})",
                    if d.is_some() { "on" } else { "off" }
                ));
                d.is_some()
            }
            None => match by_default(fix, setup) {
                Some(why) => {
                    out.reasons.push(format!("{name}: unset, on: {why}"));
                    true
                }
                None => false,
            },
        };
        if on {
            out.fixes = out.fixes.with(fix);
        }
    }
    if let Some(s) = switch(sources, "json-error-processor") {
        if !super::spring_ai::library_has_json_error_processor(setup.version) {
            out.reasons.push(format!(
                "json-error-processor ({}): not a switch of {} (Spring AI {}): not read",
                s.at,
                super::fix_library(setup.version),
                setup.version
            ));
            return Some(out);
        }
        match s.value {
            Ok(v) => {
                out.json_error_processor = v;
                out.reasons
                    .push(format!("json-error-processor={v} ({})", s.at));
            }
            Err(e) => out.reasons.push(format!(
                "json-error-processor ({}): {e}: read as unset (off)",
                s.at
            )),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Format, Options, Sources, Text, answer};

    fn entry(key: &str, value: &str) -> Entry {
        Entry {
            key: key.to_owned(),
            value: JavaValue::String(value.to_owned()),
            line: 1,
            column: 1,
        }
    }

    #[test]
    fn switches_by_relaxed_name_and_the_library_s_defaults() {
        let setup = Setup {
            limits: toolcall_model::model::ToolCallLimits {
                on_exceeded: OnExceeded::ReturnErrorResponse,
                ..Default::default()
            },
            ..Setup::default()
        };
        assert_eq!(installed(&[], false, &setup), None);
        let i = installed(&[], true, &setup).unwrap();
        assert_eq!(
            i.fixes.iter().collect::<Vec<_>>(),
            [Fix::StrictJsonOrWrap, Fix::EndTurnAfterBreach]
        );
        let sources = vec![(
            "a.properties".to_owned(),
            vec![
                entry("toolcall.fixes.strictJsonOrWrap", "off"),
                entry("toolcall.Fixes.error-Key", "yes"),
            ],
        )];
        let i = installed(&sources, false, &setup).unwrap();
        assert_eq!(
            i.fixes.iter().collect::<Vec<_>>(),
            [Fix::ErrorKey, Fix::EndTurnAfterBreach]
        );
        let off = vec![(
            "a".to_owned(),
            vec![entry("toolcall.fixes.enabled", "false")],
        )];
        assert!(installed(&off, true, &setup).unwrap().fixes.is_upstream());
    }

    /// Unset, the library turns on exactly the fixes the table's `unset`
    /// column says it decides, where each decision's condition holds, and
    /// no other: the Java library's decided-at-start fixes are the same
    /// column's rows (`DefaultsOnGeminiTests` in conformance/fixes).
    #[test]
    fn unset_switches_turn_on_the_table_s_decided_fixes_only() {
        let every_condition = Setup {
            limits: toolcall_model::model::ToolCallLimits {
                on_exceeded: OnExceeded::ReturnErrorResponse,
                ..Default::default()
            },
            memory: Memory::Inside,
            provider: Provider::Gemini,
            ..Setup::default()
        };
        let decided: Vec<Fix> = Fix::ALL
            .into_iter()
            .filter(|f| matches!(f.unset(), Unset::Decided(_)))
            .collect();
        assert!(!decided.is_empty() && decided.len() < Fix::ALL.len());
        let on = installed(&[], true, &every_condition).unwrap().fixes;
        assert_eq!(on.iter().collect::<Vec<_>>(), decided);
        let no_condition = Setup {
            provider: Provider::None,
            ..Setup::default()
        };
        assert!(
            installed(&[], true, &no_condition)
                .unwrap()
                .fixes
                .is_upstream()
        );
        for fix in Fix::ALL {
            assert_eq!(
                by_default(fix, &every_condition).is_some(),
                decided.contains(&fix),
                "{fix}"
            );
        }
    }

    /// On 1.1 the Boot 3 starter's one switch is read; the others are
    /// listed as not read and install nothing.
    #[test]
    fn on_1_1_only_the_boot3_starter_s_switch_is_read() {
        let setup = Setup {
            version: toolcall_model::model::SpringAi::V1_1_2,
            ..Setup::default()
        };
        let sources = vec![(
            "a.properties".to_owned(),
            vec![
                entry("toolcall.fixes.error-key", "true"),
                entry("toolcall.fixes.json-error-processor", "true"),
            ],
        )];
        let i = installed(&sources, false, &setup).unwrap();
        assert_eq!(i.fixes.iter().collect::<Vec<_>>(), [Fix::StrictJsonOrWrap]);
        assert!(!i.json_error_processor);
        assert_eq!(
            i.reasons,
            [
                "strict-json-or-wrap: unset, on: a Gemini chat model",
                "error-key (a.properties:1): not a switch of io.github.toolcallmodel:toolcall-fixes-boot3-spring-boot-starter:0.1.0 (Spring AI 1.1.2): not read",
                "json-error-processor (a.properties:1): not a switch of io.github.toolcallmodel:toolcall-fixes-boot3-spring-boot-starter:0.1.0 (Spring AI 1.1.2): not read",
            ]
        );
    }

    #[test]
    fn the_file_s_switches_are_the_set_answered_for() {
        let text = "spring.ai.tools.limits.on-limit-exceeded=RETURN_ERROR_RESPONSE\n\
                    spring.ai.tools.limits.max-calls-per-tool-default=1\n\
                    toolcall.fixes.strict-json-or-wrap=true\n";
        let options = Options {
            asked_from_files: true,
            ..Options::default()
        };
        let a = answer(
            Sources::of(vec![Text::new("a.properties", Format::Properties, text)]),
            &options,
        )
        .unwrap();
        let installed = a.installed.as_ref().unwrap();
        assert_eq!(
            installed.fixes.iter().collect::<Vec<_>>(),
            [Fix::StrictJsonOrWrap, Fix::EndTurnAfterBreach]
        );
        assert_eq!(a.asked().set.fixes, installed.fixes);
    }
}
