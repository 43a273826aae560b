//! An Arena project's runtime tools: a mocked A2A agent (`a2a_agents` with
//! `responses`) and the memory tools (`memory.enabled`) are offered to the model,
//! the calls its mock provider scripts are answered, and each conversation keeps
//! memories of its own.

use serde_json::Value as Json;

use crate::util::{fixtures, promptexec};

fn run_helpdesk() -> (Json, String) {
    let out = promptexec()
        .in_dir(fixtures().join("runtime_tools").join("helpdesk"))
        .args(["run", "arena.yaml", "--format", "json"])
        .run();
    out.expect_code(1);
    let report = serde_json::from_str(&out.stdout).expect("a JSON report");
    (report, out.stderr)
}

fn scenario<'a>(report: &'a Json, id: &str) -> &'a Json {
    report["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .find(|s| s["id"] == id)
        .unwrap_or_else(|| panic!("no scenario {id} in {report}"))
}

/// `(type, outcome)` of each assertion of a scenario, in order.
fn outcomes(scenario: &Json) -> Vec<(String, String)> {
    scenario["assertions"]
        .as_array()
        .expect("assertions")
        .iter()
        .map(|a| {
            let text = |key: &str| a[key].as_str().unwrap_or_default().to_string();
            (text("type"), text("outcome"))
        })
        .collect()
}

/// `(tool, status, content or error)` of every tool call of a scenario's trial.
fn calls(scenario: &Json) -> Vec<(String, String, String)> {
    scenario["trials"][0]["tool_calls"]
        .as_array()
        .expect("tool calls")
        .iter()
        .map(|c| {
            let text = |key: &str| c[key].as_str().unwrap_or_default().to_string();
            let answer = c["content"].as_str().or(c["error"].as_str());
            (
                text("name"),
                text("status"),
                answer.unwrap_or_default().to_string(),
            )
        })
        .collect()
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn the_agent_and_memory_calls_run_and_their_assertions_pass() {
    let (report, stderr) = run_helpdesk();
    let remembers = scenario(&report, "remembers");
    assert_eq!(
        calls(remembers),
        [
            (
                "a2a__lookup_agent__find_order".to_string(),
                "ok".to_string(),
                r#"{"response":"Order A-17 shipped on Monday."}"#.to_string()
            ),
            (
                "memory__remember".to_string(),
                "ok".to_string(),
                r#"{"status":"remembered","id":"mem_1"}"#.to_string()
            ),
            (
                "memory__recall".to_string(),
                "ok".to_string(),
                r#"{"memories":[{"id":"mem_1","type":"identity","content":"The user is Dana","confidence":0.9}],"count":1}"#
                    .to_string()
            ),
        ]
    );
    assert_eq!(
        outcomes(remembers),
        pairs(&[
            ("agent_invoked", "passed"),
            ("agent_response_contains", "passed"),
            ("tools_called", "passed"),
            ("tools_called", "passed"),
            ("content_includes", "passed"),
        ])
    );
    // The three keys are played, so none is warned about as ignored.
    for key in ["a2a_agents", "memory"] {
        assert!(
            !stderr.contains(&format!("spec.{key}")),
            "spec.{key} warned about:\n{stderr}"
        );
    }
}

#[test]
fn a_new_conversation_has_no_memories_and_an_unmatched_query_is_a_tool_error() {
    let (report, _) = run_helpdesk();
    let unmatched = scenario(&report, "unmatched");
    assert_eq!(
        calls(unmatched),
        [
            (
                "memory__recall".to_string(),
                "ok".to_string(),
                r#"{"memories":[],"count":0}"#.to_string()
            ),
            (
                "a2a__lookup_agent__find_order".to_string(),
                "error".to_string(),
                "a2a__lookup_agent__find_order: no mocked response matches the message".to_string()
            ),
        ]
    );
    assert_eq!(
        outcomes(unmatched),
        pairs(&[
            ("tools_called", "passed"),
            ("agent_invoked", "passed"),
            ("agent_response_contains", "failed"),
        ])
    );
    assert_eq!(report["summary"]["passed"], 1);
    assert_eq!(report["summary"]["failed"], 1);
}
