//! The events of a run, spilled as they happen to an anonymous temporary file, one
//! JSON line each, so a long run holds none of them in memory. Reports read them
//! back in a pass each; reads are positional, so passes never disturb the writer or
//! each other.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::os::unix::fs::FileExt;
use std::sync::OnceLock;

use super::SessionEvent;

/// An append-only log of [`SessionEvent`]s. The first error writing or reading it
/// is kept: a run whose log failed reports that instead of an incomplete account.
#[derive(Debug, Default)]
pub struct EventLog {
    /// `None` for a log that was never opened (the default) or could not be.
    out: Option<BufWriter<File>>,
    len: usize,
    error: OnceLock<io::Error>,
}

impl EventLog {
    /// A new, empty log on a temporary file that vanishes with it.
    pub fn new() -> Self {
        let log = Self::default();
        match tempfile::tempfile() {
            Ok(file) => Self {
                out: Some(BufWriter::new(file)),
                ..log
            },
            Err(err) => {
                let dir = std::env::temp_dir();
                log.fail(io::Error::new(
                    err.kind(),
                    format!("no event log in {}: {err}", dir.display()),
                ));
                log
            }
        }
    }

    /// A log holding these events, ready to read.
    pub fn from_events(events: impl IntoIterator<Item = SessionEvent>) -> Self {
        let mut log = Self::new();
        for event in events {
            log.push(&event);
        }
        log.flush();
        log
    }

    fn fail(&self, err: io::Error) {
        // Only the first error counts; later ones follow from it.
        let _ = self.error.set(err);
    }

    /// Appends one event. After an error nothing more is written.
    pub fn push(&mut self, event: &SessionEvent) {
        if self.error.get().is_some() {
            return;
        }
        let Some(out) = &mut self.out else {
            return self.fail(io::Error::other("the event log is closed"));
        };
        let written = serde_json::to_writer(&mut *out, event)
            .map_err(io::Error::other)
            .and_then(|()| out.write_all(b"\n"));
        match written {
            Ok(()) => self.len += 1,
            Err(err) => self.fail(err),
        }
    }

    /// How many events were appended.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Hands what was appended to the file, so reads see all of it.
    pub fn flush(&mut self) {
        if let Some(out) = &mut self.out
            && let Err(err) = out.flush()
        {
            self.fail(err);
        }
    }

    /// The first error writing or reading the log, if any.
    pub fn error(&self) -> Option<io::Error> {
        self.error
            .get()
            .map(|err| io::Error::new(err.kind(), err.to_string()))
    }

    /// Flushes the log and says whether every event made it.
    pub fn check(&mut self) -> io::Result<()> {
        self.flush();
        self.error().map_or(Ok(()), Err)
    }

    /// Every event flushed so far, read back in order. A read that fails ends the
    /// pass and is kept for [`EventLog::error`].
    pub fn iter(&self) -> Events<'_> {
        Events {
            log: self,
            reader: self.out.as_ref().map(|out| {
                BufReader::new(At {
                    file: out.get_ref(),
                    pos: 0,
                })
            }),
            left: self.len,
            line: String::new(),
        }
    }

    /// Every event, flushed and read into memory: for tests and small logs.
    pub fn read_all(&mut self) -> io::Result<Vec<SessionEvent>> {
        self.flush();
        let events = self.iter().collect();
        self.error().map_or(Ok(events), Err)
    }
}

/// A file read from its own position, leaving the file's offset alone.
struct At<'f> {
    file: &'f File,
    pos: u64,
}

impl Read for At<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.file.read_at(buf, self.pos)?;
        self.pos += n as u64;
        Ok(n)
    }
}

/// One pass over an [`EventLog`].
pub struct Events<'l> {
    log: &'l EventLog,
    reader: Option<BufReader<At<'l>>>,
    left: usize,
    line: String,
}

impl Iterator for Events<'_> {
    type Item = SessionEvent;

    fn next(&mut self) -> Option<SessionEvent> {
        if self.left == 0 {
            return None;
        }
        let reader = self.reader.as_mut()?;
        self.line.clear();
        let read = match reader.read_line(&mut self.line) {
            Ok(0) => Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the event log ended early",
            )),
            Ok(_) => serde_json::from_str(&self.line).map_err(io::Error::other),
            Err(err) => Err(err),
        };
        match read {
            Ok(event) => {
                self.left -= 1;
                Some(event)
            }
            Err(err) => {
                self.log.fail(err);
                self.left = 0;
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(turn: u32) -> SessionEvent {
        SessionEvent::User {
            turn,
            content: format!("message {turn}"),
        }
    }

    #[test]
    fn events_read_back_in_order_in_as_many_passes_as_wanted() {
        let mut log = EventLog::new();
        log.push(&user(1));
        log.flush();
        let mut first = log.iter();
        assert_eq!(first.next(), Some(user(1)));
        log.push(&user(2));
        assert_eq!(log.read_all().expect("reads"), vec![user(1), user(2)]);
        assert_eq!(log.iter().count(), 2);
        assert!(log.check().is_ok());
    }

    #[test]
    fn a_closed_log_says_so_instead_of_losing_events() {
        let mut log = EventLog::default();
        log.push(&user(1));
        let err = log.check().expect_err("nothing could be written");
        assert!(err.to_string().contains("closed"), "{err}");
        assert_eq!(log.iter().count(), 0);
    }

    #[test]
    fn events_not_flushed_are_an_error_not_a_short_read() {
        let mut log = EventLog::new();
        log.push(&user(1));
        assert_eq!(log.iter().count(), 0);
        assert!(log.error().is_some());
    }
}
