//! `hook test` prints one shape for exec and JSON-RPC hooks, and reads `--event -`
//! from stdin.

use serde_json::{Value as Json, json};

use crate::util::{Invocation, Outcome, promptexec, repo_root};

/// Every key of a `hook test` decision, whatever kind of hook answered.
const KEYS: [&str; 9] = [
    "action",
    "decision",
    "duration_ms",
    "hook",
    "metadata",
    "output",
    "phase",
    "reason",
    "stderr_tail",
];

/// `hook test` with the bundled example config, from the repository root.
fn hook_test() -> Invocation {
    promptexec()
        .in_dir(repo_root())
        .args(["-c", "runtimeconfig.example.yaml", "hook", "test"])
}

#[track_caller]
fn one(out: &Outcome) -> Json {
    out.json()
}

#[track_caller]
fn lines(out: &Outcome) -> Vec<Json> {
    out.stdout
        .lines()
        .map(|line| {
            serde_json::from_str(line).unwrap_or_else(|err| panic!("a JSON line ({err}): {line}"))
        })
        .collect()
}

fn keys(report: &Json) -> Vec<String> {
    let mut keys: Vec<String> = report
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    keys.sort();
    keys
}

#[test]
fn exec_and_json_rpc_hooks_print_the_same_keys() {
    let exec = hook_test().args(&["pii_guard"]).run();
    exec.expect_code(0);
    let exec = one(&exec);
    let rpc = hook_test()
        .args(&["review_gate", "--phase", "before_tool"])
        .run();
    rpc.expect_code(0);
    let rpc = one(&rpc);

    assert_eq!(keys(&exec), KEYS);
    assert_eq!(keys(&rpc), KEYS);
    assert_eq!(exec["decision"], "allow");
    assert_eq!(
        exec["action"], "allow",
        "an exec hook's action is its decision"
    );
    assert_eq!(exec["output"], Json::Null);
    assert_eq!(rpc["decision"], "allow");
    assert_eq!(rpc["action"], "continue");
    assert_eq!(rpc["metadata"], json!({}));
    assert!(rpc["stderr_tail"].is_string());
}

#[test]
fn every_line_of_all_phases_has_the_same_keys_for_both_kinds() {
    for hook in ["pii_guard", "review_gate"] {
        let out = hook_test().args(&[hook, "--all-phases"]).run();
        assert_eq!(out.code, 0, "{hook}: {}", out.stderr);
        let reports = lines(&out);
        assert_eq!(reports.len(), 2, "{hook}: one line per phase");
        for report in &reports {
            assert_eq!(keys(report), KEYS, "{hook}: {report}");
        }
    }
}

#[test]
fn a_json_rpc_denial_is_deny_with_the_action_beside_it() {
    let event = r#"{"tool": "shell", "arguments": {"command": "rm -rf /"}}"#;
    let out = hook_test()
        .args(&["review_gate", "--phase", "before_tool", "--event", event])
        .run();
    out.expect_code(1);
    let report = one(&out);
    assert_eq!(report["decision"], "deny");
    assert_eq!(report["action"], "deny_tool");
    assert_eq!(
        report["reason"],
        "dangerous shell command refused: rm -rf /"
    );
}

#[test]
fn event_dash_reads_the_event_from_stdin() {
    let ssn = json!({"messages": [{"role": "user", "content": "My SSN is 123-45-6789"}]});
    let out = hook_test()
        .args(&["pii_guard", "--phase", "before_call", "--event", "-"])
        .stdin(ssn.to_string())
        .run();
    out.expect_code(1);
    assert_eq!(one(&out)["decision"], "deny");

    let shell = r#"{"tool": "shell", "arguments": {"command": "rm -rf /"}}"#;
    let out = hook_test()
        .args(&["review_gate", "--phase", "before_tool", "--event", "-"])
        .stdin(shell)
        .run();
    out.expect_code(1);
    assert_eq!(one(&out)["action"], "deny_tool");
}

#[test]
fn an_event_on_stdin_that_is_not_json_is_bad_input() {
    let out = hook_test()
        .args(&["pii_guard", "--event", "-"])
        .stdin("not json")
        .run();
    out.expect_code(2);
    out.stderr_has("--event is not valid JSON");
    assert!(out.stdout.is_empty(), "{}", out.stdout);
}
