//! `prompt stats: usage, pass rate, rating and rank per prompt version`.

use crate::cli::args::StatsArgs;
use crate::cli::{CliError, Console, Exit, UsageError};

pub(in crate::commands) fn run(
    _args: &StatsArgs,
    _console: &mut Console,
) -> Result<Exit, CliError> {
    Err(UsageError::Unusable("not available yet".into()).into())
}
