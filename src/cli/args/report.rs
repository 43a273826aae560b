//! `report`: saved suite reports read back, merged from shards, and rendered again.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

#[derive(Debug, Subcommand)]
pub(crate) enum ReportCommand {
    /// Merge the JSON reports of every shard of one suite (`run PACK --shard K/N
    /// --json FILE`) into the report the whole suite gives; exits with the code the
    /// whole suite comes to
    Merge(MergeArgs),
    /// Render a suite's saved JSON report again, in any format
    Show(ShowArgs),
}

#[derive(Debug, Args)]
pub(crate) struct MergeArgs {
    /// The shards' JSON reports, one per shard, in any order
    #[arg(value_name = "REPORT", required = true)]
    pub reports: Vec<PathBuf>,

    #[command(flatten)]
    pub out: ReportOutputs,
}

#[derive(Debug, Args)]
pub(crate) struct ShowArgs {
    /// A suite's JSON report
    #[arg(value_name = "REPORT")]
    pub report: PathBuf,

    #[command(flatten)]
    pub out: ReportOutputs,
}

/// Where a report read back goes, and in which formats.
#[derive(Debug, Args)]
pub(crate) struct ReportOutputs {
    /// `human`: the scenario table a run prints; `json`, `junit`, `markdown`, `html`:
    /// the document a run writes
    #[arg(long, value_enum, default_value_t = ReportFormat::Human)]
    pub format: ReportFormat,

    /// Write the report to FILE (atomically) instead of stdout
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    #[command(flatten)]
    pub files: super::ReportFiles,

    /// Also write the Markdown summary to FILE
    #[arg(long = "markdown", value_name = "FILE")]
    pub markdown_file: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ReportFormat {
    Human,
    Json,
    Junit,
    Markdown,
    Html,
}
