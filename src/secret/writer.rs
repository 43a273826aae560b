//! A writer that hides secrets in a stream written in pieces of any size (a JSON
//! serializer writes a string in several), holding back only an end that could be
//! the start of a secret until the next piece, or [`Redacting::finish`], says.

use std::io::{self, Write};
use std::sync::Arc;

use super::Registry;

pub(crate) struct Redacting<W: Write> {
    inner: W,
    /// The end of what was written that may be the start of a secret.
    held: Vec<u8>,
    registry: Arc<Registry>,
    /// The set's generation `registry` was taken at.
    generation: u64,
    scratch: Vec<u8>,
}

impl<W: Write> Redacting<W> {
    pub(crate) fn new(inner: W) -> Self {
        Self {
            inner,
            held: Vec::new(),
            registry: super::current(),
            generation: super::generation(),
            scratch: Vec::new(),
        }
    }

    /// Writes what was held back, as the end of the text, flushes, and gives the
    /// writer back. Without it the held end is lost.
    pub(crate) fn finish(mut self) -> io::Result<W> {
        self.pass(true)?;
        self.inner.flush()?;
        Ok(self.inner)
    }

    /// Secrets added since the last piece count from this one on.
    fn refresh(&mut self) {
        let generation = super::generation();
        if generation != self.generation {
            self.generation = generation;
            self.registry = super::current();
        }
    }

    fn pass(&mut self, at_end: bool) -> io::Result<()> {
        self.scratch.clear();
        let (used, _) = self.registry.scan(&self.held, at_end, &mut self.scratch);
        self.held.drain(..used);
        self.inner.write_all(&self.scratch)
    }
}

impl<W: Write> Write for Redacting<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.refresh();
        if self.registry.is_empty() && self.held.is_empty() {
            self.inner.write_all(buf)?;
            return Ok(buf.len());
        }
        self.held.extend_from_slice(buf);
        self.pass(false)?;
        Ok(buf.len())
    }

    /// Flushes what has gone through; an end held back stays held.
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_written_one_byte_at_a_time_is_hidden() {
        crate::secret::register_key("wr-secret-\"key\"-9");
        let json = serde_json::json!({"said": "my key is wr-secret-\"key\"-9", "end": "wr-sec"});
        let mut out = Redacting::new(Vec::new());
        for byte in json.to_string().as_bytes() {
            out.write_all(std::slice::from_ref(byte)).expect("written");
        }
        let written = String::from_utf8(out.finish().expect("finished")).expect("utf-8");
        assert_eq!(written, r#"{"said":"my key is ***","end":"wr-sec"}"#);
    }
}
