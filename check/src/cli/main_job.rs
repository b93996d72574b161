//! The main job: seed 000 under every behaviour set (no subcommand).

use std::process::ExitCode;

pub(crate) fn main_job(json: bool, spring_ai: Option<&super::args::SpringAiArg>) -> ExitCode {
    if let Some(note) = spring_ai.and_then(super::args::SpringAiArg::note) {
        errln!("{note}");
    }
    let job = crate::config::reproduce_on(spring_ai.map(|v| v.version).unwrap_or_default());
    let faults = job.faults();
    if let Some(f) = faults.first() {
        errln!("error: the model failed: {f}");
        return ExitCode::FAILURE;
    }
    if json {
        outln!(
            "{}",
            serde_json::to_string_pretty(&job.to_value()).unwrap_or_default()
        );
    } else {
        out!("{}", crate::config::table(&job));
    }
    ExitCode::SUCCESS
}
