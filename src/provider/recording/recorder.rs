//! Recording a session: a provider that passes each call on to the real one and keeps
//! the exchange. The session owns its provider, so what is recorded goes to a
//! [`SessionTape`] the caller keeps a clone of and takes the session from afterwards.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use futures::future::LocalBoxFuture;

use super::{
    RecordedAnswer, RecordedExchange, RecordedSession, RecordedToolCall, RequestMatch, WireBody,
};
use crate::provider::{Completion, ModelCall, ModelError, Provider};

/// Where a [`Recorder`] keeps its session's exchanges; clones share them.
#[derive(Debug, Clone, Default)]
pub struct SessionTape(Rc<RefCell<RecordedSession>>);

impl SessionTape {
    /// The exchanges recorded so far, leaving the tape empty.
    pub fn take(&self) -> RecordedSession {
        self.0.take()
    }

    /// How many exchanges are recorded.
    pub fn len(&self) -> usize {
        self.0.borrow().exchanges.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn push(&self, exchange: RecordedExchange) {
        self.0.borrow_mut().exchanges.push(exchange);
    }
}

/// A provider that records every call another one answers. A failed call is passed
/// on and not recorded: there is no answer to replay.
pub struct Recorder<'p> {
    inner: Box<dyn Provider + 'p>,
    tape: SessionTape,
    /// When the session's first call started; offsets count from it.
    first_call: Option<Instant>,
    /// How many messages the last call showed: each exchange keeps the ones after.
    shown: usize,
}

impl<'p> Recorder<'p> {
    pub fn new(inner: Box<dyn Provider + 'p>) -> Recorder<'p> {
        Recorder {
            inner,
            tape: SessionTape::default(),
            first_call: None,
            shown: 0,
        }
    }

    /// The tape this recorder writes to, to take the session from when it is over.
    pub fn tape(&self) -> SessionTape {
        self.tape.clone()
    }
}

impl Provider for Recorder<'_> {
    fn complete<'a>(
        &'a mut self,
        call: ModelCall<'a>,
    ) -> LocalBoxFuture<'a, Result<Completion, ModelError>> {
        Box::pin(async move {
            let started = Instant::now();
            let first = *self.first_call.get_or_insert(started);
            let completion = self.inner.complete(call).await?;
            let latency = started.elapsed();
            // A conversation only grows; should a hook have shortened it, keep it all.
            let from = if call.messages.len() >= self.shown {
                self.shown
            } else {
                0
            };
            self.shown = call.messages.len();
            self.tape.push(exchange(
                &call,
                from,
                &completion,
                started.duration_since(first),
                latency,
            ));
            Ok(completion)
        })
    }

    fn leftover(&self) -> Option<ModelError> {
        self.inner.leftover()
    }
}

/// What is kept of one answered call.
fn exchange(
    call: &ModelCall<'_>,
    from: usize,
    completion: &Completion,
    offset: Duration,
    latency: Duration,
) -> RecordedExchange {
    let millis = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
    let wire = completion.exchange.as_ref();
    RecordedExchange {
        turn: call.turn,
        round: call.round,
        offset_ms: millis(offset),
        latency_ms: millis(latency),
        request_match: RequestMatch::of_call(call, from),
        request: wire.map(|w| WireBody::of(&w.request)),
        response: wire.map(|w| WireBody::of(&w.response)),
        attempts: wire.map_or(1, |w| w.attempts),
        answer: RecordedAnswer {
            content: completion.message.content.clone(),
            tool_calls: completion
                .message
                .tool_calls
                .iter()
                .map(|call| RecordedToolCall {
                    id: call.id.clone(),
                    name: call.name.clone(),
                    args: call.args.clone(),
                })
                .collect(),
            findings: completion.findings.clone(),
        },
        usage: completion.usage,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::{History, assistant_message, message, tool_message};
    use crate::provider::recording::{MatchMode, ProviderInfo, Recording, Replayer};
    use crate::provider::{Exchange, MockScript, MockTurn, ScriptedCall, ScriptedProvider, Usage};
    use serde_json::json;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime")
    }

    /// Turn 1 looks an order up, then answers; turn 2 answers in text.
    fn script() -> MockScript {
        let mut scenario = crate::provider::Scenario::default();
        scenario.turns.insert(
            1,
            MockTurn {
                content: "Let me look.".into(),
                tool_calls: vec![ScriptedCall {
                    name: "lookup_order".into(),
                    arguments: json!({"order_id": "A-1002"}),
                }],
            },
        );
        scenario.turns.insert(
            2,
            MockTurn {
                content: "It is delayed.".into(),
                tool_calls: Vec::new(),
            },
        );
        scenario.turns.insert(
            3,
            MockTurn {
                content: "Yes, you can.".into(),
                tool_calls: Vec::new(),
            },
        );
        let mut script = MockScript::default();
        script.scenarios.insert("support".into(), scenario);
        script
    }

    const TOOLS: &str = r#"[{"type": "function", "function": {"name": "lookup_order"}}]"#;

    async fn ask(
        provider: &mut dyn Provider,
        history: &History,
        turn: u32,
        round: u32,
    ) -> Result<Completion, ModelError> {
        let tools: Vec<serde_json::Value> = serde_json::from_str(TOOLS).expect("tools");
        let call = ModelCall {
            turn,
            round,
            system_prompt: "You help with orders.",
            model: "fake-model",
            tool_choice: crate::conversation::ToolChoice::Auto,
            messages: history,
            tools: &tools,
            stream: false,
        };
        provider.complete(call).await
    }

    /// Plays the conversation against `provider` as the session would, and returns
    /// each answer's text and tool calls.
    async fn converse(provider: &mut dyn Provider) -> Result<Vec<String>, ModelError> {
        let mut history = History::default();
        let mut answers = Vec::new();
        history.push(message("user", "Where is A-1002?"));
        let first = ask(provider, &history, 1, 1).await?;
        answers.push(format!(
            "{} {:?}",
            first.message.content, first.message.tool_calls
        ));
        let calls: Vec<serde_json::Value> = first
            .message
            .tool_calls
            .iter()
            .map(|c| json!({"id": c.id, "name": c.name, "args": c.args}))
            .collect();
        history.push(assistant_message(&first.message.content, &calls));
        history.push(tool_message(
            &first.message.tool_calls[0].id,
            "lookup_order",
            r#"{"status":"delayed"}"#,
            None,
        ));
        let second = ask(provider, &history, 1, 2).await?;
        answers.push(second.message.content.clone());
        history.push(message("assistant", &second.message.content));
        history.push(message("user", "Can I get a refund?"));
        let third = ask(provider, &history, 2, 1).await?;
        answers.push(third.message.content);
        Ok(answers)
    }

    #[test]
    fn a_recorded_session_written_and_read_back_replays_the_same_answers() {
        let rt = runtime();
        let mut recorder = Recorder::new(Box::new(ScriptedProvider::new(script(), "support")));
        let tape = recorder.tape();
        let live = rt
            .block_on(converse(&mut recorder))
            .expect("the mock answers");
        drop(recorder);
        let session = tape.take();
        assert!(tape.is_empty(), "taking empties the tape");
        let turns: Vec<(u32, u32)> = session
            .exchanges
            .iter()
            .map(|e| (e.turn, e.round))
            .collect();
        assert_eq!(turns, [(1, 1), (1, 2), (2, 1)]);
        let second = &session.exchanges[1];
        assert_eq!(
            serde_json::to_value(&second.request_match).expect("writes"),
            json!({
                "system": "You help with orders.",
                "from": 1,
                "messages": [
                    {"role": "assistant", "content": "Let me look.", "tool_calls": [{"name": "lookup_order", "args": {"order_id": "A-1002"}}]},
                    {"role": "tool", "content": "{\"status\":\"delayed\"}", "tool_result": {"name": "lookup_order"}}
                ],
                "tools": ["lookup_order"]
            })
        );
        assert_eq!(
            (second.request.as_ref(), second.response.as_ref()),
            (None, None)
        );
        assert_eq!(second.attempts, 1);

        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("support.json");
        let mut recording = Recording::new(ProviderInfo {
            name: "mock".into(),
            kind: "mock".into(),
            model: None,
        });
        recording.push_session(session);
        recording.write(&path).expect("writes");
        let text = std::fs::read_to_string(&path).expect("reads");
        assert!(
            text.starts_with("{\n  \"promptexec_recording\": 1,"),
            "{text}"
        );
        let loaded = Recording::load(&path).expect("loads");
        assert_eq!(loaded, recording);

        for mode in [MatchMode::Turn, MatchMode::Content] {
            let mut replayer = Replayer::new(loaded.clone(), &path, 0, mode);
            let replayed = rt.block_on(converse(&mut replayer)).expect("replays");
            assert_eq!(replayed, live, "{mode:?}");
        }
    }

    /// A provider that fails every other call and reports wire details on the rest.
    struct Flaky {
        calls: u32,
    }

    impl Provider for Flaky {
        fn complete<'a>(
            &'a mut self,
            _call: ModelCall<'a>,
        ) -> LocalBoxFuture<'a, Result<Completion, ModelError>> {
            self.calls += 1;
            let result = if self.calls % 2 == 1 {
                Err(ModelError::Provider {
                    provider: "flaky".into(),
                    detail: "HTTP 503".into(),
                })
            } else {
                Ok(Completion {
                    message: crate::provider::AssistantMessage {
                        content: "ok".into(),
                        tool_calls: Vec::new(),
                    },
                    answered_by: "flaky".into(),
                    usage: Some(Usage {
                        input_tokens: 3,
                        output_tokens: 1,
                        cost_usd: Some(0.5),
                    }),
                    exchange: Some(Exchange {
                        request: json!({"model": "m"}),
                        response: json!({"choices": []}),
                        attempts: 2,
                    }),
                    findings: Vec::new(),
                })
            };
            Box::pin(std::future::ready(result))
        }
    }

    #[test]
    fn errors_pass_through_unrecorded_and_wire_details_are_kept() {
        let rt = runtime();
        let mut recorder = Recorder::new(Box::new(Flaky { calls: 0 }));
        let tape = recorder.tape();
        let history: History = vec![message("user", "hi")].into();
        let call = ModelCall {
            turn: 1,
            round: 1,
            system_prompt: "",
            model: "fake-model",
            tool_choice: crate::conversation::ToolChoice::Auto,
            messages: &history,
            tools: &[],
            stream: false,
        };
        let err = rt.block_on(recorder.complete(call)).expect_err("fails");
        assert_eq!(
            err,
            ModelError::Provider {
                provider: "flaky".into(),
                detail: "HTTP 503".into()
            }
        );
        assert!(tape.is_empty());
        let answer = rt.block_on(recorder.complete(call)).expect("answers");
        assert_eq!(answer.answered_by, "flaky");
        let session = tape.take();
        let [kept] = session.exchanges.as_slice() else {
            panic!("one exchange")
        };
        assert_eq!(
            kept.request.as_ref().map(WireBody::to_json),
            Some(json!({"model": "m"}))
        );
        assert_eq!(
            kept.response.as_ref().map(WireBody::to_json),
            Some(json!({"choices": []}))
        );
        assert_eq!(kept.attempts, 2);
        assert_eq!(kept.usage.and_then(|u| u.cost_usd), Some(0.5));
    }
}
