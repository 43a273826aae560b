//! Replaying a recording as a provider: each model call is answered by a recorded
//! exchange instead of by a model. By turn (the default), call k takes exchange k and
//! must show the model what the recording says it was shown; by content (PromptKit's
//! other mode), a call takes the next exchange recorded for the same last user
//! message. A call nothing answers is an error that shows the difference from the
//! nearest recorded call; there is never a fallback to something else.

use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;

use futures::future::LocalBoxFuture;

use super::diff::{differences, quoted, render, text_line};
use super::{RecordedExchange, Recording, RequestMatch};
use crate::provider::{AssistantMessage, Completion, ModelCall, ModelError, Provider, ToolCall};

/// How a call finds its recorded exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MatchMode {
    /// The k-th call of the session takes the k-th exchange, and must match it.
    #[default]
    Turn,
    /// A call takes the next exchange recorded for the same last user message.
    Content,
}

/// A match mode by a name that is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a match mode (use `turn` or `content`)")]
pub struct UnknownMatchMode(pub String);

impl FromStr for MatchMode {
    type Err = UnknownMatchMode;

    fn from_str(text: &str) -> Result<MatchMode, UnknownMatchMode> {
        match text {
            "turn" => Ok(MatchMode::Turn),
            "content" => Ok(MatchMode::Content),
            other => Err(UnknownMatchMode(other.to_string())),
        }
    }
}

/// Why a call has no recorded answer. `call` names the call as
/// `[session k, ]call n (turn t, round r)`, `recorded` a recorded one as
/// `call n (turn t, round r)`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum ReplayError {
    #[error("the recording holds {} and this is session {}", plural(*sessions, "session"), session + 1)]
    NoSession { sessions: usize, session: usize },
    #[error("the recording holds {} and this is {call}", plural(*recorded, "model call"))]
    PastTheEnd { recorded: usize, call: String },
    /// `diff` is the rendered differences.
    #[error("{call} does not match the recorded {recorded}:\n{diff}")]
    Differs {
        call: String,
        recorded: String,
        diff: String,
    },
    #[error("{call} has no user message to match by content")]
    NoUserMessage { call: String },
    #[error(
        "{call} is answered by the recorded {recorded} for its user message, but the request differs:\n{diff}"
    )]
    RequestDiffers {
        call: String,
        recorded: String,
        diff: String,
    },
    /// `message` is the user message, quoted.
    #[error(
        "{call}: the recording answers this user message {} and every one has been used:\n  user message: {message}",
        plural(*times, "time")
    )]
    AllUsed {
        call: String,
        times: usize,
        message: String,
    },
    #[error("{call}: the recording has no user message to match by content")]
    NoRecordedUserMessage { call: String },
    /// `line` shows the nearest recorded user message against this one.
    #[error(
        "{call}: no recorded call answers this user message; the nearest is {recorded}:\n  {line}"
    )]
    NoMatch {
        call: String,
        recorded: String,
        line: String,
    },
}

/// Texts longer than this are compared by their start only when looking for the
/// nearest recorded user message: the measure costs the product of the lengths.
const NEAREST_PREFIX: usize = 1000;

/// A provider answering from one session of a recording.
#[derive(Debug, Clone)]
pub struct Replayer {
    recording: Arc<Recording>,
    /// Which exchanges content matching has handed out.
    used: Vec<bool>,
    /// The last user message each exchange was shown, which content matching looks
    /// up: an exchange keeps only the messages after the one before it, so the key
    /// may have come earlier.
    keys: Vec<Option<String>>,
    /// The file as it was named, for errors; its name, for `answered_by`.
    path: String,
    file_name: String,
    /// Which session of the recording plays, from 0.
    session: usize,
    mode: MatchMode,
    /// Model calls made so far.
    calls: usize,
}

impl Replayer {
    /// Replays `recording`, read from `path`, session `session` (from 0: trial k
    /// replays session k-1). A session the recording lacks makes every call fail.
    pub fn new(
        recording: impl Into<Arc<Recording>>,
        path: &Path,
        session: usize,
        mode: MatchMode,
    ) -> Replayer {
        let recording = recording.into();
        let keys = session_exchanges(&recording, session)
            .map(content_keys)
            .unwrap_or_default();
        Replayer {
            recording,
            used: vec![false; keys.len()],
            keys,
            path: path.display().to_string(),
            file_name: path.file_name().map_or_else(
                || path.display().to_string(),
                |name| name.to_string_lossy().into_owned(),
            ),
            session,
            mode,
            calls: 0,
        }
    }

    /// The answer to `call`, or why the recording has none.
    pub fn answer(&mut self, call: &ModelCall<'_>) -> Result<Completion, ModelError> {
        self.calls += 1;
        let found = match self.mode {
            MatchMode::Turn => self.by_turn(call),
            MatchMode::Content => self.by_content(call),
        };
        let index = found.map_err(|problem| ModelError::Replay {
            recording: self.path.clone(),
            detail: problem.to_string(),
        })?;
        Ok(self.completion(index))
    }

    /// The recorded calls no call asked for: the conversation ended before the one
    /// recorded did.
    fn unused(&self) -> Option<String> {
        let exchanges = self.exchanges().ok()?;
        let answered = match self.mode {
            MatchMode::Turn => self.calls.min(exchanges.len()),
            MatchMode::Content => self.used.iter().filter(|used| **used).count(),
        };
        (answered < exchanges.len()).then(|| {
            format!(
                "{}the recording holds {} and the conversation asked for {}: it ended before the recorded one did",
                self.session_prefix(),
                plural(exchanges.len(), "model call"),
                answered
            )
        })
    }

    /// The session's exchanges, or why there are none.
    fn exchanges(&self) -> Result<&[RecordedExchange], ReplayError> {
        session_exchanges(&self.recording, self.session)
    }

    /// `session 2, ` when the recording has several, so a message says which.
    fn session_prefix(&self) -> String {
        if self.recording.sessions.len() > 1 {
            format!("session {}, ", self.session + 1)
        } else {
            String::new()
        }
    }

    /// This call as messages name it: `[session k, ]call n (turn t, round r)`.
    fn call_name(&self, call: &ModelCall<'_>) -> String {
        format!(
            "{}call {} (turn {}, round {})",
            self.session_prefix(),
            self.calls,
            call.turn,
            call.round
        )
    }

    fn by_turn(&self, call: &ModelCall<'_>) -> Result<usize, ReplayError> {
        let exchanges = self.exchanges()?;
        let index = self.calls - 1;
        let Some(exchange) = exchanges.get(index) else {
            return Err(ReplayError::PastTheEnd {
                recorded: exchanges.len(),
                call: self.call_name(call),
            });
        };
        let made = RequestMatch::of_call(call, exchange.request_match.from);
        let lines = differences(&exchange.request_match, &made);
        if lines.is_empty() {
            return Ok(index);
        }
        Err(ReplayError::Differs {
            call: self.call_name(call),
            recorded: recorded_name(index, exchange),
            diff: render(&lines),
        })
    }

    fn by_content(&mut self, call: &ModelCall<'_>) -> Result<usize, ReplayError> {
        // The conversation is not compared by content: only its last user message.
        let made = RequestMatch::of_call(call, call.messages.len());
        let last_user = call.messages.iter().rev().find(|m| m["role"] == "user");
        let Some(key) = last_user.map(|m| super::normalize(&m).content) else {
            return Err(ReplayError::NoUserMessage {
                call: self.call_name(call),
            });
        };
        let key = key.as_str();
        let recording = Arc::clone(&self.recording);
        let exchanges = session_exchanges(&recording, self.session)?;
        let same: Vec<usize> = (0..exchanges.len())
            .filter(|&i| self.keys[i].as_deref() == Some(key))
            .collect();
        if let Some(&index) = same.iter().find(|&&i| !self.used[i]) {
            self.used[index] = true;
            // The conversation is not compared (PromptKit's lookup), but what the
            // recording says the model was told and offered still must hold.
            let recorded = RequestMatch {
                messages: None,
                ..exchanges[index].request_match.clone()
            };
            let lines = differences(&recorded, &made);
            if !lines.is_empty() {
                return Err(ReplayError::RequestDiffers {
                    call: self.call_name(call),
                    recorded: recorded_name(index, &exchanges[index]),
                    diff: render(&lines),
                });
            }
            return Ok(index);
        }
        let call_name = self.call_name(call);
        if !same.is_empty() {
            return Err(ReplayError::AllUsed {
                call: call_name,
                times: same.len(),
                message: quoted(key),
            });
        }
        let Some((index, recorded)) = nearest(&self.keys, key) else {
            return Err(ReplayError::NoRecordedUserMessage { call: call_name });
        };
        Err(ReplayError::NoMatch {
            call: call_name,
            recorded: recorded_name(index, &exchanges[index]),
            line: text_line("user message", recorded, key).unwrap_or_default(),
        })
    }

    fn completion(&self, index: usize) -> Completion {
        let exchange = &self.recording.sessions[self.session].exchanges[index];
        let by = match self.mode {
            MatchMode::Turn => "",
            MatchMode::Content => ", by content",
        };
        Completion {
            message: AssistantMessage {
                content: exchange.answer.content.clone(),
                tool_calls: exchange
                    .answer
                    .tool_calls
                    .iter()
                    .map(|call| ToolCall {
                        id: call.id.clone(),
                        name: call.name.clone(),
                        args: call.args.clone(),
                    })
                    .collect(),
            },
            answered_by: format!(
                "recording {}, {}call {}{by}",
                self.file_name,
                self.session_prefix(),
                index + 1
            ),
            usage: exchange.usage,
            exchange: None,
            findings: exchange.answer.findings.clone(),
        }
    }
}

impl Provider for Replayer {
    fn complete<'a>(
        &'a mut self,
        call: ModelCall<'a>,
    ) -> LocalBoxFuture<'a, Result<Completion, ModelError>> {
        Box::pin(std::future::ready(self.answer(&call)))
    }

    fn leftover(&self) -> Option<ModelError> {
        self.unused().map(|detail| ModelError::Replay {
            recording: self.path.clone(),
            detail,
        })
    }
}

/// Session `session`'s exchanges, or why there are none.
fn session_exchanges(
    recording: &Recording,
    session: usize,
) -> Result<&[RecordedExchange], ReplayError> {
    match recording.sessions.get(session) {
        Some(found) => Ok(&found.exchanges),
        None => Err(ReplayError::NoSession {
            sessions: recording.sessions.len(),
            session,
        }),
    }
}

/// Recorded exchange `index` (from 0) as messages name it: `call n (turn t, round r)`.
fn recorded_name(index: usize, exchange: &RecordedExchange) -> String {
    format!(
        "call {} (turn {}, round {})",
        index + 1,
        exchange.turn,
        exchange.round
    )
}

/// Each exchange's content key: the last user message among the messages it keeps,
/// else the one before it was shown.
fn content_keys(exchanges: &[RecordedExchange]) -> Vec<Option<String>> {
    let mut last: Option<String> = None;
    exchanges
        .iter()
        .map(|exchange| {
            if let Some(key) = exchange.request_match.last_user_content() {
                last = Some(key.to_string());
            } else if exchange.request_match.from == 0 {
                last = None;
            }
            last.clone()
        })
        .collect()
}

/// The recorded user message most like `key`, and the first exchange recorded for it.
fn nearest<'r>(keys: &'r [Option<String>], key: &str) -> Option<(usize, &'r str)> {
    let start = |text: &str| text.chars().take(NEAREST_PREFIX).collect::<String>();
    let key_start = start(key);
    let mut best: Option<(usize, &str, f64)> = None;
    for (i, recorded) in keys.iter().enumerate() {
        let Some(recorded) = recorded.as_deref() else {
            continue;
        };
        let score = strsim::normalized_levenshtein(&start(recorded), &key_start);
        if best.is_none_or(|(_, _, top)| score > top) {
            best = Some((i, recorded, score));
        }
    }
    best.map(|(i, recorded, _)| (i, recorded))
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

#[cfg(test)]
mod tests;
