//! Runs hooks at each phase. Exec hooks and JSON-RPC hooks form one chain, ordered by
//! `priority` then declaration: filter hooks and interceptors run one by one, each
//! seeing what the one before left (a `modify` replaces the request, call, response
//! or result); the first hook that stops the phase decides. Observers run beside the
//! pipeline, bounded by their own deadlines.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value as Json, json};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::config::{Hook, HookKind, HookMode, HookPhase, Intercept};
use crate::exec::{self, Call, CallKind, Outcome};

use super::action::{Action, Approval, on_failure};
use super::payload::{
    ProviderRequest, ProviderResponse, SessionInfo, ToolCallInfo, ToolResultInfo, provider_payload,
    session_payload, tool_payload,
};
use super::rpc_hook::{Intercepted, RpcHook};
use super::{Decision, Step, fold, step_for};

/// One hook process run to the end.
#[derive(Debug, Clone)]
pub struct HookRun {
    pub outcome: Outcome,
    pub duration: Duration,
    pub stderr_tail: String,
}

/// Sends `payload` to a one-shot `hook` once.
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
enum Entry {
    Exec(Box<Hook>),
    Rpc(Arc<RpcHook>),
}

/// The hooks of one run, called by the conversation driver at every phase.
pub struct HookDispatcher {
    chain: Vec<Entry>,
    observers: JoinSet<()>,
    cancel: CancellationToken,
}

/// Where in the pipeline a chain runs.
#[derive(Clone, Copy)]
struct Stage {
    phase: HookPhase,
    intercept: Intercept,
    deny_means: DenyMeans,
}

/// What an exec filter's denial means at each phase.
#[derive(Clone, Copy)]
enum DenyMeans {
    AbortTurn,
    DenyTool,
    /// The value is withheld and replaced by a notice.
    Withhold,
}

impl HookDispatcher {
    pub fn new(hooks: impl IntoIterator<Item = Hook>, cancel: CancellationToken) -> Self {
        let chain = ordered(hooks)
            .into_iter()
            .map(|hook| match RpcHook::new(&hook) {
                Some(rpc) => Entry::Rpc(Arc::new(rpc)),
                None => Entry::Exec(Box::new(hook)),
            })
            .collect();
        Self {
            chain,
            observers: JoinSet::new(),
            cancel,
        }
    }

    /// Starts every JSON-RPC hook (handshake included) before the run needs it.
    pub async fn start(&self) -> Result<(), String> {
        for entry in &self.chain {
            if let Entry::Rpc(rpc) = entry {
                rpc.start().await?;
            }
        }
        Ok(())
    }

    /// Runs the exec hooks subscribed to `phase`: filters in turn, observers beside.
    /// Returns the first stopping step, if any, and records who ran.
    async fn exec_step(
        &mut self,
        hook: &Hook,
        phase: HookPhase,
        payload: &Json,
        ran: &mut Vec<String>,
    ) -> Option<Step> {
        let mode = match &hook.kind {
            HookKind::Provider { phases, mode } | HookKind::Tool { phases, mode } => {
                phases.contains(&phase).then_some(*mode)?
            }
            HookKind::Session { phases } => phases.contains(&phase).then_some(HookMode::Observe)?,
            HookKind::Eval | HookKind::Server(_) => return None,
        };
        if mode == HookMode::Observe {
            self.observe(hook.clone(), CallKind::Hook, payload.clone());
            return None;
        }
        let run = run_hook(hook, CallKind::Hook, payload, &self.cancel).await;
        ran.push(hook.name.clone());
        let step = step_for(&hook.name, mode, &run.outcome);
        if let Step::Failed { reason, .. } = &step {
            tracing::warn!(
                "filter hook `{}` failed at {}: {reason}",
                hook.name,
                phase.as_str()
            );
        }
        (!matches!(step, Step::Allow | Step::Observed)).then_some(step)
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

    /// The RPC hooks that intercept `intercept`, in chain order.
    fn interceptors(&self, intercept: Intercept) -> Vec<Arc<RpcHook>> {
        self.chain
            .iter()
            .filter_map(|e| match e {
                Entry::Rpc(rpc) if rpc.intercepts(intercept) => Some(Arc::clone(rpc)),
                _ => None,
            })
            .collect()
    }

    /// One interceptor's action, with its failure policy applied.
    async fn ask(
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
            Intercepted::Failed(why) => {
                on_failure(intercept, rpc.server.on_failure, &rpc.hook.name, &why)
            }
        }
    }

    /// Runs one phase over the chain. `payload` builds an exec hook's stdin from the
    /// current value, `params` an interceptor's params, and `apply` takes a `modify`.
    async fn chain<T: Clone>(
        &mut self,
        stage: Stage,
        mut value: T,
        payload: impl Fn(&T) -> Json,
        params: impl Fn(&T) -> Json,
        apply: impl Fn(&mut T, Json),
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
                    let hook = hook.as_ref().clone();
                    if let Some(step) = self
                        .exec_step(&hook, phase, &payload(&value), &mut ran)
                        .await
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
            let gate = match Self::ask(&rpc, intercept, params(&value), &mut ran).await {
                Action::Continue => continue,
                Action::Modify(replacement) => {
                    apply(&mut value, replacement);
                    continue;
                }
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

    /// Before the model is called: the request and the tools offered (interceptors
    /// may add tools of their own).
    pub async fn before_call(
        &mut self,
        request: ProviderRequest,
        tools: Vec<Json>,
    ) -> Phase<(ProviderRequest, Vec<Json>)> {
        self.chain(
            Stage {
                phase: HookPhase::BeforeCall,
                intercept: Intercept::BeforeLlm,
                deny_means: DenyMeans::AbortTurn,
            },
            (request, tools),
            |(r, _)| provider_payload(HookPhase::BeforeCall, r, None),
            |(r, tools)| {
                json!({"meta": meta(r.round), "model": r.model, "messages": r.messages, "tools": tools,
                       "options": {}, "channel": "cli", "chat_id": "chat-1"})
            },
            |(r, tools), new| {
                if let Some(Json::Array(messages)) = new.get("messages") {
                    r.messages = messages.clone();
                }
                if let Some(Json::Array(new_tools)) = new.get("tools") {
                    *tools = new_tools.clone();
                }
                if let Some(Json::String(model)) = new.get("model") {
                    r.model = model.clone();
                }
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
        self.chain(
            Stage {
                phase: HookPhase::AfterCall,
                intercept: Intercept::AfterLlm,
                deny_means: DenyMeans::AbortTurn,
            },
            response,
            |resp| provider_payload(HookPhase::AfterCall, request, Some(resp)),
            |resp| json!({"meta": meta(round), "model": resp.model, "response": resp.message, "channel": "cli", "chat_id": "chat-1"}),
            |resp, new| resp.message = new,
        )
        .await
    }

    /// Before a tool runs: the call, then every approver on the call as it stands.
    pub async fn before_execution(&mut self, call: ToolCallInfo) -> Phase<ToolCallInfo> {
        let mut phase = self
            .chain(
                Stage {
                    phase: HookPhase::BeforeExecution,
                    intercept: Intercept::BeforeTool,
                    deny_means: DenyMeans::DenyTool,
                },
                call,
                |c| tool_payload(HookPhase::BeforeExecution, c, None),
                tool_params,
                |c, new| {
                    if let Some(Json::String(name)) = new.get("tool") {
                        c.name = name.clone();
                    }
                    if let Some(args) = new.get("arguments") {
                        c.args = args.clone();
                    }
                },
            )
            .await;
        let Gate::Proceed(call) = &phase.gate else {
            return phase;
        };
        let call = call.clone();
        for rpc in self.interceptors(Intercept::ApproveTool) {
            match Self::ask(
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
        self.chain(
            Stage {
                phase: HookPhase::AfterExecution,
                intercept: Intercept::AfterTool,
                deny_means: DenyMeans::Withhold,
            },
            result,
            |r| tool_payload(HookPhase::AfterExecution, call, Some(r)),
            |r| {
                let mut params = tool_params(call);
                params["result"] = json!({"for_llm": r.content, "for_user": "", "silent": false, "is_error": false});
                params["duration"] = json!(r.latency_ms * 1_000_000);
                params
            },
            |r, new| {
                r.content = match new.get("for_llm") {
                    Some(Json::String(text)) => text.clone(),
                    Some(other) => other.to_string(),
                    None => new.to_string(),
                }
            },
        )
        .await
    }

    /// Session hooks only observe; returns the names of those notified.
    pub async fn session(&mut self, phase: HookPhase, event: &SessionInfo) -> Vec<String> {
        let payload = session_payload(phase, event);
        let hooks: Vec<Hook> = self
            .chain
            .iter()
            .filter_map(|e| match e {
                Entry::Exec(h) => Some(h.as_ref().clone()),
                Entry::Rpc(_) => None,
            })
            .collect();
        let mut notified = Vec::new();
        for hook in hooks {
            if matches!(&hook.kind, HookKind::Session { phases } if phases.contains(&phase)) {
                notified.push(hook.name.clone());
                self.observe(hook, CallKind::Hook, payload.clone());
            }
        }
        notified
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
        let hooks: Vec<Hook> = self
            .chain
            .iter()
            .filter_map(|e| match e {
                Entry::Exec(h) if matches!(h.kind, HookKind::Eval) => Some(h.as_ref().clone()),
                _ => None,
            })
            .collect();
        hooks
            .into_iter()
            .map(|hook| {
                let name = hook.name.clone();
                self.observe(hook, CallKind::EvalHook, result.clone());
                name
            })
            .collect()
    }

    /// Waits for the observers still running (each ends by its own deadline), stops
    /// the JSON-RPC hooks, and returns how many events could not be delivered.
    pub async fn finish(&mut self) -> u64 {
        while self.observers.join_next().await.is_some() {}
        let mut dropped = 0;
        for entry in &self.chain {
            if let Entry::Rpc(rpc) = entry {
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
        dropped
    }
}

/// The exec filter's stopping step, folded into a decision, as the phase's gate.
fn exec_gate<T>(step: Step, deny_means: DenyMeans, value: T) -> Gate<T> {
    let Decision::Deny {
        hook,
        reason,
        enforced,
        replacement,
        ..
    } = fold(&[step])
    else {
        return Gate::Proceed(value);
    };
    match (deny_means, enforced) {
        (DenyMeans::Withhold, _) | (DenyMeans::AbortTurn, true) => Gate::Replaced {
            hook,
            reason,
            replacement,
            value,
        },
        (DenyMeans::AbortTurn, false) => Gate::AbortTurn { hook, reason },
        (DenyMeans::DenyTool, _) => Gate::DenyTool { hook, reason },
    }
}

fn meta(iteration: u32) -> Json {
    json!({"AgentID": "promptexec", "TurnID": "turn-1", "SessionKey": "sess_1", "Iteration": iteration})
}

fn tool_params(call: &ToolCallInfo) -> Json {
    json!({"meta": meta(0), "tool": call.name, "arguments": call.args, "channel": "cli", "chat_id": "chat-1"})
}

/// A hook that failed (crash, non-zero exit, invalid output, timeout, spawn failure,
/// JSON-RPC error reply or unreadable answer), wherever it ran.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct HookFailure {
    pub hook: String,
    pub phase: String,
    pub reason: String,
    pub stderr_tail: String,
}

impl HookDispatcher {
    /// The failures recorded since the last call.
    pub fn take_failures(&mut self) -> Vec<HookFailure> {
        Vec::new()
    }
}
