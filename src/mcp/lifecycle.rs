//! How a connection starts, by the revision it is to speak: `server/discover` for
//! 2026-07-28, `initialize` for the older revisions, or (with no revision pinned)
//! `server/discover` first and `initialize` when the server turns out to be older.
//!
//! rmcp falls back only on a JSON-RPC error to `server/discover`, or after ten
//! seconds of silence. [`Probing`] sits under it and makes the other answers of older
//! servers quick and plain: a result that is no discover result, a discover result
//! naming no revision promptexec starts with (or an "unsupported protocol version"
//! error naming only older ones), and silence while the same server
//! answers a `ping` (which every revision allows before the handshake) all come back
//! as the `-32601` an older server normally gives.

use std::time::Duration;

use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, ErrorCode, ErrorData, PingRequest, ProtocolVersion,
    RequestId, ServerJsonRpcMessage, ServerResult,
};
use rmcp::service::{ClientLifecycleMode, RoleClient};
use rmcp::transport::Transport;
use tokio::time::Instant;

use super::Revision;

/// How long `server/discover` may go unanswered before a `ping` asks whether the
/// server reads requests at all. A server that is up answers discover within a few
/// milliseconds; one still starting finds both requests waiting, in order.
const PING_AFTER: Duration = Duration::from_millis(25);

/// Once the `ping` is answered, how long `server/discover` still has: a server that
/// handles requests concurrently may answer them out of order.
const DISCOVER_GRACE: Duration = Duration::from_millis(100);

/// The id of the `ping`; rmcp numbers its own requests.
const PING_ID: &str = "promptexec-discover-ping";

/// The revision promptexec names in `initialize` when it falls back.
const FALLBACK: ProtocolVersion = ProtocolVersion::V_2025_11_25;

/// The lifecycle for `pin` (none: discover first, then `initialize`).
pub(super) fn mode(pin: Option<Revision>) -> ClientLifecycleMode {
    match pin {
        None => ClientLifecycleMode::Auto {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            legacy_version: Some(FALLBACK),
        },
        Some(Revision::V2026_07_28) => ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
        Some(_) => ClientLifecycleMode::Initialize,
    }
}

/// The protocol version `initialize` proposes for `pin`.
pub(super) fn proposed(pin: Option<Revision>) -> ProtocolVersion {
    match pin {
        Some(Revision::V2025_06_18) => ProtocolVersion::V_2025_06_18,
        Some(Revision::V2025_11_25) | None => FALLBACK,
        Some(Revision::V2026_07_28) => ProtocolVersion::V_2026_07_28,
    }
}

/// A transport that makes an older server's answer to `server/discover` quick and
/// plain (see the module docs). It changes nothing once the handshake is over.
pub(super) struct Probing<T> {
    inner: T,
    /// Whether a `ping` may be sent (stdio); over HTTP every request gets an answer.
    may_ping: bool,
    /// A discover result naming no revision promptexec starts with counts as an
    /// error (when it can fall back to `initialize`).
    narrow_versions: bool,
    discover: Option<(RequestId, Instant)>,
    ping: Ping,
    /// `server/discover` was answered, or answered for: later answers to it and to
    /// the ping are dropped.
    settled: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Ping {
    NotSent,
    Sent,
    Answered(Instant),
}

impl<T> Probing<T> {
    pub(super) fn new(inner: T, may_ping: bool, pin: Option<Revision>) -> Self {
        Self {
            inner,
            may_ping,
            narrow_versions: pin.is_none(),
            discover: None,
            ping: Ping::NotSent,
            settled: false,
        }
    }

    /// When to act next while `server/discover` is unanswered.
    fn wake_at(&self) -> Option<Instant> {
        let (_, sent) = self.discover.as_ref()?;
        if self.settled || !self.may_ping {
            return None;
        }
        match self.ping {
            Ping::NotSent => Some(*sent + PING_AFTER),
            Ping::Sent => None,
            Ping::Answered(at) => Some(at + DISCOVER_GRACE),
        }
    }

    /// The answer the handshake gets for `message`, or nothing when it is dropped.
    fn screen(&mut self, message: ServerJsonRpcMessage) -> Option<ServerJsonRpcMessage> {
        let id = match &message {
            ServerJsonRpcMessage::Response(r) => Some(&r.id),
            ServerJsonRpcMessage::Error(e) => e.id.as_ref(),
            _ => None,
        };
        if id.is_some_and(is_ping) {
            if self.ping == Ping::Sent {
                self.ping = Ping::Answered(Instant::now());
            }
            return None;
        }
        // With no `server/discover` sent (a pinned older revision) every answer is
        // the handshake's own.
        let Some(discover) = self.discover.as_ref().map(|(id, _)| id.clone()) else {
            return Some(message);
        };
        if id != Some(&discover) {
            return Some(message);
        }
        if self.settled {
            return None;
        }
        self.settled = true;
        match &message {
            ServerJsonRpcMessage::Response(r) => match &r.result {
                ServerResult::DiscoverResult(found)
                    if !self.narrow_versions
                        || found
                            .supported_versions
                            .contains(&ProtocolVersion::V_2026_07_28) =>
                {
                    Some(message)
                }
                ServerResult::DiscoverResult(found) => Some(older(
                    discover,
                    format!(
                        "server/discover lists only {}",
                        found
                            .supported_versions
                            .iter()
                            .map(ToString::to_string)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )),
                _ => Some(older(
                    discover,
                    "server/discover was answered with a result that is not a discover result",
                )),
            },
            // "Unsupported protocol version", naming only older ones: rmcp would stop
            // there, but `initialize` can still agree on one of them.
            ServerJsonRpcMessage::Error(e)
                if self.narrow_versions
                    && e.error.code == ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
                    && !names_latest(e.error.data.as_ref()) =>
            {
                Some(older(discover, e.error.message.to_string()))
            }
            _ => Some(message),
        }
    }
}

/// Whether an "unsupported protocol version" error's `data.supported` names
/// 2026-07-28.
fn names_latest(data: Option<&serde_json::Value>) -> bool {
    data.and_then(|d| d["supported"].as_array())
        .is_some_and(|versions| {
            versions
                .iter()
                .any(|v| v.as_str() == Some(ProtocolVersion::V_2026_07_28.as_str()))
        })
}

fn is_ping(id: &RequestId) -> bool {
    matches!(id, RequestId::String(s) if &**s == PING_ID)
}

/// The error an older server gives to `server/discover`, standing in for `why`.
fn older(id: RequestId, why: impl Into<String>) -> ServerJsonRpcMessage {
    ServerJsonRpcMessage::error(
        ErrorData::new(ErrorCode::METHOD_NOT_FOUND, why.into(), None),
        Some(id),
    )
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Probing<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let ClientJsonRpcMessage::Request(request) = &item {
            match request.request {
                ClientRequest::DiscoverRequest(_) => {
                    self.discover = Some((request.id.clone(), Instant::now()));
                    self.settled = false;
                }
                // The handshake moved on: whatever still comes for discover is late.
                ClientRequest::InitializeRequest(_) => self.settled = true,
                _ => {}
            }
        }
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        loop {
            let message = match self.wake_at() {
                Some(at) => tokio::select! {
                    message = self.inner.receive() => message,
                    () = tokio::time::sleep_until(at) => {
                        if let Some(answer) = self.woken().await {
                            return Some(answer);
                        }
                        continue;
                    }
                },
                None => self.inner.receive().await,
            };
            if let Some(message) = self.screen(message?) {
                return Some(message);
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

impl<T: Transport<RoleClient>> Probing<T> {
    /// The ping is due, or its grace is over: sends the one, or answers for
    /// `server/discover`.
    async fn woken(&mut self) -> Option<ServerJsonRpcMessage> {
        match self.ping {
            Ping::NotSent => {
                self.ping = Ping::Sent;
                let ping = ClientJsonRpcMessage::request(
                    ClientRequest::PingRequest(PingRequest::default()),
                    RequestId::String(PING_ID.into()),
                );
                // A ping that cannot be sent leaves the handshake to wait as before.
                let _ = self.inner.send(ping).await;
                None
            }
            Ping::Sent => None,
            Ping::Answered(_) => {
                let (id, _) = self.discover.clone()?;
                self.settled = true;
                Some(older(
                    id,
                    "server/discover went unanswered while ping was answered",
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ClientConfig;
    use rmcp::service::ClientServiceExt;
    use rmcp::transport::IntoTransport;
    use rmcp::transport::async_rw::TransportAdapterAsyncRW;
    use serde_json::{Value as Json, json};
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    /// A server played by `answer`: given each request's method and id, the answers
    /// to write (to that request or to an earlier one), each with its id.
    fn played(
        mut answer: impl FnMut(&str, &Json) -> Vec<Json> + Send + 'static,
    ) -> impl Transport<RoleClient> {
        let (client, server) = tokio::io::duplex(1 << 16);
        tokio::spawn(async move {
            let (read, mut write) = tokio::io::split(server);
            let mut lines = BufReader::new(read).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let message: Json = serde_json::from_str(&line).expect("JSON");
                let (Some(method), Some(id)) = (message["method"].as_str(), message.get("id"))
                else {
                    continue;
                };
                for mut reply in answer(method, id) {
                    reply["jsonrpc"] = json!("2.0");
                    let mut bytes = serde_json::to_vec(&reply).expect("bytes");
                    bytes.push(b'\n');
                    if write.write_all(&bytes).await.is_err() {
                        return;
                    }
                }
            }
        });
        IntoTransport::<RoleClient, std::io::Error, TransportAdapterAsyncRW>::into_transport(
            tokio::io::split(client),
        )
    }

    fn result(id: &Json, result: Json) -> Vec<Json> {
        vec![json!({"id": id, "result": result})]
    }

    fn initialized(id: &Json, version: &str) -> Vec<Json> {
        result(
            id,
            json!({
                "protocolVersion": version,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "played", "version": "1"}
            }),
        )
    }

    fn discovered(versions: &[&str]) -> Json {
        json!({
            "resultType": "complete",
            "supportedVersions": versions,
            "capabilities": {"tools": {}},
            "ttlMs": 0,
            "cacheScope": "private"
        })
    }

    /// The revision the handshake settled on, and how long it took.
    async fn settle(transport: impl Transport<RoleClient> + 'static) -> (String, Duration) {
        let started = Instant::now();
        let handshake = ClientConfig::default()
            .with_protocol_version(proposed(None))
            .serve_with_lifecycle(Probing::new(transport, true, None), mode(None));
        let service = tokio::time::timeout(Duration::from_secs(20), handshake)
            .await
            .expect("a handshake within 20 s")
            .expect("a handshake");
        let version = service
            .peer()
            .peer_info()
            .expect("peer info")
            .protocol_version
            .to_string();
        (version, started.elapsed())
    }

    #[tokio::test]
    async fn a_result_that_is_no_discover_result_falls_back_to_initialize() {
        let transport = played(|method, id| match method {
            "initialize" => initialized(id, "2025-06-18"),
            _ => result(id, json!({})),
        });
        assert_eq!(settle(transport).await.0, "2025-06-18");
    }

    #[tokio::test]
    async fn a_discover_result_naming_only_older_revisions_falls_back_to_initialize() {
        let transport = played(|method, id| match method {
            "server/discover" => result(id, discovered(&["2025-06-18"])),
            "initialize" => initialized(id, "2025-06-18"),
            _ => Vec::new(),
        });
        assert_eq!(settle(transport).await.0, "2025-06-18");
    }

    #[tokio::test]
    async fn silence_to_discover_while_ping_is_answered_falls_back_at_once() {
        let transport = played(|method, id| match method {
            "ping" => result(id, json!({})),
            "initialize" => initialized(id, "2025-11-25"),
            _ => Vec::new(),
        });
        let (version, took) = settle(transport).await;
        assert_eq!(version, "2025-11-25");
        assert!(took < Duration::from_secs(2), "took {took:?}");
    }

    #[tokio::test]
    async fn discover_answered_after_ping_still_speaks_2026_07_28() {
        // A server that handles requests concurrently: ping's answer comes first.
        let mut waiting = None;
        let transport = played(move |method, id| match method {
            "server/discover" => {
                waiting = Some(id.clone());
                Vec::new()
            }
            "ping" => {
                let mut replies = result(id, json!({}));
                if let Some(discover) = waiting.take() {
                    replies.extend(result(&discover, discovered(&["2026-07-28"])));
                }
                replies
            }
            _ => Vec::new(),
        });
        assert_eq!(settle(transport).await.0, "2026-07-28");
    }

    /// The handshake pinned to `pin`: the revision settled on, or why none was.
    async fn pinned(transport: impl Transport<RoleClient> + 'static, pin: Revision) -> String {
        let pin = Some(pin);
        let handshake = ClientConfig::default()
            .with_protocol_version(proposed(pin))
            .serve_with_lifecycle(Probing::new(transport, true, pin), mode(pin));
        match tokio::time::timeout(Duration::from_secs(20), handshake)
            .await
            .expect("a handshake within 20 s")
        {
            Ok(service) => service
                .peer()
                .peer_info()
                .expect("peer info")
                .protocol_version
                .to_string(),
            Err(err) => err.to_string(),
        }
    }

    #[tokio::test]
    async fn a_pinned_older_revision_is_asked_for_by_initialize_alone() {
        let transport = played(|method, id| match method {
            "initialize" => initialized(id, "2025-11-25"),
            _ => panic!("{method} before initialize"),
        });
        assert_eq!(pinned(transport, Revision::V2025_11_25).await, "2025-11-25");
    }

    #[tokio::test]
    async fn a_pinned_2026_07_28_does_not_fall_back() {
        let transport = played(|method, id| match method {
            "initialize" => initialized(id, "2025-06-18"),
            _ => vec![json!({"id": id, "error": {"code": -32601, "message": "no"}})],
        });
        let refused = pinned(transport, Revision::V2026_07_28).await;
        assert!(refused.contains("-32601"), "{refused}");
    }

    #[test]
    fn a_pinned_revision_chooses_its_one_handshake() {
        assert!(matches!(
            mode(Some(Revision::V2026_07_28)),
            ClientLifecycleMode::Discover { .. }
        ));
        assert_eq!(
            mode(Some(Revision::V2025_06_18)),
            ClientLifecycleMode::Initialize
        );
        assert_eq!(
            proposed(Some(Revision::V2025_06_18)),
            ProtocolVersion::V_2025_06_18
        );
        assert_eq!(proposed(None), ProtocolVersion::V_2025_11_25);
    }
}
