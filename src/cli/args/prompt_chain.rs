//! `prompt chain …`: the arguments of chains of library prompts.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::{LibraryArgs, ReplayMatch, VarArgs};

#[derive(Debug, Subcommand)]
pub(crate) enum ChainCommand {
    /// Play a chain file step by step on the configured provider
    Run(ChainRunArgs),
}

#[derive(Debug, Args)]
pub(crate) struct ChainRunArgs {
    /// The chain file (YAML)
    pub file: PathBuf,

    /// Values for the chain's `inputs`
    #[command(flatten)]
    pub vars: VarArgs,

    /// PromptKit mock-responses YAML [default: the mock provider's mock_config]
    #[arg(long, value_name = "FILE")]
    pub mock: Option<PathBuf>,

    /// The mock scenario whose turn N answers the N-th step played [default: the
    /// chain's name]
    #[arg(long, value_name = "KEY")]
    pub scenario: Option<String>,

    /// The provider that answers: an `id` (or `type`) of the config's
    /// spec.providers [default: the config's mock provider, else its first]
    #[arg(long, value_name = "ID")]
    pub provider: Option<String>,

    /// Write the steps' model exchanges to FILE (one session a step), a recording
    /// `--replay` plays
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,

    /// Answer each step from a recording instead of calling the provider
    #[arg(long, value_name = "FILE", conflicts_with = "record")]
    pub replay: Option<PathBuf>,

    /// How a replayed call finds its answer: `turn`, the step's recorded call,
    /// whose request must match; `content`, the call recorded after the same prompt
    #[arg(long = "match", value_enum, value_name = "turn|content", default_value_t = ReplayMatch::Turn)]
    pub replay_match: ReplayMatch,

    /// Write the report (human or JSON, per --format) to FILE instead of stdout
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    #[command(flatten)]
    pub library: LibraryArgs,
}
