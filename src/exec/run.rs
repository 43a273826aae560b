use std::ffi::OsStr;
use std::io;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::time::Duration;

use nix::sys::signal::Signal;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::group::GroupGuard;
use super::outcome::{Finished, ProcessEnd};
use super::{DEFAULT_GRACE, DEFAULT_MAX_OUTPUT, STDERR_TAIL_BYTES, child_env};
use crate::config::ExecSpec;

/// After the child is gone, how long its pipes may take to reach EOF.
const DRAIN_LIMIT: Duration = Duration::from_millis(500);

/// What kind of extension a call is for; decides the default deadline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallKind {
    Tool,
    Hook,
    Eval,
    EvalHook,
}

impl CallKind {
    pub fn default_timeout(self) -> Duration {
        match self {
            CallKind::Tool | CallKind::Eval => Duration::from_secs(30),
            CallKind::Hook => Duration::from_secs(10),
            CallKind::EvalHook => Duration::from_secs(5),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            CallKind::Tool => "tool",
            CallKind::Hook => "hook",
            CallKind::Eval => "eval",
            CallKind::EvalHook => "eval_hook",
        }
    }
}

/// One one-shot call: which process to start and what to send it.
#[derive(Debug, Clone)]
pub struct Call<'a> {
    pub name: &'a str,
    pub kind: CallKind,
    pub spec: &'a ExecSpec,
    /// Written to stdin, which is then closed.
    pub input: Vec<u8>,
    pub timeout: Duration,
    pub grace: Duration,
    pub max_output: u64,
    /// Extra `PROMPTEXEC_*` variables for the child.
    pub context: Vec<(String, String)>,
}

impl<'a> Call<'a> {
    /// A call with the spec's settings, or the defaults for its kind.
    pub fn new(name: &'a str, kind: CallKind, spec: &'a ExecSpec, input: Vec<u8>) -> Self {
        Self {
            name,
            kind,
            spec,
            input,
            timeout: spec.timeout.unwrap_or_else(|| kind.default_timeout()),
            grace: DEFAULT_GRACE,
            max_output: spec.max_output_bytes.unwrap_or(DEFAULT_MAX_OUTPUT),
            context: Vec::new(),
        }
    }

    fn environment(&self) -> Vec<(String, String)> {
        let mut context = vec![
            (
                "PROMPTEXEC_KIND".to_string(),
                self.kind.as_str().to_string(),
            ),
            ("PROMPTEXEC_NAME".to_string(), self.name.to_string()),
            (
                "PROMPTEXEC_VERSION".to_string(),
                env!("CARGO_PKG_VERSION").to_string(),
            ),
        ];
        context.extend(self.context.iter().cloned());
        child_env(|name| std::env::var(name).ok(), &self.spec.env, &context)
    }
}

/// Runs one call to the end: answered, failed, timed out, over the cap, or cancelled.
/// Returns within the deadline plus the grace period plus a small margin, whatever
/// the child and its descendants do.
pub async fn run(call: &Call<'_>, cancel: &CancellationToken) -> Finished {
    let started = Instant::now();
    let deadline = started + call.timeout;
    let env = call.environment();
    let mut finished = Finished {
        end: ProcessEnd::NotStarted,
        spawn_error: None,
        stdout: Vec::new(),
        stderr_tail: String::new(),
        duration: Duration::ZERO,
        timed_out: false,
        interrupted: false,
        over_cap: None,
    };
    let program = match resolve_program(
        call.spec,
        env.iter()
            .find(|(n, _)| n == "PATH")
            .map(|(_, v)| v.as_str()),
    ) {
        Ok(program) => program,
        Err(reason) => {
            finished.spawn_error = Some(reason);
            return finished;
        }
    };
    let mut command = tokio::process::Command::new(&program);
    command
        .args(&call.spec.args)
        .env_clear()
        .envs(env)
        .current_dir(&call.spec.working_dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own group, so kills reach grandchildren; set without pre_exec, which
        // keeps the fast posix_spawn path.
        .process_group(0)
        .kill_on_drop(true);
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(err) => {
            finished.spawn_error = Some(spawn_reason(call.spec, &program, &err));
            return finished;
        }
    };
    let guard = child.id().map(|pid| GroupGuard::new(pid as i32));
    let signal = |s: Signal| {
        if let Some(g) = &guard {
            g.signal(s);
        }
    };
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let mut tail = Tail::default();
    let cap = call.max_output;

    let status: io::Result<ExitStatus> = {
        let write = async {
            if let Some(mut stdin) = stdin {
                // A child that exits without reading makes this fail; that is its business.
                let _ = stdin.write_all(&call.input).await;
            }
        };
        let read_out = read_capped(stdout, &mut finished.stdout, cap);
        let read_err = read_tail(stderr, &mut tail);
        tokio::pin!(write, read_out, read_err);
        let (mut written, mut out_done, mut err_done) = (false, false, false);
        let ended = loop {
            tokio::select! {
                () = &mut write, if !written => written = true,
                over = &mut read_out, if !out_done => {
                    out_done = true;
                    if over {
                        finished.over_cap = Some(cap);
                        break None;
                    }
                }
                () = &mut read_err, if !err_done => err_done = true,
                status = child.wait() => break Some(status),
                () = tokio::time::sleep_until(deadline) => {
                    finished.timed_out = true;
                    break None;
                }
                () = cancel.cancelled() => {
                    finished.interrupted = true;
                    break None;
                }
            }
        };
        let status = match ended {
            Some(status) => status,
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
        };
        // The direct child is gone; whatever it left in its group goes too, so a
        // grandchild holding our pipes cannot keep the call open.
        signal(Signal::SIGKILL);
        let drain = async {
            if !out_done && finished.over_cap.is_none() {
                let over = (&mut read_out).await;
                if over {
                    finished.over_cap = Some(cap);
                }
            }
            if !err_done {
                (&mut read_err).await;
            }
        };
        let limit =
            DRAIN_LIMIT.min(deadline.saturating_duration_since(Instant::now()) + call.grace);
        let _ = tokio::time::timeout(limit, drain).await;
        status
    };
    drop(guard);

    finished.end = match status {
        Ok(status) => match (status.code(), status.signal()) {
            (Some(code), _) => ProcessEnd::Exited(code),
            (None, Some(sig)) => ProcessEnd::Signaled(sig),
            (None, None) => ProcessEnd::Exited(-1),
        },
        Err(err) => {
            finished.spawn_error = Some(format!("waiting for the process failed: {err}"));
            ProcessEnd::NotStarted
        }
    };
    finished.stderr_tail = tail.into_string();
    finished.duration = started.elapsed();
    if !finished.stderr_tail.is_empty() {
        tracing::debug!(
            "{} `{}` stderr:\n{}",
            call.kind.as_str(),
            call.name,
            finished.stderr_tail
        );
    }
    finished
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

/// The last [`STDERR_TAIL_BYTES`] of a stream.
#[derive(Default)]
struct Tail(Vec<u8>);

impl Tail {
    fn push(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
        if self.0.len() > 2 * STDERR_TAIL_BYTES {
            let cut = self.0.len() - STDERR_TAIL_BYTES;
            self.0.drain(..cut);
        }
    }

    fn into_string(self) -> String {
        let start = self.0.len().saturating_sub(STDERR_TAIL_BYTES);
        String::from_utf8_lossy(&self.0[start..]).into_owned()
    }
}

async fn read_tail(pipe: Option<impl AsyncRead + Unpin>, tail: &mut Tail) {
    let Some(mut pipe) = pipe else { return };
    let mut buf = vec![0u8; 16 * 1024];
    while let Ok(n) = pipe.read(&mut buf).await {
        if n == 0 {
            break;
        }
        tail.push(&buf[..n]);
    }
}

/// The program to start: a path as given, or a bare name found in the child's `PATH`.
fn resolve_program(spec: &ExecSpec, path_var: Option<&str>) -> Result<PathBuf, String> {
    if !spec.working_dir.is_dir() {
        return Err(format!(
            "working directory `{}` does not exist",
            spec.working_dir.display()
        ));
    }
    let command = &spec.command;
    if command.components().count() > 1 || command.is_absolute() {
        return Ok(command.clone());
    }
    let dirs: Vec<&str> = path_var
        .unwrap_or_default()
        .split(':')
        .filter(|d| !d.is_empty())
        .collect();
    if dirs.is_empty() {
        return Err(format!(
            "command `{}` not found: PATH is empty",
            command.display()
        ));
    }
    dirs.iter()
        .map(|dir| Path::new(dir).join(command))
        .find(|candidate| is_executable(candidate))
        .ok_or_else(|| format!("command `{}` not found in PATH", command.display()))
}

fn is_executable(path: &Path) -> bool {
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

fn spawn_reason(spec: &ExecSpec, program: &Path, err: &io::Error) -> String {
    let shown = if program.as_os_str() == OsStr::new("") {
        spec.command.display().to_string()
    } else {
        program.display().to_string()
    };
    match err.kind() {
        io::ErrorKind::NotFound => format!("`{shown}` does not exist"),
        io::ErrorKind::PermissionDenied => {
            format!("`{shown}` is not executable (permission denied)")
        }
        _ => format!("cannot start `{shown}`: {err}"),
    }
}
