//! The comparable form of a request: what a replayed call must have in common with the
//! recorded one. Tool call ids are dropped (the model makes them up, and a replay hands
//! back the recorded ones anyway), as is anything that is only about display, such as
//! `parts`, which repeats the text.

use serde_json::Value as Json;

use super::{NormalizedMessage, NormalizedToolCall, NormalizedToolResult, RequestMatch};
use crate::provider::ModelCall;

impl RequestMatch {
    /// Everything a model call shows the model: the system prompt, the conversation
    /// from message `from` on (the earlier ones were compared before), and the names
    /// of the tools on offer.
    pub fn of_call(call: &ModelCall<'_>, from: usize) -> RequestMatch {
        let tools = call
            .tools
            .iter()
            .map(|tool| {
                tool["function"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string()
            })
            .collect();
        RequestMatch {
            system: Some(call.system_prompt.to_string()),
            from,
            messages: Some(call.messages.since(from).map(|m| normalize(&m)).collect()),
            tools: Some(tools),
        }
    }

    /// The content of the last user message among the messages kept, which content
    /// matching looks up; `None` when they hold none.
    pub fn last_user_content(&self) -> Option<&str> {
        self.messages
            .as_deref()?
            .iter()
            .rev()
            .find(|m| m.role == "user")
            .map(|m| m.content.as_str())
    }
}

/// A message of the session's history (the hook payload shape: `role`, `content`,
/// `tool_calls: [{id, name, args}]`, `tool_result: {id, name, content, error}`) in
/// comparable form.
pub fn normalize(message: &Json) -> NormalizedMessage {
    let tool_calls = message["tool_calls"]
        .as_array()
        .map(|calls| {
            calls
                .iter()
                .map(|call| NormalizedToolCall {
                    name: text(&call["name"]),
                    args: call["args"].clone(),
                })
                .collect()
        })
        .unwrap_or_default();
    let content = text(&message["content"]);
    // A tool message repeats its result as its content: kept once, so a difference
    // is shown once.
    let tool_result = message["tool_result"]
        .as_object()
        .map(|result| NormalizedToolResult {
            name: result.get("name").map(text).unwrap_or_default(),
            content: result
                .get("content")
                .map(text)
                .filter(|result| *result != content)
                .unwrap_or_default(),
            error: result
                .get("error")
                .map(text)
                .filter(|error| !error.is_empty()),
        });
    NormalizedMessage {
        role: text(&message["role"]),
        content,
        tool_calls,
        tool_result,
    }
}

/// A field as text: a string as it is, nothing as empty, anything else as its JSON.
fn text(value: &Json) -> String {
    match value {
        Json::String(text) => text.clone(),
        Json::Null => String::new(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::{History, assistant_message, message, tool_message};
    use serde_json::json;

    #[test]
    fn history_messages_lose_ids_and_parts_and_keep_what_the_model_reads() {
        let call = json!({"id": "call_9", "name": "lookup_order", "args": {"order_id": "A-1002"}});
        let messages = [
            message("user", "Where is A-1002?"),
            assistant_message("", &[call]),
            tool_message("call_9", "lookup_order", r#"{"status":"delayed"}"#, None),
            tool_message("call_10", "refund", "no such order", Some("no such order")),
        ];
        let normalized: Vec<Json> = messages
            .iter()
            .map(|m| serde_json::to_value(normalize(m)).expect("writes"))
            .collect();
        assert_eq!(
            normalized,
            [
                json!({"role": "user", "content": "Where is A-1002?"}),
                json!({"role": "assistant", "tool_calls": [{"name": "lookup_order", "args": {"order_id": "A-1002"}}]}),
                json!({"role": "tool", "content": "{\"status\":\"delayed\"}", "tool_result": {"name": "lookup_order"}}),
                json!({"role": "tool", "content": "no such order", "tool_result": {"name": "refund", "error": "no such order"}}),
            ]
        );
    }

    #[test]
    fn a_call_is_matched_by_prompt_messages_and_tool_names() {
        let history: History = vec![
            message("user", "first"),
            message("assistant", "ok"),
            message("user", "second"),
        ]
        .into();
        let tools = [
            json!({"type": "function", "function": {"name": "lookup_order", "parameters": {}}}),
            json!({"type": "function", "function": {"name": "refund"}}),
        ];
        let call = ModelCall {
            turn: 2,
            round: 1,
            system_prompt: "Be brief.",
            model: "fake-model",
            tool_choice: crate::conversation::ToolChoice::Auto,
            messages: &history,
            tools: &tools,
            stream: false,
        };
        let found = RequestMatch::of_call(&call, 0);
        assert_eq!(found.system.as_deref(), Some("Be brief."));
        assert_eq!(
            found.tools,
            Some(vec!["lookup_order".to_string(), "refund".to_string()])
        );
        assert_eq!(found.messages.as_ref().map(Vec::len), Some(3));
        assert_eq!(found.last_user_content(), Some("second"));
        assert_eq!(RequestMatch::default().last_user_content(), None);
    }
}
