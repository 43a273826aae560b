//! A fresh reading of the tool surface: the pack's tools, the config's exec
//! extensions, and the tools each MCP server lists (each server is started, asked,
//! and stopped).

use std::collections::BTreeMap;

use serde_json::Value as Json;

use crate::config::RuntimeConfig;
use crate::mcp::{Catalog, McpTool};
use crate::pack::Pack;

use super::files::exec_entry;
use super::{FORMAT_VERSION, Lock, LockError, Pinned, ToolEntry};

/// The surface as it is now. Blocks while the MCP servers answer; Ctrl-C, SIGTERM
/// or SIGHUP stop them and give [`LockError::Interrupted`].
pub(crate) fn read(config: &RuntimeConfig, pack: Option<&Pack>) -> Result<Lock, LockError> {
    let catalogs = if config.mcp_servers.is_empty() {
        Vec::new()
    } else {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(LockError::Runtime)?
            .block_on(ask_every_server(config))?
    };
    Ok(assemble(config, pack, &catalogs))
}

/// The lock of what the config and pack say and the servers answered.
fn assemble(config: &RuntimeConfig, pack: Option<&Pack>, catalogs: &[(String, Catalog)]) -> Lock {
    let mut tools = BTreeMap::new();
    if let Some(pack) = pack {
        for def in pack.tools.values() {
            if crate::mcp::is_mcp(&def.name) {
                // The server's own listing is pinned instead.
                continue;
            }
            tools.insert(
                def.name.clone(),
                ToolEntry {
                    source: "pack".into(),
                    title: None,
                    description: Some(Pinned::of(&Json::String(def.description.clone()))),
                    input_schema: Some(Pinned::of(&def.parameters)),
                    output_schema: def.output_schema.as_ref().map(Pinned::of),
                    annotations: None,
                    exec: None,
                },
            );
        }
    }
    for binding in config.tools.values() {
        let Some(exec) = binding.exec() else { continue };
        let entry = tools
            .entry(binding.name.clone())
            .or_insert_with(|| ToolEntry {
                source: "config".into(),
                title: None,
                description: None,
                input_schema: None,
                output_schema: None,
                annotations: None,
                exec: None,
            });
        entry.exec = Some(exec_entry(exec, &config.base_dir));
    }
    for (server, catalog) in catalogs {
        for tool in &catalog.tools {
            tools.insert(tool.name.clone(), mcp_entry(server, tool));
        }
    }
    let hooks = config
        .hooks
        .values()
        .map(|hook| (hook.name.clone(), exec_entry(&hook.exec, &config.base_dir)))
        .collect();
    let evals = config
        .evals
        .iter()
        .map(|(name, eval)| (name.clone(), exec_entry(&eval.exec, &config.base_dir)))
        .collect();
    Lock {
        version: FORMAT_VERSION,
        tools,
        hooks,
        evals,
    }
}

fn mcp_entry(server: &str, tool: &McpTool) -> ToolEntry {
    ToolEntry {
        source: format!("mcp:{server}"),
        title: tool
            .title
            .as_ref()
            .map(|t| Pinned::of(&Json::String(t.clone()))),
        description: Some(Pinned::of(&Json::String(tool.description.clone()))),
        input_schema: Some(Pinned::of(&tool.input_schema)),
        output_schema: tool.output_schema.as_ref().map(Pinned::of),
        annotations: tool.annotations.as_ref().map(Pinned::of),
        exec: None,
    }
}

/// Starts every MCP server, asks each for its tools, and stops them, all at once.
async fn ask_every_server(config: &RuntimeConfig) -> Result<Vec<(String, Catalog)>, LockError> {
    let asked = crate::mcp::ask_all(config.mcp_servers.values(), crate::exec::interrupted())
        .await
        .ok_or(LockError::Interrupted)?;
    asked
        .into_iter()
        .map(|(server, answer)| match answer {
            Ok(catalog) => Ok((server.name, catalog)),
            Err(failure) => {
                let mut reason = failure.to_string();
                if let Some(line) = crate::exec::last_lines(failure.stderr_tail(), 1).first() {
                    reason.push_str(&format!(" (stderr: {})", line.trim()));
                }
                Err(LockError::Server {
                    server: server.name,
                    reason,
                })
            }
        })
        .collect()
}
