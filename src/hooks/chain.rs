//! The chain: exec filter hooks and JSON-RPC interceptors in one order, each seeing
//! what the one before left; the first that stops the phase decides, and its answer
//! becomes the phase's [`Gate`].

use std::sync::Arc;

use serde_json::Value as Json;

use crate::config::{Hook, HookPhase, Intercept};

use super::action::{Action, Approval, on_failure};
use super::dispatch::HookDispatcher;
use super::exec_step::{exec_gate, mode_at};
use super::failure::HookFailure;
use super::modify::ModifyError;
use super::rpc_hook::{Intercepted, RpcHook};
use super::runner::ExecHook;

/// Hooks in the order they run: by `priority` (lower first), then declaration order.
pub fn ordered(hooks: impl IntoIterator<Item = Hook>) -> Vec<Hook> {
    let mut hooks: Vec<Hook> = hooks.into_iter().collect();
    // A stable sort keeps declaration order among equal priorities.
    hooks.sort_by_key(|h| h.priority);
    hooks
}

/// How a phase ended, with the value it goes on with.
#[derive(Debug, Clone, PartialEq)]
pub enum Gate<T> {
    /// Go on with this (possibly modified) value.
    Proceed(T),
    /// An exec filter hook denied but enforced its own policy: go on, with its
    /// replacement text (`metadata.replacement`) where it gave one.
    Replaced {
        hook: String,
        reason: String,
        replacement: Option<String>,
        value: T,
    },
    /// `before_tool` only: a hook answered for the tool; skip the tool and `after_tool`.
    Respond { hook: String, result: Json },
    /// The tool does not run; the model is told it was denied and why.
    DenyTool { hook: String, reason: String },
    /// The turn ends with the hook's reason.
    AbortTurn { hook: String, reason: String },
    /// The whole run stops.
    HardAbort { hook: String, reason: String },
}

/// A phase's gate and the hooks that were asked, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Phase<T> {
    pub gate: Gate<T>,
    pub ran: Vec<String>,
}

/// One entry of the chain.
pub(super) enum Entry {
    Exec(Arc<ExecHook>),
    Rpc(Arc<RpcHook>),
}

/// Where in the pipeline a chain runs.
#[derive(Clone, Copy)]
pub(super) struct Stage {
    pub phase: HookPhase,
    pub intercept: Intercept,
    pub deny_means: DenyMeans,
}

/// What an exec filter's denial means at each phase.
#[derive(Clone, Copy)]
pub(super) enum DenyMeans {
    AbortTurn,
    DenyTool,
    /// The value is withheld and replaced by a notice.
    Withhold,
}

/// How one phase turns values into what hooks see, and reads back a `modify`.
pub(super) struct Shapes<'f, T> {
    /// An exec hook's stdin for the current value.
    pub payload: &'f dyn Fn(&T) -> Json,
    /// An interceptor's params for the current value.
    pub params: &'f dyn Fn(&T) -> Json,
    /// The value after an interceptor's `modify`; an error when it cannot be read.
    pub apply: &'f dyn Fn(&T, Json) -> Result<T, ModifyError>,
}

impl HookDispatcher {
    /// The RPC hooks that intercept `intercept`, in chain order.
    pub(super) fn interceptors(&self, intercept: Intercept) -> Vec<Arc<RpcHook>> {
        self.chain
            .iter()
            .filter_map(|e| match e {
                Entry::Rpc(rpc) if rpc.intercepts(intercept) => Some(Arc::clone(rpc)),
                _ => None,
            })
            .collect()
    }

    /// One interceptor's action, with its failure policy applied.
    pub(super) async fn ask(
        &self,
        rpc: &RpcHook,
        intercept: Intercept,
        params: Json,
        ran: &mut Vec<String>,
    ) -> Action {
        ran.push(rpc.hook.name.clone());
        match rpc.intercept(intercept, params).await {
            Intercepted::Action(action) => action,
            Intercepted::Approval(Approval::Approved) => Action::Continue,
            Intercepted::Approval(Approval::Denied { reason }) => Action::DenyTool { reason },
            Intercepted::Failed { why, stderr_tail } => {
                self.failed(rpc, intercept, &why, &stderr_tail)
            }
        }
    }

    /// An interceptor failed: recorded, then its failure policy decides.
    fn failed(&self, rpc: &RpcHook, intercept: Intercept, why: &str, stderr: &str) -> Action {
        self.failures.record(HookFailure::new(
            &rpc.hook.name,
            intercept.into(),
            why,
            stderr,
        ));
        on_failure(intercept, rpc.server.on_failure, &rpc.hook.name, why)
    }

    /// Runs one phase over the chain, each hook seeing what the one before left.
    pub(super) async fn chain<T: Clone>(
        &mut self,
        stage: Stage,
        mut value: T,
        shapes: Shapes<'_, T>,
    ) -> Phase<T> {
        let Stage {
            phase,
            intercept,
            deny_means,
        } = stage;
        let mut ran = Vec::new();
        for index in 0..self.chain.len() {
            let rpc = match &self.chain[index] {
                Entry::Exec(hook) => {
                    let hook = Arc::clone(hook);
                    let Some(mode) = mode_at(&hook, phase) else {
                        continue;
                    };
                    let payload = (shapes.payload)(&value);
                    let taking_part = (phase, mode);
                    if let Some(step) = self.exec_step(&hook, taking_part, &payload, &mut ran).await
                    {
                        let gate = exec_gate(step, deny_means, value);
                        return Phase { gate, ran };
                    }
                    continue;
                }
                Entry::Rpc(rpc) if rpc.intercepts(intercept) => Arc::clone(rpc),
                Entry::Rpc(_) => continue,
            };
            let hook = rpc.hook.name.clone();
            let mut action = self
                .ask(&rpc, intercept, (shapes.params)(&value), &mut ran)
                .await;
            if let Action::Modify(replacement) = action {
                match (shapes.apply)(&value, replacement) {
                    Ok(modified) => {
                        value = modified;
                        continue;
                    }
                    Err(why) => {
                        let why = format!("its `modify` could not be read: {why}");
                        action = self.failed(&rpc, intercept, &why, "");
                    }
                }
            }
            let gate = match action {
                Action::Continue | Action::Modify(_) => continue,
                Action::Respond { result, .. } => Gate::Respond { hook, result },
                Action::DenyTool { reason } => Gate::DenyTool { hook, reason },
                Action::AbortTurn { reason } => Gate::AbortTurn { hook, reason },
                Action::HardAbort { reason } => Gate::HardAbort { hook, reason },
            };
            return Phase { gate, ran };
        }
        Phase {
            gate: Gate::Proceed(value),
            ran,
        }
    }
}
