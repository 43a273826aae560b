//! One face for both wire formats: the body to send, the answer to read back.

use serde_json::Value as Json;

use super::answer::Answer;
use super::claude_stream::ClaudeStream;
use super::endpoint::Api;
use super::error::AnswerError;
use super::openai_stream::OpenAiStream;
use super::sse::SseEvent;
use super::{claude, openai};
use crate::config::ModelDefaults;
use crate::provider::ModelCall;

impl Api {
    pub(super) fn request_body(
        self,
        call: &ModelCall<'_>,
        model: &str,
        defaults: &ModelDefaults,
    ) -> Json {
        match self {
            Api::OpenAi => openai::request_body(call, model, defaults),
            Api::Claude => claude::request_body(call, model, defaults),
        }
    }

    /// The answer in a whole (not streamed) response body, or the API's error message.
    pub(super) fn parse_answer(self, body: &Json) -> Result<Answer, AnswerError> {
        match self {
            Api::OpenAi => openai::parse_answer(body),
            Api::Claude => claude::parse_answer(body),
        }
    }

    pub(super) fn stream(self) -> Stream {
        match self {
            Api::OpenAi => Stream::OpenAi(OpenAiStream::default()),
            Api::Claude => Stream::Claude(ClaudeStream::default()),
        }
    }
}

/// Why a stream gives no answer.
#[derive(Debug, PartialEq)]
pub(super) enum StreamError {
    /// The server said it was too busy before sending any of the answer: another
    /// attempt may do better.
    Busy(String),
    /// Another attempt would fare no better, or part of the answer had come.
    Broken(String),
}

/// A streamed answer being put together.
#[derive(Debug)]
pub(super) enum Stream {
    OpenAi(OpenAiStream),
    Claude(ClaudeStream),
}

impl Stream {
    /// Takes in one event; `Ok(true)` once the API's end marker has come.
    pub(super) fn event(&mut self, event: &SseEvent) -> Result<bool, StreamError> {
        match self {
            Stream::OpenAi(stream) => stream
                .event(event)
                .map_err(|e| StreamError::Broken(e.to_string())),
            Stream::Claude(stream) => stream.event(event),
        }
    }

    /// The answer once the body has ended, or why it is incomplete.
    pub(super) fn finish(self) -> Result<Answer, AnswerError> {
        match self {
            Stream::OpenAi(stream) => stream.finish(),
            Stream::Claude(stream) => stream.finish(),
        }
    }
}
