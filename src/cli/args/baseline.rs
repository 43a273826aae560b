//! `run --baseline`: compare this run with an earlier report and gate on it.

use std::path::PathBuf;

use clap::Args;

#[derive(Debug, Args, Default, Clone)]
pub(crate) struct BaselineArgs {
    /// Compare this run with the JSON report in FILE, scenario by scenario
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
}
