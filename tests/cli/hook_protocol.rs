//! What hooks receive and may answer, in real runs: tool calls in PicoClaw's OpenAI shape
//! for JSON-RPC hooks, a `modify` that cannot be read treated as a failure of its hook,
//! every ToolResult field in `after_tool`, exec hooks run as servers and a PicoClaw-shaped
//! process hook config. That every hook failure is recorded for the run to report is
//! tested next to the dispatcher, in `src/hooks/failure_tests.rs`.
//!
//! Fixtures: `tests/fixtures/hooks/flow` (pack, mock script, one config per subject;
//! `protocol_hook.py` and `exec_server.py` are the hooks). The `probe` tool appends each
//! request it gets to the file named by `RECORD`.

use std::path::{Path, PathBuf};

use serde_json::{Value as Json, json};

use crate::util::{Outcome, fixtures, gone, promptexec};

fn flow_dir() -> PathBuf {
    fixtures().join("hooks/flow")
}

/// One run, the requests its `probe` tool got, and the lines a hook logged.
struct Played {
    out: Outcome,
    tool_requests: Vec<Json>,
    hook_log: Vec<Json>,
}

fn json_lines(path: &Path) -> Vec<Json> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str(line).expect("JSON lines"))
        .collect()
}

#[track_caller]
fn play(config: &str, scenario: &str, messages: &[&str]) -> Played {
    let temp = tempfile::tempdir().expect("temp dir");
    let record = temp.path().join("record.jsonl");
    let hook_log = temp.path().join("hook.jsonl");
    let mut args = vec![
        "-c",
        config,
        "run",
        "flow.pack.json",
        "--scenario",
        scenario,
    ];
    for text in messages {
        args.extend(["--message", text]);
    }
    args.extend(["--format", "json"]);
    let out = promptexec()
        .in_dir(flow_dir())
        .args(&args)
        .envs(&[
            ("RECORD", &record.display().to_string()),
            ("HOOK_LOG", &hook_log.display().to_string()),
            ("SERVER_LOG", &hook_log.display().to_string()),
        ])
        .run();
    Played {
        tool_requests: json_lines(&record),
        hook_log: json_lines(&hook_log),
        out,
    }
}

fn report(out: &Outcome) -> Json {
    out.json()
}

/// The content of the tool message the model got for `call_id`.
fn tool_content(report: &Json, call_id: &str) -> String {
    report["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_result"]["id"] == call_id)
        .and_then(|m| m["content"].as_str())
        .unwrap_or_else(|| panic!("no tool message for {call_id}: {report:#}"))
        .to_string()
}

#[test]
fn an_after_llm_hook_rewriting_a_call_in_the_openai_shape_changes_what_the_tool_gets() {
    let played = play("rewrite.yaml", "probe", &["hi"]);
    played.out.expect_code(0);
    let args: Vec<&Json> = played.tool_requests.iter().map(|r| &r["args"]).collect();
    assert_eq!(args, [&json!({"topic": "rewritten"})]);
    let report = report(&played.out);
    let assistant = &report["messages"][1];
    assert_eq!(
        assistant["tool_calls"],
        json!([{"id": "call_1_probe", "name": "probe", "args": {"topic": "rewritten"}}]),
        "{report:#}"
    );
}

#[test]
fn an_unreadable_modify_is_a_failure_skipped_with_a_warning_or_denied_by_policy() {
    let skipped = play("garble_skip.yaml", "probe", &["hi"]);
    skipped.out.stderr_has(
        "hook `garbler` failed: its `modify` could not be read: tool call `call_1_probe`: arguments are not valid JSON",
    );
    let args: Vec<&Json> = skipped.tool_requests.iter().map(|r| &r["args"]).collect();
    assert_eq!(
        args,
        [&json!({"topic": "stock"})],
        "the model's call stands"
    );

    let denied = play("garble_deny.yaml", "probe", &["hi"]);
    denied.out.expect_code_not(0);
    assert!(denied.tool_requests.is_empty(), "no tool ran");
    let report = report(&denied.out);
    assert_eq!(report["turns"][0]["outcome"], "aborted", "{report:#}");
    assert!(
        report
            .to_string()
            .contains("its `modify` could not be read"),
        "{report:#}"
    );
}

/// One test per tool: one that fails and one that answers.
mod after_tool_gets_every_tool_result_field_and_is_error_follows_the_tool {
    #[test]
    fn broken() {
        super::after_tool_sees("broken", true, "out of stock");
    }

    #[test]
    fn probe() {
        super::after_tool_sees("probe", false, "\"ran\":true");
    }
}

/// What `after_tool` got for the tool call of `scenario`: every ToolResult field,
/// `is_error` as the tool ended, and `text` in `for_llm`.
fn after_tool_sees(scenario: &str, is_error: bool, text: &str) {
    let played = play("after_tool.yaml", scenario, &["hi"]);
    played.out.expect_code(0);
    let call = played
        .hook_log
        .iter()
        .find(|m| m["method"] == "hook.after_tool")
        .expect("after_tool was called");
    let result = &call["params"]["result"];
    let mut keys: Vec<&str> = result
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "artifact_tags",
            "async",
            "for_llm",
            "for_user",
            "is_error",
            "media",
            "response_handled",
            "silent"
        ]
    );
    assert_eq!(result["is_error"], is_error, "{scenario}: {result}");
    assert!(
        result["for_llm"]
            .as_str()
            .unwrap_or_default()
            .contains(text),
        "{result}"
    );
}

#[test]
fn exec_hooks_run_as_servers_deny_and_observe_with_one_process_each_for_the_run() {
    let played = play("server_hooks.yaml", "secrets", &["look", "again"]);
    played.out.expect_code(0);
    let report = report(&played.out);
    assert_eq!(
        tool_content(&report, "call_1_probe"),
        "blocked by hook `guard`: secrets stay hidden"
    );
    let args: Vec<&Json> = played.tool_requests.iter().map(|r| &r["args"]).collect();
    assert_eq!(
        args,
        [&json!({"topic": "stock"})],
        "only the allowed call ran"
    );

    let seen = |hook: &str| -> (Vec<i64>, Vec<String>) {
        let lines: Vec<&Json> = played
            .hook_log
            .iter()
            .filter(|l| l["hook"] == hook)
            .collect();
        (
            lines
                .iter()
                .map(|l| l["pid"].as_i64().expect("pid"))
                .collect(),
            lines
                .iter()
                .map(|l| l["phase"].as_str().unwrap_or_default().to_string())
                .collect(),
        )
    };
    let (guard_pids, guard_phases) = seen("tool");
    assert_eq!(guard_phases, ["before_execution", "before_execution"]);
    let (audit_pids, audit_phases) = seen("session");
    assert_eq!(
        audit_phases,
        [
            "session_start",
            "session_update",
            "session_update",
            "session_end"
        ]
    );
    for pids in [&guard_pids, &audit_pids] {
        assert!(pids.iter().all(|p| *p == pids[0]), "one process: {pids:?}");
        assert!(gone(pids[0] as i32), "stopped at the end of the run");
    }
    assert_ne!(guard_pids[0], audit_pids[0], "one process per hook");
}

#[test]
fn a_process_hook_configured_as_picoclaw_documents_it_hears_runtime_events() {
    let played = play("picoclaw.yaml", "probe", &["hi"]);
    played.out.expect_code(0);
    let hello = &played.hook_log[0];
    assert_eq!(hello["method"], "hook.hello");
    assert_eq!(
        hello["params"]["modes"],
        json!(["observe", "tool", "approve"])
    );
    let events: Vec<(&str, &str)> = played
        .hook_log
        .iter()
        .filter(|m| m.get("id").is_none())
        .map(|m| {
            (
                m["method"].as_str().unwrap_or_default(),
                m["params"]["kind"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        events,
        [
            ("hook.runtime_event", "agent.tool.exec_start"),
            ("hook.runtime_event", "agent.tool.exec_end"),
        ]
    );
    let methods: Vec<&str> = played
        .hook_log
        .iter()
        .filter_map(|m| m.get("id").and(m["method"].as_str()))
        .collect();
    assert_eq!(
        methods,
        ["hook.hello", "hook.before_tool", "hook.approve_tool"]
    );
}

#[test]
fn hook_test_sends_a_server_mode_exec_hook_its_payload_over_execute() {
    let temp = tempfile::tempdir().expect("temp dir");
    let log = temp.path().join("server.jsonl");
    let event = r#"{"name": "probe", "args": {"topic": "secrets"}, "call_id": "c1"}"#;
    let out = promptexec()
        .in_dir(flow_dir())
        .args(&[
            "-c",
            "server_hooks.yaml",
            "hook",
            "test",
            "guard",
            "--event",
            event,
        ])
        .envs(&[("SERVER_LOG", &log.display().to_string())])
        .run();
    out.expect_code(1);
    let decision = out.json();
    assert_eq!(decision["decision"], "deny");
    assert_eq!(decision["reason"], "secrets stay hidden");
    let lines = json_lines(&log);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["phase"], "before_execution");
}
