//! `prompt export-dir|import-dir|status: the library as a folder of `.prompt` files`.

use crate::cli::args::FilesCommand;
use crate::cli::{CliError, Console, Exit, UsageError};

pub(in crate::commands) fn run(
    _args: &FilesCommand,
    _console: &mut Console,
) -> Result<Exit, CliError> {
    Err(UsageError::Unusable("not available yet".into()).into())
}
