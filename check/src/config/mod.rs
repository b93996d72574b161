//! A team's configuration and its answer: Spring Boot's binding of
//! `spring.ai.tools.*`, the configuration checker, the main job (seed 000
//! under every behaviour set), and the closing table computed from both.

pub(crate) mod binding;
pub(crate) mod closes;
pub(crate) mod fix_reach;
pub(crate) mod library_table;
pub(crate) mod profiles;
pub(crate) mod seed_table;
pub(crate) mod survival;
pub(crate) mod yaml;

pub use binding::{
    BindFailure, BoundProperties, Entry, JavaValue, LoadError, MAX_CONFIG_BYTES, PropertyFailure,
    Unknown, bind, parse_properties, resolve_placeholders,
};

pub(crate) use binding::{KNOWN_KEYS, ValueResolver};

pub use survival::{
    Accepted, Application, BuildVersion, Change, CheckScenario, CheckVerdict, Defaulted, Format,
    Gate, Installed, Mark, NextRefused, OpenAnswer, OpenProperty, OutputKind, ProfileFiles,
    Refusal, Remedy, ScenarioScript, SetReport, Setup, Sources, Stop, Text, ToolOutput,
    UNKNOWN_TOOL_NAME, evaluate, report, safe_sets, script, set_of,
};
pub use survival::{
    Match, answered_for, fix_acts_on, fix_library, library_has, on_its_version, sets_on,
    spring_ai_named,
};

pub(crate) use survival::clip_lines;
pub use survival::{Answer, Options, answer};
pub(crate) use survival::{
    describe_setup, evaluate_sets, upstream_change, verdicts_under, written_names,
};

pub use closes::{CLOSES_BEGIN, CLOSES_END, closing_table};

pub use fix_reach::{Felt, FixReach};
pub use library_table::{Decider, LIBRARY_BEANS, LibraryColumns, Unset, fix_table};

pub use seed_table::{
    Column, GROUPS, MainJob, columns, columns_on, conclusion, not_played, reproduce, reproduce_on,
    table, version_facts,
};

pub use profiles::{applied, environment, profile_matches};

pub(crate) use profiles::{MAX_BUILD_INTERPOLATION, MODELLED_SPRING_AI};

pub use yaml::read_yaml;
