//! `prompt`: templates rendered, and the library's commands.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueEnum};

use super::pack::{is_pack_path, settle};
use super::{
    ChainCommand, FilesCommand, LibraryArgs, LibraryCommand, LintArgs, ShareCommand, StatsArgs,
    VarArgs,
};
use crate::cli::UsageError;

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub(crate) enum PromptCommand {
    /// Print a rendered template on stdout, and nothing else
    #[command(disable_version_flag = true)]
    Render(RenderArgs),
    #[command(flatten)]
    Library(LibraryCommand),
    #[command(flatten)]
    Share(ShareCommand),
    #[command(flatten)]
    Files(FilesCommand),
    /// Check templates against the lint rules (structure, security, hygiene)
    Lint(LintArgs),
    /// Usage, pass rate, rating and rank of each prompt version
    Stats(StatsArgs),
    /// Chains of library prompts, each step fed by the ones before
    #[command(subcommand)]
    Chain(ChainCommand),
}

#[derive(Debug, Args)]
pub(crate) struct RenderArgs {
    /// A prompt of the library; or a PromptPack (`*.json`)
    #[arg(value_name = "ID|PACK", conflicts_with_all = ["file", "pack"])]
    pub id: Option<String>,

    /// With ID: this version rather than the latest
    #[arg(long, value_name = "V", requires = "id")]
    pub version: Option<u64>,

    /// A PromptKind template file (JSON)
    #[arg(long, value_name = "FILE", conflicts_with_all = ["pack", "prompt"])]
    pub file: Option<PathBuf>,

    /// The same as a PACK argument
    #[arg(long, value_name = "PACK", hide = true)]
    pub pack: Option<PathBuf>,

    /// With PACK: the prompt of the pack [default: the pack's only prompt]
    #[arg(long, value_name = "ID")]
    pub prompt: Option<String>,

    #[command(flatten)]
    pub vars: VarArgs,

    /// Print chat messages (JSON) with the rendered prompt placed in them: `system`,
    /// as the system prompt (before an existing one's text); `prefix`, before the
    /// first user message's text; `suffix`, after the last one's
    #[arg(long = "as", value_enum, value_name = "system|prefix|suffix")]
    pub place: Option<InjectAs>,

    /// With --as: the chat messages to place it in, a JSON list of
    /// `{"role", "content"}` (or an object with `messages`); `-`: stdin [default: none]
    #[arg(long, value_name = "FILE", requires = "place")]
    pub into: Option<PathBuf>,

    /// With ID: the library and who renders
    #[command(flatten)]
    pub library: LibraryArgs,
}

/// Where `prompt render --as` places the rendered prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum InjectAs {
    System,
    Prefix,
    Suffix,
}

impl RenderArgs {
    /// The positional is the pack when it names a pack file; `--version` goes with a
    /// library prompt, `--prompt` with a pack.
    pub(super) fn settle(&mut self) -> Result<(), UsageError> {
        if self.id.as_deref().is_some_and(is_pack_path) {
            let found = self.id.take().map(PathBuf::from);
            settle(&mut self.pack, found.into_iter().collect())?;
            if self.version.is_some() {
                return Err(UsageError::not_here(
                    "--version",
                    "applies to a library prompt ID, not to a pack",
                ));
            }
        }
        if self.prompt.is_some() && self.pack.is_none() {
            return Err(UsageError::not_here(
                "--prompt",
                "applies to a pack: give the pack",
            ));
        }
        Ok(())
    }
}
