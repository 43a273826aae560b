//! Interrupts and the end of a run: ten quick tool calls leave twenty events queued for
//! an observer that takes seconds over each. SIGTERM while that queue drains ends the
//! run at once with exit 130, the report and no child left; left alone, the drain gets
//! the observer's deadline in all, and what it could not hear is dropped, counted and
//! reported.
//!
//! Fixtures: `tests/fixtures/interrupts` (pack and mock script for ten `tick` calls in
//! one answer; `tick.sh`; `slow_observer.py`, which logs `start PID` and `done PID`
//! around each event it hears).

use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value as Json;

use crate::util::{finish, fixtures, gone, mock_config_head, promptexec, wait_for};

/// Two events (before and after) for each of the ten calls.
const EVENTS: u64 = 20;

fn interrupts_dir() -> PathBuf {
    fixtures().join("interrupts")
}

/// A config in `dir` whose tool observer has a deadline of `timeout_ms`.
fn config(dir: &Path, timeout_ms: u64) -> PathBuf {
    let fixtures = interrupts_dir();
    let text = format!(
        "{head}  tools:
    tick:
      exec:
        command: {fixtures}/tick.sh
        timeout_ms: 5000
  hooks:
    slow:
      command: {fixtures}/slow_observer.py
      hook: tool
      phases: [before_execution, after_execution]
      mode: observe
      env: [OBSERVER_LOG, OBSERVER_SECONDS]
      timeout_ms: {timeout_ms}
",
        head = mock_config_head(format!("{}/slow.mock.yaml", fixtures.display())),
        fixtures = fixtures.display(),
    );
    let path = dir.join("slow.yaml");
    std::fs::write(&path, text).expect("config written");
    path
}

/// Starts the run with a JSON report on stdout and the transcript in `dir`.
fn start(dir: &Path, timeout_ms: u64, seconds: &str) -> Child {
    let config = config(dir, timeout_ms);
    promptexec()
        .in_dir(dir)
        .env("OBSERVER_LOG", dir.join("observer.log"))
        .env("OBSERVER_SECONDS", seconds)
        .arg("-c")
        .arg(&config)
        .arg("run")
        .arg(interrupts_dir().join("slow.pack.json"))
        .args(["--scenario", "ten", "--message", "tick ten times"])
        .args(["--format", "json", "--transcript"])
        .arg(dir.join("run.jsonl"))
        .spawn()
}

/// Whether the conversation is over (its last event is written), so what remains is
/// the end of the run: the observer's drain.
fn conversation_over(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("run.jsonl"))
        .is_ok_and(|t| t.contains(r#""event":"session_end""#))
}

/// The observer's log: the pids it started with, and how many events it heard whole.
fn observer_log(dir: &Path) -> (Vec<i32>, u64) {
    let text = std::fs::read_to_string(dir.join("observer.log")).unwrap_or_default();
    let mut pids = Vec::new();
    let mut done = 0;
    for line in text.lines() {
        match line.split_once(' ') {
            Some(("start", pid)) => pids.push(pid.parse().expect("a pid")),
            Some(("done", _)) => done += 1,
            _ => panic!("unexpected line {line:?}"),
        }
    }
    (pids, done)
}

fn dropped(report: &Json) -> u64 {
    report["totals"]["dropped_events"]
        .as_u64()
        .expect("dropped_events")
}

/// One test per signal that ends a run.
mod row36_a_signal_while_a_slow_observer_drains_exits_130_at_once_with_the_report {
    use nix::sys::signal::Signal;

    #[test]
    fn sigterm() {
        super::interrupt_the_drain(Signal::SIGTERM);
    }

    #[test]
    fn sigint() {
        super::interrupt_the_drain(Signal::SIGINT);
    }

    #[test]
    fn sighup() {
        super::interrupt_the_drain(Signal::SIGHUP);
    }
}

fn interrupt_the_drain(signal: Signal) {
    let temp = tempfile::tempdir().expect("temp dir");
    // 8 s an event and a minute's deadline: undisturbed, the drain would take minutes.
    let run = start(temp.path(), 60_000, "8");
    wait_for("the conversation ending with the observer busy", || {
        conversation_over(temp.path()) && !observer_log(temp.path()).0.is_empty()
    });
    kill(Pid::from_raw(run.id() as i32), signal).expect("send the signal");
    let out = finish(run);
    out.expect_code(130);
    assert!(
        out.elapsed < Duration::from_secs(3),
        "{signal}: took {:?}",
        out.elapsed
    );
    let (pids, done) = observer_log(temp.path());
    let survivors: Vec<i32> = pids.into_iter().filter(|pid| !gone(*pid)).collect();
    assert!(
        survivors.is_empty(),
        "{signal}: still running: {survivors:?}"
    );
    let report = out.json();
    assert_eq!(report["exit_code"], 130, "{signal}: {report:#}");
    assert_eq!(
        report["tool_calls"].as_array().map(Vec::len),
        Some(10),
        "{signal}: the calls made are in it"
    );
    let dropped = dropped(&report);
    assert_eq!(
        dropped,
        EVENTS - done,
        "{signal}: every event not heard whole is counted"
    );
    out.stderr_has(&format!(
        "observer `slow` fell behind: {dropped} event(s) dropped (left waiting when the run was interrupted)"
    ));
}

#[test]
fn row37_the_end_of_run_drain_gets_the_observer_deadline_in_all_and_reports_what_it_dropped() {
    let temp = tempfile::tempdir().expect("temp dir");
    // Each event takes 1 s, well within the 2.5 s deadline, so no call fails; the
    // queue of twenty would take twenty seconds.
    let run = start(temp.path(), 2500, "1");
    let watched = std::thread::spawn({
        let dir = temp.path().to_path_buf();
        move || {
            wait_for("the conversation ending", || conversation_over(&dir));
            Instant::now()
        }
    });
    let out = finish(run);
    let ended = Instant::now();
    let drain_began = watched.join().expect("the watch ends");
    out.expect_code(0);
    let drain = ended.duration_since(drain_began);
    // The deadline, plus the stop of the event under way and a loaded machine's margin.
    assert!(
        drain < Duration::from_millis(2500 + 1500),
        "drained for {drain:?}"
    );
    let report = out.json();
    let (_, done) = observer_log(temp.path());
    let dropped = dropped(&report);
    assert!(dropped > 0 && done > 0, "heard {done}, dropped {dropped}");
    assert_eq!(
        dropped,
        EVENTS - done,
        "every event not heard whole is counted"
    );
    out.stderr_has(&format!(
        "observer `slow` fell behind: {dropped} event(s) dropped (left waiting when its 2500 ms at the end of the run ran out)"
    ));
}

#[test]
fn a_signal_while_a_suite_scenario_drains_keeps_the_suite_report_and_starts_no_other() {
    let temp = tempfile::tempdir().expect("temp dir");
    let config = config(temp.path(), 60_000);
    // `ten` plays the mock's ten calls; `zz-ten`, after it with one worker, must never start.
    let scenarios: Vec<PathBuf> = ["ten", "zz-ten"]
        .iter()
        .map(|id| {
            let path = temp.path().join(format!("{id}.scenario.yaml"));
            let text = format!(
                "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Scenario\nmetadata:\n  name: {id}\nspec:\n  task_type: desk\n  description: ten ticks\n  turns:\n    - role: user\n      content: tick ten times\n"
            );
            std::fs::write(&path, text).expect("scenario written");
            path
        })
        .collect();
    let transcripts = temp.path().join("transcripts");
    let report = temp.path().join("report.json");
    let run = promptexec()
        .in_dir(temp.path())
        .env("OBSERVER_LOG", temp.path().join("observer.log"))
        .env("OBSERVER_SECONDS", "8")
        .arg("-c")
        .arg(&config)
        .arg("run")
        .arg(interrupts_dir().join("slow.pack.json"))
        .args(["-j", "1"])
        .args(&scenarios)
        .args(["--format", "json", "--output"])
        .arg(&report)
        .arg("--transcript")
        .arg(&transcripts)
        .spawn();
    wait_for("the first scenario's conversation ending", || {
        std::fs::read_to_string(transcripts.join("ten.jsonl"))
            .is_ok_and(|t| t.contains(r#""event":"session_end""#))
            && !observer_log(temp.path()).0.is_empty()
    });
    kill(Pid::from_raw(run.id() as i32), Signal::SIGTERM).expect("send SIGTERM");
    let out = finish(run);
    out.expect_code(130);
    assert!(
        out.elapsed < Duration::from_secs(3),
        "took {:?}",
        out.elapsed
    );
    let (pids, _) = observer_log(temp.path());
    let survivors: Vec<i32> = pids.into_iter().filter(|pid| !gone(*pid)).collect();
    assert!(survivors.is_empty(), "still running: {survivors:?}");
    let report: Json =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("the report is written"))
            .expect("one JSON document");
    assert_eq!(report["summary"]["exit_code"], 130, "{report:#}");
    assert_eq!(
        report["summary"]["not_started"],
        serde_json::json!(["zz-ten"])
    );
    assert_eq!(report["scenarios"][0]["id"], "ten", "{report:#}");
}
