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

    /// Sorts `listed` into tools a model can be offered and tools it cannot: a name no
    /// model API accepts, a name listed twice (the first stays), or an input schema
    /// that is not valid JSON Schema (no argument could be checked against it).
    pub fn of(listed: Vec<McpTool>) -> Listing {
        let mut listing = Listing::default();
        for tool in listed {
            let reason = if !is_model_tool_name(&tool.name) {
                Some(format!(
                    "its name `{}` is not one model APIs accept (letters, digits, `_` and `-`, at most 64)",
                    tool.name
                ))
            } else if listing.tools.iter().any(|t| t.tool == tool.tool) {
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
                None => listing.tools.push(tool),
            }
        }
        listing
    }
}

/// Whether `name` fits the tool names OpenAI's and Anthropic's APIs accept.
fn is_model_tool_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Everything a server offers, for `tools`.
#[derive(Debug, Clone, Serialize)]
pub struct Catalog {
    /// The name and version the server gave in its handshake.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_info: Option<Json>,
    pub tools: Vec<McpTool>,
    pub rejected: Vec<RejectedTool>,
    /// Each as the server listed it; empty when it offers none.
    pub prompts: Vec<Json>,
    pub resources: Vec<Json>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str, schema: Json) -> McpTool {
        McpTool::of("s", &json!({"name": name, "inputSchema": schema})).expect("a tool")
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
        assert!(why[3].contains("at most 64"), "{why:?}");
    }
}
