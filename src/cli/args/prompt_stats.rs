//! `prompt stats`: which prompt, and how to answer.

use clap::Args;

use super::LibraryArgs;

#[derive(Debug, Args)]
pub(crate) struct StatsArgs {
    /// One prompt [default: every prompt]
    pub id: Option<String>,
    #[command(flatten)]
    pub library: LibraryArgs,
}
