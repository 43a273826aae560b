//! The judge's request for each kind of judge eval, as PromptKit lays it out.

use serde_json::json;

use super::prompts::{FAITHFULNESS, GENERAL, TOXICITY};
use super::request::{Asked, JudgeRequest, Unjudgeable};
use super::spec::JudgeSpec;
use crate::conversation::{EvalInput, History, ToolCallRecord, message};

fn input(answer: &str) -> EvalInput {
    EvalInput {
        content: answer.into(),
        messages: History::from(vec![
            message("system", "You are helpful."),
            message("user", "What is the capital of France?"),
            message("assistant", answer),
        ]),
        tool_calls: vec![
            ToolCallRecord {
                name: "search".into(),
                args: json!({"q": "France"}),
                result: Some("Paris".into()),
                error: None,
                parts: Vec::new(),
            },
            ToolCallRecord {
                name: "lookup".into(),
                args: json!({}),
                result: None,
                error: Some("timeout".into()),
                parts: Vec::new(),
            },
        ],
        metadata: json!({"retrieved": ["chunk A", "chunk B"]}),
        ..EvalInput::default()
    }
}

fn spec(eval_type: &str, params: serde_json::Value) -> JudgeSpec {
    JudgeSpec::prepare(eval_type, &params)
        .expect("a judge type")
        .expect("valid params")
}

fn call(asked: Result<Asked, Unjudgeable>) -> JudgeRequest {
    match asked {
        Ok(Asked::Call(request)) => request,
        other => panic!("expected a call, got {other:?}"),
    }
}

#[test]
fn llm_judge_shows_the_answer_with_its_criteria_and_rubric() {
    let asked = call(
        spec(
            "llm_judge",
            json!({"criteria": "Is it correct?", "rubric": "1 if Paris"}),
        )
        .ask(&input("Paris.")),
    );
    assert_eq!(asked.system, GENERAL);
    assert_eq!(
        asked.user,
        "Content to evaluate:\nParis.\n\nCriteria: Is it correct?\n\nRubric: 1 if Paris"
    );
    let own = call(
        spec(
            "llm_judge",
            json!({"criteria": "c", "system_prompt": "Be strict."}),
        )
        .ask(&input("Paris.")),
    );
    assert_eq!(own.system, "Be strict.");
    assert_eq!(own.user, "Content to evaluate:\nParis.\n\nCriteria: c");
}

#[test]
fn the_session_judge_reads_the_conversation_and_its_tool_calls() {
    let asked =
        call(spec("llm_judge_conversation", json!({"criteria": "c"})).ask(&input("Paris.")));
    let expected = "Content to evaluate:\n\
        User: What is the capital of France?\n\
        Assistant: Paris.\n\n\
        Tool calls (name, arguments, result):\n\
        TOOL CALL 1 (index 0):\n  Tool: search\n  Arguments: {\"q\":\"France\"}\n  Result: Paris\n  Error: (none)\n\n\
        TOOL CALL 2 (index 1):\n  Tool: lookup\n  Arguments: {}\n  Result: (none)\n  Error: timeout\n\
        \n\nCriteria: c";
    assert_eq!(asked.user, expected);
}

#[test]
fn the_tool_call_judge_shows_the_calls_named_or_skips_when_none_matches() {
    let asked = call(
        spec(
            "llm_judge_tool_calls",
            json!({"criteria": "c", "tools": ["lookup"]}),
        )
        .ask(&input("Paris.")),
    );
    assert_eq!(asked.tool_calls_sent, Some(1));
    assert!(
        asked
            .user
            .starts_with("Content to evaluate:\nTOOL CALL 1 (index 1):\n  Tool: lookup\n"),
        "{}",
        asked.user
    );
    let none = spec("llm_judge_tool_calls", json!({"tools": ["send_email"]})).ask(&input("x"));
    assert_eq!(
        none,
        Ok(Asked::Nothing(
            "skipped: no matching tool calls to judge".into()
        ))
    );
}

#[test]
fn rag_judges_lay_out_their_sections_with_their_own_defaults() {
    let faithful = call(
        spec(
            "faithfulness",
            json!({"contexts": ["Paris is the capital.", "On the Seine."]}),
        )
        .ask(&input("Paris.")),
    );
    assert_eq!(faithful.system, FAITHFULNESS);
    assert_eq!(
        faithful.user,
        "Content to evaluate:\nCONTEXT:\n[chunk 1] Paris is the capital.\n[chunk 2] On the Seine.\n\nANSWER:\nParis.\n\nCriteria: How faithful is the ANSWER to the CONTEXT?"
    );
    let relevant = call(spec("answer_relevancy", json!({})).ask(&input("Paris.")));
    assert!(relevant.user.starts_with(
        "Content to evaluate:\nQUESTION:\nWhat is the capital of France?\n\nANSWER:\nParis.\n\nCriteria: "
    ), "{}", relevant.user);
    let precision = call(
        spec(
            "contextual_precision",
            json!({"context_field": "retrieved", "question": "Capital?"}),
        )
        .ask(&input("Paris.")),
    );
    assert!(precision.user.starts_with(
        "Content to evaluate:\nQUESTION:\nCapital?\n\nRETRIEVED CHUNKS:\n[chunk 1] chunk A\n[chunk 2] chunk B\n\nCriteria: "
    ), "{}", precision.user);
    let recall = call(
        spec(
            "contextual_recall",
            json!({"context": "Paris.", "reference": "Paris", "criteria": "mine"}),
        )
        .ask(&input("Paris.")),
    );
    assert_eq!(
        recall.user,
        "Content to evaluate:\nREFERENCE ANSWER:\nParis\n\nRETRIEVED CHUNKS:\n[chunk 1] Paris.\n\nCriteria: mine"
    );
    let toxic = call(spec("toxicity", json!({})).ask(&input("Paris.")));
    assert!(
        toxic
            .user
            .starts_with("Content to evaluate:\nParis.\n\nCriteria: ")
    );
    assert_eq!(toxic.system, TOXICITY);
}

#[test]
fn what_a_rag_judge_lacks_is_said() {
    let lacking = |eval_type: &str, params| spec(eval_type, params).ask(&EvalInput::default());
    assert_eq!(lacking("faithfulness", json!({})), Err(Unjudgeable::Chunks));
    assert_eq!(
        lacking("hallucination", json!({"context_field": "chunks"})),
        Err(Unjudgeable::ChunkField("chunks".into()))
    );
    assert_eq!(
        lacking("answer_relevancy", json!({})),
        Err(Unjudgeable::Question)
    );
    assert_eq!(
        lacking("contextual_recall", json!({"contexts": ["a"]})),
        Err(Unjudgeable::Reference)
    );
}
