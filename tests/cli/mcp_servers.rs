//! The MCP servers the tests start, spoken to directly over their pipes: the rmcp test
//! server (the example `mcp_test_server`, tests/fixtures/mcp/test_server.rs) and the
//! bundled mcp-examples/server.py, on the official `mcp` package and on its fallback
//! tiny_mcp.py (forced by `MCP_EXAMPLE_TINY=1`, or by a python3 that finds no packages).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::{Value as Json, json};

use crate::util::repo_root;

/// The rmcp test server, built by `cargo test` (or `cargo build --examples`) beside the
/// test binary: `target/<profile>/deps/cli-…` → `target/<profile>/examples/`.
pub fn test_server_path() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("the test binary lies in target/<profile>/deps");
    let server = profile_dir
        .join("examples")
        .join(format!("mcp_test_server{}", std::env::consts::EXE_SUFFIX));
    assert!(
        server.is_file(),
        "{} is missing: `cargo test` builds it, as does `cargo build --example mcp_test_server`",
        server.display()
    );
    server
}

/// The bundled example server, mcp-examples/server.py.
pub fn bundled_server() -> PathBuf {
    repo_root().join("mcp-examples/server.py")
}

/// Long enough for a Python server's imports on a busy 2-core machine; only a server
/// that never answers waits it out.
const REPLY_DEADLINE: Duration = Duration::from_secs(30);

const CLIENT_VERSION: &str = "2025-06-18";

/// A running MCP server and the client side of its pipes. Dropping it kills and reaps
/// the process, so a failing test leaves nothing behind.
struct Peer {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Receiver<String>,
    stderr: Option<JoinHandle<String>>,
    next_id: i64,
}

impl Peer {
    fn start(mut command: Command) -> Peer {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{command:?} starts: {e}"));
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("piped stdout");
        let mut stderr = child.stderr.take().expect("piped stderr");
        let (lines, received) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if lines.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        Peer {
            child,
            stdin,
            stdout: received,
            stderr: Some(stderr),
            next_id: 0,
        }
    }

    fn write(&mut self, message: &Json) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        writeln!(stdin, "{message}").expect("the server reads its stdin");
        stdin.flush().expect("the server reads its stdin");
    }

    /// Sends a request and returns its id; [`Peer::reply`] waits for the answer.
    fn send(&mut self, method: &str, params: Json) -> i64 {
        self.next_id += 1;
        let id = self.next_id;
        self.write(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    fn notify(&mut self, method: &str) {
        self.write(&json!({"jsonrpc": "2.0", "method": method}));
    }

    /// The next message the server writes, or `None` once its stdout is closed.
    fn next_message(&mut self) -> Option<Json> {
        match self.stdout.recv_timeout(REPLY_DEADLINE) {
            Ok(line) => Some(serde_json::from_str(&line).unwrap_or_else(|e| {
                panic!("the server wrote a line that is not JSON ({e}): {line}")
            })),
            Err(RecvTimeoutError::Disconnected) => None,
            Err(RecvTimeoutError::Timeout) => panic!("no message within {REPLY_DEADLINE:?}"),
        }
    }

    /// The whole reply to request `id` (a `result` or an `error`).
    fn reply(&mut self, id: i64) -> Json {
        let message = self
            .next_message()
            .unwrap_or_else(|| panic!("the server closed stdout before answering request {id}"));
        assert_eq!(message["id"], id, "answers come in order here: {message}");
        message
    }

    fn request(&mut self, method: &str, params: Json) -> Json {
        let id = self.send(method, params);
        self.reply(id)
    }

    /// The `result` of a request that must succeed.
    fn result(&mut self, method: &str, params: Json) -> Json {
        let reply = self.request(method, params);
        assert!(reply.get("error").is_none(), "{method} failed: {reply}");
        reply["result"].clone()
    }

    /// The handshake; returns the server's `initialize` result.
    fn initialize(&mut self) -> Json {
        let result = self.result(
            "initialize",
            json!({
                "protocolVersion": CLIENT_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "promptexec-tests", "version": "0"},
            }),
        );
        self.notify("notifications/initialized");
        result
    }

    fn call(&mut self, tool: &str, arguments: Json) -> Json {
        self.result("tools/call", json!({"name": tool, "arguments": arguments}))
    }

    /// Closes stdin, waits for the exit, and returns it with everything on stderr.
    /// Whatever the server still writes to stdout by then is unexpected.
    fn finish(mut self) -> (ExitStatus, String) {
        self.stdin = None;
        if let Some(message) = self.next_message() {
            panic!("the server wrote after its last answer: {message}");
        }
        // Its stdout is closed: the process is on its way out.
        let status = self.child.wait().expect("waiting on the server");
        let stderr = self.stderr.take().expect("stderr is read once");
        (status, stderr.join().expect("the stderr reader"))
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn text_of(result: &Json) -> &str {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("a text block first: {result}"))
}

fn tool_names(tools: &Json) -> Vec<&str> {
    let mut names: Vec<&str> = tools["tools"]
        .as_array()
        .expect("a tools array")
        .iter()
        .map(|tool| tool["name"].as_str().expect("a tool name"))
        .collect();
    names.sort_unstable();
    names
}

fn test_server(flags: &[&str]) -> Peer {
    let mut command = Command::new(test_server_path());
    command.args(flags);
    Peer::start(command)
}

#[test]
fn rmcp_test_server_answers_each_tool() {
    let mut peer = test_server(&["--stderr", "test server up"]);
    let info = peer.initialize();
    assert_eq!(info["serverInfo"]["name"], "mcp-test-server");
    assert!(info["capabilities"]["tools"].is_object(), "{info}");
    assert!(info["capabilities"].get("prompts").is_none(), "{info}");

    let tools = peer.result("tools/list", json!({}));
    assert_eq!(
        tool_names(&tools),
        ["add", "crash", "echo", "fail", "shout", "slow"]
    );

    let echoed = peer.call("echo", json!({"text": "hi"}));
    assert_eq!(text_of(&echoed), "hi");
    assert_eq!(echoed["isError"], false);

    let added = peer.call("add", json!({"a": 2, "b": 40}));
    assert_eq!(added["structuredContent"], json!({"sum": 42}));

    let failed = peer.call("fail", json!({}));
    assert_eq!(failed["isError"], true);
    assert_eq!(text_of(&failed), "fail was asked to fail");

    let shouted = peer.call("shout", json!({"text": "LOUD LINE"}));
    assert_eq!(text_of(&shouted), "LOUD LINE");

    let unknown = peer.request("tools/call", json!({"name": "nope", "arguments": {}}));
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");

    let (status, stderr) = peer.finish();
    assert_eq!(status.code(), Some(0), "exits cleanly when stdin closes");
    assert_eq!(stderr, "test server up\nLOUD LINE\n");
}

#[test]
fn rmcp_test_server_crash_exits_7_mid_call_and_logs_starts_and_calls() {
    let dir = tempfile::tempdir().expect("temp dir");
    let counter = dir.path().join("log");
    let counter_arg = counter.to_str().expect("a UTF-8 temp path");

    let mut peer = test_server(&["--log", counter_arg]);
    peer.initialize();
    peer.send("tools/call", json!({"name": "crash", "arguments": {}}));
    assert_eq!(peer.next_message(), None, "no answer, just a closed stdout");
    let (status, stderr) = peer.finish();
    assert_eq!(status.code(), Some(7));
    assert_eq!(stderr, "crashing on purpose\n");

    let mut again = test_server(&["--log", counter_arg]);
    again.initialize();
    let (status, _) = again.finish();
    assert_eq!(status.code(), Some(0));
    let log = std::fs::read_to_string(&counter).expect("the log file");
    let lines: Vec<&str> = log
        .lines()
        .map(|l| l.split(' ').next().unwrap_or(l))
        .collect();
    assert_eq!(lines, ["started", "call", "started"], "{log}");
}

#[test]
fn rmcp_test_server_hang_initialize_answers_nothing() {
    let mut peer = test_server(&["--hang-initialize"]);
    peer.send(
        "initialize",
        json!({"protocolVersion": CLIENT_VERSION, "capabilities": {},
               "clientInfo": {"name": "promptexec-tests", "version": "0"}}),
    );
    peer.stdin = None;
    assert_eq!(
        peer.next_message(),
        None,
        "stdout closes with nothing on it"
    );
    let (status, stderr) = peer.finish();
    assert_eq!(status.code(), Some(0));
    assert_eq!(stderr, "");
}

#[test]
fn rmcp_test_server_answers_others_while_slow_sleeps() {
    let mut peer = test_server(&[]);
    peer.initialize();
    let sent = Instant::now();
    let slow = peer.send(
        "tools/call",
        json!({"name": "slow", "arguments": {"ms": 800}}),
    );
    let echo = peer.send(
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "quick"}}),
    );
    let first = peer.reply(echo);
    assert_eq!(text_of(&first["result"]), "quick");
    let last = peer.reply(slow);
    assert_eq!(text_of(&last["result"]), "slept 800 ms");
    assert!(sent.elapsed() >= Duration::from_millis(800));
}

#[test]
fn rmcp_test_server_rejects_unknown_flags() {
    let out = Command::new(test_server_path())
        .arg("--bogus")
        .output()
        .expect("the test server runs");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "mcp_test_server: unknown flag --bogus\n"
    );
}

/// Which Python code answers for the bundled server.
#[derive(Clone, Copy, PartialEq)]
enum Variant {
    Official,
    Tiny,
}

/// The bundled server started with `python3 server.py` in its folder.
fn bundled(variant: Variant, python_flags: &[&str]) -> Peer {
    let server = bundled_server();
    let mut command = Command::new("python3");
    command
        .args(python_flags)
        .arg("server.py")
        .current_dir(server.parent().expect("mcp-examples/"))
        .env_remove("MCP_EXAMPLE_TINY");
    if variant == Variant::Tiny && python_flags.is_empty() {
        command.env("MCP_EXAMPLE_TINY", "1");
    }
    Peer::start(command)
}

/// Whether `python3` on PATH has the official package. Under CI it must: .ci/run puts
/// a virtual environment with `mcp` first on PATH, and a green run has to mean the
/// official package answered.
fn official_package_present() -> bool {
    let imported = Command::new("python3")
        .args(["-c", "import mcp.server.mcpserver"])
        .stderr(Stdio::null())
        .status()
        .expect("python3 runs")
        .success();
    assert!(
        imported || std::env::var_os("CI").is_none(),
        "CI is set, but python3 on PATH cannot import mcp.server.mcpserver"
    );
    if !imported {
        eprintln!("python3 has no `mcp` package: only the fallback is checked");
    }
    imported
}

/// What both variants answer alike; returns the tools/list result.
fn check_bundled(peer: &mut Peer) -> Json {
    let info = peer.initialize();
    assert_eq!(info["protocolVersion"], CLIENT_VERSION);
    assert_eq!(info["serverInfo"]["name"], "acme-support");
    for capability in ["tools", "prompts", "resources"] {
        assert!(info["capabilities"][capability].is_object(), "{info}");
    }

    let tools = peer.result("tools/list", json!({}));
    assert_eq!(
        tool_names(&tools),
        ["echo", "shipping_quote", "store_hours"]
    );
    let quote = tools["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .find(|tool| tool["name"] == "shipping_quote")
        .expect("shipping_quote");
    let schema = &quote["inputSchema"];
    assert_eq!(schema["required"], json!(["weight_kg"]));
    assert_eq!(schema["properties"]["weight_kg"]["type"], "number");
    assert_eq!(schema["properties"]["country"]["default"], "US");

    assert_eq!(text_of(&peer.call("echo", json!({"text": "hi"}))), "hi");

    let hours = peer.call("store_hours", json!({"city": "denver"}));
    assert_eq!(hours["isError"], false);
    assert_eq!(
        hours["structuredContent"],
        json!({"city": "Denver", "opens": "10:00", "closes": "19:00", "days": "Mon-Sun"})
    );

    let nowhere = peer.call("store_hours", json!({"city": "Paris"}));
    assert_eq!(nowhere["isError"], true);
    assert!(
        text_of(&nowhere).starts_with("Error executing tool store_hours"),
        "{nowhere}"
    );

    let quoted = peer.call("shipping_quote", json!({"weight_kg": 2.5}));
    assert_eq!(
        quoted["structuredContent"],
        json!({"country": "US", "weight_kg": 2.5, "price": 9.5, "currency": "USD", "days": 3})
    );

    let apology = peer.result(
        "prompts/get",
        json!({"name": "apology", "arguments": {"customer_name": "Dana"}}),
    );
    let said = apology["messages"][0]["content"]["text"]
        .as_str()
        .expect("a text message");
    assert!(said.contains("apology to Dana"), "{apology}");

    let policy = peer.result("resources/read", json!({"uri": "store://returns-policy"}));
    let policy = policy["contents"][0]["text"].as_str().expect("policy text");
    assert!(policy.contains("within 30 days"), "{policy}");

    assert_eq!(peer.result("ping", json!({})), json!({}));
    let unknown = peer.request("no/such/method", json!({}));
    assert_eq!(unknown["error"]["code"], -32601, "{unknown}");
    tools
}

/// The failing store_hours call left its traceback on stderr, and the server exited
/// when its stdin closed.
fn check_bundled_exit(peer: Peer) {
    let (status, stderr) = peer.finish();
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("Traceback"), "{stderr}");
    assert!(stderr.contains("ValueError: no store in Paris"), "{stderr}");
}

/// Asks for an unknown tool, which tells the variants apart: the official package
/// answers a failed call, tiny_mcp.py the JSON-RPC error the MCP spec names.
fn check_unknown_tool(peer: &mut Peer, variant: Variant) {
    let reply = peer.request("tools/call", json!({"name": "nope", "arguments": {}}));
    match variant {
        Variant::Official => {
            assert_eq!(reply["result"]["isError"], true, "{reply}");
            assert_eq!(text_of(&reply["result"]), "Unknown tool: nope");
        }
        Variant::Tiny => assert_eq!(reply["error"]["code"], -32602, "{reply}"),
    }
}

#[test]
fn bundled_server_runs_on_the_official_package() {
    if !official_package_present() {
        return;
    }
    let mut peer = bundled(Variant::Official, &[]);
    check_bundled(&mut peer);
    check_unknown_tool(&mut peer, Variant::Official);
    check_bundled_exit(peer);
}

#[test]
fn bundled_server_falls_back_to_tiny_mcp() {
    let mut peer = bundled(Variant::Tiny, &[]);
    let tiny_tools = check_bundled(&mut peer);
    check_unknown_tool(&mut peer, Variant::Tiny);
    check_bundled_exit(peer);

    // A python3 that finds no packages at all (no site, isolated) falls back by itself.
    let mut bare = bundled(Variant::Tiny, &["-S", "-I"]);
    bare.initialize();
    assert_eq!(bare.result("tools/list", json!({})), tiny_tools);
    check_unknown_tool(&mut bare, Variant::Tiny);
    let (status, _) = bare.finish();
    assert_eq!(status.code(), Some(0));
}

#[test]
fn bundled_variants_list_the_same_tools() {
    if !official_package_present() {
        return;
    }
    let mut lists = Vec::new();
    for variant in [Variant::Official, Variant::Tiny] {
        let mut peer = bundled(variant, &[]);
        peer.initialize();
        lists.push(peer.result("tools/list", json!({})));
        let (status, _) = peer.finish();
        assert_eq!(status.code(), Some(0));
    }
    // Names, descriptions, input and output schemas, key order aside.
    assert_eq!(lists[0], lists[1]);
}
