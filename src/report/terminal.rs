//! The writer a human stream is given, shared with the spinner's ticker thread, and
//! drawn on as a terminal when the caller says it is one.

use std::fmt;
use std::io::{self, Write};
use std::sync::{Arc, Mutex, PoisonError};

use indicatif::TermLike;

/// A terminal the stream's writer is: a spinner is drawn only on one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Terminal {
    /// Columns, so the spinner's line can be cleared whole.
    pub width: u16,
}

impl Terminal {
    /// The process's stderr, when it is a terminal that can redraw a line (a
    /// `dumb` one cannot).
    pub(crate) fn stderr() -> Option<Self> {
        let term = console::Term::stderr();
        let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
        (term.is_term() && !dumb).then(|| Self {
            width: term.size().1,
        })
    }
}

/// One writer for the stream's lines and the spinner's frames.
#[derive(Clone)]
pub(super) struct SharedOut(Arc<Mutex<Box<dyn Write + Send>>>);

impl SharedOut {
    pub(super) fn new(out: Box<dyn Write + Send>) -> Self {
        Self(Arc::new(Mutex::new(out)))
    }

    /// Writes `text` whole, with every secret hidden, and flushes it, so a line
    /// never waits in a buffer.
    pub(super) fn write(&self, text: &str) -> io::Result<()> {
        let mut out = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        out.write_all(crate::secret::redact(text).as_bytes())?;
        out.flush()
    }
}

/// The shared writer as the spinner sees it: a terminal of a known width that
/// takes ANSI cursor movements.
pub(super) struct Screen {
    pub(super) out: SharedOut,
    pub(super) terminal: Terminal,
}

impl Screen {
    fn cursor(&self, n: usize, direction: char) -> io::Result<()> {
        match n {
            0 => Ok(()),
            n => self.out.write(&format!("\x1b[{n}{direction}")),
        }
    }
}

impl fmt::Debug for Screen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Screen")
            .field("terminal", &self.terminal)
            .finish_non_exhaustive()
    }
}

impl TermLike for Screen {
    fn width(&self) -> u16 {
        self.terminal.width
    }

    fn move_cursor_up(&self, n: usize) -> io::Result<()> {
        self.cursor(n, 'A')
    }

    fn move_cursor_down(&self, n: usize) -> io::Result<()> {
        self.cursor(n, 'B')
    }

    fn move_cursor_right(&self, n: usize) -> io::Result<()> {
        self.cursor(n, 'C')
    }

    fn move_cursor_left(&self, n: usize) -> io::Result<()> {
        self.cursor(n, 'D')
    }

    fn write_line(&self, s: &str) -> io::Result<()> {
        self.out.write(&format!("{s}\n"))
    }

    fn write_str(&self, s: &str) -> io::Result<()> {
        self.out.write(s)
    }

    fn clear_line(&self) -> io::Result<()> {
        self.out.write("\r\x1b[2K")
    }

    fn flush(&self) -> io::Result<()> {
        self.out.write("")
    }
}
