//! What `tools` shows: every tool a config and pack make available, however it runs,
//! and what each MCP server answered. The record borrows the catalogs and schemas it
//! shows rather than copying them: a server may list many thousands of tools.

use serde::Serialize;
use serde_json::Value as Json;

use crate::mcp::RejectedTool;

use super::style::peer;
use super::table;

/// The tools, then the MCP servers, in the order they are shown.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct ToolListing<'a> {
    pub tools: Vec<ListedToolEntry<'a>>,
    pub mcp_servers: Vec<ListedServer<'a>>,
}

/// One tool and where it comes from.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ListedToolEntry<'a> {
    pub name: &'a str,
    /// `exec`, `server`, `mcp` or `unbound`.
    pub mode: &'static str,
    /// The command line, the MCP server, or why nothing runs it.
    pub source: String,
    /// `null` for a config's tool the pack does not define.
    pub description: Option<&'a str>,
    pub input_schema: Option<&'a Json>,
    /// The prompts that offer it.
    pub prompts: Vec<&'a str>,
    /// Only an MCP tool's, when its server gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<&'a Json>,
}

/// One MCP server: how it is reached and what it answered.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ListedServer<'a> {
    pub name: &'a str,
    /// `stdio` or `streamable_http`.
    pub transport: &'static str,
    /// The command line or the URL (its secrets hidden).
    pub endpoint: String,
    #[serde(flatten)]
    pub answer: ServerAnswer<'a>,
}

/// What a server answered when asked what it offers.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub(crate) enum ServerAnswer<'a> {
    Catalog {
        server_info: Option<&'a Json>,
        /// The names of the tools it offers.
        tools: Vec<&'a str>,
        rejected: &'a [RejectedTool],
        prompts: &'a [Json],
        resources: &'a [Json],
    },
    Failed {
        error: String,
        stderr_tail: &'a str,
    },
}

impl ToolListing<'_> {
    /// The listing as pretty JSON, ending in a newline.
    pub(crate) fn json(&self) -> String {
        format!(
            "{}\n",
            serde_json::to_string_pretty(self).unwrap_or_default()
        )
    }

    /// A table of the tools, then a few lines per MCP server. Much of it comes from
    /// MCP servers: every value is made safe for the terminal.
    pub(crate) fn human(&self) -> String {
        let mut out = String::new();
        if self.tools.is_empty() {
            out.push_str("tools: none\n");
        } else {
            let mut grid = table(&["tool", "mode", "source", "prompts"]);
            for tool in &self.tools {
                grid.add_row(vec![
                    line(tool.name),
                    line(tool.mode),
                    line(&tool.source),
                    tool.prompts.join(", "),
                ]);
            }
            out.push_str(&format!("tools ({}):\n{grid}\n", self.tools.len()));
        }
        for server in &self.mcp_servers {
            out.push_str(&server.human());
        }
        out
    }
}

impl ListedServer<'_> {
    fn human(&self) -> String {
        let mut out = format!("MCP server `{}` ({}", line(self.name), line(&self.endpoint));
        match &self.answer {
            ServerAnswer::Failed { error, .. } => {
                out.push_str(&format!(")\n  could not be asked: {}\n", peer(error, true)));
            }
            ServerAnswer::Catalog {
                server_info,
                prompts,
                resources,
                ..
            } => {
                if let Some(info) = server_info.and_then(Json::as_object) {
                    let field = |key: &str| {
                        peer(
                            info.get(key).and_then(Json::as_str).unwrap_or_default(),
                            false,
                        )
                        .into_owned()
                    };
                    out.push_str(&format!("; {} {}", field("name"), field("version")));
                }
                out.push_str(")\n");
                out.push_str(&format!("  prompts: {}\n", named(prompts, "name")));
                out.push_str(&format!("  resources: {}\n", named(resources, "uri")));
            }
        }
        out
    }
}

/// The `field` of each item, or `none`.
fn named(items: &[Json], field: &str) -> String {
    if items.is_empty() {
        return "none".into();
    }
    items
        .iter()
        .map(|item| {
            let value = item.get(field).unwrap_or(&Json::Null);
            line(
                &value
                    .as_str()
                    .map_or_else(|| value.to_string(), str::to_string),
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A text as one line, safe for the terminal.
fn line(text: &str) -> String {
    peer(text, false).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tools_and_servers_render_as_people_and_machines_read_them() {
        let schema = json!({"type": "object", "properties": {"id": {"type": "string"}}});
        let output = json!({"type": "object"});
        let info = json!({"name": "orders", "version": "1.2.0"});
        let prompts = [json!({"name": "triage"})];
        let resources = [json!({"uri": "file:///orders.csv"})];
        let listing = ToolListing {
            tools: vec![
                ListedToolEntry {
                    name: "lookup_order",
                    mode: "exec",
                    source: "./lookup.py --fast".into(),
                    description: Some("Finds an order."),
                    input_schema: Some(&schema),
                    prompts: vec!["support"],
                    output_schema: None,
                },
                ListedToolEntry {
                    name: "mcp__orders__refund",
                    mode: "mcp",
                    source: "MCP server `orders`".into(),
                    description: None,
                    input_schema: None,
                    prompts: Vec::new(),
                    output_schema: Some(&output),
                },
            ],
            mcp_servers: vec![
                ListedServer {
                    name: "orders",
                    transport: "stdio",
                    endpoint: "python3 orders.py".into(),
                    answer: ServerAnswer::Catalog {
                        server_info: Some(&info),
                        tools: vec!["mcp__orders__refund"],
                        rejected: &[],
                        prompts: &prompts,
                        resources: &resources,
                    },
                },
                ListedServer {
                    name: "gone",
                    transport: "streamable_http",
                    endpoint: "http://127.0.0.1:9/mcp".into(),
                    answer: ServerAnswer::Failed {
                        error: "MCP server `gone` could not be reached".into(),
                        stderr_tail: "",
                    },
                },
            ],
        };
        insta::assert_snapshot!("tools_human", listing.human());
        insta::assert_snapshot!("tools_json", listing.json());
    }

    #[test]
    fn nothing_to_list_says_so() {
        assert_eq!(ToolListing::default().human(), "tools: none\n");
        assert_eq!(
            ToolListing::default().json(),
            "{\n  \"tools\": [],\n  \"mcp_servers\": []\n}\n"
        );
    }
}
