//! `test`: case files that call tools and hooks and check their answers.

use std::path::PathBuf;

use clap::Args;

use super::run::OutputFormat;

#[derive(Debug, Clone, Args)]
pub(crate) struct TestArgs {
    /// Case files, or directories searched for *.cases.yaml, *.cases.yml and *.cases.json
    /// [default: the current folder]
    #[arg(value_name = "FILE|DIR")]
    pub paths: Vec<PathBuf>,

    /// Only the cases whose name contains TEXT
    #[arg(long, value_name = "TEXT")]
    pub filter: Option<String>,

    /// Start no case after the first that fails or errs
    #[arg(long)]
    pub fail_fast: bool,

    /// Store the result of each snapshot case whose status is as expected, where
    /// the snapshot is missing or differs
    #[arg(long)]
    pub update_snapshots: bool,

    /// How many case files run at once [default: the number of cores]
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub jobs: Option<u64>,

    /// `human`: a line per case and a summary on stderr; `json`: one report document
    /// on stdout; `junit`: JUnit XML on stdout (a testsuite per case file); `html`: a
    /// self-contained page that shows the JSON report
    #[arg(long, value_enum, default_value_t = OutputFormat::Human)]
    pub format: OutputFormat,

    /// Write the report to FILE (atomically) instead of stdout
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    #[command(flatten)]
    pub files: super::ReportFiles,

    #[command(flatten)]
    pub watch: super::WatchArgs,
}
