//! The turn loop: user message, model call, tool calls, hooks at every phase, evals
//! at their triggers. It emits [`SessionEvent`]s and never prints; reports render
//! the events.

mod approval;
mod chaos;
mod driver;
mod event;
mod guardrails;
mod log;
mod replay;
mod status;

#[cfg(test)]
mod driver_tests;

pub use crate::config::{Phase, Place};
pub use crate::conversation::{HookAction, TurnEndReason};
pub use approval::{Approvals, Asker, Decision, PendingCall, ToolSet};
pub use chaos::{Chaos, FailureMode, SLOW_DELAY, ToolFailure};
pub use driver::{Session, TurnEnd};
pub use event::{ExtensionKind, SessionEvent};
pub use guardrails::{Blocked, DEFAULT_BLOCKED_MESSAGE, Guarded, Guardrails, PII_LEAKAGE};
pub use log::{EventLog, Events};
pub use replay::{EvalPoints, judged};
pub use status::CallStatus;
