//! Messages in the shape hooks written for PromptKit read, which is also how the
//! history holds them and how transcripts show them.

use serde_json::{Value as Json, json};

/// A message in the shape hooks written for PromptKit read: the text in `content` and
/// again in `parts`.
pub(crate) fn message(role: &str, content: &str) -> Json {
    json!({
        "role": role,
        "content": content,
        "parts": [{"type": "text", "text": content}],
    })
}

/// An assistant message: its text, and the calls it makes (`[{"id", "name", "args"}]`)
/// when there are any.
pub(crate) fn assistant_message(content: &str, tool_calls: &[Json]) -> Json {
    let mut msg = message("assistant", content);
    if !tool_calls.is_empty() {
        msg["tool_calls"] = Json::Array(tool_calls.to_vec());
    }
    msg
}

/// A tool's result as the model reads it; `error` holds the text again when the call
/// did not succeed.
pub(crate) fn tool_message(call_id: &str, name: &str, content: &str, error: Option<&str>) -> Json {
    let mut msg = message("tool", content);
    msg["tool_result"] = json!({"id": call_id, "name": name, "content": content, "error": error});
    msg
}

/// [`tool_message`] with the content parts the tool returned beside the result, kept
/// in the result's `parts` when there are any.
pub(crate) fn tool_message_with_parts(
    call_id: &str,
    name: &str,
    content: &str,
    error: Option<&str>,
    parts: &[Json],
) -> Json {
    let mut msg = tool_message(call_id, name, content, error);
    if !parts.is_empty() {
        msg["tool_result"]["parts"] = Json::Array(parts.to_vec());
    }
    msg
}
