//! Why a supervised process could not take a call: it is broken, could not be
//! started, or failed its handshake.

use std::time::Duration;

use serde_json::Value as Json;

use super::{RpcError, Timeout};
use crate::exec::spawn::SpawnError;
use crate::exec::tail::stderr_note;

/// A handshake reply that is not an acceptance.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Refused {
    #[error("it answered {answered}, without {wanted}")]
    Unexpected {
        answered: Json,
        wanted: &'static str,
    },
    #[error("it answered JSON-RPC error {code}: {message}")]
    Error { code: i64, message: String },
}

/// Why a handshake did not succeed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum HandshakeError {
    #[error(transparent)]
    Refused(#[from] Refused),
    #[error("{timeout}{}", stderr_note(.stderr_tail))]
    NoReply {
        timeout: Timeout,
        stderr_tail: String,
    },
    /// The process ended before answering; the error quotes its stderr.
    #[error(transparent)]
    Exited(RpcError),
}

/// Why there is no process to call.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ServerError {
    #[error(
        "`{name}` is broken: it stopped {stops} times within {} s (last: it {last}){}",
        window.as_secs(),
        stderr_last.as_ref().map(|l| format!("; its stderr ended with: {l}")).unwrap_or_default()
    )]
    Broken {
        name: String,
        stops: usize,
        window: Duration,
        last: String,
        stderr_last: Option<String>,
    },
    #[error(transparent)]
    Spawn(#[from] SpawnError),
    #[error("`{name}` failed its `{method}` handshake: {why}")]
    Handshake {
        name: String,
        method: &'static str,
        why: HandshakeError,
    },
    #[error("`{name}` was stopped while it started")]
    Stopped { name: String },
}

/// Why [`Supervisor::client_by`] returned without a process.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Unavailable {
    #[error(transparent)]
    Failed(#[from] ServerError),
    #[error("the process was still starting at the deadline")]
    Late,
}
