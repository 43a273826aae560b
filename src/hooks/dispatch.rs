//! Runs hooks at each phase. Exec hooks and JSON-RPC hooks form one chain, ordered by
//! `priority` then declaration: filter hooks and interceptors run one by one, each
//! seeing what the one before left (a `modify` replaces the request, call, response
//! or result); the first hook that stops the phase decides. Observers hear their events
//! through their own queues, beside the pipeline (see `observer`). Every hook failure is
//! recorded, whatever its policy made of it, for the run to report.

use std::sync::Arc;

use serde_json::{Value as Json, json};
use tokio_util::sync::CancellationToken;

use crate::config::{Hook, HookKind, HookMode, HookPhase, Intercept};
use crate::exec::CallKind;

use super::action::{Action, Approval, on_failure};
use super::failure::{Failures, HookFailure};
use super::observer::Observers;
use super::payload::{
    ProviderRequest, ProviderResponse, SessionInfo, ToolCallInfo, ToolResultInfo, provider_payload,
    session_payload, tool_payload,
};
use super::rpc_hook::{Intercepted, RpcHook};
use super::runner::ExecHook;
use super::shape::{openai_message, read_arguments, read_message};
use super::{Decision, Step, fold, step_for};

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
    Exec(Arc<ExecHook>),
    Rpc(Arc<RpcHook>),
}

/// The hooks of one run, called by the conversation driver at every phase.
pub struct HookDispatcher {
    chain: Vec<Entry>,
    observers: Observers,
    failures: Failures,
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

/// How one phase turns values into what hooks see, and reads back a `modify`.
struct Shapes<'f, T> {
    /// An exec hook's stdin for the current value.
    payload: &'f dyn Fn(&T) -> Json,
    /// An interceptor's params for the current value.
    params: &'f dyn Fn(&T) -> Json,
    /// The value after an interceptor's `modify`; an error when it cannot be read.
    apply: &'f dyn Fn(&T, Json) -> Result<T, String>,
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
    pub async fn start(&self) -> Result<(), String> {
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

    /// Runs one exec hook subscribed to `phase`: a filter in turn, an observer queued.
    /// Returns its stopping step, if any, and records who ran.
    async fn exec_step(
        &mut self,
        hook: &Arc<ExecHook>,
        phase: HookPhase,
        payload: &Json,
        ran: &mut Vec<String>,
    ) -> Option<Step> {
        let mode = match &hook.hook.kind {
            HookKind::Provider { phases, mode } | HookKind::Tool { phases, mode } => {
                phases.contains(&phase).then_some(*mode)?
            }
            HookKind::Session { phases } => phases.contains(&phase).then_some(HookMode::Observe)?,
            HookKind::Eval | HookKind::Server(_) => return None,
        };
        if mode == HookMode::Observe {
            self.observers
                .send(hook, CallKind::Hook, phase.as_str(), payload.clone());
            return None;
        }
        let name = &hook.hook.name;
        let run = hook.run(CallKind::Hook, payload, &self.cancel).await;
        ran.push(name.clone());
        let step = step_for(name, mode, &run.outcome);
        if let Step::Failed { reason, .. } = &step {
            tracing::warn!(
                "filter hook `{name}` failed at {}: {reason}",
                phase.as_str()
            );
            self.failures.record(HookFailure::new(
                name,
                phase.as_str(),
                reason,
                &run.stderr_tail,
            ));
        }
        (!matches!(step, Step::Allow | Step::Observed)).then_some(step)
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
            intercept.as_str(),
            why,
            stderr,
        ));
        on_failure(intercept, rpc.server.on_failure, &rpc.hook.name, why)
    }

    /// Runs one phase over the chain, each hook seeing what the one before left.
    async fn chain<T: Clone>(
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
                    let payload = (shapes.payload)(&value);
                    if let Some(step) = self.exec_step(&hook, phase, &payload, &mut ran).await {
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
            let messages: Vec<Json> = r.messages.iter().map(openai_message).collect();
            json!({"meta": meta(r.round), "model": r.model, "messages": messages, "tools": tools,
                   "options": {}, "channel": "cli", "chat_id": "chat-1"})
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
        let params = |resp: &ProviderResponse| {
            json!({"meta": meta(round), "model": resp.model, "response": openai_message(&resp.message),
                   "channel": "cli", "chat_id": "chat-1"})
        };
        let apply = |resp: &ProviderResponse, new: Json| {
            Ok(ProviderResponse {
                message: read_message(&new)?,
                ..resp.clone()
            })
        };
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
                apply: &apply,
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
        let params = |r: &ToolResultInfo| {
            let mut params = tool_params(call);
            params["result"] = tool_result(r);
            params["duration"] = json!(r.latency_ms * 1_000_000);
            params
        };
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
    pub async fn session(&mut self, phase: HookPhase, event: &SessionInfo) -> Vec<String> {
        let payload = session_payload(phase, event);
        let mut notified = Vec::new();
        for hook in self.exec_hooks() {
            if matches!(&hook.hook.kind, HookKind::Session { phases } if phases.contains(&phase)) {
                notified.push(hook.hook.name.clone());
                self.observers
                    .send(&hook, CallKind::Hook, phase.as_str(), payload.clone());
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
        let mut notified = Vec::new();
        for hook in self.exec_hooks() {
            if matches!(hook.hook.kind, HookKind::Eval) {
                notified.push(hook.hook.name.clone());
                self.observers
                    .send(&hook, CallKind::EvalHook, "eval", result.clone());
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

/// The request and tools after a `before_llm` `modify`: what it gives replaces what
/// was there, and every message and tool must be readable.
fn modified_request(
    (request, tools): &(ProviderRequest, Vec<Json>),
    new: Json,
) -> Result<(ProviderRequest, Vec<Json>), String> {
    let mut request = request.clone();
    let mut tools = tools.clone();
    match new.get("messages") {
        None => {}
        Some(Json::Array(messages)) => {
            request.messages = messages
                .iter()
                .map(read_message)
                .collect::<Result<_, _>>()?;
        }
        Some(other) => return Err(format!("`messages` must be a list, found {other}")),
    }
    match new.get("tools") {
        None => {}
        Some(Json::Array(new_tools)) if new_tools.iter().all(Json::is_object) => {
            tools = new_tools.clone();
        }
        Some(other) => return Err(format!("`tools` must be a list of objects, found {other}")),
    }
    match new.get("model") {
        None => {}
        Some(Json::String(model)) => request.model = model.clone(),
        Some(other) => return Err(format!("`model` must be text, found {other}")),
    }
    Ok((request, tools))
}

/// The call after a `before_tool` `modify`: a tool name and arguments (an object, or
/// JSON text of one), each optional.
fn modified_call(call: &ToolCallInfo, new: Json) -> Result<ToolCallInfo, String> {
    let mut call = call.clone();
    match new.get("tool") {
        None => {}
        Some(Json::String(name)) if !name.is_empty() => call.name = name.clone(),
        Some(other) => return Err(format!("`tool` must be a tool name, found {other}")),
    }
    if let Some(args) = new.get("arguments") {
        call.args = read_arguments(args)?;
    }
    Ok(call)
}

/// The result after an `after_tool` `modify`: its `for_llm` text is what the model sees.
fn modified_result(result: &ToolResultInfo, new: Json) -> Result<ToolResultInfo, String> {
    match new.get("for_llm") {
        Some(Json::String(text)) => Ok(ToolResultInfo {
            content: text.clone(),
            ..result.clone()
        }),
        Some(other) => Err(format!("`for_llm` must be text, found {other}")),
        None => Err("the new `result` has no `for_llm` text".into()),
    }
}

/// A tool's result with every field of PicoClaw's ToolResult, as `after_tool` sees it.
pub fn tool_result(result: &ToolResultInfo) -> Json {
    json!({
        "for_llm": result.content,
        "for_user": "",
        "silent": false,
        "is_error": result.is_error,
        "async": false,
        "media": [],
        "artifact_tags": [],
        "response_handled": false,
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::message;

    fn call() -> ToolCallInfo {
        ToolCallInfo {
            name: "probe".into(),
            args: json!({"topic": "stock"}),
            call_id: "c1".into(),
        }
    }

    fn result(is_error: bool) -> ToolResultInfo {
        ToolResultInfo {
            name: "probe".into(),
            call_id: "c1".into(),
            content: "out of stock".into(),
            latency_ms: 4,
            is_error,
        }
    }

    #[test]
    fn a_modified_call_takes_arguments_as_an_object_or_json_text_of_one() {
        let text = modified_call(&call(), json!({"arguments": "{\"topic\": \"x\"}"})).expect("ok");
        assert_eq!(text.args, json!({"topic": "x"}));
        let renamed = modified_call(&call(), json!({"tool": "other"})).expect("ok");
        assert_eq!(
            (renamed.name.as_str(), renamed.args),
            ("other", json!({"topic": "stock"}))
        );
        for bad in [
            json!({"arguments": "[1]"}),
            json!({"arguments": 3}),
            json!({"tool": 7}),
            json!({"tool": ""}),
        ] {
            assert!(modified_call(&call(), bad.clone()).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_modified_result_needs_for_llm_text() {
        let new = modified_result(&result(false), json!({"for_llm": "[redacted]"})).expect("ok");
        assert_eq!(new.content, "[redacted]");
        assert!(modified_result(&result(false), json!({"for_user": "x"})).is_err());
        assert!(modified_result(&result(false), json!({"for_llm": {"rows": []}})).is_err());
    }

    #[test]
    fn a_modified_request_is_read_whole_or_not_at_all() {
        let request = ProviderRequest {
            provider_id: "mock".into(),
            model: "m".into(),
            messages: vec![message("user", "hi")],
            system_prompt: String::new(),
            round: 1,
        };
        let value = (request, Vec::new());
        let new = json!({"model": "m2", "messages": [{"role": "user", "content": "hello"}],
                         "tools": [{"type": "function", "function": {"name": "faq"}}]});
        let (request, tools) = modified_request(&value, new).expect("readable");
        assert_eq!(request.model, "m2");
        assert_eq!(request.messages[0]["parts"][0]["text"], "hello");
        assert_eq!(tools.len(), 1);
        for bad in [
            json!({"messages": "hello"}),
            json!({"messages": [{"role": "assistant", "tool_calls": [{"id": "c1"}]}]}),
            json!({"tools": ["faq"]}),
            json!({"model": 4}),
        ] {
            assert!(modified_request(&value, bad.clone()).is_err(), "{bad}");
        }
    }

    #[test]
    fn after_tool_sees_every_tool_result_field() {
        let fields = tool_result(&result(true));
        assert_eq!(fields["is_error"], true);
        assert_eq!(fields["for_llm"], "out of stock");
        let mut keys: Vec<&String> = fields.as_object().expect("object").keys().collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "artifact_tags",
                "async",
                "for_llm",
                "for_user",
                "is_error",
                "media",
                "response_handled",
                "silent"
            ]
        );
    }
}
