//! What an MCP server offers: its tools (as the tool set names them, with their
//! schemas), and for discovery its prompts and resources.

use serde::Serialize;
use serde_json::Value as Json;

/// One tool of an MCP server, under its tool-set name.
#[derive(Debug, Clone, Serialize)]
pub struct McpTool {
    /// `mcp__<server>__<tool>`.
    pub name: String,
    /// The name the server knows it by.
    pub tool: String,
    pub description: String,
    pub input_schema: Json,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Json>,
}

impl McpTool {
    /// The tool from a `tools/list` entry, as JSON.
    pub fn of(server: &str, listed: &Json) -> Option<McpTool> {
        let tool = listed["name"].as_str()?.to_string();
        Some(McpTool {
            name: super::names::qualified(server, &tool),
            description: listed["description"].as_str().unwrap_or_default().into(),
            input_schema: listed
                .get("inputSchema")
                .cloned()
                .unwrap_or_else(|| serde_json::json!({"type": "object"})),
            output_schema: listed.get("outputSchema").cloned(),
            tool,
        })
    }
}

/// Everything a server offers, for `tools`.
#[derive(Debug, Clone, Serialize)]
pub struct Catalog {
    /// The name and version the server gave in its handshake.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_info: Option<Json>,
    pub tools: Vec<McpTool>,
    /// Each as the server listed it; empty when it offers none.
    pub prompts: Vec<Json>,
    pub resources: Vec<Json>,
}
