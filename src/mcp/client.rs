//! One MCP server as the tool set uses it: started on first use, shared by every
//! call, restarted by the supervision policy after a crash, and shut down in order.
//!
//! Starts run under the state lock, so concurrent callers never start two
//! processes; each waits for the start, which has its own deadline (the server's
//! `timeout_ms`, or the default).

use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceError;
use rmcp::model::{CallToolRequestParams, PaginatedRequestParams};
use serde_json::{Value as Json, json};
use tokio::sync::{Mutex, OnceCell};
use tokio::time::Instant;

use crate::config::McpServer;
use crate::exec::rpc::{Decision, ExitHistory, RestartPolicy};
use crate::exec::{CallKind, Outcome};
use crate::tools::{ToolMode, ToolReport};

use super::catalog::{Catalog, Listing, McpTool};
use super::http::describe_transport;
use super::link::Link;
use super::names::admitted;
use super::paging::{self, Page, PagingError};
use super::{McpFailure, Revision, answer};

pub struct McpClient {
    server: McpServer,
    policy: RestartPolicy,
    state: Mutex<State>,
    /// The tools the filter lets in, listed once: the model is offered these.
    tools: OnceCell<Arc<Listing>>,
    /// The only MCP revision spoken, when one is pinned.
    revision: Option<Revision>,
}

#[derive(Default)]
struct State {
    link: Option<Arc<Link>>,
    /// Starts after the first one go through the policy.
    started: bool,
    history: Option<ExitHistory>,
    broken: Option<McpFailure>,
    /// Calls in a row that got no answer by their deadline.
    timeouts_in_a_row: u32,
}

impl McpClient {
    pub fn new(server: &McpServer) -> Self {
        Self::with_policy(server, RestartPolicy::default())
    }

    pub fn with_policy(server: &McpServer, policy: RestartPolicy) -> Self {
        Self {
            server: server.clone(),
            policy,
            state: Mutex::new(State::default()),
            tools: OnceCell::new(),
            revision: None,
        }
    }

    /// Speaks `revision` alone (none: the newest the server speaks).
    pub fn with_revision(mut self, revision: Option<Revision>) -> Self {
        self.revision = revision;
        self
    }

    pub fn name(&self) -> &str {
        &self.server.name
    }

    /// The deadline of every request, `initialize` included.
    fn deadline(&self) -> Duration {
        self.server
            .timeout
            .unwrap_or_else(|| CallKind::Mcp.default_timeout())
    }

    /// The live connection, started (or restarted, as the policy allows) when there
    /// is none.
    async fn link(&self) -> Result<Arc<Link>, McpFailure> {
        let mut state = self.state.lock().await;
        if let Some(broken) = &state.broken {
            return Err(broken.clone());
        }
        if let Some(link) = &state.link {
            if link.is_alive() {
                return Ok(Arc::clone(link));
            }
            link.close().await;
            state.link = None;
        }
        if state.started {
            let now = Instant::now();
            let history = state
                .history
                .get_or_insert_with(|| ExitHistory::new(&self.policy));
            match self.policy.decide(history, now) {
                Decision::Restart { after } => {
                    history.restarted(&self.policy, now);
                    tracing::info!(
                        "MCP server `{}` stopped; starting it again in {} ms",
                        self.server.name,
                        after.as_millis()
                    );
                    tokio::time::sleep(after).await;
                }
                Decision::Broken { stops } => {
                    let broken = McpFailure::Broken {
                        server: self.server.name.clone(),
                        stops,
                        window: self.policy.window,
                    };
                    state.broken = Some(broken.clone());
                    return Err(broken);
                }
            }
        }
        state.started = true;
        let link =
            Arc::new(Link::open_speaking(&self.server, self.deadline(), self.revision).await?);
        state.link = Some(Arc::clone(&link));
        Ok(link)
    }

    /// The server's tools that its filter lets in, listed on first use, sorted into
    /// those a model can be offered and those it cannot.
    pub async fn tools(&self) -> Result<Arc<Listing>, McpFailure> {
        self.tools
            .get_or_try_init(|| async {
                let link = self.link().await?;
                let peer = link.peer();
                let listed = self
                    .listed(&link, "tools", |page| peer.list_tools(page))
                    .await?;
                let tools = listed
                    .into_iter()
                    .filter_map(|t| McpTool::of(&self.server.name, t))
                    .map(|mut t| {
                        t.execution = t.execution.or_else(|| link.execution(&t.tool));
                        t
                    })
                    .filter(|t| admitted(&self.server.tool_filter, &self.server.name, &t.tool))
                    .collect();
                Ok(Arc::new(Listing::of(tools)))
            })
            .await
            .cloned()
    }

    /// Everything the server offers: tools, and prompts, resources and resource
    /// templates when its handshake says it has them.
    pub async fn catalog(&self) -> Result<Catalog, McpFailure> {
        let tools = self.tools().await?;
        let link = self.link().await?;
        let capabilities = link.peer().peer_info().map(|i| i.capabilities.clone());
        let offers = |what: fn(&rmcp::model::ServerCapabilities) -> bool| {
            capabilities.as_ref().is_some_and(what)
        };
        let peer = link.peer();
        let prompts = if offers(|c| c.prompts.is_some()) {
            self.listed(&link, "prompts", |page| peer.list_prompts(page))
                .await?
        } else {
            Vec::new()
        };
        // Templates come with resources; a server that does not know their method
        // has none.
        let (resources, resource_templates) = if offers(|c| c.resources.is_some()) {
            let resources = self
                .listed(&link, "resources", |page| peer.list_resources(page))
                .await?;
            let templates = self
                .listing(&link, "resource templates", |page| {
                    peer.list_resource_templates(page)
                })
                .await
                .or_else(none_when_unknown)?;
            (resources, templates)
        } else {
            (Vec::new(), Vec::new())
        };
        Ok(Catalog {
            server_info: link
                .server_info()
                .map(|(name, version)| json!({"name": name, "version": version})),
            protocol_version: link.protocol_version(),
            tools: tools.tools.clone(),
            rejected: tools.rejected.clone(),
            prompts,
            resources,
            resource_templates,
        })
    }

    /// A paginated listing under the deadline and the listing limits, its items as
    /// JSON.
    async fn listed<P, F, Fut>(
        &self,
        link: &Link,
        what: &'static str,
        page: F,
    ) -> Result<Vec<Json>, McpFailure>
    where
        P: Page,
        F: FnMut(Option<PaginatedRequestParams>) -> Fut,
        Fut: Future<Output = Result<P, ServiceError>>,
    {
        match self.listing(link, what, page).await {
            Ok(items) => Ok(items),
            Err(Unlisted::Unknown(err) | Unlisted::Failed(err)) => Err(err),
        }
    }

    /// [`Self::listed`], telling apart a server that does not know the method.
    async fn listing<P, F, Fut>(
        &self,
        link: &Link,
        what: &'static str,
        page: F,
    ) -> Result<Vec<Json>, Unlisted>
    where
        P: Page,
        F: FnMut(Option<PaginatedRequestParams>) -> Fut,
        Fut: Future<Output = Result<P, ServiceError>>,
    {
        let listing = paging::list_all(what, page);
        let mut unknown = false;
        let reason = match tokio::time::timeout(self.deadline(), listing).await {
            Ok(Ok(items)) => return Ok(items),
            Ok(Err(PagingError::Overrun(overrun))) => overrun.to_string(),
            // A server that died while listing says more by how it ended.
            Ok(Err(PagingError::Request(ServiceError::TransportClosed))) => match link.overlong() {
                Some(overlong) => {
                    link.kill();
                    format!("it {overlong}")
                }
                None => match link.settle().await {
                    Some(status) => format!("it {status}"),
                    None => "it closed the connection".into(),
                },
            },
            Ok(Err(PagingError::Request(err))) => {
                unknown = unknown_method(&err);
                describe(&err)
            }
            Err(_) => format!("no answer within {} ms", self.deadline().as_millis()),
        };
        let failure = McpFailure::Listing {
            server: self.server.name.clone(),
            what,
            reason,
            stderr_tail: link.stderr_tail(),
        };
        Err(if unknown {
            Unlisted::Unknown(failure)
        } else {
            Unlisted::Failed(failure)
        })
    }

    /// Calls the server's tool `tool` (its own name) and reports it under
    /// `reported_as`. The arguments were checked against its schema already.
    pub async fn call(
        &self,
        tool: &str,
        reported_as: &str,
        args: &Json,
        timeout: Option<Duration>,
    ) -> ToolReport {
        let started = Instant::now();
        let mut report = ToolReport::new(reported_as, ToolMode::Mcp);
        match self.link().await {
            Ok(link) => self.call_on(&link, tool, args, timeout, &mut report).await,
            Err(failure) => {
                report.stderr_tail = failure.stderr_tail().to_string();
                report.settle(Outcome::CouldNotStart {
                    reason: failure.to_string(),
                });
            }
        }
        report.duration_ms = started.elapsed().as_millis() as u64;
        report
    }

    async fn call_on(
        &self,
        link: &Link,
        tool: &str,
        args: &Json,
        timeout: Option<Duration>,
        report: &mut ToolReport,
    ) {
        let timeout = timeout.unwrap_or_else(|| self.deadline());
        let mut params = CallToolRequestParams::new(tool.to_string());
        if let Json::Object(map) = args {
            params = params.with_arguments(map.clone());
        }
        match tokio::time::timeout(timeout, link.peer().call_tool(params)).await {
            Ok(Ok(result)) => {
                self.answered().await;
                let result = serde_json::to_value(&result).unwrap_or(Json::Null);
                answer::settle(report, &result);
            }
            Ok(Err(ServiceError::McpError(err))) => {
                self.answered().await;
                report.answered_error(format!("{} (JSON-RPC error {})", err.message, err.code.0));
            }
            Ok(Err(ServiceError::TransportClosed)) if link.overlong().is_some() => {
                let overlong = link.overlong().unwrap_or_default();
                link.kill();
                report.stderr_tail = link.stderr_tail();
                report.settle(Outcome::ServerFailed {
                    reason: format!("MCP server `{}` {overlong}", self.server.name),
                });
            }
            Ok(Err(err @ (ServiceError::TransportClosed | ServiceError::TransportSend(_)))) => {
                let name = &self.server.name;
                let reason = match (link.settle().await, &err) {
                    (Some(status), _) => {
                        format!("MCP server `{name}` {status} while the call was in flight")
                    }
                    (None, ServiceError::TransportSend(cause)) => format!(
                        "MCP server `{name}`: the call could not be sent: {}",
                        describe_transport(cause)
                    ),
                    (None, _) => format!(
                        "MCP server `{name}` closed the connection while the call was in flight"
                    ),
                };
                report.stderr_tail = link.stderr_tail();
                report.settle(Outcome::ServerFailed { reason });
            }
            Ok(Err(err)) => report.settle(Outcome::ServerFailed {
                reason: format!("MCP server `{}`: {}", self.server.name, describe(&err)),
            }),
            Err(_) => {
                report.stderr_tail = link.stderr_tail();
                report.settle(Outcome::TimedOut {
                    after: timeout,
                    nothing_read: false,
                });
                self.timed_out(link).await;
            }
        }
    }

    /// An answer means the server is healthy: restarts back off from the start.
    async fn answered(&self) {
        let mut state = self.state.lock().await;
        state.timeouts_in_a_row = 0;
        if let Some(history) = &mut state.history {
            history.answered(&self.policy);
        }
    }

    /// Too many missed deadlines in a row mean the server stopped answering: it is
    /// stopped, and the next call starts a fresh one.
    async fn timed_out(&self, link: &Link) {
        let mut state = self.state.lock().await;
        state.timeouts_in_a_row += 1;
        if state.timeouts_in_a_row >= self.policy.timeouts_before_restart {
            tracing::warn!(
                "MCP server `{}` missed {} deadlines in a row; replacing it",
                self.server.name,
                state.timeouts_in_a_row
            );
            state.timeouts_in_a_row = 0;
            link.kill();
        }
    }

    /// Closes the connection in order: stdin closed, the grace period, the group
    /// stopped.
    pub async fn shutdown(&self) {
        let link = self.state.lock().await.link.take();
        if let Some(link) = link {
            link.close().await;
        }
    }

    /// Kills the server now (an interrupt).
    pub fn kill(&self) {
        // When a start holds the lock, the start's own guards kill what it spawned as
        // its future is dropped.
        if let Ok(mut state) = self.state.try_lock()
            && let Some(link) = state.link.take()
        {
            link.kill();
        }
    }
}

/// Why a listing has no items.
enum Unlisted {
    /// The server does not know the method: it answered "method not found", or with
    /// something that is not that listing (an empty result, say).
    Unknown(McpFailure),
    Failed(McpFailure),
}

/// A listing the server does not know has no items.
fn none_when_unknown(unlisted: Unlisted) -> Result<Vec<Json>, McpFailure> {
    match unlisted {
        Unlisted::Unknown(_) => Ok(Vec::new()),
        Unlisted::Failed(failure) => Err(failure),
    }
}

fn unknown_method(err: &ServiceError) -> bool {
    match err {
        ServiceError::McpError(data) => data.code == rmcp::model::ErrorCode::METHOD_NOT_FOUND,
        ServiceError::UnexpectedResponse => true,
        _ => false,
    }
}

fn describe(err: &ServiceError) -> String {
    match err {
        ServiceError::McpError(data) => {
            format!("{} (JSON-RPC error {})", data.message, data.code.0)
        }
        ServiceError::TransportClosed => "the connection closed".into(),
        ServiceError::TransportSend(err) => describe_transport(err),
        other => other.to_string(),
    }
}
