//! Reading back an interceptor's `modify`: the replacement must be readable whole,
//! or the hook counts as failed and nothing it gave is used.

use serde_json::Value as Json;

use super::shape::{ArgumentsError, ShapeError, read_arguments, read_message};
use crate::conversation::{ProviderRequest, ProviderResponse, ToolCallInfo, ToolResultInfo};

/// Why a `modify` cannot be applied.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModifyError {
    #[error("`messages` must be a list, found {0}")]
    MessagesNotAList(Json),
    #[error("`tools` must be a list of objects, found {0}")]
    ToolsNotObjects(Json),
    #[error("`model` must be text, found {0}")]
    ModelNotText(Json),
    #[error("`tool` must be a tool name, found {0}")]
    ToolNotAName(Json),
    #[error("`for_llm` must be text, found {0}")]
    ForLlmNotText(Json),
    #[error("the new `result` has no `for_llm` text")]
    NoForLlm,
    #[error(transparent)]
    Shape(#[from] ShapeError),
    #[error(transparent)]
    Arguments(#[from] ArgumentsError),
}

/// The request and tools after a `before_llm` `modify`: what it gives replaces what
/// was there, and every message and tool must be readable.
pub(super) fn modified_request(
    (request, tools): &(ProviderRequest, Vec<Json>),
    new: Json,
) -> Result<(ProviderRequest, Vec<Json>), ModifyError> {
    let mut request = request.clone();
    let mut tools = tools.clone();
    match new.get("messages") {
        None => {}
        Some(Json::Array(messages)) => {
            request.messages = messages
                .iter()
                .map(read_message)
                .collect::<Result<_, _>>()?;
        }
        Some(other) => return Err(ModifyError::MessagesNotAList(other.clone())),
    }
    match new.get("tools") {
        None => {}
        Some(Json::Array(new_tools)) if new_tools.iter().all(Json::is_object) => {
            tools = new_tools.clone();
        }
        Some(other) => return Err(ModifyError::ToolsNotObjects(other.clone())),
    }
    match new.get("model") {
        None => {}
        Some(Json::String(model)) => request.model = model.clone(),
        Some(other) => return Err(ModifyError::ModelNotText(other.clone())),
    }
    Ok((request, tools))
}

/// The call after a `before_tool` `modify`: a tool name and arguments (an object, or
/// JSON text of one), each optional.
pub(super) fn modified_call(call: &ToolCallInfo, new: Json) -> Result<ToolCallInfo, ModifyError> {
    let mut call = call.clone();
    match new.get("tool") {
        None => {}
        Some(Json::String(name)) if !name.is_empty() => call.name = name.clone(),
        Some(other) => return Err(ModifyError::ToolNotAName(other.clone())),
    }
    if let Some(args) = new.get("arguments") {
        call.args = read_arguments(args)?;
    }
    Ok(call)
}

/// The result after an `after_tool` `modify`: its `for_llm` text is what the model sees.
pub(super) fn modified_result(
    result: &ToolResultInfo,
    new: Json,
) -> Result<ToolResultInfo, ModifyError> {
    match new.get("for_llm") {
        Some(Json::String(text)) => Ok(ToolResultInfo {
            content: text.clone(),
            ..result.clone()
        }),
        Some(other) => Err(ModifyError::ForLlmNotText(other.clone())),
        None => Err(ModifyError::NoForLlm),
    }
}

/// The response after an `after_llm` `modify`: the new message, read like any other.
pub(super) fn modified_response(
    response: &ProviderResponse,
    new: Json,
) -> Result<ProviderResponse, ModifyError> {
    Ok(ProviderResponse {
        message: read_message(&new)?,
        ..response.clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::message;
    use crate::hooks::payload::samples::{call, result};
    use serde_json::json;

    #[test]
    fn a_modified_call_takes_arguments_as_an_object_or_json_text_of_one() {
        let text = modified_call(&call(), json!({"arguments": "{\"topic\": \"x\"}"})).expect("ok");
        assert_eq!(text.args, json!({"topic": "x"}));
        let renamed = modified_call(&call(), json!({"tool": "other"})).expect("ok");
        assert_eq!(
            (renamed.name.as_str(), renamed.args),
            ("other", json!({"topic": "stock"}))
        );
        for bad in [
            json!({"arguments": "[1]"}),
            json!({"arguments": 3}),
            json!({"tool": 7}),
            json!({"tool": ""}),
        ] {
            assert!(modified_call(&call(), bad.clone()).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_modified_result_needs_for_llm_text() {
        let new = modified_result(&result(false), json!({"for_llm": "[redacted]"})).expect("ok");
        assert_eq!(new.content, "[redacted]");
        assert!(modified_result(&result(false), json!({"for_user": "x"})).is_err());
        assert!(modified_result(&result(false), json!({"for_llm": {"rows": []}})).is_err());
    }

    #[test]
    fn a_modified_request_is_read_whole_or_not_at_all() {
        let request = ProviderRequest {
            provider_id: "mock".into(),
            model: "m".into(),
            messages: vec![message("user", "hi")].into(),
            system_prompt: String::new(),
            round: 1,
        };
        let value = (request, Vec::new());
        let new = json!({"model": "m2", "messages": [{"role": "user", "content": "hello"}],
                         "tools": [{"type": "function", "function": {"name": "faq"}}]});
        let (request, tools) = modified_request(&value, new).expect("readable");
        assert_eq!(request.model, "m2");
        assert_eq!(
            request.messages.get(0).expect("a message")["parts"][0]["text"],
            "hello"
        );
        assert_eq!(tools.len(), 1);
        for bad in [
            json!({"messages": "hello"}),
            json!({"messages": [{"role": "assistant", "tool_calls": [{"id": "c1"}]}]}),
            json!({"tools": ["faq"]}),
            json!({"model": 4}),
        ] {
            assert!(modified_request(&value, bad.clone()).is_err(), "{bad}");
        }
    }
}
