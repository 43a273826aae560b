use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::sys::signal::Signal;
use serde::Serialize;
use serde_json::Value as Json;
use tokio::io::AsyncWriteExt;
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::envelope::{Incoming, id_at_start, read_line, request_line};
use super::framing::{Line, LineReader};
use super::pending::Calls;
use crate::config::ExecSpec;
use crate::exec::group::{GroupGuard, signal_group};
use crate::exec::spawn::{SpawnError, spawn};
use crate::exec::tail::{LineLog, Tail, read_stderr_shared, stderr_note};
use crate::exec::{CallKind, RawJson, describe_exit};

/// Lines waiting to be written to the child; beyond this, calls wait and
/// notifications are dropped.
const WRITE_QUEUE: usize = 1024;

/// Lines that queued up meanwhile go out in one write, up to about this many bytes.
const WRITE_BURST: usize = 64 * 1024;

/// Replies routed before the reader lets the callers they answered send their next
/// requests. A read brings many replies when many calls are in flight; routing them
/// all first would leave the child idle until the last is handled, where a quarter
/// of the default 64 in flight keeps both sides busy (measured by benches/payload.rs:
/// 8 and 32 are both slower).
const ROUTE_BURST: usize = 16;

/// After the child exits, how long replies it already wrote may take to be read.
const DRAIN_LIMIT: Duration = Duration::from_millis(500);

/// What came back for one request: by default the result as a tree; from the raw
/// calls, as the text the process wrote.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply<T = Json> {
    Result(T),
    Error { code: i64, message: String },
}

impl Reply<RawJson> {
    /// The result as a tree. A result that does not fit one (a number out of
    /// range) reads as a JSON-RPC parse error.
    pub fn parsed(self) -> Reply {
        match self {
            Reply::Result(raw) => match raw.parse() {
                Ok(value) => Reply::Result(value),
                Err(err) => Reply::Error {
                    code: -32700,
                    message: format!("the result could not be read: {err}"),
                },
            },
            Reply::Error { code, message } => Reply::Error { code, message },
        }
    }
}

/// Why one call on a running process got no reply.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RpcError {
    /// The process ended (or its stdin closed) while the call waited.
    #[error("the server {status} while the call was in flight{}", stderr_note(.stderr_tail))]
    Exited { status: String, stderr_tail: String },
    #[error("{0}")]
    TimedOut(Timeout),
    #[error("{0}")]
    Overlong(Overlong),
}

/// A reply longer than the line limit, which failed the call it answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("its reply was {len} bytes, over the {limit}-byte limit (max_output_bytes)")]
pub struct Overlong {
    pub len: usize,
    pub limit: usize,
}

/// A call that got no reply by its deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeout {
    pub after: Duration,
    /// The process had not written a single byte to stdout: often a sign that it
    /// does not flush after each line.
    pub nothing_read: bool,
}

impl std::fmt::Display for Timeout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no reply within {} ms", self.after.as_millis())?;
        if self.nothing_read {
            f.write_str(NOT_FLUSHING_HINT)?;
        }
        Ok(())
    }
}

/// Added to a timeout when the process never wrote to stdout.
pub const NOT_FLUSHING_HINT: &str =
    "; nothing was read from its stdout: is it flushing after each line?";

/// A running JSON-RPC child. Cheap to share; every call gets its own id.
pub struct RpcClient {
    name: String,
    pid: u32,
    lines: Mutex<Option<mpsc::Sender<Vec<u8>>>>,
    calls: Arc<Calls>,
    next_id: AtomicU64,
    exited: watch::Receiver<Option<String>>,
    stderr: Arc<Mutex<Tail>>,
}

impl RpcClient {
    /// Starts the child. Replies longer than `max_line` bytes fail their call; its stderr
    /// is logged under `kind` and `name`.
    pub fn start(
        name: &str,
        kind: CallKind,
        spec: &ExecSpec,
        env: Vec<(String, String)>,
        max_line: usize,
    ) -> Result<Self, SpawnError> {
        let (mut child, guard) = spawn(spec, env)?;
        let pid = child.id().unwrap_or_default();
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(SpawnError::NotPiped);
        };
        let calls: Arc<Calls> = Arc::default();
        let tail = Arc::new(Mutex::new(Tail::default()));
        let (line_tx, line_rx) = mpsc::channel::<Vec<u8>>(WRITE_QUEUE);
        let (exit_tx, exit_rx) = watch::channel(None);

        tokio::spawn(write_lines(line_rx, stdin));

        let stderr_tail = Arc::clone(&tail);
        let stderr_log = LineLog::new(kind.as_str(), name);
        let stderr_task = tokio::spawn(read_stderr_shared(stderr, stderr_tail, stderr_log));

        let reader = tokio::spawn(read_replies(
            stdout,
            name.to_string(),
            max_line,
            Arc::clone(&calls),
        ));

        // Deadlines: one timer for every call in flight.
        let timer_calls = Arc::clone(&calls);
        let timer_exited = exit_rx.clone();
        tokio::spawn(async move { timer_calls.expire_until_exit(timer_exited).await });

        let exit = Exit {
            name: name.to_string(),
            calls: Arc::clone(&calls),
            tail: Arc::clone(&tail),
            status: exit_tx,
        };
        tokio::spawn(exit.watch(child, guard, [reader, stderr_task]));

        Ok(Self {
            name: name.to_string(),
            pid,
            lines: Mutex::new(Some(line_tx)),
            calls,
            next_id: AtomicU64::new(1),
            exited: exit_rx,
            stderr: tail,
        })
    }

    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// How the process ended, once it has.
    pub fn exit_status(&self) -> Option<String> {
        self.exited.borrow().clone()
    }

    pub fn stderr_tail(&self) -> String {
        self.stderr.lock().map(|t| t.to_text()).unwrap_or_default()
    }

    /// Sends one request and waits for its reply, at most `timeout`; the result is
    /// kept as the text the process wrote. A call that times out is abandoned: its
    /// id is forgotten and a late reply is dropped.
    pub async fn call(
        &self,
        method: &str,
        params: &impl Serialize,
        timeout: Duration,
    ) -> Result<Reply<RawJson>, RpcError> {
        self.call_by(method, params, Instant::now() + timeout, timeout)
            .await
    }

    /// [`RpcClient::call`] with its deadline given; a timeout reports `after`.
    pub async fn call_by(
        &self,
        method: &str,
        params: &impl Serialize,
        deadline: Instant,
        after: Duration,
    ) -> Result<Reply<RawJson>, RpcError> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let rx = self.calls.register(id, deadline, after);
        if let Some(status) = self.exit_status() {
            self.calls.forget(id);
            return Err(RpcError::Exited {
                status,
                stderr_tail: self.stderr_tail(),
            });
        }
        let request = request_line(Some(id), method, params);
        // A call waits for room in the write queue, but only until its deadline: a
        // child that stopped reading must not hold the caller past it. Notifications
        // never wait.
        if let Some((tx, request)) = self.queue(request) {
            // Boxed: every call would otherwise carry room for this rare wait.
            let queued = Box::pin(tokio::time::timeout_at(deadline, tx.send(request))).await;
            if queued.is_err() {
                self.calls.forget(id);
                return Err(self.calls.timed_out(after));
            }
        }
        match rx.await {
            Ok(reply) => reply,
            // The sender was dropped without an answer: the process is gone.
            Err(_) => Err(RpcError::Exited {
                status: self.exit_status().unwrap_or_else(|| "stopped".into()),
                stderr_tail: self.stderr_tail(),
            }),
        }
    }

    /// Queues `line` for the child when there is room at once; when the queue is
    /// full, hands it back with the queue to wait on. A closed queue drops it.
    fn queue(&self, line: Vec<u8>) -> Option<(mpsc::Sender<Vec<u8>>, Vec<u8>)> {
        let lines = self.lines.lock().ok()?;
        match lines.as_ref()?.try_send(line) {
            Err(TrySendError::Full(line)) => lines.clone().map(|tx| (tx, line)),
            Ok(()) | Err(TrySendError::Closed(_)) => None,
        }
    }

    /// A notification: no id, no reply, and never a wait. Returns whether it was
    /// queued; when the write queue is full or closed, it is not.
    pub fn notify(&self, method: &str, params: impl Serialize) -> bool {
        let note = request_line(None, method, &params);
        let lines = self.lines.lock();
        let queue = lines.as_ref().ok().and_then(|lines| lines.as_ref());
        queue.is_some_and(|tx| tx.try_send(note).is_ok())
    }

    /// Closes stdin, gives the process `grace` to leave, then kills its group.
    pub async fn shutdown(&self, grace: Duration) {
        if let Ok(mut lines) = self.lines.lock() {
            lines.take();
        }
        let mut exited = self.exited.clone();
        let gone = tokio::time::timeout(grace, exited.wait_for(Option::is_some))
            .await
            .is_ok();
        if !gone {
            tracing::debug!(
                "server `{}` did not exit after stdin closed; killing it",
                self.name
            );
            signal_group(self.pid as i32, Signal::SIGKILL);
            let _ = exited.wait_for(Option::is_some).await;
        }
    }

    /// Kills the process now; waiting calls fail as it exits.
    pub fn kill(&self) {
        signal_group(self.pid as i32, Signal::SIGKILL);
    }
}

/// Hands a reply to the call waiting for its id; anything else is logged and skipped.
/// The writer: whatever queued up while the last write ran goes out in one write;
/// closing the channel closes stdin.
async fn write_lines(mut queue: mpsc::Receiver<Vec<u8>>, mut stdin: ChildStdin) {
    let mut burst = Vec::new();
    while let Some(line) = queue.recv().await {
        burst.clear();
        burst.extend_from_slice(&line);
        while burst.len() < WRITE_BURST {
            match queue.try_recv() {
                Ok(line) => burst.extend_from_slice(&line),
                Err(_) => break,
            }
        }
        if stdin.write_all(&burst).await.is_err() {
            break;
        }
    }
}

/// The reader: each line the child writes, routed to the call it answers.
async fn read_replies(stdout: ChildStdout, name: String, max_line: usize, calls: Arc<Calls>) {
    let mut lines = LineReader::new(stdout, max_line);
    let mut routed = 0usize;
    while let Ok(Some(line)) = lines.next_line().await {
        calls.saw_stdout();
        route(&name, line, max_line, &calls);
        routed += 1;
        if routed.is_multiple_of(ROUTE_BURST) {
            tokio::task::yield_now().await;
        }
    }
}

/// What the supervisor of the process tells when it ends, and to whom.
struct Exit {
    name: String,
    calls: Arc<Calls>,
    tail: Arc<Mutex<Tail>>,
    status: watch::Sender<Option<String>>,
}

impl Exit {
    /// Waits for the process to end; then reads what it wrote (`readers`), cleans
    /// up its group, and fails every call still waiting.
    async fn watch(
        self,
        mut child: Child,
        guard: Option<GroupGuard>,
        readers: [JoinHandle<()>; 2],
    ) {
        let status = child.wait().await;
        if let Some(guard) = &guard {
            guard.signal(Signal::SIGKILL);
        }
        let _ = tokio::time::timeout(DRAIN_LIMIT, async {
            for reader in readers {
                let _ = reader.await;
            }
        })
        .await;
        let described = describe_exit(&status);
        let stderr_tail = self.tail.lock().map(|t| t.to_text()).unwrap_or_default();
        tracing::debug!("server `{}` {described}", self.name);
        // Status first, then the waiters: a call registering in between sees the
        // status and does not wait.
        let _ = self.status.send(Some(described.clone()));
        for waiter in self.calls.take_all() {
            let _ = waiter.send(Err(RpcError::Exited {
                status: described.clone(),
                stderr_tail: stderr_tail.clone(),
            }));
        }
        drop(guard);
    }
}

fn route(name: &str, line: Line<'_>, limit: usize, calls: &Calls) {
    let text = match line {
        Line::Text(text) => text,
        Line::TooLong { len, head } => return overlong(name, len, &head, limit, calls),
        Line::Partial(bytes) => {
            tracing::debug!(
                "server `{name}`: skipped an unfinished last line: {}",
                String::from_utf8_lossy(&bytes)
            );
            return;
        }
    };
    if text.iter().all(u8::is_ascii_whitespace) {
        return;
    }
    let (id, reply) = match read_line(text) {
        Incoming::Reply(id, reply) => (id, reply),
        Incoming::NotAnObject => {
            tracing::info!(
                "server `{name}`: skipped a line that is not a JSON object: {}",
                String::from_utf8_lossy(text)
            );
            return;
        }
        Incoming::NoId => {
            tracing::debug!(
                "server `{name}`: skipped a message without a numeric id (a notification?)"
            );
            return;
        }
        Incoming::Empty(id) => {
            tracing::info!(
                "server `{name}`: skipped message {id}, which has neither result nor error"
            );
            return;
        }
    };
    match calls.take(id) {
        Some(waiter) => {
            let _ = waiter.send(Ok(reply));
        }
        None => tracing::info!("server `{name}`: skipped a reply to unknown or abandoned id {id}"),
    }
}

/// A line over the limit fails the call it answers, when its id comes early enough
/// to be read; otherwise the log names the calls that may be waiting for it.
fn overlong(name: &str, len: usize, head: &[u8], limit: usize, calls: &Calls) {
    let waiter = id_at_start(head).and_then(|id| calls.take(id));
    if let Some(waiter) = waiter {
        let _ = waiter.send(Err(RpcError::Overlong(Overlong { len, limit })));
        return;
    }
    let waiting = calls.ids();
    tracing::warn!(
        "server `{name}`: skipped a {len}-byte line over the limit; its id could not be read, \
         so one of the calls in flight may wait until its deadline (ids: {waiting:?})"
    );
}
