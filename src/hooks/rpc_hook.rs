//! A long-running JSON-RPC hook: `hook.hello` first, then interceptor calls and event
//! notifications, on a supervised process.

use std::time::Duration;

use serde_json::{Value as Json, json};

use crate::config::{EventMethod, Hook, HookKind, Intercept, ObserveEvents, ServerHook};
use crate::exec::CallKind;
use crate::exec::rpc::{Handshake, Reply, RestartPolicy, RpcError, Supervisor};

use super::action::{Action, Approval, method_name, read_action, read_approval};
use super::events::{runtime_name, selects};

const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
const APPROVAL_TIMEOUT: Duration = Duration::from_secs(60);
pub const PROTOCOL_VERSION: u64 = 1;

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
            params: json!({"name": hook.name, "version": PROTOCOL_VERSION, "modes": modes(server)}),
            timeout: server.handshake_timeout.unwrap_or(HANDSHAKE_TIMEOUT),
            check: accept_hello,
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
            ),
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
    pub async fn start(&self) -> Result<u32, String> {
        let client = self.process.client().await?;
        Ok(client.pid())
    }

    /// Calls one interceptor method with `params`; a failure carries the end of the
    /// hook's stderr.
    pub async fn intercept(&self, intercept: Intercept, params: Json) -> Intercepted {
        let client = match self.process.client().await {
            Ok(client) => client,
            Err(why) => return Intercepted::failed(why, self.process.stderr_tail()),
        };
        let timeout = match intercept {
            Intercept::ApproveTool => self.server.approval_timeout.unwrap_or(APPROVAL_TIMEOUT),
            _ => self
                .hook
                .exec
                .timeout
                .unwrap_or_else(|| CallKind::Hook.default_timeout()),
        };
        let failed = |why: String| Intercepted::failed(why, client.stderr_tail());
        match client.call(&method_name(intercept), params, timeout).await {
            Ok(Reply::Result(result)) => {
                self.process.answered().await;
                match intercept {
                    Intercept::ApproveTool => match read_approval(&result) {
                        Ok(approval) => Intercepted::Approval(approval),
                        Err(why) => failed(why),
                    },
                    _ => match read_action(intercept, &result) {
                        Ok(action) => Intercepted::Action(action),
                        Err(why) => failed(why),
                    },
                }
            }
            Ok(Reply::Error { code, message }) => {
                self.process.answered().await;
                failed(format!("answered with JSON-RPC error {code}: {message}"))
            }
            Err(err @ RpcError::TimedOut(_)) => {
                self.process.timed_out(&client).await;
                failed(err.to_string())
            }
            Err(RpcError::Exited {
                status,
                stderr_tail,
            }) => {
                let why = RpcError::Exited {
                    status,
                    stderr_tail: String::new(),
                }
                .to_string();
                Intercepted::failed(why, stderr_tail)
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
        let params = match self.server.event_method {
            EventMethod::RuntimeEvent => json!({
                "kind": runtime_name(kind),
                "source": {"component": "agent", "name": "promptexec"},
                "scope": {"agent_id": meta["AgentID"], "session_key": meta["SessionKey"],
                          "turn_id": meta["TurnID"], "channel": "cli", "chat_id": "chat-1"},
                "meta": meta,
                "payload": payload,
            }),
            EventMethod::Event => json!({"Kind": kind, "Meta": meta, "Payload": payload}),
        };
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

/// The capabilities announced in `hook.hello`.
fn modes(server: &ServerHook) -> Vec<&'static str> {
    let mut modes = Vec::new();
    if server.observe != ObserveEvents::None {
        modes.push("observe");
    }
    let has = |i: &[Intercept]| server.intercept.iter().any(|x| i.contains(x));
    if has(&[Intercept::BeforeLlm, Intercept::AfterLlm]) {
        modes.push("llm");
    }
    if has(&[Intercept::BeforeTool, Intercept::AfterTool]) {
        modes.push("tool");
    }
    if has(&[Intercept::ApproveTool]) {
        modes.push("approve");
    }
    modes
}

fn accept_hello(reply: &Reply) -> Result<(), String> {
    match reply {
        Reply::Result(result) if result.get("ok") == Some(&Json::Bool(true)) => Ok(()),
        Reply::Result(result) => Err(format!("it answered {result}, without \"ok\": true")),
        Reply::Error { code, message } => {
            Err(format!("it answered JSON-RPC error {code}: {message}"))
        }
    }
}
