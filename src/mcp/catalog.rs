//! What an MCP server offers: its tools (as the tool set names them, with their
//! schemas), and for discovery its prompts, resources and resource templates.

use std::collections::HashSet;

use serde::Serialize;
use serde_json::Value as Json;

use crate::tools::{ToolNameError, check_tool_name};

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
    /// A name for people, when the server gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The server's hints on what the tool does (`readOnlyHint`, `destructiveHint`,
    /// `idempotentHint`, `openWorldHint`), as listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Json>,
    /// How the tool runs (`taskSupport`), as listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub execution: Option<Json>,
}

impl McpTool {
    /// The tool from a `tools/list` entry, as JSON (taken apart, not copied).
    pub fn of(server: &str, mut listed: Json) -> Option<McpTool> {
        let mut take = |key: &str| listed.get_mut(key).map(Json::take);
        let Some(Json::String(tool)) = take("name") else {
            return None;
        };
        let description = match take("description") {
            Some(Json::String(text)) => text,
            _ => String::new(),
        };
        let output_schema = take("outputSchema");
        let title = match take("title") {
            Some(Json::String(title)) => Some(title),
            _ => None,
        };
        let annotations = take("annotations").filter(Json::is_object);
        let execution = take("execution").filter(Json::is_object);
        let input_schema =
            take("inputSchema").unwrap_or_else(|| serde_json::json!({"type": "object"}));
        Some(McpTool {
            name: super::names::qualified(server, &tool),
            description,
            input_schema,
            output_schema,
            title,
            annotations,
            execution,
            tool,
        })
    }
}

/// A tool the server lists that cannot join the tool set, and why.
#[derive(Debug, Clone, Serialize)]
pub struct RejectedTool {
    /// `mcp__<server>__<tool>`.
    pub name: String,
    pub tool: String,
    pub reason: String,
}

impl RejectedTool {
    /// Why a call to it is not made, naming `server`.
    pub fn why(&self, server: &str) -> String {
        format!(
            "MCP server `{server}` lists it in a way it cannot be called: {}",
            self.reason
        )
    }
}

/// A server's tools as its filter lets them in: those that can join the tool set, and
/// those that cannot because of how the server lists them.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Listing {
    pub tools: Vec<McpTool>,
    pub rejected: Vec<RejectedTool>,
}

impl Listing {
    /// The tool the server lists as `tool`; when there is none to call, the listing
    /// that was rejected, if it was.
    pub fn lookup(&self, tool: &str) -> Result<&McpTool, Option<&RejectedTool>> {
        match self.tools.iter().find(|t| t.tool == tool) {
            Some(found) => Ok(found),
            None => Err(self.rejected.iter().find(|t| t.tool == tool)),
        }
    }

    /// Sorts `listed` into tools a model can be offered and tools it cannot: an empty
    /// name or one no model API accepts, a name listed twice (the first stays), or an
    /// input schema that is not valid JSON Schema (no argument could be checked
    /// against it). Each tool costs the same however many there are.
    pub fn of(listed: Vec<McpTool>) -> Listing {
        let mut listing = Listing::default();
        let mut seen: HashSet<String> = HashSet::with_capacity(listed.len());
        for tool in listed {
            let reason = if let Err(err) = offerable_name(&tool) {
                Some(err.to_string())
            } else if seen.contains(&tool.tool) {
                Some("it is listed twice; the first is used".to_string())
            } else {
                jsonschema::validator_for(&tool.input_schema)
                    .err()
                    .map(|err| format!("its input schema is not valid JSON Schema: {err}"))
            };
            match reason {
                Some(reason) => listing.rejected.push(RejectedTool {
                    name: tool.name,
                    tool: tool.tool,
                    reason,
                }),
                None => {
                    seen.insert(tool.tool.clone());
                    listing.tools.push(tool);
                }
            }
        }
        listing
    }
}

/// Whether `tool` can be offered under its tool-set name: its own name is not empty
/// (`mcp__<server>__` would pass for a name, and call nothing), and the whole fits
/// model APIs.
fn offerable_name(tool: &McpTool) -> Result<(), ToolNameError> {
    if tool.tool.is_empty() {
        return Err(ToolNameError::Empty);
    }
    check_tool_name(&tool.name)
}

/// Everything a server offers, for `tools`.
#[derive(Debug, Clone, Serialize)]
pub struct Catalog {
    /// The name and version the server gave in its handshake.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_info: Option<Json>,
    /// The MCP revision the connection speaks (`2026-07-28`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    pub tools: Vec<McpTool>,
    pub rejected: Vec<RejectedTool>,
    /// Each as the server listed it; empty when it offers none.
    pub prompts: Vec<Json>,
    pub resources: Vec<Json>,
    pub resource_templates: Vec<Json>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str, schema: Json) -> McpTool {
        McpTool::of("s", json!({"name": name, "inputSchema": schema})).expect("a tool")
    }

    #[test]
    fn tools_a_model_cannot_be_offered_are_rejected_with_why() {
        let object = json!({"type": "object"});
        let listing = Listing::of(vec![
            tool("echo", object.clone()),
            tool("get weather.now", object.clone()),
            tool("echo", object.clone()),
            tool("bad", json!({"type": "nonsense"})),
            tool(&"x".repeat(60), object),
        ]);
        let kept: Vec<&str> = listing.tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(kept, ["mcp__s__echo"]);
        let why: Vec<&str> = listing.rejected.iter().map(|r| r.reason.as_str()).collect();
        assert!(
            why[0].starts_with("its name `mcp__s__get weather.now` is not one"),
            "{why:?}"
        );
        assert_eq!(why[1], "it is listed twice; the first is used");
        assert!(
            why[2].starts_with("its input schema is not valid JSON Schema"),
            "{why:?}"
        );
        assert_eq!(
            why[3],
            "its name is 68 bytes long, more than the 64 model APIs accept"
        );
    }

    #[test]
    fn a_tool_with_an_empty_name_is_not_offered() {
        let object = json!({"type": "object"});
        let listing = Listing::of(vec![tool("", object.clone()), tool("echo", object)]);
        let kept: Vec<&str> = listing.tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(kept, ["mcp__s__echo"]);
        assert_eq!(listing.rejected.len(), 1);
        assert_eq!(listing.rejected[0].tool, "");
        assert_eq!(
            listing.rejected[0].reason,
            "its name is empty; model APIs need at least one character"
        );
    }
}
