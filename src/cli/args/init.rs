//! `init`: a minimal project written into a folder.

use std::path::PathBuf;

use clap::Args;

#[derive(Debug, Args)]
pub(crate) struct InitArgs {
    /// The folder to write the project into, made when missing [default: the current
    /// folder]
    #[arg(value_name = "DIR")]
    pub dir: Option<PathBuf>,
}
