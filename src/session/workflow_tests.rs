use std::path::Path;

use serde_json::json;

use crate::doc::{Checker, parse_yaml};
use crate::pack::workflow::{Workflow, parse};

use super::SessionEvent;
use super::workflow::*;

fn workflow(text: &str) -> Workflow {
    let path = Path::new("w.yaml");
    let root = parse_yaml(path, text).expect("valid yaml");
    let mut cx = Checker::new(path, text);
    let w = parse(&root, "workflow", None, &mut cx);
    w.unwrap_or_else(|| panic!("{}", cx.diagnostics))
}

const LOOP: &str = "\
version: 2
entry: research
states:
  research:
    prompt_task: research
    max_visits: 2
    on_max_visits: summarize
    on_event: { More: research, Done: summarize }
  summarize:
    prompt_task: summarize
    on_event: { Complete: done }
  done:
    prompt_task: done
    terminal: true
";

fn moved(c: &Committed) -> (&str, &str, Option<&str>, Option<&str>) {
    (
        c.from.as_str(),
        c.to.as_str(),
        c.redirected_from.as_deref(),
        c.refused.as_deref(),
    )
}

#[test]
fn the_tool_offers_the_events_of_the_state_and_answers_as_promptkit() {
    let w = workflow(LOOP);
    let mut run = WorkflowRun::start(&w, "research").expect("starts");
    let tool = run.tool().expect("offered");
    assert_eq!(tool["function"]["name"], "workflow__transition");
    assert_eq!(
        tool["function"]["parameters"]["properties"]["event"]["enum"],
        json!(["Done", "More"])
    );
    assert_eq!(
        tool["function"]["parameters"]["required"],
        json!(["event", "context"])
    );
    let answer = run.call(&json!({"event": "Done", "context": "notes"}));
    assert_eq!(
        answer,
        r#"{"event":"Done","status":"transition_scheduled","target_state":"summarize"}"#
    );
    let done = run.commit().expect("pending");
    assert_eq!(moved(&done), ("research", "summarize", None, None));
    assert_eq!(run.state().name, "summarize");
    assert_eq!(
        run.variables(),
        [("workflow_context".to_string(), "notes".to_string())]
    );
    assert_eq!(run.commit(), None, "nothing pending after a commit");
}

#[test]
fn max_visits_redirects_and_terminal_states_refuse() {
    let w = workflow(LOOP);
    let mut run = WorkflowRun::start(&w, "research").expect("starts");
    run.call(&json!({"event": "More", "context": ""}));
    assert_eq!(
        moved(&run.commit().expect("pending")),
        ("research", "research", None, None)
    );
    run.call(&json!({"event": "More", "context": ""}));
    assert_eq!(
        moved(&run.commit().expect("pending")),
        ("research", "summarize", Some("research"), None)
    );
    run.call(&json!({"event": "More", "context": ""}));
    assert_eq!(
        moved(&run.commit().expect("pending")),
        (
            "summarize",
            "summarize",
            None,
            Some(
                "invalid event for current state: event \"More\" not defined for state \"summarize\" (available: [Complete])"
            )
        )
    );
    run.call(&json!({"event": "Complete", "context": ""}));
    run.commit();
    assert!(run.tool().is_none(), "a terminal state is offered no tool");
    run.call(&json!({"event": "Complete", "context": ""}));
    assert_eq!(
        run.commit().and_then(|c| c.refused),
        Some(
            "current state is terminal (no outgoing transitions): state \"done\" is terminal"
                .into()
        )
    );
}

#[test]
fn a_loop_without_a_redirect_stops_at_max_visits_and_the_budget_stops_the_run() {
    let w = workflow(&LOOP.replace("    on_max_visits: summarize\n", ""));
    let mut run = WorkflowRun::start(&w, "research").expect("starts");
    run.call(&json!({"event": "More", "context": ""}));
    run.commit();
    run.call(&json!({"event": "More", "context": ""}));
    assert_eq!(
        run.commit().and_then(|c| c.refused),
        Some("max visits exceeded: state \"research\" visited 2 times (max 2)".into())
    );
    let budget = LOOP.replace(
        "entry: research\n",
        "entry: research\nengine: { budget: { max_tool_calls: 1 } }\n",
    );
    let w = workflow(&budget);
    let mut run = WorkflowRun::start(&w, "research").expect("starts");
    run.count_tool_call();
    run.call(&json!({"event": "Done", "context": ""}));
    assert_eq!(
        run.commit().and_then(|c| c.refused),
        Some("workflow budget exhausted: max_tool_calls 1 reached limit 1".into())
    );
}

#[test]
fn a_prompt_no_state_speaks_with_plays_no_workflow() {
    let w = workflow(LOOP);
    assert!(WorkflowRun::start(&w, "other").is_none());
    assert_eq!(
        WorkflowRun::start(&w, "summarize").map(|r| r.state().name.clone()),
        Some("summarize".into())
    );
}

#[test]
fn the_recorder_reads_states_transitions_and_speakers_from_events() {
    let entered =
        |from: Option<&str>, state: &str, refused: Option<&str>, turn| SessionEvent::Workflow {
            turn,
            from: from.map(str::to_string),
            state: state.into(),
            trigger: from.map(|_| "Go".to_string()),
            redirected_from: None,
            refused: refused.map(str::to_string),
            terminal: state == "b",
            system_prompt: None,
        };
    let said = |turn, content: &str| SessionEvent::Assistant {
        turn,
        content: content.into(),
        tool_calls: Vec::new(),
    };
    let mut recorder = WorkflowRecorder::default();
    assert_eq!(recorder.record(), None);
    for event in [
        entered(None, "a", None, 0),
        said(1, "hello"),
        entered(Some("a"), "a", Some("no"), 1),
        said(1, " "),
        entered(Some("a"), "b", None, 2),
        said(2, "bye"),
    ] {
        recorder.observe(&event);
    }
    let record = recorder.record().expect("a workflow");
    assert_eq!(record.current_state, "b");
    assert!(record.complete);
    assert_eq!(record.transitions.len(), 1);
    let spoken: Vec<(u32, &str)> = record
        .spoken
        .iter()
        .map(|m| (m.turn, m.state.as_str()))
        .collect();
    assert_eq!(spoken, [(1, "a"), (2, "b")]);
}

#[test]
fn artifacts_are_set_by_their_slot_s_mode_and_shown_to_prompts() {
    let text = LOOP.replace(
        "    max_visits: 2\n",
        "    max_visits: 2\n    artifacts:\n      notes: { type: text/plain, mode: append }\n      title: { type: text/plain }\n",
    );
    let w = workflow(&text);
    let mut run = WorkflowRun::start(&w, "research").expect("starts");
    let tool = run.artifact_tool().expect("offered");
    assert_eq!(
        tool["function"]["parameters"]["properties"]["name"]["enum"],
        json!(["notes", "title"])
    );
    assert_eq!(
        run.set_artifact(&json!({"name": "notes", "value": "a. "})),
        r#"{"artifact":"notes","status":"artifact_set"}"#
    );
    run.set_artifact(&json!({"name": "notes", "value": "b."}));
    run.set_artifact(&json!({"name": "title", "value": "x"}));
    run.set_artifact(&json!({"name": "title", "value": "y"}));
    assert_eq!(
        run.variables(),
        [
            ("artifacts.notes".to_string(), "a. b.".to_string()),
            ("artifacts.title".to_string(), "y".to_string())
        ]
    );
    let plain = workflow(LOOP);
    let run = WorkflowRun::start(&plain, "research").expect("starts");
    assert!(run.artifact_tool().is_none(), "no slot, no tool");
}
