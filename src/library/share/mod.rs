//! Signed sharing: bundles of prompt templates and PromptKind sync packets, built and
//! checked by pure functions, so nothing received is trusted before its signature and
//! signer are.

mod bundle;
mod packet;

use std::time::SystemTime;

use super::sign::SignError;

pub use bundle::{BundleInfo, ManifestEntry, inspect_bundle, make_bundle, open_bundle};
pub use packet::{Receiving, VerifiedPacket, check_packet, make_packet};

pub const BUNDLE_FORMAT: &str = "promptexec-bundle/1";

#[derive(Debug, thiserror::Error)]
pub enum ShareError {
    #[error("not a promptexec bundle: {0}")]
    NotBundle(String),
    #[error("unsupported bundle format `{0}` (expected `{BUNDLE_FORMAT}`)")]
    WrongFormat(String),
    #[error("{what} signature does not verify")]
    BadSignature {
        what: &'static str,
        #[source]
        source: SignError,
    },
    #[error("{what} signer {signer} is not trusted (trust it with --trust DID)")]
    NoTrust { what: &'static str, signer: String },
    #[error("{what} signer {signer} is not among the trusted keys")]
    Untrusted { what: &'static str, signer: String },
    #[error("bundle manifest is malformed: {0}")]
    BadManifest(String),
    #[error("bundle manifest lists {manifest} prompts but the bundle holds {prompts}")]
    CountMismatch { manifest: usize, prompts: usize },
    #[error("bundle prompt #{index} has id `{found}` but the manifest says `{expected}`")]
    IdMismatch {
        index: usize,
        expected: String,
        found: String,
    },
    #[error("prompt `{id}` does not match its signed content hash (altered after signing)")]
    HashMismatch { id: String },
    #[error("prompt `{id}` is in the bundle twice; a bundle holds each prompt once")]
    DuplicateId { id: String },
    #[error(
        "the .prompt file of `{id}` does not match its signed hash or its prompt (altered after signing)"
    )]
    PromptFileMismatch { id: String },
    #[error("malformed sync packet: {0}")]
    BadPacket(String),
    #[error("sync packet promptId `{prompt_id}` differs from its promptJSON id `{json_id}`")]
    PromptIdMismatch { prompt_id: String, json_id: String },
    #[error("sync packet timestamp `{0}` is not an RFC 3339 time")]
    BadTimestamp(String),
    #[error("sync packet is addressed to {target}, not to this receiver {receiver}")]
    WrongReceiver { target: String, receiver: String },
    #[error("sync packet is {age} old, beyond the {window} window")]
    TooOld { age: String, window: String },
    #[error("sync packet is {ahead} in the future, beyond the {window} window")]
    FromFuture { ahead: String, window: String },
}

fn rfc3339(now: SystemTime) -> String {
    humantime::format_rfc3339_seconds(now).to_string()
}

fn check_trust(what: &'static str, signer: &str, trusted: &[String]) -> Result<(), ShareError> {
    if trusted.iter().any(|t| t == signer) {
        return Ok(());
    }
    let signer = signer.to_string();
    Err(if trusted.is_empty() {
        ShareError::NoTrust { what, signer }
    } else {
        ShareError::Untrusted { what, signer }
    })
}

#[cfg(test)]
mod tests {
    use std::time::SystemTime;

    use serde_json::{Value as Json, json};

    use super::super::sign::KeyPair;

    pub(super) fn key(byte: u8) -> KeyPair {
        KeyPair::from_seed_hex(&format!("{byte:02x}").repeat(32)).expect("seed")
    }

    pub(super) fn t0() -> SystemTime {
        humantime::parse_rfc3339("2025-06-01T12:00:00Z").expect("time")
    }

    pub(super) fn template(id: &str) -> Json {
        json!({
            "id": id, "title": "Greeting", "template": "Hello {{name}}", "slots": ["name"],
            "tags": ["demo"], "owner": "alice", "auditable": true, "version": "1",
            "metadata": {"b": 2, "a": 1},
        })
    }
}
