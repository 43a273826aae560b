use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

use super::ColorWhen;

/// Logs go to stderr: warnings by default, more with `-v`, less with `-q`.
/// `RUST_LOG` overrides the level when set.
pub fn init(verbose: u8, quiet: bool, color: ColorWhen) {
    let level = match (quiet, verbose) {
        (true, _) => "error",
        (false, 0) => "warn",
        (false, 1) => "info",
        (false, 2) => "debug",
        (false, _) => "trace",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(level));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(color.enabled(std::io::stderr().is_terminal()))
        .without_time()
        .with_target(false)
        .try_init();
}
