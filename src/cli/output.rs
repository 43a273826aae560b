use std::io::Write;

use crate::doc::Diagnostics;

use super::CliError;

/// Writes to stdout without panicking when the reader has gone away.
pub fn write_stdout(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(CliError::Output)
}

/// One line on stderr; a closed stderr is not worth failing over.
pub fn write_stderr(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// Diagnostics on stderr, sorted by file and position.
pub fn print_diagnostics(diagnostics: &Diagnostics) {
    let text = diagnostics.clone().sorted().to_string();
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}
