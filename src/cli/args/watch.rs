//! `--watch`: play again when a file the command reads changes.

use clap::Args;

#[derive(Debug, Args, Default, Clone, Copy)]
pub(crate) struct WatchArgs {
    /// Play again whenever a file the command reads changes (the config, pack,
    /// scenario, mock or case files, and the extensions' own source files)
    #[arg(long)]
    pub watch: bool,

    /// With --watch, also play again against a live (paid) provider
    #[arg(long, requires = "watch")]
    pub watch_live: bool,
}
