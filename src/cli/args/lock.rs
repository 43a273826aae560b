//! `lock`: pin the tool surface, or compare it with the pin.

use std::path::PathBuf;

use clap::{Args, ValueEnum};

#[derive(Debug, Args)]
pub(crate) struct LockArgs {
    /// The PromptPack (JSON) whose tools are pinned with the config's
    pub pack: Option<PathBuf>,

    /// The lock file [default: promptexec.lock beside the config]
    #[arg(long = "lock", value_name = "FILE")]
    pub lock_file: Option<PathBuf>,

    /// Compare a fresh reading with the lock file instead of writing it: exit 1 and
    /// a diff when anything changed, 2 when there is no lock file
    #[arg(long)]
    pub check: bool,

    /// `human`: the diff and the findings as text; `json`: one document; `sarif`:
    /// the findings as SARIF 2.1.0
    #[arg(long, value_enum, default_value_t = LockFormat::Human)]
    pub format: LockFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum LockFormat {
    Human,
    Json,
    Sarif,
}
