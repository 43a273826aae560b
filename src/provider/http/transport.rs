//! One attempt of a model call: post the body, then read the answer whole or as a
//! stream of events, each read bounded by the stream's idle timeout.

use std::time::{Duration, SystemTime};

use reqwest::header::{CONTENT_TYPE, HeaderMap, RETRY_AFTER};
use reqwest::{Client, Response, StatusCode};
use serde_json::Value as Json;

use super::answer::Answer;
use super::api::{Stream, StreamError};
use super::api_error::{body_message, quote};
use super::endpoint::Api;
use super::retry::{retry_after, retry_after_ms, retryable};
use super::sse::{SseEvent, SseParser};

/// The most of a response body read into memory.
const MAX_BODY: usize = 64 << 20;
/// The most of an error response read for its message.
const MAX_ERROR_BODY: usize = 64 << 10;

/// Where and how one provider's calls go.
#[derive(Debug)]
pub(super) struct Target<'a> {
    pub client: &'a Client,
    pub url: &'a str,
    pub headers: &'a HeaderMap,
    pub api: Api,
    pub stream: bool,
    pub idle_timeout: Duration,
}

/// Why an attempt gave no answer.
#[derive(Debug, PartialEq)]
pub(super) enum Failure {
    /// Another attempt may do better: a status that says "not now", or no response.
    Transient {
        /// `None` when no response came, or a stream said the server was busy.
        status: Option<StatusCode>,
        cause: String,
        retry_after: Option<Duration>,
    },
    /// Another attempt would fare the same.
    Final(String),
}

/// A usable answer, and the body it came in for the recording.
#[derive(Debug)]
pub(super) struct Received {
    pub answer: Answer,
    pub response: Json,
}

pub(super) async fn attempt(target: &Target<'_>, body: &[u8]) -> Result<Received, Failure> {
    let request = target
        .client
        .post(target.url)
        .headers(target.headers.clone())
        .body(body.to_vec());
    let response = request.send().await.map_err(transport)?;
    if !response.status().is_success() {
        return Err(refusal(response).await);
    }
    // A server that cannot stream may answer with one JSON document all the same.
    let is_json = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if target.stream && !is_json {
        read_stream(response, target).await
    } else {
        read_whole(response, target.api).await
    }
}

/// An unsuccessful status, with the API's message and any `Retry-After`.
async fn refusal(mut response: Response) -> Failure {
    let status = response.status();
    let wait = asked_wait(response.headers());
    let body = read_body(&mut response, MAX_ERROR_BODY)
        .await
        .unwrap_or_default();
    let message = body_message(&body);
    let cause = if message.is_empty() {
        format!("HTTP {status}")
    } else {
        format!("HTTP {status}: {message}")
    };
    if retryable(status.as_u16()) {
        Failure::Transient {
            status: Some(status),
            cause,
            retry_after: wait,
        }
    } else {
        Failure::Final(cause)
    }
}

/// The wait a response asks for: `retry-after-ms` (OpenAI's, in milliseconds) when
/// it has one that reads, else `Retry-After`.
fn asked_wait(headers: &HeaderMap) -> Option<Duration> {
    let text = |name| headers.get(name).and_then(|v| v.to_str().ok());
    text("retry-after-ms")
        .and_then(retry_after_ms)
        .or_else(|| text(RETRY_AFTER.as_str()).and_then(|v| retry_after(v, SystemTime::now())))
}

async fn read_whole(mut response: Response, api: Api) -> Result<Received, Failure> {
    let body = match read_body(&mut response, MAX_BODY).await {
        Ok(body) => body,
        Err(ReadError::Transport(err)) => return Err(transport(err)),
        Err(ReadError::TooLarge) => return Err(Failure::Final(too_large())),
    };
    let json: Json = serde_json::from_slice(&body).map_err(|_| {
        let text = String::from_utf8_lossy(&body);
        Failure::Final(format!("the answer is not JSON: {}", quote(text.trim())))
    })?;
    let answer = api
        .parse_answer(&json)
        .map_err(|e| Failure::Final(e.to_string()))?;
    Ok(Received {
        answer,
        response: json,
    })
}

async fn read_stream(mut response: Response, target: &Target<'_>) -> Result<Received, Failure> {
    let mut parser = SseParser::default();
    let mut stream = target.api.stream();
    let mut events = Events::default();
    let mut size = 0;
    let mut complete = false;
    while !complete {
        let chunk = match tokio::time::timeout(target.idle_timeout, response.chunk()).await {
            Err(_) => return Err(Failure::Final(stalled(target.idle_timeout, events.len()))),
            Ok(Err(err)) => return Err(transport(err)),
            Ok(Ok(None)) => break,
            Ok(Ok(Some(chunk))) => chunk,
        };
        size += chunk.len();
        if size > MAX_BODY {
            return Err(Failure::Final(too_large()));
        }
        complete = take(parser.feed(&chunk), &mut stream, &mut events)?;
    }
    if !complete {
        take(parser.finish(), &mut stream, &mut events)?;
    }
    let answer = stream.finish().map_err(|e| Failure::Final(e.to_string()))?;
    Ok(Received {
        answer,
        response: events.into_json(),
    })
}

/// The `data` of a stream's events, kept as text in one buffer until the answer is
/// whole: parsed as they come, a flood of tiny events would hold a JSON tree each,
/// many times the size of their text.
#[derive(Default)]
struct Events {
    text: String,
    /// Where each event's data ends in `text`.
    ends: Vec<usize>,
}

impl Events {
    fn push(&mut self, data: &str) {
        self.text.push_str(data);
        self.ends.push(self.text.len());
    }

    fn len(&self) -> usize {
        self.ends.len()
    }

    /// Each event's data, parsed as JSON when it is.
    fn into_json(self) -> Json {
        let mut start = 0;
        let events = self.ends.iter().map(|&end| {
            let data = &self.text[start..end];
            start = end;
            serde_json::from_str(data).unwrap_or_else(|_| Json::String(data.to_owned()))
        });
        Json::Array(events.collect())
    }
}

/// Feeds events to the answer and keeps their data; `Ok(true)` at the end marker.
fn take(batch: Vec<SseEvent>, stream: &mut Stream, events: &mut Events) -> Result<bool, Failure> {
    for event in batch {
        events.push(&event.data);
        match stream.event(&event) {
            Ok(true) => return Ok(true),
            Ok(false) => {}
            Err(StreamError::Broken(cause)) => return Err(Failure::Final(cause)),
            Err(StreamError::Busy(cause)) => {
                return Err(Failure::Transient {
                    status: None,
                    cause,
                    retry_after: None,
                });
            }
        }
    }
    Ok(false)
}

fn stalled(idle: Duration, events: usize) -> String {
    let plural = if events == 1 { "" } else { "s" };
    format!(
        "the stream stalled: no data for {} (after {events} event{plural})",
        humantime::format_duration(idle)
    )
}

fn too_large() -> String {
    format!("the answer is larger than {} MiB", MAX_BODY >> 20)
}

enum ReadError {
    Transport(reqwest::Error),
    TooLarge,
}

async fn read_body(response: &mut Response, limit: usize) -> Result<Vec<u8>, ReadError> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(ReadError::Transport)? {
        if body.len() + chunk.len() > limit {
            return Err(ReadError::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// No response, or one cut off: worth another attempt, unless the request itself
/// could not be built.
fn transport(err: reqwest::Error) -> Failure {
    let cause = chain(&err);
    if err.is_builder() {
        return Failure::Final(cause);
    }
    Failure::Transient {
        status: None,
        cause,
        retry_after: None,
    }
}

/// An error and its causes on one line, each said once.
fn chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let said = cause.to_string();
        if !text.contains(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_ms_comes_before_retry_after() {
        let mut headers = HeaderMap::new();
        headers.insert(RETRY_AFTER, "30".parse().expect("a value"));
        assert_eq!(asked_wait(&headers), Some(Duration::from_secs(30)));
        headers.insert("retry-after-ms", "20".parse().expect("a value"));
        assert_eq!(asked_wait(&headers), Some(Duration::from_millis(20)));
        headers.insert("retry-after-ms", "later".parse().expect("a value"));
        assert_eq!(asked_wait(&headers), Some(Duration::from_secs(30)));
        headers.remove(RETRY_AFTER);
        assert_eq!(asked_wait(&headers), None);
    }

    #[test]
    fn a_stall_says_how_long_and_how_far() {
        assert_eq!(
            stalled(Duration::from_secs(30), 3),
            "the stream stalled: no data for 30s (after 3 events)"
        );
        assert_eq!(
            stalled(Duration::from_millis(250), 1),
            "the stream stalled: no data for 250ms (after 1 event)"
        );
    }
}
