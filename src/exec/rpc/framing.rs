use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};

/// How much is read from the pipe at once: large replies take few reads.
const READ_BUFFER: usize = 64 * 1024;
/// How much of a dropped line is kept, to find the id of the message it held.
pub const HEAD_KEPT: usize = 256;

/// One line from the child, without its newline.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    Text(Vec<u8>),
    /// A line longer than the limit, dropped: its length and its first bytes.
    TooLong {
        len: usize,
        head: Vec<u8>,
    },
    /// Bytes before EOF that never got their newline.
    Partial(Vec<u8>),
}

/// Splits a stream into lines, never holding more than `max` bytes of one line.
pub struct LineReader<R> {
    inner: BufReader<R>,
    max: usize,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    pub fn new(inner: R, max: usize) -> Self {
        Self {
            inner: BufReader::with_capacity(READ_BUFFER, inner),
            max,
        }
    }

    /// The next line, or `None` at EOF.
    pub async fn next_line(&mut self) -> std::io::Result<Option<Line>> {
        let mut line = Vec::new();
        let mut dropped = 0usize;
        let mut head = Vec::new();
        loop {
            let chunk = self.inner.fill_buf().await?;
            if chunk.is_empty() {
                return Ok(match (line.is_empty(), dropped) {
                    (true, 0) => None,
                    (_, 0) => Some(Line::Partial(line)),
                    _ => Some(Line::TooLong {
                        len: dropped + line.len(),
                        head,
                    }),
                });
            }
            let (taken, ended) = match chunk.iter().position(|&b| b == b'\n') {
                Some(nl) => (nl, true),
                None => (chunk.len(), false),
            };
            if dropped == 0 && line.len() + taken <= self.max {
                line.extend_from_slice(&chunk[..taken]);
            } else {
                if dropped == 0 {
                    head = line[..line.len().min(HEAD_KEPT)].to_vec();
                    let more = (HEAD_KEPT - head.len()).min(taken);
                    head.extend_from_slice(&chunk[..more]);
                }
                dropped += line.len() + taken;
                line = Vec::new();
            }
            self.inner.consume(taken + usize::from(ended));
            if ended {
                return Ok(Some(if dropped > 0 {
                    Line::TooLong { len: dropped, head }
                } else {
                    Line::Text(line)
                }));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines(input: &[u8], max: usize) -> Vec<Line> {
        let mut reader = LineReader::new(input, max);
        let mut out = Vec::new();
        while let Some(line) = reader.next_line().await.expect("reads") {
            out.push(line);
        }
        out
    }

    #[tokio::test]
    async fn splits_lines_and_keeps_a_partial_tail() {
        let got = lines(b"a\n\nbc\nhalf", 10).await;
        assert_eq!(
            got,
            [
                Line::Text(b"a".to_vec()),
                Line::Text(Vec::new()),
                Line::Text(b"bc".to_vec()),
                Line::Partial(b"half".to_vec())
            ]
        );
    }

    #[tokio::test]
    async fn long_lines_are_dropped_and_later_lines_survive() {
        let got = lines(b"0123456789abc\nok\n", 5).await;
        let head = b"0123456789abc".to_vec();
        let too_long = Line::TooLong { len: 13, head };
        assert_eq!(got, [too_long, Line::Text(b"ok".to_vec())]);
    }
}
