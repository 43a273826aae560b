//! `promptexec run` on the bundled example.

use serde_json::Value as Json;

use crate::util::{Outcome, repo_root, run_env};

#[track_caller]
fn run(extra: &[&str]) -> Outcome {
    let mut args = vec![
        "-c",
        "runtimeconfig.example.yaml",
        "run",
        "examples/assistant.pack.json",
    ];
    args.extend_from_slice(extra);
    run_env(&repo_root(), &args, &[])
}

#[test]
fn the_example_conversation_calls_its_tool_and_answers() {
    let out = run(&[
        "--var",
        "customer_name=Dana",
        "--message",
        "Hi, where is my order A-1002?",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("tool lookup_order (call_1_lookup_order) ok"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("assistant: Your order A-1002"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("summary: 1 turn(s), 2 model call(s), 1 tool call(s)"),
        "{}",
        out.stderr
    );
    assert_eq!(out.stdout, "");
}

#[test]
fn json_format_prints_one_report_document() {
    let out = run(&[
        "--var",
        "customer_name=Dana",
        "--message",
        "Where is A-1002?",
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let report: Json = serde_json::from_str(&out.stdout).expect("one JSON document");
    assert_eq!(report["prompt"], "support");
    let tools: Vec<&Json> = report["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["event"] == "tool_call")
        .collect();
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0]["name"], "lookup_order");
    assert_eq!(report["exit_code"], 0);
}

#[test]
fn a_provider_hook_denial_ends_the_turn_with_exit_1_and_the_hook_name() {
    let out = run(&[
        "--var",
        "customer_name=Dana",
        "--message",
        "My SSN is 123-45-6789",
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("turn 1 aborted by hook `pii_guard`: personal data (ssn)"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_missing_required_variable_is_bad_input_naming_it() {
    let out = run(&["--message", "hello"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("needs variable `customer_name`"),
        "{}",
        out.stderr
    );
}

#[test]
fn session_hooks_hear_the_start_every_turn_and_the_end() {
    let dir = tempfile::tempdir().expect("temp dir");
    let audit = dir.path().join("audit.jsonl");
    let audit_path = audit.display().to_string();
    let out = run_env(
        &repo_root(),
        &[
            "-c",
            "runtimeconfig.example.yaml",
            "run",
            "examples/assistant.pack.json",
            "--var",
            "customer_name=Dana",
            "--message",
            "Where is A-1002?",
            "--message",
            "Thanks!",
        ],
        &[("AUDIT_LOG", &audit_path)],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let phases: Vec<String> = std::fs::read_to_string(&audit)
        .expect("the audit hook wrote its log")
        .lines()
        .map(|l| {
            serde_json::from_str::<Json>(l).expect("JSONL")["phase"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    // Observers run beside the pipeline, so only the count of each phase is certain.
    let count = |phase: &str| phases.iter().filter(|p| *p == phase).count();
    assert_eq!(
        (
            count("session_start"),
            count("session_update"),
            count("session_end")
        ),
        (1, 2, 1),
        "{phases:?}"
    );
}
