//! A pack's workflow played in conversations: `workflow__transition` offered with the
//! state's events, the new state answering in the same turn with its own prompt,
//! a wrong event and a loop past `max_visits` leaving the state as it was, the six
//! workflow assertions, and a workflow with a wrong reference refused where it is
//! written.

use std::path::PathBuf;

use serde_json::Value as Json;

use crate::util::{Invocation, fixtures, promptexec};

fn dir() -> PathBuf {
    fixtures().join("workflow")
}

/// `run` of the support pack with the mock script, and more arguments.
fn run(extra: &[&str]) -> Invocation {
    promptexec()
        .in_dir(dir())
        .args(["run", "support.pack.json", "--mock", "mock.yaml"])
        .args(extra)
}

/// The first trial of the scenario `id` in a suite's JSON report.
fn trial<'r>(report: &'r Json, id: &str) -> &'r Json {
    let scenarios = report["scenarios"].as_array().expect("scenarios");
    let scenario = scenarios
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("no scenario `{id}`: {report:#}"));
    &scenario["trials"][0]
}

#[test]
fn two_transitions_each_answered_by_the_new_state_and_every_assertion_passes() {
    let out = run(&["scenarios/", "--format", "json"]).run();
    out.expect_code(0);
    let report = out.json_report();
    let flow = &report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .find(|s| s["id"] == "flow")
        .expect("flow")["assertions"];
    let types: Vec<(&str, &str)> = flow
        .as_array()
        .expect("assertions")
        .iter()
        .map(|a| {
            (
                a["type"].as_str().unwrap_or_default(),
                a["outcome"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        types,
        [
            ("state_is", "passed"),
            ("state_is", "passed"),
            ("transitioned_to", "passed"),
            ("spoke_in_state", "passed"),
            ("workflow_complete", "passed"),
            ("workflow_transition_order", "passed"),
            ("spoke_in_state", "passed"),
            ("workflow_tool_access", "passed"),
        ],
        "{flow:#}"
    );
    let flow = trial(&report, "flow");
    let workflow = &flow["workflow"];
    assert_eq!(workflow["current_state"], "closed", "{workflow:#}");
    assert_eq!(workflow["complete"], true);
    let moves: Vec<(&str, &str, &str, u64)> = workflow["transitions"]
        .as_array()
        .expect("transitions")
        .iter()
        .map(|t| {
            (
                t["from"].as_str().unwrap_or_default(),
                t["to"].as_str().unwrap_or_default(),
                t["event"].as_str().unwrap_or_default(),
                t["turn"].as_u64().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        moves,
        [
            ("intake", "specialist", "Escalate", 2),
            ("specialist", "closed", "Resolve", 3)
        ]
    );
    let spoken: Vec<(u64, &str)> = workflow["spoken"]
        .as_array()
        .expect("spoken")
        .iter()
        .map(|m| {
            (
                m["turn"].as_u64().unwrap_or_default(),
                m["state"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        spoken,
        [
            (1, "intake"),
            (2, "intake"),
            (2, "specialist"),
            (3, "specialist"),
            (3, "closed")
        ]
    );
    // The specialist's prompt was rendered with the brief the intake state wrote.
    let entered: Vec<&Json> = flow["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["event"] == "workflow" && e["from"] == "intake")
        .collect();
    assert_eq!(
        entered[0]["system_prompt"],
        "You are the billing specialist of TechCo. Brief: Charged twice on AC-1."
    );
    // The tool the model was answered with, as PromptKit answers it.
    let answers: Vec<&str> = flow["tool_calls"]
        .as_array()
        .expect("tool calls")
        .iter()
        .filter(|c| c["name"] == "workflow__transition")
        .map(|c| c["content"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        answers[0],
        r#"{"event":"Escalate","status":"transition_scheduled","target_state":"specialist"}"#
    );
}

#[test]
fn a_wrong_event_is_a_tool_error_and_a_loop_past_max_visits_is_refused() {
    let out = run(&["scenarios/detour.scenario.yaml", "--format", "json"]).run();
    out.expect_code(0);
    let report = out.json_report();
    let detour = trial(&report, "detour");
    let calls: Vec<(&str, &str)> = detour["tool_calls"]
        .as_array()
        .expect("tool calls")
        .iter()
        .map(|c| {
            (
                c["status"].as_str().unwrap_or_default(),
                c["content"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        calls[0],
        (
            "error",
            r#"invalid arguments: /event: "Close" is not one of "Escalate" or "Resolve""#
        ),
        "{calls:?}"
    );
    let refused: Vec<&Json> = detour["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["event"] == "workflow" && e.get("refused").is_some())
        .collect();
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_eq!(refused[0]["trigger"], "Retry");
    assert_eq!(refused[0]["state"], "specialist");
    assert_eq!(
        refused[0]["refused"],
        r#"max visits exceeded: state "specialist" visited 1 times (max 1)"#
    );
    assert_eq!(detour["workflow"]["current_state"], "specialist");
    assert_eq!(
        detour["workflow"]["transitions"].as_array().map(Vec::len),
        Some(1)
    );
}

#[test]
fn assertions_the_workflow_does_not_meet_fail_the_run() {
    run(&["failing/"])
        .run()
        .expect_code(1)
        .stderr_has("FAIL  wrong")
        .stderr_has("expected state `closed` but got `intake`")
        .stderr_has("workflow has not reached a terminal state (it is in `intake`)");
}

#[test]
fn a_conversation_from_the_command_line_plays_the_workflow_and_shows_each_step() {
    promptexec()
        .in_dir(dir())
        .args([
            "run",
            "support.pack.json",
            "--prompt",
            "intake",
            "--scenario",
            "flow",
        ])
        .args(["--mock", "mock.yaml"])
        .args([
            "--message",
            "Hi",
            "--message",
            "Charged twice",
            "--message",
            "Refund?",
        ])
        .run()
        .expect_code(0)
        .stderr_has("── workflow: `intake`")
        .stderr_has("── workflow: `intake` → `specialist` on `Escalate`")
        .stderr_has("── workflow: `specialist` → `closed` on `Resolve` (complete)")
        .stderr_has("assistant: Your case is closed. Thank you!");
}

#[test]
fn a_wrong_reference_in_the_workflow_is_refused_at_its_place() {
    let text = std::fs::read_to_string(dir().join("support.pack.json")).expect("the fixture");
    let broken = text.replace(r#""Escalate": "specialist""#, r#""Escalate": "specialst""#);
    assert_ne!(broken, text);
    let tmp = tempfile::tempdir().expect("a temp dir");
    promptexec()
        .in_dir(tmp.path())
        .file("broken.pack.json", broken)
        .args(["validate", "broken.pack.json"])
        .run()
        .expect_code(2)
        .stderr_has("broken.pack.json:48:35: /workflow/states/intake/on_event/Escalate: `specialst` is not a state of the workflow; did you mean `specialist`?");
}

#[test]
fn an_approved_call_then_a_transition_and_the_next_state_speaks_in_the_same_turn() {
    let out = promptexec()
        .in_dir(dir().join("hitl"))
        .args([
            "-c",
            "refunds.yaml",
            "run",
            "refunds.pack.json",
            "--prompt",
            "triage",
        ])
        .args([
            "--mock",
            "refunds.mock.yaml",
            "--approve",
            "refund",
            "--format",
            "json",
        ])
        .args(["--message", "Refund 150 on order 12345, it arrived broken."])
        .run();
    out.expect_code(0);
    let report = out.json_report();
    assert_eq!(
        report["workflow"]["current_state"], "confirmation",
        "{report:#}"
    );
    let answers = crate::util::contents_of(&report, "assistant");
    assert_eq!(
        answers.last().map(String::as_str),
        Some("Your refund of 150 for order 12345 is on its way.")
    );
    let entered: Vec<&Json> = report["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["event"] == "workflow" && e["state"] == "confirmation")
        .collect();
    assert_eq!(
        entered[0]["system_prompt"],
        "You confirm refunds. Handed over: Refunded 150 on order 12345."
    );
    assert_eq!(report["turns"].as_array().map(Vec::len), Some(1));
}

#[test]
fn max_visits_ends_a_loop_and_the_state_it_sends_to_sees_the_artifacts() {
    let out = promptexec()
        .in_dir(dir().join("loop"))
        .args([
            "run",
            "loop.pack.json",
            "scenarios/",
            "--mock",
            "loop.mock.yaml",
        ])
        .args(["--format", "json"])
        .run();
    out.expect_code(0);
    let report = out.json_report();
    let loop_run = trial(&report, "loop");
    let moves: Vec<(&str, &str, Option<&str>)> = loop_run["workflow"]["transitions"]
        .as_array()
        .expect("transitions")
        .iter()
        .map(|t| {
            (
                t["from"].as_str().unwrap_or_default(),
                t["to"].as_str().unwrap_or_default(),
                t["redirected_from"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        moves,
        [
            ("research", "research", None),
            ("research", "summarize", Some("research"))
        ]
    );
    let summarize: Vec<&Json> = loop_run["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["event"] == "workflow" && e["state"] == "summarize")
        .collect();
    assert_eq!(
        summarize[0]["system_prompt"],
        "Summarize these notes: a; b;"
    );
    let answers: Vec<&str> = loop_run["tool_calls"]
        .as_array()
        .expect("tool calls")
        .iter()
        .filter(|c| c["name"] == "workflow__set_artifact")
        .map(|c| c["content"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        answers,
        [r#"{"artifact":"notes","status":"artifact_set"}"#; 2]
    );
}
