//! `prompt chain: chains of library prompts played on a provider`.

use crate::cli::args::ChainCommand;
use crate::cli::{CliError, Console, Exit, UsageError};

pub(in crate::commands) fn run(
    _args: &ChainCommand,
    _console: &mut Console,
) -> Result<Exit, CliError> {
    Err(UsageError::Unusable("not available yet".into()).into())
}
