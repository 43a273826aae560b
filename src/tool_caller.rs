//! Calling one tool however it runs: above both `tools` (exec, mock and live tools)
//! and `mcp` (MCP servers' tools), so neither needs the other.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value as Json;
use tokio_util::sync::CancellationToken;

use crate::agents::RuntimeTools;
use crate::config::{ExecSpec, HttpTool, MockTool, RuntimeMode, ToolBinding, ToolRun};
use crate::mcp::McpClient;

use crate::exec::RawJson;
use crate::tools::{
    ToolMode, ToolReport, ToolRequest, ToolServer, call_http, call_mock, call_tool, tool_request,
};

/// One tool, however it runs: a process per call, a supervised server, a tool of an
/// MCP server (shared by all of that server's tools), a mock answer, or an HTTP
/// request.
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
    Mock {
        name: String,
        tool: MockTool,
    },
    Http {
        name: String,
        tool: Box<HttpTool>,
        client: reqwest::Client,
    },
    /// A tool the runtime answers itself (an A2A agent's mock, memory, skills),
    /// sharing one conversation's state with the other runtime tools.
    Runtime {
        name: String,
        tools: Arc<RuntimeTools>,
    },
}

/// Why a binding has no caller.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CallerError {
    #[error("tool `{name}` runs in mode `{mode}`, which promptexec cannot call")]
    Elsewhere { name: String, mode: &'static str },
    #[error(
        "tool `{name}` has no way to run in the config: give it an `exec` block, `mode: mock` or `mode: live`"
    )]
    Unbound { name: String },
    #[error("tool `{name}`: the HTTP client could not be built: {reason}")]
    Client { name: String, reason: String },
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

    /// The caller for any binding the config gives: exec (one-shot or server), mock,
    /// or live HTTP; an error for a tool answered elsewhere or not bound at all.
    pub(crate) fn for_binding(binding: &ToolBinding) -> Result<Self, CallerError> {
        let name = &binding.name;
        match &binding.run {
            ToolRun::Exec(spec) => Ok(ToolCaller::new(name, spec)),
            ToolRun::Mock(tool) => Ok(ToolCaller::Mock {
                name: name.clone(),
                tool: tool.clone(),
            }),
            ToolRun::Http(tool) => {
                let client = crate::provider::http_client_builder()
                    .redirect(reqwest::redirect::Policy::none())
                    .no_proxy()
                    .build()
                    .map_err(|e| CallerError::Client {
                        name: name.clone(),
                        reason: e.to_string(),
                    })?;
                Ok(ToolCaller::Http {
                    name: name.clone(),
                    tool: tool.clone(),
                    client,
                })
            }
            ToolRun::Elsewhere { mode } => Err(CallerError::Elsewhere {
                name: name.clone(),
                mode,
            }),
            ToolRun::Unbound => Err(CallerError::Unbound { name: name.clone() }),
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

    /// Tool `name` of one conversation's runtime tools.
    pub(crate) fn runtime(name: &str, tools: &Arc<RuntimeTools>) -> Self {
        ToolCaller::Runtime {
            name: name.to_string(),
            tools: Arc::clone(tools),
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
            // Neither has `pending` answers either.
            ToolCaller::Mock { name, tool } => call_mock(name, tool, request.args),
            ToolCaller::Http { name, tool, client } => {
                call_http(name, tool, client, request.args, timeout, cancel).await
            }
            ToolCaller::Runtime { name, tools } => call_runtime(name, tools, request.args),
        }
    }

    /// On an interrupt a server is not waited for.
    pub(crate) fn stop_now(&self) {
        match self {
            ToolCaller::Server(server) => server.kill(),
            ToolCaller::Mcp { server, .. } => server.kill(),
            ToolCaller::OneShot { .. }
            | ToolCaller::Mock { .. }
            | ToolCaller::Http { .. }
            | ToolCaller::Runtime { .. } => {}
        }
    }

    pub(crate) async fn shutdown(&self) {
        match self {
            ToolCaller::Server(server) => server.shutdown().await,
            // The server is shared by all its tools: whoever owns it stops it (a
            // session's tool set stops all its servers at once).
            ToolCaller::Mcp { .. }
            | ToolCaller::OneShot { .. }
            | ToolCaller::Mock { .. }
            | ToolCaller::Http { .. }
            | ToolCaller::Runtime { .. } => {}
        }
    }
}

/// A runtime tool's answer, reported as a mock tool's is (nothing runs).
fn call_runtime(name: &str, tools: &RuntimeTools, args: &Json) -> ToolReport {
    let answer = tools.call(name, args).unwrap_or_else(|| {
        Err(crate::agents::CallError::NotOffered {
            tool: name.to_string(),
        })
    });
    let mut report = ToolReport::new(name, ToolMode::Mock);
    match answer {
        Ok(value) => report.succeeded(RawJson::from(&value)),
        Err(error) => report.answered_error(error.to_string()),
    }
    report
}
