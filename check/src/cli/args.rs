//! The command line's arguments and subcommands (clap).

use std::path::PathBuf;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "toolcall-model",
    version,
    about = "Reference model of Spring AI 2.0.1 tool calling and its Gemini conversion"
)]
pub(crate) struct Cli {
    /// Print JSON: the main job's rows, or (before `explore` or `verify`)
    /// what that subcommand's own `--json` prints; refused before others.
    #[arg(long)]
    pub(crate) json: bool,
    /// The Spring AI version the main job plays (or, before `explore`,
    /// what its own `--spring-ai` takes): 2.0.1 (the default), 2.0.0 or
    /// 1.1.2; a 1.1 release from 1.1.0 to 1.1.8 is answered as 1.1.2, as
    /// `check --build` answers it.
    #[arg(long, value_name = "VERSION", value_parser = spring_ai_arg)]
    pub(crate) spring_ai: Option<SpringAiArg>,
    #[command(subcommand)]
    pub(crate) command: Option<Cmd>,
}

// Parsed once per run: the size of the largest variant (check's flags)
// costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
pub(crate) enum Cmd {
    /// Run every vector in the given files and folders (folders recursively, *.json).
    Verify {
        /// Files or folders.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// One JSON object per vector (`file`, `name`, `result`: passed,
        /// failed or invalid, `differences`, `reason`); the count line goes
        /// to standard error.
        #[arg(long)]
        json: bool,
    },
    /// Print what a vector's op produces, in the `expect` shape.
    Run {
        /// The vector file.
        file: PathBuf,
        /// Run it under this behaviour set instead of its own: fix names
        /// (comma-separated), `all`, `upstream`, `gemini-tool-text`.
        #[arg(long)]
        fixes: Option<String>,
    },
    /// Run every invariant under every behaviour set and print the verdict
    /// matrix: on random turns (`--cases`), or on every turn of a bound
    /// (`--exhaustive`).
    Explore {
        /// Generated turns per cell (at least 1; a cell says `holds` only with
        /// 100 applicable cases).
        #[arg(long, default_value_t = 1000, value_parser = positive_cases, conflicts_with = "exhaustive")]
        cases: u32,
        /// Every scenario of a bound instead of random ones: each cell is
        /// proved within the bound or refuted by its smallest counterexample.
        #[arg(long)]
        exhaustive: bool,
        /// The bound of `--exhaustive`: tiny, default (about 4 s on 2 idle
        /// cores) or wide (the manager-level ranges as one product and wider
        /// loops: 20 times the default).
        #[arg(long, default_value = "default", requires = "exhaustive", value_parser = clap::builder::PossibleValuesParser::new(crate::verification::exhaustive::BOUND_NAMES))]
        bound: String,
        /// Run only shard K of N (1 <= K <= N) of the bound and print its
        /// findings as JSON, which `toolcall-model merge` combines with the
        /// other shards' into the matrix of one run.
        #[arg(long, requires = "exhaustive", conflicts_with = "out", value_parser = crate::verification::exhaustive::Shard::parse)]
        shard: Option<crate::verification::exhaustive::Shard>,
        /// The seed of every cell's random generator (a seed reproduces the matrix).
        #[arg(long, default_value_t = 0, conflicts_with = "exhaustive")]
        seed: u64,
        /// Print one JSON object instead of the table.
        #[arg(long)]
        json: bool,
        /// Worker threads, at least 1 (default: the machine's parallelism); no
        /// more than there is work for (a cell each, or a block of 64
        /// scenarios each with `--exhaustive`).
        #[arg(long, value_parser = positive_jobs)]
        jobs: Option<usize>,
        /// Also a behaviour set of your own: fix names (comma-separated),
        /// `all`, `gemini-tool-text`; a column beside the named sets.
        #[arg(long, conflicts_with = "exhaustive")]
        fixes: Option<String>,
        /// Write each counterexample as a vector file in this folder
        /// (created if absent), which `toolcall-model verify` replays; the
        /// text output names the files, `--json` holds the vectors.
        #[arg(long)]
        out: Option<PathBuf>,
        /// The Spring AI version the turns run on: 2.0.1 (the default),
        /// 2.0.0 or 1.1.2 (a 1.1 release from 1.1.0 to 1.1.8 is answered
        /// as 1.1.2); a cell whose invariant cannot arise there says n/a.
        #[arg(long, value_name = "VERSION", value_parser = spring_ai_arg)]
        spring_ai: Option<SpringAiArg>,
    },
    /// Combine the findings of `explore --exhaustive --shard K/N`, shards 1
    /// to N of one bound, into the matrix and the smallest counterexamples
    /// of one run of the whole bound.
    Merge {
        /// The shards' JSON files (each shard exactly once).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print one JSON object instead of the table.
        #[arg(long)]
        json: bool,
        /// Write each counterexample as a vector file in this folder, as
        /// `explore --out` does.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Judge the Java conformance runner's output (one JSON line per vector)
    /// against the model: one line per disagreement, then `N passed, M failed`.
    Conform {
        /// The runner's output (`-` for standard input).
        java_results: PathBuf,
        /// The files the runner was given, one per line (`toolcall-model
        /// files`): each must have exactly one answer.
        #[arg(long)]
        files: Option<PathBuf>,
        /// Also print one line per out-of-scope vector.
        #[arg(long)]
        verbose: bool,
    },
    /// Write generated upstream vectors of every op (for the Java differential).
    Gen {
        /// How many vectors.
        #[arg(long, default_value_t = 1000)]
        count: usize,
        /// The generator's seed (a seed reproduces the set).
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// The folder to write them to (created if absent).
        #[arg(long)]
        out: PathBuf,
        /// Ops, comma-separated (default: all four).
        #[arg(
            long,
            default_value = "execute_tool_calls,gemini_request,convert_tool_response,tool_loop"
        )]
        ops: String,
        /// Write only shard K of N (1 <= K <= N) of the `--count` vectors:
        /// those whose number is K-1 modulo N, the same files one run
        /// writes (N machines with the same seed and count write the set
        /// between them).
        #[arg(long, value_parser = crate::verification::exhaustive::Shard::parse)]
        shard: Option<crate::verification::exhaustive::Shard>,
        /// Each vector's `expect`: `none` (empty, for the Java runner to
        /// judge), `model` (what `toolcall-model run` prints, so that
        /// `verify` passes them) or `java` (what the real Spring AI classes
        /// answer through the conformance runner, `--runner`, so that the
        /// vectors verify against Java; exit 2 when the runner is absent or
        /// fails).
        #[arg(long, default_value = "none")]
        expect: String,
        /// The conformance runner `--expect java` starts.
        #[arg(long, default_value = "conformance/java/runner")]
        runner: PathBuf,
        /// Replace vector files of the same names (without it, nothing is
        /// written when one exists).
        #[arg(long)]
        force: bool,
    },
    /// List the vector files under the given files and folders, one per line.
    Files {
        /// Files or folders.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Check a Spring setup: read `application.properties` or
    /// `application.yml` (`spring.ai.tools.*`) as Spring Boot binds it, then
    /// print per behaviour set which scenarios it survives, the smallest
    /// change that makes it safe and the fix library's switches that do.
    /// Exit 0: safe under the set asked for (`--fixes`, default upstream);
    /// 1: not safe; 2: no verdict (Spring refuses the configuration, the
    /// input cannot be read, a usage error).
    Check {
        /// The `application.properties` or `application.yml` file (`-`:
        /// standard input, with `--format`); several are read in the order
        /// given, a later one winning, as Spring reads several locations.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        #[command(flatten)]
        flags: crate::cli::check::Flags,
    },
    /// Convert tool output from standard input to `functionResponse.response`.
    Convert {
        /// Fixes: comma-separated names or `all`.
        #[arg(long, default_value = "")]
        fixes: String,
        /// The output came from a failure (read by the error-key fix).
        #[arg(long)]
        error: bool,
        /// One JSON string literal per input line; one result object per output line.
        #[arg(long)]
        jsonl: bool,
        /// Write, as a JSON string, the text the fixes' advisor passes on
        /// (`gemini-tool-text`: the seed's `GeminiToolTextAdvisor`) instead
        /// of converting it.
        #[arg(long)]
        advised: bool,
    },
}

/// `--cases`: a positive count.
pub(crate) fn positive_cases(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(0) => Err("0 cases would check nothing; give at least 1 (a cell says holds only with 100 applicable cases)".to_owned()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// `--jobs`: a positive count (0 threads would do nothing).
pub(crate) fn positive_jobs(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("0 worker threads would run nothing; give at least 1".to_owned()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

/// A `--spring-ai` value: the version answered for, and the text given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SpringAiArg {
    /// The version the model plays.
    pub(crate) version: toolcall_model::model::SpringAi,
    /// The version as given (`1.1.6`).
    pub(crate) typed: String,
}

impl SpringAiArg {
    /// The note for a version answered as another (`1.1.6` as 1.1.2), for
    /// standard error; `None` when the text names the version played.
    pub(crate) fn note(&self) -> Option<String> {
        (self.typed != self.version.name()).then(|| {
            format!(
                "note: --spring-ai {}: answered as {}, which stands for the 1.1 line (from 1.1.0 to 1.1.8 the Gemini conversion, the manager and the chat model's tool loop are 1.1.2's)",
                self.typed, self.version
            )
        })
    }
}

/// `--spring-ai`: a version the model describes, read by the rule `check
/// --build` reads a build's version with ([`crate::config::spring_ai_named`]).
pub(crate) fn spring_ai_arg(s: &str) -> Result<SpringAiArg, String> {
    let version = crate::config::spring_ai_named(s.trim())
        .map_err(|e| format!("Spring AI '{s}' is not modelled: {e}"))?;
    Ok(SpringAiArg {
        version,
        typed: s.trim().to_owned(),
    })
}

/// Whether `--json` (or `--spring-ai`) before the subcommand means
/// something to it.
pub(crate) fn takes_json(cmd: &Cmd) -> bool {
    matches!(cmd, Cmd::Verify { .. } | Cmd::Explore { .. })
}
