use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::LevelFilter;

use super::ColorWhen;

/// Logs go to stderr: warnings by default, more with `-v`, less with `-q`.
/// `RUST_LOG` overrides the level when set.
pub fn init(verbose: u8, quiet: bool, color: ColorWhen) {
    let level = match (quiet, verbose) {
        (true, _) => LevelFilter::ERROR,
        (false, 0) => LevelFilter::WARN,
        (false, 1) => LevelFilter::INFO,
        (false, 2) => LevelFilter::DEBUG,
        (false, _) => LevelFilter::TRACE,
    };
    let format = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(color.enabled(std::io::stderr().is_terminal()))
        .without_time()
        .with_target(false);
    // Directives are parsed only when RUST_LOG holds some: a bare level is cheaper to
    // build and to check at every call site.
    let _ = match EnvFilter::try_from_default_env() {
        Ok(filter) => format.with_env_filter(filter).try_init(),
        Err(_) => format.with_max_level(level).try_init(),
    };
}
