//! A long-running JSON-RPC hook: `hook.hello` first, then interceptor calls and event
//! notifications, on a supervised process.

use std::time::Duration;

use serde_json::Value as Json;

use crate::config::{Hook, HookKind, Intercept, ObserveEvents, ServerHook};
use crate::exec::CallKind;
use crate::exec::rpc::{Handshake, Missed, Reply, RestartPolicy, RpcError, Supervisor};

use super::action::{Action, Approval, read_action, read_approval};
use super::rpc_wire::{event_params, hello_params, method_name, read_hello};
use super::runner::hook_context;
use crate::conversation::selects;

const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
const APPROVAL_TIMEOUT: Duration = Duration::from_secs(60);

/// Why a JSON-RPC hook could not be started (its process, or its handshake).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{why}")]
pub struct StartError {
    pub why: String,
}

/// What one interceptor call came to.
#[derive(Debug, Clone, PartialEq)]
pub enum Intercepted {
    Action(Action),
    Approval(Approval),
    /// The hook could not answer; its failure policy decides what this means.
    Failed {
        why: String,
        stderr_tail: String,
    },
}

impl Intercepted {
    fn failed(why: String, stderr_tail: String) -> Self {
        Intercepted::Failed { why, stderr_tail }
    }
}

pub struct RpcHook {
    pub hook: Hook,
    pub server: ServerHook,
    process: Supervisor,
    dropped: std::sync::atomic::AtomicU64,
}

impl RpcHook {
    /// `None` for a hook that is not `runtime: server`.
    pub fn new(hook: &Hook) -> Option<Self> {
        Self::with_policy(hook, RestartPolicy::default())
    }

    pub fn with_policy(hook: &Hook, policy: RestartPolicy) -> Option<Self> {
        let HookKind::Server(server) = &hook.kind else {
            return None;
        };
        let handshake = Handshake {
            method: "hook.hello",
            params: hello_params(&hook.name, server),
            timeout: server.handshake_timeout.unwrap_or(HANDSHAKE_TIMEOUT),
            check: read_hello,
        };
        Some(Self {
            hook: hook.clone(),
            server: server.clone(),
            process: Supervisor::new(
                &hook.name,
                CallKind::Hook,
                &hook.exec,
                policy,
                Some(handshake),
            )
            .with_context(hook_context(hook)),
            dropped: Default::default(),
        })
    }

    pub fn intercepts(&self, intercept: Intercept) -> bool {
        self.server.intercept.contains(&intercept)
    }

    pub fn observes(&self, kind: &str) -> bool {
        match &self.server.observe {
            ObserveEvents::None => false,
            ObserveEvents::All => true,
            ObserveEvents::Kinds(kinds) => kinds.iter().any(|k| selects(k, kind)),
        }
    }

    /// Starts the process and completes the handshake, if not done yet.
    pub async fn start(&self) -> Result<u32, StartError> {
        let client = self.process.client().await.map_err(|err| StartError {
            why: err.to_string(),
        })?;
        Ok(client.pid())
    }

    /// Calls one interceptor method with `params`; a failure carries the end of the
    /// hook's stderr.
    pub async fn intercept(&self, intercept: Intercept, params: Json) -> Intercepted {
        let timeout = match intercept {
            Intercept::ApproveTool => self.server.approval_timeout.unwrap_or(APPROVAL_TIMEOUT),
            _ => self
                .hook
                .exec
                .timeout
                .unwrap_or_else(|| CallKind::Hook.default_timeout()),
        };
        // The deadline covers a restart after a crash that the call waits for.
        let reply = match self
            .process
            .exchange(&method_name(intercept), params, timeout)
            .await
        {
            Ok(reply) => reply,
            Err(missed) => return missed_call(missed),
        };
        let failed = |why: String| Intercepted::failed(why, self.process.stderr_tail());
        match reply {
            Reply::Result(result) => match intercept {
                Intercept::ApproveTool => match read_approval(&result) {
                    Ok(approval) => Intercepted::Approval(approval),
                    Err(why) => failed(why.to_string()),
                },
                _ => match read_action(intercept, &result) {
                    Ok(action) => Intercepted::Action(action),
                    Err(why) => failed(why.to_string()),
                },
            },
            Reply::Error { code, message } => {
                failed(format!("answered with JSON-RPC error {code}: {message}"))
            }
        }
    }

    /// A best-effort `hook.event` (or `hook.runtime_event`) notification, when the
    /// hook observes `kind`. Never waits: an event for a process that is not running,
    /// or that finds the write queue full, is dropped and counted.
    pub fn event(&self, kind: &str, meta: &Json, payload: &Json) {
        if !self.observes(kind) {
            return;
        }
        let params = event_params(self.server.event_method, kind, meta, payload);
        let queued = self
            .process
            .running()
            .is_some_and(|client| client.notify(self.server.event_method.as_str(), params));
        if !queued {
            self.dropped
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// The last lines the latest process wrote to stderr, running or not.
    pub fn stderr_tail(&self) -> String {
        self.process.stderr_tail()
    }

    /// Events that could not be delivered.
    pub fn dropped_events(&self) -> u64 {
        self.dropped.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub async fn shutdown(&self) {
        self.process.shutdown().await;
    }
}

/// A call that got no reply, worded as the JSON-RPC client words it.
fn missed_call(missed: Missed) -> Intercepted {
    match missed {
        Missed::NoProcess { why, stderr_tail } => Intercepted::failed(why.to_string(), stderr_tail),
        Missed::Exited {
            status,
            stderr_tail,
        } => {
            let why = RpcError::Exited {
                status,
                stderr_tail: String::new(),
            };
            Intercepted::failed(why.to_string(), stderr_tail)
        }
        Missed::TimedOut {
            missed,
            stderr_tail,
        } => Intercepted::failed(RpcError::TimedOut(missed).to_string(), stderr_tail),
        Missed::Overlong { reply, stderr_tail } => {
            Intercepted::failed(reply.to_string(), stderr_tail)
        }
    }
}
