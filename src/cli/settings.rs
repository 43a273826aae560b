//! What a command may know of the global options, resolved once by the CLI.

use std::path::PathBuf;

/// The global options a command acts on; logging and colour are set up before any
/// command runs, so they are not here.
#[derive(Debug, Clone, Default)]
pub(crate) struct Settings {
    /// `-c` or `$PROMPTEXEC_CONFIG`, when given.
    pub config: Option<PathBuf>,
}
