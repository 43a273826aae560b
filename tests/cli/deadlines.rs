//! Every JSON-RPC call ends by its deadline, even when the process stopped reading
//! stdin and events filled its pipe and our write queue (RELIABILITY.md row 26).

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use crate::util::{fixtures, gone, mock_config_head, pid_in, promptexec};

/// A config whose hook stops reading after `hook.hello`, observes every event and
/// intercepts `before_llm`; and a mock whose first answer asks for 700 tool calls
/// with 1 KB arguments, whose events fill the hook's pipe and then the write queue.
fn write_flood(dir: &Path) -> std::path::PathBuf {
    let fixtures = fixtures().join("deadlines");
    let pad = "x".repeat(1000);
    let mut mock = String::from(
        "defaultResponse: \"Noted.\"\nscenarios:\n  chat:\n    turns:\n      1:\n        content: \"Let me look everything up.\"\n        tool_calls:\n",
    );
    for n in 0..700 {
        let _ = writeln!(
            mock,
            "          - {{ name: lookup, arguments: {{ n: {n}, pad: \"{pad}\" }} }}"
        );
    }
    std::fs::write(dir.join("flood.mock.yaml"), mock).expect("write the mock");
    let config = format!(
        "{head}  tools:
    lookup:
      exec: {{ command: {answer}, timeout_ms: 5000 }}
  hooks:
    deaf:
      command: {hook}
      runtime: server
      env: [PIDFILE]
      intercept: [before_llm]
      observe: \"*\"
      timeout_ms: 500
      handshake_timeout_ms: 5000
",
        head = mock_config_head("flood.mock.yaml"),
        answer = fixtures.join("answer.sh").display(),
        hook = fixtures.join("deaf_hook.py").display(),
    );
    let path = dir.join("flood.yaml");
    std::fs::write(&path, config).expect("write the config");
    path
}

#[test]
fn row26_a_hook_that_stops_reading_while_events_flood_in_times_out_and_the_run_finishes() {
    let temp = tempfile::tempdir().expect("temp dir");
    let config = write_flood(temp.path());
    let pidfile = temp.path().join("hook.pid");
    let pack = fixtures().join("deadlines/deadlines.pack.json");
    let output = promptexec()
        .in_dir(temp.path())
        .env("PIDFILE", &pidfile)
        .arg("-c")
        .arg(&config)
        .arg("run")
        .arg(&pack)
        .args(["--message", "look everything up"])
        // Only a guard against a hang, far beyond what the run needs.
        .timeout(Duration::from_secs(120))
        .run();
    let stderr = &output.stderr;
    let hook = pid_in(&pidfile);
    let hook_alive = !gone(hook);
    if hook_alive {
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(hook),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    // The run finished, the hook's timeouts failing it, after the queue filled.
    output.expect_code(3);
    output.stderr_has("could not be delivered");
    assert_eq!(
        stderr
            .matches("hook `deaf` failed: no reply within 500 ms")
            .count(),
        2,
        "both before_llm calls timed out:\n{stderr}"
    );
    assert!(!hook_alive, "the hook process {hook} outlived the run");
}
