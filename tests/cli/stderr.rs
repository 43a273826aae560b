//! An extension's stderr reaches the user: line by line under its name at `-v`, and
//! its tail in the message when it fails, a JSON-RPC hook's failed handshake included.

use std::path::PathBuf;

use crate::util::{fixtures, promptexec};

fn stderr_dir() -> PathBuf {
    fixtures().join("stderr")
}

#[test]
fn hook_test_shows_the_traceback_of_a_hook_that_dies_before_its_handshake() {
    let out = promptexec()
        .in_dir(stderr_dir())
        .args(&["-c", "stderr.yaml", "hook", "test", "broken"])
        .run();
    out.expect_code(3);
    out.stderr_has("`broken` failed its `hook.hello` handshake");
    out.stderr_has("its stderr ended with:");
    out.stderr_has("SyntaxError");
    let report: serde_json::Value = serde_json::from_str(&out.stdout).expect("one JSON report");
    assert!(
        report["reason"]
            .as_str()
            .is_some_and(|r| r.contains("SyntaxError")),
        "the JSON reason too: {report:#}"
    );
    assert!(
        report["stderr_tail"]
            .as_str()
            .is_some_and(|t| t.contains("SyntaxError")),
        "and its stderr tail: {report:#}"
    );
}

#[test]
fn run_shows_the_traceback_of_a_hook_that_dies_before_its_handshake() {
    let out = promptexec()
        .in_dir(stderr_dir())
        .args(&[
            "-c",
            "stderr.yaml",
            "run",
            "../packs/greeter.json",
            "--var",
            "name=Dana",
            "--message",
            "hi",
        ])
        .run();
    out.expect_code(3);
    out.stderr_has("the run could not go on");
    out.stderr_has("def answer(:");
    out.stderr_has("SyntaxError");
}

#[test]
fn verbose_logs_a_server_tools_stderr_lines_under_its_name() {
    let args = [
        "-v",
        "-c",
        "stderr.yaml",
        "invoke-tool",
        "lookup_order",
        "--args",
        r#"{"order_id": "A-7"}"#,
    ];
    let out = promptexec().in_dir(stderr_dir()).args(&args).run();
    out.expect_code(0);
    out.stderr_has("[tool lookup_order] lookup service ready");
    out.stderr_has("[tool lookup_order] looking up order A-7");
    let quiet = promptexec().in_dir(stderr_dir()).args(&args[1..]).run();
    assert!(
        !quiet.stderr.contains("looking up order"),
        "only at -v: {}",
        quiet.stderr
    );
}

#[test]
fn verbose_logs_a_one_shot_tools_stderr_lines_under_its_name() {
    let out = promptexec()
        .in_dir(stderr_dir())
        .args(&[
            "-v",
            "-c",
            "stderr.yaml",
            "invoke-tool",
            "chatty_once",
            "--args",
            "{}",
        ])
        .run();
    out.expect_code(0);
    let first = out.stderr.find("[tool chatty_once] first stderr line");
    let second = out.stderr.find("[tool chatty_once] second stderr line");
    assert!(
        first.is_some() && first < second,
        "in order: {}",
        out.stderr
    );
}

#[test]
fn a_server_that_never_flushes_times_out_with_a_hint() {
    let out = promptexec()
        .in_dir(stderr_dir())
        .args(&[
            "-c",
            "stderr.yaml",
            "invoke-tool",
            "unflushed",
            "--args",
            "{}",
        ])
        .run();
    out.expect_code(3);
    out.stderr_has(
        "timed out after 500 ms; nothing was read from its stdout: is it flushing after each line?",
    );
}

/// With stderr a pipe nobody reads, every log line fails to be written. Each failure
/// used to be reported on that same stderr, which panicked and unwound once per line:
/// a `-vv` run of the example's shortest scenario took over 20 s of CPU. Now the lines
/// are dropped and the run ends as it would otherwise.
#[test]
fn a_run_logging_to_a_closed_stderr_still_finishes_promptly() {
    use std::time::{Duration, Instant};

    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let started = Instant::now();
    let mut run = std::process::Command::new(crate::util::binary())
        .current_dir(crate::util::repo_root())
        .args(["-vv", "-c", "runtimeconfig.example.yaml", "run"])
        .args([
            "examples/assistant.pack.json",
            "examples/scenarios/catalogue-cleanup.scenario.yaml",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(writer)
        .spawn()
        .expect("promptexec starts");
    let status = loop {
        if let Some(status) = run.try_wait().expect("promptexec is waited for") {
            break status;
        }
        if started.elapsed() > Duration::from_secs(15) {
            let _ = run.kill();
            let _ = run.wait();
            panic!("still running after 15 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status.code(), Some(0));
}
