//! `invoke-tool` against well-behaved and hostile one-shot tools (RELIABILITY.md rows
//! 1–8, 16, 17, 21 and 25).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value as Json;

use crate::util::{Outcome, example_config, fixtures, gone, pid_in, promptexec, repo_root};

fn tools_dir() -> PathBuf {
    fixtures().join("tools")
}

#[track_caller]
fn invoke(tool: &str, extra: &[&str], env: &[(&str, &str)]) -> Outcome {
    promptexec()
        .in_dir(tools_dir())
        .args([
            "-c",
            "hostile.yaml",
            "invoke-tool",
            tool,
            "--format",
            "json",
        ])
        .args(extra)
        .envs(env)
        .run()
}

#[track_caller]
fn envelope(out: &Outcome) -> Json {
    serde_json::from_str(&out.stdout)
        .unwrap_or_else(|err| panic!("envelope is JSON ({err}):\n{}", out.stdout))
}

#[track_caller]
fn assert_failed(out: &Outcome, status: &str, message: &str) {
    assert_eq!(out.code, 3, "an extension failure exits 3:\n{}", out.stderr);
    let env = envelope(out);
    assert_eq!(env["status"], status, "{env}");
    let error = env["error"].as_str().unwrap_or_default();
    assert!(
        error.contains(message),
        "error `{error}` should contain `{message}`"
    );
    assert!(
        out.stderr.contains(message),
        "stderr explains it:\n{}",
        out.stderr
    );
}

fn temp_file(dir: &Path, name: &str) -> String {
    dir.join(name).display().to_string()
}

#[test]
fn row1_a_child_ignoring_sigterm_is_killed_after_the_grace_period() {
    let dir = tempfile::tempdir().expect("temp dir");
    let pidfile = temp_file(dir.path(), "pid");
    let out = invoke("ignore_term", &[], &[("PIDFILE", &pidfile)]);
    assert_failed(&out, "timeout", "timed out after");
    // Deadline 1 s + grace 2 s + margin.
    assert!(
        out.elapsed < Duration::from_millis(1000 + 2000 + 1500),
        "took {:?}",
        out.elapsed
    );
    assert!(
        out.elapsed >= Duration::from_millis(2000),
        "the grace period was honoured: {:?}",
        out.elapsed
    );
    assert!(gone(pid_in(Path::new(&pidfile))), "the tool is dead");
}

#[test]
fn row2_a_grandchild_holding_stdout_does_not_hold_the_call() {
    let dir = tempfile::tempdir().expect("temp dir");
    let pidfile = temp_file(dir.path(), "pid");
    let out = invoke("grandchild", &[], &[("PIDFILE", &pidfile)]);
    out.expect_code(0);
    assert_eq!(envelope(&out)["result"], "answered early");
    assert!(
        out.elapsed < Duration::from_secs(5),
        "returned promptly: {:?}",
        out.elapsed
    );
    assert!(
        gone(pid_in(Path::new(&pidfile))),
        "the grandchild was killed with the group"
    );
}

#[test]
fn row3_a_child_that_never_reads_a_10_mib_request_does_not_deadlock() {
    let dir = tempfile::tempdir().expect("temp dir");
    let args = dir.path().join("args.json");
    let big = "x".repeat(10 * 1024 * 1024);
    std::fs::write(&args, serde_json::json!({ "text": big }).to_string()).expect("write args");
    let arg = format!("@{}", args.display());
    let out = invoke("no_read", &["--args", &arg], &[]);
    out.expect_code(0);
    assert_eq!(envelope(&out)["result"], "did not read");
}

#[test]
fn row4_stdin_is_closed_after_the_request() {
    let out = invoke("read_all", &["--args", r#"{"text": "hello"}"#], &[]);
    out.expect_code(0);
    let env = envelope(&out);
    assert_eq!(env["result"]["text_len"], 5);
    assert_eq!(env["result"]["bytes"], r#"{"args":{"text":"hello"}}"#.len());
}

#[test]
fn row5_output_over_the_cap_stops_with_a_clear_error() {
    let out = invoke("flood", &[], &[]);
    assert_failed(&out, "failed", "more than 1048576 bytes to stdout");
    assert!(
        out.elapsed < Duration::from_secs(10),
        "stopped early: {:?}",
        out.elapsed
    );
}

#[test]
fn row6_invalid_output_is_reported_with_its_position() {
    let cases = [
        ("invalid_utf8", "invalid UTF-8 at byte 15"),
        ("two_docs", "more output after the JSON value at byte 14"),
        ("log_first", "at byte 0"),
    ];
    for (tool, message) in cases {
        let out = invoke(tool, &[], &[]);
        assert_failed(&out, "failed", message);
    }
}

#[test]
fn an_answer_with_a_number_out_of_range_is_invalid_output() {
    let out = invoke("huge_number", &[], &[]);
    assert_failed(&out, "failed", "number out of range");
}

#[test]
fn row7_empty_stdout_is_invalid_output_for_a_tool() {
    let out = invoke("empty", &[], &[]);
    assert_failed(&out, "failed", "empty output");
}

#[test]
fn row8_non_zero_exit_fails_whatever_stdout_says() {
    let out = invoke("fails_with_json", &[], &[]);
    assert_failed(&out, "failed", "exited with status 7");
    let env = envelope(&out);
    assert_eq!(env["exit_code"], 7);
    assert_eq!(env["result"], Json::Null);
    assert!(
        env["stderr_tail"]
            .as_str()
            .unwrap_or_default()
            .contains("database is locked")
    );
    out.stderr_has("database is locked");
}

#[test]
fn row16_commands_that_cannot_start_are_named() {
    let out = invoke("not_found", &[], &[]);
    assert_failed(
        &out,
        "failed",
        "command `no-such-command-anywhere` not found in PATH",
    );
    let out = invoke("not_executable", &[], &[]);
    assert_failed(&out, "failed", "not_executable.sh` is not executable");
    let out = invoke("bare_python", &[], &[("PATH", "")]);
    assert_failed(&out, "failed", "command `python3` not found: PATH is empty");
}

#[test]
fn row17_only_listed_variables_reach_the_child() {
    let out = invoke(
        "env_dump",
        &[],
        &[
            ("LISTED_SECRET", "shared on purpose"),
            ("UNLISTED_SECRET", "must not leak"),
        ],
    );
    out.expect_code(0);
    let env = &envelope(&out)["result"];
    // Its name looks secret, so the value the child printed is masked as a whole:
    // it arrived exactly as set.
    assert_eq!(env["LISTED_SECRET"], "***");
    assert_eq!(
        env.get("UNLISTED_SECRET"),
        None,
        "unlisted variables stay out: {env}"
    );
    assert_eq!(env.get("NOT_SET_ANYWHERE"), None);
    assert_eq!(env["PROMPTEXEC_KIND"], "tool");
    assert_eq!(env["PROMPTEXEC_NAME"], "env_dump");
    // Nothing else of the host's environment reaches it.
    let allowed = [
        "PATH",
        "HOME",
        "LANG",
        "LC_ALL",
        "TZ",
        "TMPDIR",
        "LISTED_SECRET",
    ];
    for (name, value) in env.as_object().expect("object") {
        let from_host = std::env::var(name).is_ok_and(|v| *value == v);
        assert!(
            !from_host || allowed.contains(&name.as_str()),
            "host variable `{name}` reached the child"
        );
    }
}

#[test]
fn row21_arguments_breaking_the_schema_start_no_process() {
    let dir = tempfile::tempdir().expect("temp dir");
    let marker = temp_file(dir.path(), "ran");
    let out = invoke(
        "marker",
        &[
            "--pack",
            "hostile.pack.json",
            "--args",
            r#"{"order": {"id": "B-7"}}"#,
        ],
        &[("MARKER", &marker)],
    );
    out.expect_code(2);
    assert!(
        out.stderr.contains("/order/id"),
        "names the pointer:\n{}",
        out.stderr
    );
    assert!(!Path::new(&marker).exists(), "the tool did not run");

    let out = invoke(
        "marker",
        &[
            "--pack",
            "hostile.pack.json",
            "--args",
            r#"{"order": {"id": "A-7"}}"#,
        ],
        &[("MARKER", &marker)],
    );
    out.expect_code(0);
    assert!(Path::new(&marker).exists(), "valid arguments run the tool");
}

#[test]
fn row25_a_1_mib_argument_goes_through_stdin_not_argv() {
    let dir = tempfile::tempdir().expect("temp dir");
    let args = dir.path().join("args.json");
    std::fs::write(
        &args,
        serde_json::json!({ "text": "y".repeat(1024 * 1024) }).to_string(),
    )
    .expect("write");
    let arg = format!("@{}", args.display());
    let out = invoke("read_all", &["--args", &arg], &[]);
    out.expect_code(0);
    let env = envelope(&out);
    assert_eq!(env["result"]["text_len"], 1024 * 1024);
    assert_eq!(env["result"]["argv"], serde_json::json!([]));
}

#[test]
fn tool_errors_exit_1_and_pending_exits_4() {
    let out = example_config()
        .args(&[
            "invoke-tool",
            "lookup_order",
            "--args",
            r#"{"order_id": "A-0000"}"#,
        ])
        .run();
    assert_eq!(out.code, 1);
    assert_eq!(out.stdout, "");
    assert_eq!(
        out.stderr.trim(),
        "tool `lookup_order` answered with an error: no order A-0000"
    );

    let out = invoke("pending", &[], &[]);
    assert_eq!(out.code, 4);
    let env = envelope(&out);
    assert_eq!(env["status"], "pending");
    assert_eq!(env["pending"]["reason"], "requires_approval");
}

#[test]
fn default_output_is_the_result_alone_from_any_directory() {
    let elsewhere = tempfile::tempdir().expect("temp dir");
    let config = repo_root().join("runtimeconfig.example.yaml");
    let config = config.display().to_string();
    let out = promptexec()
        .in_dir(elsewhere.path())
        .args(&[
            "-c",
            &config,
            "invoke-tool",
            "lookup_order",
            "--args",
            r#"{"order_id": "A-1001"}"#,
        ])
        .run();
    out.expect_code(0);
    let result: Json = serde_json::from_str(&out.stdout).expect("the result is JSON");
    assert_eq!(result["status"], "shipped");
    assert_eq!(out.stderr, "");
}

#[test]
fn the_envelope_has_every_documented_field() {
    let out = invoke("read_all", &["--args", "{}"], &[]);
    let env = envelope(&out);
    let keys: Vec<&str> = env
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "tool",
            "mode",
            "status",
            "result",
            "error",
            "pending",
            "exit_code",
            "duration_ms",
            "stderr_tail"
        ]
    );
    assert_eq!(env["mode"], "exec");
    assert_eq!(env["status"], "ok");
}

#[test]
fn unknown_tool_and_bad_arguments_are_usage_errors() {
    let out = invoke("flod", &[], &[]);
    assert_eq!(out.code, 2);
    out.stderr_has("did you mean `flood`?");
    let out = invoke("read_all", &["--args", "[1, 2]"], &[]);
    assert_eq!(out.code, 2);
    out.stderr_has("must be a JSON object, found an array");
    let out = invoke("read_all", &["--args", "{oops"], &[]);
    assert_eq!(out.code, 2);
    out.stderr_has("not valid JSON");
}

#[test]
fn timeout_flag_overrides_the_config() {
    let dir = tempfile::tempdir().expect("temp dir");
    let pidfile = temp_file(dir.path(), "pid");
    let out = invoke(
        "grandchild",
        &["--timeout-ms", "5000"],
        &[("PIDFILE", &pidfile)],
    );
    out.expect_code(0);
}

#[test]
fn an_interrupt_stops_the_child_and_exits_130() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;

    let dir = tempfile::tempdir().expect("temp dir");
    let pidfile = dir.path().join("pid");
    let mut child = promptexec()
        .in_dir(tools_dir())
        .env("PIDFILE", &pidfile)
        .args(["-c", "hostile.yaml", "invoke-tool", "ignore_term_slow"])
        .discard_output()
        .spawn();
    // The tool writes its pid once it runs; wait for that, boundedly.
    let started = std::time::Instant::now();
    while std::fs::read_to_string(&pidfile).map_or(true, |t| t.trim().is_empty()) {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the tool never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let tool_pid = pid_in(&pidfile);
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).expect("send SIGINT");
    let interrupted = std::time::Instant::now();
    let status = child.wait().expect("promptexec exits");
    assert_eq!(status.code(), Some(130));
    assert!(
        interrupted.elapsed() < Duration::from_millis(2000 + 1500),
        "took {:?}",
        interrupted.elapsed()
    );
    assert!(gone(tool_pid), "the tool was terminated");
}
