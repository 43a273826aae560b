//! The MCP tools a prompt offers: its `mcp__…` entries (exact names or globs) name
//! servers; those servers are started when the conversation starts, and every tool
//! of theirs that an entry matches joins the tool set.

use std::collections::HashSet;
use std::sync::Arc;

use indexmap::IndexMap;

use crate::config::RuntimeConfig;

use super::catalog::{McpTool, RejectedTool};
use super::names::{glob_matches, is_mcp, names_server};
use super::{McpClient, McpFailure};

/// What starting the servers found besides the tools that joined.
#[derive(Debug, Default)]
pub struct Started {
    /// Tools an entry names that cannot be offered, with their servers.
    pub rejected: Vec<(String, RejectedTool)>,
    /// Entries that match no tool of any server.
    pub unmatched: Vec<String>,
}

pub struct McpToolSet {
    entries: Vec<String>,
    servers: Vec<Arc<McpClient>>,
    tools: IndexMap<String, (McpTool, Arc<McpClient>)>,
}

impl McpToolSet {
    /// The servers the prompt's `entries` name; nothing starts yet.
    pub fn for_entries<'e>(
        config: &RuntimeConfig,
        entries: impl IntoIterator<Item = &'e str>,
    ) -> Self {
        let entries: Vec<String> = entries
            .into_iter()
            .filter(|e| is_mcp(e))
            .map(str::to_string)
            .collect();
        let servers = config
            .mcp_servers
            .values()
            .filter(|s| entries.iter().any(|e| names_server(e, &s.name)))
            .map(|s| Arc::new(McpClient::new(s)))
            .collect();
        Self {
            entries,
            servers,
            tools: IndexMap::new(),
        }
    }

    /// Whether the prompt has no `mcp__…` entries at all.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Starts each server and lists its tools; the ones an entry matches join, in
    /// the order the entries name them. Says which matched tools a server lists in a
    /// way that keeps them out, and which entries match nothing at all.
    pub async fn start(&mut self) -> Result<Started, McpFailure> {
        let mut listed = Vec::new();
        let mut rejected = Vec::new();
        for server in &self.servers {
            let listing = server.tools().await?;
            for tool in &listing.tools {
                listed.push((tool.clone(), Arc::clone(server)));
            }
            for tool in &listing.rejected {
                rejected.push((server.name().to_string(), tool.clone()));
            }
        }
        let mut started = Started::default();
        let mut told: HashSet<&str> = HashSet::new();
        for entry in &self.entries {
            let mut matched = false;
            for (tool, server) in &listed {
                if glob_matches(entry, &tool.name) {
                    matched = true;
                    self.tools
                        .entry(tool.name.clone())
                        .or_insert_with(|| (tool.clone(), Arc::clone(server)));
                }
            }
            for (server, tool) in &rejected {
                if glob_matches(entry, &tool.name) {
                    matched = true;
                    if told.insert(&tool.name) {
                        started.rejected.push((server.clone(), tool.clone()));
                    }
                }
            }
            if !matched {
                started.unmatched.push(entry.clone());
            }
        }
        Ok(started)
    }

    /// The tools that joined, with their servers, in offer order.
    pub fn tools(&self) -> impl Iterator<Item = (&McpTool, &Arc<McpClient>)> {
        self.tools.values().map(|(tool, server)| (tool, server))
    }

    pub fn get(&self, name: &str) -> Option<&McpTool> {
        self.tools.get(name).map(|(tool, _)| tool)
    }

    /// The tools that joined for `entry`, in the server's order.
    pub fn matching<'s>(&'s self, entry: &'s str) -> impl Iterator<Item = &'s McpTool> + 's {
        self.tools
            .values()
            .map(|(tool, _)| tool)
            .filter(move |tool| glob_matches(entry, &tool.name))
    }

    /// Stops every server in order, all at once.
    pub async fn shutdown(&self) {
        futures::future::join_all(self.servers.iter().map(|s| s.shutdown())).await;
    }

    /// Kills every server now.
    pub fn kill(&self) {
        for server in &self.servers {
            server.kill();
        }
    }
}
