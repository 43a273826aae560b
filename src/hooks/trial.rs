//! The engine of `hook test`: the planned payloads sent to one hook in turn, each
//! answer read into a [`HookReport`] exactly as a run reads it. An exec hook gets a
//! process per call; a JSON-RPC hook is started once, its handshake done, and asked
//! each method, then shut down however the calls end.

use serde_json::Value as Json;
use tokio_util::sync::CancellationToken;

use crate::config::{Hook, HookPhase, Intercept};

use super::call::{HookReport, call_exec, call_rpc, start_rpc};
use super::{ExecHook, RpcHook};

/// What `hook test` sends, built before anything starts.
#[derive(Debug, Clone)]
pub(crate) enum HookCalls {
    /// A payload per phase; `None` stands for an eval hook's single, implicit phase.
    Exec(Vec<(Option<HookPhase>, Json)>),
    /// Params per method of a JSON-RPC hook.
    Rpc(Vec<(Intercept, Json)>),
}

/// One hook and what to send it.
#[derive(Debug, Clone)]
pub(crate) struct HookTrialPlan {
    pub hook: Hook,
    pub calls: HookCalls,
    /// Cancelled when the command is interrupted: the call under way stops, the hook
    /// is shut down, and the trial ends [`HookTrialError::Interrupted`].
    pub stop: CancellationToken,
}

/// Why a trial has no reports.
#[derive(Debug, thiserror::Error)]
pub(crate) enum HookTrialError {
    #[error("interrupted")]
    Interrupted,
    #[error("hook `{0}` is not a server hook")]
    NotAServer(String),
    #[error("cannot start the async runtime")]
    Runtime(#[source] std::io::Error),
}

/// Sends every planned call in turn and returns a report per call; a JSON-RPC hook
/// whose handshake fails gives that failure as its only report.
pub(crate) fn run_trial(plan: &HookTrialPlan) -> Result<Vec<HookReport>, HookTrialError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(HookTrialError::Runtime)?;
    runtime.block_on(async {
        if plan.stop.is_cancelled() {
            return Err(HookTrialError::Interrupted);
        }
        match &plan.calls {
            HookCalls::Exec(calls) => exec_calls(&plan.hook, calls, &plan.stop).await,
            HookCalls::Rpc(calls) => rpc_calls(&plan.hook, calls, &plan.stop).await,
        }
    })
}

/// A process per call; a stop cancels the call under way and shuts its hook down.
async fn exec_calls(
    hook: &Hook,
    calls: &[(Option<HookPhase>, Json)],
    stop: &CancellationToken,
) -> Result<Vec<HookReport>, HookTrialError> {
    let cancel = CancellationToken::new();
    let mut reports = Vec::new();
    for (phase, payload) in calls {
        let exec = ExecHook::new(hook.clone());
        let call = call_exec(&exec, *phase, payload, &cancel);
        tokio::pin!(call);
        let report = tokio::select! {
            report = &mut call => report,
            () = stop.cancelled() => {
                cancel.cancel();
                call.await;
                exec.shutdown().await;
                return Err(HookTrialError::Interrupted);
            }
        };
        exec.shutdown().await;
        reports.push(report);
    }
    Ok(reports)
}

/// The handshake, then each call in turn; the server is shut down however it ends.
async fn rpc_calls(
    hook: &Hook,
    calls: &[(Intercept, Json)],
    stop: &CancellationToken,
) -> Result<Vec<HookReport>, HookTrialError> {
    let Some(rpc) = RpcHook::new(hook) else {
        return Err(HookTrialError::NotAServer(hook.name.clone()));
    };
    let work = async {
        if let Err(failed) = start_rpc(&rpc).await {
            return vec![failed];
        }
        let mut reports = Vec::new();
        for (intercept, params) in calls {
            reports.push(call_rpc(&rpc, *intercept, params.clone()).await);
        }
        reports
    };
    let outcome = tokio::select! {
        reports = work => Ok(reports),
        () = stop.cancelled() => Err(HookTrialError::Interrupted),
    };
    rpc.shutdown().await;
    outcome
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use serde_json::json;

    use super::*;
    use crate::config::{ExecSpec, HookKind, HookMode};
    use crate::hooks::HookDecision;

    /// The `check` fixtures' well-behaved exec hook as a provider filter.
    fn good_hook() -> Hook {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/check");
        let mut exec = ExecSpec::plain("python3", &dir);
        exec.args = vec![dir.join("good_hook.py").display().to_string()];
        Hook {
            name: "good_hook".into(),
            exec,
            env_values: Default::default(),
            priority: 0,
            kind: HookKind::Provider {
                phases: vec![HookPhase::BeforeCall],
                mode: HookMode::Filter,
            },
            pos: Default::default(),
        }
    }

    fn plan(calls: HookCalls) -> HookTrialPlan {
        HookTrialPlan {
            hook: good_hook(),
            calls,
            stop: CancellationToken::new(),
        }
    }

    #[test]
    fn each_planned_payload_gets_a_report_of_its_own() {
        let payload = json!({"hook": "provider", "phase": "before_call",
            "request": {"messages": [{"role": "user", "content": "hi"}]}});
        let calls = HookCalls::Exec(vec![
            (Some(HookPhase::BeforeCall), payload.clone()),
            (Some(HookPhase::BeforeCall), payload),
        ]);
        let reports = run_trial(&plan(calls)).expect("the trial ends");
        assert_eq!(reports.len(), 2);
        for report in &reports {
            assert_eq!(report.hook, "good_hook");
            assert_eq!(report.phase, "before_call");
            assert_eq!(report.decision, HookDecision::Allow, "{report:?}");
        }
    }

    #[test]
    fn an_exec_hook_is_no_server() {
        let outcome = run_trial(&plan(HookCalls::Rpc(Vec::new())));
        assert!(
            matches!(&outcome, Err(HookTrialError::NotAServer(name)) if name == "good_hook"),
            "{outcome:?}"
        );
    }

    #[test]
    fn a_stopped_plan_calls_nothing() {
        let plan = plan(HookCalls::Exec(vec![(
            Some(HookPhase::BeforeCall),
            json!({}),
        )]));
        plan.stop.cancel();
        assert!(matches!(run_trial(&plan), Err(HookTrialError::Interrupted)));
    }
}
