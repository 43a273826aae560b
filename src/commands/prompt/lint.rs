//! `prompt lint: templates checked against the lint rules`.

use crate::cli::args::LintArgs;
use crate::cli::{CliError, Console, Exit, UsageError};

pub(in crate::commands) fn run(_args: &LintArgs, _console: &mut Console) -> Result<Exit, CliError> {
    Err(UsageError::Unusable("not available yet".into()).into())
}
