use std::time::Duration;

use serde_json::Value as Json;
use tokio_util::sync::CancellationToken;

use crate::config::{ExecSpec, RuntimeMode};

use super::{ToolReport, ToolRequest, ToolServer, call_tool, tool_request};

/// One tool, however it runs: a process per call, or a supervised server.
pub enum ToolCaller {
    OneShot { name: String, spec: ExecSpec },
    Server(Box<ToolServer>),
}

impl ToolCaller {
    pub fn new(name: &str, spec: &ExecSpec) -> Self {
        match spec.runtime {
            RuntimeMode::Exec => ToolCaller::OneShot {
                name: name.to_string(),
                spec: spec.clone(),
            },
            RuntimeMode::Server => ToolCaller::Server(Box::new(ToolServer::new(name, spec))),
        }
    }

    pub async fn call(
        &self,
        args: &Json,
        timeout: Option<Duration>,
        cancel: &CancellationToken,
    ) -> ToolReport {
        self.send(tool_request(args, None), timeout, cancel).await
    }

    /// Calls the tool again after a person decided on its `pending` answer.
    pub async fn resolve(
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
        }
    }

    /// On an interrupt a server is not waited for.
    pub fn stop_now(&self) {
        if let ToolCaller::Server(server) = self {
            server.kill();
        }
    }

    pub async fn shutdown(&self) {
        if let ToolCaller::Server(server) = self {
            server.shutdown().await;
        }
    }
}
