//! The turn loop: user message, model call, tool calls, hooks at every phase. It
//! emits [`SessionEvent`]s and never prints; reports render the events.

mod driver;
mod event;

pub use driver::{Session, TurnEnd};
pub use event::SessionEvent;
