//! What hooks receive on stdin, with exactly the reference's snake_case fields.

use serde::Serialize;
use serde_json::{Value as Json, json};

use crate::config::HookPhase;

/// A message in the shape hooks written for PromptKit read: the text in `content` and
/// again in `parts`.
pub fn message(role: &str, content: &str) -> Json {
    json!({
        "role": role,
        "content": content,
        "parts": [{"type": "text", "text": content}],
    })
}

#[derive(Debug, Clone, Serialize)]
pub struct ProviderRequest {
    pub provider_id: String,
    pub model: String,
    pub messages: Vec<Json>,
    pub system_prompt: String,
    pub round: u32,
}

#[derive(Debug, Clone, Serialize)]
pub struct ProviderResponse {
    pub provider_id: String,
    pub model: String,
    pub message: Json,
    pub latency_ms: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolCallInfo {
    pub name: String,
    pub args: Json,
    pub call_id: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct ToolResultInfo {
    pub name: String,
    pub call_id: String,
    /// The result as the model will see it: JSON text.
    pub content: String,
    pub latency_ms: u64,
    /// The tool did not answer ok; JSON-RPC hooks see it as `is_error`.
    #[serde(skip)]
    pub is_error: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct SessionInfo {
    pub session_id: String,
    pub conversation_id: String,
    pub messages: Vec<Json>,
    pub turn_index: u32,
}

pub fn provider_payload(
    phase: HookPhase,
    request: &ProviderRequest,
    response: Option<&ProviderResponse>,
) -> Json {
    let mut payload = json!({"hook": "provider", "phase": phase.as_str(), "request": request});
    if let Some(response) = response {
        payload["response"] = json!(response);
    }
    payload
}

pub fn tool_payload(
    phase: HookPhase,
    call: &ToolCallInfo,
    result: Option<&ToolResultInfo>,
) -> Json {
    let mut payload = json!({"hook": "tool", "phase": phase.as_str(), "request": call});
    if let Some(result) = result {
        payload["response"] = json!(result);
    }
    payload
}

pub fn session_payload(phase: HookPhase, event: &SessionInfo) -> Json {
    json!({"hook": "session", "phase": phase.as_str(), "event": event})
}

/// A call and its result for unit tests of what hooks see.
#[cfg(test)]
pub(super) mod samples {
    use super::*;

    pub fn call() -> ToolCallInfo {
        ToolCallInfo {
            name: "probe".into(),
            args: json!({"topic": "stock"}),
            call_id: "c1".into(),
        }
    }

    pub fn result(is_error: bool) -> ToolResultInfo {
        ToolResultInfo {
            name: "probe".into(),
            call_id: "c1".into(),
            content: "out of stock".into(),
            latency_ms: 4,
            is_error,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_use_the_reference_fields() {
        let call = ToolCallInfo {
            name: "db_query".into(),
            args: json!({"sql": "SELECT 1"}),
            call_id: "call_abc123".into(),
        };
        let result = ToolResultInfo {
            name: "db_query".into(),
            call_id: "call_abc123".into(),
            content: "{\"rows\": []}".into(),
            latency_ms: 120,
            is_error: false,
        };
        assert_eq!(
            tool_payload(HookPhase::AfterExecution, &call, Some(&result)),
            json!({
                "hook": "tool", "phase": "after_execution",
                "request": {"name": "db_query", "args": {"sql": "SELECT 1"}, "call_id": "call_abc123"},
                "response": {"name": "db_query", "call_id": "call_abc123", "content": "{\"rows\": []}", "latency_ms": 120}
            })
        );
        let request = ProviderRequest {
            provider_id: "mock".into(),
            model: "m".into(),
            messages: vec![message("user", "hi")],
            system_prompt: "Be brief.".into(),
            round: 1,
        };
        let payload = provider_payload(HookPhase::BeforeCall, &request, None);
        assert_eq!(payload["request"]["messages"][0]["parts"][0]["text"], "hi");
        assert_eq!(payload["request"]["system_prompt"], "Be brief.");
        assert!(payload.get("response").is_none());
    }
}
