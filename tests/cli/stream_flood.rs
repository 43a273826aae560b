//! A model server that floods a stream: one character of text per event, or one line
//! that never ends, stops at the 64 MiB size cap, and a new tool call or content block
//! per event at the limit on those, each as the provider's error (exit 3).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::Duration;

use crate::util::{Outcome, fixtures, promptexec};

/// The flooding server (`tests/fixtures/stream_flood/flood_llm.py`); stopped when
/// dropped.
struct Flood {
    child: Child,
    /// Held open: the server ends by itself when this closes.
    _stdin: Option<ChildStdin>,
    port: u16,
}

impl Flood {
    fn start(kind: &str) -> Flood {
        let mut child = Command::new("python3")
            .arg(fixtures().join("stream_flood/flood_llm.py"))
            .arg(kind)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 starts");
        let stdin = child.stdin.take();
        let mut line = String::new();
        if let Some(stdout) = child.stdout.take() {
            BufReader::new(stdout)
                .read_line(&mut line)
                .expect("the port line is read");
        }
        let port = line.trim().parse().expect("the server prints its port");
        Flood {
            child,
            _stdin: stdin,
            port,
        }
    }
}

impl Drop for Flood {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One streamed conversation with the provider `fake` (`api`) at the flooding server.
fn converse(dir: &Path, api: &str, flood: &Flood) -> Outcome {
    let config = format!(
        "apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: RuntimeConfig
spec:
  providers:
    - id: fake
      type: {api}
      model: fake-model
      base_url: http://127.0.0.1:{port}/v1
      credential: {{ credential_env: FAKE_LLM_KEY }}
      stream_idle_timeout: 10s
      request_timeout: 100s
",
        port = flood.port
    );
    std::fs::write(dir.join("flood.yaml"), config).expect("config written");
    promptexec()
        .in_dir(dir)
        .env("FAKE_LLM_KEY", "sk-flood")
        .timeout(Duration::from_secs(110))
        .arg("-c")
        .arg(dir.join("flood.yaml"))
        .arg("run")
        .arg(fixtures().join("suite/suite.pack.json"))
        .args(["--prompt", "main", "--provider", "fake", "--message", "hi"])
        .args(["--stream", "--format", "json"])
        .run()
}

fn ends_with(kind: &str, api: &str, error: &str) {
    let dir = tempfile::tempdir().expect("temp dir");
    let flood = Flood::start(kind);
    converse(dir.path(), api, &flood)
        .expect_code(3)
        .stderr_has("provider `fake`")
        .stderr_has(error);
}

#[test]
fn a_flood_of_one_character_deltas_ends_at_the_size_cap() {
    ends_with("text", "openai", "the answer is larger than 64 MiB");
    ends_with("claude_text", "claude", "the answer is larger than 64 MiB");
}

/// Read chunk by chunk, a line that never ends once took time growing with its
/// length times the chunks, and never reached the cap before the deadline.
#[test]
fn a_line_that_never_ends_ends_at_the_size_cap() {
    ends_with("long_line", "openai", "the answer is larger than 64 MiB");
}

#[test]
fn a_flood_of_new_tool_calls_or_blocks_ends_at_their_limit() {
    ends_with(
        "calls",
        "openai",
        "the stream opened more than 1024 tool calls",
    );
    ends_with(
        "claude_blocks",
        "claude",
        "the stream opened more than 1024 content blocks",
    );
}
