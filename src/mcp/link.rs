//! One connection to an MCP server: the process (for stdio) or the HTTP transport (for
//! a URL), the handshake under a deadline, and an orderly close.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rmcp::model::{ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::{
    ClientCacheConfig, ClientInitializeError, ClientServiceExt, Peer, RoleClient, RunningService,
};
use rmcp::transport::async_rw::TransportAdapterAsyncRW;
use rmcp::transport::{IntoTransport, Transport};

use crate::config::{McpEndpoint, McpServer};
use crate::exec::DEFAULT_GRACE;

use super::lifecycle::{self, Probing};
use super::process::{MESSAGE_LIMIT, ServerProcess};
use super::{McpFailure, Revision, http};

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
    /// Starts (or reaches) `server` and shakes hands, within `deadline`: by
    /// `server/discover` when the server speaks 2026-07-28, else by `initialize`;
    /// `pin` alone when it is given (a server that does not speak it fails the
    /// handshake).
    pub(super) async fn open_speaking(
        server: &McpServer,
        deadline: Duration,
        pin: Option<Revision>,
    ) -> Result<Link, McpFailure> {
        match &server.endpoint {
            McpEndpoint::Stdio { exec, env } => {
                let (process, pipes) =
                    ServerProcess::start(&server.name, exec, env).map_err(|err| {
                        McpFailure::CouldNotStart {
                            server: server.name.clone(),
                            reason: err.to_string(),
                        }
                    })?;
                let pipes =
                    IntoTransport::<RoleClient, std::io::Error, TransportAdapterAsyncRW>::into_transport(
                        pipes,
                    );
                let handshake = shake_hands(Probing::new(pipes, true, pin), pin);
                match tokio::time::timeout(deadline, handshake).await {
                    Ok(Ok(service)) => Ok(Link::up(&server.name, service, Some(process)).await),
                    Ok(Err(Refused::Revision(reason))) => {
                        process.kill();
                        Err(McpFailure::InitializeFailed {
                            server: server.name.clone(),
                            reason,
                            stderr_tail: process.stderr_tail(),
                        })
                    }
                    Ok(Err(Refused::Handshake(err))) => {
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
                let handshake = shake_hands(Probing::new(transport, false, pin), pin);
                match tokio::time::timeout(deadline, handshake).await {
                    Ok(Ok(service)) => Ok(Link::up(&server.name, service, None).await),
                    Ok(Err(Refused::Revision(reason))) => Err(McpFailure::InitializeFailed {
                        server: server.name.clone(),
                        reason,
                        stderr_tail: String::new(),
                    }),
                    Ok(Err(Refused::Handshake(err))) => Err(McpFailure::InitializeFailed {
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

    async fn up(name: &str, service: Service, process: Option<ServerProcess>) -> Link {
        // rmcp keeps each listed page a server marks cacheable (up to 512 of them) to
        // answer the same request again. promptexec lists once per connection, so the
        // copies would only cost memory outside the listing limits.
        service
            .peer()
            .set_response_cache_config(ClientCacheConfig::disabled())
            .await;
        let link = Link {
            peer: service.peer().clone(),
            service: Mutex::new(Some(service)),
            process,
            killed: AtomicBool::new(false),
        };
        if let Some(revision) = link.protocol_version() {
            let by = if Revision::from_wire(&revision) == Some(Revision::V2026_07_28) {
                "server/discover"
            } else {
                "initialize"
            };
            tracing::info!("MCP server `{name}` speaks revision {revision} (by {by})");
        }
        link
    }

    pub(super) fn peer(&self) -> &Peer<RoleClient> {
        &self.peer
    }

    /// The revision the handshake settled on, by its date (`2026-07-28`); one older
    /// than promptexec names is given as the server named it.
    pub(super) fn protocol_version(&self) -> Option<String> {
        Some(self.peer.peer_info()?.protocol_version.to_string())
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

    /// A listed tool's `execution`, which the SDK's listing drops (stdio only).
    pub(super) fn execution(&self, tool: &str) -> Option<serde_json::Value> {
        self.process.as_ref()?.execution(tool)
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

/// Why a handshake did not give a connection.
enum Refused {
    Handshake(Box<ClientInitializeError>),
    /// The server answered, in a revision other than the pinned one.
    Revision(String),
}

/// The handshake for `pin` over `transport`; with a pinned revision before
/// 2026-07-28, the server must answer `initialize` in that revision.
async fn shake_hands<T>(transport: T, pin: Option<Revision>) -> Result<Service, Refused>
where
    T: Transport<RoleClient> + 'static,
{
    let client = identity().with_protocol_version(lifecycle::proposed(pin));
    let service = client
        .serve_with_lifecycle(transport, lifecycle::mode(pin))
        .await
        .map_err(|err| Refused::Handshake(Box::new(err)))?;
    let Some(pin) = pin else {
        return Ok(service);
    };
    let answered = service
        .peer()
        .peer_info()
        .map(|info| info.protocol_version.to_string());
    if answered.as_deref() == Some(pin.as_str()) {
        return Ok(service);
    }
    let _ = service.cancel().await;
    Err(Refused::Revision(format!(
        "it answered in revision {}, not the {pin} asked for",
        answered.as_deref().unwrap_or("(none)")
    )))
}

fn describe_init_error(err: &ClientInitializeError) -> String {
    match err {
        ClientInitializeError::NoCompatibleProtocolVersion {
            server_supported, ..
        } => format!(
            "it speaks {}, not 2026-07-28",
            server_supported
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        ClientInitializeError::LegacyFallbackFailed { fallback, .. } => {
            describe_init_error(fallback)
        }
        ClientInitializeError::ConnectionClosed(_) => "it closed the connection".into(),
        ClientInitializeError::JsonRpcError(data) => {
            format!("{} (JSON-RPC error {})", data.message, data.code.0)
        }
        ClientInitializeError::ExpectedInitResult(_) => {
            "it answered the handshake with something else than its result".into()
        }
        ClientInitializeError::TransportError { error, .. } => http::describe_transport(error),
        other => other.to_string(),
    }
}
