//! What a JSON-RPC hook may answer, read by one pure function per kind of method, and
//! what a failed hook amounts to under its failure policy.

use serde_json::Value as Json;

use crate::config::{Intercept, OnFailure};

crate::wire_enum! {
    /// The `action` an interceptor answers with, by name.
    pub enum ActionKind {
        Continue = "continue",
        Modify = "modify",
        Respond = "respond",
        DenyTool = "deny_tool",
        AbortTurn = "abort_turn",
        HardAbort = "hard_abort",
    }
}

/// Why a JSON-RPC hook's answer cannot be read; the hook counts as failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AnswerError {
    #[error("the answer has no `action`: {0}")]
    NoAction(Json),
    #[error("unknown action `{0}`")]
    UnknownAction(String),
    #[error("`{action}` is only for before_tool, not {intercept}")]
    OnlyBeforeTool {
        action: ActionKind,
        intercept: Intercept,
    },
    #[error("`modify` is not an answer to {0}")]
    ModifyNotAllowed(Intercept),
    #[error("`modify` needs the new `{0}` object")]
    ModifyWithout(&'static str),
    #[error("`respond` needs a `result`")]
    RespondWithoutResult,
    #[error("the answer has no boolean `approved`: {0}")]
    NoApproved(Json),
}

/// An interceptor's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Continue,
    /// The replacement for what the method carried: the request (`before_llm`), the
    /// response (`after_llm`), the call (`before_tool`) or the result (`after_tool`).
    Modify(Json),
    /// `before_tool` only: this result stands for the tool's; the tool and
    /// `after_tool` are skipped.
    Respond {
        call: Option<Json>,
        result: Json,
    },
    /// `before_tool` only: the model is told the call was denied and why.
    DenyTool {
        reason: String,
    },
    AbortTurn {
        reason: String,
    },
    HardAbort {
        reason: String,
    },
}

impl Action {
    pub fn kind(&self) -> ActionKind {
        match self {
            Action::Continue => ActionKind::Continue,
            Action::Modify(_) => ActionKind::Modify,
            Action::Respond { .. } => ActionKind::Respond,
            Action::DenyTool { .. } => ActionKind::DenyTool,
            Action::AbortTurn { .. } => ActionKind::AbortTurn,
            Action::HardAbort { .. } => ActionKind::HardAbort,
        }
    }

    /// The action's wire name.
    pub fn name(&self) -> &'static str {
        self.kind().as_str()
    }
}

/// An approver's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    Approved,
    Denied { reason: String },
}

/// The key under which `modify` carries its replacement, per method.
fn modified_key(intercept: Intercept) -> Option<&'static str> {
    match intercept {
        Intercept::BeforeLlm => Some("request"),
        Intercept::AfterLlm => Some("response"),
        Intercept::BeforeTool => Some("call"),
        Intercept::AfterTool => Some("result"),
        Intercept::ApproveTool => None,
    }
}

/// Reads an interceptor's `result`. An unknown action, or one the method does not
/// allow, is an error for that hook.
pub fn read_action(intercept: Intercept, result: &Json) -> Result<Action, AnswerError> {
    let Some(action) = result.get("action").and_then(Json::as_str) else {
        return Err(AnswerError::NoAction(result.clone()));
    };
    let Some(kind) = ActionKind::from_wire(action) else {
        return Err(AnswerError::UnknownAction(action.to_string()));
    };
    let reason = || {
        result
            .get("reason")
            .and_then(Json::as_str)
            .unwrap_or("no reason given")
            .to_string()
    };
    let tool_only = |action: Action| match intercept {
        Intercept::BeforeTool => Ok(action),
        other => Err(AnswerError::OnlyBeforeTool {
            action: action.kind(),
            intercept: other,
        }),
    };
    match kind {
        ActionKind::Continue => Ok(Action::Continue),
        ActionKind::Modify => {
            let key = modified_key(intercept).ok_or(AnswerError::ModifyNotAllowed(intercept))?;
            let replacement = result
                .get(key)
                .filter(|v| v.is_object())
                .ok_or(AnswerError::ModifyWithout(key))?;
            Ok(Action::Modify(replacement.clone()))
        }
        ActionKind::Respond => {
            let answer = result
                .get("result")
                .ok_or(AnswerError::RespondWithoutResult)?;
            tool_only(Action::Respond {
                call: result.get("call").cloned(),
                result: answer.clone(),
            })
        }
        ActionKind::DenyTool => tool_only(Action::DenyTool { reason: reason() }),
        ActionKind::AbortTurn => Ok(Action::AbortTurn { reason: reason() }),
        ActionKind::HardAbort => Ok(Action::HardAbort { reason: reason() }),
    }
}

/// Reads an approver's `result`: only `"approved": true` approves and `false` denies;
/// an answer without a boolean `approved` is a failure of the hook (which, for an
/// approver, also denies).
pub fn read_approval(result: &Json) -> Result<Approval, AnswerError> {
    match result.get("approved") {
        Some(Json::Bool(true)) => Ok(Approval::Approved),
        Some(Json::Bool(false)) => Ok(Approval::Denied {
            reason: result
                .get("reason")
                .and_then(Json::as_str)
                .map_or_else(|| "not approved".to_string(), str::to_string),
        }),
        _ => Err(AnswerError::NoApproved(result.clone())),
    }
}

/// What a hook that failed (crashed, timed out, answered badly) amounts to. Approval
/// fails closed; interceptors are skipped unless the hook says `on_failure: deny`.
pub fn on_failure(intercept: Intercept, policy: OnFailure, hook: &str, why: &str) -> Action {
    let reason = format!("hook `{hook}` failed: {why}");
    match (intercept, policy) {
        (Intercept::ApproveTool | Intercept::BeforeTool, OnFailure::Deny) => {
            Action::DenyTool { reason }
        }
        (Intercept::ApproveTool, OnFailure::Skip) => Action::DenyTool { reason },
        (Intercept::BeforeLlm | Intercept::AfterLlm | Intercept::AfterTool, OnFailure::Deny) => {
            Action::AbortTurn { reason }
        }
        (
            Intercept::BeforeLlm
            | Intercept::AfterLlm
            | Intercept::BeforeTool
            | Intercept::AfterTool,
            OnFailure::Skip,
        ) => {
            tracing::warn!("{reason}; skipped");
            Action::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_action_of_every_method() {
        use Intercept::*;
        let cases = [
            (
                BeforeLlm,
                json!({"action": "modify", "request": {"tools": []}}),
                Ok("modify"),
            ),
            (
                AfterLlm,
                json!({"action": "modify", "response": {"content": "x"}}),
                Ok("modify"),
            ),
            (
                BeforeTool,
                json!({"action": "modify", "call": {"tool": "t"}}),
                Ok("modify"),
            ),
            (
                AfterTool,
                json!({"action": "modify", "result": {"for_llm": "x"}}),
                Ok("modify"),
            ),
            (
                BeforeTool,
                json!({"action": "respond", "result": {"for_llm": "cached"}}),
                Ok("respond"),
            ),
            (
                BeforeTool,
                json!({"action": "deny_tool", "reason": "no"}),
                Ok("deny_tool"),
            ),
            (
                AfterLlm,
                json!({"action": "abort_turn", "reason": "stop"}),
                Ok("abort_turn"),
            ),
            (AfterTool, json!({"action": "hard_abort"}), Ok("hard_abort")),
            (BeforeLlm, json!({"action": "continue"}), Ok("continue")),
            (
                BeforeLlm,
                json!({"action": "respond", "result": {}}),
                Err("only for before_tool"),
            ),
            (
                AfterTool,
                json!({"action": "deny_tool"}),
                Err("only for before_tool"),
            ),
            (
                BeforeTool,
                json!({"action": "modify"}),
                Err("needs the new `call`"),
            ),
            (
                BeforeTool,
                json!({"action": "explode"}),
                Err("unknown action `explode`"),
            ),
            (BeforeTool, json!({"ok": true}), Err("no `action`")),
        ];
        for (intercept, answer, expected) in cases {
            match (read_action(intercept, &answer), expected) {
                (Ok(action), Ok(name)) => assert_eq!(action.name(), name, "{answer}"),
                (Err(why), Err(part)) => {
                    let why = why.to_string();
                    assert!(why.contains(part), "{why} should say {part}")
                }
                (got, want) => panic!("{answer}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn only_a_true_approved_approves() {
        assert_eq!(
            read_approval(&json!({"approved": true})),
            Ok(Approval::Approved)
        );
        assert_eq!(
            read_approval(&json!({"approved": false, "reason": "writes need a person"})),
            Ok(Approval::Denied {
                reason: "writes need a person".into()
            })
        );
        assert!(read_approval(&json!({"approved": "yes"})).is_err());
        assert!(read_approval(&json!({})).is_err());
    }

    #[test]
    fn failures_skip_unless_told_to_deny_and_approval_fails_closed() {
        use Intercept::*;
        assert_eq!(
            on_failure(BeforeTool, OnFailure::Skip, "h", "timed out"),
            Action::Continue
        );
        assert!(matches!(
            on_failure(BeforeTool, OnFailure::Deny, "h", "x"),
            Action::DenyTool { .. }
        ));
        assert!(matches!(
            on_failure(BeforeLlm, OnFailure::Deny, "h", "x"),
            Action::AbortTurn { .. }
        ));
        let Action::DenyTool { reason } =
            on_failure(ApproveTool, OnFailure::Skip, "gate", "timed out")
        else {
            panic!("approval fails closed")
        };
        assert_eq!(reason, "hook `gate` failed: timed out");
    }
}
