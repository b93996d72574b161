//! Spring Boot's reading of the `spring.ai.tools.*` properties for Spring
//! AI 2.0.1's `ToolCallingAutoConfiguration`: the `application.properties`
//! loader (`OriginTrackedPropertiesLoader`), relaxed names
//! (`ConfigurationPropertyName`), the binder's conversions
//! (`ApplicationConversionService`) and messages (`BindFailureAnalyzer`),
//! and the auto-configuration's builder calls on `ToolCallLimits`.
//!
//! YAML is parsed outside the library (the command line's YAML reader): it
//! hands over [`Entry`]s whose values carry the Java type SnakeYAML 1.1
//! resolution gives a plain scalar ([`resolve_yaml_scalar`]).
//!
//! Pure: no IO.
//!
//! One file per step: `properties.rs` (the loader), `yaml_scalar.rs`
//! (SnakeYAML's scalar types), `names.rs` (relaxed names and Java's orders),
//! `placeholders.rs` (`${...}`), `binder.rs` (the binder and the builder
//! calls, [`bind`]) and `unknown.rs` (unknown keys and their suggestions);
//! this file holds the values and the answers they share.
//!
//! # Checked against Spring Boot
//!
//! `tests/spring_binding.rs` binds every file of `tests/spring_config/`
//! with a real Spring Boot 4.1.1 application and Spring AI 2.0.1's
//! `ToolCallingAutoConfiguration` (`conformance/java`'s `BindProbe`) and
//! requires the same limits or the same refusal. What it found, and what
//! this module now does as Spring does:
//!
//! * **Which spelling wins.** Within one document the property whose key
//!   is the canonical name wins; without one, the first of Spring's
//!   `HashSet` of the equal keys (by `String.hashCode()`), not the last in
//!   the file. A map entry's value is looked up by the entry's name, so
//!   `max-calls-per-tool.Foo` and `.FOO` are two keys that both take the
//!   value of `.foo` when the file has it (the model merged them into one).
//! * **Documents.** A later document wins per property, but a list is
//!   taken whole from the last document that gives it (its `[0]`, `[1]`
//!   or its value), and a map gathers the keys of every document.
//! * **Order of errors.** `JavaBeanBinder` binds `is` getters before `get`
//!   ones: `throw-exception-on-error` is checked before `limits`; map
//!   entries bind last document first; the builder takes the overrides in
//!   `HashMap` order, so of a blank name and a zero, either may be reported.
//! * **Primitive booleans.** An empty or blank value (YAML `~` or nothing)
//!   for `throw-exception-on-error`, `include-content` or
//!   `fallback.enabled` is refused: `A null value cannot be assigned to a
//!   primitive type` (the model read it as unset).
//! * **Names.** An element with no valid character (`_`, `天气`) is dropped,
//!   so `max-calls-per-tool.天气` is the map itself; `wetter_ä` is the key
//!   `wetter_`; a list child that is not an index (`excluded-tools.foo`) is
//!   ignored, while `[01]` or `[x]` is an unbound element; unbound elements
//!   are listed in `ConfigurationPropertyName` order (`[2]`, `[9]`, `[10]`,
//!   `[x]`); the reported property is the name bound, in canonical form.
//! * **Groups.** `spring.ai.tools.limits=` (YAML `limits:` with nothing
//!   under it) stops the application: `No setter found for property:
//!   limits`; another value there is refused only when no property of the
//!   group binds. A YAML boolean two levels under the map drops its entry.
//! * **Placeholders.** `${NAME:default}` is resolved (Spring 7's
//!   `PlaceholderParser`: nesting, `\` escapes, circular references
//!   refused); the file is the only source here, so a name it does not set
//!   is listed in [`BoundProperties::placeholders_not_in_file`].
//! * **Origins.** An empty value at a line's end stands at the next line,
//!   column 0 (`CharacterReader.getLocation()`).
//!
//! Confirmed as modelled: `.properties` files are read as ISO-8859-1
//! (UTF-8 bytes become two characters); non-ASCII map keys keep only what
//! relaxed names keep (brackets keep everything); YAML numbers convert to
//! the enum by ordinal, and a `Long` or `Double` has no converter.
//!
//! Known limits: the JDK 17 `HashMap` sizing is modelled (JDK 19 and later
//! presize differently for 3, 6, 12... overrides, which can change which of
//! two builder errors is reported); an index past `long` in an unbound list
//! element is compared by its digits (Java throws `NumberFormatException`).

mod binder;
mod names;
mod placeholders;
mod properties;
mod unknown;
mod yaml_scalar;

pub use self::binder::bind;
pub(crate) use self::binder::bind_parsed;
pub(crate) use self::names::KNOWN_KEYS;
pub(crate) use self::names::ParsedDocument;
pub(crate) use self::names::{map_key_under, property_under, relaxed_name, same_property};
pub use self::placeholders::resolve_placeholders;
pub(crate) use self::placeholders::{ValueResolver, placeholder_refs};
pub use self::properties::parse_properties;
pub(crate) use self::yaml_scalar::resolve_yaml_scalar;

use std::collections::BTreeMap;

use toolcall_model::model::ToolCallLimits;

/// A property value as its property source holds it: the Java object.
#[derive(Debug, Clone, PartialEq)]
pub enum JavaValue {
    /// `java.lang.String` (every `.properties` value, quoted YAML scalars).
    String(String),
    /// `java.lang.Integer`.
    Integer(i32),
    /// `java.lang.Long`.
    Long(i64),
    /// `java.math.BigInteger`, as decimal text.
    BigInteger(String),
    /// `java.lang.Double`.
    Double(f64),
    /// `java.lang.Boolean`.
    Boolean(bool),
}

impl JavaValue {
    /// The Java class name.
    pub fn class(&self) -> &'static str {
        match self {
            JavaValue::String(_) => "java.lang.String",
            JavaValue::Integer(_) => "java.lang.Integer",
            JavaValue::Long(_) => "java.lang.Long",
            JavaValue::BigInteger(_) => "java.math.BigInteger",
            JavaValue::Double(_) => "java.lang.Double",
            JavaValue::Boolean(_) => "java.lang.Boolean",
        }
    }

    /// `toString()`.
    pub(crate) fn to_java_string(&self) -> String {
        match self {
            JavaValue::String(s) => s.clone(),
            JavaValue::Integer(n) => n.to_string(),
            JavaValue::Long(n) => n.to_string(),
            JavaValue::BigInteger(s) => s.clone(),
            JavaValue::Double(d) => java_double(*d),
            JavaValue::Boolean(b) => b.to_string(),
        }
    }
}

/// `Double.toString` (shortest digits, Java's layout).
fn java_double(d: f64) -> String {
    if d.is_nan() {
        return "NaN".into();
    }
    if d.is_infinite() {
        return if d > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if d == 0.0 {
        return if d.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    let a = d.abs();
    if (1e-3..1e7).contains(&a) {
        let s = format!("{d:?}");
        return if s.contains('.') { s } else { format!("{s}.0") };
    }
    // Scientific: d.dddE±n with at least one fractional digit.
    let s = format!("{d:e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let mant = if mant.contains('.') {
        mant.to_owned()
    } else {
        format!("{mant}.0")
    };
    format!("{mant}E{exp}")
}

/// One property: its name as written, its value, and where it stands
/// (1-based line and column).
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The name as the source gives it (`spring.ai.tools.limits.excluded-tools[0]`).
    pub key: String,
    /// The value.
    pub value: JavaValue,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}

/// A file Spring cannot load, or one past this model's limits.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} (line {line})")]
pub struct LoadError {
    /// Spring's message, or the limit's.
    pub message: String,
    /// 1-based line.
    pub line: usize,
    /// Past a limit of this model ([`MAX_CONFIG_BYTES`],
    /// `MAX_EXPANDED_BYTES`), not Spring's refusal.
    pub not_modelled: bool,
}

/// The largest `application.properties` or `application.yml` read (4
/// MiB, some 50,000 lines): such a file is a few kilobytes; a file of this
/// size of nothing but tool-calling keys takes about a second and 150 MB.
pub const MAX_CONFIG_BYTES: usize = 4 << 20;

/// The most bytes `check` reads in all: the files given and the profile
/// files beside them together (16 MiB, four files at their limit). Each
/// file is read once however many names lead to it, but distinct profile
/// files are as many as the active profiles, and each costs its own
/// parse: past this the answer is refused rather than taking memory and
/// time in proportion to the profiles (40 names of one 4 MB file once took
/// 3.2 GB).
pub(crate) const MAX_CONFIG_TOTAL_BYTES: usize = 4 * MAX_CONFIG_BYTES;

/// What one file may expand to, past its own bytes: the properties a
/// `key[]=a,b,...` line or a YAML file's flattening and aliases make (keys
/// and values), and the work of resolving its placeholders (text produced at
/// every level, values parsed, names looked up). 32 MiB, eight times the
/// largest file: a real configuration expands to a few times its size;
/// past this the file is `not_checked` instead of taking time and memory
/// exponential in its size (a 700-byte file of doubling placeholders
/// expands to terabytes). SnakeYAML bounds aliases the same way
/// (`maxAliasesForCollections`); Spring's resolver has no bound.
pub(crate) const MAX_EXPANDED_BYTES: usize = 8 * MAX_CONFIG_BYTES;

/// The refusal of a file that expands past [`MAX_EXPANDED_BYTES`]: what
/// expands, and where.
pub(crate) fn expands_too_much(what: &str) -> String {
    format!("{what} expand past {MAX_EXPANDED_BYTES} bytes")
}

/// What one property costs against [`MAX_EXPANDED_BYTES`] besides its
/// key and value: the bookkeeping of an entry, so that a list of empty
/// items (`key[]=,,,,`) counts too.
pub(crate) const ENTRY_COST: usize = 64;

/// The refusal of a file past [`MAX_CONFIG_BYTES`].
pub(crate) fn too_large(len: usize) -> LoadError {
    LoadError {
        message: format!("larger than {MAX_CONFIG_BYTES} bytes ({len}): not read"),
        line: 1,
        not_modelled: true,
    }
}

/// What a setup's properties say, as the auto-configuration applies them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoundProperties {
    /// `ToolCallLimits`, built by `toolCallingManager(...)`'s builder calls.
    pub limits: ToolCallLimits,
    /// `spring.ai.tools.throw-exception-on-error` (the processor's `alwaysThrow`).
    pub always_throw: bool,
    /// `spring.ai.tools.resolution.fallback.enabled`.
    pub resolution_fallback: bool,
    /// `spring.ai.tools.observations.include-content`.
    pub include_content: bool,
    /// The properties read, canonical name → value as written.
    pub read: BTreeMap<String, String>,
    /// Keys Spring ignores that look like a tool-calling key, each with the
    /// key it probably meant.
    pub unknown: Vec<Unknown>,
    /// Placeholders (`${LIMIT:20}`) a bound value names that the file does
    /// not set: read here with their default (or left as written, as Spring
    /// leaves an unresolvable one), where Spring would first look in the
    /// environment (system properties, environment variables).
    pub placeholders_not_in_file: Vec<String>,
}

/// An ignored key and its likely meaning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unknown {
    /// The key as written.
    pub key: String,
    /// Where.
    pub line: usize,
    /// The known key it is closest to (a per-tool key with its tool, as
    /// written: `max-calls-per-tools.weather` suggests
    /// `max-calls-per-tool.weather`); `None` for a key under
    /// `spring.ai.tools` near none.
    pub suggestion: Option<String>,
}

/// A property whose value Spring cannot bind: `BindException`, as
/// `BindFailureAnalyzer` describes it.
///
/// ```
/// use toolcall_check::config::{BindFailure, PropertyFailure};
/// let f = BindFailure::Bind(PropertyFailure {
///     description: "Failed to bind properties under 'x' to int".into(),
///     property: "x".into(),
///     value: "abc".into(),
///     line: 2,
///     column: 3,
///     reason: "not a number".into(),
/// });
/// assert!(f.to_string().contains("Origin: line 2, column 3"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PropertyFailure {
    /// `Failed to bind properties under 'NAME' to TYPE`.
    pub description: String,
    /// The property's canonical name.
    pub property: String,
    /// Its value (`toString()`).
    pub value: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// The `Reason:` line.
    pub reason: String,
}

/// Why Spring refuses the properties, in Spring's words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BindFailure {
    /// `BindException`, as `BindFailureAnalyzer` describes it.
    Bind(PropertyFailure),
    /// Indexed elements with a gap (`UnboundConfigurationPropertiesException`).
    Unbound {
        /// The properties left unbound.
        properties: Vec<String>,
        /// 1-based line of the first.
        line: usize,
    },
    /// A value given to a group itself (`spring.ai.tools.limits=5`) that
    /// no converter takes, with none of the group's properties bound:
    /// `BindFailureAnalyzer` names no property then.
    Convert {
        /// `Failed to bind properties under 'NAME' to TYPE`.
        description: String,
        /// The `Reason:` line.
        reason: String,
    },
    /// Past what this model resolves (`MAX_PLACEHOLDER_DEPTH`): not an
    /// answer about Spring.
    Limit {
        /// What was not modelled, and where.
        message: String,
    },
    /// The auto-configuration's builder call failed (`IllegalArgumentException`).
    Builder {
        /// `java.lang.IllegalArgumentException: MESSAGE`.
        message: String,
    },
}

impl BindFailure {
    /// The same failure with each text it carries from the file (names,
    /// values, reasons, messages) passed through `f`: a human reader's
    /// copy with its control characters escaped, whose `Display` keeps
    /// Spring's layout while no value can print a line of its own.
    pub(crate) fn map_text(&self, f: impl Fn(&str) -> String) -> BindFailure {
        match self {
            BindFailure::Bind(p) => BindFailure::Bind(PropertyFailure {
                description: f(&p.description),
                property: f(&p.property),
                value: f(&p.value),
                line: p.line,
                column: p.column,
                reason: f(&p.reason),
            }),
            BindFailure::Unbound { properties, line } => BindFailure::Unbound {
                properties: properties.iter().map(|p| f(p)).collect(),
                line: *line,
            },
            BindFailure::Convert {
                description,
                reason,
            } => BindFailure::Convert {
                description: f(description),
                reason: f(reason),
            },
            BindFailure::Limit { message } => BindFailure::Limit {
                message: f(message),
            },
            BindFailure::Builder { message } => BindFailure::Builder {
                message: f(message),
            },
        }
    }
}

impl std::fmt::Display for BindFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BindFailure::Bind(p) => write!(
                f,
                "{}:\n\n    Property: {}\n    Value: \"{}\"\n    Origin: line {}, column {}\n    Reason: {}",
                p.description, p.property, p.value, p.line, p.column, p.reason
            ),
            BindFailure::Unbound { properties, line } => write!(
                f,
                "The elements [{}] were left unbound (line {line}).",
                properties.join(",")
            ),
            BindFailure::Convert {
                description,
                reason,
            } => write!(f, "{description}:\n\n    Reason: {reason}"),
            BindFailure::Limit { message } => write!(f, "{message}"),
            BindFailure::Builder { message } => write!(
                f,
                "Error creating bean with name 'toolCallingManager' (ToolCallingAutoConfiguration): {message}"
            ),
        }
    }
}

#[cfg(test)]
mod examples {
    //! The examples of crate-private items, run as unit tests.

    #[test]
    fn example_to_java_string() {
        use crate::config::JavaValue;
        assert_eq!(JavaValue::Double(1e10).to_java_string(), "1.0E10");
        assert_eq!(JavaValue::Double(5.0).to_java_string(), "5.0");
    }

    #[test]
    fn example_expands_too_much() {
        let m = super::expands_too_much("aliases");
        assert_eq!(m, "aliases expand past 33554432 bytes");
    }

    #[test]
    fn example_too_large() {
        let e = super::too_large(20 << 20);
        assert_eq!(
            e.to_string(),
            "larger than 4194304 bytes (20971520): not read (line 1)"
        );
    }

    #[test]
    fn example_map_text() {
        use crate::config::BindFailure;
        let e = BindFailure::Convert {
            description: "d".into(),
            reason: "a\nb".into(),
        };
        let shown = e.map_text(|s| s.replace('\n', "\\n"));
        assert_eq!(shown.to_string(), "d:\n\n    Reason: a\\nb");
    }
}
