use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::doc::{Diagnostic, Diagnostics, Severity};

use super::CliError;
use super::style::{self, Tone};

/// `-q`: human text on stderr is left out; errors still print.
static QUIET: AtomicBool = AtomicBool::new(false);

/// Set once from the global options, before any command runs, so no command needs
/// to know about `-q`.
pub(crate) fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Whether only errors go to stderr.
pub(crate) fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// Where a command's output goes: documents to `out` (stdout), text for people to
/// `err` (stderr). Commands write through the one they are given, so a test can
/// hand in buffers and read what a person would have seen. Every secret is hidden
/// in both (see [`crate::secret`]); each call's text is written whole, so a secret
/// is never split between two writes.
pub(crate) struct Console {
    out: Box<dyn Write>,
    err: Box<dyn Write>,
}

impl Console {
    pub(crate) fn new(out: Box<dyn Write>, err: Box<dyn Write>) -> Self {
        Self { out, err }
    }

    /// The process's own stdout and stderr.
    pub(crate) fn stdio() -> Self {
        Self::new(Box::new(std::io::stdout()), Box::new(std::io::stderr()))
    }

    /// Whether `-q` leaves human text out.
    pub(crate) fn quiet(&self) -> bool {
        quiet()
    }

    /// Writes to stdout without panicking when the reader has gone away. Each
    /// text is written whole, with every secret hidden.
    pub(crate) fn out(&mut self, text: &str) -> Result<(), CliError> {
        self.out
            .write_all(crate::secret::redact(text).as_bytes())
            .and_then(|()| self.out.flush())
            .map_err(CliError::Output)
    }

    /// One line of human text on stderr, left out under `-q`; a closed stderr is not
    /// worth failing over.
    pub(crate) fn note(&mut self, line: &str) {
        if !quiet() {
            self.error(line);
        }
    }

    /// One line on stderr that `-q` does not silence: what made the command fail.
    pub(crate) fn error(&mut self, line: &str) {
        self.raw_err(&format!("{}\n", paint_labels(line)));
    }

    /// Diagnostics on stderr, sorted by file and position, each with the source line it points
    /// at; under `-q` only the errors.
    pub(crate) fn diagnostics(&mut self, diagnostics: &Diagnostics) {
        let quiet = quiet();
        let mut sources = crate::doc::Sources::default();
        let text: String = diagnostics
            .clone()
            .sorted()
            .iter()
            .filter(|d| !quiet || d.is_error())
            .map(|d| {
                let snippet = sources.snippet(d, style::enabled());
                format!("{}\n{snippet}", paint_diagnostic(d))
            })
            .collect();
        self.raw_err(&text);
    }

    fn raw_err(&mut self, text: &str) {
        let _ = self
            .err
            .write_all(crate::secret::redact(text).as_bytes())
            .and_then(|()| self.err.flush());
    }
}

/// Colours the `error:`, `warning:` or `ok:` that starts a line, so every command's
/// messages look alike without each one asking for it.
fn paint_labels(text: &str) -> String {
    if !style::enabled() {
        return text.to_string();
    }
    let painted: Vec<String> = text
        .split('\n')
        .map(|line| {
            for (label, tone) in [
                ("error:", Tone::Bad),
                ("warning:", Tone::Warn),
                ("ok:", Tone::Good),
            ] {
                if let Some(rest) = line.strip_prefix(label) {
                    return format!("{}{rest}", style::paint(label, tone));
                }
            }
            line.to_string()
        })
        .collect();
    painted.join("\n")
}

/// A diagnostic as `Display` writes it, with its place and severity coloured when
/// colour is on.
fn paint_diagnostic(diagnostic: &Diagnostic) -> String {
    if !style::enabled() {
        return diagnostic.to_string();
    }
    let message = &diagnostic.message;
    let (label, tone, place_tone) = match diagnostic.severity {
        Severity::Error => ("error:", Tone::Bad, Tone::Bad),
        Severity::Warning => ("warning:", Tone::Warn, Tone::Strong),
    };
    if diagnostic.file.as_os_str().is_empty() {
        return format!("{} {message}", style::paint(label, tone));
    }
    let mut place = format!("{}:", diagnostic.file.display());
    if let Some(pos) = diagnostic.pos {
        place.push_str(&format!("{pos}:"));
    }
    let severity = match diagnostic.severity {
        Severity::Error => String::new(),
        Severity::Warning => format!(" {}", style::paint(label, tone)),
    };
    format!("{}{severity} {message}", style::paint(&place, place_tone))
}
