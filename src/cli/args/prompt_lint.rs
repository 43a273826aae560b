//! `prompt lint`: which templates to check, and how to answer.

use std::path::PathBuf;

use clap::Args;

use super::LibraryArgs;

#[derive(Debug, Args)]
pub(crate) struct LintArgs {
    /// Library prompts to check [default: every prompt, unless --file or --dir]
    pub ids: Vec<String>,
    /// A template file (`.prompt` or PromptKind JSON); repeatable
    #[arg(long = "file", value_name = "FILE")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub library: LibraryArgs,
}
