//! An extension's stderr: forwarded to the log line by line as it arrives, and its
//! tail kept for the message shown when the extension fails.

use std::sync::{Arc, Mutex};

use tokio::io::{AsyncRead, AsyncReadExt};

use super::STDERR_TAIL_BYTES;

/// The log target of forwarded stderr lines, so `RUST_LOG` can pick them alone.
pub(crate) const STDERR_TARGET: &str = "promptexec::stderr";

/// A line longer than this is logged in pieces, so a child that never writes a
/// newline cannot grow our memory.
const MAX_LOGGED_LINE: usize = 16 * 1024;

/// The last [`STDERR_TAIL_BYTES`] of a stream.
#[derive(Default)]
pub(crate) struct Tail(Vec<u8>);

impl Tail {
    pub(crate) fn push(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
        if self.0.len() > 2 * STDERR_TAIL_BYTES {
            let cut = self.0.len() - STDERR_TAIL_BYTES;
            self.0.drain(..cut);
        }
    }

    pub(crate) fn into_string(self) -> String {
        self.to_text()
    }

    /// The kept bytes as text, without consuming them.
    pub(crate) fn to_text(&self) -> String {
        let start = self.0.len().saturating_sub(STDERR_TAIL_BYTES);
        String::from_utf8_lossy(&self.0[start..]).into_owned()
    }
}

/// How many of the last stderr lines a failure message quotes.
const QUOTED_LINES: usize = 20;

/// The last `count` lines of a stderr tail, for a message; none when the child wrote
/// only blank lines or nothing.
pub fn last_lines(tail: &str, count: usize) -> Vec<&str> {
    let lines: Vec<&str> = tail.trim_end().lines().collect();
    if lines.iter().all(|l| l.trim().is_empty()) {
        return Vec::new();
    }
    lines[lines.len().saturating_sub(count)..].to_vec()
}

/// The end of a stderr tail, for a failure message: `"; its stderr ended with:"`
/// and its last lines, indented; empty when the child wrote nothing.
pub(crate) fn stderr_note(tail: &str) -> String {
    let lines = last_lines(tail, QUOTED_LINES);
    if lines.is_empty() {
        return String::new();
    }
    let mut note = String::from("; its stderr ended with:");
    for line in lines {
        note.push_str("\n  ");
        note.push_str(line);
    }
    note
}

/// Splits stderr into lines and logs each, at `-v`, under the extension's label
/// (`[tool lookup_order] …`). Does nothing when that level is off.
pub(crate) struct LineLog {
    label: String,
    partial: Vec<u8>,
    enabled: bool,
}

impl LineLog {
    /// `kind` and `name` say which extension wrote the lines: `tool`, `lookup_order`.
    pub(crate) fn new(kind: &str, name: &str) -> Self {
        Self {
            label: format!("{kind} {name}"),
            partial: Vec::new(),
            enabled: tracing::enabled!(target: STDERR_TARGET, tracing::Level::INFO),
        }
    }

    pub(crate) fn push(&mut self, mut bytes: &[u8]) {
        if !self.enabled {
            return;
        }
        while let Some(nl) = bytes.iter().position(|&b| b == b'\n') {
            self.partial.extend_from_slice(&bytes[..nl]);
            self.emit();
            bytes = &bytes[nl + 1..];
        }
        self.partial.extend_from_slice(bytes);
        while self.partial.len() > MAX_LOGGED_LINE {
            let rest = self.partial.split_off(MAX_LOGGED_LINE);
            self.emit();
            self.partial = rest;
        }
    }

    /// Logs a last line that never got its newline.
    pub(crate) fn finish(&mut self) {
        if self.enabled && !self.partial.is_empty() {
            self.emit();
        }
    }

    fn emit(&mut self) {
        let line = self.partial.strip_suffix(b"\r").unwrap_or(&self.partial);
        tracing::info!(
            target: STDERR_TARGET,
            "[{}] {}",
            self.label,
            crate::peer_text::peer(&String::from_utf8_lossy(line), false)
        );
        self.partial.clear();
    }
}

/// Reads a one-shot child's stderr to EOF: each line logged, the tail kept.
pub(crate) async fn read_stderr(
    pipe: Option<impl AsyncRead + Unpin>,
    tail: &mut Tail,
    log: &mut LineLog,
) {
    let Some(mut pipe) = pipe else { return };
    let mut buf = vec![0u8; 16 * 1024];
    while let Ok(n) = pipe.read(&mut buf).await {
        if n == 0 {
            break;
        }
        tail.push(&buf[..n]);
        log.push(&buf[..n]);
    }
    log.finish();
}

/// Like [`read_stderr`], for a long-running child whose tail calls read while it runs.
pub(crate) async fn read_stderr_shared(
    mut pipe: impl AsyncRead + Unpin,
    shared: Arc<Mutex<Tail>>,
    mut log: LineLog,
) {
    let mut buf = vec![0u8; 16 * 1024];
    while let Ok(n) = pipe.read(&mut buf).await {
        if n == 0 {
            break;
        }
        if let Ok(mut tail) = shared.lock() {
            tail.push(&buf[..n]);
        }
        log.push(&buf[..n]);
    }
    log.finish();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_keeps_the_last_bytes() {
        let mut tail = Tail::default();
        tail.push(&vec![b'a'; 3 * STDERR_TAIL_BYTES]);
        tail.push(b"end");
        let text = tail.to_text();
        assert_eq!(text.len(), STDERR_TAIL_BYTES);
        assert!(text.ends_with("aend"));
    }

    #[test]
    fn a_stderr_note_quotes_the_last_lines_or_nothing() {
        assert_eq!(stderr_note(" \n\n"), "");
        let many: String = (1..=30).map(|i| format!("line {i}\n")).collect();
        let note = stderr_note(&many);
        assert!(note.starts_with("; its stderr ended with:\n  line 11\n"));
        assert!(note.ends_with("\n  line 30"));
    }

    #[test]
    fn lines_split_across_reads_are_joined_and_long_ones_are_cut() {
        let mut log = LineLog {
            label: "tool t".into(),
            partial: Vec::new(),
            enabled: true,
        };
        log.push(b"one\ntw");
        assert_eq!(log.partial, b"tw");
        log.push(b"o\r\nthree");
        assert_eq!(log.partial, b"three");
        log.push(&vec![b'x'; 2 * MAX_LOGGED_LINE]);
        assert!(log.partial.len() <= MAX_LOGGED_LINE);
        log.finish();
        assert!(log.partial.is_empty());
    }
}
