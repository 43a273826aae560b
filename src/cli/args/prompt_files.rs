//! `prompt export-dir|import-dir|status`: the library as a folder of `.prompt` files.

use std::path::PathBuf;

use clap::Subcommand;

use super::LibraryArgs;

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub(crate) enum FilesCommand {
    /// Write one `.prompt` file per prompt (its latest version) into DIR
    ///
    /// The bytes depend only on the prompt, so a changed prompt is a small diff and an
    /// unchanged one leaves its file untouched. Files of prompts the library lacks are
    /// left alone (`prompt status` names them).
    ExportDir {
        dir: PathBuf,
        #[command(flatten)]
        library: LibraryArgs,
    },
    /// Store the `.prompt` files of DIR (subdirectories too): all of them or none
    ///
    /// A prompt whose file equals its latest version gets no new version.
    ImportDir {
        dir: PathBuf,
        /// Write nothing; say what would change, and exit 1 if anything would
        #[arg(long)]
        check: bool,
        #[command(flatten)]
        library: LibraryArgs,
    },
    /// What differs between DIR and the library, like `git status`
    Status {
        dir: PathBuf,
        #[command(flatten)]
        library: LibraryArgs,
    },
}
