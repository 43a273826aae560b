use super::*;
use crate::conversation::{History, assistant_message, message, tool_message};
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
        tool_choice: crate::conversation::ToolChoice::Auto,
        messages: history,
        tools: &[],
        stream: false,
    }
}

/// The fixture's conversation as the session builds it, up to each call.
fn conversation() -> Vec<History> {
    let lookup = json!({"id": "call_1", "name": "lookup_order", "args": {"order_id": "A-1002"}});
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
