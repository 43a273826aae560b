//! Server-sent events, as both APIs stream an answer: fed chunks as they arrive, it
//! gives back the events they complete.

/// One event: its `event:` name when it has one, and its `data:` lines joined by `\n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SseEvent {
    pub event: Option<String>,
    pub data: String,
}

#[derive(Debug, Default)]
pub(super) struct SseParser {
    /// Bytes of a line not yet ended.
    pending: Vec<u8>,
    /// The last line ended with `\r`: a `\n` right after it ends nothing more.
    after_cr: bool,
    event: Option<String>,
    data: Option<String>,
}

impl SseParser {
    /// The events that `chunk` completes. A line may be split anywhere, even inside a
    /// UTF-8 character or between `\r` and `\n`. Only `chunk` is scanned, and a line
    /// still open is only appended to, so a line sent in many chunks costs its length,
    /// not its length times the chunks.
    pub(super) fn feed(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        let mut start = 0;
        for (i, &byte) in chunk.iter().enumerate() {
            let after_cr = std::mem::replace(&mut self.after_cr, false);
            match byte {
                b'\n' if after_cr && i == start && self.pending.is_empty() => start = i + 1,
                b'\n' | b'\r' => {
                    if self.pending.is_empty() {
                        self.line(&chunk[start..i], &mut events);
                    } else {
                        let mut line = std::mem::take(&mut self.pending);
                        line.extend_from_slice(&chunk[start..i]);
                        self.line(&line, &mut events);
                        // The buffer is kept for the next long line.
                        line.clear();
                        self.pending = line;
                    }
                    start = i + 1;
                    self.after_cr = byte == b'\r';
                }
                _ => {}
            }
        }
        self.pending.extend_from_slice(&chunk[start..]);
        events
    }

    /// The events still held when the body ends: a last one without its blank line
    /// counts, as lenient servers send them.
    pub(super) fn finish(&mut self) -> Vec<SseEvent> {
        let mut events = Vec::new();
        let rest = std::mem::take(&mut self.pending);
        if !rest.is_empty() {
            self.line(&rest, &mut events);
        }
        self.line(b"", &mut events);
        events
    }

    fn line(&mut self, line: &[u8], events: &mut Vec<SseEvent>) {
        if line.is_empty() {
            let event = self.event.take();
            if let Some(data) = self.data.take() {
                events.push(SseEvent { event, data });
            }
            return;
        }
        let line = String::from_utf8_lossy(line);
        if line.starts_with(':') {
            return;
        }
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_ref(), ""),
        };
        match field {
            "data" => match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_string()),
            },
            "event" => self.event = Some(value.to_string()),
            // `id` and `retry` matter only to a client that reconnects.
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(name: Option<&str>, data: &str) -> SseEvent {
        SseEvent {
            event: name.map(str::to_string),
            data: data.into(),
        }
    }

    fn parse_in_pieces(pieces: &[&[u8]]) -> Vec<SseEvent> {
        let mut parser = SseParser::default();
        let mut events: Vec<SseEvent> = pieces.iter().flat_map(|p| parser.feed(p)).collect();
        events.extend(parser.finish());
        events
    }

    #[test]
    fn events_split_across_chunks_anywhere() {
        let whole =
            "event: message_start\ndata: {\"a\":1}\n\n: keep-alive\n\ndata: é\n\n".as_bytes();
        let expected = vec![event(Some("message_start"), "{\"a\":1}"), event(None, "é")];
        assert_eq!(parse_in_pieces(&[whole]), expected);
        for cut in 1..whole.len() {
            let (a, b) = whole.split_at(cut);
            assert_eq!(parse_in_pieces(&[a, b]), expected, "cut at {cut}");
        }
        let bytes: Vec<&[u8]> = whole.chunks(1).collect();
        assert_eq!(parse_in_pieces(&bytes), expected);
    }

    #[test]
    fn a_line_sent_in_many_chunks_is_read_whole() {
        let mut parser = SseParser::default();
        let mut events = parser.feed(b"data: ");
        for _ in 0..100_000 {
            events.extend(parser.feed(b"x"));
        }
        assert!(events.is_empty());
        events.extend(parser.feed(b"\r"));
        events.extend(parser.feed(b"\n\ndata: end\n\n"));
        assert_eq!(
            events,
            [event(None, &"x".repeat(100_000)), event(None, "end")]
        );
    }

    #[test]
    fn crlf_and_lone_cr_end_lines() {
        let crlf = b"data: one\r\n\r\ndata: two\r\r";
        assert_eq!(
            parse_in_pieces(&[crlf]),
            [event(None, "one"), event(None, "two")]
        );
        assert_eq!(
            parse_in_pieces(&[b"data: one\r", b"\n\r", b"\ndata:x\n\n"]),
            [event(None, "one"), event(None, "x")]
        );
    }

    #[test]
    fn multi_line_data_is_joined_and_the_last_event_needs_no_blank_line() {
        let text = b"data: line one\ndata:line two\ndata\n\nid: 7\nretry: 10\ndata: [DONE]";
        assert_eq!(
            parse_in_pieces(&[text]),
            [event(None, "line one\nline two\n"), event(None, "[DONE]")]
        );
        // An event with no data is no event.
        assert_eq!(parse_in_pieces(&[b"event: ping\n\n"]), []);
    }
}
