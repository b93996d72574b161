//! A team's configuration and its answer: Spring Boot's binding of
//! `spring.ai.tools.*`, the configuration checker, and the main job (seed
//! 000 under every behaviour set).

pub(crate) mod binding;
pub(crate) mod check;
pub(crate) mod main_job;
pub(crate) mod profiles;
#[cfg(feature = "yaml")]
pub(crate) mod yaml;

pub use binding::{
    BindFailure, BoundProperties, ENTRY_COST, Entry, JavaValue, KNOWN_KEYS, LoadError,
    MAX_CONFIG_BYTES, MAX_CONFIG_TOTAL_BYTES, MAX_EXPANDED_BYTES, MAX_PLACEHOLDER_DEPTH,
    MAX_UNKNOWN, SUGGEST_TRIES, Unknown, ValueResolver, bind, expands_too_much, parse_properties,
    resolve_placeholders, resolve_yaml_scalar, too_large,
};

pub use check::{
    Accepted, Application, CLOSES_BEGIN, CLOSES_END, Change, CheckScenario, CheckVerdict,
    Defaulted, FIX_LIBRARY, FIX_PREFIX, Gate, LONG_TURN_ROUNDS, MAX_OPEN_COMBINATIONS,
    MAX_OPEN_TRIED, MAX_PLAYED_LIMIT, MAX_UNRESOLVED, Mark, NextRefused, OpenAnswer, OpenProperty,
    OutputKind, RUNAWAY_PROBE, Remedy, ScenarioScript, SetReport, Setup, ToolOutput,
    UNKNOWN_TOOL_NAME, closing_table, defaulted, describe_setup, evaluate, open_values, report,
    safe_sets, script, smallest_change, written_names,
};
#[cfg(feature = "yaml")]
pub use check::{
    Answer, BuildVersion, Contents, Format, Options, ProfileFiles, Refusal, Sources, Stop, Text,
    answer, clip_lines,
};

pub use main_job::{Column, GROUPS, MainJob, columns, conclusion, reproduce, table};

pub use profiles::{
    MAX_BUILD_INTERPOLATION, MAX_PROFILE_DEPTH, MODELLED_SPRING_AI, ON_PROFILE, PROFILES_ACTIVE,
    PROFILES_DEFAULT, PROFILES_INCLUDE, ProfileMatcher, ProfileRefusal, active_profiles, applied,
    environment, invalid_in_profile_file, placeholder_names, profile_matches, relaxed, source,
    spring_ai_version,
};

#[cfg(feature = "yaml")]
pub use yaml::{NOT_MODELLED, read_yaml};
