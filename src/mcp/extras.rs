//! What the SDK's typed listing drops: a tool's `execution` object (2025-11-25), which
//! rmcp's `Tool` no longer models. A stdio server's stdout is read through this tap,
//! which keeps each listed tool's `execution` by name; `tools` shows them.

use std::collections::HashMap;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use serde_json::Value as Json;
use tokio::io::{AsyncRead, ReadBuf};

/// Each listed tool's `execution`, by tool name.
pub(super) type Executions = Arc<Mutex<HashMap<String, Json>>>;

/// Stdout, unchanged, with the `execution` of every tool in a `tools/list` answer
/// kept aside. Only lines that mention `"execution"` are parsed a second time.
pub(super) struct ExecutionTap<R> {
    inner: R,
    line: Vec<u8>,
    /// Past this many bytes a line is not kept: the cap on messages ends it anyway.
    limit: usize,
    found: Executions,
}

impl<R> ExecutionTap<R> {
    pub(super) fn new(inner: R, limit: u64) -> (Self, Executions) {
        let found = Executions::default();
        let tap = Self {
            inner,
            line: Vec::new(),
            limit: usize::try_from(limit).unwrap_or(usize::MAX),
            found: Arc::clone(&found),
        };
        (tap, found)
    }

    fn take(&mut self, mut fresh: &[u8]) {
        while let Some(end) = memchr::memchr(b'\n', fresh) {
            self.push(&fresh[..end]);
            let line = std::mem::take(&mut self.line);
            self.keep_executions(&line);
            fresh = &fresh[end + 1..];
        }
        self.push(fresh);
    }

    fn push(&mut self, bytes: &[u8]) {
        if self.line.len() + bytes.len() <= self.limit {
            self.line.extend_from_slice(bytes);
        }
    }

    fn keep_executions(&self, line: &[u8]) {
        if memchr::memmem::find(line, b"\"execution\"").is_none() {
            return;
        }
        let Ok(message) = serde_json::from_slice::<Json>(line) else {
            return;
        };
        let Some(tools) = message.pointer("/result/tools").and_then(Json::as_array) else {
            return;
        };
        let Ok(mut found) = self.found.lock() else {
            return;
        };
        for tool in tools {
            if let (Some(name), Some(execution)) = (
                tool.get("name").and_then(Json::as_str),
                tool.get("execution").filter(|e| e.is_object()),
            ) {
                found.insert(name.to_string(), execution.clone());
            }
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for ExecutionTap<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = polled {
            self.take(&buf.filled()[before..]);
        }
        polled
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    #[tokio::test(flavor = "current_thread")]
    async fn the_execution_of_each_listed_tool_is_kept_and_the_bytes_pass_unchanged() {
        let text = concat!(
            r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a","execution":{"taskSupport":"required"}},{"name":"b"}]}}"#,
            "\n",
        );
        let (mut tap, found) = ExecutionTap::new(text.as_bytes(), 1 << 20);
        let mut out = Vec::new();
        tap.read_to_end(&mut out).await.expect("read");
        assert_eq!(out, text.as_bytes());
        let found = found.lock().expect("lock");
        assert_eq!(found.len(), 1);
        assert_eq!(found["a"], serde_json::json!({"taskSupport": "required"}));
    }
}
