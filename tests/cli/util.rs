use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use assert_cmd::Command;

/// The fixtures directory; tests run inside it so paths in messages stay short.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// What one run printed and how it ended.
#[derive(Debug)]
pub struct Outcome {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

impl Outcome {
    /// Exit code and stderr together, the way a snapshot should show them.
    pub fn report(&self) -> String {
        format!("exit: {}\n--- stderr\n{}", self.code, self.stderr)
    }
}

/// Runs promptexec with `args` in `dir`, isolated from the caller's environment.
#[track_caller]
pub fn run_in(dir: &Path, args: &[&str]) -> Outcome {
    run_env(dir, args, &[])
}

/// Like [`run_in`], with extra environment variables for promptexec.
#[track_caller]
pub fn run_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Outcome {
    let mut command = Command::cargo_bin("promptexec").expect("the promptexec binary is built");
    command
        .current_dir(dir)
        .env_remove("PROMPTEXEC_CONFIG")
        .env_remove("RUST_LOG")
        .env("NO_COLOR", "1")
        .args(args);
    for (name, value) in env {
        command.env(name, value);
    }
    let started = Instant::now();
    let output = command.output().expect("promptexec runs");
    let elapsed = started.elapsed();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        !stderr.contains("panicked"),
        "promptexec panicked:\n{stderr}"
    );
    Outcome {
        code: output.status.code().expect("exited, not killed"),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr,
        elapsed,
    }
}

/// Whether process `pid` still runs (a zombie waiting to be reaped does not count).
pub fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z') && !rest.starts_with('X')),
        Err(_) => false,
    }
}

/// Whether process `pid` is gone, or goes within a few seconds: a signal that
/// promptexec sent to a process that is not its child is delivered asynchronously,
/// and nothing lets a test wait on a process that is not its own child. A process
/// that promptexec leaked outlives the wait and fails the test.
pub fn gone(pid: i32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while alive(pid) {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    true
}

/// The pid a fixture wrote to `path`.
#[track_caller]
pub fn pid_in(path: &Path) -> i32 {
    let text = std::fs::read_to_string(path).expect("the fixture wrote its pid");
    text.trim().parse().expect("a pid")
}

/// Runs promptexec in the fixtures directory.
#[track_caller]
pub fn run(args: &[&str]) -> Outcome {
    run_in(&fixtures(), args)
}
