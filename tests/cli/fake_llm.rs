//! A scripted model server on loopback (`tests/fixtures/llm/fake_llm.py`) that speaks
//! OpenAI's chat completions and Anthropic's Messages API, for tests that run a whole
//! conversation against a real HTTP endpoint. The script format is described at the top
//! of that file.
//!
//! ```ignore
//! let llm = FakeLlm::start(&json!([{"reply": {"content": "Hello"}}]));
//! promptexec().env("LLM_URL", llm.base_url())...;
//! assert_eq!(llm.requests()[0]["body"]["model"], "gpt-4o-mini");
//! ```

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, ChildStdin, Command, Stdio};

use serde_json::{Value as Json, json};
use tempfile::TempDir;

use crate::util::fixtures;

/// A running fake model server; stopped when dropped.
pub struct FakeLlm {
    child: Option<Child>,
    /// Held open: the server ends by itself when this closes, even if the test is killed.
    stdin: Option<ChildStdin>,
    port: u16,
    dir: TempDir,
}

impl FakeLlm {
    /// Starts a server that answers with `script`'s steps in order; returns once it
    /// listens.
    #[track_caller]
    pub fn start(script: &Json) -> FakeLlm {
        let dir = tempfile::tempdir().expect("temp dir");
        let script_path = dir.path().join("script.json");
        std::fs::write(&script_path, script.to_string()).expect("script written");
        let stderr = std::fs::File::create(dir.path().join("stderr.txt")).expect("stderr file");
        let mut child = Command::new("python3")
            .arg(fixtures().join("llm/fake_llm.py"))
            .arg(&script_path)
            .arg(dir.path().join("log.jsonl"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("python3 starts");
        let stdin = child.stdin.take();
        let mut line = String::new();
        if let Some(stdout) = child.stdout.take() {
            BufReader::new(stdout)
                .read_line(&mut line)
                .expect("the port line is read");
        }
        let Ok(port) = line.trim().parse() else {
            let _ = child.kill();
            let _ = child.wait();
            let stderr = std::fs::read_to_string(dir.path().join("stderr.txt")).unwrap_or_default();
            panic!("fake_llm did not start: printed {line:?}\n{stderr}");
        };
        FakeLlm {
            child: Some(child),
            stdin,
            port,
            dir,
        }
    }

    /// The API root to configure a provider with: `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Every request received so far, in order: `{"path", "headers", "body"}`, header
    /// names lowercased.
    #[track_caller]
    pub fn requests(&self) -> Vec<Json> {
        let log = std::fs::read_to_string(self.dir.path().join("log.jsonl")).unwrap_or_default();
        log.lines()
            .map(|line| serde_json::from_str(line).expect("a JSON log line"))
            .collect()
    }

    /// Kills the server and waits for it; nothing happens the second time.
    pub fn stop(&mut self) {
        self.stdin = None;
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for FakeLlm {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One raw HTTP/1.1 POST; returns the status, the head and the body (de-chunked).
fn post(port: u16, path: &str, body: &Json) -> (u16, String, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connects");
    let body = body.to_string();
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAuthorization: Bearer test-key\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .expect("request written");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("response read");
    let (head, rest) = response.split_once("\r\n\r\n").expect("a head and a body");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status line");
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(rest)
    } else {
        rest.to_string()
    };
    (status, head.to_string(), body)
}

fn dechunk(mut rest: &str) -> String {
    let mut body = String::new();
    while let Some((size, after)) = rest.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).expect("a chunk size");
        if size == 0 {
            break;
        }
        body.push_str(&after[..size]);
        rest = &after[size + 2..];
    }
    body
}

/// The `data:` payloads of a Claude event stream, by event name, in order.
fn claude_events(stream: &str) -> Vec<(String, Json)> {
    stream
        .split("\n\n")
        .filter(|event| !event.is_empty())
        .map(|event| {
            let (name, data) = event.split_once('\n').expect("event and data lines");
            let name = name.strip_prefix("event: ").expect("an event line");
            let data = data.strip_prefix("data: ").expect("a data line");
            (
                name.to_string(),
                serde_json::from_str(data).expect("JSON data"),
            )
        })
        .collect()
}

#[test]
fn the_fake_model_server_answers_as_scripted_and_logs_each_request() {
    let llm = FakeLlm::start(&json!([
        {"reply": {"content": "Hello", "tool_calls": [{"id": "call_1", "name": "lookup", "arguments": {"id": 7}}],
                   "usage": {"input": 12, "output": 5}}},
        {"reply": {"content": "Hi there", "tool_calls": [{"name": "lookup", "arguments": "{\"id\": 7"}],
                   "usage": {"input": 3, "output": 4}}},
        {"status": 429, "headers": {"Retry-After": "0"}, "body": {"error": {"message": "slow down"}}},
    ]));
    assert!(llm.base_url().ends_with(&format!(":{}/v1", llm.port())));

    let (status, _, body) = post(
        llm.port(),
        "/v1/chat/completions",
        &json!({"model": "gpt-x", "messages": [{"role": "user", "content": "hi"}]}),
    );
    assert_eq!(status, 200);
    let answer: Json = serde_json::from_str(&body).expect("a JSON answer");
    assert_eq!(answer["object"], "chat.completion");
    let choice = &answer["choices"][0];
    assert_eq!(choice["message"]["content"], "Hello");
    assert_eq!(choice["finish_reason"], "tool_calls");
    assert_eq!(
        choice["message"]["tool_calls"][0],
        json!({"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": "{\"id\": 7}"}})
    );
    assert_eq!(
        answer["usage"],
        json!({"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17})
    );

    let (status, head, stream) = post(
        llm.port(),
        "/v1/messages",
        &json!({"model": "claude-x", "stream": true, "messages": []}),
    );
    assert_eq!(status, 200);
    assert!(head.contains("text/event-stream"), "{head}");
    let events = claude_events(&stream);
    let names: Vec<&str> = events.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names.first(), Some(&"message_start"));
    assert_eq!(names.last(), Some(&"message_stop"));
    assert_eq!(events[0].1["message"]["usage"]["input_tokens"], 3);
    let deltas = |kind: &str, field: &str| -> String {
        events
            .iter()
            .filter(|(_, data)| data["delta"]["type"] == kind)
            .map(|(_, data)| data["delta"][field].as_str().expect("a piece"))
            .collect()
    };
    assert_eq!(deltas("text_delta", "text"), "Hi there");
    assert_eq!(
        deltas("input_json_delta", "partial_json"),
        "{\"id\": 7",
        "a raw argument string is sent as it is"
    );
    let tool_use = events
        .iter()
        .find(|(_, data)| data["content_block"]["type"] == "tool_use")
        .expect("a tool_use block");
    assert_eq!(tool_use.1["content_block"]["name"], "lookup");
    let message_delta = events
        .iter()
        .find(|(name, _)| name == "message_delta")
        .expect("a message_delta");
    assert_eq!(message_delta.1["delta"]["stop_reason"], "tool_use");
    assert_eq!(message_delta.1["usage"]["output_tokens"], 4);

    let (status, head, body) = post(llm.port(), "/v1/messages", &json!({"model": "claude-x"}));
    assert_eq!(status, 429);
    assert!(head.contains("Retry-After: 0"), "{head}");
    assert_eq!(body, r#"{"error": {"message": "slow down"}}"#);

    let (status, _, body) = post(llm.port(), "/v1/messages", &json!({"model": "claude-x"}));
    assert_eq!(status, 400, "the script is used up");
    assert!(
        body.contains("fake_llm: no scripted reply for request 4"),
        "{body}"
    );

    let requests = llm.requests();
    let paths: Vec<&str> = requests
        .iter()
        .map(|r| r["path"].as_str().expect("a path"))
        .collect();
    assert_eq!(
        paths,
        [
            "/v1/chat/completions",
            "/v1/messages",
            "/v1/messages",
            "/v1/messages"
        ]
    );
    assert_eq!(requests[0]["headers"]["authorization"], "Bearer test-key");
    assert_eq!(requests[0]["body"]["messages"][0]["content"], "hi");
    assert_eq!(requests[1]["body"]["stream"], true);
}
