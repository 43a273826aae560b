//! One connection to an MCP server: the process (for stdio) or the HTTP transport (for
//! a URL), the handshake under a deadline, and an orderly close.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rmcp::model::{ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::{ClientCacheConfig, Peer, RoleClient, RunningService};
use rmcp::{ServiceExt, service::ClientInitializeError};

use crate::config::{McpEndpoint, McpServer};
use crate::exec::DEFAULT_GRACE;

use super::McpFailure;
use super::http;
use super::process::{MESSAGE_LIMIT, ServerProcess};

type Service = RunningService<RoleClient, ClientConfig>;

pub(super) struct Link {
    peer: Peer<RoleClient>,
    /// Taken on close; dropping it would close the connection too, but later.
    service: Mutex<Option<Service>>,
    process: Option<ServerProcess>,
    /// Set by [`Link::kill`]: a cancelled connection takes a moment to be seen closed.
    killed: AtomicBool,
}

impl Link {
    /// Starts (or reaches) `server` and shakes hands, within `deadline`.
    pub(super) async fn open(server: &McpServer, deadline: Duration) -> Result<Link, McpFailure> {
        match &server.endpoint {
            McpEndpoint::Stdio { exec, env } => {
                let (process, pipes) =
                    ServerProcess::start(&server.name, exec, env).map_err(|err| {
                        McpFailure::CouldNotStart {
                            server: server.name.clone(),
                            reason: err.to_string(),
                        }
                    })?;
                match tokio::time::timeout(deadline, identity().serve(pipes)).await {
                    Ok(Ok(service)) => Ok(Link::up(service, Some(process)).await),
                    Ok(Err(err)) => {
                        // An exit during the handshake says more than "connection
                        // closed": wait a moment for it to be known.
                        process.wait(Duration::from_millis(200)).await;
                        let reason = match process.exit_status() {
                            Some(status) => format!("it {status}"),
                            None => describe_init_error(&err),
                        };
                        process.kill();
                        Err(McpFailure::InitializeFailed {
                            server: server.name.clone(),
                            reason,
                            stderr_tail: process.stderr_tail(),
                        })
                    }
                    Err(_) => {
                        process.kill();
                        Err(McpFailure::InitializeTimedOut {
                            server: server.name.clone(),
                            after: deadline,
                            stderr_tail: process.stderr_tail(),
                        })
                    }
                }
            }
            McpEndpoint::Http { url, headers } => {
                let transport =
                    http::transport(url, headers).map_err(|err| McpFailure::CouldNotStart {
                        server: server.name.clone(),
                        reason: err.to_string(),
                    })?;
                match tokio::time::timeout(deadline, identity().serve(transport)).await {
                    Ok(Ok(service)) => Ok(Link::up(service, None).await),
                    Ok(Err(err)) => Err(McpFailure::InitializeFailed {
                        server: server.name.clone(),
                        reason: format!("{}: {}", http::authority(url), describe_init_error(&err)),
                        stderr_tail: String::new(),
                    }),
                    Err(_) => Err(McpFailure::InitializeTimedOut {
                        server: server.name.clone(),
                        after: deadline,
                        stderr_tail: String::new(),
                    }),
                }
            }
        }
    }

    async fn up(service: Service, process: Option<ServerProcess>) -> Link {
        // rmcp keeps each listed page a server marks cacheable (up to 512 of them) to
        // answer the same request again. promptexec lists once per connection, so the
        // copies would only cost memory outside the listing limits.
        service
            .peer()
            .set_response_cache_config(ClientCacheConfig::disabled())
            .await;
        Link {
            peer: service.peer().clone(),
            service: Mutex::new(Some(service)),
            process,
            killed: AtomicBool::new(false),
        }
    }

    pub(super) fn peer(&self) -> &Peer<RoleClient> {
        &self.peer
    }

    /// The server's name and version, as it gave them in its handshake.
    pub(super) fn server_info(&self) -> Option<(String, String)> {
        let info = self.peer.peer_info()?;
        let server = info.server_info.as_ref()?;
        Some((server.name.clone(), server.version.clone()))
    }

    /// Whether the server can still answer: its process runs and the connection is
    /// open.
    pub(super) fn is_alive(&self) -> bool {
        let exited = self
            .process
            .as_ref()
            .is_some_and(|p| p.exit_status().is_some());
        !exited && !self.killed.load(Ordering::Relaxed) && !self.peer.is_transport_closed()
    }

    /// Waits a moment for the process to be known gone after the connection closed.
    pub(super) async fn settle(&self) -> Option<String> {
        let process = self.process.as_ref()?;
        process.wait(Duration::from_millis(500)).await;
        process.exit_status()
    }

    /// Why the connection was cut: a message over the size limit, and its length.
    pub(super) fn overlong(&self) -> Option<String> {
        let len = self.process.as_ref()?.overlong()?;
        Some(format!(
            "wrote a message of more than {len} bytes, over the {MESSAGE_LIMIT}-byte limit; the connection was closed"
        ))
    }

    pub(super) fn stderr_tail(&self) -> String {
        self.process
            .as_ref()
            .map(ServerProcess::stderr_tail)
            .unwrap_or_default()
    }

    /// Closes the connection (for stdio: the server's stdin; for HTTP: the session,
    /// which rmcp ends with a DELETE), gives a process the grace period to exit, then
    /// stops its group.
    pub(super) async fn close(&self) {
        let service = self.service.lock().ok().and_then(|mut s| s.take());
        if let Some(mut service) = service {
            let _ = service.close_with_timeout(DEFAULT_GRACE).await;
        }
        if let Some(process) = &self.process {
            process.stop(DEFAULT_GRACE).await;
        }
    }

    /// Kills the process now. A server at a URL has none: its connection is cancelled
    /// instead, and [`Link::close`] still waits for its session to end.
    pub(super) fn kill(&self) {
        self.killed.store(true, Ordering::Relaxed);
        match &self.process {
            Some(process) => process.kill(),
            None => {
                if let Ok(service) = self.service.lock()
                    && let Some(service) = service.as_ref()
                {
                    service.cancellation_token().cancel();
                }
            }
        }
    }
}

/// How promptexec introduces itself in the handshake.
fn identity() -> ClientConfig {
    ClientConfig::new(
        ClientCapabilities::default(),
        Implementation::new("promptexec", env!("CARGO_PKG_VERSION")),
    )
}

fn describe_init_error(err: &ClientInitializeError) -> String {
    match err {
        ClientInitializeError::ConnectionClosed(_) => "it closed the connection".into(),
        ClientInitializeError::JsonRpcError(data) => {
            format!("{} (JSON-RPC error {})", data.message, data.code.0)
        }
        ClientInitializeError::TransportError { error, .. } => http::describe_transport(error),
        other => other.to_string(),
    }
}
