//! A stdio MCP server's process: spawned like every other extension (its own process
//! group, the environment rule, its working directory), its stderr forwarded and its
//! tail kept, and its exit watched so a crash is known the moment it happens.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use indexmap::IndexMap;
use nix::sys::signal::Signal;
use serde_json::Value as Json;
use tokio::process::{ChildStdin, ChildStdout};
use tokio::sync::watch;

use crate::config::ExecSpec;
use crate::exec::group::signal_group;
use crate::exec::spawn::{SpawnError, spawn};
use crate::exec::tail::{LineLog, Tail, read_stderr_shared};
use crate::exec::{CallKind, DEFAULT_MAX_OUTPUT, child_env_for, describe_exit};

use super::capped::CappedLines;
use super::extras::{ExecutionTap, Executions};

/// The largest message a server may write, as for the output of every extension.
pub(super) const MESSAGE_LIMIT: u64 = DEFAULT_MAX_OUTPUT;

/// How long stderr is still read after the process exited, for its last words.
const STDERR_DRAIN: Duration = Duration::from_millis(300);

/// The running process; its pipes to stdin and stdout are handed to the MCP client.
pub(super) struct ServerProcess {
    pgid: i32,
    exited: watch::Receiver<Option<String>>,
    stderr: Arc<Mutex<Tail>>,
    /// The length of a message that ran past the cap, once one did.
    overlong: Arc<AtomicU64>,
    executions: Executions,
}

/// The pipes the MCP client speaks over.
pub(super) type Pipes = (CappedLines<ExecutionTap<ChildStdout>>, ChildStdin);

impl ServerProcess {
    /// Starts server `name`: the base environment, then `env`'s values.
    pub(super) fn start(
        name: &str,
        exec: &ExecSpec,
        env: &IndexMap<String, String>,
    ) -> Result<(Self, Pipes), SpawnError> {
        let values: Vec<(String, String)> =
            env.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        let (mut child, guard) = spawn(exec, child_env_for(CallKind::Mcp, name, exec, &values))?;
        let pgid = child.id().unwrap_or_default() as i32;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(SpawnError::NotPiped);
        };
        let (stdout, executions) = ExecutionTap::new(stdout, MESSAGE_LIMIT);
        let (stdout, overlong) = CappedLines::new(stdout, MESSAGE_LIMIT);
        let tail = Arc::new(Mutex::new(Tail::default()));
        let stderr_task = tokio::spawn(read_stderr_shared(
            stderr,
            Arc::clone(&tail),
            LineLog::new(CallKind::Mcp.as_str(), name),
        ));
        let (exit_tx, exited) = watch::channel(None);
        let server = name.to_string();
        tokio::spawn(async move {
            let status = child.wait().await;
            // The server is gone: whatever it left behind in its group goes too.
            if let Some(guard) = &guard {
                guard.signal(Signal::SIGKILL);
            }
            let _ = tokio::time::timeout(STDERR_DRAIN, stderr_task).await;
            let described = describe_exit(&status);
            tracing::debug!("MCP server `{server}` {described}");
            let _ = exit_tx.send(Some(described));
            drop(guard);
        });
        let process = Self {
            pgid,
            exited,
            stderr: tail,
            overlong,
            executions,
        };
        Ok((process, (stdout, stdin)))
    }

    /// How the process ended, once it has.
    pub(super) fn exit_status(&self) -> Option<String> {
        self.exited.borrow().clone()
    }

    /// How long a message that ran past the cap was when it was cut off.
    pub(super) fn overlong(&self) -> Option<u64> {
        let len = self.overlong.load(Ordering::Relaxed);
        (len > 0).then_some(len)
    }

    /// Each listed tool's `execution`, by name, as the server wrote it.
    pub(super) fn execution(&self, tool: &str) -> Option<Json> {
        self.executions.lock().ok()?.get(tool).cloned()
    }

    pub(super) fn stderr_tail(&self) -> String {
        self.stderr.lock().map(|t| t.to_text()).unwrap_or_default()
    }

    /// Waits until the process has exited, for at most `limit`; whether it did.
    pub(super) async fn wait(&self, limit: Duration) -> bool {
        let mut exited = self.exited.clone();
        tokio::time::timeout(limit, exited.wait_for(Option::is_some))
            .await
            .is_ok()
    }

    /// Kills the whole group now.
    pub(super) fn kill(&self) {
        signal_group(self.pgid, Signal::SIGKILL);
    }

    /// Asks the whole group to stop, then kills it after `grace`.
    pub(super) async fn stop(&self, grace: Duration) {
        if self.wait(grace).await {
            return;
        }
        signal_group(self.pgid, Signal::SIGTERM);
        if !self.wait(grace).await {
            self.kill();
            self.wait(grace).await;
        }
    }
}

/// A server nobody closed (a run that was dropped) does not outlive it.
impl Drop for ServerProcess {
    fn drop(&mut self) {
        if self.exit_status().is_none() {
            self.kill();
        }
    }
}
