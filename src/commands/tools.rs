//! `tools`: every tool a config and pack make available, however it runs, with the
//! schema a model would see. MCP servers are started, asked what they offer (tools,
//! and prompts and resources when they have them), and stopped again.

use serde_json::{Value as Json, json};

use crate::cli::args::{ListFormat, ToolsArgs};
use crate::cli::style::peer;
use crate::cli::{CliError, Console, Exit, Settings};
use crate::config::{ExecSpec, McpEndpoint, McpServer, RuntimeConfig, RuntimeMode};
use crate::mcp::{Catalog, McpClient, McpFailure, glob_matches, shown_url};
use crate::pack::{self, Pack};
use crate::report::table;

use super::emit::pretty;
use super::runtime::{interrupted, with_runtime};
use super::warnings::LoadWarnings;

/// What one MCP server answered.
type Asked = (McpServer, Result<Catalog, McpFailure>);

pub(super) fn run(
    settings: &Settings,
    args: &ToolsArgs,
    console: &mut Console,
) -> Result<Exit, CliError> {
    let mut warnings = LoadWarnings::new(false);
    let config = warnings.config(settings, console)?;
    let pack = match &args.pack {
        Some(path) => Some(warnings.keep(pack::load(path), console)?),
        None => None,
    };
    let asked = with_runtime(|| ask_every_server(&config))?;
    let failed: Vec<&McpFailure> = asked.iter().filter_map(|(_, r)| r.as_ref().err()).collect();
    // A tool a server lists unusably is that server's failure.
    let rejected: Vec<String> = asked
        .iter()
        .filter_map(|(server, r)| Some((server, r.as_ref().ok()?)))
        .flat_map(|(server, catalog)| {
            catalog.rejected.iter().map(move |t| {
                format!(
                    "MCP server `{}` lists tool `{}`, which cannot be offered: {}",
                    server.name, t.tool, t.reason
                )
            })
        })
        .collect();
    let listing = json!({
        "tools": tools_json(&config, pack.as_ref(), &asked),
        "mcp_servers": asked.iter().map(server_json).collect::<Vec<_>>(),
    });
    match args.format {
        ListFormat::Json => console.out(&pretty(&listing))?,
        ListFormat::Human => console.out(&human(&listing))?,
    }
    // What a server wrote (its names, its errors) has its control characters escaped.
    for failure in &failed {
        console.error(&format!("error: {}", peer(&failure.to_string(), true)));
    }
    for problem in &rejected {
        console.error(&format!("error: {}", peer(problem, true)));
    }
    Ok(if failed.is_empty() && rejected.is_empty() {
        Exit::Success
    } else {
        Exit::ExtensionFailed
    })
}

/// Starts every MCP server, asks each what it offers, and stops them, all at once.
async fn ask_every_server(config: &RuntimeConfig) -> Result<Vec<Asked>, CliError> {
    let clients: Vec<(&McpServer, McpClient)> = config
        .mcp_servers
        .values()
        .map(|server| (server, McpClient::new(server)))
        .collect();
    let asking = futures::future::join_all(
        clients
            .iter()
            .map(|(server, client)| async move { ((*server).clone(), client.catalog().await) }),
    );
    let asked = tokio::select! {
        asked = asking => asked,
        () = interrupted() => {
            clients.iter().for_each(|(_, client)| client.kill());
            return Err(CliError::Interrupted);
        }
    };
    futures::future::join_all(clients.iter().map(|(_, client)| client.shutdown())).await;
    Ok(asked)
}

/// The config's exec and server tools, the pack's tools nothing binds, then each MCP
/// server's tools.
fn tools_json(config: &RuntimeConfig, pack: Option<&Pack>, asked: &[Asked]) -> Vec<Json> {
    let offered_by = |name: &str| -> Vec<String> {
        pack.map(|p| {
            p.prompts
                .values()
                .filter(|prompt| {
                    prompt
                        .tools
                        .iter()
                        .any(|(entry, _)| glob_matches(entry, name))
                })
                .map(|prompt| prompt.id.clone())
                .collect()
        })
        .unwrap_or_default()
    };
    let defined = |name: &str| pack.and_then(|p| p.tools.get(name));
    let mut tools = Vec::new();
    for binding in config.tools.values() {
        let def = defined(&binding.name);
        let (mode, source) = match &binding.exec {
            Some(exec) => (mode_of(exec), command_line(exec)),
            None => ("unbound", "config (no exec block)".to_string()),
        };
        tools.push(json!({
            "name": binding.name,
            "mode": mode,
            "source": source,
            "description": def.map(|d| d.description.clone()),
            "input_schema": def.map(|d| d.parameters.clone()),
            "prompts": offered_by(&binding.name),
        }));
    }
    let unbound = pack
        .into_iter()
        .flat_map(|p| p.tools.values())
        .filter(|t| !config.tools.contains_key(&t.name) && !crate::mcp::is_mcp(&t.name));
    for def in unbound {
        tools.push(json!({
            "name": def.name,
            "mode": "unbound",
            "source": "pack (nothing binds it)",
            "description": def.description,
            "input_schema": def.parameters,
            "prompts": offered_by(&def.name),
        }));
    }
    for (server, answer) in asked {
        let Ok(catalog) = answer else { continue };
        for tool in &catalog.tools {
            let mut entry = json!({
                "name": tool.name,
                "mode": "mcp",
                "source": format!("MCP server `{}`", server.name),
                "description": tool.description,
                "input_schema": tool.input_schema,
                "prompts": offered_by(&tool.name),
            });
            if let Some(output) = &tool.output_schema {
                entry["output_schema"] = output.clone();
            }
            tools.push(entry);
        }
    }
    tools
}

fn mode_of(exec: &ExecSpec) -> &'static str {
    match exec.runtime {
        RuntimeMode::Exec => "exec",
        RuntimeMode::Server => "server",
    }
}

fn command_line(exec: &ExecSpec) -> String {
    let mut words = vec![exec.command.display().to_string()];
    words.extend(exec.args.iter().cloned());
    words.join(" ")
}

fn server_json((server, answer): &Asked) -> Json {
    let (transport, at) = match &server.endpoint {
        McpEndpoint::Stdio { exec, .. } => ("stdio", command_line(exec)),
        McpEndpoint::Http { url, .. } => ("streamable_http", shown_url(url)),
    };
    let mut entry = json!({"name": server.name, "transport": transport, "endpoint": at});
    match answer {
        Ok(catalog) => {
            entry["server_info"] = catalog.server_info.clone().unwrap_or(Json::Null);
            entry["tools"] = catalog.tools.iter().map(|t| t.name.clone()).collect();
            entry["rejected"] = json!(catalog.rejected);
            entry["prompts"] = Json::Array(catalog.prompts.clone());
            entry["resources"] = Json::Array(catalog.resources.clone());
        }
        Err(failure) => {
            entry["error"] = json!(failure.to_string());
            entry["stderr_tail"] = json!(failure.stderr_tail());
        }
    }
    entry
}

fn human(listing: &Json) -> String {
    let mut out = String::new();
    let tools = listing["tools"].as_array().map_or(&[][..], Vec::as_slice);
    if tools.is_empty() {
        out.push_str("tools: none\n");
    } else {
        let mut grid = table(&["tool", "mode", "source", "prompts"]);
        for tool in tools {
            let prompts: Vec<&str> = tool["prompts"]
                .as_array()
                .map(|p| p.iter().filter_map(Json::as_str).collect())
                .unwrap_or_default();
            grid.add_row(vec![
                text(&tool["name"]),
                text(&tool["mode"]),
                text(&tool["source"]),
                prompts.join(", "),
            ]);
        }
        out.push_str(&format!("tools ({}):\n{grid}\n", tools.len()));
    }
    for server in listing["mcp_servers"]
        .as_array()
        .map_or(&[][..], Vec::as_slice)
    {
        out.push_str(&format!(
            "MCP server `{}` ({}",
            text(&server["name"]),
            text(&server["endpoint"])
        ));
        if let Some(info) = server["server_info"].as_object() {
            out.push_str(&format!(
                "; {} {}",
                peer(info["name"].as_str().unwrap_or_default(), false),
                peer(info["version"].as_str().unwrap_or_default(), false)
            ));
        }
        out.push_str(")\n");
        if let Some(error) = server["error"].as_str() {
            out.push_str(&format!("  could not be asked: {}\n", peer(error, true)));
            continue;
        }
        let named = |key: &str, field: &str| -> String {
            let items: Vec<String> = server[key]
                .as_array()
                .map(|list| list.iter().map(|i| text(&i[field])).collect())
                .unwrap_or_default();
            if items.is_empty() {
                "none".into()
            } else {
                items.join(", ")
            }
        };
        out.push_str(&format!("  prompts: {}\n", named("prompts", "name")));
        out.push_str(&format!("  resources: {}\n", named("resources", "uri")));
    }
    out
}

/// A value of the listing as one line of text, safe for the terminal: much of it
/// comes from MCP servers.
fn text(value: &Json) -> String {
    let text = value
        .as_str()
        .map_or_else(|| value.to_string(), str::to_string);
    peer(&text, false).into_owned()
}
