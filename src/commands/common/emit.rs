//! Where a finished report goes.

use std::path::Path;

use crate::cli::{CliError, Console};

/// A report to FILE, or to stdout without one. A regular file is replaced atomically
/// (readers see the old file or the whole new one); links are written through and
/// devices written directly, as the shell's `>` would.
pub(in crate::commands) fn write_output(
    console: &mut Console,
    output: Option<&Path>,
    text: &str,
) -> Result<(), CliError> {
    match output {
        Some(path) => crate::atomic_file::write_atomic(path, text.as_bytes()).map_err(|source| {
            CliError::Write {
                path: path.to_path_buf(),
                source,
            }
        }),
        None => console.out(text),
    }
}

/// A JSON document, pretty-printed, on a line of its own.
pub(in crate::commands) fn pretty(doc: &impl serde::Serialize) -> String {
    format!(
        "{}\n",
        serde_json::to_string_pretty(doc).unwrap_or_default()
    )
}
