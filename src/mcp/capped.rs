//! A stdio server's stdout with a cap on each message. The SDK drops an overlong line
//! and waits on, so a call would end only at its deadline; here the line ends the
//! connection at once, and the reason is kept for the call's failure message.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};

/// Stdout, failing a read once a line runs past `limit` bytes.
pub(super) struct CappedLines<R> {
    inner: R,
    limit: u64,
    line: u64,
    /// Set to the line's length so far when it ran past the limit.
    overlong: Arc<AtomicU64>,
}

impl<R> CappedLines<R> {
    pub(super) fn new(inner: R, limit: u64) -> (Self, Arc<AtomicU64>) {
        let overlong = Arc::new(AtomicU64::new(0));
        let reader = Self {
            inner,
            limit,
            line: 0,
            overlong: Arc::clone(&overlong),
        };
        (reader, overlong)
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for CappedLines<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = polled {
            let fresh = &buf.filled()[before..];
            // Only the bytes after the last newline belong to the line still open.
            self.line = match memchr::memrchr(b'\n', fresh) {
                Some(end) => (fresh.len() - end - 1) as u64,
                None => self.line + fresh.len() as u64,
            };
            if self.line > self.limit {
                self.overlong.store(self.line, Ordering::Relaxed);
                // A read that fails hands over nothing.
                buf.set_filled(before);
                return Poll::Ready(Err(io::Error::other("a message over the size limit")));
            }
        }
        polled
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    #[tokio::test(flavor = "current_thread")]
    async fn lines_within_the_limit_pass_and_a_longer_one_ends_the_stream() {
        let text = b"short\nalso short\n0123456789abcdef";
        let (mut reader, overlong) = CappedLines::new(&text[..], 12);
        let mut out = Vec::new();
        let err = reader.read_to_end(&mut out).await.expect_err("capped");
        assert_eq!(err.to_string(), "a message over the size limit");
        assert!(overlong.load(Ordering::Relaxed) > 12);

        let (mut reader, overlong) = CappedLines::new(&text[..], 16);
        let mut out = Vec::new();
        reader
            .read_to_end(&mut out)
            .await
            .expect("within the limit");
        assert_eq!(out, text);
        assert_eq!(overlong.load(Ordering::Relaxed), 0);
    }
}
