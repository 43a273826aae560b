//! Skills and agents offered to the model as tools: the `skill_*` and `agent_*`
//! assertions judge the calls the model made, in an Arena project whose mock
//! provider scripts those calls.

use serde_json::Value as Json;

use crate::util::{fixtures, promptexec, scenario_assertions};

/// `(type, outcome, detail)` of every assertion of scenario `id` in a JSON report.
fn assertions(report: &Json, id: &str) -> Vec<(String, String, String)> {
    scenario_assertions(report, id, ["type", "outcome", "detail"])
        .into_iter()
        .map(|[kind, outcome, detail]| (kind, outcome, detail))
        .collect()
}

fn run_delegation() -> Json {
    let out = promptexec()
        .in_dir(fixtures().join("extras").join("delegation"))
        .args(["run", "arena.yaml", "--format", "json"])
        .run();
    out.expect_code(1);
    serde_json::from_str(&out.stdout).expect("a JSON report")
}

#[test]
fn skill_and_agent_assertions_pass_on_the_calls_the_model_made() {
    let report = run_delegation();
    let got = assertions(&report, "research");
    let kinds: Vec<&str> = got.iter().map(|(k, _, _)| k.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "skill_activated",
            "skill_not_activated",
            "skill_activation_order",
            "agent_invoked",
            "agent_not_invoked",
            "agent_response_contains",
        ]
    );
    for (kind, outcome, detail) in &got {
        assert_eq!(outcome, "passed", "{kind}: {detail}");
    }
}

#[test]
fn skills_activated_out_of_order_and_an_agent_never_called_fail() {
    let report = run_delegation();
    let got = assertions(&report, "wrong-order");
    assert_eq!(
        got,
        [
            (
                "skill_activation_order".to_string(),
                "failed".to_string(),
                "activated summarize > literature-search; expected the order \
                 literature-search > summarize (matched 1 of 2)"
                    .to_string()
            ),
            (
                "agent_invoked".to_string(),
                "failed".to_string(),
                "agents not invoked: research_agent".to_string()
            ),
        ]
    );
    assert_eq!(report["summary"]["failed"], 1);
    assert_eq!(report["summary"]["passed"], 1);
}
