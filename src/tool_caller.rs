//! Calling one tool however it runs: above both `tools` (exec tools) and `mcp` (MCP
//! servers' tools), so neither needs the other.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value as Json;
use tokio_util::sync::CancellationToken;

use crate::config::{ExecSpec, RuntimeMode};
use crate::mcp::McpClient;

use crate::tools::{ToolReport, ToolRequest, ToolServer, call_tool, tool_request};

/// One tool, however it runs: a process per call, a supervised server, or a tool of
/// an MCP server (shared by all of that server's tools).
pub(crate) enum ToolCaller {
    OneShot {
        name: String,
        spec: ExecSpec,
    },
    Server(Box<ToolServer>),
    Mcp {
        name: String,
        tool: String,
        server: Arc<McpClient>,
    },
}

impl ToolCaller {
    pub(crate) fn new(name: &str, spec: &ExecSpec) -> Self {
        match spec.runtime {
            RuntimeMode::Exec => ToolCaller::OneShot {
                name: name.to_string(),
                spec: spec.clone(),
            },
            RuntimeMode::Server => ToolCaller::Server(Box::new(ToolServer::new(name, spec))),
        }
    }

    /// Tool `tool` of an MCP server, known as `name` in the tool set.
    pub(crate) fn mcp(name: &str, tool: &str, server: &Arc<McpClient>) -> Self {
        ToolCaller::Mcp {
            name: name.to_string(),
            tool: tool.to_string(),
            server: Arc::clone(server),
        }
    }

    pub(crate) async fn call(
        &self,
        args: &Json,
        timeout: Option<Duration>,
        cancel: &CancellationToken,
    ) -> ToolReport {
        self.send(tool_request(args, None), timeout, cancel).await
    }

    /// Calls the tool again after a person decided on its `pending` answer.
    pub(crate) async fn resolve(
        &self,
        args: &Json,
        resolution: &Json,
        cancel: &CancellationToken,
    ) -> ToolReport {
        self.send(tool_request(args, Some(resolution)), None, cancel)
            .await
    }

    async fn send(
        &self,
        request: ToolRequest<'_>,
        timeout: Option<Duration>,
        cancel: &CancellationToken,
    ) -> ToolReport {
        match self {
            ToolCaller::OneShot { name, spec } => {
                call_tool(name, spec, &request, timeout, cancel).await
            }
            ToolCaller::Server(server) => server.execute(&request, timeout).await,
            // MCP has no `pending` answers, so there is never a resolution to send.
            ToolCaller::Mcp { name, tool, server } => {
                server.call(tool, name, request.args, timeout).await
            }
        }
    }

    /// On an interrupt a server is not waited for.
    pub(crate) fn stop_now(&self) {
        match self {
            ToolCaller::Server(server) => server.kill(),
            ToolCaller::Mcp { server, .. } => server.kill(),
            ToolCaller::OneShot { .. } => {}
        }
    }

    pub(crate) async fn shutdown(&self) {
        match self {
            ToolCaller::Server(server) => server.shutdown().await,
            // The server is shared by all its tools: whoever owns it stops it (a
            // session's tool set stops all its servers at once).
            ToolCaller::Mcp { .. } | ToolCaller::OneShot { .. } => {}
        }
    }
}
