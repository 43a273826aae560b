//! A child spoken to line by line, as a probe needs it: raw bytes in, lines out with a
//! deadline on each, stdin closed on demand, and the exit awaited separately. Unlike
//! the engine's JSON-RPC client it matches nothing and hides nothing: a probe sees
//! every line in the order the child wrote it.

use std::process::ExitStatus;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::process::{Child, ChildStdin};
use tokio::sync::mpsc;
use tokio::time::{Instant, timeout_at};

use crate::config::ExecSpec;
use crate::exec::group::GroupGuard;
use crate::exec::rpc::framing::{Line, LineReader};
use crate::exec::spawn::spawn;
use crate::exec::tail::{LineLog, Tail, read_stderr_shared};
use crate::exec::{CallKind, SpawnError, child_env_for};

/// Lines longer than this are reported by length only.
const MAX_LINE: usize = 16 * 1024 * 1024;

/// What the child wrote next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Next {
    Line(Vec<u8>),
    /// Bytes at EOF without a newline.
    Partial(Vec<u8>),
    TooLong(usize),
    /// Stdout closed.
    Eof,
    /// Nothing by the deadline.
    Silent,
}

pub(super) struct LineProcess {
    child: Child,
    guard: Option<GroupGuard>,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<Next>,
    stderr: Arc<Mutex<Tail>>,
}

impl LineProcess {
    /// Starts `spec` as the engine would, with the environment of `kind` and `extra`.
    pub(super) fn start(
        name: &str,
        kind: CallKind,
        spec: &ExecSpec,
        extra: &[(String, String)],
    ) -> Result<Self, SpawnError> {
        let env = child_env_for(kind, name, spec, extra);
        let (mut child, guard) = spawn(spec, env)?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(SpawnError::NotPiped);
        };
        let (tx, lines) = mpsc::channel(64);
        tokio::spawn(async move {
            let mut reader = LineReader::new(stdout, MAX_LINE);
            loop {
                let next = match reader.next_line().await {
                    Ok(Some(Line::Text(text))) => Next::Line(text.to_vec()),
                    Ok(Some(Line::Partial(bytes))) => Next::Partial(bytes),
                    Ok(Some(Line::TooLong { len, .. })) => Next::TooLong(len),
                    Ok(None) | Err(_) => Next::Eof,
                };
                let done = next == Next::Eof;
                if tx.send(next).await.is_err() || done {
                    break;
                }
            }
        });
        let tail = Arc::new(Mutex::new(Tail::default()));
        tokio::spawn(read_stderr_shared(
            stderr,
            tail.clone(),
            LineLog::new(kind.as_str(), name),
        ));
        Ok(Self {
            child,
            guard,
            stdin: Some(stdin),
            lines,
            stderr: tail,
        })
    }

    /// Writes `bytes` as they are, by `deadline`: a child that does not read must not
    /// hold the probe. False when it did not all go, or stdin is closed.
    pub(super) async fn send(&mut self, bytes: &[u8], deadline: Instant) -> bool {
        let Some(stdin) = &mut self.stdin else {
            return false;
        };
        let write = async { stdin.write_all(bytes).await.and(stdin.flush().await) };
        matches!(timeout_at(deadline, write).await, Ok(Ok(())))
    }

    pub(super) fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next thing on stdout, or [`Next::Silent`] at `deadline`. After EOF, EOF.
    pub(super) async fn next(&mut self, deadline: Instant) -> Next {
        match timeout_at(deadline, self.lines.recv()).await {
            Ok(Some(next)) => next,
            Ok(None) => Next::Eof,
            Err(_) => Next::Silent,
        }
    }

    /// How the child ended, if it did within `within`.
    pub(super) async fn exited_within(&mut self, within: Duration) -> Option<ExitStatus> {
        tokio::time::timeout(within, self.child.wait())
            .await
            .ok()
            .and_then(Result::ok)
    }

    /// Stops the direct child only, so that what it started can still be found.
    pub(super) async fn stop_leader(&mut self) -> Option<ExitStatus> {
        let _ = self.child.start_kill();
        self.child.wait().await.ok()
    }

    pub(super) fn guard(&self) -> Option<&GroupGuard> {
        self.guard.as_ref()
    }

    pub(super) fn stderr_tail(&self) -> String {
        self.stderr.lock().map(|t| t.to_text()).unwrap_or_default()
    }
}
