//! A team's configuration and its answer: Spring Boot's binding of
//! `spring.ai.tools.*`, the configuration checker, and the main job (seed
//! 000 under every behaviour set).

pub(crate) mod binding;
pub(crate) mod check;
pub(crate) mod fix_reach;
pub(crate) mod library_table;
pub(crate) mod main_job;
pub(crate) mod profiles;
pub(crate) mod yaml;

pub use binding::{
    BindFailure, BoundProperties, Entry, JavaValue, LoadError, MAX_CONFIG_BYTES, Unknown, bind,
    parse_properties, resolve_placeholders,
};

pub(crate) use binding::{KNOWN_KEYS, ValueResolver};

pub use check::{
    Accepted, Application, BuildVersion, CLOSES_BEGIN, CLOSES_END, Change, CheckScenario,
    CheckVerdict, Defaulted, Format, Gate, Installed, Mark, NextRefused, OpenAnswer, OpenProperty,
    OutputKind, ProfileFiles, Refusal, Remedy, ScenarioScript, SetReport, Setup, Sources, Stop,
    Text, ToolOutput, UNKNOWN_TOOL_NAME, closing_table, evaluate, report, safe_sets, script,
    set_of,
};
pub use check::{
    Match, answered_for, fix_acts_on, fix_library, library_has, on_its_version, sets_on,
    spring_ai_named,
};

pub(crate) use check::clip_lines;
pub use check::{Answer, Options, answer};
pub(crate) use check::{describe_setup, evaluate_sets, report_sets, written_names};

pub use fix_reach::{Felt, FixReach};
pub use library_table::{Decider, LIBRARY_BEANS, LibraryColumns, Unset, fix_table};

pub use main_job::{
    Column, GROUPS, MainJob, columns, columns_on, conclusion, not_played, reproduce, reproduce_on,
    table, version_facts,
};

pub use profiles::{applied, environment, profile_matches};

pub(crate) use profiles::{MAX_BUILD_INTERPOLATION, MODELLED_SPRING_AI};

pub use yaml::read_yaml;
