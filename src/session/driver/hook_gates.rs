//! What the turn loop does with hook answers: who a phase consulted, hook
//! failures as extension failures, decisions as events, and the gates that end a
//! turn or the run.

use crate::config::HookPhase;
use crate::conversation::SessionInfo;
use crate::hooks::Gate;
use crate::session::{ExtensionKind, HookAction, Phase, SessionEvent, TurnEndReason};

use super::{SESSION_ID, Session, TurnEnd};

impl Session<'_> {
    /// Records who a phase consulted, then any hook failure reported since.
    pub(super) fn hooks_ran(&mut self, phase: impl Into<Phase>, hooks: Vec<String>) {
        self.hook_failures();
        if !hooks.is_empty() {
            let phase = phase.into();
            self.emit(SessionEvent::HooksRan { phase, hooks });
        }
    }

    /// Every hook that failed since the last look, as an extension failure.
    pub(super) fn hook_failures(&mut self) {
        for failure in self.hooks.take_failures() {
            self.emit(SessionEvent::ExtensionFailed {
                turn: failure.turn.unwrap_or(self.turn),
                kind: ExtensionKind::Hook,
                name: failure.hook,
                phase: failure.phase,
                reason: failure.reason,
                stderr_tail: failure.stderr_tail,
            });
        }
    }

    pub(super) fn hook_event(
        &mut self,
        phase: HookPhase,
        hook: &str,
        action: HookAction,
        reason: Option<String>,
    ) {
        self.emit(SessionEvent::Hook {
            phase: phase.into(),
            hook: hook.into(),
            action,
            reason,
        });
    }

    /// A gate that ends the turn or the run.
    pub(super) fn stop<T>(&mut self, phase: HookPhase, gate: Gate<T>, turn: u32) -> TurnEnd {
        let (end, action) = match gate {
            Gate::HardAbort { hook, reason } => {
                (TurnEnd::HardAborted { hook, reason }, HookAction::HardAbort)
            }
            Gate::AbortTurn { hook, reason } => {
                (TurnEnd::Aborted { hook, reason }, HookAction::AbortTurn)
            }
            Gate::DenyTool { hook, reason } => {
                (TurnEnd::Aborted { hook, reason }, HookAction::Deny)
            }
            Gate::Respond { hook, .. } => (
                TurnEnd::Aborted {
                    hook,
                    reason: format!("`respond` is not an answer at {phase}"),
                },
                HookAction::AbortTurn,
            ),
            Gate::Proceed(_) | Gate::Replaced { .. } => return TurnEnd::Answered,
        };
        if let TurnEnd::Aborted { hook, reason } | TurnEnd::HardAborted { hook, reason } = &end {
            let (hook, reason) = (hook.clone(), reason.clone());
            self.hook_event(phase, &hook, action, Some(reason));
        }
        let reason = if action == HookAction::HardAbort {
            TurnEndReason::Stopped
        } else {
            TurnEndReason::Aborted
        };
        self.end_turn(turn, reason);
        end
    }

    /// What session hooks see.
    pub(super) fn session_info(&self) -> SessionInfo {
        SessionInfo {
            session_id: SESSION_ID.into(),
            conversation_id: "conv_1".into(),
            messages: self.messages.clone(),
            turn_index: self.turn,
        }
    }
}
