//! The conversation's vocabulary, shared by every layer above it: the names of the
//! events a conversation emits and the words for how its steps ended. It imports
//! nothing of promptexec's own but `wire_enum!`, so any module may use it.

mod events;
mod outcomes;

pub use events::{EVENT_NAMES, runtime_name, selects, selects_any};
pub use outcomes::{HookAction, TurnEndReason};
