//! A long-running JSON-RPC process, started on first use and restarted by policy.
//! Server-mode tools and JSON-RPC hooks share it; the policy is described on
//! [`RestartPolicy`].

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value as Json;
use tokio::sync::Mutex;
use tokio::time::Instant;

use super::{Reply, RpcClient, RpcError};
use crate::config::ExecSpec;
use crate::exec::tail::stderr_note;
use crate::exec::{CallKind, DEFAULT_GRACE, DEFAULT_MAX_OUTPUT, Outcome, child_env_for};

/// Why a [`Supervisor::call`] got no reply, and what the process last wrote on stderr.
#[derive(Debug, Clone)]
pub struct NoReply {
    pub outcome: Outcome,
    pub stderr_tail: String,
}

/// When a process that exits is started again, and when it is given up on:
/// restarts wait a backoff (doubling, reset by an answered call); more than
/// `max_restarts` within `window` marks it broken; `timeouts_before_restart` missed
/// deadlines in a row mean it stopped answering, so it is killed and replaced.
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

/// A first request every new process must answer before it gets calls.
pub struct Handshake {
    pub method: &'static str,
    pub params: Json,
    pub timeout: Duration,
    /// Whether the reply is an acceptance; the error says what was answered instead.
    pub check: fn(&Reply) -> Result<(), String>,
}

pub struct Supervisor {
    name: String,
    kind: CallKind,
    spec: ExecSpec,
    policy: RestartPolicy,
    handshake: Option<Handshake>,
    /// `PROMPTEXEC_*` variables of this extension beyond its kind and name.
    context: Vec<(String, String)>,
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

impl Supervisor {
    pub fn new(
        name: &str,
        kind: CallKind,
        spec: &ExecSpec,
        policy: RestartPolicy,
        handshake: Option<Handshake>,
    ) -> Self {
        Self {
            name: name.to_string(),
            kind,
            spec: spec.clone(),
            policy,
            handshake,
            context: Vec::new(),
            state: Mutex::new(State {
                backoff: policy.first_backoff,
                ..State::default()
            }),
        }
    }

    /// Gives every process it starts these context variables as well.
    pub fn with_context(mut self, context: Vec<(String, String)>) -> Self {
        self.context = context;
        self
    }

    /// The running process, started (or restarted, by the policy) when needed.
    pub async fn client(&self) -> Result<Arc<RpcClient>, String> {
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
                    "`{}` is broken: it stopped {} times within {} s (last: it {status})",
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
                "`{}` {status}; restarting in {:?}",
                self.name,
                state.backoff
            );
            tokio::time::sleep(state.backoff).await;
            state.backoff = (state.backoff * 2).min(self.policy.max_backoff);
            state.restarts.push(Instant::now());
        }
        let env = child_env_for(self.kind, &self.name, &self.spec, &self.context);
        let max_line = self.spec.max_output_bytes.unwrap_or(DEFAULT_MAX_OUTPUT) as usize;
        let client = Arc::new(RpcClient::start(
            &self.name, self.kind, &self.spec, env, max_line,
        )?);
        // Kept even if the handshake fails, so the next attempt counts as a restart.
        state.client = Some(Arc::clone(&client));
        if let Some(handshake) = &self.handshake {
            let reply = match client
                .call(
                    handshake.method,
                    handshake.params.clone(),
                    handshake.timeout,
                )
                .await
            {
                Ok(reply) => (handshake.check)(&reply),
                // Says how it exited and what it wrote on stderr.
                Err(err @ RpcError::Exited { .. }) => Err(err.to_string()),
                Err(err @ RpcError::TimedOut(_)) => {
                    Err(format!("{err}{}", stderr_note(&client.stderr_tail())))
                }
            };
            if let Err(why) = reply {
                client.kill();
                return Err(format!(
                    "`{}` failed its `{}` handshake: {why}",
                    self.name, handshake.method
                ));
            }
        }
        Ok(client)
    }

    /// The process, if one runs right now; never starts one and never waits.
    pub fn running(&self) -> Option<Arc<RpcClient>> {
        let state = self.state.try_lock().ok()?;
        state.client.clone().filter(|c| c.exit_status().is_none())
    }

    /// The stderr tail of the latest process, running or not: after a failed start
    /// it says why.
    pub fn stderr_tail(&self) -> String {
        self.state
            .try_lock()
            .ok()
            .and_then(|state| state.client.as_ref().map(|c| c.stderr_tail()))
            .unwrap_or_default()
    }

    /// One call on the process, started when needed, with the supervision kept: an
    /// answer marks it healthy, a missed deadline counts toward replacing it. A call
    /// that got no reply says how, with the end of the process's stderr.
    pub async fn call(
        &self,
        method: &str,
        params: Json,
        timeout: Duration,
    ) -> Result<Reply, NoReply> {
        let client = self.client().await.map_err(|reason| NoReply {
            outcome: Outcome::ServerFailed {
                reason: format!("server {reason}"),
            },
            stderr_tail: String::new(),
        })?;
        match client.call(method, params, timeout).await {
            Ok(reply) => {
                self.answered().await;
                Ok(reply)
            }
            Err(RpcError::Exited {
                status,
                stderr_tail,
            }) => Err(NoReply {
                outcome: Outcome::ServerFailed {
                    reason: format!("server {status} while the call was in flight"),
                },
                stderr_tail,
            }),
            Err(RpcError::TimedOut(timeout)) => {
                self.timed_out(&client).await;
                Err(NoReply {
                    outcome: Outcome::NoReply {
                        after: timeout.after,
                        nothing_read: timeout.nothing_read,
                    },
                    stderr_tail: client.stderr_tail(),
                })
            }
        }
    }

    /// A call was answered: the process is healthy.
    pub async fn answered(&self) {
        let mut state = self.state.lock().await;
        state.timeouts_in_a_row = 0;
        state.backoff = self.policy.first_backoff;
    }

    /// A call missed its deadline; too many in a row retire the process.
    pub async fn timed_out(&self, client: &RpcClient) {
        let mut state = self.state.lock().await;
        state.timeouts_in_a_row += 1;
        if state.timeouts_in_a_row >= self.policy.timeouts_before_restart {
            tracing::warn!(
                "`{}` missed {} deadlines in a row; restarting it",
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
