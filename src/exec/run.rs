use std::borrow::Cow;
use std::io;
use std::os::unix::process::ExitStatusExt;
use std::pin::Pin;
use std::process::ExitStatus;
use std::sync::Arc;
use std::time::Duration;

use nix::sys::signal::Signal;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Child;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::group::GroupGuard;
use super::outcome::{Finished, ProcessEnd, StopReason};
use super::spawn::spawn_one_shot;
use super::tail::{LineLog, Tail, read_stderr};
use super::{DEFAULT_GRACE, DEFAULT_MAX_OUTPUT, LEFTOVER_SETTLE, Leftover, child_env};
use crate::config::ExecSpec;

/// After the child is gone, how long its pipes may take to reach EOF.
const DRAIN_LIMIT: Duration = Duration::from_millis(500);

crate::wire_enum! {
    /// What kind of extension a call is for; decides the default deadline. The wire
    /// name is the child's `PROMPTEXEC_KIND` and the label of its stderr lines.
    pub enum CallKind {
        Tool = "tool",
        Hook = "hook",
        Eval = "eval",
        EvalHook = "eval_hook",
        /// A stdio MCP server.
        Mcp = "mcp",
    }
}

impl CallKind {
    pub fn default_timeout(self) -> Duration {
        match self {
            CallKind::Tool | CallKind::Eval | CallKind::Mcp => Duration::from_secs(30),
            CallKind::Hook => Duration::from_secs(10),
            CallKind::EvalHook => Duration::from_secs(5),
        }
    }

    /// The deadline of a call to `spec`: its own `timeout_ms`, else the default.
    pub fn timeout_of(self, spec: &ExecSpec) -> Duration {
        spec.timeout.unwrap_or_else(|| self.default_timeout())
    }
}

/// One one-shot call: which process to start and what to send it.
#[derive(Debug, Clone)]
pub struct Call<'a> {
    pub name: &'a str,
    pub kind: CallKind,
    pub spec: &'a ExecSpec,
    /// Written to stdin, which is then closed; borrowed when the caller keeps it, as
    /// a payload shared by several hooks.
    pub input: Cow<'a, [u8]>,
    pub timeout: Duration,
    pub grace: Duration,
    pub max_output: u64,
    /// Extra `PROMPTEXEC_*` variables for the child.
    pub context: Vec<(String, String)>,
    /// When the child exits on its own, list what it left running (in
    /// [`Finished::leftovers`]) before that is killed; costs up to
    /// [`LEFTOVER_SETTLE`] when something is left.
    pub watch_leftovers: bool,
}

impl<'a> Call<'a> {
    /// A call with the spec's settings, or the defaults for its kind.
    pub fn new(
        name: &'a str,
        kind: CallKind,
        spec: &'a ExecSpec,
        input: impl Into<Cow<'a, [u8]>>,
    ) -> Self {
        Self {
            name,
            kind,
            spec,
            input: input.into(),
            timeout: kind.timeout_of(spec),
            grace: DEFAULT_GRACE,
            max_output: spec.max_output_bytes.unwrap_or(DEFAULT_MAX_OUTPUT),
            context: Vec::new(),
            watch_leftovers: false,
        }
    }

    fn environment(&self) -> Vec<(String, String)> {
        child_env_for(self.kind, self.name, self.spec, &self.context)
    }
}

/// The environment of a child of `kind` named `name`: host variables by the one rule,
/// plus promptexec's context variables.
pub fn child_env_for(
    kind: CallKind,
    name: &str,
    spec: &ExecSpec,
    extra: &[(String, String)],
) -> Vec<(String, String)> {
    let mut context = vec![
        ("PROMPTEXEC_KIND".to_string(), kind.as_str().to_string()),
        ("PROMPTEXEC_NAME".to_string(), name.to_string()),
        (
            "PROMPTEXEC_VERSION".to_string(),
            env!("CARGO_PKG_VERSION").to_string(),
        ),
    ];
    context.extend(extra.iter().cloned());
    child_env(
        |var| std::env::var(var).ok(),
        spec.env_mode,
        &spec.env,
        &context,
    )
}

/// Runs one call to the end: answered, failed, timed out, over the cap, or cancelled.
/// Returns within the deadline plus the grace period plus a small margin, whatever
/// the child and its descendants do.
pub async fn run(call: &Call<'_>, cancel: &CancellationToken) -> Finished {
    let started = Instant::now();
    // Nothing starts once the caller has given up: an interrupt that came while the
    // call was on its way stops it before a process exists.
    if cancel.is_cancelled() {
        return Finished::never_ran(StopReason::Interrupted);
    }
    let deadline = started + call.timeout;
    let env = call.environment();
    let (mut child, guard) = match spawn_one_shot(call.spec, env) {
        Ok(spawned) => spawned,
        Err(err) => return Finished::not_started(err),
    };
    let mut stdout_bytes = Vec::new();
    let mut stop: Option<StopReason> = None;
    let mut leftovers: Vec<Leftover> = Vec::new();
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let mut tail = Tail::default();
    let mut stderr_log = LineLog::new(call.kind.as_str(), call.name);
    let cap = call.max_output;

    let status: io::Result<ExitStatus> = {
        let write = async {
            if let Some(mut stdin) = stdin {
                // A child that exits without reading makes this fail; that is its business.
                let _ = stdin.write_all(&call.input).await;
            }
        };
        let read_out = read_capped(stdout, &mut stdout_bytes, cap);
        let read_err = read_stderr(stderr, &mut tail, &mut stderr_log);
        tokio::pin!(write, read_out, read_err);
        let (mut written, mut out_done, mut err_done) = (false, false, false);
        let ended = loop {
            tokio::select! {
                () = &mut write, if !written => written = true,
                over = &mut read_out, if !out_done => {
                    out_done = true;
                    if over {
                        stop = Some(StopReason::OverCap(cap));
                        break None;
                    }
                }
                () = &mut read_err, if !err_done => err_done = true,
                status = child.wait() => break Some(status),
                () = tokio::time::sleep_until(deadline) => {
                    stop = Some(StopReason::TimedOut);
                    break None;
                }
                () = cancel.cancelled() => {
                    stop = Some(StopReason::Interrupted);
                    break None;
                }
            }
        };
        let status = reap(ended, &mut child, guard.as_ref(), call, &mut leftovers).await;
        // The direct child is gone; whatever it left in its group goes too, so a
        // grandchild holding our pipes cannot keep the call open.
        if let Some(guard) = &guard {
            guard.signal(Signal::SIGKILL);
        }
        let limit =
            DRAIN_LIMIT.min(deadline.saturating_duration_since(Instant::now()) + call.grace);
        let out = (!out_done).then_some(read_out.as_mut());
        let err = (!err_done).then_some(read_err.as_mut());
        drain(out, err, limit, cap, &mut stop).await;
        status
    };
    drop(guard);
    let end = process_end(status, &mut stop);
    Finished {
        end,
        stop,
        stdout: stdout_bytes,
        stderr_tail: tail.into_string(),
        duration: started.elapsed(),
        leftovers,
    }
}

/// The child's exit status once it is gone. When it exited, what it left in its
/// group is collected (if the call asks); else it is stopped, TERM first and KILL
/// after the grace period.
async fn reap(
    ended: Option<io::Result<ExitStatus>>,
    child: &mut Child,
    guard: Option<&GroupGuard>,
    call: &Call<'_>,
    leftovers: &mut Vec<Leftover>,
) -> io::Result<ExitStatus> {
    let signal = |s: Signal| {
        if let Some(g) = guard {
            g.signal(s);
        }
    };
    match ended {
        Some(status) => {
            if let (true, Ok(_), Some(guard)) = (call.watch_leftovers, &status, guard) {
                *leftovers = guard.leftovers(LEFTOVER_SETTLE).await;
            }
            status
        }
        None => {
            signal(Signal::SIGTERM);
            match tokio::time::timeout(call.grace, child.wait()).await {
                Ok(status) => status,
                Err(_) => {
                    signal(Signal::SIGKILL);
                    child.wait().await
                }
            }
        }
    }
}

/// Reads what the pipes still hold once the child is gone, for `limit` at most. A
/// stdout that passes the cap then is the stop reason, unless one came first.
async fn drain<O, E>(
    read_out: Option<Pin<&mut O>>,
    read_err: Option<Pin<&mut E>>,
    limit: Duration,
    cap: u64,
    stop: &mut Option<StopReason>,
) where
    O: Future<Output = bool>,
    E: Future<Output = ()>,
{
    let drained = async {
        if let Some(read_out) = read_out
            && read_out.await
            && stop.is_none()
        {
            *stop = Some(StopReason::OverCap(cap));
        }
        if let Some(read_err) = read_err {
            read_err.await;
        }
    };
    let _ = tokio::time::timeout(limit, drained).await;
}

/// How the process ended, from its wait status; a wait that failed loses the
/// process, which is the call's stop reason.
fn process_end(
    status: io::Result<ExitStatus>,
    stop: &mut Option<StopReason>,
) -> Option<ProcessEnd> {
    match status {
        Ok(status) => Some(match (status.code(), status.signal()) {
            (Some(code), _) => ProcessEnd::Exited(code),
            (None, Some(sig)) => ProcessEnd::Signaled(sig),
            (None, None) => ProcessEnd::Exited(-1),
        }),
        Err(err) => {
            *stop = Some(StopReason::Lost(Arc::new(err)));
            None
        }
    }
}

/// Reads stdout until EOF or until it passes `cap`; returns whether it did.
async fn read_capped(pipe: Option<impl AsyncRead + Unpin>, out: &mut Vec<u8>, cap: u64) -> bool {
    let Some(mut pipe) = pipe else { return false };
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => return false,
            Ok(n) => {
                let room = (cap as usize + 1).saturating_sub(out.len());
                out.extend_from_slice(&buf[..n.min(room)]);
                if out.len() as u64 > cap {
                    out.truncate(cap as usize);
                    return true;
                }
            }
        }
    }
}
