//! Detached descendants: an extension's process that leaves its group (`setsid`, a
//! double fork) is reparented to promptexec and killed when its call ends, or when
//! its server stops, not left running under init.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::util::{Outcome, alive, fixtures, promptexec};

fn reaper_dir() -> PathBuf {
    fixtures().join("reaper")
}

/// The detached `sleep 300` a fixture left, by the pid it wrote; killed when the test
/// ends in case promptexec let it live, so a failing test leaks nothing.
struct Orphan {
    pid: i32,
}

impl Orphan {
    #[track_caller]
    fn written_in(dir: &Path) -> Self {
        let text = std::fs::read_to_string(dir.join("orphan.pid")).expect("the tool wrote a pid");
        Orphan {
            pid: text.trim().parse().expect("a pid"),
        }
    }
}

impl Drop for Orphan {
    fn drop(&mut self) {
        let cmdline = std::fs::read(format!("/proc/{}/cmdline", self.pid)).unwrap_or_default();
        if alive(self.pid) && cmdline == b"sleep\x00300\x00" {
            let _ = std::process::Command::new("kill")
                .args(["-9", &self.pid.to_string()])
                .status();
        }
    }
}

/// `invoke-tool TOOL` with a fresh REAPER_DIR; the outcome and that directory.
fn invoke(tool: &str) -> (Outcome, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = promptexec()
        .in_dir(reaper_dir())
        .args(["-c", "reaper.yaml", "invoke-tool", tool, "--args", "{}"])
        .env("REAPER_DIR", dir.path())
        .timeout(Duration::from_secs(30))
        .run();
    (out, dir)
}

/// A run of the scenario `prompt`: a leaving tool, then the probe; the outcome and
/// the REAPER_DIR the tools wrote to.
fn play(prompt: &str) -> (Outcome, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = promptexec()
        .in_dir(reaper_dir())
        .args(["-c", "reaper.yaml", "run", "reaper.pack.json"])
        .args(["--prompt", prompt, "--message", "go"])
        .env("REAPER_DIR", dir.path())
        .timeout(Duration::from_secs(30))
        .run();
    (out, dir)
}

/// What the probe saw, in the middle of the run.
#[track_caller]
fn probed(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("probe.out"))
        .expect("the probe ran")
        .trim()
        .to_string()
}

#[test]
fn a_setsid_sleep_is_gone_when_invoke_tool_returns() {
    let (out, dir) = invoke("detach");
    let orphan = Orphan::written_in(dir.path());
    out.expect_code(0)
        .stdout_has("left a detached sleep behind");
    assert!(
        !alive(orphan.pid),
        "the detached sleep {} survived",
        orphan.pid
    );
}

#[test]
fn a_double_forked_daemon_is_gone_when_invoke_tool_returns() {
    let (out, dir) = invoke("double_fork");
    let orphan = Orphan::written_in(dir.path());
    out.expect_code(0).stdout_has("daemonized a sleep");
    assert!(!alive(orphan.pid), "the daemon {} survived", orphan.pid);
}

#[test]
fn a_detached_process_that_cleared_its_environment_is_killed_at_exit() {
    let (out, dir) = invoke("detach_clear_env");
    let orphan = Orphan::written_in(dir.path());
    out.expect_code(0);
    assert!(
        !alive(orphan.pid),
        "the detached sleep {} survived",
        orphan.pid
    );
}

#[test]
fn a_detached_process_dies_when_its_call_ends_not_when_promptexec_exits() {
    let (out, dir) = play("one_shot");
    let _orphan = Orphan::written_in(dir.path());
    out.expect_code(0).stderr_has("assistant: Done.");
    assert_eq!(
        probed(dir.path()),
        "dead",
        "the next tool call still saw it"
    );
}

#[test]
fn a_servers_detached_process_dies_when_the_server_ends() {
    let (out, dir) = play("server");
    let _orphan = Orphan::written_in(dir.path());
    out.expect_code(0).stderr_has("assistant: Done.");
    assert_eq!(probed(dir.path()), "dead", "the probe still saw it");
}

#[test]
fn every_process_gets_a_spawn_id_of_promptexecs_pid_and_a_counter() {
    let out = promptexec()
        .in_dir(fixtures().join("tools"))
        .args([
            "-c",
            "hostile.yaml",
            "invoke-tool",
            "env_dump",
            "--format",
            "json",
        ])
        .run();
    out.expect_code(0);
    let env = &out.json()["result"];
    let id = env["PROMPTEXEC_SPAWN_ID"].as_str().expect("a spawn id");
    let (pid, serial) = id.split_once('.').expect("PID.SERIAL");
    assert!(pid.parse::<u32>().is_ok_and(|p| p > 1), "{id}");
    assert!(serial.parse::<u64>().is_ok(), "{id}");
}
