//! Tool calls as JSON-RPC hooks see them. PicoClaw's protocol uses the OpenAI shape,
//! `{"id", "type": "function", "function": {"name", "arguments": "<JSON text>"}}`; the
//! rest of promptexec (and exec hooks) use `{"id", "name", "args"}`. Calls go out in
//! the OpenAI shape and come back in either; anything else is an error, so a hook's
//! `modify` is never half-read.

use serde_json::{Map, Value as Json, json};

/// Why tool arguments cannot be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ArgumentsError {
    #[error("arguments must be a JSON object, found {0}")]
    NotAnObject(Json),
    #[error("arguments are not valid JSON ({why}): {text}")]
    NotJson { why: String, text: String },
}

/// Why a tool call or message a hook returned cannot be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ShapeError {
    #[error("a tool call must be an object, found {0}")]
    CallNotAnObject(Json),
    #[error("a tool call needs a text `id`: {0}")]
    CallWithoutId(Json),
    #[error("`function` must be an object, found {0}")]
    FunctionNotAnObject(Json),
    #[error("tool call `{0}` has no tool name")]
    CallWithoutName(String),
    #[error("tool call `{id}`: {why}")]
    CallArguments { id: String, why: ArgumentsError },
    #[error("a message must be an object, found {0}")]
    MessageNotAnObject(Json),
    #[error("a message's `content` must be text, found {0}")]
    ContentNotText(Json),
    #[error("`tool_calls` must be a list, found {0}")]
    ToolCallsNotAList(Json),
}

/// `call` (`{id, name, args}`) in the OpenAI shape.
pub fn openai_call(call: &Json) -> Json {
    let arguments = match call.get("args") {
        Some(Json::String(text)) => text.clone(),
        Some(args) => args.to_string(),
        None => "{}".into(),
    };
    json!({
        "id": call.get("id").cloned().unwrap_or(Json::Null),
        "type": "function",
        "function": {"name": call.get("name").cloned().unwrap_or(Json::Null), "arguments": arguments},
    })
}

/// `message` with its tool calls, if any, in the OpenAI shape.
pub(super) fn openai_message(message: &Json) -> Json {
    let mut message = message.clone();
    if let Some(Json::Array(calls)) = message.get("tool_calls") {
        message["tool_calls"] = calls.iter().map(openai_call).collect();
    }
    message
}

/// Reads a tool call in either shape as `{id, name, args}`.
pub fn read_call(call: &Json) -> Result<Json, ShapeError> {
    let Json::Object(fields) = call else {
        return Err(ShapeError::CallNotAnObject(call.clone()));
    };
    let id = match fields.get("id") {
        Some(Json::String(id)) if !id.is_empty() => id.clone(),
        _ => return Err(ShapeError::CallWithoutId(call.clone())),
    };
    let (name, args) = match fields.get("function") {
        Some(Json::Object(function)) => (function.get("name"), function.get("arguments")),
        Some(other) => return Err(ShapeError::FunctionNotAnObject(other.clone())),
        None => (
            fields.get("name"),
            fields.get("args").or_else(|| fields.get("arguments")),
        ),
    };
    let name = match name {
        Some(Json::String(name)) if !name.is_empty() => name.clone(),
        _ => return Err(ShapeError::CallWithoutName(id)),
    };
    let args = match args {
        None => json!({}),
        Some(args) => read_arguments(args).map_err(|why| ShapeError::CallArguments {
            id: id.clone(),
            why,
        })?,
    };
    Ok(json!({"id": id, "name": name, "args": args}))
}

/// Tool arguments: a JSON object, or a JSON string holding one.
pub(super) fn read_arguments(args: &Json) -> Result<Json, ArgumentsError> {
    match args {
        Json::Object(_) => Ok(args.clone()),
        Json::String(text) => match serde_json::from_str::<Json>(text) {
            Ok(object @ Json::Object(_)) => Ok(object),
            Ok(other) => Err(ArgumentsError::NotAnObject(other)),
            Err(why) => Err(ArgumentsError::NotJson {
                why: why.to_string(),
                text: text.clone(),
            }),
        },
        other => Err(ArgumentsError::NotAnObject(other.clone())),
    }
}

/// Reads a message a hook returned: an object whose `content` is text, whose tool
/// calls are readable (they come back as `{id, name, args}`), and whose text part
/// follows `content`.
pub(super) fn read_message(message: &Json) -> Result<Json, ShapeError> {
    let Json::Object(fields) = message else {
        return Err(ShapeError::MessageNotAnObject(message.clone()));
    };
    let mut fields: Map<String, Json> = fields.clone();
    let content = match fields.get("content") {
        None | Some(Json::Null) => String::new(),
        Some(Json::String(text)) => text.clone(),
        Some(other) => return Err(ShapeError::ContentNotText(other.clone())),
    };
    match fields.get("tool_calls") {
        None | Some(Json::Null) => {
            fields.remove("tool_calls");
        }
        Some(Json::Array(calls)) => {
            let calls = calls.iter().map(read_call).collect::<Result<Vec<_>, _>>()?;
            fields.insert("tool_calls".into(), Json::Array(calls));
        }
        Some(other) => return Err(ShapeError::ToolCallsNotAList(other.clone())),
    }
    fields.insert("content".into(), Json::String(content.clone()));
    fields.insert("parts".into(), parts_for(&content, fields.get("parts")));
    Ok(Json::Object(fields))
}

/// The text part for `content`, then any other parts the message had.
fn parts_for(content: &str, parts: Option<&Json>) -> Json {
    let mut all = vec![json!({"type": "text", "text": content})];
    if let Some(Json::Array(parts)) = parts {
        all.extend(
            parts
                .iter()
                .filter(|p| p.get("type") != Some(&json!("text")))
                .cloned(),
        );
    }
    Json::Array(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_go_out_in_the_openai_shape_and_come_back_either_way() {
        let ours = json!({"id": "c1", "name": "probe", "args": {"topic": "stock"}});
        let theirs = openai_call(&ours);
        assert_eq!(
            theirs,
            json!({"id": "c1", "type": "function",
                   "function": {"name": "probe", "arguments": "{\"topic\":\"stock\"}"}})
        );
        assert_eq!(read_call(&theirs), Ok(ours.clone()));
        assert_eq!(read_call(&ours), Ok(ours));
    }

    #[test]
    fn unreadable_calls_are_errors() {
        let cases = [
            (json!("probe"), "must be an object"),
            (json!({"name": "probe"}), "needs a text `id`"),
            (
                json!({"id": "c1", "function": {"arguments": "{}"}}),
                "no tool name",
            ),
            (
                json!({"id": "c1", "function": "probe"}),
                "`function` must be an object",
            ),
            (
                json!({"id": "c1", "function": {"name": "p", "arguments": "{not json"}}),
                "not valid JSON",
            ),
            (
                json!({"id": "c1", "function": {"name": "p", "arguments": "[1, 2]"}}),
                "must be a JSON object",
            ),
            (
                json!({"id": "c1", "name": "p", "args": 7}),
                "must be a JSON object",
            ),
        ];
        for (call, part) in cases {
            let why = read_call(&call).expect_err("unreadable").to_string();
            assert!(why.contains(part), "{call}: {why} should say {part}");
        }
    }

    #[test]
    fn a_returned_message_is_checked_and_its_text_part_follows_its_content() {
        let message = json!({"role": "assistant", "content": "new text",
            "parts": [{"type": "text", "text": "old text"}],
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "p", "arguments": "{\"a\":1}"}}]});
        let read = read_message(&message).expect("readable");
        assert_eq!(read["parts"], json!([{"type": "text", "text": "new text"}]));
        assert_eq!(
            read["tool_calls"][0],
            json!({"id": "c1", "name": "p", "args": {"a": 1}})
        );
        assert!(read_message(&json!({"content": 3})).is_err());
        assert!(read_message(&json!({"content": "x", "tool_calls": {}})).is_err());
        assert!(read_message(&json!(["x"])).is_err());
    }

    #[test]
    fn messages_without_calls_go_out_unchanged() {
        let message = json!({"role": "user", "content": "hi"});
        assert_eq!(openai_message(&message), message);
    }
}
