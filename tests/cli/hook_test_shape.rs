//! `hook test` prints one shape for exec and JSON-RPC hooks, and reads `--event -`
//! from stdin.

use std::time::Instant;

use assert_cmd::Command;
use serde_json::{Value as Json, json};

use crate::util::{Outcome, repo_root, run_env};

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

#[track_caller]
fn example(args: &[&str]) -> Outcome {
    let mut all = vec!["-c", "runtimeconfig.example.yaml", "hook", "test"];
    all.extend_from_slice(args);
    run_env(&repo_root(), &all, &[])
}

/// Like [`example`], with `stdin` piped in.
#[track_caller]
fn example_with_stdin(args: &[&str], stdin: &str) -> Outcome {
    let mut command = Command::cargo_bin("promptexec").expect("the promptexec binary is built");
    command
        .current_dir(repo_root())
        .env_remove("PROMPTEXEC_CONFIG")
        .env_remove("RUST_LOG")
        .env("NO_COLOR", "1")
        .args(["-c", "runtimeconfig.example.yaml", "hook", "test"])
        .args(args)
        .write_stdin(stdin);
    let started = Instant::now();
    let output = command.output().expect("promptexec runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        !stderr.contains("panicked"),
        "promptexec panicked:\n{stderr}"
    );
    Outcome {
        code: output.status.code().expect("exited, not killed"),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr,
        elapsed: started.elapsed(),
    }
}

#[track_caller]
fn one(out: &Outcome) -> Json {
    serde_json::from_str(&out.stdout)
        .unwrap_or_else(|err| panic!("one JSON object ({err}): {}\n{}", out.stdout, out.stderr))
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
    let exec = example(&["pii_guard"]);
    assert_eq!(exec.code, 0, "{}", exec.stderr);
    let exec = one(&exec);
    let rpc = example(&["review_gate", "--phase", "before_tool"]);
    assert_eq!(rpc.code, 0, "{}", rpc.stderr);
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
        let out = example(&[hook, "--all-phases"]);
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
    let out = example(&["review_gate", "--phase", "before_tool", "--event", event]);
    assert_eq!(out.code, 1, "{}", out.stderr);
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
    let out = example_with_stdin(
        &["pii_guard", "--phase", "before_call", "--event", "-"],
        &ssn.to_string(),
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(one(&out)["decision"], "deny");

    let shell = r#"{"tool": "shell", "arguments": {"command": "rm -rf /"}}"#;
    let out = example_with_stdin(
        &["review_gate", "--phase", "before_tool", "--event", "-"],
        shell,
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(one(&out)["action"], "deny_tool");
}

#[test]
fn an_event_on_stdin_that_is_not_json_is_bad_input() {
    let out = example_with_stdin(&["pii_guard", "--event", "-"], "not json");
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("--event is not valid JSON"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.is_empty(), "{}", out.stdout);
}
