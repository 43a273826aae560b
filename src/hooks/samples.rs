//! The realistic payloads `hook test`, `check` and case files send when no `--event` is given: a short
//! support conversation, a tool call with arguments, a session with messages, or an
//! eval result, in the exec hook shapes and the JSON-RPC method shapes.

use serde_json::{Value as Json, json};

use super::{
    after_llm_params, after_tool_params, before_llm_params, provider_payload, session_payload,
    tool_params, tool_payload,
};
use crate::config::{HookPhase, Intercept, Provider, RuntimeConfig};
use crate::conversation::{
    ProviderRequest, ProviderResponse, SessionInfo, ToolCallInfo, ToolResultInfo, message,
};

/// The config's first tool, else a made-up one.
fn tool(config: &RuntimeConfig) -> String {
    config
        .tools
        .keys()
        .next()
        .cloned()
        .unwrap_or_else(|| "lookup_order".into())
}

/// A realistic payload: a short support conversation, a tool call with arguments, a
/// session with messages, or an eval result.
pub(crate) fn payload(phase: Option<HookPhase>, config: &RuntimeConfig) -> Json {
    let (provider_id, model) = Provider::hook_names(config.default_provider());
    let messages = vec![
        message(
            "user",
            "Hi, where is my order A-1002? It was due last week.",
        ),
        message("assistant", "Let me look that order up for you."),
    ];
    let request = ProviderRequest {
        provider_id: provider_id.clone(),
        model: model.clone(),
        messages: messages.clone().into(),
        system_prompt: "You are the support assistant of Acme Outfitters.".into(),
        round: 1,
    };
    let tool = tool(config);
    let call = ToolCallInfo {
        name: tool.clone(),
        args: json!({"order_id": "A-1002"}),
        call_id: format!("call_1_{tool}"),
    };
    match phase {
        None => json!({
            "eval_id": "mentions-order",
            "type": "contains",
            "score": 1.0,
            "passed": true,
            "duration_ms": 3,
            "explanation": "the reply mentions A-1002",
            "details": {"patterns": ["A-"]},
        }),
        Some(p @ HookPhase::BeforeCall) => provider_payload(p, &request, None),
        Some(p @ HookPhase::AfterCall) => {
            let response = ProviderResponse {
                provider_id,
                model,
                message: message(
                    "assistant",
                    "Your order A-1002 is delayed; it should ship on Friday.",
                ),
                latency_ms: 420,
            };
            provider_payload(p, &request, Some(&response))
        }
        Some(p @ HookPhase::BeforeExecution) => tool_payload(p, &call, None),
        Some(p @ HookPhase::AfterExecution) => {
            let result = ToolResultInfo {
                name: tool.clone(),
                call_id: call.call_id.clone(),
                content: json!({"order_id": "A-1002", "status": "delayed"}).to_string(),
                latency_ms: 120,
                is_error: false,
            };
            tool_payload(p, &call, Some(&result))
        }
        Some(p @ (HookPhase::SessionStart | HookPhase::SessionUpdate | HookPhase::SessionEnd)) => {
            let turn_index = match p {
                HookPhase::SessionStart => 0,
                _ => 1,
            };
            let event = SessionInfo {
                session_id: "sess_1".into(),
                conversation_id: "conv_1".into(),
                messages: if turn_index == 0 {
                    Default::default()
                } else {
                    messages.into()
                },
                turn_index,
            };
            session_payload(p, &event)
        }
    }
}

/// Realistic params for each method, built by the same functions a run uses.
pub(crate) fn params(intercept: Intercept, config: &RuntimeConfig) -> Json {
    let (_, model) = Provider::hook_names(config.default_provider());
    let tool = tool(config);
    let call = ToolCallInfo {
        name: tool.clone(),
        args: json!({"order_id": "A-1002"}),
        call_id: "call_1".into(),
    };
    match intercept {
        Intercept::BeforeLlm => {
            let tools: Vec<Json> = config
                .tools
                .keys()
                .map(|name| json!({"type": "function", "function": {"name": name, "description": "", "parameters": {"type": "object"}}}))
                .collect();
            let messages = [json!({"role": "user", "content": "Hi, where is my order A-1002?"})];
            before_llm_params(0, &model, &messages, &tools)
        }
        Intercept::AfterLlm => {
            let answer = json!({"role": "assistant", "content": "Let me look that up.",
                "tool_calls": [{"id": call.call_id, "name": call.name, "args": call.args}]});
            after_llm_params(0, &model, &answer)
        }
        Intercept::BeforeTool | Intercept::ApproveTool => tool_params(&call),
        Intercept::AfterTool => {
            let result = ToolResultInfo {
                name: tool,
                call_id: call.call_id.clone(),
                content: "{\"status\": \"delayed\"}".into(),
                latency_ms: 120,
                is_error: false,
            };
            after_tool_params(&call, &result)
        }
    }
}
