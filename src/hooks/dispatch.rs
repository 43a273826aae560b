//! Runs hooks at each phase. Exec hooks and JSON-RPC hooks form one chain (see
//! `chain`), ordered by `priority` then declaration; each phase says what hooks see
//! (`payload`, `rpc_wire`) and how a `modify` is read back (`modify`). Observers hear
//! their events through their own queues, beside the pipeline (see `observer`). Every
//! hook failure is recorded, whatever its policy made of it, for the run to report.

use std::sync::Arc;

use serde_json::Value as Json;
use tokio_util::sync::CancellationToken;

use crate::config::{Hook, HookKind, HookPhase, Intercept};
use crate::conversation::{
    ProviderRequest, ProviderResponse, SessionInfo, ToolCallInfo, ToolResultInfo,
};
use crate::exec::CallKind;

use super::action::Action;
use super::chain::{DenyMeans, Entry, Gate, Phase, Shapes, Stage, ordered};
use super::failure::{Failures, HookFailure};
use super::modify::{modified_call, modified_request, modified_response, modified_result};
use super::observer::Observers;
use super::payload::{provider_payload, session_payload_text, tool_payload};
use super::rpc_hook::{RpcHook, StartError};
use super::rpc_wire::{after_llm_params, after_tool_params, before_llm_params, meta, tool_params};
use super::runner::ExecHook;

/// The hooks of one run, called by the conversation driver at every phase.
pub struct HookDispatcher {
    pub(super) chain: Vec<Entry>,
    pub(super) observers: Observers,
    pub(super) failures: Failures,
    pub(super) cancel: CancellationToken,
}

impl HookDispatcher {
    /// The turn in progress, for the events observers hear from now on.
    pub fn set_turn(&mut self, turn: u32) {
        self.observers.turn = turn;
    }

    pub fn new(hooks: impl IntoIterator<Item = Hook>, cancel: CancellationToken) -> Self {
        let chain = ordered(hooks)
            .into_iter()
            .map(|hook| match RpcHook::new(&hook) {
                Some(rpc) => Entry::Rpc(Arc::new(rpc)),
                None => Entry::Exec(Arc::new(ExecHook::new(hook))),
            })
            .collect();
        let failures = Failures::default();
        Self {
            chain,
            observers: Observers::new(failures.clone(), cancel.clone()),
            failures,
            cancel,
        }
    }

    /// Starts every JSON-RPC hook (handshake included) before the run needs it.
    pub async fn start(&self) -> Result<(), StartError> {
        for entry in &self.chain {
            if let Entry::Rpc(rpc) = entry {
                rpc.start().await?;
            }
        }
        Ok(())
    }

    /// The hook failures recorded since the last call: filter hooks (which denied),
    /// observers whose call has ended, interceptors and approvers (even those skipped
    /// by their failure policy). After [`finish`](Self::finish), every observer's.
    pub fn take_failures(&mut self) -> Vec<HookFailure> {
        self.failures.take()
    }

    /// Before the model is called: the request and the tools offered (interceptors
    /// may add tools of their own).
    pub async fn before_call(
        &mut self,
        request: ProviderRequest,
        tools: Vec<Json>,
    ) -> Phase<(ProviderRequest, Vec<Json>)> {
        let payload = |(r, _): &(ProviderRequest, Vec<Json>)| {
            provider_payload(HookPhase::BeforeCall, r, None)
        };
        let params = |(r, tools): &(ProviderRequest, Vec<Json>)| {
            before_llm_params(r.round, &r.model, &r.messages.to_vec(), tools)
        };
        self.chain(
            Stage {
                phase: HookPhase::BeforeCall,
                intercept: Intercept::BeforeLlm,
                deny_means: DenyMeans::AbortTurn,
            },
            (request, tools),
            Shapes {
                payload: &payload,
                params: &params,
                apply: &modified_request,
            },
        )
        .await
    }

    /// After the model answered: its message.
    pub async fn after_call(
        &mut self,
        request: &ProviderRequest,
        response: ProviderResponse,
    ) -> Phase<ProviderResponse> {
        let round = request.round;
        let payload =
            |resp: &ProviderResponse| provider_payload(HookPhase::AfterCall, request, Some(resp));
        let params = |resp: &ProviderResponse| after_llm_params(round, &resp.model, &resp.message);
        self.chain(
            Stage {
                phase: HookPhase::AfterCall,
                intercept: Intercept::AfterLlm,
                deny_means: DenyMeans::AbortTurn,
            },
            response,
            Shapes {
                payload: &payload,
                params: &params,
                apply: &modified_response,
            },
        )
        .await
    }

    /// Before a tool runs: the call, then every approver on the call as it stands.
    pub async fn before_execution(&mut self, call: ToolCallInfo) -> Phase<ToolCallInfo> {
        let payload = |c: &ToolCallInfo| tool_payload(HookPhase::BeforeExecution, c, None);
        let mut phase = self
            .chain(
                Stage {
                    phase: HookPhase::BeforeExecution,
                    intercept: Intercept::BeforeTool,
                    deny_means: DenyMeans::DenyTool,
                },
                call,
                Shapes {
                    payload: &payload,
                    params: &tool_params,
                    apply: &modified_call,
                },
            )
            .await;
        let Gate::Proceed(call) = &phase.gate else {
            return phase;
        };
        let call = call.clone();
        for rpc in self.interceptors(Intercept::ApproveTool) {
            match self
                .ask(
                    &rpc,
                    Intercept::ApproveTool,
                    tool_params(&call),
                    &mut phase.ran,
                )
                .await
            {
                Action::Continue | Action::Modify(_) | Action::Respond { .. } => {}
                Action::DenyTool { reason }
                | Action::AbortTurn { reason }
                | Action::HardAbort { reason } => {
                    phase.gate = Gate::DenyTool {
                        hook: rpc.hook.name.clone(),
                        reason,
                    };
                    return phase;
                }
            }
        }
        phase
    }

    /// After a tool ran: its result as the model will see it.
    pub async fn after_execution(
        &mut self,
        call: &ToolCallInfo,
        result: ToolResultInfo,
    ) -> Phase<ToolResultInfo> {
        let payload = |r: &ToolResultInfo| tool_payload(HookPhase::AfterExecution, call, Some(r));
        let params = |r: &ToolResultInfo| after_tool_params(call, r);
        self.chain(
            Stage {
                phase: HookPhase::AfterExecution,
                intercept: Intercept::AfterTool,
                deny_means: DenyMeans::Withhold,
            },
            result,
            Shapes {
                payload: &payload,
                params: &params,
                apply: &modified_result,
            },
        )
        .await
    }

    /// The exec hooks (not JSON-RPC hooks), in chain order.
    fn exec_hooks(&self) -> Vec<Arc<ExecHook>> {
        self.chain
            .iter()
            .filter_map(|e| match e {
                Entry::Exec(h) => Some(Arc::clone(h)),
                Entry::Rpc(_) => None,
            })
            .collect()
    }

    /// Session hooks only observe; returns the names of those notified.
    /// The payload carries the whole history, so it is made only when some hook
    /// listens, once, as text that every listener shares.
    pub async fn session(&mut self, phase: HookPhase, event: &SessionInfo) -> Vec<String> {
        let listening: Vec<Arc<ExecHook>> = self
            .exec_hooks()
            .into_iter()
            .filter(|hook| matches!(&hook.hook.kind, HookKind::Session { phases } if phases.contains(&phase)))
            .collect();
        let Some((last, others)) = listening.split_last() else {
            return Vec::new();
        };
        let payload = Arc::new(session_payload_text(phase, event));
        for hook in others {
            self.observers
                .send(hook, CallKind::Hook, phase.into(), Arc::clone(&payload));
        }
        self.observers
            .send(last, CallKind::Hook, phase.into(), payload);
        listening.iter().map(|h| h.hook.name.clone()).collect()
    }

    /// A runtime event for the JSON-RPC hooks that observe its kind; never waits.
    pub fn event(&self, kind: &str, payload: &Json) {
        let meta = meta(0);
        for entry in &self.chain {
            if let Entry::Rpc(rpc) = entry {
                rpc.event(kind, &meta, payload);
            }
        }
    }

    /// Eval hooks get each EvalResult, fire and forget; returns their names.
    pub fn eval_result(&mut self, result: &Json) -> Vec<String> {
        let mut notified = Vec::new();
        let mut payload: Option<Arc<String>> = None;
        for hook in self.exec_hooks() {
            if matches!(hook.hook.kind, HookKind::Eval) {
                notified.push(hook.hook.name.clone());
                let payload = payload.get_or_insert_with(|| Arc::new(result.to_string()));
                self.observers.send(
                    &hook,
                    CallKind::EvalHook,
                    crate::config::Phase::EVAL,
                    Arc::clone(payload),
                );
            }
        }
        notified
    }

    /// Lets observers hear what is queued for them (each call ends by its own
    /// deadline), stops the hook processes, and returns how many events could not be
    /// delivered: observer events dropped from a full queue, and JSON-RPC events.
    pub async fn finish(&mut self) -> u64 {
        let mut dropped = self.observers.finish().await;
        for entry in &self.chain {
            match entry {
                Entry::Exec(hook) => hook.shutdown().await,
                Entry::Rpc(rpc) => {
                    rpc.shutdown().await;
                    if rpc.dropped_events() > 0 {
                        tracing::warn!(
                            "hook `{}` missed {} events",
                            rpc.hook.name,
                            rpc.dropped_events()
                        );
                    }
                    dropped += rpc.dropped_events();
                }
            }
        }
        dropped
    }
}
