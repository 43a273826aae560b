//! How an exec hook (`hook`/`phases`/`mode`) is called: one process per call, or, with
//! `runtime: server`, JSON-RPC `execute` on one supervised process for the whole run.
//! Either way the hook gets the same payload and its answer is read the same way.

use std::time::{Duration, Instant};

use serde_json::Value as Json;
use tokio_util::sync::CancellationToken;

use crate::config::{Hook, HookKind, HookType, RuntimeMode};
use crate::exec::rpc::{NoReply, Reply, RestartPolicy, Supervisor};
use crate::exec::{self, Call, CallKind, Outcome};

/// One hook process run to the end.
#[derive(Debug, Clone)]
pub struct HookRun {
    pub outcome: Outcome,
    pub duration: Duration,
    pub stderr_tail: String,
}

/// An exec hook ready to be called, with its process when it is a server.
pub(crate) struct ExecHook {
    pub hook: Hook,
    server: Option<Supervisor>,
}

impl ExecHook {
    pub(crate) fn new(hook: Hook) -> Self {
        let server = (hook.exec.runtime == RuntimeMode::Server).then(|| {
            Supervisor::new(
                &hook.name,
                CallKind::Hook,
                &hook.exec,
                RestartPolicy::default(),
                None,
            )
            .with_context(hook_context(&hook))
        });
        Self { hook, server }
    }

    pub(crate) async fn run(
        &self,
        kind: CallKind,
        payload: &Json,
        cancel: &CancellationToken,
    ) -> HookRun {
        match &self.server {
            None => run_once(&self.hook, kind, payload.to_string().as_bytes(), cancel).await,
            Some(server) => self.on_server(server, kind, payload.clone(), cancel).await,
        }
    }

    /// The same for a payload already serialised: a one-shot hook reads the text as
    /// it is; a server gets it as its call's params.
    pub(crate) async fn run_text(
        &self,
        kind: CallKind,
        text: &str,
        cancel: &CancellationToken,
    ) -> HookRun {
        match &self.server {
            None => run_once(&self.hook, kind, text.as_bytes(), cancel).await,
            Some(server) => match serde_json::from_str(text) {
                Ok(payload) => self.on_server(server, kind, payload, cancel).await,
                Err(err) => HookRun {
                    outcome: Outcome::ServerFailed {
                        reason: format!("its payload is not JSON: {err}"),
                    },
                    duration: Duration::ZERO,
                    stderr_tail: String::new(),
                },
            },
        }
    }

    async fn on_server(
        &self,
        server: &Supervisor,
        kind: CallKind,
        payload: Json,
        cancel: &CancellationToken,
    ) -> HookRun {
        tokio::select! {
            run = execute(server, &self.hook, kind, payload) => run,
            () = cancel.cancelled() => HookRun {
                outcome: Outcome::Interrupted,
                duration: Duration::ZERO,
                stderr_tail: String::new(),
            },
        }
    }

    /// Stops the hook's server process, if it has one.
    pub(crate) async fn shutdown(&self) {
        if let Some(server) = &self.server {
            server.shutdown().await;
        }
    }
}

/// Sends `payload` to `hook` once. A server-mode hook gets a process for this one
/// call, stopped afterwards.
pub async fn run_hook(
    hook: &Hook,
    kind: CallKind,
    payload: &Json,
    cancel: &CancellationToken,
) -> HookRun {
    let hook = ExecHook::new(hook.clone());
    let run = hook.run(kind, payload, cancel).await;
    hook.shutdown().await;
    run
}

/// One process for one call, the payload on stdin.
async fn run_once(
    hook: &Hook,
    kind: CallKind,
    payload: &[u8],
    cancel: &CancellationToken,
) -> HookRun {
    let mut call = Call::new(&hook.name, kind, &hook.exec, payload);
    call.context.extend(hook_context(hook));
    let finished = exec::run(&call, cancel).await;
    HookRun {
        outcome: exec::classify(&finished),
        duration: finished.duration,
        stderr_tail: finished.stderr_tail,
    }
}

/// One `execute` call on the hook's server: params are the payload, the result is the
/// answer a one-shot hook would print.
async fn execute(server: &Supervisor, hook: &Hook, kind: CallKind, payload: Json) -> HookRun {
    let started = Instant::now();
    let timeout = hook.exec.timeout.unwrap_or_else(|| kind.default_timeout());
    let finish = |outcome, stderr_tail| HookRun {
        outcome,
        duration: started.elapsed(),
        stderr_tail,
    };
    match server.call("execute", payload, timeout).await {
        Ok(Reply::Result(value)) => finish(Outcome::Answered(value), String::new()),
        Ok(Reply::Error { code, message }) => {
            let reason = format!("answered with JSON-RPC error {code}: {message}");
            finish(Outcome::ServerFailed { reason }, server.stderr_tail())
        }
        Err(NoReply {
            outcome,
            stderr_tail,
        }) => finish(outcome, stderr_tail),
    }
}

/// What a hook's process gets over the host's variables: the values its `env` sets,
/// then `PROMPTEXEC_HOOK_TYPE`.
pub fn hook_context(hook: &Hook) -> Vec<(String, String)> {
    let mut context: Vec<(String, String)> = hook
        .env_values
        .iter()
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect();
    context.push(("PROMPTEXEC_HOOK_TYPE".into(), hook_type(&hook.kind).into()));
    context
}

/// `PROMPTEXEC_HOOK_TYPE` for a hook: its reference type, or `server` for a JSON-RPC hook.
pub fn hook_type(kind: &HookKind) -> &'static str {
    kind.hook_type().map_or("server", HookType::as_str)
}
