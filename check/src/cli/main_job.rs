//! The main job: seed 000 under every behaviour set (no subcommand).

use std::process::ExitCode;

pub(crate) fn main_job(json: bool) -> ExitCode {
    let job = crate::config::reproduce();
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
