//! The supervised client against the rmcp test server (the example `mcp_test_server`,
//! which `cargo test` builds): one server for many calls in flight, a restart after a
//! crash, and a server given up on after too many.

use std::path::{Path, PathBuf};
use std::time::Duration;

use indexmap::IndexMap;
use serde_json::json;

use super::McpClient;
use crate::config::{EnvMode, ExecSpec, McpEndpoint, McpServer, RuntimeMode};
use crate::exec::rpc::RestartPolicy;
use crate::tools::ToolStatus;

fn test_server() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let server = exe
        .parent()
        .and_then(Path::parent)
        .map(|profile| profile.join("examples/mcp_test_server"))
        .expect("target/<profile>/deps");
    assert!(
        server.is_file(),
        "{} is missing: `cargo test` builds it",
        server.display()
    );
    server
}

fn server(log: &Path) -> McpServer {
    let exec = ExecSpec {
        command: test_server(),
        args: vec!["--log".into(), log.display().to_string()],
        env: Vec::new(),
        timeout: None,
        working_dir: std::env::temp_dir(),
        max_output_bytes: None,
        runtime: RuntimeMode::Server,
        max_in_flight: None,
        command_pos: Default::default(),
        arg_positions: Vec::new(),
        env_mode: EnvMode::Base,
    };
    McpServer {
        name: "t".into(),
        endpoint: McpEndpoint::Stdio {
            exec,
            env: IndexMap::new(),
        },
        timeout: Some(Duration::from_secs(10)),
        tool_filter: Default::default(),
        pos: Default::default(),
    }
}

fn starts(log: &Path) -> usize {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with("started"))
        .count()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

#[test]
fn many_calls_in_flight_share_one_server() {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("log");
    runtime().block_on(async {
        let client = McpClient::new(&server(&log));
        let args = json!({"ms": 200});
        let calls = (0..16).map(|_| client.call("slow", "mcp__t__slow", &args, None));
        let started = tokio::time::Instant::now();
        let reports = futures::future::join_all(calls).await;
        assert!(
            reports.iter().all(|r| r.status == ToolStatus::Ok),
            "{reports:?}"
        );
        // Sixteen 200 ms calls one after another would take 3.2 s.
        assert!(
            started.elapsed() < Duration::from_millis(1600),
            "{:?}",
            started.elapsed()
        );
        client.shutdown().await;
    });
    assert_eq!(starts(&log), 1);
}

#[test]
fn a_crash_is_followed_by_a_restart_until_the_policy_gives_up() {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("log");
    let policy = RestartPolicy {
        max_restarts: 1,
        first_backoff: Duration::from_millis(1),
        ..RestartPolicy::default()
    };
    runtime().block_on(async {
        let client = McpClient::with_policy(&server(&log), policy);
        let crash = client
            .call("crash", "mcp__t__crash", &json!({}), None)
            .await;
        assert_eq!(crash.status, ToolStatus::Failed);
        let again = client
            .call("echo", "mcp__t__echo", &json!({"text": "hi"}), None)
            .await;
        assert_eq!(
            again.status,
            ToolStatus::Ok,
            "a fresh server answers: {again:?}"
        );
        let crash = client
            .call("crash", "mcp__t__crash", &json!({}), None)
            .await;
        assert_eq!(crash.status, ToolStatus::Failed);
        let broken = client
            .call("echo", "mcp__t__echo", &json!({"text": "hi"}), None)
            .await;
        assert_eq!(broken.status, ToolStatus::Failed);
        let error = broken.error.unwrap_or_default();
        assert!(
            error.contains("MCP server `t` stopped 2 times within 60 s"),
            "{error}"
        );
        client.shutdown().await;
    });
    assert_eq!(starts(&log), 2);
}
