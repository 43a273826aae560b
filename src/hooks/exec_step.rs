//! One exec hook's turn in the chain: a filter is called (one process, or `execute` on
//! its server) and its answer read as a step; an observer is queued and never waits.

use std::sync::Arc;

use serde_json::Value as Json;

use crate::config::{HookKind, HookMode, HookPhase};
use crate::exec::CallKind;

use super::chain::{DenyMeans, Gate};
use super::dispatch::HookDispatcher;
use super::failure::HookFailure;
use super::runner::ExecHook;
use super::{Decision, Step, fold, step_for};

/// How `hook` takes part in `phase`: as a filter or an observer, or not at all. Asked
/// before its payload is made, which may hold the whole history.
pub(super) fn mode_at(hook: &ExecHook, phase: HookPhase) -> Option<HookMode> {
    match &hook.hook.kind {
        HookKind::Provider { phases, mode } | HookKind::Tool { phases, mode } => {
            phases.contains(&phase).then_some(*mode)
        }
        HookKind::Session { phases } => phases.contains(&phase).then_some(HookMode::Observe),
        HookKind::Eval | HookKind::Server(_) => None,
    }
}

impl HookDispatcher {
    /// Runs one exec hook that takes part in `phase` as `mode`: a filter in turn, an
    /// observer queued. Returns its stopping step, if any, and records who ran.
    pub(super) async fn exec_step(
        &mut self,
        hook: &Arc<ExecHook>,
        (phase, mode): (HookPhase, HookMode),
        payload: &Json,
        ran: &mut Vec<String>,
    ) -> Option<Step> {
        if mode == HookMode::Observe {
            // Queued as text: compact, and no tree of values waits in the queue.
            let text = payload.to_string().into();
            self.observers
                .send(hook, CallKind::Hook, phase.into(), text);
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
                phase.into(),
                reason,
                &run.stderr_tail,
            ));
        }
        (!matches!(step, Step::Allow | Step::Observed)).then_some(step)
    }
}

/// The exec filter's stopping step, folded into a decision, as the phase's gate.
pub(super) fn exec_gate<T>(step: Step, deny_means: DenyMeans, value: T) -> Gate<T> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, json};

    fn deny(enforced: bool) -> Step {
        let mut metadata = Map::new();
        metadata.insert("replacement".into(), json!("[withheld]"));
        Step::Deny {
            hook: "guard".into(),
            reason: "no".into(),
            enforced,
            metadata,
        }
    }

    #[test]
    fn a_denial_means_what_the_phase_makes_of_it() {
        let deny_tool = exec_gate(deny(false), DenyMeans::DenyTool, 1);
        assert_eq!(
            deny_tool,
            Gate::DenyTool {
                hook: "guard".into(),
                reason: "no".into()
            }
        );
        let abort = exec_gate(deny(false), DenyMeans::AbortTurn, 1);
        assert!(matches!(abort, Gate::AbortTurn { .. }), "{abort:?}");
        let Gate::Replaced {
            replacement, value, ..
        } = exec_gate(deny(true), DenyMeans::AbortTurn, 1)
        else {
            panic!("an enforced denial goes on")
        };
        assert_eq!((replacement.as_deref(), value), (Some("[withheld]"), 1));
        let withheld = exec_gate(deny(false), DenyMeans::Withhold, 1);
        assert!(
            matches!(
                withheld,
                Gate::Replaced {
                    replacement: None,
                    ..
                }
            ),
            "{withheld:?}"
        );
        assert_eq!(
            exec_gate(Step::Allow, DenyMeans::DenyTool, 1),
            Gate::Proceed(1)
        );
    }
}
