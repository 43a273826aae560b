use std::io::{IsTerminal, Write};

use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::{LevelFilter, Targets};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

use super::ColorWhen;

/// Logs go to stderr: warnings by default, more with `-v`, less with `-q`.
/// `RUST_LOG` overrides the level when set. Every secret is hidden.
///
/// The MCP SDK's own lines repeat failures promptexec reports itself, each with the
/// request's whole URL, and narrate every connection: its warnings show from `-v` on,
/// the rest from `-vv`.
pub(super) fn init(verbose: u8, quiet: bool, color: ColorWhen) {
    let level = match (quiet, verbose) {
        (true, _) => LevelFilter::ERROR,
        (false, 0) => LevelFilter::WARN,
        (false, 1) => LevelFilter::INFO,
        (false, 2) => LevelFilter::DEBUG,
        (false, _) => LevelFilter::TRACE,
    };
    // A log line that cannot be written is dropped: by default the subscriber reports
    // that with `eprintln!`, which panics on the same broken stderr, once per event.
    let format = tracing_subscriber::fmt()
        .with_writer(LogLine::default)
        .log_internal_errors(false)
        .with_ansi(color.enabled(std::io::stderr().is_terminal()))
        .without_time()
        .with_target(false);
    // Directives are parsed only when RUST_LOG holds some: a list of targets is cheaper
    // to build and to check at every call site.
    match EnvFilter::try_from_default_env() {
        Ok(filter) => {
            let _ = format.with_env_filter(filter).try_init();
        }
        Err(_) => {
            let sdk = match verbose {
                0 => LevelFilter::OFF,
                1 => LevelFilter::WARN,
                _ => level,
            };
            let targets = Targets::new().with_default(level).with_target("rmcp", sdk);
            let _ = format
                .with_max_level(level)
                .finish()
                .with(targets)
                .try_init();
        }
    }
}

/// One log event, gathered whole and written to stderr when the formatter is done
/// with it, with every secret hidden: a secret never falls between two writes.
#[derive(Default)]
struct LogLine(Vec<u8>);

impl Write for LogLine {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for LogLine {
    fn drop(&mut self) {
        if self.0.is_empty() {
            return;
        }
        let text = String::from_utf8_lossy(&self.0);
        let _ = std::io::stderr().write_all(crate::secret::redact(&text).as_bytes());
    }
}
