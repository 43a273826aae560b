//! promptexec's recording format: what `--record FILE` writes and `--replay FILE` reads.
//!
//! ```json
//! {
//!   "promptexec_recording": 1,
//!   "provider": {"name": "support-gpt", "type": "openai", "model": "gpt-4o-mini"},
//!   "recorded_at": "2026-08-21T09:30:00Z",
//!   "sessions": [
//!     {
//!       "exchanges": [
//!         {
//!           "turn": 1,
//!           "round": 1,
//!           "offset_ms": 0,
//!           "latency_ms": 812,
//!           "match": {
//!             "system": "You are a support agent.",
//!             "messages": [{"role": "user", "content": "Where is A-1002?"}],
//!             "tools": ["lookup_order"]
//!           },
//!           "request": {"model": "gpt-4o-mini", "messages": ["…"]},
//!           "response": {"choices": ["…"]},
//!           "attempts": 1,
//!           "answer": {
//!             "content": "",
//!             "tool_calls": [{"id": "call_1", "name": "lookup_order", "args": {"order_id": "A-1002"}}]
//!           },
//!           "usage": {"input_tokens": 120, "output_tokens": 18, "cost_usd": 0.00021}
//!         }
//!       ]
//!     }
//!   ]
//! }
//! ```
//!
//! - `promptexec_recording` is the format's version; a version this build does not know
//!   is refused rather than half-read.
//! - `provider` names the provider that answered: its name, type and model. Never a
//!   header, never a key.
//! - `recorded_at` is when the recording was made, RFC 3339 in UTC.
//! - `sessions` holds one entry per conversation: `run` writes one; a scenario with
//!   trials writes one per trial, and trial k replays `sessions[k-1]`.
//! - Each exchange is one model call: its 1-based `turn` and `round`; `offset_ms` since
//!   the session's first call started and `latency_ms`, how long it took; `request` and
//!   `response`, the bodies as sent and as received (`null` when nothing went over the
//!   wire, as with the mock); `attempts`, how many tries it took; `answer`, the
//!   assistant message the session was given; `usage`, tokens and cost, when known.
//! - `match` is what a replayed call is compared with: the system prompt, the
//!   conversation so far in a comparable form (`role`; `content`; `tool_calls` as
//!   `{name, args}`, without the ids the model made up; `tool_result` as
//!   `{name, content, error}`; empty parts left out) and the names of the tools on
//!   offer. A part that is left out is not compared, so deleting `system` from an
//!   exchange lets the prompt change without breaking the replay.
//!
//! Fields left out of a hand-written exchange take their defaults (`offset_ms` and
//! `latency_ms` 0, `request` and `response` null, `attempts` 1, no `usage`); a field
//! the format does not have is an error, so a misspelt one is never silently ignored.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value as Json;

use crate::provider::Usage;

/// The format version this build writes and reads.
pub const FORMAT_VERSION: u64 = 1;

/// A whole recording: one or more sessions of model exchanges.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a promptexec recording object")]
pub struct Recording {
    #[serde(rename = "promptexec_recording")]
    pub version: FormatVersion,
    pub provider: ProviderInfo,
    pub recorded_at: String,
    pub sessions: Vec<RecordedSession>,
}

/// The provider that answered the recorded calls.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a provider object")]
pub struct ProviderInfo {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

impl ProviderInfo {
    /// What a recording says about a configured provider: its name, type and model.
    pub fn of(provider: &crate::config::Provider) -> ProviderInfo {
        ProviderInfo {
            name: provider.name().to_string(),
            kind: provider.kind.clone(),
            model: provider.model.clone(),
        }
    }
}

/// One conversation's model calls, in the order they were made.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a session object")]
pub struct RecordedSession {
    pub exchanges: Vec<RecordedExchange>,
}

/// One model call and its answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, expecting = "an exchange object")]
pub struct RecordedExchange {
    pub turn: u32,
    pub round: u32,
    #[serde(default)]
    pub offset_ms: u64,
    #[serde(default)]
    pub latency_ms: u64,
    #[serde(rename = "match")]
    pub request_match: RequestMatch,
    #[serde(default)]
    pub request: Option<WireBody>,
    #[serde(default)]
    pub response: Option<WireBody>,
    #[serde(default = "one_attempt")]
    pub attempts: u32,
    pub answer: RecordedAnswer,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn one_attempt() -> u32 {
    1
}

/// A request or response body as it went over the wire. Kept as written: a replay
/// never reads one, and each repeats the conversation, so parsing them would make
/// loading a long recording cost the square of its length.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(transparent)]
pub struct WireBody(Box<serde_json::value::RawValue>);

impl WireBody {
    pub fn of(body: &Json) -> WireBody {
        // A JSON value always writes; the default (`null`) is never taken.
        WireBody(serde_json::value::to_raw_value(body).unwrap_or_default())
    }

    pub fn to_json(&self) -> Json {
        serde_json::from_str(self.0.get()).unwrap_or(Json::Null)
    }
}

impl PartialEq for WireBody {
    fn eq(&self, other: &WireBody) -> bool {
        self.0.get() == other.0.get()
    }
}

/// What a model call is compared by; a part that is `None` is not compared.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a match object")]
pub struct RequestMatch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    /// Where `messages` starts in the conversation: the messages before it were
    /// compared at the session's earlier calls, so each is kept once and a recording
    /// grows with the conversation, not with its square.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub from: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<Vec<NormalizedMessage>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
}

/// A message in the form two requests are compared in.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a message object")]
pub struct NormalizedMessage {
    pub role: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub content: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<NormalizedToolCall>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_result: Option<NormalizedToolResult>,
}

/// A tool call without its id, which the model made up.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a tool call object")]
pub struct NormalizedToolCall {
    pub name: String,
    #[serde(default)]
    pub args: Json,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a tool result object")]
pub struct NormalizedToolResult {
    pub name: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub content: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The assistant message a recorded call answered with.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, expecting = "an answer object")]
pub struct RecordedAnswer {
    #[serde(default)]
    pub content: String,
    #[serde(default)]
    pub tool_calls: Vec<RecordedToolCall>,
    /// What was wrong with the answer (cut at the token limit, say), found again on
    /// every replay.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a tool call object")]
pub struct RecordedToolCall {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub args: Json,
}

/// The format version, which reads only as one this build knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FormatVersion;

impl Serialize for FormatVersion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u64(FORMAT_VERSION)
    }
}

impl<'de> Deserialize<'de> for FormatVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(VersionVisitor)
    }
}

struct VersionVisitor;

impl Visitor<'_> for VersionVisitor {
    type Value = FormatVersion;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "the format version {FORMAT_VERSION}")
    }

    fn visit_u64<E: de::Error>(self, version: u64) -> Result<FormatVersion, E> {
        if version == FORMAT_VERSION {
            Ok(FormatVersion)
        } else {
            Err(E::custom(format!(
                "recording format version {version} is not one this promptexec reads (it reads version {FORMAT_VERSION})"
            )))
        }
    }

    fn visit_i64<E: de::Error>(self, version: i64) -> Result<FormatVersion, E> {
        match u64::try_from(version) {
            Ok(version) => self.visit_u64(version),
            Err(_) => Err(E::invalid_value(de::Unexpected::Signed(version), &self)),
        }
    }
}

impl Recording {
    /// An empty recording of `provider`'s answers, stamped with the time now.
    pub fn new(provider: ProviderInfo) -> Recording {
        Recording {
            version: FormatVersion,
            provider,
            recorded_at: humantime::format_rfc3339_seconds(std::time::SystemTime::now())
                .to_string(),
            sessions: Vec::new(),
        }
    }

    pub fn push_session(&mut self, session: RecordedSession) {
        self.sessions.push(session);
    }

    /// Writes the recording as pretty JSON, replacing `path` atomically: a reader sees
    /// the old file or the whole new one.
    pub fn write(&self, path: &std::path::Path) -> std::io::Result<()> {
        crate::atomic_file::write_atomic_with(path, |out| {
            serde_json::to_writer_pretty(&mut *out, self)?;
            out.write_all(b"\n")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn empty_parts_are_left_out_and_read_back_as_defaults() {
        let message = NormalizedMessage {
            role: "user".into(),
            content: "hi".into(),
            ..NormalizedMessage::default()
        };
        let text = serde_json::to_value(&message).expect("writes");
        assert_eq!(text, json!({"role": "user", "content": "hi"}));
        let back: NormalizedMessage = serde_json::from_value(text).expect("reads");
        assert_eq!(back, message);
    }

    #[test]
    fn a_new_recording_is_stamped_in_utc_and_starts_with_its_version() {
        let recording = Recording::new(ProviderInfo {
            name: "p".into(),
            kind: "mock".into(),
            model: None,
        });
        assert!(
            recording.recorded_at.ends_with('Z'),
            "{}",
            recording.recorded_at
        );
        let text = serde_json::to_string(&recording).expect("writes");
        assert!(
            text.starts_with(r#"{"promptexec_recording":1,"provider":{"name":"p","type":"mock"}"#),
            "{text}"
        );
    }

    #[test]
    fn another_version_is_refused_by_number() {
        let err = serde_json::from_str::<FormatVersion>("2").expect_err("refused");
        assert!(
            err.to_string().starts_with(
                "recording format version 2 is not one this promptexec reads (it reads version 1)"
            ),
            "{err}"
        );
        let err = serde_json::from_str::<FormatVersion>("\"1\"").expect_err("refused");
        assert!(
            err.to_string().contains("expected the format version 1"),
            "{err}"
        );
    }
}
