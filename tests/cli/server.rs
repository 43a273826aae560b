//! Server-mode tools through the binary: `invoke-tool --batch` on one server process,
//! and `invoke-tool` of a server tool. The supervisor and the JSON-RPC client are tested
//! directly in `src/tools/server_tests.rs` (RELIABILITY.md rows 9–13).

use std::path::PathBuf;

use serde_json::json;

use crate::util::{example_config, fixtures, gone, promptexec};

fn servers_dir() -> PathBuf {
    fixtures().join("servers")
}

#[test]
fn batch_of_a_thousand_lines_uses_one_server_process_and_keeps_order() {
    let dir = tempfile::tempdir().expect("temp dir");
    let batch = dir.path().join("batch.jsonl");
    let lines: Vec<String> = (0..1000)
        .map(|n| json!({ "sql": format!("SELECT {n} AS n") }).to_string())
        .collect();
    std::fs::write(&batch, lines.join("\n")).expect("write batch");
    let batch = batch.display().to_string();
    let out = example_config()
        .args(&["invoke-tool", "db_query", "--batch", &batch, "-j", "16"])
        .run();
    out.expect_code(0);
    // A JSON envelope a line.
    let replies = out.json_lines();
    assert_eq!(replies.len(), 1000);
    let mut pids = std::collections::HashSet::new();
    for (n, reply) in replies.iter().enumerate() {
        assert_eq!(reply["status"], "ok");
        assert_eq!(
            reply["result"]["rows"][0]["n"], n,
            "line {n} in input order"
        );
        pids.insert(reply["result"]["server_pid"].as_i64().expect("pid"));
    }
    assert_eq!(pids.len(), 1, "a single server process");
    let pid = *pids.iter().next().expect("one pid") as i32;
    assert!(gone(pid), "the server is gone when promptexec exits");
}

#[test]
fn batch_lines_are_checked_before_anything_runs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let batch = dir.path().join("batch.jsonl");
    std::fs::write(&batch, "{\"sql\": \"SELECT 1\"}\n\n{\"sql\": 5}\n[1]\n").expect("write");
    let batch = batch.display().to_string();
    let out = example_config()
        .args(&[
            "invoke-tool",
            "db_query",
            "--pack",
            "examples/assistant.pack.json",
            "--batch",
            &batch,
        ])
        .run();
    out.expect_code(2);
    out.stderr_has(":4: the arguments must be a JSON object")
        .stdout_empty();
}

#[test]
fn invoke_tool_calls_a_server_tool_once_and_stops_it() {
    let out = promptexec()
        .in_dir(servers_dir())
        .args(&[
            "-c",
            "servers.yaml",
            "invoke-tool",
            "noisy",
            "--args",
            r#"{"k": "v"}"#,
        ])
        .run();
    out.expect_code(0);
    let result = out.json();
    assert_eq!(result["echo"]["k"], "v");
    assert!(gone(result["pid"].as_i64().expect("pid") as i32));

    let out = promptexec()
        .in_dir(servers_dir())
        .args(&["-c", "servers.yaml", "invoke-tool", "crash_on_start"])
        .run();
    out.expect_code(3);
    out.stderr_has("cannot open database");
}
