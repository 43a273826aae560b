//! MCP servers at a URL, end to end through the binary: the rmcp test server serving
//! streamable HTTP (`--http`), bound in a config by `url` with the header it requires,
//! listed by `tools`, called by `invoke-tool` and played in `run`.
//!
//! The server logs each call and each session a client ends (`delete`), so a test
//! knows which requests arrived and that promptexec closed its session.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value as Json, json};

use crate::mcp::{tool_calls, tool_names};
use crate::mcp_servers::test_server_path;
use crate::util::{Outcome, mock_config_head, promptexec};

/// The header the server requires, and its value: a stand-in for a secret that no
/// message may repeat.
const TOKEN: &str = "secret-value";

/// The test server over HTTP; dropping it kills and reaps the process.
struct HttpServer {
    child: Child,
    url: String,
}

impl HttpServer {
    /// Starts the server on a free port of 127.0.0.1, requiring `X-Token: secret-value`
    /// and logging to `log`; returns once it listens.
    fn start(log: &Path) -> HttpServer {
        let child = Command::new(test_server_path())
            .args(["--http", "127.0.0.1:0", "--legacy", "--require-header"])
            .arg(format!("X-Token={TOKEN}"))
            .arg("--log")
            .arg(log)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the test server starts");
        let mut server = HttpServer {
            child,
            url: String::new(),
        };
        let stdout = server.child.stdout.take().expect("piped stdout");
        let mut line = String::new();
        // The server writes this line once bound, or exits and closes stdout.
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("the server's first line");
        server.url = line
            .trim_end()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("a `listening on URL` line, not {line:?}"))
            .to_string();
        server
    }

    /// The exit code of a server that exits by itself (the `crash` tool's 7).
    fn exit_code(&mut self) -> Option<i32> {
        self.child.wait().expect("the server is waited for").code()
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A pack with one prompt offering every tool of server `web`.
fn pack() -> String {
    json!({
        "id": "web-pack",
        "name": "Web",
        "version": "1.0.0",
        "prompts": {"desk": {
            "id": "desk", "name": "Desk", "version": "1.0.0",
            "system_template": "You help at the desk.",
            "tools": ["mcp__web__*"],
            "tool_policy": {"max_rounds": 4}
        }}
    })
    .to_string()
}

/// A mock script whose first model call makes `calls` (`(tool, args)`), then answers.
fn script(calls: &[(&str, Json)]) -> String {
    let calls: Vec<Json> = calls
        .iter()
        .map(|(name, args)| json!({"name": name, "arguments": args}))
        .collect();
    json!({
        "defaultResponse": "Done.",
        "scenarios": {"desk": {"turns": {
            "1": {"content": "Let me call it.", "tool_calls": calls},
            "2": "That was it."
        }}}
    })
    .to_string()
}

/// A folder holding a config that binds server `web` at a URL with header `X-Token`,
/// a pack, and the mock's script; and the server, when one was started.
struct Setup {
    /// Declared first, so the server is gone before its folder is.
    server: Option<HttpServer>,
    dir: tempfile::TempDir,
}

impl Setup {
    /// A running server, and a config that sends it `token` (`more` adds keys to the
    /// server's entry).
    fn serving(token: &str, more: &str, mock: &str) -> Setup {
        let mut setup = Setup::folder(mock);
        let server = HttpServer::start(&setup.log_path());
        setup.write_config(&server.url, token, more);
        setup.server = Some(server);
        setup
    }

    /// A config that binds `url`, where nothing was started.
    fn unserved(url: &str, more: &str) -> Setup {
        let setup = Setup::folder(&script(&[]));
        setup.write_config(url, TOKEN, more);
        setup
    }

    fn folder(mock: &str) -> Setup {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("pack.json"), pack()).expect("pack");
        std::fs::write(dir.path().join("mock.yaml"), mock).expect("mock script");
        Setup { server: None, dir }
    }

    fn write_config(&self, url: &str, token: &str, more: &str) {
        let config = format!(
            "{}  mcp_servers:\n    - name: web\n      url: {url}\n      transport: streamable_http\n      headers: {{X-Token: {token}}}\n{more}",
            mock_config_head("mock.yaml"),
        );
        std::fs::write(self.path().join("runtimeconfig.yaml"), config).expect("config");
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn log_path(&self) -> PathBuf {
        self.path().join("server.log")
    }

    /// What the server logged after its start: `call NAME` and `delete` lines.
    fn log(&self) -> Vec<String> {
        std::fs::read_to_string(self.log_path())
            .unwrap_or_default()
            .lines()
            .filter(|l| !l.starts_with("started "))
            .map(str::to_string)
            .collect()
    }

    #[track_caller]
    fn promptexec(&self, args: &[&str]) -> Outcome {
        promptexec()
            .in_dir(self.path())
            .args(["-c", "runtimeconfig.yaml"])
            .args(args)
            .run()
    }

    /// `run` of the pack with one message, its JSON report on stdout.
    #[track_caller]
    fn run(&self) -> Outcome {
        self.promptexec(&["run", "pack.json", "--format", "json", "--message", "Go"])
    }
}

/// Neither stream repeats any of `values`.
#[track_caller]
fn none_printed(out: &Outcome, values: &[&str]) {
    for value in values {
        out.stdout_lacks(value).stderr_lacks(value);
    }
}

/// The host and port of a URL the server printed, as failures name it.
fn authority(url: &str) -> &str {
    url.trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap_or_default()
}

#[test]
fn tools_lists_a_url_servers_tools_with_their_schemas_and_closes_its_session() {
    let setup = Setup::serving(TOKEN, "", &script(&[]));
    let out = setup.promptexec(&["tools", "--pack", "pack.json", "--format", "json"]);
    out.expect_code(0);
    let listing = out.json();
    let names = tool_names(&listing);
    assert_eq!(
        names,
        [
            "mcp__web__add",
            "mcp__web__crash",
            "mcp__web__echo",
            "mcp__web__fail",
            "mcp__web__shout",
            "mcp__web__slow"
        ]
    );
    let echo = &listing["tools"][2];
    assert_eq!(echo["mode"], "mcp");
    assert_eq!(echo["source"], "MCP server `web`");
    assert_eq!(echo["prompts"], json!(["desk"]));
    assert_eq!(
        echo["input_schema"]["required"],
        json!(["text"]),
        "{echo:#}"
    );
    assert_eq!(
        echo["input_schema"]["properties"]["text"]["type"], "string",
        "{echo:#}"
    );
    assert_eq!(
        listing["mcp_servers"][0]["server_info"],
        json!({"name": "mcp-test-server", "version": "1.0.0"})
    );
    none_printed(&out, &[TOKEN]);
    assert_eq!(setup.log(), ["delete"], "listed, then the session ended");
}

#[test]
fn invoke_tool_calls_a_tool_of_a_url_server() {
    let setup = Setup::serving(TOKEN, "", &script(&[]));
    let out = setup.promptexec(&[
        "invoke-tool",
        "mcp__web__add",
        "--arg",
        "a=2",
        "--arg",
        "b=3",
    ]);
    out.expect_code(0);
    assert_eq!(out.json(), json!({"sum": 5}));

    let failed = setup.promptexec(&["invoke-tool", "mcp__web__fail"]);
    failed.expect_code(1);
    failed.stderr_has("tool `mcp__web__fail` answered with an error: fail was asked to fail");
    assert_eq!(
        setup.log(),
        ["call add", "delete", "call fail", "delete"],
        "each invocation its own session, ended"
    );
}

#[test]
fn a_conversation_calls_a_url_servers_tools() {
    let setup = Setup::serving(
        TOKEN,
        "",
        &script(&[
            ("mcp__web__echo", json!({"text": "hi"})),
            ("mcp__web__add", json!({"a": 2, "b": 40})),
        ]),
    );
    let out = setup.run();
    out.expect_code(0);
    assert_eq!(
        tool_calls(&out.json_report()),
        [
            ("mcp__web__echo".into(), "ok".into(), "\"hi\"".into()),
            ("mcp__web__add".into(), "ok".into(), r#"{"sum":42}"#.into()),
        ]
    );
    none_printed(&out, &[TOKEN]);
    assert_eq!(
        setup.log(),
        ["call echo", "call add", "delete"],
        "one session for the run"
    );
}

#[test]
fn a_refused_header_exits_3_naming_the_server_and_never_the_values() {
    let setup = Setup::serving(
        "not-the-token",
        "",
        &script(&[("mcp__web__echo", json!({"text": "hi"}))]),
    );
    let url = setup
        .server
        .as_ref()
        .map(|s| s.url.clone())
        .unwrap_or_default();
    let refused = format!(
        "MCP server `web` failed its `initialize`: {}: HTTP 401 Unauthorized: the server wants credentials (check the server's `headers`)",
        authority(&url)
    );
    let invoked = setup.promptexec(&["invoke-tool", "mcp__web__echo", "--arg", "text=hi"]);
    invoked.expect_code(3);
    invoked.stderr_has(&refused);
    none_printed(&invoked, &[TOKEN, "not-the-token"]);

    let run = setup.run();
    run.expect_code(3);
    run.stderr_has(&refused);
    none_printed(&run, &[TOKEN, "not-the-token"]);
    assert_eq!(setup.log(), Vec::<String>::new(), "no call got through");
}

#[test]
fn a_header_the_transport_sets_itself_is_refused_by_name() {
    let setup = Setup::unserved("http://127.0.0.1:9/mcp", "");
    let config = std::fs::read_to_string(setup.path().join("runtimeconfig.yaml")).expect("config");
    std::fs::write(
        setup.path().join("runtimeconfig.yaml"),
        config.replace("X-Token:", "Mcp-Session-Id:"),
    )
    .expect("config");
    // Refused when the config loads, at the header's name, before anything starts.
    let out = setup.promptexec(&["invoke-tool", "mcp__web__echo", "--arg", "text=hi"]);
    out.expect_code(2);
    out.stderr_has("runtimeconfig.yaml:");
    out.stderr_has("spec.mcp_servers[0].headers: `Mcp-Session-Id` is set by the MCP transport itself and cannot be configured");
    none_printed(&out, &[TOKEN]);
}

#[test]
fn a_url_where_nothing_listens_exits_3_naming_the_server_at_once() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let port = listener.local_addr().expect("its address").port();
    drop(listener);
    let setup = Setup::unserved(
        &format!("http://127.0.0.1:{port}/mcp"),
        "      timeout_ms: 20000\n",
    );
    let out = setup.promptexec(&["invoke-tool", "mcp__web__echo", "--arg", "text=hi"]);
    out.expect_code(3);
    out.stderr_has(&format!(
        "MCP server `web` failed its `initialize`: 127.0.0.1:{port}: could not connect ("
    ));
    assert!(
        out.elapsed < Duration::from_secs(5),
        "a refused connection fails at once, not at the 20 s deadline: {:?}",
        out.elapsed
    );

    let listed = setup.promptexec(&["tools"]);
    listed.expect_code(3);
    listed.stderr_has("MCP server `web` failed its `initialize`");
}

#[test]
fn a_server_that_dies_mid_call_fails_that_call_at_once() {
    let mut setup = Setup::serving(TOKEN, "      timeout_ms: 20000\n", &script(&[]));
    let out = setup.promptexec(&["invoke-tool", "mcp__web__crash"]);
    out.expect_code(3);
    out.stderr_has("MCP server `web` closed the connection while the call was in flight");
    assert!(
        out.elapsed < Duration::from_secs(5),
        "the call fails when the server goes, not at the 20 s deadline: {:?}",
        out.elapsed
    );
    let server = setup.server.as_mut().expect("a server");
    assert_eq!(server.exit_code(), Some(7), "the server exited in the call");
}

#[test]
fn missed_deadlines_end_the_session_and_the_next_call_opens_a_new_one() {
    // Each sleeps past the deadline; three missed deadlines in a row replace a server.
    let slow = json!({"name": "mcp__web__slow", "arguments": {"ms": 5000}});
    let mock = json!({
        "defaultResponse": "Done.",
        "scenarios": {"desk": {"turns": {
            "1": {"content": "", "tool_calls": [slow, slow, slow]},
            "2": "Too slow.",
            "3": {"content": "", "tool_calls": [{"name": "mcp__web__echo", "arguments": {"text": "back"}}]},
            "4": "It answers."
        }}}
    });
    let setup = Setup::serving(TOKEN, "      timeout_ms: 1000\n", &mock.to_string());
    let out = setup.promptexec(&[
        "run",
        "pack.json",
        "--format",
        "json",
        "--message",
        "Slow",
        "--message",
        "Again",
    ]);
    out.expect_code(3);
    let calls = tool_calls(&out.json_report());
    let statuses: Vec<(&str, &str)> = calls
        .iter()
        .map(|(name, status, _)| (name.as_str(), status.as_str()))
        .collect();
    assert_eq!(
        statuses,
        [
            ("mcp__web__slow", "failed"),
            ("mcp__web__slow", "failed"),
            ("mcp__web__slow", "failed"),
            ("mcp__web__echo", "ok"),
        ],
        "{calls:?}"
    );
    let log = setup.log();
    let (slow_calls, rest): (Vec<&String>, Vec<&String>) =
        log.iter().partition(|l| *l == "call slow");
    assert_eq!(slow_calls.len(), 3, "{log:?}");
    assert_eq!(
        rest,
        ["delete", "call echo", "delete"],
        "the first session ended before the second began: {log:?}"
    );
}
