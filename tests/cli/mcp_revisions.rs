//! The MCP revisions promptexec speaks, end to end: the rmcp test server speaking
//! 2026-07-28 alone (`--stateless`, no `initialize`) or 2025-06-18 and older alone
//! (`--legacy`, no `server/discover`), listed by `tools`, called by `invoke-tool`
//! and held to each revision's requirements by `check`, which `--spec-version` pins.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value as Json, json};

use crate::mcp_servers::test_server_path;
use crate::util::{Outcome, promptexec};

/// A folder with a config binding the test server as `s`, started with `flags`;
/// `crash` and `slow` are left out so that `check` has only well-behaved tools.
fn bound(flags: &[&str]) -> tempfile::TempDir {
    let command = test_server_path().display().to_string();
    bind(
        &command,
        &flags.iter().map(|f| f.to_string()).collect::<Vec<_>>(),
    )
}

fn bind(command: &str, args: &[String]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = format!(
        "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  mcp_servers:\n    - name: s\n      command: {command}\n      args: {}\n      tool_filter:\n        blocklist: [crash, slow]\n",
        json!(args)
    );
    std::fs::write(dir.path().join("c.yaml"), config).expect("config");
    dir
}

fn run(dir: &Path, args: &[&str]) -> Outcome {
    promptexec()
        .in_dir(dir)
        .args(["-c", "c.yaml"])
        .args(args)
        .timeout(Duration::from_secs(60))
        .run()
}

/// `check --format json`'s verdicts on the one server, by probe name.
fn verdicts(out: &Outcome) -> serde_json::Map<String, Json> {
    let report = out.json();
    report["extensions"][0]["probes"]
        .as_array()
        .expect("probes")
        .iter()
        .map(|p| (p["probe"].as_str().expect("name").to_string(), p.clone()))
        .collect()
}

#[track_caller]
fn passed(verdicts: &serde_json::Map<String, Json>, probe: &str, reason_has: &str) {
    let verdict = &verdicts[probe];
    assert_eq!(verdict["passed"], json!(true), "{probe}: {verdict}");
    assert!(verdict.get("skipped").is_none(), "{probe} ran: {verdict}");
    assert!(
        verdict.get("warning").is_none(),
        "{probe} gave no advice: {verdict}"
    );
    let reason = verdict["reason"].as_str().expect("reason");
    assert!(reason.contains(reason_has), "{probe}: {reason}");
}

#[track_caller]
fn skipped(verdicts: &serde_json::Map<String, Json>, probe: &str, reason_has: &str) {
    let verdict = &verdicts[probe];
    assert_eq!(
        verdict["skipped"],
        json!(true),
        "{probe} is skipped: {verdict}"
    );
    let reason = verdict["reason"].as_str().expect("reason");
    assert!(reason.contains(reason_has), "{probe}: {reason}");
}

#[test]
fn tools_and_invoke_tool_speak_2026_07_28_to_a_stateless_server() {
    let dir = bound(&["--stateless"]);
    let listed = run(dir.path(), &["-v", "tools", "--format", "json"]);
    listed.expect_code(0);
    listed.stderr_has("MCP server `s` speaks revision 2026-07-28 (by server/discover)");
    assert_eq!(
        listed.json()["mcp_servers"][0]["protocol_version"],
        json!("2026-07-28")
    );
    let names: Vec<Json> = listed.json()["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].clone())
        .collect();
    assert_eq!(
        names,
        ["add", "echo", "fail", "shout"].map(|t| json!(format!("mcp__s__{t}")))
    );

    let called = run(
        dir.path(),
        &["invoke-tool", "mcp__s__add", "--arg", "a=2", "--arg", "b=3"],
    );
    called.expect_code(0);
    assert_eq!(called.json(), json!({"sum": 5}));
}

#[test]
fn tools_and_invoke_tool_fall_back_to_initialize_for_a_2025_06_18_server() {
    let dir = bound(&["--legacy"]);
    let listed = run(dir.path(), &["-v", "tools", "--format", "json"]);
    listed.expect_code(0);
    listed.stderr_has("MCP server `s` speaks revision 2025-06-18 (by initialize)");
    assert_eq!(
        listed.json()["mcp_servers"][0]["protocol_version"],
        json!("2025-06-18")
    );
    assert_eq!(listed.json()["tools"].as_array().map(Vec::len), Some(4));

    let called = run(
        dir.path(),
        &["invoke-tool", "mcp__s__echo", "--arg", "text=hi"],
    );
    called.expect_code(0);
    assert_eq!(called.json(), json!("hi"));
}

#[test]
fn check_holds_a_stateless_server_to_2026_07_28() {
    let dir = bound(&["--stateless"]);
    let out = run(dir.path(), &["check", "--format", "json", "--cases", "3"]);
    out.expect_code(0);
    let v = verdicts(&out);
    passed(
        &v,
        "speaks_revision",
        "speaks MCP 2026-07-28 by `server/discover`",
    );
    let held = "(held to MCP 2026-07-28)";
    // The connection that spoke 2026-07-28 is the one whose end is judged.
    passed(&v, "exits_on_eof", "after stdin closed");
    passed(
        &v,
        "no_leftover_processes",
        "nothing it started outlived it",
    );
    passed(&v, "unknown_method", held);
    passed(&v, "list_order", held);
    passed(&v, "cache_fields", "ttlMs 0 and cacheScope");
    passed(&v, "unknown_tool", "-32602 (held to MCP 2026-07-28)");
    // `echo` is annotated read-only, so it may get arguments that break its schema.
    passed(
        &v,
        "input_validation",
        "`echo` without its required arguments answered a tool error",
    );
    passed(
        &v,
        "request_meta",
        "without `_meta` got JSON-RPC error -32602",
    );
}

#[test]
fn check_holds_a_legacy_server_to_2025_06_18_and_skips_what_came_later() {
    let dir = bound(&["--legacy"]);
    let out = run(dir.path(), &["check", "--format", "json", "--cases", "3"]);
    out.expect_code(0);
    let v = verdicts(&out);
    passed(
        &v,
        "speaks_revision",
        "speaks MCP 2025-06-18 by `initialize`, after `server/discover` answered JSON-RPC error -32022",
    );
    let held = "(held to MCP 2025-06-18)";
    passed(&v, "unknown_method", held);
    passed(&v, "list_order", held);
    passed(&v, "unknown_tool", held);
    skipped(
        &v,
        "cache_fields",
        "came with MCP 2026-07-28 (held to MCP 2025-06-18)",
    );
    skipped(&v, "input_validation", "2025-06-18 leaves the form");
    skipped(&v, "request_meta", "from MCP 2026-07-28 on");
}

#[test]
fn spec_version_holds_a_server_to_one_revision() {
    let every = bound(&[]);
    let out = run(
        every.path(),
        &[
            "check",
            "--format",
            "json",
            "--cases",
            "3",
            "--spec-version",
            "2025-11-25",
        ],
    );
    out.expect_code(0);
    let v = verdicts(&out);
    passed(
        &v,
        "speaks_revision",
        "speaks MCP 2025-11-25 by `initialize`",
    );
    passed(&v, "input_validation", "(held to MCP 2025-11-25)");
    skipped(&v, "cache_fields", "(held to MCP 2025-11-25)");
}

#[test]
fn spec_version_2025_06_18_fails_a_server_that_speaks_only_2026_07_28() {
    let dir = bound(&["--stateless"]);
    let out = run(
        dir.path(),
        &[
            "check",
            "--format",
            "json",
            "--spec-version",
            "2025-06-18",
            "--probe",
            "speaks_revision",
        ],
    );
    out.expect_code(1);
    let verdict = &verdicts(&out)["speaks_revision"];
    assert_eq!(verdict["passed"], json!(false), "{verdict}");
    assert_eq!(
        verdict["reason"],
        json!(
            "held to MCP 2025-06-18: `initialize` got JSON-RPC error -32022 (Unsupported protocol version)"
        )
    );
    assert!(
        verdict["hint"]
            .as_str()
            .expect("hint")
            .contains("--spec-version it speaks"),
        "{verdict}"
    );
}

#[test]
fn spec_version_2026_07_28_fails_a_server_that_speaks_only_2025_06_18() {
    let dir = bound(&["--legacy"]);
    let out = run(
        dir.path(),
        &[
            "check",
            "--format",
            "json",
            "--spec-version",
            "2026-07-28",
            "--probe",
            "speaks_revision",
        ],
    );
    out.expect_code(1);
    let verdict = &verdicts(&out)["speaks_revision"];
    assert_eq!(verdict["passed"], json!(false), "{verdict}");
    let reason = verdict["reason"].as_str().expect("reason");
    assert!(
        reason.starts_with(
            "held to MCP 2026-07-28, but `server/discover` answered JSON-RPC error -32022"
        ),
        "{reason}"
    );
}

/// A server written before `server/discover` that ignores requests it does not know
/// (rather than answering -32601) but answers `ping`.
const IGNORES_DISCOVER: &str = r#"
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    method, id_ = message.get("method"), message.get("id")
    def reply(result):
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": id_, "result": result}) + "\n")
        sys.stdout.flush()
    if method == "initialize":
        reply({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
               "serverInfo": {"name": "quiet", "version": "1"}})
    elif method == "ping":
        reply({})
    elif method == "tools/list":
        reply({"tools": [{"name": "noop", "inputSchema": {"type": "object"}}]})
"#;

#[test]
fn a_server_that_ignores_discover_but_answers_ping_starts_at_once() {
    let dir = bind("python3", &["quiet.py".to_string()]);
    std::fs::write(dir.path().join("quiet.py"), IGNORES_DISCOVER).expect("server");
    let listed = run(dir.path(), &["-v", "tools", "--format", "json"]);
    listed.expect_code(0);
    listed.stderr_has("MCP server `s` speaks revision 2025-06-18 (by initialize)");
    assert_eq!(listed.json()["tools"][0]["name"], json!("mcp__s__noop"));
    // Waiting out an unanswered `server/discover` would take ten seconds.
    assert!(
        listed.elapsed < Duration::from_secs(3),
        "started in {:?}",
        listed.elapsed
    );
}

/// The test server over streamable HTTP with `flags`, logging to `log`; killed and
/// reaped when dropped.
struct Listening {
    child: Child,
    url: String,
}

impl Listening {
    fn start(flags: &[&str], log: &Path) -> Listening {
        let mut child = Command::new(test_server_path())
            .args(["--http", "127.0.0.1:0", "--log"])
            .arg(log)
            .args(flags)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the test server starts");
        let mut line = String::new();
        // Written once bound; an exit closes stdout instead.
        BufReader::new(child.stdout.take().expect("piped stdout"))
            .read_line(&mut line)
            .expect("the server's first line");
        let url = line
            .trim_end()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("a `listening on URL` line, not {line:?}"))
            .to_string();
        Listening { child, url }
    }
}

impl Drop for Listening {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_stateless_server_at_a_url_is_spoken_to_without_a_session() {
    for (flags, revision, sessions) in [
        (&["--stateless"][..], "2026-07-28 (by server/discover)", 0),
        (&["--legacy"][..], "2025-06-18 (by initialize)", 1),
    ] {
        let dir = tempfile::tempdir().expect("temp dir");
        let log = dir.path().join("server.log");
        let server = Listening::start(flags, &log);
        let config = format!(
            "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: RuntimeConfig\nspec:\n  mcp_servers:\n    - name: s\n      url: {}\n      transport: streamable_http\n",
            server.url
        );
        std::fs::write(dir.path().join("c.yaml"), config).expect("config");
        let called = run(
            dir.path(),
            &["-v", "invoke-tool", "mcp__s__echo", "--arg", "text=hi"],
        );
        called.expect_code(0);
        called.stderr_has(&format!("MCP server `s` speaks revision {revision}"));
        assert_eq!(called.json(), json!("hi"));
        let logged = std::fs::read_to_string(&log).expect("the server's log");
        // A session is ended by a DELETE; 2026-07-28 has none to end.
        assert_eq!(
            logged.lines().filter(|l| *l == "delete").count(),
            sessions,
            "{flags:?}: {logged}"
        );
        drop(server);
    }
}
