//! `invoke-tool --batch` streams: output starts before the input ends, the input order
//! is kept however the calls finish, and bad lines are named by their line number.

use std::io::{BufRead, BufReader, Write};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value as Json, json};

use crate::util::{Invocation, example_config, finish, fixtures, promptexec};

/// A one-shot tool that answers with its own request, `{"args": …}`.
const CAT_CONFIG: &str = "apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: RuntimeConfig
spec:
  tools:
    cat:
      exec: { command: /bin/cat, timeout_ms: 10000 }
";

/// A server that holds 8 requests and answers them last first.
fn reversing_config() -> String {
    let server = fixtures().join("servers/echo_server.py");
    format!(
        "apiVersion: promptkit.altairalabs.ai/v1alpha1
kind: RuntimeConfig
spec:
  tools:
    reverse:
      exec: {{ command: {}, args: [--reverse, \"8\"], runtime: server, timeout_ms: 10000 }}
",
        server.display()
    )
}

/// Kills process `pid` unless the returned sender is dropped within `limit`: a batch
/// that waits for the end of its input makes the test fail instead of hang.
fn watchdog(pid: u32, limit: Duration) -> mpsc::Sender<()> {
    let (disarm, armed) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        if armed.recv_timeout(limit) == Err(mpsc::RecvTimeoutError::Timeout) {
            let pid = nix::unistd::Pid::from_raw(pid as i32);
            let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
        }
    });
    disarm
}

/// `invoke-tool cat --batch BATCH -j JOBS` in `dir`, with the config written there.
fn cat_batch(dir: &std::path::Path, batch: &str, jobs: &str) -> Invocation {
    promptexec()
        .in_dir(dir)
        .file("cat.yaml", CAT_CONFIG)
        .args(["-c", "cat.yaml", "invoke-tool", "cat", "--batch", batch])
        .args(["-j", jobs])
}

fn envelope(line: &str) -> Json {
    serde_json::from_str(line).unwrap_or_else(|err| panic!("an envelope ({err}): {line:?}"))
}

#[test]
fn the_first_envelope_comes_back_before_the_input_ends() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut child = cat_batch(dir.path(), "-", "4").spawn_fed();
    let disarm = watchdog(child.id(), Duration::from_secs(120));
    let mut input = child.stdin.take().expect("stdin pipe");
    let mut output = BufReader::new(child.stdout.take().expect("stdout pipe"));

    writeln!(input, "{}", json!({"n": 0})).expect("first line written");
    input.flush().expect("first line sent");
    let mut first = String::new();
    output.read_line(&mut first).expect("first envelope read");
    let first = envelope(&first);
    assert_eq!(first["status"], "ok", "{first}");
    assert_eq!(first["result"]["args"]["n"], 0);

    // The rest is written while the output is read, so neither pipe fills up.
    let total = 300;
    let writer = std::thread::spawn(move || {
        for n in 1..total {
            writeln!(input, "{}", json!({"n": n})).expect("line written");
        }
        // Dropping `input` closes stdin: the end of the batch.
    });
    let rest: Vec<Json> = output
        .lines()
        .map(|line| envelope(&line.expect("envelope read")))
        .collect();
    writer.join().expect("all lines written");
    let outcome = finish(child);
    drop(disarm);
    outcome.expect_code(0);
    assert_eq!(rest.len(), total - 1, "one envelope per line");
    for (n, reply) in (1..).zip(&rest) {
        assert_eq!(reply["result"]["args"]["n"], n, "line {n} in input order");
    }
}

#[test]
fn input_order_is_kept_when_later_calls_finish_first() {
    let dir = tempfile::tempdir().expect("temp dir");
    let lines: Vec<String> = (0..32).map(|n| json!({ "n": n }).to_string()).collect();
    let out = promptexec()
        .in_dir(dir.path())
        .file("reverse.yaml", reversing_config())
        .args([
            "-c",
            "reverse.yaml",
            "invoke-tool",
            "reverse",
            "--batch",
            "-",
        ])
        .args(["-j", "8"])
        .stdin(lines.join("\n"))
        .timeout(Duration::from_secs(120))
        .run();
    out.expect_code(0);
    let replies: Vec<Json> = out.stdout.lines().map(envelope).collect();
    assert_eq!(replies.len(), 32);
    for (n, reply) in replies.iter().enumerate() {
        assert_eq!(reply["result"]["echo"]["n"], n, "line {n} in input order");
    }
}

#[test]
fn every_bad_line_of_a_file_is_named_before_any_call() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = cat_batch(dir.path(), "batch.jsonl", "8")
        .file(
            "batch.jsonl",
            "{\"n\": 1}\n\nnot json\n{\"n\": 2}\n\"text\"\n",
        )
        .run();
    out.expect_code(2)
        .stderr_has("batch.jsonl:3: the arguments are not valid JSON")
        .stderr_has("batch.jsonl:5: the arguments must be a JSON object, found a string");
    assert_eq!(out.stdout, "", "no call ran");
}

#[test]
fn stdin_redirected_from_a_file_is_checked_before_any_call() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = cat_batch(dir.path(), "-", "8")
        .file("batch.jsonl", "{\"n\": 1}\n[2]\n{\"n\": 3}\n")
        .after_shell("exec < batch.jsonl")
        .run();
    out.expect_code(2)
        .stderr_has("-:2: the arguments must be a JSON object, found an array");
    assert_eq!(out.stdout, "", "no call ran");

    let out = cat_batch(dir.path(), "-", "8")
        .file("batch.jsonl", "{\"n\": 1}\n{\"n\": 2}\n")
        .after_shell("exec < batch.jsonl")
        .run();
    out.expect_code(0);
    let numbers: Vec<Json> = out
        .stdout
        .lines()
        .map(|l| envelope(l)["result"]["args"]["n"].clone())
        .collect();
    assert_eq!(
        numbers,
        [1, 2],
        "the file read again from its start for the calls"
    );
}

#[test]
fn a_bad_line_on_stdin_ends_the_batch_after_the_calls_before_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = cat_batch(dir.path(), "-", "2")
        .stdin("{\"n\": 1}\n{\"n\": 2}\n\n[1]\n{\"n\": 5}\n{\"n\": \n")
        .run();
    out.expect_code(2)
        .stderr_has("-:4: the arguments must be a JSON object, found an array")
        .stderr_has("-:6: the arguments are not valid JSON");
    let replies: Vec<Json> = out.stdout.lines().map(envelope).collect();
    let numbers: Vec<&Json> = replies.iter().map(|r| &r["result"]["args"]["n"]).collect();
    assert_eq!(
        numbers,
        [1, 2],
        "the lines before the bad one ran, none after"
    );
}

#[test]
fn a_line_on_stdin_that_breaks_the_schema_is_named_with_its_line() {
    let out = example_config()
        .args([
            "invoke-tool",
            "db_query",
            "--pack",
            "examples/assistant.pack.json",
        ])
        .args(["--batch", "-"])
        .stdin("{\"sql\": 5}\n")
        .run();
    out.expect_code(2)
        .stderr_has("arguments for tool `db_query` (batch line 1) break its schema");
    assert_eq!(out.stdout, "", "no call ran");
}
