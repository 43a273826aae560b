//! PromptKit's session recording (`{"metadata": {…}, "events": [{"seq", "type",
//! "offset", "data", …}]}`) read as a recording of one session, the way PromptKit's
//! replay provider reads it.
//!
//! Two event types matter. Each `message.created` with role `assistant` is one model
//! call; the messages before it (user, assistant and tool; a system message is the
//! prompt, not conversation) are what it is matched by, so the last user message among
//! them is its key in content matching. Its tool calls carry `args` as JSON text. A
//! `provider.call.completed` after it gives that call's duration, tokens and cost. The
//! system prompt and tools are not recorded there, so they are never compared. Every
//! other event (tool calls, pipeline stages, audio) is left alone.
//!
//! Keys are matched in any letter case, as PromptKit's Go decoder matches them:
//! PromptKit writes `Role` and `ToolCalls`, PromptArena's own example recording
//! `role` and `content`, and both read alike (see `json_object`).

use std::path::Path;

use serde_json::Value as Json;

use super::json_object::Object;
use super::{
    NormalizedMessage, NormalizedToolCall, NormalizedToolResult, ProviderInfo, RecordedAnswer,
    RecordedExchange, RecordedSession, RecordedToolCall, Recording, RequestMatch,
};
use crate::doc::Diagnostic;
use crate::provider::Usage;

/// The provider type a recording read from PromptKit's format reports.
pub const PROMPTKIT_KIND: &str = "promptkit";

const NANOS_PER_MS: i64 = 1_000_000;

/// `message.created` data (Go's `MessageCreatedData`, whose fields have no JSON
/// names: PromptKit writes `Role`, hand-written files often `role`).
struct MessageData {
    role: String,
    content: String,
    /// The text of its parts, in order.
    parts: String,
    tool_calls: Vec<RecordedToolCall>,
    tool_result: Option<ToolResultData>,
}

struct ToolResultData {
    name: String,
    parts: String,
    error: String,
}

/// `provider.call.completed` data.
#[derive(Default)]
struct CallData {
    /// Nanoseconds.
    duration: i64,
    input_tokens: i64,
    output_tokens: i64,
    cached_tokens: i64,
    cost: Option<f64>,
}

impl MessageData {
    fn read(data: &Object<'_>) -> Result<MessageData, Diagnostic> {
        let tool_calls = data
            .objects("ToolCalls", "a tool call object")?
            .iter()
            .map(|call| {
                Ok(RecordedToolCall {
                    id: call.get("id")?.unwrap_or_default(),
                    name: call.require("name")?,
                    args: decode_args(call.get("args")?.unwrap_or_default()),
                })
            })
            .collect::<Result<_, Diagnostic>>()?;
        let tool_result = match data.object("ToolResult", "a tool result object")? {
            Some(result) => Some(ToolResultData {
                name: result.get("name")?.unwrap_or_default(),
                parts: parts_text(&result)?,
                error: result.get("error")?.unwrap_or_default(),
            }),
            None => None,
        };
        Ok(MessageData {
            role: data.require("Role")?,
            content: data.get("Content")?.unwrap_or_default(),
            parts: parts_text(data)?,
            tool_calls,
            tool_result,
        })
    }
}

impl CallData {
    fn read(data: &Object<'_>) -> Result<CallData, Diagnostic> {
        Ok(CallData {
            duration: data.get("Duration")?.unwrap_or_default(),
            input_tokens: data.get("InputTokens")?.unwrap_or_default(),
            output_tokens: data.get("OutputTokens")?.unwrap_or_default(),
            cached_tokens: data.get("CachedTokens")?.unwrap_or_default(),
            cost: data.get("Cost")?,
        })
    }
}

/// Reads `text`, a PromptKit session recording from `path`. Keys are matched in any
/// letter case, as PromptKit's decoder matches them.
pub(super) fn read(path: &Path, text: &str) -> Result<Recording, Diagnostic> {
    let top = Object::whole(path, text, "a PromptKit session recording object")?;
    let metadata = top.object("metadata", "a metadata object")?;
    let meta = |name: &str| -> Result<String, Diagnostic> {
        match &metadata {
            Some(metadata) => Ok(metadata.get(name)?.unwrap_or_default()),
            None => Ok(String::new()),
        }
    };
    let (provider_name, model) = (meta("provider_name")?, meta("model")?);
    let (created_at, start_time) = (meta("created_at")?, meta("start_time")?);
    if !top.has("events") {
        return Err(top.missing("events"));
    }
    let mut reader = Reader::default();
    for event in top.objects("events", "an event object")? {
        let kind: String = event.require("type")?;
        let offset: i64 = event.get("offset")?.unwrap_or_default();
        let data = |kind: &str, expecting: &str| {
            event.object("data", expecting)?.ok_or_else(|| {
                Diagnostic::error(
                    path,
                    event.pos(),
                    format!("{}: a {kind} event needs `data`", event.what()),
                )
            })
        };
        match kind.as_str() {
            "message.created" => {
                let data = data("message.created", "message.created data")?;
                reader.message(MessageData::read(&data)?, offset);
            }
            "provider.call.completed" => {
                let data = data("provider.call.completed", "provider.call.completed data")?;
                reader.call_completed(CallData::read(&data)?);
            }
            _ => {}
        }
    }
    if reader.exchanges.is_empty() {
        return Err(Diagnostic::whole_file(
            path,
            "this PromptKit recording has no assistant message (message.created with role `assistant`), so there is nothing to replay",
        ));
    }
    let name = if provider_name.is_empty() {
        PROMPTKIT_KIND.to_string()
    } else {
        provider_name
    };
    let recorded_at = if created_at.is_empty() {
        start_time
    } else {
        created_at
    };
    Ok(Recording {
        version: super::FormatVersion,
        provider: ProviderInfo {
            name,
            kind: PROMPTKIT_KIND.to_string(),
            model: Some(model).filter(|m| !m.is_empty()),
        },
        recorded_at,
        sessions: vec![RecordedSession {
            exchanges: reader.finish(),
        }],
    })
}

/// The conversation so far, and the calls found in it.
#[derive(Default)]
struct Reader {
    messages: Vec<NormalizedMessage>,
    /// How many messages the last recorded call was shown: each keeps the ones after.
    shown: usize,
    exchanges: Vec<RecordedExchange>,
    /// When each call ended, in nanoseconds since the session started.
    ended: Vec<i64>,
    turn: u32,
    round: u32,
    /// The call a `provider.call.completed` would be about.
    pending: Option<usize>,
}

impl Reader {
    fn message(&mut self, data: MessageData, offset: i64) {
        let text = if data.content.is_empty() {
            data.parts
        } else {
            data.content
        };
        let calls = data.tool_calls;
        let content = match (&data.tool_result, text.is_empty()) {
            (Some(result), true) => result.parts.clone(),
            _ => text,
        };
        // The result's text is the message's content, kept once as `normalize` does.
        let tool_result = data.tool_result.map(|result| NormalizedToolResult {
            name: result.name,
            content: String::new(),
            error: Some(result.error).filter(|e| !e.is_empty()),
        });
        let normalized = NormalizedMessage {
            role: data.role,
            content,
            tool_calls: calls
                .iter()
                .map(|call| NormalizedToolCall {
                    name: call.name.clone(),
                    args: call.args.clone(),
                })
                .collect(),
            tool_result,
        };
        match normalized.role.as_str() {
            "system" => return,
            "user" => {
                self.turn += 1;
                self.round = 0;
            }
            "assistant" => {
                self.round += 1;
                self.pending = Some(self.exchanges.len());
                self.ended.push(offset);
                self.exchanges.push(RecordedExchange {
                    turn: self.turn.max(1),
                    round: self.round,
                    offset_ms: 0,
                    latency_ms: 0,
                    request_match: RequestMatch {
                        system: None,
                        from: self.shown,
                        messages: Some(self.messages[self.shown..].to_vec()),
                        tools: None,
                    },
                    request: None,
                    response: None,
                    attempts: 1,
                    answer: RecordedAnswer {
                        content: normalized.content.clone(),
                        tool_calls: calls,
                        findings: Vec::new(),
                    },
                    usage: None,
                });
                self.shown = self.messages.len();
            }
            _ => {}
        }
        self.messages.push(normalized);
    }

    fn call_completed(&mut self, call: CallData) {
        let Some(exchange) = self.pending.take().and_then(|i| self.exchanges.get_mut(i)) else {
            return;
        };
        let count = |n: i64| u64::try_from(n).unwrap_or(0);
        exchange.latency_ms = count(call.duration / NANOS_PER_MS);
        // PromptKit counts cached input tokens apart; here input is all of it.
        exchange.usage = Some(Usage {
            input_tokens: count(call.input_tokens) + count(call.cached_tokens),
            output_tokens: count(call.output_tokens),
            cost_usd: call.cost,
        });
    }

    /// The exchanges, each call's offset counted from when the first call started
    /// (its end less its duration).
    fn finish(mut self) -> Vec<RecordedExchange> {
        let starts: Vec<i64> = self
            .exchanges
            .iter()
            .zip(&self.ended)
            .map(|(exchange, ended)| {
                let latency = i64::try_from(exchange.latency_ms).unwrap_or(0) * NANOS_PER_MS;
                ended.saturating_sub(latency)
            })
            .collect();
        let first = starts.first().copied().unwrap_or(0);
        for (exchange, start) in self.exchanges.iter_mut().zip(starts) {
            exchange.offset_ms = u64::try_from((start - first) / NANOS_PER_MS).unwrap_or(0);
        }
        self.exchanges
    }
}

/// The text of an object's `parts` (content parts, whose `text` is `None` for media),
/// in order.
fn parts_text(object: &Object<'_>) -> Result<String, Diagnostic> {
    let mut text = String::new();
    for part in object.objects("Parts", "a content part")? {
        if let Some(piece) = part.get::<String>("text")? {
            text.push_str(&piece);
        }
    }
    Ok(text)
}

/// Tool call arguments from PromptKit's JSON text: the value it holds, `{}` for none,
/// and text that is not JSON kept as a string (which the session refuses to run, as
/// it does when a live model sends such text).
fn decode_args(args: Json) -> Json {
    match args {
        Json::Null => Json::Object(Default::default()),
        Json::String(text) if text.trim().is_empty() => Json::Object(Default::default()),
        Json::String(text) => serde_json::from_str(&text).unwrap_or(Json::String(text)),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fixture() -> (std::path::PathBuf, String) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/recordings/promptkit-session.json");
        let text = std::fs::read_to_string(&path).expect("fixture");
        (path, text)
    }

    #[test]
    fn each_assistant_message_is_a_call_matched_by_the_messages_before_it() {
        let (path, text) = fixture();
        let recording = read(&path, &text).expect("reads");
        assert_eq!(recording.provider.kind, "promptkit");
        assert_eq!(recording.provider.name, "openai");
        assert_eq!(recording.provider.model.as_deref(), Some("gpt-4o-mini"));
        let [session] = recording.sessions.as_slice() else {
            panic!("one session")
        };
        // Each call keeps the messages after those the call before it was shown.
        let calls: Vec<(u32, u32, usize, usize)> = session
            .exchanges
            .iter()
            .map(|e| {
                let messages = e.request_match.messages.as_ref().map_or(0, Vec::len);
                (e.turn, e.round, e.request_match.from, messages)
            })
            .collect();
        assert_eq!(calls, [(1, 1, 0, 1), (1, 2, 1, 2), (2, 1, 3, 2)]);
        let first = &session.exchanges[0];
        assert_eq!(
            serde_json::to_value(&first.answer).expect("writes"),
            json!({"content": "", "tool_calls": [{"id": "call_abc123", "name": "lookup_order", "args": {"order_id": "A-1002"}}]})
        );
        assert_eq!(
            first.usage,
            Some(Usage {
                input_tokens: 152,
                output_tokens: 21,
                cost_usd: Some(0.0000354)
            })
        );
        assert_eq!(first.latency_ms, 812);
        let second = &session.exchanges[1];
        let messages = second.request_match.messages.as_ref().expect("messages");
        assert_eq!(
            serde_json::to_value(&messages[1]).expect("writes"),
            json!({"role": "tool", "content": "{\"order_id\":\"A-1002\",\"status\":\"delayed\",\"eta\":\"2026-08-25\"}", "tool_result": {"name": "lookup_order"}})
        );
        assert_eq!(second.request_match.last_user_content(), None);
        assert_eq!(
            session.exchanges[2].request_match.last_user_content(),
            Some("Can I get a refund if it is late?")
        );
        assert_eq!(
            (
                second.request_match.system.as_ref(),
                second.request_match.tools.as_ref()
            ),
            (None, None)
        );
        let offsets: Vec<u64> = session.exchanges.iter().map(|e| e.offset_ms).collect();
        assert_eq!(offsets, [0, 1040, 6200]);
    }

    #[test]
    fn a_broken_message_event_is_placed_in_the_file() {
        let text = r#"{"metadata": {}, "events": [
  {"seq": 1, "type": "message.created", "offset": 0, "data": {"Role": "user", "Content": 7}}
]}"#;
        let err = read(Path::new("pk.json"), text).expect_err("content is not text");
        assert_eq!(
            err.to_string(),
            "pk.json:2:90: events[0].data.Content: invalid type: integer `7`, expected a string"
        );
        let text = r#"{"events": [{"seq": 1, "type": "message.created"}]}"#;
        let err = read(Path::new("pk.json"), text).expect_err("no data");
        assert_eq!(
            err.to_string(),
            "pk.json:1:13: events[0]: a message.created event needs `data`"
        );
    }

    #[test]
    fn keys_are_read_in_any_letter_case_as_promptkit_reads_them() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/replay_compat/planets.recording.json");
        let text = std::fs::read_to_string(&path).expect("fixture");
        let recording = read(&path, &text).expect("reads");
        assert_eq!(recording.provider.name, "promptkit", "no provider_name");
        assert_eq!(recording.recorded_at, "2026-03-02T14:00:00Z");
        let exchanges = &recording.sessions[0].exchanges;
        let answers: Vec<&str> = exchanges
            .iter()
            .map(|e| e.answer.content.as_str())
            .collect();
        assert_eq!(
            answers,
            [
                "Mercury is the closest planet to the Sun, about 58 million kilometres away on average.",
                "Saturn has the most known moons: astronomers have confirmed well over a hundred."
            ]
        );
        assert_eq!(
            exchanges[1].request_match.last_user_content(),
            Some("And which one has the most moons?")
        );
        assert_eq!(exchanges[1].offset_ms, 38_000, "from the first answer");
        // Every field, in PromptKit's spelling and in others.
        let text = r#"{"METADATA": {"Provider_Name": "openai"}, "Events": [
  {"Type": "message.created", "Offset": 0, "Data": {"ROLE": "user", "parts": [{"Text": "Order "}, {"TEXT": "A-1"}]}},
  {"type": "message.created", "offset": 5000000, "data": {"role": "assistant", "toolcalls": [{"ID": "c1", "Name": "lookup", "Args": "{\"id\":1}"}]}},
  {"type": "provider.call.completed", "data": {"duration": 5000000, "inputtokens": 9, "OUTPUTTOKENS": 2, "cost": 0.5}},
  {"type": "message.created", "data": {"role": "tool", "toolResult": {"NAME": "lookup", "ERROR": "gone", "Parts": [{"text": "none"}]}}},
  {"type": "message.created", "data": {"Role": "assistant", "role": "user", "content": "sorry"}}
]}"#;
        let recording = read(Path::new("pk.json"), text).expect("reads");
        assert_eq!(recording.provider.name, "openai");
        let exchanges = &recording.sessions[0].exchanges;
        assert_eq!(exchanges.len(), 2, "`Role` wins over `role`");
        assert_eq!(
            exchanges[0].request_match.last_user_content(),
            Some("Order A-1")
        );
        assert_eq!(
            serde_json::to_value(&exchanges[0].answer.tool_calls).expect("writes"),
            json!([{"id": "c1", "name": "lookup", "args": {"id": 1}}])
        );
        assert_eq!(exchanges[0].latency_ms, 5);
        assert_eq!(
            exchanges[0].usage,
            Some(Usage {
                input_tokens: 9,
                output_tokens: 2,
                cost_usd: Some(0.5)
            })
        );
        let tool = &exchanges[1]
            .request_match
            .messages
            .as_ref()
            .expect("messages")[1];
        assert_eq!(
            serde_json::to_value(tool).expect("writes"),
            json!({"role": "tool", "content": "none", "tool_result": {"name": "lookup", "error": "gone"}})
        );
        assert_eq!(exchanges[1].answer.content, "sorry");
    }

    #[test]
    fn a_missing_role_is_named_with_its_place() {
        let text = "{\"events\": [\n  {\"type\": \"message.created\", \"data\": {\"content\": \"hi\"}}\n]}";
        let err = read(Path::new("pk.json"), text).expect_err("no role");
        assert_eq!(
            err.to_string(),
            "pk.json:2:39: events[0].data: missing field `Role` (in any letter case)"
        );
        let err = read(Path::new("pk.json"), r#"{"metadata": {}}"#).expect_err("no events");
        assert_eq!(
            err.to_string(),
            "pk.json:1:1: missing field `events` (in any letter case)"
        );
    }

    #[test]
    fn a_recording_without_answers_is_refused() {
        let text = r#"{"events": [{"type": "message.created", "data": {"Role": "user", "Content": "hi"}}]}"#;
        let err = read(Path::new("pk.json"), text).expect_err("nothing to replay");
        assert!(err.to_string().contains("no assistant message"), "{err}");
    }

    #[test]
    fn args_are_decoded_from_their_json_text() {
        assert_eq!(decode_args(json!("{\"a\":1}")), json!({"a": 1}));
        assert_eq!(decode_args(json!("")), json!({}));
        assert_eq!(decode_args(Json::Null), json!({}));
        assert_eq!(decode_args(json!("not json")), json!("not json"));
        assert_eq!(decode_args(json!({"a": 1})), json!({"a": 1}));
    }
}
