//! Secrets never written: a model server on loopback that says the API key it was
//! sent and calls a tool with it, and a tool that answers with a token its config
//! passes on. Neither secret may reach any file promptexec writes (report, JUnit,
//! transcript, recording, `--output`) nor its stdout, stderr or log; `***` stands in.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};

use tempfile::TempDir;

use crate::util::{Invocation, Outcome, fixtures, promptexec};

const KEY: &str = "sk-leak-7f3a9c2e-echo-me";
const TOKEN: &str = "svc-token-5b8d1e40";

/// `tests/fixtures/secrets/echo_key_llm.py`, running; stopped when dropped.
struct LeakyModel {
    child: Child,
    stdin: Option<ChildStdin>,
    port: u16,
    /// Outside the folder the test searches: it holds the keys the server received.
    log: TempDir,
}

impl LeakyModel {
    fn start() -> LeakyModel {
        let log = tempfile::tempdir().expect("temp dir");
        let mut child = Command::new("python3")
            .arg(fixtures().join("secrets/echo_key_llm.py"))
            .arg(log.path().join("keys.log"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 starts");
        let mut line = String::new();
        let stdout = child.stdout.take().expect("piped stdout");
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("the port line is read");
        let port = line.trim().parse().expect("a port");
        LeakyModel {
            stdin: child.stdin.take(),
            child,
            port,
            log,
        }
    }

    /// The keys the server was sent, one per request.
    fn keys_received(&self) -> Vec<String> {
        let log = std::fs::read_to_string(self.log.path().join("keys.log")).unwrap_or_default();
        log.lines().map(str::to_string).collect()
    }
}

impl Drop for LeakyModel {
    fn drop(&mut self) {
        self.stdin = None;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A config in `dir` whose provider `leaky` is the server on `port`, its key read
/// from `LEAKY_KEY`, and whose tool `echo` gets `SERVICE_TOKEN` passed on.
fn config(dir: &Path, port: u16) -> PathBuf {
    let text = format!(
        "apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: RuntimeConfig
spec:
  providers:
    - id: leaky
      type: openai
      model: leaky-model
      base_url: http://127.0.0.1:{port}/v1
      credential: {{ credential_env: LEAKY_KEY }}
      request_timeout: 20s
  tools:
    echo:
      exec: {{ command: {tool}, env: [SERVICE_TOKEN], timeout_ms: 5000 }}
",
        tool = fixtures().join("secrets/leaky_tool.py").display(),
    );
    let path = dir.join("leaky.yaml");
    std::fs::write(&path, text).expect("config written");
    path
}

/// One conversation with `leaky` from `dir`, with both secrets in the environment,
/// logging at `-vv`.
fn conversation(dir: &Path, config: &Path) -> Invocation {
    promptexec()
        .in_dir(dir)
        .env("LEAKY_KEY", KEY)
        .env("SERVICE_TOKEN", TOKEN)
        .arg("-c")
        .arg(config)
        .args(["-vv", "run"])
        .arg(fixtures().join("secrets/leak.pack.json"))
        .args(["--provider", "leaky", "--message", "What is my key?"])
}

/// Every file under `dir`, with its bytes.
fn files_under(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).expect("listed") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            found.extend(files_under(&path));
        } else {
            let bytes = std::fs::read(&path).expect("read");
            found.push((path, bytes));
        }
    }
    found
}

fn holds(bytes: &[u8], text: &str) -> bool {
    bytes
        .windows(text.len())
        .any(|window| window == text.as_bytes())
}

/// Neither secret on stdout, stderr or in any file under `dir`; `***` in each of
/// `outputs` (files in `dir`) and on the stream a person reads.
#[track_caller]
fn nothing_leaked(out: &Outcome, dir: &Path, outputs: &[&str]) {
    for secret in [KEY, TOKEN] {
        out.stdout_lacks(secret).stderr_lacks(secret);
        for (path, bytes) in files_under(dir) {
            assert!(!holds(&bytes, secret), "{secret} in {}", path.display());
        }
    }
    for output in outputs {
        let bytes = std::fs::read(dir.join(output)).expect("written");
        assert!(holds(&bytes, "***"), "no *** in {output}");
    }
}

#[test]
fn an_echoed_key_and_token_reach_no_file_and_no_stream() {
    let model = LeakyModel::start();
    let dir = tempfile::tempdir().expect("temp dir");
    let config = config(dir.path(), model.port);
    let outputs = ["report.json", "transcript.jsonl", "recording.json"];
    let json = conversation(dir.path(), &config)
        .args(["--format", "json", "-o", outputs[0]])
        .args(["--transcript", outputs[1], "--record", outputs[2]])
        .run();
    json.expect_code(0);
    nothing_leaked(&json, dir.path(), &outputs);
    // The key went out and came back: in the answer, the tool's arguments and its
    // result, each of which the report holds masked.
    assert_eq!(model.keys_received(), [KEY, KEY]);
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join(outputs[0])).expect("read"))
            .expect("the masked report is still JSON");
    let said = report["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["role"] == "assistant")
        .map(|m| m["content"].as_str().unwrap_or_default())
        .collect::<Vec<_>>();
    assert_eq!(said[0], "Your key is ***. Let me echo it.");
    assert!(said[1].starts_with("Done. Your key is *** and the tool said"));
    assert!(said[1].contains(r#""token":"***""#), "{}", said[1]);

    // Streamed, the key arrives in 3-character pieces; JUnit (which holds no
    // answers) and the human view (on stderr and in --output) mask it all the same.
    let junit = conversation(dir.path(), &config)
        .args(["--stream", "--format", "junit", "-o", "report.xml"])
        .run();
    junit.expect_code(0);
    nothing_leaked(&junit, dir.path(), &[]);
    let human = conversation(dir.path(), &config)
        .args(["--stream", "-o", "human.txt"])
        .run();
    human.expect_code(0);
    nothing_leaked(&human, dir.path(), &["human.txt"]);
    human.stderr_has("assistant: Your key is ***. Let me echo it.");
    assert_eq!(model.keys_received().len(), 6);
}

#[test]
fn a_suite_writes_no_secret_to_its_reports_transcripts_or_recordings() {
    let model = LeakyModel::start();
    let dir = tempfile::tempdir().expect("temp dir");
    let config = config(dir.path(), model.port);
    let suite = |format: &str, output: &str| {
        promptexec()
            .in_dir(dir.path())
            .env("LEAKY_KEY", KEY)
            .env("SERVICE_TOKEN", TOKEN)
            .arg("-c")
            .arg(&config)
            .args(["-v", "run"])
            .arg(fixtures().join("secrets/leak.pack.json"))
            .arg(fixtures().join("secrets/scenarios"))
            .args(["--provider", "leaky", "--format", format, "-o", output])
    };
    // The scenario's assertions fail on what the model said: exit 1.
    let junit = suite("junit", "suite.xml")
        .args(["--transcript", "transcripts", "--record-dir", "recordings"])
        .run();
    junit.expect_code(1);
    nothing_leaked(
        &junit,
        dir.path(),
        &["transcripts/leak.jsonl", "recordings/leak.recording.json"],
    );
    junit.stderr_has("FAIL  leak");
    let json = suite("json", "suite.json").run();
    json.expect_code(1);
    nothing_leaked(&json, dir.path(), &["suite.json"]);
    assert_eq!(model.keys_received(), [KEY; 4]);
}
