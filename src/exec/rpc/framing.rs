use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

/// How much is read from the pipe at once: large replies take few reads.
const READ_BUFFER: usize = 64 * 1024;
/// How much of a dropped line is kept, to find the id of the message it held.
pub(crate) const HEAD_KEPT: usize = 256;

/// One line from the child, without its newline.
#[derive(Debug, PartialEq, Eq)]
pub enum Line<'a> {
    Text(&'a [u8]),
    /// A line longer than the limit, dropped: its length and its first bytes.
    TooLong {
        len: usize,
        head: Vec<u8>,
    },
    /// Bytes before EOF that never got their newline.
    Partial(Vec<u8>),
}

/// Splits a stream into lines, never holding more than `max` bytes of one line.
/// A line that arrived whole in one read is lent straight from the read buffer;
/// only one split across reads is gathered into a buffer of its own.
pub struct LineReader<R> {
    inner: BufReader<R>,
    max: usize,
    /// The length of the line last lent from the read buffer, newline included:
    /// consumed when the next line is asked for.
    lent: usize,
    /// A line split across reads, gathered.
    line: Vec<u8>,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub fn new(inner: R, max: usize) -> Self {
        Self {
            inner: BufReader::with_capacity(READ_BUFFER, inner),
            max,
            lent: 0,
            line: Vec::new(),
        }
    }

    /// The next line, or `None` at EOF.
    pub async fn next_line(&mut self) -> std::io::Result<Option<Line<'_>>> {
        self.inner.consume(std::mem::take(&mut self.lent));
        self.line.clear();
        let mut dropped = 0usize;
        let mut head = Vec::new();
        loop {
            let chunk = self.inner.fill_buf().await?;
            if chunk.is_empty() {
                let line = std::mem::take(&mut self.line);
                return Ok(match (line.is_empty(), dropped) {
                    (true, 0) => None,
                    (_, 0) => Some(Line::Partial(line)),
                    _ => Some(Line::TooLong {
                        len: dropped + line.len(),
                        head,
                    }),
                });
            }
            let (taken, ended) = match memchr::memchr(b'\n', chunk) {
                Some(nl) => (nl, true),
                None => (chunk.len(), false),
            };
            if ended && dropped == 0 && self.line.is_empty() && taken <= self.max {
                self.lent = taken + 1;
                return Ok(Some(Line::Text(&self.inner.buffer()[..taken])));
            }
            if dropped == 0 && self.line.len() + taken <= self.max {
                self.line.extend_from_slice(&chunk[..taken]);
            } else {
                if dropped == 0 {
                    head = self.line[..self.line.len().min(HEAD_KEPT)].to_vec();
                    let more = (HEAD_KEPT - head.len()).min(taken);
                    head.extend_from_slice(&chunk[..more]);
                }
                dropped += self.line.len() + taken;
                self.line.clear();
            }
            self.inner.consume(taken + usize::from(ended));
            if ended {
                return Ok(Some(if dropped > 0 {
                    Line::TooLong { len: dropped, head }
                } else {
                    Line::Text(&self.line)
                }));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    /// A [`Line`] kept past the next read.
    #[derive(Debug, PartialEq, Eq)]
    enum Got {
        Text(Vec<u8>),
        TooLong { len: usize, head: Vec<u8> },
        Partial(Vec<u8>),
    }

    async fn lines(input: impl AsyncRead + Unpin, max: usize) -> Vec<Got> {
        let mut reader = LineReader::new(input, max);
        let mut out = Vec::new();
        while let Some(line) = reader.next_line().await.expect("reads") {
            out.push(match line {
                Line::Text(text) => Got::Text(text.to_vec()),
                Line::TooLong { len, head } => Got::TooLong { len, head },
                Line::Partial(bytes) => Got::Partial(bytes),
            });
        }
        out
    }

    #[tokio::test]
    async fn splits_lines_and_keeps_a_partial_tail() {
        let got = lines(&b"a\n\nbc\nhalf"[..], 10).await;
        assert_eq!(
            got,
            [
                Got::Text(b"a".to_vec()),
                Got::Text(Vec::new()),
                Got::Text(b"bc".to_vec()),
                Got::Partial(b"half".to_vec())
            ]
        );
    }

    #[tokio::test]
    async fn a_line_split_across_reads_comes_whole() {
        let input = (&b"{\"id\""[..]).chain(&b":1}\nnext\n"[..]);
        let got = lines(input, 10).await;
        assert_eq!(
            got,
            [
                Got::Text(br#"{"id":1}"#.to_vec()),
                Got::Text(b"next".to_vec())
            ]
        );
    }

    #[tokio::test]
    async fn long_lines_are_dropped_and_later_lines_survive() {
        let got = lines(&b"0123456789abc\nok\n"[..], 5).await;
        let head = b"0123456789abc".to_vec();
        let too_long = Got::TooLong { len: 13, head };
        assert_eq!(got, [too_long, Got::Text(b"ok".to_vec())]);
        // Over the limit only once the second read comes.
        let input = (&b"0123"[..]).chain(&b"456\nok\n"[..]);
        let got = lines(input, 5).await;
        let head = b"0123456".to_vec();
        let too_long = Got::TooLong { len: 7, head };
        assert_eq!(got, [too_long, Got::Text(b"ok".to_vec())]);
    }
}
