//! `prompt export-dir|import-dir|status`: the library as a folder of `.prompt` files.

use std::path::PathBuf;

use clap::Subcommand;

use super::LibraryArgs;

#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub(crate) enum FilesCommand {
    /// Write one `.prompt` file per prompt into DIR
    ExportDir {
        dir: PathBuf,
        #[command(flatten)]
        library: LibraryArgs,
    },
    /// Store the `.prompt` files of DIR: all of them or none
    ImportDir {
        dir: PathBuf,
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
