//! MCP tools outside a conversation: `invoke-tool --server` and `--exec` on programs no
//! config names, the bundled server and the examples' `tools` listing, and interrupts
//! during a call.

use std::path::PathBuf;

use serde_json::{Value as Json, json};

use crate::mcp::{Setup, script};
use crate::mcp_servers::{bundled_server, test_server_path};
use crate::util::{gone, promptexec, repo_root, wait_for};

#[test]
fn invoke_tool_with_server_calls_a_program_no_config_names() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = format!(
        "{} --log {}",
        test_server_path().display(),
        dir.path().join("server.log").display()
    );
    let invoke = |tool: &str, extra: &[&str]| {
        promptexec()
            .in_dir(dir.path())
            .args(["invoke-tool", "--server", &server, tool])
            .args(extra)
            .run()
    };
    let sum = invoke("add", &["--arg", "a=2", "--arg", "b=40"]);
    sum.expect_code(0);
    assert_eq!(sum.json(), json!({"sum": 42}));

    let failed = invoke("fail", &[]);
    failed.expect_code(1);
    failed.stderr_has("tool `fail` answered with an error: fail was asked to fail");

    let wrong = invoke("add", &["--args", r#"{"a": 1}"#]);
    wrong.expect_code(2);
    wrong.stderr_has("arguments for tool `add` break its schema");

    let crashed = invoke("crash", &["--format", "json"]);
    crashed.expect_code(3);
    crashed.stderr_has("exited with status 7 while the call was in flight");
    crashed.stderr_has("crashing on purpose");
    assert_eq!(crashed.json()["mode"], "mcp");

    let log = std::fs::read_to_string(dir.path().join("server.log")).expect("log");
    let calls: Vec<&str> = log
        .lines()
        .filter_map(|l| l.strip_prefix("call "))
        .collect();
    assert_eq!(
        calls,
        ["add", "fail", "crash"],
        "the refused call was never sent"
    );
    for pid in log.lines().filter_map(|l| l.strip_prefix("started ")) {
        assert!(
            gone(pid.parse().expect("pid")),
            "server {pid} outlived promptexec"
        );
    }
}

#[test]
fn invoke_tool_with_exec_calls_a_one_shot_program_no_config_names() {
    let out = promptexec()
        .args([
            "invoke-tool",
            "--exec",
            "python3 -c 'import json,sys; a=json.load(sys.stdin)[\"args\"]; print(json.dumps({\"result\": a}))'",
            "anything",
            "--arg",
            "n=3",
            "--arg",
            "zip=02134",
        ])
        .run();
    out.expect_code(0);
    assert_eq!(out.json(), json!({"n": 3, "zip": "02134"}));
}

/// The bundled server, from its own folder.
fn bundled_dir() -> PathBuf {
    bundled_server()
        .parent()
        .expect("mcp-examples")
        .to_path_buf()
}

#[test]
fn the_bundled_server_answers_invoke_tool_with_no_config() {
    let out = promptexec()
        .in_dir(bundled_dir())
        .args([
            "invoke-tool",
            "--server",
            "python3 server.py",
            "echo",
            "--arg",
            "text=hi",
        ])
        .run();
    out.expect_code(0);
    assert_eq!(out.json(), json!({"result": "hi"}));

    let unknown = promptexec()
        .in_dir(bundled_dir())
        .args([
            "invoke-tool",
            "--server",
            "python3 server.py",
            "store_hours",
            "--arg",
            "city=Atlantis",
        ])
        .run();
    unknown.expect_code(1);
    unknown
        .stderr_has("tool `store_hours` answered with an error: Error executing tool store_hours");
}

#[test]
fn tools_lists_the_examples_exec_server_and_mcp_tools_with_schemas() {
    let out = promptexec()
        .in_dir(repo_root())
        .args([
            "tools",
            "-c",
            "runtimeconfig.example.yaml",
            "--pack",
            "examples/assistant.pack.json",
            "--format",
            "json",
        ])
        .run();
    out.expect_code(0);
    let listing = out.json();
    let tool = |name: &str| -> Json {
        listing["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .find(|t| t["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no tool {name}: {listing:#}"))
    };
    assert_eq!(tool("lookup_order")["mode"], "exec");
    assert_eq!(tool("db_query")["mode"], "server");
    let hours = tool("mcp__store__store_hours");
    assert_eq!(hours["mode"], "mcp");
    assert_eq!(
        hours["input_schema"]["required"],
        json!(["city"]),
        "{hours:#}"
    );
    assert_eq!(hours["prompts"], json!(["support"]));
    for name in ["lookup_order", "db_query"] {
        assert_eq!(tool(name)["input_schema"]["type"], "object", "{name}");
    }
    let store = &listing["mcp_servers"][0];
    assert_eq!(store["name"], "store");
    assert_eq!(store["prompts"][0]["name"], "apology", "{store:#}");
    assert_eq!(
        store["resources"][0]["uri"], "store://returns-policy",
        "{store:#}"
    );
}

#[test]
fn ctrl_c_during_an_mcp_call_exits_130_and_leaves_no_server_behind() {
    interrupted_during_an_mcp_call(nix::sys::signal::Signal::SIGINT);
}

#[test]
fn a_hangup_during_an_mcp_call_stops_the_server_too() {
    interrupted_during_an_mcp_call(nix::sys::signal::Signal::SIGHUP);
}

fn interrupted_during_an_mcp_call(signal: nix::sys::signal::Signal) {
    use nix::sys::signal::kill;
    use nix::unistd::Pid;
    use std::time::{Duration, Instant};

    let setup = Setup::new(
        &["--grandchild"],
        "",
        "",
        &["mcp__t__slow"],
        &script(&[("mcp__t__slow", json!({"ms": 60000}))]),
    );
    let mut run = setup.go().discard_output().spawn();
    wait_for("the slow call arriving", || {
        setup.calls().contains(&"slow".to_string())
    });
    kill(Pid::from_raw(run.id() as i32), signal).expect("send the signal");
    let interrupted = Instant::now();
    let status = run.wait().expect("promptexec exits");
    assert_eq!(status.code(), Some(130));
    assert!(
        interrupted.elapsed() < Duration::from_millis(2000 + 2500),
        "took {:?}",
        interrupted.elapsed()
    );
    setup.nothing_left();
}
