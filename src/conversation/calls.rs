//! What a model call, a tool call and a session are as hooks, providers and evals
//! are shown them, with exactly the reference's snake_case fields.

use serde::Serialize;
use serde_json::Value as Json;

use super::History;

#[derive(Debug, Clone, Serialize)]
pub struct ProviderRequest {
    pub provider_id: String,
    pub model: String,
    pub messages: History,
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
    pub messages: History,
    pub turn_index: u32,
}

crate::wire_enum! {
    /// Whether a model call may, must or must not call tools (a prompt's
    /// `tool_policy.tool_choice`).
    #[derive(Default)]
    pub enum ToolChoice {
        #[default]
        Auto = "auto",
        Required = "required",
        None = "none",
    }
}
