//! `tools`: every tool a config and pack make available, however it runs, with the
//! schema a model would see. MCP servers are started, asked what they offer (tools,
//! and prompts and resources when they have them), and stopped again.

use crate::cli::args::{ListFormat, ToolsArgs};
use crate::cli::{CliError, Console, Exit, Settings};
use crate::config::{ExecSpec, McpEndpoint, McpServer, RuntimeConfig, RuntimeMode};
use crate::exec::last_lines;
use crate::mcp::{Catalog, McpFailure, glob_matches, shown_url};
use crate::pack::Pack;
use crate::report::style::peer;
use crate::report::{ListedServer, ListedToolEntry, ServerAnswer, ToolListing};

use crate::commands::common::runtime::{interrupted, with_runtime};
use crate::commands::common::warnings::LoadWarnings;

/// What one MCP server answered.
type Asked = (McpServer, Result<Catalog, McpFailure>);

pub(super) fn run(
    settings: &Settings,
    args: &ToolsArgs,
    console: &mut Console,
) -> Result<Exit, CliError> {
    let mut warnings = LoadWarnings::new(false);
    let config = warnings.config(settings, console)?;
    let pack = warnings.pack(args.pack.as_deref(), console)?;
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
    let listing = ToolListing {
        tools: listed_tools(&config, pack.as_ref(), &asked),
        mcp_servers: asked.iter().map(listed_server).collect(),
    };
    match args.format {
        ListFormat::Json => console.out(&listing.json())?,
        ListFormat::Human => console.out(&listing.human())?,
    }
    // What a server wrote (its names, its errors) has its control characters escaped.
    for failure in &failed {
        let error = with_stderr(failure.to_string(), failure.stderr_tail());
        console.error(&format!("error: {}", peer(&error, true)));
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
    crate::mcp::ask_all(config.mcp_servers.values(), interrupted())
        .await
        .ok_or(CliError::Interrupted)
}

/// The config's exec and server tools, the pack's tools nothing binds, then each MCP
/// server's tools.
fn listed_tools<'a>(
    config: &'a RuntimeConfig,
    pack: Option<&'a Pack>,
    asked: &'a [Asked],
) -> Vec<ListedToolEntry<'a>> {
    let offered_by = |name: &str| -> Vec<&'a str> {
        pack.map(|p| {
            p.prompts
                .values()
                .filter(|prompt| {
                    prompt
                        .tools
                        .iter()
                        .any(|(entry, _)| glob_matches(entry, name))
                })
                .map(|prompt| prompt.id.as_str())
                .collect()
        })
        .unwrap_or_default()
    };
    let defined = |name: &str| pack.and_then(|p| p.tools.get(name));
    let mut tools = Vec::new();
    for binding in config.tools.values() {
        let def = defined(&binding.name);
        let (mode, source) = match binding.exec() {
            Some(exec) => (mode_of(exec), command_line(exec)),
            None => match &binding.run {
                crate::config::ToolRun::Http(http) => {
                    ("live", format!("{} {}", http.method, http.url.source()))
                }
                crate::config::ToolRun::Unbound => {
                    ("unbound", "config (no exec block)".to_string())
                }
                other => (other.mode(), "config".to_string()),
            },
        };
        tools.push(ListedToolEntry {
            name: &binding.name,
            mode,
            source,
            description: def.map(|d| d.description.as_str()),
            input_schema: def.map(|d| &d.parameters),
            prompts: offered_by(&binding.name),
            ..ListedToolEntry::default()
        });
    }
    let unbound = pack
        .into_iter()
        .flat_map(|p| p.tools.values())
        .filter(|t| !config.tools.contains_key(&t.name) && !crate::mcp::is_mcp(&t.name));
    for def in unbound {
        tools.push(ListedToolEntry {
            name: &def.name,
            mode: "unbound",
            source: "pack (nothing binds it)".to_string(),
            description: Some(&def.description),
            input_schema: Some(&def.parameters),
            prompts: offered_by(&def.name),
            ..ListedToolEntry::default()
        });
    }
    for (server, answer) in asked {
        let Ok(catalog) = answer else { continue };
        for tool in &catalog.tools {
            tools.push(ListedToolEntry {
                name: &tool.name,
                mode: "mcp",
                source: format!("MCP server `{}`", server.name),
                description: Some(&tool.description),
                input_schema: Some(&tool.input_schema),
                prompts: offered_by(&tool.name),
                output_schema: tool.output_schema.as_ref(),
                title: tool.title.as_deref(),
                annotations: tool.annotations.as_ref(),
                execution: tool.execution.as_ref(),
            });
        }
    }
    tools
}

/// A failure with the last line the server wrote to stderr, as `check` words it.
fn with_stderr(error: String, stderr_tail: &str) -> String {
    match last_lines(stderr_tail, 1).first() {
        Some(line) => format!("{error} (stderr: {})", line.trim()),
        None => error,
    }
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

fn listed_server((server, answer): &Asked) -> ListedServer<'_> {
    let (transport, endpoint) = match &server.endpoint {
        McpEndpoint::Stdio { exec, .. } => ("stdio", command_line(exec)),
        McpEndpoint::Http { url, .. } => ("streamable_http", shown_url(url)),
    };
    let answer = match answer {
        Ok(catalog) => ServerAnswer::Catalog {
            server_info: catalog.server_info.as_ref(),
            protocol_version: catalog.protocol_version.as_deref(),
            tools: catalog.tools.iter().map(|t| t.name.as_str()).collect(),
            rejected: &catalog.rejected,
            prompts: &catalog.prompts,
            resources: &catalog.resources,
            resource_templates: &catalog.resource_templates,
        },
        Err(failure) => ServerAnswer::Failed {
            error: failure.to_string(),
            stderr_tail: failure.stderr_tail(),
        },
    };
    ListedServer {
        name: &server.name,
        transport,
        endpoint,
        answer,
    }
}
