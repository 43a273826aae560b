//! Observers in a real run: each observer hook hears its events one after another in the
//! order they happened, through one bounded queue, so a slow observer neither holds up
//! the conversation nor piles up processes; what does not fit is dropped and reported.
//!
//! Fixtures: `tests/fixtures/hooks/flow` (pack, mock script, `session_log.yaml` with a
//! session observer that logs each phase; `count.sh`, a tool that counts its calls;
//! `slow_observer.sh`, an observer that falls behind on purpose).

use std::path::{Path, PathBuf};

use crate::util::{fixtures, mock_config_head, promptexec, run_all};

fn flow_dir() -> PathBuf {
    fixtures().join("hooks/flow")
}

#[test]
fn a_session_observer_hears_start_every_update_and_end_in_order() {
    let turns = 30;
    let mut args = vec![
        "-c",
        "session_log.yaml",
        "run",
        "flow.pack.json",
        "--scenario",
        "chat",
    ];
    for _ in 0..turns {
        args.extend(["--message", "hi"]);
    }
    // Two runs, each in its own directory, at the same time: the order must hold in both.
    let temps: Vec<_> = (0..2)
        .map(|_| tempfile::tempdir().expect("temp dir"))
        .collect();
    let runs = temps
        .iter()
        .map(|temp| {
            promptexec()
                .in_dir(flow_dir())
                .args(&args)
                .env("PHASE_LOG", temp.path().join("phases.log"))
                .env("RECORD", temp.path().join("record.jsonl"))
        })
        .collect();
    for (run, (temp, out)) in temps.iter().zip(run_all(runs)).enumerate() {
        let log = temp.path().join("phases.log");
        out.expect_code(0);
        let heard = std::fs::read_to_string(&log).expect("the observer logged");
        let mut expected = vec!["session_start 0".to_string()];
        expected.extend((1..=turns).map(|turn| format!("session_update {turn}")));
        expected.push(format!("session_end {turns}"));
        let heard: Vec<&str> = heard.lines().collect();
        assert_eq!(heard, expected, "run {run}");
    }
}

/// A config, mock script and pack for `calls` tool calls in one turn, with a tool
/// observer that falls behind until every call has been made.
fn many_calls(dir: &Path, calls: usize) -> PathBuf {
    let flow = flow_dir();
    let mut mock = String::from(
        "defaultResponse: \"Done.\"\nscenarios:\n  many:\n    turns:\n      1:\n        content: \"Counting.\"\n        tool_calls:\n",
    );
    for i in 0..calls {
        mock.push_str(&format!(
            "          - name: probe\n            arguments: {{ topic: \"t{i}\" }}\n"
        ));
    }
    mock.push_str("      2: \"Counted.\"\n");
    std::fs::write(dir.join("many.mock.yaml"), mock).expect("mock written");
    let config = format!(
        "{head}  tools:
    probe:
      exec:
        command: {flow}/count.sh
        env: [CALLS]
        timeout_ms: 10000
  hooks:
    laggard:
      command: {flow}/slow_observer.sh
      hook: tool
      phases: [before_execution, after_execution]
      mode: observe
      env: [CALLS, EXPECTED_CALLS]
      timeout_ms: 120000
",
        head = mock_config_head("many.mock.yaml"),
        flow = flow.display()
    );
    let path = dir.join("many.yaml");
    std::fs::write(&path, config).expect("config written");
    path
}

#[test]
fn three_hundred_calls_with_a_slow_observer_all_succeed_under_a_low_open_files_limit() {
    let calls = 300;
    let temp = tempfile::tempdir().expect("temp dir");
    let config = many_calls(temp.path(), calls);
    let pack = flow_dir().join("flow.pack.json");
    let counter = temp.path().join("calls.log");
    let out = promptexec()
        .in_dir(temp.path())
        .args(&[
            "-c",
            &config.display().to_string(),
            "run",
            &pack.display().to_string(),
            "--scenario",
            "many",
            "--message",
            "count",
            "--format",
            "json",
        ])
        .env("CALLS", &counter)
        .env("EXPECTED_CALLS", calls.to_string())
        .after_shell("ulimit -n 256")
        .run();
    out.expect_code(0);
    out.stderr_lacks("Too many open files");
    let report = out.json_report();
    let tool_calls = report["tool_calls"].as_array().expect("tool_calls");
    assert_eq!(tool_calls.len(), calls);
    assert!(
        tool_calls.iter().all(|c| c["status"] == "ok"),
        "every call ok: {:?}",
        tool_calls.iter().find(|c| c["status"] != "ok")
    );
    let counted = std::fs::read_to_string(&counter).expect("the tool counted");
    assert_eq!(counted.lines().count(), calls);
    assert!(
        temp.path().join("calls.log.waited").exists(),
        "the calls went on while the observer was busy with the first event"
    );
    // The observer sat on its first event until all 300 calls were made, so of the 600
    // events at most the queue's 256 (and the one it was hearing) got through, and one
    // more: the last call's closing event, when it is sent after the observer took
    // its next event off the queue.
    let dropped = report["totals"]["dropped_events"]
        .as_u64()
        .expect("dropped_events");
    assert!(dropped >= 600 - 258, "dropped {dropped}");
    out.stderr_has(&format!(
        "observer `laggard` fell behind: {dropped} event(s) dropped"
    ));
}

#[test]
fn at_the_end_a_hanging_observer_loses_the_rest_of_its_queue_at_its_first_missed_deadline() {
    let temp = tempfile::tempdir().expect("temp dir");
    let flow = flow_dir();
    let config = temp.path().join("hanging.yaml");
    std::fs::write(
        &config,
        format!(
            "{head}  hooks:
    stuck:
      command: sh
      args: [-c, 'cat > /dev/null; exec sleep 30']
      hook: session
      phases: [session_start, session_update, session_end]
      timeout_ms: 1000
",
            head = mock_config_head(format!("{}/flow.mock.yaml", flow.display())),
        ),
    )
    .expect("config written");
    let config = config.display().to_string();
    let pack = flow.join("flow.pack.json").display().to_string();
    let mut args = vec![
        "-c",
        &config,
        "run",
        &pack,
        "--scenario",
        "chat",
        "--format",
        "json",
    ];
    for _ in 0..30 {
        args.extend(["--message", "hi"]);
    }
    let out = promptexec().in_dir(temp.path()).args(&args).run();
    // Its timeouts fail the run.
    out.expect_code(3);
    let report = out.json_report();
    assert_eq!(
        report["extension_failures"][0]["name"], "stuck",
        "{}",
        out.stderr
    );
    // 32 events, each call ending at its 1 s deadline, far more than the turns take: had
    // the end of the run waited for every queued one, none would be dropped.
    let dropped = report["totals"]["dropped_events"]
        .as_u64()
        .expect("dropped_events");
    assert!(dropped > 0, "{}", out.stderr);
    out.stderr_has(&format!(
        "observer `stuck` fell behind: {dropped} event(s) dropped"
    ));
}
