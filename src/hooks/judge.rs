//! What one hook call came to, as a typed value: `hook test` reports it and picks its
//! exit code from it, and it reads answers exactly as a run does.

use serde_json::{Map, Value as Json};

use crate::config::{Hook, HookKind, HookMode};
use crate::exec::Outcome;

use super::action::{Action, Approval};
use super::decide::{Step, step_for};
use super::rpc_hook::Intercepted;

crate::wire_enum! {
    /// How a hook's answer ends for the pipeline.
    pub enum HookDecision {
        Allow = "allow",
        Deny = "deny",
        /// An observer answered; observers cannot block.
        Ack = "ack",
        Failed = "failed",
    }
}

/// What one exec hook call came to.
#[derive(Debug, Clone, PartialEq)]
pub enum ExecAnswer {
    Allowed,
    Denied {
        reason: String,
        metadata: Map<String, Json>,
    },
    /// An observer's call ended well; what it printed has no say.
    Observed,
    Failed {
        reason: String,
    },
}

impl ExecAnswer {
    pub fn decision(&self) -> HookDecision {
        match self {
            ExecAnswer::Allowed => HookDecision::Allow,
            ExecAnswer::Denied { .. } => HookDecision::Deny,
            ExecAnswer::Observed => HookDecision::Ack,
            ExecAnswer::Failed { .. } => HookDecision::Failed,
        }
    }
}

/// Reads one exec hook call's outcome: a filter's answer as a run reads it (its
/// failure denies); an observer only fails when its process does.
pub fn read_exec_answer(hook: &Hook, outcome: &Outcome) -> ExecAnswer {
    let mode = match &hook.kind {
        HookKind::Provider { mode, .. } | HookKind::Tool { mode, .. } => *mode,
        HookKind::Session { .. } | HookKind::Eval | HookKind::Server(_) => HookMode::Observe,
    };
    match mode {
        HookMode::Filter => match step_for(&hook.name, mode, outcome) {
            Step::Allow | Step::Observed => ExecAnswer::Allowed,
            Step::Deny {
                reason, metadata, ..
            } => ExecAnswer::Denied { reason, metadata },
            Step::Failed { reason, .. } => ExecAnswer::Failed {
                reason: format!("hook `{}` failed: {reason}", hook.name),
            },
        },
        HookMode::Observe => match outcome {
            Outcome::Answered(_) => ExecAnswer::Observed,
            // An eval hook's stdout is ignored, so only the process itself can fail.
            Outcome::InvalidOutput { .. } if matches!(hook.kind, HookKind::Eval) => {
                ExecAnswer::Observed
            }
            other => ExecAnswer::Failed {
                reason: other.describe(),
            },
        },
    }
}

impl Intercepted {
    /// How this answer ends for the pipeline (before any failure policy).
    pub fn decision(&self) -> HookDecision {
        match self {
            Intercepted::Approval(Approval::Approved) => HookDecision::Allow,
            Intercepted::Approval(Approval::Denied { .. }) => HookDecision::Deny,
            Intercepted::Action(Action::Continue | Action::Modify(_) | Action::Respond { .. }) => {
                HookDecision::Allow
            }
            Intercepted::Action(
                Action::DenyTool { .. } | Action::AbortTurn { .. } | Action::HardAbort { .. },
            ) => HookDecision::Deny,
            Intercepted::Failed { .. } => HookDecision::Failed,
        }
    }

    /// What the hook answered, by name: its action, `approved`, `denied` or `failed`.
    pub fn answer_name(&self) -> &'static str {
        match self {
            Intercepted::Action(action) => action.name(),
            Intercepted::Approval(Approval::Approved) => "approved",
            Intercepted::Approval(Approval::Denied { .. }) => "denied",
            Intercepted::Failed { .. } => HookDecision::Failed.as_str(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ExecSpec, HookPhase};
    use serde_json::json;
    use std::time::Duration;

    fn hook(kind: HookKind) -> Hook {
        let exec = ExecSpec::plain("h", "/");
        Hook {
            name: "guard".into(),
            exec,
            env_values: Default::default(),
            priority: 0,
            kind,
            pos: Default::default(),
        }
    }

    fn tool(mode: HookMode) -> Hook {
        hook(HookKind::Tool {
            phases: vec![HookPhase::BeforeExecution],
            mode,
        })
    }

    #[test]
    fn a_filter_is_read_as_a_run_reads_it() {
        let filter = tool(HookMode::Filter);
        let allow = Outcome::Answered(json!({"allow": true}));
        assert_eq!(read_exec_answer(&filter, &allow), ExecAnswer::Allowed);
        let deny = Outcome::Answered(json!({"allow": false, "reason": "no"}));
        let denied = read_exec_answer(&filter, &deny);
        assert_eq!(denied.decision(), HookDecision::Deny);
        let bad = read_exec_answer(&filter, &Outcome::Answered(json!({})));
        let ExecAnswer::Failed { reason } = &bad else {
            panic!("a malformed answer fails: {bad:?}")
        };
        assert!(
            reason.starts_with("hook `guard` failed: invalid answer"),
            "{reason}"
        );
    }

    #[test]
    fn an_observer_fails_only_when_its_process_does() {
        let observer = tool(HookMode::Observe);
        let anything = Outcome::Answered(json!({"allow": false}));
        assert_eq!(read_exec_answer(&observer, &anything), ExecAnswer::Observed);
        let timed_out = Outcome::TimedOut {
            after: Duration::from_millis(5),
            nothing_read: false,
        };
        assert_eq!(
            read_exec_answer(&observer, &timed_out).decision(),
            HookDecision::Failed
        );
        let unread = Outcome::InvalidOutput {
            offset: 0,
            reason: "empty".into(),
        };
        assert_eq!(
            read_exec_answer(&hook(HookKind::Eval), &unread),
            ExecAnswer::Observed
        );
        assert_eq!(
            read_exec_answer(&observer, &unread).decision(),
            HookDecision::Failed
        );
    }

    #[test]
    fn interceptor_answers_have_a_decision_and_a_name() {
        let cases = [
            (
                Intercepted::Action(Action::Continue),
                "continue",
                HookDecision::Allow,
            ),
            (
                Intercepted::Action(Action::Modify(json!({}))),
                "modify",
                HookDecision::Allow,
            ),
            (
                Intercepted::Action(Action::AbortTurn { reason: "x".into() }),
                "abort_turn",
                HookDecision::Deny,
            ),
            (
                Intercepted::Approval(Approval::Approved),
                "approved",
                HookDecision::Allow,
            ),
            (
                Intercepted::Approval(Approval::Denied { reason: "x".into() }),
                "denied",
                HookDecision::Deny,
            ),
            (
                Intercepted::Failed {
                    why: "x".into(),
                    stderr_tail: String::new(),
                },
                "failed",
                HookDecision::Failed,
            ),
        ];
        for (answer, name, decision) in cases {
            assert_eq!(answer.answer_name(), name);
            assert_eq!(answer.decision(), decision, "{name}");
        }
    }
}
