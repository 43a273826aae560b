//! The session driver over the bundled example: the scripted model calls a tool, every
//! kind of hook is in place, and the turn ends with the model's answer.

use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::config;
use crate::pack::{self, VarInputs};
use crate::provider::{ScriptedProvider, load_mock};
use crate::session::{Session, SessionEvent, TurnEnd};
use crate::test_support::repo_root;

async fn play(user_text: &str) -> (TurnEnd, Vec<SessionEvent>) {
    let root = repo_root();
    let config = config::load(&root.join("runtimeconfig.example.yaml"), false)
        .expect("config")
        .value;
    let pack = pack::load(&root.join("examples/assistant.pack.json"))
        .expect("pack")
        .value;
    let prompt = pack.prompts.get("support").expect("support prompt");
    let mut vars = VarInputs::new();
    vars.insert("customer_name".into(), json!("Dana"));
    let system = pack::render_prompt(&pack, prompt, &vars).expect("renders");
    let script = load_mock(&root.join("examples/mock-responses.yaml"))
        .expect("mock")
        .value;
    let provider = ScriptedProvider::new(script, "support");
    let mut session = Session::new(
        &config,
        &pack,
        prompt,
        system,
        provider,
        CancellationToken::new(),
    );
    let end = session.turn(user_text).await;
    session.finish().await;
    let events = session.events.read_all().expect("the event log reads back");
    (end, events)
}

#[tokio::test]
async fn a_turn_calls_the_scripted_tool_and_ends_with_the_answer() {
    let (end, events) = play("Hi, where is my order A-1002?").await;
    assert_eq!(end, TurnEnd::Answered, "{events:#?}");
    let tool = events
        .iter()
        .find_map(|e| match e {
            SessionEvent::ToolCall {
                name,
                status,
                content,
                call_id,
                ..
            } => Some((name, status, content, call_id)),
            _ => None,
        })
        .expect("a tool call");
    assert_eq!(
        (tool.0.as_str(), tool.1.as_str(), tool.3.as_str()),
        ("lookup_order", "ok", "call_1_lookup_order")
    );
    assert!(tool.2.contains("delayed"), "{}", tool.2);
    let answer = events
        .iter()
        .rev()
        .find_map(|e| match e {
            SessionEvent::Assistant { content, .. } => Some(content.clone()),
            _ => None,
        })
        .expect("an answer");
    assert!(answer.contains("A-1002"), "{answer}");
}

#[tokio::test]
async fn a_provider_filter_denial_aborts_the_turn_naming_the_hook() {
    let (end, events) = play("My SSN is 123-45-6789, where is my order?").await;
    let TurnEnd::Aborted { hook, reason } = end else {
        panic!("aborted: {events:#?}")
    };
    assert_eq!(hook, "pii_guard");
    assert!(reason.contains("ssn"), "{reason}");
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, SessionEvent::ModelCall { .. })),
        "the model was never called"
    );
}
