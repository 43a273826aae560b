use std::path::Path;

use super::*;

/// The scenario `spec` lines make, read from a file of that text.
fn read(spec: &str) -> Result<Loaded<Scenario>, Rejected> {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("x.scenario.yaml");
    let text = format!(
        "apiVersion: {API_VERSION}\nkind: Scenario\nmetadata:\n  name: x\nspec:\n  task_type: chat\n  description: x\n{spec}"
    );
    std::fs::write(&path, text).expect("write");
    load(Path::new(&path))
}

fn messages(rejected: Rejected) -> Vec<String> {
    rejected.0.iter().map(|d| d.to_string()).collect()
}

#[test]
fn a_message_in_params_is_the_assertion_s_and_leaves_the_params() {
    let loaded = read(
        "  turns:\n    - role: user\n      content: Hi\n      assertions:\n        - { type: content_includes, params: { patterns: [a], message: in params } }\n        - { type: content_includes, params: { patterns: [a], message: in params }, message: beside }\n",
    )
    .expect("loads");
    assert!(
        loaded.warnings.iter().next().is_none(),
        "{:?}",
        loaded.warnings
    );
    let assertions = &loaded.value.turns[0].assertions;
    assert_eq!(assertions[0].message.as_deref(), Some("in params"));
    assert_eq!(assertions[0].params, serde_json::json!({"patterns": ["a"]}));
    assert_eq!(assertions[1].message.as_deref(), Some("beside"));
    assert_eq!(assertions[1].params, serde_json::json!({"patterns": ["a"]}));
}

#[test]
fn tool_policy_limits_of_zero_are_unset_and_negative_ones_refused() {
    let policy = |limits: &str| {
        read(&format!(
            "  tool_policy: {{ tool_choice: auto, {limits} }}\n  turns:\n    - role: user\n      content: Hi\n"
        ))
    };
    let loaded = policy("max_tool_calls_per_turn: 0, max_total_tool_calls: 0, max_rounds: 0, max_identical_tool_calls: 2")
        .expect("loads");
    let got = loaded.value.tool_policy.expect("a policy");
    assert_eq!(got.max_tool_calls_per_turn, None);
    assert_eq!(got.max_total_tool_calls, None);
    assert_eq!(got.max_rounds, None);
    assert_eq!(got.max_identical_tool_calls, Some(2));
    let refused = messages(
        policy("max_tool_calls_per_turn: -1, max_total_tool_calls: 3").expect_err("refused"),
    );
    assert!(
        refused[0].ends_with(
            "/spec/tool_policy/max_tool_calls_per_turn: expected a non-negative integer, found -1"
        ),
        "{refused:?}"
    );
    let missing = messages(policy("max_total_tool_calls: 3").expect_err("refused"));
    assert!(
        missing[0].ends_with("/spec/tool_policy: missing key `max_tool_calls_per_turn`"),
        "{missing:?}"
    );
}

#[test]
fn turns_that_are_not_user_turns_are_kept_with_where_they_stand() {
    let loaded = read(
        "  providers: [a, b]\n  turns:\n    - role: assistant\n      content: Scripted\n    - role: user\n      content: Hi\n    - role: claude-user\n      persona: p\n      turns: 2\n      assertions:\n        - { type: content_includes, params: { patterns: [a] } }\n",
    )
    .expect("loads");
    // Neither the turns nor their self-play keys warn: the report says they were skipped.
    assert!(
        loaded.warnings.iter().next().is_none(),
        "{:?}",
        loaded.warnings
    );
    let s = loaded.value;
    assert_eq!(s.turns.len(), 1);
    let unplayed: Vec<(u32, u32, &str)> = s
        .unplayed
        .iter()
        .map(|t| (t.index, t.after, t.role.as_str()))
        .collect();
    assert_eq!(unplayed, [(1, 0, "assistant"), (3, 1, "claude-user")]);
    assert_eq!(s.unplayed[1].assertions.len(), 1);
    assert!(
        s.unplayed[1].reason.contains("persona `p`"),
        "{}",
        s.unplayed[1].reason
    );
    let providers: Vec<&str> = s.providers.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(providers, ["a", "b"]);
}

#[test]
fn assertions_are_planned_in_file_order_and_a_bound_type_runs() {
    let loaded = read(
        "  turns:\n    - role: user\n      content: Hi\n      assertions:\n        - { type: content_includes, params: { patterns: [a] } }\n    - role: assistant\n      content: Scripted\n      assertions:\n        - { type: max_length, params: { max: 9 } }\n    - role: user\n      content: Again\n      assertions:\n        - { type: image_format, params: { formats: [png] } }\n  conversation_assertions:\n    - { type: tool_exec }\n",
    )
    .expect("loads");
    let planned = crate::suite::plan_assertions(&loaded.value, &|_| false).expect("planned");
    let checks: Vec<(&str, &str, bool)> = planned
        .checks
        .iter()
        .map(|c| (c.id.as_str(), c.place.as_str(), c.not_played.is_some()))
        .collect();
    assert_eq!(
        checks,
        [
            ("turn-1.1", "turn 1", false),
            (
                "unplayed-turn-2.1",
                "turn 2 of the file (`assistant`)",
                true
            ),
            ("turn-2.1", "turn 2", true),
            ("conversation.1", "conversation", true),
        ]
    );
    let run: Vec<&str> = planned.evals.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(run, ["turn-1.1"]);
    // The unplayed turn's check is prepared (its params checked), never run.
    assert_eq!(planned.unplayed.len(), 1);
    // A type the config binds runs as that eval.
    let bound = crate::suite::plan_assertions(&loaded.value, &|kind| kind == "image_format")
        .expect("planned");
    let run: Vec<&str> = bound.evals.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(run, ["turn-1.1", "turn-2.1"]);
}
