//! What `tools` shows: every tool a config and pack make available, however it runs,
//! and what each MCP server answered. The record borrows the catalogs and schemas it
//! shows rather than copying them: a server may list many thousands of tools.

use serde::Serialize;
use serde_json::Value as Json;

use crate::exec::last_lines;
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
#[derive(Debug, Clone, Default, Serialize)]
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
    /// An MCP tool's name for people, when its server gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<&'a str>,
    /// An MCP tool's annotations (`readOnlyHint`, `destructiveHint`, …), as listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub annotations: Option<&'a Json>,
    /// An MCP tool's `execution` (`taskSupport`), as listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub execution: Option<&'a Json>,
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
        /// The MCP revision the connection speaks.
        #[serde(skip_serializing_if = "Option::is_none")]
        protocol_version: Option<&'a str>,
        /// The names of the tools it offers.
        tools: Vec<&'a str>,
        rejected: &'a [RejectedTool],
        prompts: &'a [Json],
        resources: &'a [Json],
        resource_templates: &'a [Json],
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
            out.push_str(&format!("tools ({}):\n", self.tools.len()));
            out.push_str(&self.table());
        }
        for server in &self.mcp_servers {
            out.push_str(&server.human());
        }
        out
    }

    /// The tools' table, a `title` column when a tool has a title and a `hints`
    /// column when one is an MCP tool; under it what parentheses mean, when used.
    fn table(&self) -> String {
        let titled = self.tools.iter().any(|t| t.title.is_some());
        let hinted = self.tools.iter().any(|t| t.mode == "mcp");
        let mut header = vec!["tool"];
        header.extend(titled.then_some("title"));
        header.extend(["mode", "source", "prompts"]);
        header.extend(hinted.then_some("hints"));
        let mut grid = table(&header);
        let mut defaulted = false;
        for tool in &self.tools {
            let mut row = vec![line(tool.name)];
            row.extend(titled.then(|| line(tool.title.unwrap_or_default())));
            row.extend([line(tool.mode), line(&tool.source), tool.prompts.join(", ")]);
            if hinted {
                let hints = tool.hints();
                defaulted |= hints.iter().any(|h| h.starts_with('('));
                row.push(hints.join(", "));
            }
            grid.add_row(row);
        }
        let legend = if defaulted { DEFAULTED } else { "" };
        format!("{grid}\n{legend}")
    }
}

/// The most stderr lines a failed server's entry quotes, as failure messages do.
const STDERR_LINES: usize = 20;

/// Under the table when a hint in parentheses is shown.
const DEFAULTED: &str = "(hint): not stated by the server; MCP's default assumes it\n";

impl ListedToolEntry<'_> {
    /// What the table says of an MCP tool: whether it may write, then its other
    /// annotation hints that hold, each in parentheses when the server left it out
    /// and MCP's default holds; then `output schema` and `tasks: …` when it has them.
    fn hints(&self) -> Vec<String> {
        if self.mode != "mcp" {
            return Vec::new();
        }
        let stated = |key: &str| {
            self.annotations
                .and_then(|a| a.get(key))
                .and_then(Json::as_bool)
        };
        let mut hints = Vec::new();
        let mut flag = |holds: Option<bool>, default: bool, name: &str| match holds {
            Some(true) => hints.push(name.to_string()),
            None if default => hints.push(format!("({name})")),
            _ => {}
        };
        // MCP's defaults: a tool may write, destructively, not idempotently, in an
        // open world. The middle two mean something only for a tool that may write.
        let read_only = stated("readOnlyHint");
        flag(read_only, false, "read-only");
        flag(read_only.map(|r| !r), true, "writes");
        if read_only != Some(true) {
            flag(stated("destructiveHint"), true, "destructive");
            flag(stated("idempotentHint"), false, "idempotent");
        }
        flag(stated("openWorldHint"), true, "open-world");
        if self.output_schema.is_some() {
            hints.push("output schema".into());
        }
        let tasks = self
            .execution
            .and_then(|e| e.get("taskSupport"))
            .and_then(Json::as_str);
        if let Some(tasks) = tasks.filter(|t| *t != "forbidden") {
            hints.push(format!("tasks: {}", line(tasks)));
        }
        hints
    }
}

impl ListedServer<'_> {
    fn human(&self) -> String {
        let mut out = format!("MCP server `{}` ({}", line(self.name), line(&self.endpoint));
        match &self.answer {
            ServerAnswer::Failed { error, stderr_tail } => {
                out.push_str(&format!(")\n  could not be asked: {}\n", peer(error, true)));
                let tail = last_lines(stderr_tail, STDERR_LINES);
                if !tail.is_empty() {
                    out.push_str("  its stderr ended with:\n");
                    for text in tail {
                        out.push_str(&format!("    {}\n", line(text)));
                    }
                }
            }
            ServerAnswer::Catalog {
                server_info,
                prompts,
                resources,
                resource_templates,
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
                out.push_str(&format!(
                    "  resource templates: {}\n",
                    named(resource_templates, "uriTemplate")
                ));
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
        let templates = [json!({"uriTemplate": "orders://{id}", "name": "order"})];
        let annotations = json!({"destructiveHint": false, "idempotentHint": true});
        let execution = json!({"taskSupport": "optional"});
        let listing = ToolListing {
            tools: vec![
                ListedToolEntry {
                    name: "lookup_order",
                    mode: "exec",
                    source: "./lookup.py --fast".into(),
                    description: Some("Finds an order."),
                    input_schema: Some(&schema),
                    prompts: vec!["support"],
                    ..ListedToolEntry::default()
                },
                ListedToolEntry {
                    name: "mcp__orders__refund",
                    mode: "mcp",
                    source: "MCP server `orders`".into(),
                    output_schema: Some(&output),
                    title: Some("Refund an order"),
                    annotations: Some(&annotations),
                    execution: Some(&execution),
                    ..ListedToolEntry::default()
                },
            ],
            mcp_servers: vec![
                ListedServer {
                    name: "orders",
                    transport: "stdio",
                    endpoint: "python3 orders.py".into(),
                    answer: ServerAnswer::Catalog {
                        server_info: Some(&info),
                        protocol_version: Some("2025-11-25"),
                        tools: vec!["mcp__orders__refund"],
                        rejected: &[],
                        prompts: &prompts,
                        resources: &resources,
                        resource_templates: &templates,
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
                ListedServer {
                    name: "dead",
                    transport: "stdio",
                    endpoint: "./dead.sh".into(),
                    answer: ServerAnswer::Failed {
                        error: "MCP server `dead` failed its `initialize`: it exited with status 3"
                            .into(),
                        stderr_tail: "reading config\nfatal: no key\n",
                    },
                },
            ],
        };
        insta::assert_snapshot!("tools_human", listing.human());
        insta::assert_snapshot!("tools_json", listing.json());
    }

    /// The hints column, for annotations as listed: `(…)` where MCP's default fills in.
    #[test]
    fn hints_say_what_holds_and_mark_what_only_the_defaults_say() {
        let hints = |annotations: Option<Json>, execution: Option<Json>| {
            ListedToolEntry {
                mode: "mcp",
                annotations: annotations.as_ref(),
                execution: execution.as_ref(),
                ..ListedToolEntry::default()
            }
            .hints()
            .join(", ")
        };
        let cases = [
            (None, "(writes), (destructive), (open-world)"),
            (Some(json!({})), "(writes), (destructive), (open-world)"),
            (
                Some(json!({"readOnlyHint": true, "destructiveHint": true})),
                "read-only, (open-world)",
            ),
            (
                Some(json!({"readOnlyHint": false, "destructiveHint": false,
                            "idempotentHint": false, "openWorldHint": false})),
                "writes",
            ),
            (
                Some(json!({"destructiveHint": true, "idempotentHint": true,
                            "openWorldHint": true})),
                "(writes), destructive, idempotent, open-world",
            ),
            (
                Some(json!({"readOnlyHint": "yes"})),
                "(writes), (destructive), (open-world)",
            ),
        ];
        for (annotations, expected) in cases {
            assert_eq!(
                hints(annotations.clone(), None),
                expected,
                "{annotations:?}"
            );
        }
        let read_only = Some(json!({"readOnlyHint": true, "openWorldHint": false}));
        assert_eq!(
            hints(read_only.clone(), Some(json!({"taskSupport": "required"}))),
            "read-only, tasks: required"
        );
        assert_eq!(
            hints(read_only, Some(json!({"taskSupport": "forbidden"}))),
            "read-only"
        );
        let exec = ListedToolEntry {
            mode: "exec",
            ..ListedToolEntry::default()
        };
        assert!(exec.hints().is_empty(), "only MCP tools have hints");
    }

    #[test]
    fn title_and_hints_columns_appear_only_when_a_tool_fills_them() {
        let header = |tools: Vec<ListedToolEntry<'static>>| {
            let human = ToolListing {
                tools,
                mcp_servers: Vec::new(),
            }
            .human();
            let words: Vec<String> = human
                .lines()
                .nth(2)
                .unwrap_or_default()
                .split(['│', '┆'])
                .map(str::trim)
                .filter(|w| !w.is_empty())
                .map(str::to_string)
                .collect();
            words.join(" ")
        };
        let exec = ListedToolEntry {
            name: "lookup",
            mode: "exec",
            ..ListedToolEntry::default()
        };
        assert_eq!(header(vec![exec.clone()]), "tool mode source prompts");
        let mcp = ListedToolEntry {
            name: "mcp__s__t",
            mode: "mcp",
            ..ListedToolEntry::default()
        };
        assert_eq!(
            header(vec![exec.clone(), mcp.clone()]),
            "tool mode source prompts hints"
        );
        let titled = ListedToolEntry {
            title: Some("T"),
            ..mcp
        };
        assert_eq!(
            header(vec![exec, titled]),
            "tool title mode source prompts hints"
        );
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
