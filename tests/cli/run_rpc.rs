//! `promptexec run` with JSON-RPC hooks that answer for, deny or stop tool calls, and with
//! tools that wait on a person's decision (`--approve`, `--reject`, or neither).
//!
//! The fixtures live in `tests/fixtures/run_rpc`: one pack, one mock script with a scenario
//! per conversation, and three configs (`rpc.yaml`: a hook intercepting `before_tool`, which
//! answers whatever a call's `_reply` argument says; `approvals.yaml`: a hook denying every
//! `approve_tool`; `pending.yaml`: no hooks). Every tool appends each request it receives on
//! stdin to the file named by `RECORD`, so a test knows whether, and how, a tool ran.

use std::path::PathBuf;

use serde_json::{Value as Json, json};

use crate::util::{Outcome, contents_of, fixtures, promptexec};

fn run_rpc_dir() -> PathBuf {
    fixtures().join("run_rpc")
}

/// One run and every request its tools received, in order.
struct Played {
    out: Outcome,
    tool_requests: Vec<Json>,
}

/// Plays `scenario` of the pack with `config`, `extra` arguments after it, and a fresh
/// record file for the tools.
#[track_caller]
fn play(config: &str, scenario: &str, extra: &[&str]) -> Played {
    let temp = tempfile::tempdir().expect("temp dir");
    let record = temp.path().join("tool_requests.jsonl");
    let record_path = record.display().to_string();
    let mut args = vec!["-c", config, "run", "rpc.pack.json", "--scenario", scenario];
    args.extend_from_slice(extra);
    let out = promptexec()
        .in_dir(run_rpc_dir())
        .args(&args)
        .envs(&[("RECORD", &record_path)])
        .run();
    let tool_requests = match std::fs::read_to_string(&record) {
        Ok(text) => text
            .lines()
            .map(|line| serde_json::from_str(line).expect("the tool recorded JSON"))
            .collect(),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(err) => panic!("reading {}: {err}", record.display()),
    };
    Played { out, tool_requests }
}

/// Plays `scenario` with `config` over `messages` with a JSON report, expects exit `code`
/// and a tool that never ran; gives the report.
#[track_caller]
fn play_without_tool(config: &str, scenario: &str, messages: &[&str], code: i32) -> Json {
    let mut extra = Vec::new();
    for message in messages {
        extra.extend(["--message", message]);
    }
    extra.extend(["--format", "json"]);
    let played = play(config, scenario, &extra);
    let out = &played.out;
    out.expect_code(code);
    assert_eq!(
        played.tool_requests,
        Vec::<Json>::new(),
        "the tool never ran"
    );
    report(out)
}

/// The `--format json` report of a run.
#[track_caller]
fn report(out: &Outcome) -> Json {
    serde_json::from_str(&out.stdout)
        .unwrap_or_else(|err| panic!("one JSON document ({err}):\n{}\n{}", out.stdout, out.stderr))
}

/// The tool message the model got for `call_id`.
#[track_caller]
fn tool_message<'a>(report: &'a Json, call_id: &str) -> &'a Json {
    report["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_result"]["id"] == call_id)
        .unwrap_or_else(|| panic!("no tool message for {call_id}: {report:#}"))
}

/// The only `tool_call` event of a run.
#[track_caller]
fn only_tool_call(report: &Json) -> &Json {
    let calls = report["tool_calls"].as_array().expect("tool_calls");
    assert_eq!(calls.len(), 1, "{report:#}");
    &calls[0]
}

#[test]
fn a_hook_that_responds_before_a_tool_answers_the_model_and_the_tool_never_runs() {
    let report = play_without_tool("rpc.yaml", "respond", &["hi"], 0);
    let message = tool_message(&report, "call_1_probe");
    assert_eq!(message["content"], "answered by the hook", "{message:#}");
    assert_eq!(message["tool_result"]["error"], Json::Null, "{message:#}");
    let call = only_tool_call(&report);
    assert_eq!(call["status"], "ok", "{call:#}");
    assert_eq!(call["content"], "answered by the hook", "{call:#}");
    assert_eq!(
        report["hook_decisions"],
        json!([{
            "event": "hook",
            "phase": "before_execution",
            "hook": "gate",
            "action": "respond",
            "reason": null,
        }])
    );
    assert_eq!(
        contents_of(&report, "assistant").last().map(String::as_str),
        Some("The hook answered for the tool."),
        "the model was called again with the hook's result"
    );
    assert_eq!(report["turns"], json!([{"turn": 1, "outcome": "answered"}]));
    assert_eq!(report["exit_code"], 0);
}

#[test]
fn a_hook_that_denies_a_tool_gives_the_model_a_blocked_result_naming_it_and_the_run_goes_on() {
    let report = play_without_tool("rpc.yaml", "deny", &["hi", "again"], 0);
    let call = only_tool_call(&report);
    assert_eq!(call["status"], "blocked", "{call:#}");
    let message = tool_message(&report, "call_1_probe");
    for text in [&message["content"], &message["tool_result"]["error"]] {
        let text = text.as_str().unwrap_or_default();
        assert!(
            text.contains("hook `gate`") && text.contains("secrets stay hidden"),
            "the model is told which hook blocked the call and why: {message:#}"
        );
    }
    assert_eq!(
        report["hook_decisions"][0]["action"], "deny_tool",
        "{report:#}"
    );
    assert_eq!(
        report["turns"],
        json!([{"turn": 1, "outcome": "answered"}, {"turn": 2, "outcome": "answered"}])
    );
    assert_eq!(
        contents_of(&report, "assistant"),
        ["Let me check.", "I may not look that up.", "Done."]
    );
}

#[test]
fn an_aborted_turn_ends_with_exit_1_yet_the_next_message_still_plays() {
    let report = play_without_tool("rpc.yaml", "abort", &["hi", "again"], 1);
    assert_eq!(
        report["turns"],
        json!([
            {"turn": 1, "outcome": "aborted", "hook": "gate", "reason": "over budget"},
            {"turn": 2, "outcome": "answered"},
        ])
    );
    assert_eq!(contents_of(&report, "user"), ["hi", "again"]);
    assert_eq!(
        contents_of(&report, "assistant").last().map(String::as_str),
        Some("Second turn answered."),
        "{report:#}"
    );
    assert_eq!(report["hook_decisions"][0]["action"], "abort_turn");
    assert_eq!(report["exit_code"], 1);
}

#[test]
fn a_hard_abort_stops_the_run_before_the_next_message_with_exit_1_naming_the_hook() {
    let args = ["--message", "hi", "--message", "again"];
    let played = play("rpc.yaml", "hard_abort", &args);
    let out = &played.out;
    out.expect_code(1);
    out.stderr_has("run stopped by hook `gate` in turn 1: stop everything");
    assert!(
        !out.stderr.contains("again"),
        "the second message is not played:\n{}",
        out.stderr
    );
    assert_eq!(
        played.tool_requests,
        Vec::<Json>::new(),
        "the tool never ran"
    );

    let played = play(
        "rpc.yaml",
        "hard_abort",
        &[&args[..], &["--format", "json"]].concat(),
    );
    assert_eq!(played.out.code, 1, "{}", played.out.stderr);
    let report = report(&played.out);
    assert_eq!(
        report["turns"],
        json!([{"turn": 1, "outcome": "hard_aborted", "hook": "gate", "reason": "stop everything"}])
    );
    assert_eq!(contents_of(&report, "user"), ["hi"]);
    assert_eq!(report["totals"]["model_calls"], 1, "{report:#}");
    assert_eq!(report["hook_decisions"][0]["action"], "hard_abort");
    assert_eq!(report["exit_code"], 1);
}

#[test]
fn a_denied_approval_blocks_the_call_naming_the_hook_and_the_tool_never_runs() {
    let report = play_without_tool("approvals.yaml", "approve", &["hi"], 0);
    let call = only_tool_call(&report);
    assert_eq!(call["status"], "blocked", "{call:#}");
    let message = tool_message(&report, "call_1_probe");
    let error = message["tool_result"]["error"].as_str().unwrap_or_default();
    assert!(error.contains("hook `reviewer`"), "{message:#}");
    assert_eq!(message["content"], message["tool_result"]["error"]);
    let decisions = report["hook_decisions"].as_array().expect("hook_decisions");
    assert!(
        decisions.iter().any(|d| d["hook"] == "reviewer"),
        "{decisions:#?}"
    );
    assert_eq!(
        contents_of(&report, "assistant").last().map(String::as_str),
        Some("It was not approved."),
        "the model heard the denial and answered"
    );
    assert_eq!(report["turns"], json!([{"turn": 1, "outcome": "answered"}]));
}

#[test]
fn an_approved_pending_call_runs_the_tool_again_with_the_resolution_and_succeeds() {
    for approve in ["approval", "all"] {
        let played = play(
            "pending.yaml",
            "pending",
            &["--message", "hi", "--approve", approve, "--format", "json"],
        );
        let out = &played.out;
        assert_eq!(out.code, 0, "--approve {approve}: {}", out.stderr);
        let requests = &played.tool_requests;
        assert_eq!(requests.len(), 2, "--approve {approve}: {requests:#?}");
        assert_eq!(requests[0], json!({"args": {"amount": 500}}));
        assert_eq!(requests[1]["args"], json!({"amount": 500}));
        let resolution = &requests[1]["resolution"];
        assert_eq!(resolution["approved"], true, "{resolution}");
        assert_eq!(resolution["call_id"], "call_1_approval", "{resolution}");

        let report = report(out);
        let call = only_tool_call(&report);
        assert_eq!(call["status"], "ok", "--approve {approve}: {call:#}");
        let message = tool_message(&report, "call_1_approval");
        assert_eq!(message["tool_result"]["error"], Json::Null, "{message:#}");
        let content = message["content"].as_str().unwrap_or_default();
        assert!(
            content.contains("\"paid\":500"),
            "the model got the second answer: {content}"
        );
        let decisions = report["decisions"].as_array().expect("decisions");
        let decided: Vec<&Json> = decisions
            .iter()
            .filter(|d| d["event"] == "decision")
            .collect();
        assert_eq!(decided.len(), 1, "{decisions:#?}");
        assert_eq!(decided[0]["approved"], true);
        assert_eq!(decided[0]["tool"], "approval");
        assert_eq!(decided[0]["call_id"], "call_1_approval");
        assert_eq!(report["turns"], json!([{"turn": 1, "outcome": "answered"}]));
    }
}

#[test]
fn a_rejected_pending_call_is_not_run_again_and_the_model_hears_it_was_rejected() {
    for reject in ["approval", "all"] {
        let played = play(
            "pending.yaml",
            "pending",
            &["--message", "hi", "--reject", reject, "--format", "json"],
        );
        let out = &played.out;
        assert_eq!(out.code, 0, "--reject {reject}: {}", out.stderr);
        assert_eq!(
            played.tool_requests,
            [json!({"args": {"amount": 500}})],
            "--reject {reject}: the tool was called once only"
        );
        let report = report(out);
        let call = only_tool_call(&report);
        assert_eq!(call["status"], "rejected", "--reject {reject}: {call:#}");
        let message = tool_message(&report, "call_1_approval");
        let error = message["tool_result"]["error"].as_str().unwrap_or_default();
        assert!(error.contains("rejected"), "{message:#}");
        let decided: Vec<&Json> = report["decisions"]
            .as_array()
            .expect("decisions")
            .iter()
            .filter(|d| d["event"] == "decision")
            .collect();
        assert_eq!(decided.len(), 1, "{report:#}");
        assert_eq!(decided[0]["approved"], false);
        assert_eq!(report["turns"], json!([{"turn": 1, "outcome": "answered"}]));
    }
}

#[test]
fn an_undecided_pending_call_stops_the_run_with_exit_4_naming_the_tool_its_call_and_message() {
    let args = ["--message", "hi", "--message", "again"];
    let played = play("pending.yaml", "pending", &args);
    let out = &played.out;
    out.expect_code(4);
    let line = out
        .stderr
        .lines()
        .find(|l| l.contains("waiting for a decision") && l.contains("--approve"))
        .unwrap_or_else(|| panic!("no line explains the wait:\n{}", out.stderr));
    for part in [
        "`approval`",
        "call_1_approval",
        "A payout of 500 needs a manager",
    ] {
        assert!(line.contains(part), "{part} missing from: {line}");
    }
    assert!(
        !out.stderr.contains("again"),
        "the run stops before the next message:\n{}",
        out.stderr
    );
    assert_eq!(played.tool_requests.len(), 1, "{:#?}", played.tool_requests);

    let played = play(
        "pending.yaml",
        "pending",
        &[&args[..], &["--format", "json"]].concat(),
    );
    assert_eq!(played.out.code, 4, "{}", played.out.stderr);
    let report = report(&played.out);
    assert_eq!(
        report["turns"],
        json!([{
            "turn": 1,
            "outcome": "pending",
            "tool": "approval",
            "call_id": "call_1_approval",
            "message": "A payout of 500 needs a manager",
        }])
    );
    assert_eq!(
        report["tool_calls"],
        json!([]),
        "no answer reached the model"
    );
    assert_eq!(report["exit_code"], 4);
}

#[test]
fn approving_another_tool_leaves_the_pending_call_undecided() {
    let played = play(
        "pending.yaml",
        "pending",
        &[
            "--message",
            "hi",
            "--approve",
            "other_tool",
            "--format",
            "json",
        ],
    );
    let out = &played.out;
    out.expect_code(4);
    assert_eq!(
        played.tool_requests,
        [json!({"args": {"amount": 500}})],
        "the pending tool was not called again"
    );
    let report = report(out);
    assert_eq!(report["turns"][0]["outcome"], "pending", "{report:#}");
    assert!(
        report["decisions"]
            .as_array()
            .expect("decisions")
            .iter()
            .all(|d| d["event"] != "decision"),
        "nobody decided: {report:#}"
    );
}
