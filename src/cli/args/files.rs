//! Reports written to files beside the one a command prints, each atomically.

use std::path::PathBuf;

use clap::Args;

/// `--json`, `--junit` and `--html FILE`: every command that reports a run takes them.
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct ReportFiles {
    /// Also write the JSON report to FILE, beside the report asked for
    #[arg(long = "json", value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Also write the JUnit report to FILE
    #[arg(long = "junit", value_name = "FILE")]
    pub junit: Option<PathBuf>,

    /// Also write the self-contained HTML report to FILE
    #[arg(long = "html", value_name = "FILE")]
    pub html: Option<PathBuf>,
}
