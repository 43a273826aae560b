//! One call to a hook, and its answer read into a [`HookReport`]: the path `hook test`
//! and case files share, so a case sees exactly the decision `hook test` prints.

use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{Map, Value as Json, json};
use tokio_util::sync::CancellationToken;

use super::{
    Action, Approval, ExecAnswer, ExecHook, HookDecision, Intercepted, RpcHook, on_failure,
    read_exec_answer,
};
use crate::config::{Hook, HookKind, HookPhase, Intercept, ServerHook};
use crate::exec::{CallKind, Outcome};

/// What one call to a hook came to, as `hook test` prints it: the same for exec and
/// JSON-RPC hooks, so one script can read both.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct HookReport {
    pub hook: String,
    pub phase: String,
    pub decision: HookDecision,
    /// What the hook answered: a JSON-RPC hook's action, `approved` or `denied`;
    /// an exec hook's decision again; or `failed`.
    pub action: &'static str,
    pub reason: Option<String>,
    pub metadata: Map<String, Json>,
    /// What the pipeline would go on with after `modify` or `respond`.
    pub output: Option<Json>,
    pub duration_ms: u64,
    pub stderr_tail: String,
}

impl HookReport {
    /// A report of `decision` with nothing else known yet.
    pub(crate) fn new(hook: &str, phase: &str, decision: HookDecision, duration_ms: u64) -> Self {
        Self {
            hook: hook.to_string(),
            phase: phase.to_string(),
            decision,
            action: decision.as_str(),
            reason: None,
            metadata: Map::new(),
            output: None,
            duration_ms,
            stderr_tail: String::new(),
        }
    }
}

/// Sends `payload` to an exec hook at `phase` (`None`: an eval hook) and reads its
/// answer as a run would.
pub(crate) async fn call_exec(
    hook: &ExecHook,
    phase: Option<HookPhase>,
    payload: &Json,
    cancel: &CancellationToken,
) -> HookReport {
    let run = hook.run(call_kind(&hook.hook), payload, cancel).await;
    judge_exec(
        &hook.hook,
        phase,
        &run.outcome,
        run.duration,
        run.stderr_tail,
    )
}

/// Starts a JSON-RPC hook and does its handshake; a failure is reported as the
/// answer to `hook.hello`.
pub(crate) async fn start_rpc(rpc: &RpcHook) -> Result<(), HookReport> {
    let started = Instant::now();
    match rpc.start().await {
        Ok(_) => Ok(()),
        Err(why) => Err(failed_start(
            &rpc.hook,
            why.to_string(),
            started,
            rpc.stderr_tail(),
        )),
    }
}

/// Calls one method of a started JSON-RPC hook with `params`.
pub(crate) async fn call_rpc(rpc: &RpcHook, intercept: Intercept, params: Json) -> HookReport {
    let started = Instant::now();
    let answer = rpc.intercept(intercept, params).await;
    let mut report = judge_rpc(&rpc.hook, &rpc.server, intercept, answer, started);
    report.stderr_tail = rpc.stderr_tail();
    report
}

fn call_kind(hook: &Hook) -> CallKind {
    match hook.kind {
        HookKind::Eval => CallKind::EvalHook,
        _ => CallKind::Hook,
    }
}

/// A bare request or event that cannot be wrapped for its phase.
#[derive(Debug, thiserror::Error)]
#[error("for `{}` give the whole payload (with `hook`, `phase`, `request` and `response`)", phase.as_str())]
pub(crate) struct NeedsWholePayload {
    phase: HookPhase,
}

/// A whole payload (it has `hook`) goes as it is; a bare request or event is wrapped.
/// The error says what to give instead.
pub(crate) fn wrap_event(
    hook: &Hook,
    phase: Option<HookPhase>,
    event: Json,
) -> Result<Json, NeedsWholePayload> {
    if event.get("hook").is_some() {
        return Ok(event);
    }
    let Some(phase) = phase else {
        return Ok(event); // eval hooks receive the EvalResult itself
    };
    let (hook_type, section) = match (&hook.kind, phase) {
        (HookKind::Provider { .. }, HookPhase::BeforeCall) => ("provider", "request"),
        (HookKind::Tool { .. }, HookPhase::BeforeExecution) => ("tool", "request"),
        (HookKind::Session { .. }, _) => ("session", "event"),
        _ => return Err(NeedsWholePayload { phase }),
    };
    Ok(json!({"hook": hook_type, "phase": phase.as_str(), section: event}))
}

/// What the hook decided, as `hook test` reports it: read exactly as a run reads it
/// (a filter decides, an observer only fails or not).
fn judge_exec(
    hook: &Hook,
    phase: Option<HookPhase>,
    outcome: &Outcome,
    duration: Duration,
    stderr_tail: String,
) -> HookReport {
    let answer = read_exec_answer(hook, outcome);
    let mut report = HookReport::new(
        &hook.name,
        phase.map_or("eval", HookPhase::as_str),
        answer.decision(),
        duration.as_millis() as u64,
    );
    report.stderr_tail = stderr_tail;
    match answer {
        ExecAnswer::Denied { reason, metadata } => {
            report.reason = Some(reason);
            report.metadata = metadata;
        }
        ExecAnswer::Failed { reason } => report.reason = Some(reason),
        ExecAnswer::Allowed | ExecAnswer::Observed => {}
    }
    report
}

fn failed_start(hook: &Hook, why: String, started: Instant, stderr_tail: String) -> HookReport {
    let mut report = HookReport::new(
        &hook.name,
        "hook.hello",
        HookDecision::Failed,
        started.elapsed().as_millis() as u64,
    );
    report.reason = Some(why);
    report.stderr_tail = stderr_tail;
    report
}

/// What the server answered, as `hook test` reports it.
fn judge_rpc(
    hook: &Hook,
    server: &ServerHook,
    intercept: Intercept,
    answer: Intercepted,
    started: Instant,
) -> HookReport {
    let mut report = HookReport::new(
        &hook.name,
        intercept.as_str(),
        answer.decision(),
        started.elapsed().as_millis() as u64,
    );
    report.action = answer.answer_name();
    match answer {
        Intercepted::Approval(Approval::Approved) => {}
        Intercepted::Approval(Approval::Denied { reason }) => report.reason = Some(reason),
        Intercepted::Action(action) => match action {
            Action::Continue => {}
            Action::Modify(replacement) => report.output = Some(replacement),
            Action::Respond { result, .. } => report.output = Some(result),
            Action::DenyTool { reason }
            | Action::AbortTurn { reason }
            | Action::HardAbort { reason } => report.reason = Some(reason),
        },
        Intercepted::Failed { why, .. } => {
            let in_a_run = match on_failure(intercept, server.on_failure, &hook.name, &why) {
                Action::Continue => "skipped (and the run exits 3)",
                _ => "a denial (and the run exits 3)",
            };
            report.reason = Some(format!("{why}; in a run this is {in_a_run}"));
        }
    }
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_starts_with_its_decision_as_the_answer() {
        let report = HookReport::new("guard", "before_call", HookDecision::Deny, 4);
        let json = serde_json::to_value(&report).expect("a report serializes");
        assert_eq!(json["decision"], "deny");
        assert_eq!(json["action"], "deny");
    }
}
