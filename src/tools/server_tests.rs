//! Server-mode tools (RELIABILITY.md rows 9–13): the supervisor and the JSON-RPC client
//! driven directly against the fixture servers in `tests/fixtures/servers`.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::{Value as Json, json};

use crate::config::{ExecSpec, RuntimeMode};
use crate::test_support::{fixtures, gone};
use crate::tools::{RestartPolicy, ToolReport, ToolServer, ToolStatus};

fn servers_dir() -> PathBuf {
    fixtures().join("servers")
}

fn spec(flags: &[&str]) -> ExecSpec {
    ExecSpec {
        command: servers_dir().join("echo_server.py"),
        args: flags.iter().map(|f| f.to_string()).collect(),
        env: Vec::new(),
        timeout: Some(Duration::from_secs(5)),
        working_dir: servers_dir(),
        max_output_bytes: None,
        runtime: RuntimeMode::Server,
        max_in_flight: None,
        command_pos: Default::default(),
        arg_positions: Vec::new(),
        env_mode: Default::default(),
    }
}

/// Quick restarts, so the tests do not wait on production backoffs.
fn quick() -> RestartPolicy {
    RestartPolicy {
        first_backoff: Duration::from_millis(10),
        max_backoff: Duration::from_millis(40),
        ..RestartPolicy::default()
    }
}

/// Calls with `{"n": n}` for every n in `range`, all at once.
async fn calls(server: &ToolServer, range: std::ops::Range<i32>) -> Vec<ToolReport> {
    let args: Vec<Json> = range.map(|n| json!({ "n": n })).collect();
    futures::future::join_all(args.iter().map(|a| server.call(a, None))).await
}

fn echoed(report: &ToolReport) -> Json {
    assert_eq!(report.status, ToolStatus::Ok, "{:?}", report.error);
    report.result.as_ref().expect("a result").to_value()["echo"].take()
}

fn pid_of(report: &ToolReport) -> i32 {
    report.result.as_ref().expect("a result").to_value()["pid"]
        .as_i64()
        .expect("pid") as i32
}

#[tokio::test]
async fn row9_a_crash_fails_every_call_in_flight_and_the_next_call_restarts() {
    let dir = tempfile::tempdir().expect("temp dir");
    let once = dir.path().join("crashed").display().to_string();
    let server = ToolServer::with_policy(
        "crashy",
        &spec(&["--crash-after", "3", "--once", &once]),
        quick(),
    );
    let started = Instant::now();
    let in_flight = calls(&server, 0..3).await;
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "failed fast: {:?}",
        started.elapsed()
    );
    for report in &in_flight {
        assert_eq!(report.status, ToolStatus::Failed);
        let error = report.error.as_deref().unwrap_or_default();
        assert!(
            error.contains("exited with status 1 while the call was in flight"),
            "{error}"
        );
        assert!(
            report.stderr_tail.contains("simulated crash"),
            "{}",
            report.stderr_tail
        );
    }
    let next = server.call(&json!({ "n": 3 }), None).await;
    assert_eq!(echoed(&next)["n"], 3);
    server.shutdown().await;
    assert!(gone(pid_of(&next)));
}

#[tokio::test]
async fn row10_banners_notifications_and_unknown_ids_are_skipped() {
    let server = ToolServer::new("noisy", &spec(&["--noisy"]));
    let mut pid = 0;
    for n in 0..5 {
        let report = server.call(&json!({ "n": n }), None).await;
        assert_eq!(echoed(&report)["n"], n);
        pid = pid_of(&report);
    }
    server.shutdown().await;
    assert!(gone(pid));
}

#[tokio::test]
async fn row11_out_of_order_replies_reach_their_own_callers() {
    let server = ToolServer::new("reverse", &spec(&["--reverse", "4"]));
    let replies = calls(&server, 0..4).await;
    for (n, report) in replies.iter().enumerate() {
        assert_eq!(echoed(report)["n"], n);
    }
    server.shutdown().await;
    assert!(gone(pid_of(&replies[0])));
}

#[tokio::test]
async fn row12_a_hung_request_times_out_and_later_calls_still_work() {
    let server = ToolServer::new("hangs", &spec(&[]));
    let first = server.call(&json!({ "n": 0 }), None).await;
    let pid = pid_of(&first);
    let started = Instant::now();
    let hung = server
        .call(&json!({ "hang": true }), Some(Duration::from_millis(300)))
        .await;
    assert_eq!(hung.status, ToolStatus::Timeout);
    assert!(started.elapsed() < Duration::from_secs(2));
    let after = server.call(&json!({ "n": 1 }), None).await;
    assert_eq!(echoed(&after)["n"], 1);
    assert_eq!(
        pid_of(&after),
        pid,
        "one timeout does not restart the server"
    );
    server.shutdown().await;
    assert!(gone(pid), "shutdown leaves no process");
}

#[tokio::test]
async fn a_reply_over_the_line_limit_fails_its_call_and_the_next_call_works() {
    let mut limited = spec(&[]);
    limited.max_output_bytes = Some(1000);
    // Generous, so a loaded machine cannot turn the failure into a timeout.
    limited.timeout = Some(Duration::from_secs(30));
    let server = ToolServer::new("overlong", &limited);
    let pid = pid_of(&server.call(&json!({ "n": 0 }), None).await);
    let started = Instant::now();
    let overlong = server.call(&json!({ "pad": 5000 }), None).await;
    assert_eq!(overlong.status, ToolStatus::Failed, "{:?}", overlong.error);
    assert_eq!(
        overlong.error.as_deref(),
        Some("wrote more than 1000 bytes to stdout (max_output_bytes)")
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "failed before its deadline"
    );
    let after = server.call(&json!({ "n": 1 }), None).await;
    assert_eq!(echoed(&after)["n"], 1);
    assert_eq!(pid_of(&after), pid, "the server keeps running");
    server.shutdown().await;
}

#[tokio::test]
async fn a_server_that_stops_answering_is_restarted() {
    let server = ToolServer::with_policy("mute", &spec(&[]), quick());
    let pid = pid_of(&server.call(&json!({}), None).await);
    for _ in 0..3 {
        let report = server
            .call(&json!({ "hang": true }), Some(Duration::from_millis(100)))
            .await;
        assert_eq!(report.status, ToolStatus::Timeout);
    }
    let fresh = server.call(&json!({ "n": 9 }), None).await;
    assert_eq!(echoed(&fresh)["n"], 9);
    assert_ne!(
        pid_of(&fresh),
        pid,
        "three missed deadlines in a row restart it"
    );
    server.shutdown().await;
    assert!(gone(pid));
}

#[tokio::test]
async fn row13_a_server_crashing_on_every_start_is_reported_broken() {
    let mut crashing = spec(&[]);
    crashing.command = servers_dir().join("crash_on_start.sh");
    let server = ToolServer::with_policy("doomed", &crashing, quick());
    let started = Instant::now();
    let mut attempts = 0;
    let error = loop {
        attempts += 1;
        assert!(attempts <= 20, "restarts are bounded");
        let report = server.call(&json!({}), None).await;
        assert_eq!(report.status, ToolStatus::Failed);
        let error = report.error.unwrap_or_default();
        if error.contains("is broken") {
            break error;
        }
    };
    assert!(
        error.contains("cannot open database"),
        "the reason names what the server said: {error}"
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    // Broken stays broken, at once.
    let again = server.call(&json!({}), None).await;
    assert!(again.error.unwrap_or_default().contains("is broken"));
}

#[tokio::test]
async fn a_jsonrpc_error_object_is_a_tool_error_with_its_code() {
    let server = ToolServer::new("fails", &spec(&[]));
    let report = server
        .call(&json!({ "fail": "city not found" }), None)
        .await;
    assert_eq!(report.status, ToolStatus::Error);
    assert_eq!(
        report.error.as_deref(),
        Some("city not found (JSON-RPC error -32000)")
    );
    server.shutdown().await;
}

#[tokio::test]
async fn a_thousand_concurrent_calls_each_get_their_own_reply() {
    let server = ToolServer::new("busy", &spec(&[]));
    let replies = calls(&server, 0..1000).await;
    let pids: std::collections::HashSet<i32> = replies.iter().map(pid_of).collect();
    for (n, report) in replies.iter().enumerate() {
        assert_eq!(echoed(report)["n"], n, "reply {n} reached its own caller");
    }
    assert_eq!(pids.len(), 1, "one server process served them all");
    server.shutdown().await;
    assert!(pids.iter().all(|&pid| gone(pid)));
}
