//! A streamed chat completions answer, put together from its events.

use std::collections::HashMap;

use serde_json::Value as Json;

use super::answer::{Answer, Call, Tokens, args_from_text};
use super::api_error::{error_in, quote};
use super::error::AnswerError;
use super::openai::finding;
use super::sse::SseEvent;

/// Tool calls one streamed answer may open: each is kept until the end, so a stream
/// opening one per event would otherwise hold memory per event, not per byte.
pub(super) const MAX_CALLS: usize = 1_024;

/// Why an event cannot be taken in.
#[derive(Debug, thiserror::Error)]
pub(super) enum ChunkError {
    #[error(transparent)]
    Answer(#[from] AnswerError),
    #[error("the stream opened more than {MAX_CALLS} tool calls")]
    TooManyCalls,
}

#[derive(Debug, Default)]
pub(super) struct OpenAiStream {
    text: String,
    calls: Vec<PartialCall>,
    /// Where the call with each `index`, and each id, is in `calls`.
    by_index: HashMap<u64, usize>,
    by_id: HashMap<String, usize>,
    tokens: Option<Tokens>,
    finding: Option<String>,
    finished: bool,
    done: bool,
}

/// A tool call whose pieces are still arriving.
#[derive(Debug, Default)]
struct PartialCall {
    id: String,
    name: String,
    args: String,
}

impl OpenAiStream {
    /// Takes in one event; `Ok(true)` once the answer is complete (`[DONE]`).
    pub(super) fn event(&mut self, event: &SseEvent) -> Result<bool, ChunkError> {
        let data = event.data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(true);
        }
        let chunk: Json = serde_json::from_str(data)
            .map_err(|_| AnswerError::EventNotJson { data: quote(data) })?;
        if let Some(message) = error_in(&chunk) {
            return Err(AnswerError::Api(message).into());
        }
        if let Some(tokens) = Tokens::read(&chunk["usage"], "prompt_tokens", "completion_tokens") {
            self.tokens = Some(tokens);
        }
        let choice = &chunk["choices"][0];
        let delta = &choice["delta"];
        if let Some(text) = delta["content"].as_str() {
            self.text.push_str(text);
        }
        for piece in delta["tool_calls"].as_array().into_iter().flatten() {
            self.add_piece(piece)?;
        }
        if let Some(reason) = choice["finish_reason"].as_str().filter(|r| !r.is_empty()) {
            self.finished = true;
            self.finding = finding(reason);
        }
        Ok(false)
    }

    /// One piece of a tool call: its id and name usually come first, then the
    /// arguments' text in parts.
    fn add_piece(&mut self, piece: &Json) -> Result<(), ChunkError> {
        let index = piece["index"].as_u64();
        let id = piece["id"].as_str().unwrap_or_default();
        let found = match index {
            Some(index) => self.by_index.get(&index).copied(),
            // Without an index: the call with this id, else the last one.
            None if !id.is_empty() => self.by_id.get(id).copied(),
            None => self.calls.len().checked_sub(1),
        };
        let at = match found {
            Some(at) => at,
            None if self.calls.len() >= MAX_CALLS => return Err(ChunkError::TooManyCalls),
            None => {
                let at = self.calls.len();
                self.calls.push(PartialCall::default());
                if let Some(index) = index {
                    self.by_index.insert(index, at);
                }
                at
            }
        };
        let call = &mut self.calls[at];
        if !id.is_empty() && call.id != id {
            if self.by_id.get(&call.id) == Some(&at) {
                self.by_id.remove(&call.id);
            }
            call.id = id.to_string();
            self.by_id.entry(call.id.clone()).or_insert(at);
        }
        let function = &piece["function"];
        if let Some(name) = function["name"].as_str().filter(|n| !n.is_empty()) {
            call.name = name.to_string();
        }
        match &function["arguments"] {
            Json::String(part) => call.args.push_str(part),
            Json::Null => {}
            whole => call.args = whole.to_string(),
        }
        Ok(())
    }

    /// The answer once the body has ended; `done` says the end marker was seen.
    pub(super) fn finish(self) -> Result<Answer, AnswerError> {
        // Some servers never send `[DONE]`; a finish reason says as much.
        if !self.done && !self.finished {
            return Err(AnswerError::Incomplete);
        }
        let calls = self
            .calls
            .into_iter()
            .map(|c| {
                if c.name.is_empty() {
                    return Err(AnswerError::UnnamedStreamedCall { id: c.id });
                }
                Ok(Call {
                    args: args_from_text(&c.args),
                    id: c.id,
                    name: c.name,
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(Answer {
            text: self.text,
            calls,
            tokens: self.tokens,
            finding: self.finding,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The answer the events make, or the first error they meet.
    fn play(datas: &[&str]) -> Result<Answer, Box<dyn std::error::Error>> {
        let mut stream = OpenAiStream::default();
        for data in datas {
            let event = SseEvent {
                event: None,
                data: data.to_string(),
            };
            if stream.event(&event)? {
                break;
            }
        }
        Ok(stream.finish()?)
    }

    #[test]
    fn text_and_tool_calls_arrive_in_pieces() {
        let answer = play(&[
            r#"{"choices":[{"delta":{"role":"assistant","content":"Let "}}]}"#,
            r#"{"choices":[{"delta":{"content":"me see."}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_x","type":"function","function":{"name":"search","arguments":""}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"name":"other","arguments":"{\"a\""}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"q\": \"ru"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"st\"}"}}]}}]}"#,
            r#"{"choices":[{"delta":{},"finish_reason":"tool_calls"}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":40,"completion_tokens":12}}"#,
            "[DONE]",
        ])
        .expect("an answer");
        assert_eq!(answer.text, "Let me see.");
        assert_eq!(
            answer.calls,
            [
                Call {
                    id: "call_x".into(),
                    name: "search".into(),
                    args: json!({"q": "rust"})
                },
                Call {
                    id: "".into(),
                    name: "other".into(),
                    args: json!("{\"a\"")
                },
            ]
        );
        assert_eq!(
            answer.tokens,
            Some(Tokens {
                input: 40,
                output: 12
            })
        );
    }

    #[test]
    fn a_finish_reason_without_done_is_complete_and_nothing_is_not() {
        let answer = play(&[r#"{"choices":[{"delta":{"content":"hi"},"finish_reason":"stop"}]}"#])
            .expect("complete");
        assert_eq!((answer.text.as_str(), answer.tokens), ("hi", None));
        let cut = play(&[r#"{"choices":[{"delta":{"content":"hi"},"finish_reason":""}]}"#]);
        assert_eq!(
            cut.map_err(|e| e.to_string()).err().as_deref(),
            Some("the stream ended before the answer was complete")
        );
    }

    #[test]
    fn a_streamed_answer_cut_at_the_limit_has_a_finding() {
        let cut = play(&[
            r#"{"choices":[{"delta":{"content":"Once upon"}}]}"#,
            r#"{"choices":[{"delta":{},"finish_reason":"length"}]}"#,
            "[DONE]",
        ])
        .expect("an answer");
        assert_eq!(
            cut.finding.as_deref(),
            Some("the answer was cut at the token limit (finish_reason `length`)")
        );
        let filtered = play(&[r#"{"choices":[{"delta":{},"finish_reason":"content_filter"}]}"#])
            .expect("an answer");
        assert_eq!(
            filtered.finding.as_deref(),
            Some(
                "the answer was cut or withheld by the content filter (finish_reason `content_filter`)"
            )
        );
        let whole = play(&[r#"{"choices":[{"delta":{"content":"hi"},"finish_reason":"stop"}]}"#])
            .expect("an answer");
        assert_eq!(whole.finding, None);
        let unsaid =
            play(&[r#"{"choices":[{"delta":{"content":"hi"}}]}"#, "[DONE]"]).expect("an answer");
        assert_eq!(unsaid.finding, None);
    }

    #[test]
    fn a_stream_opening_call_after_call_is_cut_at_the_limit() {
        let opens = |n: usize| {
            format!(
                r#"{{"choices":[{{"delta":{{"tool_calls":[{{"index":{n},"id":"c{n}","function":{{"name":"f","arguments":"{{}}"}}}}]}}}}]}}"#
            )
        };
        let within: Vec<String> = (0..MAX_CALLS).map(opens).collect();
        let mut events: Vec<&str> = within.iter().map(String::as_str).collect();
        events.push("[DONE]");
        let answer = play(&events).expect("an answer");
        assert_eq!(answer.calls.len(), MAX_CALLS);
        assert_eq!(
            answer.calls[MAX_CALLS - 1].id,
            format!("c{}", MAX_CALLS - 1)
        );
        let past: Vec<String> = (0..=MAX_CALLS).map(opens).collect();
        let events: Vec<&str> = past.iter().map(String::as_str).collect();
        assert_eq!(
            play(&events).map_err(|e| e.to_string()).err(),
            Some(format!(
                "the stream opened more than {MAX_CALLS} tool calls"
            ))
        );
        // Pieces without an index find their call by id.
        let answer = play(&[
            r#"{"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"name":"f","arguments":"{\"x\""}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"id":"b","function":{"name":"g","arguments":"{}"}}]}}]}"#,
            r#"{"choices":[{"delta":{"tool_calls":[{"id":"a","function":{"arguments":":1}"}}]}}]}"#,
            "[DONE]",
        ])
        .expect("an answer");
        assert_eq!(answer.calls[0].args, json!({"x": 1}));
        assert_eq!(answer.calls[1].name, "g");
    }

    #[test]
    fn an_error_event_is_an_error() {
        let err = play(&[r#"{"error":{"message":"context length exceeded"}}"#]);
        assert_eq!(
            err.map_err(|e| e.to_string()).err().as_deref(),
            Some("context length exceeded")
        );
        assert_eq!(
            play(&["oops"]).map_err(|e| e.to_string()).err().as_deref(),
            Some("a stream event is not JSON: oops")
        );
    }
}
