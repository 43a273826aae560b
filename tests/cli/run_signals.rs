//! `run` under signals: Ctrl-C stops every child it started and exits 130 (row 18 of
//! the reliability table); SIGKILL leaves a transcript of whole lines.

use std::path::{Path, PathBuf};
use std::process::Child;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::Value as Json;

use crate::util::{alive, fixtures, gone, pid_in, promptexec, wait_for};

fn interrupt_dir() -> PathBuf {
    fixtures().join("interrupt")
}

/// Starts a run that calls a server tool, then blocks on a slow one.
fn start_run(piddir: &Path, extra: &[&str]) -> Child {
    promptexec()
        .in_dir(interrupt_dir())
        .env("PIDDIR", piddir)
        .args(["-c", "interrupt.yaml", "run", "interrupt.pack.json"])
        .args(["--message", "go"])
        .args(extra)
        .discard_output()
        .spawn()
}

/// The pids the fixtures wrote: the slow tool, the server tool, the JSON-RPC hook.
fn fixture_pids(piddir: &Path) -> Vec<i32> {
    ["slow", "server", "hook"]
        .iter()
        .map(|name| pid_in(&piddir.join(name)))
        .collect()
}

fn has_pid(path: &Path) -> bool {
    std::fs::read_to_string(path).is_ok_and(|t| !t.trim().is_empty())
}

#[test]
fn row18_ctrl_c_mid_run_exits_130_and_leaves_no_child_alive() {
    let piddir = tempfile::tempdir().expect("temp dir");
    let run = start_run(piddir.path(), &[]);
    interrupt_once_the_slow_tool_runs(run, piddir.path());
}

/// Sends Ctrl-C once the slow tool runs (the server tool and the JSON-RPC hook with
/// it), then checks promptexec exits 130 in time and leaves none of them behind.
fn interrupt_once_the_slow_tool_runs(mut run: Child, piddir: &Path) {
    wait_for("the slow tool starting", || has_pid(&piddir.join("slow")));
    let pids = fixture_pids(piddir);
    assert!(
        pids.iter().all(|pid| alive(*pid)),
        "all three run: {pids:?}"
    );
    kill(Pid::from_raw(run.id() as i32), Signal::SIGINT).expect("send SIGINT");
    let interrupted = Instant::now();
    let status = run.wait().expect("promptexec exits");
    assert_eq!(status.code(), Some(130));
    // The slow tool ignores SIGTERM: it is killed after the 2 s grace period.
    assert!(
        interrupted.elapsed() < Duration::from_millis(2000 + 2500),
        "took {:?}",
        interrupted.elapsed()
    );
    let survivors: Vec<i32> = pids.into_iter().filter(|pid| !gone(*pid)).collect();
    assert!(survivors.is_empty(), "still running: {survivors:?}");
}

#[test]
fn a_run_killed_midway_leaves_every_finished_transcript_line_and_no_partial_one() {
    let piddir = tempfile::tempdir().expect("temp dir");
    let transcript = piddir.path().join("run.jsonl");
    let path = transcript.display().to_string();
    let mut run = start_run(piddir.path(), &["--transcript", &path]);
    // The transcript says the slow tool was called, and the tool itself runs.
    let slow_running = || {
        has_pid(&piddir.path().join("slow"))
            && std::fs::read_to_string(&transcript).is_ok_and(|t| {
                t.contains(r#""event":"tool_started""#) && t.contains(r#""name":"slow""#)
            })
    };
    wait_for("the slow tool running", slow_running);
    kill(Pid::from_raw(run.id() as i32), Signal::SIGKILL).expect("send SIGKILL");
    run.wait().expect("promptexec is gone");
    // SIGKILL gives promptexec no chance to clean up: end what it left behind.
    for pid in fixture_pids(piddir.path()) {
        let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
    }

    let text = std::fs::read_to_string(&transcript).expect("the transcript survives");
    assert!(text.ends_with('\n'), "no partial last line: {text:?}");
    let events: Vec<Json> = text
        .lines()
        .map(|line| serde_json::from_str(line).expect("every line is whole JSON"))
        .collect();
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap_or_default())
        .collect();
    let seqs: Vec<u64> = events
        .iter()
        .map(|e| e["seq"].as_u64().unwrap_or(0))
        .collect();
    assert_eq!(
        seqs,
        (1..=events.len() as u64).collect::<Vec<_>>(),
        "no line lost"
    );
    assert_eq!(kinds.first(), Some(&"session_start"));
    for kind in [
        "user",
        "model_call",
        "assistant",
        "tool_call",
        "tool_started",
    ] {
        assert!(kinds.contains(&kind), "{kind} missing from {kinds:?}");
    }
    let counter = events
        .iter()
        .find(|e| e["event"] == "tool_call")
        .expect("the server tool's result");
    assert_eq!(
        (&counter["name"], &counter["status"]),
        (&Json::from("counter"), &Json::from("ok"))
    );
}

#[test]
fn ctrl_c_in_a_suite_stops_the_scenario_playing_starts_no_other_and_keeps_the_report() {
    let piddir = tempfile::tempdir().expect("temp dir");
    let scenario = |id: &str| {
        format!(
            "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: Scenario\nmetadata:\n  name: {id}\nspec:\n  task_type: work\n  description: blocks on the slow tool\n  turns:\n    - role: user\n      content: go\n"
        )
    };
    // `work` plays the mock's script and blocks on the slow tool; `zz-work`, after
    // it in id order with one worker, must never start.
    let (first, second) = (
        piddir.path().join("a.scenario.yaml"),
        piddir.path().join("b.scenario.yaml"),
    );
    std::fs::write(&first, scenario("work")).expect("the first scenario");
    std::fs::write(&second, scenario("zz-work")).expect("the second scenario");
    let report = piddir.path().join("report.json");
    let run = promptexec()
        .in_dir(interrupt_dir())
        .env("PIDDIR", piddir.path())
        .args([
            "-c",
            "interrupt.yaml",
            "run",
            "interrupt.pack.json",
            "-j",
            "1",
        ])
        .arg(&first)
        .arg(&second)
        .args(["--format", "json", "--output"])
        .arg(&report)
        .discard_output()
        .spawn();
    interrupt_once_the_slow_tool_runs(run, piddir.path());
    let report: Json =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("the report is written"))
            .expect("one JSON document");
    assert_eq!(report["summary"]["interrupted"], 1, "{report:#}");
    assert_eq!(
        report["summary"]["not_started"],
        serde_json::json!(["zz-work"])
    );
    assert_eq!(report["summary"]["exit_code"], 130);
    assert_eq!(report["scenarios"][0]["problems"][0], "interrupted");
}
