//! A team's configuration and its answer: Spring Boot's binding of
//! `spring.ai.tools.*`, the configuration checker, and the main job (seed
//! 000 under every behaviour set).

pub mod binding;
pub mod check;
pub mod main_job;
pub mod profiles;
#[cfg(feature = "yaml")]
pub mod yaml;
