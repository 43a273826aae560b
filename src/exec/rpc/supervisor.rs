//! A long-running JSON-RPC process, started on first use and restarted by policy.
//! Server-mode tools and JSON-RPC hooks share it.
//!
//! Design: the process is in one of five states: `Idle` (none yet, or one retired
//! on purpose), `Starting`, `Up`, `Down` (it failed its handshake, or a restart
//! could not spawn its replacement) and `Broken`. A
//! call that finds no live process decides, under a short lock, what happens next
//! ([`RestartPolicy::decide`], a pure function of the restart history and the time)
//! and, if a start is due, marks the state `Starting` before the lock is released,
//! so concurrent callers never start two processes. The start itself (backoff sleep,
//! spawn, handshake) runs as a task of its own without any lock held; every caller
//! waits for its result only until its own deadline, so start-up time counts against
//! the call that needed it, and a caller that gives up does not abandon the start.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde::Serialize;
use serde_json::Value as Json;
use tokio::sync::watch;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::errors::{HandshakeError, Refused, ServerError, Unavailable};
use super::policy::{Decision, ExitHistory, RestartPolicy};
use super::{Overlong, Reply, RpcClient, RpcError, Timeout};
use crate::config::ExecSpec;
use crate::exec::{CallKind, DEFAULT_GRACE, DEFAULT_MAX_OUTPUT, Outcome, RawJson, child_env_for};

/// Why a [`Supervisor::call`] got no reply, and what the process last wrote on stderr.
#[derive(Debug, Clone)]
pub struct NoReply {
    pub outcome: Outcome,
    pub stderr_tail: String,
}

/// Why [`Supervisor::exchange`] got no reply, and what the process last wrote on
/// stderr.
#[derive(Debug)]
pub enum Missed {
    /// No process to ask: it could not start, is broken, or was still starting at
    /// the deadline.
    NoProcess {
        why: Unavailable,
        stderr_tail: String,
    },
    /// The process exited while the call was in flight.
    Exited { status: String, stderr_tail: String },
    /// The process gave no reply by the deadline.
    TimedOut {
        missed: Timeout,
        stderr_tail: String,
    },
    /// The reply was longer than the line limit.
    Overlong {
        reply: Overlong,
        stderr_tail: String,
    },
}

/// A first request every new process must answer before it gets calls.
pub struct Handshake {
    pub method: &'static str,
    pub params: Json,
    pub timeout: Duration,
    /// Whether the reply is an acceptance.
    pub check: fn(&Reply) -> Result<(), Refused>,
}

pub struct Supervisor {
    shared: Arc<Shared>,
}

/// Everything a start task needs, shared with it.
struct Shared {
    name: String,
    kind: CallKind,
    spec: ExecSpec,
    policy: RestartPolicy,
    handshake: Option<Handshake>,
    /// `PROMPTEXEC_*` variables of this extension beyond its kind and name.
    context: Vec<(String, String)>,
    state: Mutex<State>,
}

type StartResult = Option<Result<Arc<RpcClient>, ServerError>>;

enum Slot {
    /// No process: none started yet, or the last one was retired on purpose.
    Idle,
    /// A start is under way; its result arrives on the channel.
    Starting {
        result: watch::Receiver<StartResult>,
        stop: CancellationToken,
    },
    /// The latest process; it may have exited since.
    Up(Arc<RpcClient>),
    /// The latest process failed its handshake and was killed, or it exited and
    /// its replacement could not be spawned.
    Down(Arc<RpcClient>),
    Broken(ServerError),
}

struct State {
    slot: Slot,
    history: ExitHistory,
    timeouts_in_a_row: u32,
    /// The latest process started, for its stderr after a failure.
    latest: Option<Arc<RpcClient>>,
}

/// What a caller does next, decided under the lock and done without it.
enum Next {
    Ready(Arc<RpcClient>),
    Failed(ServerError),
    Wait(watch::Receiver<StartResult>),
}

impl Supervisor {
    pub fn new(
        name: &str,
        kind: CallKind,
        spec: &ExecSpec,
        policy: RestartPolicy,
        handshake: Option<Handshake>,
    ) -> Self {
        let shared = Shared {
            name: name.to_string(),
            kind,
            spec: spec.clone(),
            policy,
            handshake,
            context: Vec::new(),
            state: Mutex::new(State {
                slot: Slot::Idle,
                history: ExitHistory::new(&policy),
                timeouts_in_a_row: 0,
                latest: None,
            }),
        };
        Self {
            shared: Arc::new(shared),
        }
    }

    /// Gives every process it starts these context variables as well. Meant right
    /// after [`Supervisor::new`]: once a start is under way the context is fixed.
    pub fn with_context(mut self, context: Vec<(String, String)>) -> Self {
        if let Some(shared) = Arc::get_mut(&mut self.shared) {
            shared.context = context;
        }
        self
    }

    /// The running process, started (or restarted, by the policy) when needed.
    pub async fn client(&self) -> Result<Arc<RpcClient>, ServerError> {
        self.client_by(None).await.map_err(|err| match err {
            Unavailable::Failed(err) => err,
            // Without a deadline a wait always ends with a result.
            Unavailable::Late => ServerError::Stopped {
                name: self.shared.name.clone(),
            },
        })
    }

    /// The running process, started when needed; waits for a start only until
    /// `deadline`, when one is given.
    async fn client_by(&self, deadline: Option<Instant>) -> Result<Arc<RpcClient>, Unavailable> {
        match self.shared.next() {
            Next::Ready(client) => Ok(client),
            Next::Failed(err) => Err(err.into()),
            // Boxed: every call would otherwise carry room for this rare wait.
            Next::Wait(result) => Box::pin(self.wait_for_start(result, deadline)).await,
        }
    }

    /// Waits for the start under way to hand over its process.
    async fn wait_for_start(
        &self,
        mut result: watch::Receiver<StartResult>,
        deadline: Option<Instant>,
    ) -> Result<Arc<RpcClient>, Unavailable> {
        loop {
            let started = result.wait_for(Option::is_some);
            let outcome = match deadline {
                Some(deadline) => tokio::time::timeout_at(deadline, started)
                    .await
                    .map_err(|_| Unavailable::Late)?
                    .map(|r| r.clone()),
                None => started.await.map(|r| r.clone()),
            };
            match outcome {
                Ok(Some(Ok(client))) => return Ok(client),
                Ok(Some(Err(err))) => return Err(err.into()),
                // The start task ended without a word (the runtime is closing):
                // look at the state again.
                Ok(None) | Err(_) => tokio::task::yield_now().await,
            }
            result = match self.shared.next() {
                Next::Ready(client) => return Ok(client),
                Next::Failed(err) => return Err(err.into()),
                Next::Wait(result) => result,
            };
        }
    }

    /// The process, if one runs right now; never starts one and never waits.
    pub fn running(&self) -> Option<Arc<RpcClient>> {
        match &self.shared.lock().slot {
            Slot::Up(client) if client.exit_status().is_none() => Some(Arc::clone(client)),
            _ => None,
        }
    }

    /// The stderr tail of the latest process, running or not: after a failed start
    /// it says why.
    pub fn stderr_tail(&self) -> String {
        let latest = self.shared.lock().latest.clone();
        latest.map(|c| c.stderr_tail()).unwrap_or_default()
    }

    /// One call on the process, started when needed, with the supervision kept: an
    /// answer marks it healthy, a missed deadline counts toward replacing it. The
    /// deadline covers a start the call waits for. A call that got no reply says
    /// how, with the end of the process's stderr.
    pub async fn call(
        &self,
        method: &str,
        params: impl Serialize,
        timeout: Duration,
    ) -> Result<Reply, NoReply> {
        let reply = self.exchange_raw(method, &params, timeout).await;
        reply
            .map(Reply::parsed)
            .map_err(|missed| NoReply::of(missed, timeout))
    }

    /// [`Supervisor::call`] with the reason for a missing reply in the supervisor's
    /// own terms, for callers that word failures their own way.
    pub async fn exchange(
        &self,
        method: &str,
        params: impl Serialize,
        timeout: Duration,
    ) -> Result<Reply, Missed> {
        let reply = self.exchange_raw(method, &params, timeout).await?;
        Ok(reply.parsed())
    }

    /// [`Supervisor::exchange`] with the result kept as the text the process wrote.
    pub async fn exchange_raw(
        &self,
        method: &str,
        params: &impl Serialize,
        timeout: Duration,
    ) -> Result<Reply<RawJson>, Missed> {
        self.exchange_raw_by(method, params, Instant::now() + timeout, timeout)
            .await
    }

    /// [`Supervisor::exchange_raw`] with its deadline given, for a caller that has
    /// just read the clock; a missed deadline reports `timeout`.
    pub async fn exchange_raw_by(
        &self,
        method: &str,
        params: &impl Serialize,
        deadline: Instant,
        timeout: Duration,
    ) -> Result<Reply<RawJson>, Missed> {
        let client = match self.client_by(Some(deadline)).await {
            Ok(client) => client,
            Err(why) => {
                return Err(Missed::NoProcess {
                    why,
                    stderr_tail: self.stderr_tail(),
                });
            }
        };
        match client.call_by(method, params, deadline, timeout).await {
            Ok(reply) => {
                self.answered().await;
                Ok(reply)
            }
            Err(RpcError::Exited {
                status,
                stderr_tail,
            }) => Err(Missed::Exited {
                status,
                stderr_tail,
            }),
            Err(RpcError::Overlong(reply)) => {
                // It answered, if too much: it is alive.
                self.answered().await;
                Err(Missed::Overlong {
                    reply,
                    stderr_tail: client.stderr_tail(),
                })
            }
            Err(RpcError::TimedOut(missed)) => {
                self.timed_out(&client).await;
                Err(Missed::TimedOut {
                    // The whole deadline, start-up included, as the call was given.
                    missed,
                    stderr_tail: client.stderr_tail(),
                })
            }
        }
    }

    /// A call was answered: the process is healthy.
    pub async fn answered(&self) {
        let mut state = self.shared.lock();
        state.timeouts_in_a_row = 0;
        state.history.answered(&self.shared.policy);
    }

    /// A call missed its deadline; too many in a row retire the process.
    pub async fn timed_out(&self, client: &RpcClient) {
        let policy = &self.shared.policy;
        let mut state = self.shared.lock();
        state.timeouts_in_a_row += 1;
        if state.timeouts_in_a_row < policy.timeouts_before_restart {
            return;
        }
        tracing::warn!(
            "`{}` missed {} deadlines in a row; restarting it",
            self.shared.name,
            state.timeouts_in_a_row
        );
        state.timeouts_in_a_row = 0;
        client.kill();
        // Retire it now, so the next call does not reach the dying process.
        if matches!(&state.slot, Slot::Up(current) if current.pid() == client.pid()) {
            state.slot = Slot::Idle;
            state.history.retired(policy, Instant::now());
        }
    }

    /// Kills the process now, without waiting; calls on it fail.
    pub fn kill(&self) {
        if let Slot::Up(client) = &self.shared.lock().slot {
            client.kill();
        }
    }

    /// Stops the process gracefully: stdin closed, the grace period, then SIGKILL.
    /// A start under way is called off first.
    pub async fn shutdown(&self) {
        let taken = {
            let mut state = self.shared.lock();
            match state.slot {
                // Broken stays broken.
                Slot::Broken(_) => Slot::Idle,
                _ => std::mem::replace(&mut state.slot, Slot::Idle),
            }
        };
        let client = match taken {
            Slot::Up(client) | Slot::Down(client) => Some(client),
            Slot::Starting { mut result, stop } => {
                stop.cancel();
                // A start that finished first hands over its process.
                let done = result.wait_for(Option::is_some).await;
                done.ok().and_then(|r| r.clone()).and_then(Result::ok)
            }
            Slot::Idle | Slot::Broken(_) => None,
        };
        if let Some(client) = client {
            client.shutdown(DEFAULT_GRACE).await;
        }
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while the lock was held leaves plain data behind; keep going.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// What a caller who wants the process does next; starts it when that is due.
    fn next(self: &Arc<Self>) -> Next {
        let mut state = self.lock();
        let stopped = match &state.slot {
            Slot::Broken(err) => return Next::Failed(err.clone()),
            // A start task that ended without a word (its runtime closed) is over.
            Slot::Starting { result, .. } if result.has_changed().is_ok() => {
                return Next::Wait(result.clone());
            }
            Slot::Up(client) if client.exit_status().is_none() => {
                return Next::Ready(Arc::clone(client));
            }
            Slot::Idle | Slot::Starting { .. } => None,
            Slot::Up(stopped) | Slot::Down(stopped) => Some(Arc::clone(stopped)),
        };
        let mut after = Duration::ZERO;
        if let Some(stopped) = &stopped {
            let now = Instant::now();
            match self.policy.decide(&state.history, now) {
                Decision::Broken { stops } => {
                    let err = self.broken(stops, stopped);
                    state.slot = Slot::Broken(err.clone());
                    return Next::Failed(err);
                }
                Decision::Restart { after: backoff } => {
                    let status = stopped.exit_status().unwrap_or_else(|| "stopped".into());
                    tracing::info!("`{}` {status}; restarting in {backoff:?}", self.name);
                    state.history.restarted(&self.policy, now);
                    after = backoff;
                }
            }
        }
        let (tx, rx) = watch::channel(None);
        let stop = CancellationToken::new();
        state.slot = Slot::Starting {
            result: rx.clone(),
            stop: stop.clone(),
        };
        drop(state);
        tokio::spawn(Arc::clone(self).start(after, stopped, tx, stop));
        Next::Wait(rx)
    }

    fn broken(&self, stops: usize, last: &RpcClient) -> ServerError {
        let tail = last.stderr_tail();
        ServerError::Broken {
            name: self.name.clone(),
            stops,
            window: self.policy.window,
            last: last.exit_status().unwrap_or_else(|| "stopped".into()),
            stderr_last: tail.trim_end().lines().last().map(str::to_string),
        }
    }

    /// Waits `after`, starts a process and shakes hands with it; publishes the
    /// result to every waiting caller and leaves the state to match.
    async fn start(
        self: Arc<Self>,
        after: Duration,
        previous: Option<Arc<RpcClient>>,
        tx: watch::Sender<StartResult>,
        stop: CancellationToken,
    ) {
        let (slot, result) = match self.launch(after, &stop).await {
            Ok(client) => (Slot::Up(Arc::clone(&client)), Ok(client)),
            // Kept, so the next attempt counts as a restart.
            Err((err, Some(client))) => (Slot::Down(client), Err(err)),
            Err((err, None)) => (previous.map_or(Slot::Idle, Slot::Down), Err(err)),
        };
        {
            let mut state = self.lock();
            // A shutdown may have taken the slot meanwhile; it then stays idle.
            if matches!(state.slot, Slot::Starting { .. }) {
                state.slot = slot;
            }
        }
        let _ = tx.send(Some(result));
    }

    /// One start: the backoff, the process, its handshake, any of them called off
    /// by `stop`. A failure after the process started hands the (killed) process
    /// back with the error.
    async fn launch(
        &self,
        after: Duration,
        stop: &CancellationToken,
    ) -> Result<Arc<RpcClient>, (ServerError, Option<Arc<RpcClient>>)> {
        let stopped = || ServerError::Stopped {
            name: self.name.clone(),
        };
        // A first start goes at once, without a turn of the timer.
        if !after.is_zero() {
            tokio::select! {
                () = tokio::time::sleep(after) => {}
                () = stop.cancelled() => return Err((stopped(), None)),
            }
        }
        let env = child_env_for(self.kind, &self.name, &self.spec, &self.context);
        let max_line = self.spec.max_output_bytes.unwrap_or(DEFAULT_MAX_OUTPUT) as usize;
        let client = RpcClient::start(&self.name, self.kind, &self.spec, env, max_line)
            .map_err(|err| (err.into(), None))?;
        let client = Arc::new(client);
        self.lock().latest = Some(Arc::clone(&client));
        let Some(handshake) = &self.handshake else {
            return Ok(client);
        };
        let answer = tokio::select! {
            answer = client.call(handshake.method, &handshake.params, handshake.timeout) => {
                answer.map(Reply::parsed)
            }
            () = stop.cancelled() => {
                client.kill();
                return Err((stopped(), Some(client)));
            }
        };
        let why = match answer {
            Ok(reply) => match (handshake.check)(&reply) {
                Ok(()) => return Ok(client),
                Err(refused) => HandshakeError::Refused(refused),
            },
            Err(RpcError::TimedOut(timeout)) => HandshakeError::NoReply {
                timeout,
                stderr_tail: client.stderr_tail(),
            },
            Err(err) => HandshakeError::Exited(err),
        };
        client.kill();
        let err = ServerError::Handshake {
            name: self.name.clone(),
            method: handshake.method,
            why,
        };
        Err((err, Some(client)))
    }
}

impl NoReply {
    /// A missing reply in the terms of a tool or hook call; `timeout` is the whole
    /// deadline the call had.
    pub fn of(missed: Missed, timeout: Duration) -> Self {
        let (outcome, stderr_tail) = match missed {
            Missed::NoProcess {
                why: Unavailable::Failed(err),
                ..
            } => {
                let reason = format!("server {err}");
                (Outcome::ServerFailed { reason }, String::new())
            }
            Missed::NoProcess {
                why: Unavailable::Late,
                stderr_tail,
            } => {
                let outcome = Outcome::TimedOut {
                    after: timeout,
                    nothing_read: false,
                };
                (outcome, stderr_tail)
            }
            Missed::Exited {
                status,
                stderr_tail,
            } => {
                let reason = format!("server {status} while the call was in flight");
                (Outcome::ServerFailed { reason }, stderr_tail)
            }
            Missed::TimedOut {
                missed,
                stderr_tail,
            } => {
                let outcome = Outcome::TimedOut {
                    after: missed.after,
                    nothing_read: missed.nothing_read,
                };
                (outcome, stderr_tail)
            }
            Missed::Overlong { reply, stderr_tail } => {
                let outcome = Outcome::OutputTooLarge {
                    limit: reply.limit as u64,
                };
                (outcome, stderr_tail)
            }
        };
        Self {
            outcome,
            stderr_tail,
        }
    }
}
