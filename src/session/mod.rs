//! The turn loop: user message, model call, tool calls, hooks at every phase, evals
//! at their triggers. It emits [`SessionEvent`]s and never prints; reports render
//! the events.
//!
//! What it promises: one conversation played in the order PromptKit plays it, every
//! step told as an event the moment it happens, and a [`TurnEnd`] that says why each
//! turn stopped. Why it is shaped so: the driver only puts decisions in order; what
//! a hook's answer means (`hooks`), how a child ended (`exec`), what a check scores
//! (`evals`) are decided below it by functions that can be tested alone. Having one
//! event stream and no printing lets the human output, the JSON and JUnit reports,
//! transcripts and `eval --transcript` all come from the same record. Guardrails,
//! injected failures and approvals sit beside the loop, each behind a small type.

mod approval;
mod chaos;
mod driver;
mod event;
mod guardrails;
mod log;
mod replay;
mod status;
mod workflow;

#[cfg(test)]
mod driver_tests;
#[cfg(test)]
mod workflow_tests;

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
pub(crate) use workflow::workflow_of;
