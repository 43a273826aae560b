//! What evals see of a workflow: the state it is in, whether that state ends it,
//! every transition so far, and which state spoke each answer and made each tool
//! call.

use serde::{Deserialize, Serialize};

/// The workflow as it stood when an eval ran.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct WorkflowRecord {
    pub current_state: String,
    /// The current state is terminal: the workflow is complete.
    pub complete: bool,
    /// Every transition, in order.
    pub transitions: Vec<TransitionRecord>,
    /// The state of each assistant answer with text, in order.
    pub spoken: Vec<StateMark>,
    /// The state each tool call was made in, in order.
    pub tool_calls: Vec<StateMark>,
}

/// A move from one state to another.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TransitionRecord {
    pub from: String,
    pub to: String,
    pub event: String,
    pub turn: u32,
    /// The state the event led to when `max_visits` sent the workflow elsewhere.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirected_from: Option<String>,
}

/// Something that happened in a state: an answer spoken, or a tool called (`name`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StateMark {
    pub turn: u32,
    pub state: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}
