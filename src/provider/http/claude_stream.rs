//! A streamed Messages answer, put together from its events.

use std::collections::BTreeMap;

use serde_json::Value as Json;

use super::answer::{Answer, Call, Tokens, args_from_text, args_from_value};
use super::api::StreamError;
use super::api_error::{error_in, quote};
use super::claude::finding;
use super::error::AnswerError;
use super::sse::SseEvent;

/// Content blocks one streamed answer may open: each is kept until the end, so a
/// stream opening one per event would otherwise hold memory per event, not per byte.
pub(super) const MAX_BLOCKS: usize = 1_024;

#[derive(Debug, Default)]
pub(super) struct ClaudeStream {
    /// Content blocks by their index.
    blocks: BTreeMap<u64, Block>,
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    finding: Option<String>,
    done: bool,
}

#[derive(Debug)]
enum Block {
    Text(String),
    ToolUse {
        id: String,
        name: String,
        /// The `input` the block started with, used when no JSON pieces follow.
        start: Json,
        json: String,
    },
    /// Thinking and other blocks that are not part of the reply.
    Other,
}

impl ClaudeStream {
    /// Takes in one event; `Ok(true)` once the answer is complete (`message_stop`).
    pub(super) fn event(&mut self, event: &SseEvent) -> Result<bool, StreamError> {
        let data: Json = serde_json::from_str(&event.data).map_err(|_| {
            StreamError::Broken(format!(
                "a stream event is not JSON: {}",
                quote(&event.data)
            ))
        })?;
        let kind = data["type"]
            .as_str()
            .or(event.event.as_deref())
            .unwrap_or_default();
        let index = data["index"].as_u64().unwrap_or_default();
        match kind {
            "message_start" => {
                let usage = &data["message"]["usage"];
                self.input_tokens = usage["input_tokens"].as_u64();
                self.output_tokens = usage["output_tokens"].as_u64();
            }
            "content_block_start" => {
                let block = &data["content_block"];
                let block = match block["type"].as_str() {
                    Some("text") => Block::Text(block["text"].as_str().unwrap_or_default().into()),
                    Some("tool_use") => Block::ToolUse {
                        id: block["id"].as_str().unwrap_or_default().into(),
                        name: block["name"].as_str().unwrap_or_default().into(),
                        start: block["input"].clone(),
                        json: String::new(),
                    },
                    _ => Block::Other,
                };
                self.room_for(index)?;
                self.blocks.insert(index, block);
            }
            "content_block_delta" => self.add_delta(index, &data["delta"])?,
            "message_delta" => {
                if let Some(output) = data["usage"]["output_tokens"].as_u64() {
                    self.output_tokens = Some(output);
                }
                if let Some(reason) = data["delta"]["stop_reason"].as_str() {
                    self.finding = finding(reason);
                }
            }
            "message_stop" => {
                self.done = true;
                return Ok(true);
            }
            "error" => return Err(self.error(&data, &event.data)),
            // `ping`, `content_block_stop`, and kinds added later.
            _ => {}
        }
        Ok(false)
    }

    /// An `error` event. Overloaded or failing before any content came, the server
    /// answered as it would with a 529 or a 500, and is worth another attempt; once
    /// content has come, retrying would start the answer over, so it is final.
    fn error(&self, data: &Json, raw: &str) -> StreamError {
        let message = error_in(data).unwrap_or_else(|| quote(raw));
        let busy = matches!(
            data["error"]["type"].as_str(),
            Some("overloaded_error" | "api_error")
        );
        if busy && self.blocks.is_empty() {
            StreamError::Busy(message)
        } else {
            StreamError::Broken(message)
        }
    }

    /// Refuses a block at a new `index` past [`MAX_BLOCKS`].
    fn room_for(&self, index: u64) -> Result<(), StreamError> {
        if self.blocks.len() >= MAX_BLOCKS && !self.blocks.contains_key(&index) {
            return Err(StreamError::Broken(format!(
                "the stream opened more than {MAX_BLOCKS} content blocks"
            )));
        }
        Ok(())
    }

    fn add_delta(&mut self, index: u64, delta: &Json) -> Result<(), StreamError> {
        match (self.blocks.get_mut(&index), delta["type"].as_str()) {
            (Some(Block::Text(text)), Some("text_delta")) => {
                text.push_str(delta["text"].as_str().unwrap_or_default());
            }
            (Some(Block::ToolUse { json, .. }), Some("input_json_delta")) => {
                json.push_str(delta["partial_json"].as_str().unwrap_or_default());
            }
            // A text block that was never started still carries text.
            (None, Some("text_delta")) => {
                self.room_for(index)?;
                let text = delta["text"].as_str().unwrap_or_default().to_string();
                self.blocks.insert(index, Block::Text(text));
            }
            _ => {}
        }
        Ok(())
    }

    /// The answer once the body has ended.
    pub(super) fn finish(self) -> Result<Answer, AnswerError> {
        if !self.done {
            return Err(AnswerError::Incomplete);
        }
        let mut answer = Answer {
            finding: self.finding,
            ..Answer::default()
        };
        for block in self.blocks.into_values() {
            match block {
                Block::Text(text) => answer.text.push_str(&text),
                Block::ToolUse {
                    id,
                    name,
                    start,
                    json,
                } => {
                    if name.is_empty() {
                        return Err(AnswerError::UnnamedStreamedToolUse { id });
                    }
                    let args = if json.trim().is_empty() {
                        args_from_value(&start)
                    } else {
                        args_from_text(&json)
                    };
                    answer.calls.push(Call { id, name, args });
                }
                Block::Other => {}
            }
        }
        if self.input_tokens.is_some() || self.output_tokens.is_some() {
            answer.tokens = Some(Tokens {
                input: self.input_tokens.unwrap_or(0),
                output: self.output_tokens.unwrap_or(0),
            });
        }
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn play(events: &[(&str, &str)]) -> Result<Answer, StreamError> {
        let mut stream = ClaudeStream::default();
        for (name, data) in events {
            let event = SseEvent {
                event: Some(name.to_string()),
                data: data.to_string(),
            };
            if stream.event(&event)? {
                break;
            }
        }
        stream
            .finish()
            .map_err(|e| StreamError::Broken(e.to_string()))
    }

    #[test]
    fn text_and_tool_use_arrive_in_pieces() {
        let answer = play(&[
            ("message_start", r#"{"type":"message_start","message":{"usage":{"input_tokens":25,"output_tokens":1}}}"#),
            ("content_block_start", r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#),
            ("ping", r#"{"type":"ping"}"#),
            ("content_block_delta", r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Looking"}}"#),
            ("content_block_delta", r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" it up."}}"#),
            ("content_block_stop", r#"{"type":"content_block_stop","index":0}"#),
            ("content_block_start", r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_9","name":"search","input":{}}}"#),
            ("content_block_delta", r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"q\":"}}"#),
            ("content_block_delta", r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":" \"sse\"}"}}"#),
            ("content_block_start", r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_10","name":"now","input":{}}}"#),
            ("message_delta", r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":31}}"#),
            ("message_stop", r#"{"type":"message_stop"}"#),
        ])
        .expect("an answer");
        assert_eq!(answer.text, "Looking it up.");
        assert_eq!(
            answer.calls,
            [
                Call {
                    id: "toolu_9".into(),
                    name: "search".into(),
                    args: json!({"q": "sse"})
                },
                Call {
                    id: "toolu_10".into(),
                    name: "now".into(),
                    args: json!({})
                },
            ]
        );
        assert_eq!(
            answer.tokens,
            Some(Tokens {
                input: 25,
                output: 31
            })
        );
    }

    #[test]
    fn an_unfinished_stream_and_an_error_event_are_errors() {
        let cut = play(&[(
            "message_start",
            r#"{"type":"message_start","message":{"usage":{"input_tokens":5}}}"#,
        )]);
        assert_eq!(
            cut,
            Err(StreamError::Broken(
                "the stream ended before the answer was complete".into()
            ))
        );
        let invalid = play(&[(
            "error",
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}"#,
        )]);
        assert_eq!(invalid, Err(StreamError::Broken("bad".into())));
    }

    const STARTED: (&str, &str) = (
        "message_start",
        r#"{"type":"message_start","message":{"usage":{"input_tokens":5}}}"#,
    );
    const OVERLOADED: (&str, &str) = (
        "error",
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
    );
    const API_ERROR: (&str, &str) = (
        "error",
        r#"{"type":"error","error":{"type":"api_error","message":"Internal server error"}}"#,
    );

    #[test]
    fn a_stream_opening_block_after_block_is_cut_at_the_limit() {
        let starts = |n: usize| {
            format!(
                r#"{{"type":"content_block_start","index":{n},"content_block":{{"type":"text","text":"{n} "}}}}"#
            )
        };
        let stop = ("message_stop", r#"{"type":"message_stop"}"#);
        let within: Vec<String> = (0..MAX_BLOCKS).map(starts).collect();
        let mut events: Vec<(&str, &str)> = within
            .iter()
            .map(|data| ("content_block_start", data.as_str()))
            .collect();
        events.push(stop);
        let answer = play(&events).expect("an answer");
        assert!(answer.text.ends_with(&format!("{} ", MAX_BLOCKS - 1)));
        let text_delta = |n: usize| {
            format!(
                r#"{{"type":"content_block_delta","index":{n},"delta":{{"type":"text_delta","text":"x"}}}}"#
            )
        };
        let past = [starts(MAX_BLOCKS), text_delta(MAX_BLOCKS)];
        for extra in &past {
            let mut events: Vec<(&str, &str)> = within
                .iter()
                .map(|data| ("content_block_start", data.as_str()))
                .collect();
            events.push(("content_block_delta", extra.as_str()));
            events.push(stop);
            assert_eq!(
                play(&events).map(|a| a.text),
                Err(StreamError::Broken(format!(
                    "the stream opened more than {MAX_BLOCKS} content blocks"
                )))
            );
        }
    }

    #[test]
    fn a_busy_server_before_any_content_is_worth_another_attempt() {
        assert_eq!(
            play(&[OVERLOADED]),
            Err(StreamError::Busy("Overloaded".into()))
        );
        assert_eq!(
            play(&[STARTED, API_ERROR]),
            Err(StreamError::Busy("Internal server error".into()))
        );
        let text = (
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        );
        assert_eq!(
            play(&[STARTED, text, OVERLOADED]),
            Err(StreamError::Broken("Overloaded".into()))
        );
    }

    #[test]
    fn a_streamed_answer_cut_or_refused_has_a_finding() {
        let ending = |reason: &str| {
            let delta = format!(
                r#"{{"type":"message_delta","delta":{{"stop_reason":"{reason}"}},"usage":{{"output_tokens":9}}}}"#
            );
            let answer = play(&[
                STARTED,
                ("message_delta", delta.as_str()),
                ("message_stop", r#"{"type":"message_stop"}"#),
            ]);
            answer.expect("an answer").finding
        };
        assert_eq!(
            ending("max_tokens").as_deref(),
            Some("the answer was cut at the token limit (stop_reason `max_tokens`)")
        );
        assert_eq!(
            ending("refusal").as_deref(),
            Some("the answer was stopped by the model's safety refusal (stop_reason `refusal`)")
        );
        assert_eq!(ending("end_turn"), None);
        assert_eq!(ending("tool_use"), None);
    }
}
