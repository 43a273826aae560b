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
pub enum ReplayError {
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
mod tests {
    use super::*;
    use crate::hooks::{History, assistant_message, message, tool_message};
    use crate::provider::Usage;
    use serde_json::json;
    use std::path::PathBuf;

    fn fixture() -> (PathBuf, Recording) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/recordings/promptkit-session.json");
        let recording = Recording::load(&path).expect("reads");
        (path, recording)
    }

    fn call<'a>(turn: u32, round: u32, history: &'a History) -> ModelCall<'a> {
        ModelCall {
            turn,
            round,
            system_prompt: "You help with orders.",
            model: "fake-model",
            tool_choice: crate::pack::ToolChoice::Auto,
            messages: history,
            tools: &[],
            stream: false,
        }
    }

    /// The fixture's conversation as the session builds it, up to each call.
    fn conversation() -> Vec<History> {
        let lookup =
            json!({"id": "call_1", "name": "lookup_order", "args": {"order_id": "A-1002"}});
        let result = r#"{"order_id":"A-1002","status":"delayed","eta":"2026-08-25"}"#;
        let mut history = History::default();
        let mut upto = Vec::new();
        history.push(message("user", "Where is my order A-1002?"));
        upto.push(history.clone());
        history.push(assistant_message("", &[lookup]));
        history.push(tool_message("call_1", "lookup_order", result, None));
        upto.push(history.clone());
        history.push(message(
            "assistant",
            "Your order A-1002 is delayed; it should arrive on 2026-08-25.",
        ));
        history.push(message("user", "Can I get a refund if it is late?"));
        upto.push(history);
        upto
    }

    #[test]
    fn recorded_calls_nobody_asked_for_are_left_over() {
        let (path, recording) = fixture();
        let calls = conversation();
        for mode in [MatchMode::Turn, MatchMode::Content] {
            let mut replayer = Replayer::new(recording.clone(), &path, 0, mode);
            replayer.answer(&call(1, 1, &calls[0])).expect("answers");
            let left = replayer.leftover().expect("two calls were not asked for");
            assert!(
                left.to_string().ends_with(
                    "the recording holds 3 model calls and the conversation asked for 1: it ended before the recorded one did"
                ),
                "{left}"
            );
            replayer.answer(&call(1, 2, &calls[1])).expect("answers");
            replayer.answer(&call(2, 1, &calls[2])).expect("answers");
            assert_eq!(replayer.leftover(), None);
        }
    }

    #[test]
    fn by_content_the_system_prompt_and_tools_recorded_must_still_hold() {
        let (path, mut recording) = fixture();
        recording.sessions[0].exchanges[0].request_match.system = Some("Be terse.".into());
        let mut replayer = Replayer::new(recording, &path, 0, MatchMode::Content);
        let err = replayer
            .answer(&call(1, 1, &conversation()[0]))
            .expect_err("another system prompt");
        let text = err.to_string();
        assert!(
            text.contains("is answered by the recorded call 1 (turn 1, round 1) for its user message, but the request differs:")
                && text.contains("system prompt"),
            "{text}"
        );
    }

    #[test]
    fn the_promptkit_fixture_replays_by_turn() {
        let (path, recording) = fixture();
        let mut replayer = Replayer::new(recording, &path, 0, MatchMode::Turn);
        let calls = conversation();
        let first = replayer.answer(&call(1, 1, &calls[0])).expect("answers");
        assert_eq!(first.message.content, "");
        assert_eq!(
            first.message.tool_calls,
            [ToolCall {
                id: "call_abc123".into(),
                name: "lookup_order".into(),
                args: json!({"order_id": "A-1002"}),
            }]
        );
        assert_eq!(
            first.answered_by,
            "recording promptkit-session.json, call 1"
        );
        assert_eq!(
            first.usage,
            Some(Usage {
                input_tokens: 152,
                output_tokens: 21,
                cost_usd: Some(0.0000354)
            })
        );
        let second = replayer.answer(&call(1, 2, &calls[1])).expect("answers");
        assert_eq!(
            second.message.content,
            "Your order A-1002 is delayed; it should arrive on 2026-08-25."
        );
        let third = replayer.answer(&call(2, 1, &calls[2])).expect("answers");
        assert_eq!(
            third.message.content,
            "Yes: if it arrives after 2026-08-25 you can ask for a full refund."
        );
        let err = replayer
            .answer(&call(3, 1, &calls[2]))
            .expect_err("nothing left");
        assert_eq!(
            err.to_string(),
            format!(
                "replay of {}: the recording holds 3 model calls and this is call 4 (turn 3, round 1)",
                path.display()
            )
        );
    }

    #[test]
    fn an_edited_user_message_fails_by_turn_with_a_diff_naming_it() {
        let (path, recording) = fixture();
        let mut replayer = Replayer::new(recording, &path, 0, MatchMode::Turn);
        let mut history = History::default();
        history.push(message("user", "Where is my order A-1003?"));
        let Err(ModelError::Replay { recording, detail }) = replayer.answer(&call(1, 1, &history))
        else {
            panic!("the edited message does not match")
        };
        assert_eq!(recording, path.display().to_string());
        assert_eq!(
            detail,
            "call 1 (turn 1, round 1) does not match the recorded call 1 (turn 1, round 1):\n  messages[0] (user).content: recorded \"Where is my order A-1002?\" — made \"Where is my order A-1003?\""
        );
    }

    #[test]
    fn content_matching_finds_calls_by_the_last_user_message() {
        let (path, recording) = fixture();
        let mut replayer = Replayer::new(recording, &path, 0, MatchMode::Content);
        let calls = conversation();
        // The second turn first: content matching does not care about order.
        let refund = replayer.answer(&call(1, 1, &calls[2])).expect("answers");
        assert_eq!(
            refund.message.content,
            "Yes: if it arrives after 2026-08-25 you can ask for a full refund."
        );
        assert_eq!(
            refund.answered_by,
            "recording promptkit-session.json, call 3, by content"
        );
        // Both calls of the first turn share its user message, and come in order.
        let lookup = replayer.answer(&call(2, 1, &calls[0])).expect("answers");
        assert_eq!(lookup.message.tool_calls[0].name, "lookup_order");
        let answer = replayer.answer(&call(2, 2, &calls[1])).expect("answers");
        assert!(answer.message.tool_calls.is_empty());
        let err = replayer
            .answer(&call(2, 3, &calls[1]))
            .expect_err("used up");
        assert!(
            err.to_string().ends_with(
                "call 4 (turn 2, round 3): the recording answers this user message 2 times and every one has been used:\n  user message: \"Where is my order A-1002?\""
            ),
            "{err}"
        );
    }

    #[test]
    fn a_content_miss_names_the_nearest_recorded_message() {
        let (path, recording) = fixture();
        let mut replayer = Replayer::new(recording, &path, 0, MatchMode::Content);
        let mut history = History::default();
        history.push(message("user", "Can I get a refund if it is lost?"));
        let Err(ModelError::Replay { detail, .. }) = replayer.answer(&call(1, 1, &history)) else {
            panic!("no recorded call has this message")
        };
        assert_eq!(
            detail,
            "call 1 (turn 1, round 1): no recorded call answers this user message; the nearest is call 3 (turn 2, round 1):\n  user message: recorded \"Can I get a refund if it is late?\" — made \"Can I get a refund if it is lost?\""
        );
    }

    #[test]
    fn a_session_the_recording_lacks_fails_every_call() {
        let (path, recording) = fixture();
        let mut replayer = Replayer::new(recording, &path, 1, MatchMode::Turn);
        let calls = conversation();
        let err = replayer
            .answer(&call(1, 1, &calls[0]))
            .expect_err("no session 2");
        assert!(
            err.to_string()
                .ends_with("the recording holds 1 session and this is session 2"),
            "{err}"
        );
    }

    #[test]
    fn match_modes_are_read_by_name() {
        assert_eq!("turn".parse(), Ok(MatchMode::Turn));
        assert_eq!("content".parse(), Ok(MatchMode::Content));
        assert_eq!(
            "order".parse::<MatchMode>().map_err(|e| e.to_string()),
            Err("`order` is not a match mode (use `turn` or `content`)".to_string())
        );
    }
}
