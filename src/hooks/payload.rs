//! What hooks receive on stdin, with exactly the reference's snake_case fields.

use serde::Serialize;
use serde_json::{Value as Json, json};

use crate::config::{HookKind, HookPhase, HookType};
use crate::conversation::{
    ProviderRequest, ProviderResponse, SessionInfo, ToolCallInfo, ToolResultInfo,
};

/// The envelope every payload has: the hook type, the phase, and what it is about.
fn envelope(hook_type: HookType, phase: HookPhase, section: &str, value: Json) -> Json {
    json!({"hook": hook_type.as_str(), "phase": phase.as_str(), section: value})
}

pub fn provider_payload(
    phase: HookPhase,
    request: &ProviderRequest,
    response: Option<&ProviderResponse>,
) -> Json {
    let mut payload = envelope(HookType::Provider, phase, "request", json!(request));
    if let Some(response) = response {
        payload["response"] = json!(response);
    }
    payload
}

pub fn tool_payload(
    phase: HookPhase,
    call: &ToolCallInfo,
    result: Option<&ToolResultInfo>,
) -> Json {
    let mut payload = envelope(HookType::Tool, phase, "request", json!(call));
    if let Some(result) = result {
        payload["response"] = json!(result);
    }
    payload
}

pub fn session_payload(phase: HookPhase, event: &SessionInfo) -> Json {
    envelope(HookType::Session, phase, "event", json!(event))
}

/// The session payload as the text [`session_payload`] prints to, written straight
/// from the history: a long conversation is never turned into a tree of values.
pub(super) fn session_payload_text(phase: HookPhase, event: &SessionInfo) -> String {
    #[derive(Serialize)]
    struct Envelope<'a> {
        hook: &'a str,
        phase: &'a str,
        event: &'a SessionInfo,
    }
    let envelope = Envelope {
        hook: HookType::Session.as_str(),
        phase: phase.as_str(),
        event,
    };
    // Measured first: at `session_end` this is the whole conversation, which would
    // otherwise be grown by doubling to up to twice its size. Strings, numbers and a
    // history of messages always serialize.
    let mut size = ByteCount(0);
    let _ = serde_json::to_writer(&mut size, &envelope);
    let mut text = Vec::with_capacity(size.0);
    let _ = serde_json::to_writer(&mut text, &envelope);
    String::from_utf8(text).unwrap_or_default()
}

/// A writer that only counts what it is given.
struct ByteCount(usize);

impl std::io::Write for ByteCount {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A bare request (`before_call`, `before_execution`) or session event wrapped as the
/// whole payload of `phase`; `None` for the phases that also carry a response, where a
/// bare value is not enough.
pub fn wrap_bare(kind: &HookKind, phase: HookPhase, event: Json) -> Option<Json> {
    match (kind, phase) {
        (HookKind::Provider { .. }, HookPhase::BeforeCall) => {
            Some(envelope(HookType::Provider, phase, "request", event))
        }
        (HookKind::Tool { .. }, HookPhase::BeforeExecution) => {
            Some(envelope(HookType::Tool, phase, "request", event))
        }
        (HookKind::Session { .. }, _) => Some(envelope(HookType::Session, phase, "event", event)),
        _ => None,
    }
}

/// A call and its result for unit tests of what hooks see.
#[cfg(test)]
pub(super) mod samples {
    use super::*;

    pub(crate) fn call() -> ToolCallInfo {
        ToolCallInfo {
            name: "probe".into(),
            args: json!({"topic": "stock"}),
            call_id: "c1".into(),
        }
    }

    pub(crate) fn result(is_error: bool) -> ToolResultInfo {
        ToolResultInfo {
            name: "probe".into(),
            call_id: "c1".into(),
            content: "out of stock".into(),
            latency_ms: 4,
            is_error,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::{History, message};

    #[test]
    fn payloads_use_the_reference_fields() {
        let call = ToolCallInfo {
            name: "db_query".into(),
            args: json!({"sql": "SELECT 1"}),
            call_id: "call_abc123".into(),
        };
        let result = ToolResultInfo {
            name: "db_query".into(),
            call_id: "call_abc123".into(),
            content: "{\"rows\": []}".into(),
            latency_ms: 120,
            is_error: false,
        };
        assert_eq!(
            tool_payload(HookPhase::AfterExecution, &call, Some(&result)),
            json!({
                "hook": "tool", "phase": "after_execution",
                "request": {"name": "db_query", "args": {"sql": "SELECT 1"}, "call_id": "call_abc123"},
                "response": {"name": "db_query", "call_id": "call_abc123", "content": "{\"rows\": []}", "latency_ms": 120}
            })
        );
        let request = ProviderRequest {
            provider_id: "mock".into(),
            model: "m".into(),
            messages: vec![message("user", "hi")].into(),
            system_prompt: "Be brief.".into(),
            round: 1,
        };
        let payload = provider_payload(HookPhase::BeforeCall, &request, None);
        assert_eq!(payload["request"]["messages"][0]["parts"][0]["text"], "hi");
        assert_eq!(payload["request"]["system_prompt"], "Be brief.");
        assert!(payload.get("response").is_none());
    }

    #[test]
    fn the_session_payload_text_is_the_payload_printed() {
        let mut messages: History = vec![message("user", "hi")].into();
        messages.push(json!({"role": "assistant", "content": "ok", "score": 0.30000000000000004, "n": [1, -2]}));
        let event = SessionInfo {
            session_id: "s".into(),
            conversation_id: "c".into(),
            messages,
            turn_index: 2,
        };
        let phase = HookPhase::SessionEnd;
        let text = session_payload_text(phase, &event);
        assert_eq!(text, session_payload(phase, &event).to_string());
        assert_eq!(text.capacity(), text.len(), "allocated once, at its size");
    }

    #[test]
    fn a_bare_request_or_event_is_wrapped_where_it_is_the_whole_payload() {
        let tool = HookKind::Tool {
            phases: vec![HookPhase::BeforeExecution],
            mode: crate::config::HookMode::Filter,
        };
        let call = json!({"name": "probe", "args": {}, "call_id": "c1"});
        let wrapped = wrap_bare(&tool, HookPhase::BeforeExecution, call.clone());
        assert_eq!(
            serde_json::to_string(&wrapped).expect("serializes"),
            format!(r#"{{"hook":"tool","phase":"before_execution","request":{call}}}"#)
        );
        assert_eq!(wrap_bare(&tool, HookPhase::AfterExecution, call), None);
        let session = HookKind::Session { phases: Vec::new() };
        let event = wrap_bare(&session, HookPhase::SessionEnd, json!({"turn_index": 2}));
        assert_eq!(
            event,
            Some(json!({"hook": "session", "phase": "session_end", "event": {"turn_index": 2}}))
        );
    }
}
