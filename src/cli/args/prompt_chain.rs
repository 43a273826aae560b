//! `prompt chain …`: the arguments of chains of library prompts.

use std::path::PathBuf;

use clap::Subcommand;

use super::LibraryArgs;

#[derive(Debug, Subcommand)]
pub(crate) enum ChainCommand {
    /// Play a chain file step by step on the configured provider
    Run {
        /// The chain file (YAML)
        file: PathBuf,
        #[command(flatten)]
        library: LibraryArgs,
    },
}
