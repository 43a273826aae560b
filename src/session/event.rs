use serde::Serialize;
use serde_json::Value as Json;

use crate::provider::Rule;

/// Everything that happens in a session, in order.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum SessionEvent {
    User {
        turn: u32,
        content: String,
    },
    ModelCall {
        turn: u32,
        round: u32,
        #[serde(skip)]
        rule: Rule,
    },
    Assistant {
        turn: u32,
        content: String,
        tool_calls: Vec<Json>,
    },
    /// A hook changed what happens next: stopped, replaced, answered for a tool.
    Hook {
        phase: String,
        hook: String,
        action: String,
        reason: Option<String>,
    },
    ToolCall {
        name: String,
        call_id: String,
        args: Json,
        status: String,
        content: String,
        duration_ms: u64,
    },
    TurnEnd {
        turn: u32,
        reason: String,
    },
}
