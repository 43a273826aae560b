//! Server-mode tools: one long-running JSON-RPC process per tool, started on first
//! use, shared by every caller, and supervised.
//!
//! Supervision policy:
//! - when the process exits, every call waiting on it fails at once with the exit
//!   status and stderr tail; the next call starts a new process after a backoff
//!   (100 ms, doubling to 5 s; back to 100 ms after a call succeeds);
//! - more than 5 restarts within 60 s marks the tool broken: every later call fails
//!   at once with the reason, until promptexec is restarted;
//! - a call without a reply by its deadline is abandoned by id (a late reply is
//!   dropped); 3 timeouts in a row mean the server has stopped answering, so it is
//!   killed and the next call gets a fresh one;
//! - at most `max_in_flight` calls (default 64) wait on the process at once; more
//!   wait their turn;
//! - shutdown closes stdin, waits the grace period, then kills the group.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value as Json, json};
use tokio::sync::{Mutex, Semaphore};
use tokio::time::Instant;

use crate::config::ExecSpec;
use crate::exec::rpc::{Reply, RpcClient, RpcError};
use crate::exec::{CallKind, DEFAULT_GRACE, DEFAULT_MAX_OUTPUT, Outcome, child_env_for};

use super::ToolReport;

#[derive(Debug, Clone, Copy)]
pub struct RestartPolicy {
    pub max_restarts: usize,
    pub window: Duration,
    pub first_backoff: Duration,
    pub max_backoff: Duration,
    pub timeouts_before_restart: u32,
}

impl Default for RestartPolicy {
    fn default() -> Self {
        Self {
            max_restarts: 5,
            window: Duration::from_secs(60),
            first_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(5),
            timeouts_before_restart: 3,
        }
    }
}

const DEFAULT_MAX_IN_FLIGHT: usize = 64;

pub struct ToolServer {
    name: String,
    spec: ExecSpec,
    policy: RestartPolicy,
    slots: Semaphore,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    client: Option<Arc<RpcClient>>,
    restarts: Vec<Instant>,
    backoff: Duration,
    broken: Option<String>,
    timeouts_in_a_row: u32,
}

impl ToolServer {
    pub fn new(name: &str, spec: &ExecSpec) -> Self {
        Self::with_policy(name, spec, RestartPolicy::default())
    }

    pub fn with_policy(name: &str, spec: &ExecSpec, policy: RestartPolicy) -> Self {
        let slots = spec
            .max_in_flight
            .map_or(DEFAULT_MAX_IN_FLIGHT, |n| n as usize);
        Self {
            name: name.to_string(),
            spec: spec.clone(),
            policy,
            slots: Semaphore::new(slots),
            state: Mutex::new(State {
                backoff: policy.first_backoff,
                ..State::default()
            }),
        }
    }

    /// The pid of the running process, if one runs.
    pub async fn pid(&self) -> Option<u32> {
        let state = self.state.lock().await;
        state
            .client
            .as_ref()
            .filter(|c| c.exit_status().is_none())
            .map(|c| c.pid())
    }

    /// The running process, started (or restarted, by the policy) when needed.
    async fn client(&self) -> Result<Arc<RpcClient>, String> {
        let mut state = self.state.lock().await;
        if let Some(reason) = &state.broken {
            return Err(reason.clone());
        }
        if let Some(client) = state.client.clone() {
            let Some(status) = client.exit_status() else {
                return Ok(client);
            };
            let now = Instant::now();
            let window = self.policy.window;
            state.restarts.retain(|t| now.duration_since(*t) < window);
            if state.restarts.len() >= self.policy.max_restarts {
                let mut reason = format!(
                    "server `{}` is broken: it stopped {} times within {} s (last: it {status})",
                    self.name,
                    state.restarts.len() + 1,
                    window.as_secs()
                );
                let tail = client.stderr_tail();
                if let Some(last) = tail.trim_end().lines().last() {
                    reason.push_str(&format!("; its stderr ended with: {last}"));
                }
                state.broken = Some(reason.clone());
                return Err(reason);
            }
            tracing::info!(
                "server `{}` {status}; restarting in {:?}",
                self.name,
                state.backoff
            );
            tokio::time::sleep(state.backoff).await;
            state.backoff = (state.backoff * 2).min(self.policy.max_backoff);
            state.restarts.push(Instant::now());
        }
        let env = child_env_for(CallKind::Tool, &self.name, &self.spec, &[]);
        let max_line = self.spec.max_output_bytes.unwrap_or(DEFAULT_MAX_OUTPUT) as usize;
        let client = Arc::new(RpcClient::start(&self.name, &self.spec, env, max_line)?);
        state.client = Some(Arc::clone(&client));
        Ok(client)
    }

    /// Calls `execute` with `args`.
    pub async fn call(&self, args: &Json, timeout: Option<Duration>) -> ToolReport {
        let mut report = ToolReport::new(&self.name, self.spec.runtime);
        let started = Instant::now();
        let _slot = self.slots.acquire().await;
        let timeout = timeout
            .or(self.spec.timeout)
            .unwrap_or_else(|| CallKind::Tool.default_timeout());
        let client = match self.client().await {
            Ok(client) => client,
            Err(reason) => {
                report.settle(Outcome::ServerFailed { reason });
                report.duration_ms = started.elapsed().as_millis() as u64;
                return report;
            }
        };
        let reply = client
            .call("execute", json!({ "args": args }), timeout)
            .await;
        report.duration_ms = started.elapsed().as_millis() as u64;
        match reply {
            Ok(Reply::Result(value)) => {
                self.answered().await;
                report.settle(Outcome::Answered(value));
            }
            Ok(Reply::Error { code, message }) => {
                self.answered().await;
                report.outcome = Outcome::Answered(Json::Null);
                report.answered_error(format!("{message} (JSON-RPC error {code})"));
            }
            Err(RpcError::Exited {
                status,
                stderr_tail,
            }) => {
                report.settle(Outcome::ServerFailed {
                    reason: format!("server {status} while the call was in flight"),
                });
                report.stderr_tail = stderr_tail;
            }
            Err(RpcError::TimedOut(after)) => {
                self.timed_out(&client).await;
                report.settle(Outcome::TimedOut { after });
                report.stderr_tail = client.stderr_tail();
            }
        }
        report
    }

    async fn answered(&self) {
        let mut state = self.state.lock().await;
        state.timeouts_in_a_row = 0;
        state.backoff = self.policy.first_backoff;
    }

    async fn timed_out(&self, client: &RpcClient) {
        let mut state = self.state.lock().await;
        state.timeouts_in_a_row += 1;
        if state.timeouts_in_a_row >= self.policy.timeouts_before_restart {
            tracing::warn!(
                "server `{}` missed {} deadlines in a row; restarting it",
                self.name,
                state.timeouts_in_a_row
            );
            state.timeouts_in_a_row = 0;
            client.kill();
            // Retire it now, so the next call does not reach the dying process.
            if state
                .client
                .as_ref()
                .is_some_and(|c| c.pid() == client.pid())
            {
                state.client = None;
                state.restarts.push(Instant::now());
            }
        }
    }

    /// Kills the process now, without waiting; calls on it fail.
    pub fn kill(&self) {
        if let Ok(state) = self.state.try_lock()
            && let Some(client) = &state.client
        {
            client.kill();
        }
    }

    /// Stops the process gracefully: stdin closed, the grace period, then SIGKILL.
    pub async fn shutdown(&self) {
        let client = self.state.lock().await.client.take();
        if let Some(client) = client {
            client.shutdown(DEFAULT_GRACE).await;
        }
    }
}
