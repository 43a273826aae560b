//! `prompt stats`: which prompt, the end of the usage window, and how to answer.

use std::time::SystemTime;

use clap::Args;

use super::LibraryArgs;

#[derive(Debug, Args)]
pub(crate) struct StatsArgs {
    /// One prompt [default: every prompt]
    pub id: Option<String>,
    /// The end of the usage window (the last 14 days), RFC 3339 [default: now]
    #[arg(long, value_name = "TIME", value_parser = crate::template::parse_rfc3339)]
    pub now: Option<SystemTime>,
    #[command(flatten)]
    pub library: LibraryArgs,
}
