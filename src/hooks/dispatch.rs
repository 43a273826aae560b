//! Runs hooks at each phase: filter hooks one by one in order, observers beside the
//! pipeline, bounded by their own deadlines.

use std::time::Duration;

use serde_json::Value as Json;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::config::{Hook, HookKind, HookMode, HookPhase};
use crate::exec::{self, Call, CallKind, Outcome};

use super::payload::{
    ProviderRequest, ProviderResponse, SessionInfo, ToolCallInfo, ToolResultInfo, provider_payload,
    session_payload, tool_payload,
};
use super::{Decision, Step, fold, step_for};

/// One hook process run to the end.
#[derive(Debug, Clone)]
pub struct HookRun {
    pub outcome: Outcome,
    pub duration: Duration,
    pub stderr_tail: String,
}

/// Sends `payload` to `hook` once.
pub async fn run_hook(
    hook: &Hook,
    kind: CallKind,
    payload: &Json,
    cancel: &CancellationToken,
) -> HookRun {
    let mut call = Call::new(
        &hook.name,
        kind,
        &hook.exec,
        payload.to_string().into_bytes(),
    );
    call.context
        .push(("PROMPTEXEC_HOOK_TYPE".into(), hook_type(&hook.kind).into()));
    let finished = exec::run(&call, cancel).await;
    HookRun {
        outcome: exec::classify(&finished),
        duration: finished.duration,
        stderr_tail: finished.stderr_tail,
    }
}

pub fn hook_type(kind: &HookKind) -> &'static str {
    match kind {
        HookKind::Provider { .. } => "provider",
        HookKind::Tool { .. } => "tool",
        HookKind::Session { .. } => "session",
        HookKind::Eval => "eval",
        HookKind::Server(_) => "server",
    }
}

/// Hooks in the order they run: by `priority` (lower first), then declaration order.
pub fn ordered(hooks: impl IntoIterator<Item = Hook>) -> Vec<Hook> {
    let mut hooks: Vec<Hook> = hooks.into_iter().collect();
    // A stable sort keeps declaration order among equal priorities.
    hooks.sort_by_key(|h| h.priority);
    hooks
}

/// The hooks of one run, called by the conversation driver at every phase.
pub struct HookDispatcher {
    hooks: Vec<Hook>,
    observers: JoinSet<()>,
    cancel: CancellationToken,
}

impl HookDispatcher {
    pub fn new(hooks: impl IntoIterator<Item = Hook>, cancel: CancellationToken) -> Self {
        Self {
            hooks: ordered(hooks),
            observers: JoinSet::new(),
            cancel,
        }
    }

    /// The exec hooks subscribed to `phase`, with their modes, in run order.
    fn subscribed(&self, phase: HookPhase) -> Vec<(Hook, HookMode)> {
        self.hooks
            .iter()
            .filter_map(|h| {
                let mode = match &h.kind {
                    HookKind::Provider { phases, mode } | HookKind::Tool { phases, mode } => {
                        phases.contains(&phase).then_some(*mode)
                    }
                    HookKind::Session { phases } => {
                        phases.contains(&phase).then_some(HookMode::Observe)
                    }
                    HookKind::Eval | HookKind::Server(_) => None,
                }?;
                Some((h.clone(), mode))
            })
            .collect()
    }

    /// Filter hooks run in order and the first deny stops the chain; observers are
    /// started and not waited for.
    async fn phase(&mut self, phase: HookPhase, payload: Json) -> (Decision, Vec<String>) {
        let mut steps = Vec::new();
        let mut ran = Vec::new();
        for (hook, mode) in self.subscribed(phase) {
            if mode == HookMode::Observe {
                self.observe(hook, CallKind::Hook, payload.clone());
                continue;
            }
            let run = run_hook(&hook, CallKind::Hook, &payload, &self.cancel).await;
            ran.push(hook.name.clone());
            let step = step_for(&hook.name, mode, &run.outcome);
            if let Step::Failed { reason, .. } = &step {
                tracing::warn!(
                    "filter hook `{}` failed at {}: {reason}",
                    hook.name,
                    phase.as_str()
                );
            }
            let stop = !matches!(step, Step::Allow | Step::Observed);
            steps.push(step);
            if stop {
                break;
            }
        }
        (fold(&steps), ran)
    }

    fn observe(&mut self, hook: Hook, kind: CallKind, payload: Json) {
        let cancel = self.cancel.clone();
        self.observers.spawn(async move {
            let run = run_hook(&hook, kind, &payload, &cancel).await;
            if !matches!(run.outcome, Outcome::Answered(_)) {
                tracing::info!(
                    "observer `{}` {} (ignored)",
                    hook.name,
                    run.outcome.describe()
                );
            }
        });
    }

    pub async fn before_call(&mut self, request: &ProviderRequest) -> (Decision, Vec<String>) {
        let payload = provider_payload(HookPhase::BeforeCall, request, None);
        self.phase(HookPhase::BeforeCall, payload).await
    }

    pub async fn after_call(
        &mut self,
        request: &ProviderRequest,
        response: &ProviderResponse,
    ) -> (Decision, Vec<String>) {
        let payload = provider_payload(HookPhase::AfterCall, request, Some(response));
        self.phase(HookPhase::AfterCall, payload).await
    }

    pub async fn before_execution(&mut self, call: &ToolCallInfo) -> (Decision, Vec<String>) {
        let payload = tool_payload(HookPhase::BeforeExecution, call, None);
        self.phase(HookPhase::BeforeExecution, payload).await
    }

    pub async fn after_execution(
        &mut self,
        call: &ToolCallInfo,
        result: &ToolResultInfo,
    ) -> (Decision, Vec<String>) {
        let payload = tool_payload(HookPhase::AfterExecution, call, Some(result));
        self.phase(HookPhase::AfterExecution, payload).await
    }

    /// Session hooks only observe.
    pub async fn session(&mut self, phase: HookPhase, event: &SessionInfo) {
        let payload = session_payload(phase, event);
        let _ = self.phase(phase, payload).await;
    }

    /// Eval hooks get each EvalResult, fire and forget.
    pub fn eval_result(&mut self, result: &Json) {
        let hooks: Vec<Hook> = self
            .hooks
            .iter()
            .filter(|h| matches!(h.kind, HookKind::Eval))
            .cloned()
            .collect();
        for hook in hooks {
            self.observe(hook, CallKind::EvalHook, result.clone());
        }
    }

    /// Waits for the observers still running; each ends by its own deadline.
    pub async fn finish(&mut self) {
        while self.observers.join_next().await.is_some() {}
    }
}
