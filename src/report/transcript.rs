use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

use crate::session::SessionEvent;

/// The JSONL transcript: one line per event, each written whole with one `write`
/// and flushed at once, so a run killed midway leaves every line it finished and
/// no partial one. Every secret in a line is hidden.
pub(crate) struct Transcript {
    file: File,
    seq: u64,
    failed: Option<io::Error>,
}

impl Transcript {
    pub(crate) fn create(path: &Path) -> io::Result<Self> {
        Ok(Self {
            file: File::create(path)?,
            seq: 0,
            failed: None,
        })
    }

    /// Appends one event; the first error is kept for [`Transcript::close`] and
    /// later lines are not attempted.
    pub(crate) fn write(&mut self, event: &SessionEvent) {
        if self.failed.is_some() {
            return;
        }
        self.seq += 1;
        let mut line = match serde_json::to_value(event) {
            Ok(value) => value,
            Err(err) => {
                self.failed = Some(io::Error::other(err));
                return;
            }
        };
        line["seq"] = self.seq.into();
        let mut bytes = crate::secret::redact(&line.to_string())
            .into_owned()
            .into_bytes();
        bytes.push(b'\n');
        if let Err(err) = self.file.write_all(&bytes) {
            self.failed = Some(err);
        }
    }

    /// Syncs the file; reports the first error any write met.
    pub(crate) fn close(self) -> io::Result<()> {
        if let Some(err) = self.failed {
            return Err(err);
        }
        self.file.sync_all()
    }
}
