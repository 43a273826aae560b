//! The conversation's vocabulary, shared by every layer above it: the history and its
//! messages, what a model call, a tool call and a session are as hooks and providers
//! see them, the names of the events a conversation emits and the words for how its
//! steps ended. It imports nothing of promptexec's own but `wire_enum!`, so any
//! module may use it, and hooks, providers and the session speak of one conversation.

mod calls;
mod events;
mod history;
mod judged;
mod messages;
mod outcomes;
mod workflow;

pub(crate) use calls::{
    ProviderRequest, ProviderResponse, SessionInfo, ToolCallInfo, ToolChoice, ToolResultInfo,
};
pub(crate) use events::{EVENT_NAMES, runtime_name, selects, selects_any};
pub(crate) use history::History;
pub(crate) use judged::{EvalInput, HookRecord, ToolCallRecord};
pub(crate) use messages::{assistant_message, message, tool_message, tool_message_with_parts};
pub use outcomes::{HookAction, TurnEndReason};
pub(crate) use workflow::{StateMark, TransitionRecord, WorkflowRecord};
