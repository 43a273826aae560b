use std::path::{Path, PathBuf};

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
    let output = Command::cargo_bin("promptexec")
        .expect("the promptexec binary is built")
        .current_dir(dir)
        .env_remove("PROMPTEXEC_CONFIG")
        .env_remove("RUST_LOG")
        .env("NO_COLOR", "1")
        .args(args)
        .output()
        .expect("promptexec runs");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        !stderr.contains("panicked"),
        "promptexec panicked:\n{stderr}"
    );
    Outcome {
        code: output.status.code().expect("exited, not killed"),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr,
    }
}

/// Runs promptexec in the fixtures directory.
#[track_caller]
pub fn run(args: &[&str]) -> Outcome {
    run_in(&fixtures(), args)
}
