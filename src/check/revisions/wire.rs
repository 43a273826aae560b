//! The connection the revision probes speak by hand, one request at a time under
//! the deadline, and its handshake: `server/discover`, then `initialize` when
//! discover is turned down and no pinned revision forbids it.

use serde_json::{Value as Json, json};
use tokio::time::Instant;

use crate::mcp::Revision;

use super::super::line_process::{LineProcess, Next};
use super::super::verdict::with_stderr;
use super::super::{Probe, ProbeResult};

/// The connection spoken by hand: one request at a time, each under the deadline.
pub(super) struct Wire {
    pub(super) process: LineProcess,
    pub(super) limit: std::time::Duration,
    pub(super) next_id: i64,
    /// Set once 2026-07-28 is spoken: each request then carries its `_meta`.
    pub(super) revision: Option<Revision>,
}

/// How a request was answered.
pub(super) enum Answer {
    Result(Json),
    Error {
        code: i64,
        message: String,
    },
    /// No answer by the deadline, or stdout closed; what was seen.
    Nothing(String),
}

impl Answer {
    pub(super) fn describe(&self) -> String {
        match self {
            Answer::Result(_) => "a result".into(),
            Answer::Error { code, message } => format!("JSON-RPC error {code} ({message})"),
            Answer::Nothing(why) => why.clone(),
        }
    }
}

impl Wire {
    /// Sends `method` with `params` (and, on 2026-07-28, the request `_meta` unless
    /// `bare`) and waits for its answer.
    pub(super) async fn ask(&mut self, method: &str, mut params: Json, bare: bool) -> Answer {
        let id = self.next_id;
        self.next_id += 1;
        if self.revision == Some(Revision::V2026_07_28) && !bare {
            params["_meta"] = request_meta(Revision::V2026_07_28);
        }
        let message = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.answer_to(id, &message).await
    }

    async fn answer_to(&mut self, id: i64, message: &Json) -> Answer {
        let deadline = Instant::now() + self.limit;
        let mut line = serde_json::to_vec(message).unwrap_or_default();
        line.push(b'\n');
        if !self.process.send(&line, deadline).await {
            return Answer::Nothing(self.said("it stopped reading its stdin"));
        }
        loop {
            match self.process.next(deadline).await {
                Next::Line(bytes) => {
                    let Ok(reply) = serde_json::from_slice::<Json>(&bytes) else {
                        continue;
                    };
                    if reply["id"] != json!(id) || reply.get("method").is_some() {
                        continue;
                    }
                    return match reply.get("error") {
                        Some(error) => Answer::Error {
                            code: error["code"].as_i64().unwrap_or_default(),
                            message: error["message"].as_str().unwrap_or_default().to_string(),
                        },
                        None => Answer::Result(reply["result"].clone()),
                    };
                }
                Next::Silent => {
                    return Answer::Nothing(format!(
                        "no answer to `{}` within {} ms",
                        message["method"].as_str().unwrap_or_default(),
                        self.limit.as_millis()
                    ));
                }
                Next::Eof | Next::Partial(_) => {
                    return Answer::Nothing(self.said("it closed its stdout"));
                }
                Next::TooLong(len) => {
                    return Answer::Nothing(format!("it wrote a line of {len} bytes"));
                }
            }
        }
    }

    fn said(&self, what: &str) -> String {
        with_stderr(what.to_string(), &self.process.stderr_tail())
    }

    async fn notify(&mut self, method: &str) {
        let mut line =
            serde_json::to_vec(&json!({"jsonrpc": "2.0", "method": method})).unwrap_or_default();
        line.push(b'\n');
        self.process.send(&line, Instant::now() + self.limit).await;
    }
}

/// The `_meta` every 2026-07-28 request carries.
fn request_meta(revision: Revision) -> Json {
    json!({
        "io.modelcontextprotocol/protocolVersion": revision.as_str(),
        "io.modelcontextprotocol/clientInfo":
            {"name": "promptexec", "version": env!("CARGO_PKG_VERSION")},
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

/// The revision the handshake settled on, and what the server declared.
pub(super) struct Spoken {
    /// `None`: an older revision than promptexec checks, named in `answered`.
    pub(super) revision: Option<Revision>,
    pub(super) answered: String,
    by_discover: bool,
    /// How `server/discover` was turned down, when `initialize` followed it.
    discover_refused: Option<String>,
    capabilities: Json,
}

impl Spoken {
    pub(super) fn verdict(&self) -> ProbeResult {
        let how = if self.by_discover {
            "by `server/discover`".to_string()
        } else {
            match &self.discover_refused {
                Some(refused) => {
                    format!("by `initialize`, after `server/discover` answered {refused}")
                }
                None => "by `initialize`".to_string(),
            }
        };
        ProbeResult::pass(
            Probe::SpeaksRevision,
            format!("speaks MCP {} {how}", self.answered),
        )
    }

    pub(super) fn declares(&self, capability: &str) -> bool {
        self.capabilities
            .get(capability)
            .is_some_and(|c| !c.is_null())
    }
}

/// `server/discover` (unless an older revision is pinned), then `initialize` when
/// discover is turned down and no pin forbids it.
pub(super) async fn handshake(
    wire: &mut Wire,
    pin: Option<Revision>,
) -> Result<Spoken, ProbeResult> {
    let mut discover_refused = None;
    if pin.is_none_or(|p| p == Revision::V2026_07_28) {
        let params = json!({"_meta": request_meta(Revision::V2026_07_28)});
        match wire.ask("server/discover", params, true).await {
            Answer::Result(found)
                if found["supportedVersions"]
                    .as_array()
                    .is_some_and(|v| v.contains(&json!(Revision::V2026_07_28.as_str()))) =>
            {
                wire.revision = Some(Revision::V2026_07_28);
                return Ok(Spoken {
                    revision: Some(Revision::V2026_07_28),
                    answered: Revision::V2026_07_28.as_str().to_string(),
                    by_discover: true,
                    discover_refused: None,
                    capabilities: found["capabilities"].clone(),
                });
            }
            nothing @ Answer::Nothing(_) => {
                return Err(no_handshake(pin, "server/discover", nothing));
            }
            other => {
                let refused = match &other {
                    Answer::Result(found) => match found.get("supportedVersions") {
                        Some(versions) => format!("supportedVersions {versions}"),
                        None => "a result that is no discover result".to_string(),
                    },
                    answer => answer.describe(),
                };
                if pin.is_some() {
                    return Err(ProbeResult::fail(
                        Probe::SpeaksRevision,
                        format!("held to MCP 2026-07-28, but `server/discover` answered {refused}"),
                        "the server does not speak 2026-07-28: check with a --spec-version it speaks, or none for the newest",
                    ));
                }
                discover_refused = Some(refused);
            }
        }
    }
    let proposed = pin.unwrap_or(Revision::V2025_11_25);
    let params = json!({
        "protocolVersion": proposed.as_str(),
        "capabilities": {},
        "clientInfo": {"name": "promptexec", "version": env!("CARGO_PKG_VERSION")},
    });
    let answer = wire.ask("initialize", params, true).await;
    let found = match answer {
        Answer::Result(found) => found,
        other => return Err(no_handshake(pin, "initialize", other)),
    };
    let answered = found["protocolVersion"].as_str().unwrap_or("").to_string();
    let revision = Revision::from_wire(&answered);
    if let Some(pin) = pin
        && revision != Some(pin)
    {
        return Err(ProbeResult::fail(
            Probe::SpeaksRevision,
            format!("held to MCP {pin}, but `initialize` answered revision `{answered}`"),
            "answer `initialize` in the revision asked for when the server speaks it; else check with a --spec-version it speaks, or none for the newest",
        ));
    }
    wire.notify("notifications/initialized").await;
    Ok(Spoken {
        revision,
        answered,
        by_discover: false,
        discover_refused,
        capabilities: found["capabilities"].clone(),
    })
}

fn no_handshake(pin: Option<Revision>, method: &str, answer: Answer) -> ProbeResult {
    let (held, hint) = match (pin, &answer) {
        (Some(pin), Answer::Error { .. }) => (
            format!("held to MCP {pin}: "),
            "the server turned the revision down: check with a --spec-version it speaks, or none for the newest",
        ),
        (Some(pin), _) => (
            format!("held to MCP {pin}: "),
            "answer the handshake of the revision asked for within timeout_ms",
        ),
        (None, _) => (
            String::new(),
            "answer `server/discover` (2026-07-28) or `initialize` (older revisions) within timeout_ms",
        ),
    };
    ProbeResult::fail(
        Probe::SpeaksRevision,
        format!("{held}`{method}` got {}", answer.describe()),
        hint,
    )
}
