//! What a command may know of the global options, resolved once by the CLI.

use std::path::PathBuf;

/// The global options a command acts on; logging, `-q` and colour are set up before
/// any command runs (the console knows `-q`), so they are not here.
#[derive(Debug, Clone, Default)]
pub(crate) struct Settings {
    /// `-c` or `$PROMPTEXEC_CONFIG`, when given.
    pub config: Option<PathBuf>,
    /// `-v` given this many times: a command may show more detail, as `check`'s full
    /// table.
    pub verbose: u8,
}
