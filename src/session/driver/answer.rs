//! The model's answer as hooks see it, and the tool calls that stand in it after
//! them.

use serde_json::{Value as Json, json};

use crate::conversation::assistant_message;
use crate::provider::{AssistantMessage, ModelError, ToolCall};
use crate::session::TurnEndReason;

use super::{Session, TurnEnd};

impl Session<'_> {
    /// The model gave no answer: the turn ends and the run stops (exit 3).
    pub(super) fn model_failed(&mut self, turn: u32, round: u32, err: ModelError) -> TurnEnd {
        self.hooks.event(
            "error",
            &json!({"Kind": "provider", "Name": self.provider_id, "Error": err.to_string()}),
        );
        tracing::debug!("model call {round} of turn {turn} failed: {err}");
        self.end_turn(turn, TurnEndReason::ModelFailed);
        TurnEnd::Failed {
            reason: err.to_string(),
        }
    }
}

/// The answer as a hook payload's assistant message.
pub(super) fn assistant_json(answer: &AssistantMessage) -> Json {
    let calls: Vec<Json> = answer
        .tool_calls
        .iter()
        .map(|c| json!({"id": c.id, "name": c.name, "args": c.args}))
        .collect();
    assistant_message(&answer.content, &calls)
}

/// The tool calls of the (possibly modified) assistant message.
pub(super) fn tool_calls_of(message: &Json, original: &AssistantMessage) -> Vec<ToolCall> {
    match message.get("tool_calls").and_then(Json::as_array) {
        Some(calls) => calls
            .iter()
            .filter_map(|c| {
                Some(ToolCall {
                    id: c.get("id")?.as_str()?.to_string(),
                    name: c.get("name")?.as_str()?.to_string(),
                    args: c.get("args").cloned().unwrap_or(json!({})),
                })
            })
            .collect(),
        None if message.get("content").is_some() => Vec::new(),
        None => original.tool_calls.clone(),
    }
}
