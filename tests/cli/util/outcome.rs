//! What one run printed and how it ended, with the expectations tests state on it.

use std::time::Duration;

use serde_json::Value as Json;

/// What one run printed and how it ended.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
    /// The command line, for failure messages.
    pub command: String,
}

impl Outcome {
    /// What a finished promptexec printed, checked for a panic.
    #[track_caller]
    pub(super) fn of(output: std::process::Output, elapsed: Duration, command: String) -> Self {
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
            command,
        }
    }

    /// Exit code and stderr together, the way a snapshot should show them.
    pub fn report(&self) -> String {
        format!("exit: {}\n--- stderr\n{}", self.code, self.stderr)
    }

    #[track_caller]
    pub fn expect_code(&self, code: i32) -> &Self {
        assert_eq!(
            self.code, code,
            "exit code of `{}`\n--- stdout\n{}\n--- stderr\n{}",
            self.command, self.stdout, self.stderr
        );
        self
    }

    #[track_caller]
    pub fn stdout_has(&self, text: &str) -> &Self {
        self.holds("stdout", &self.stdout, text, true)
    }

    #[track_caller]
    pub fn stderr_has(&self, text: &str) -> &Self {
        self.holds("stderr", &self.stderr, text, true)
    }

    #[track_caller]
    pub fn stderr_lacks(&self, text: &str) -> &Self {
        self.holds("stderr", &self.stderr, text, false)
    }

    #[track_caller]
    pub fn stdout_lacks(&self, text: &str) -> &Self {
        self.holds("stdout", &self.stdout, text, false)
    }

    /// Any exit code but `code` (for a failure whose exact code is not the point).
    #[track_caller]
    pub fn expect_code_not(&self, code: i32) -> &Self {
        assert_ne!(
            self.code, code,
            "exit code of `{}`\n--- stdout\n{}\n--- stderr\n{}",
            self.command, self.stdout, self.stderr
        );
        self
    }

    /// Stdout is exactly `text`.
    #[track_caller]
    pub fn stdout_is(&self, text: &str) -> &Self {
        assert_eq!(self.stdout, text, "stdout\n--- stderr\n{}", self.stderr);
        self
    }

    /// Nothing on stdout.
    #[track_caller]
    pub fn stdout_empty(&self) -> &Self {
        self.stdout_is("")
    }

    /// Stdout as JSON lines, one document a line.
    #[track_caller]
    pub fn json_lines(&self) -> Vec<Json> {
        self.stdout
            .lines()
            .map(|line| {
                serde_json::from_str(line).unwrap_or_else(|e| {
                    panic!("a JSON document a line ({e}): {line}\n{}", self.report())
                })
            })
            .collect()
    }

    /// Checks that `stream` (called `name`) holds `text`, or does not when `wanted` is
    /// false.
    #[track_caller]
    fn holds(&self, name: &str, stream: &str, text: &str, wanted: bool) -> &Self {
        let verb = if wanted { "lacks" } else { "has" };
        assert!(
            stream.contains(text) == wanted,
            "{name} of `{}` {verb} {text:?}:\n{stream}",
            self.command
        );
        self
    }

    /// Stdout as one JSON report document, shown with the exit code on failure.
    #[track_caller]
    pub fn json_report(&self) -> Json {
        serde_json::from_str(&self.stdout).unwrap_or_else(|err| {
            panic!(
                "one JSON document on stdout ({err}):\n{}\n{}",
                self.stdout,
                self.report()
            )
        })
    }

    /// Stdout as one JSON document.
    #[track_caller]
    pub fn json(&self) -> Json {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}):\n{}\n--- stderr\n{}",
                self.stdout, self.stderr
            )
        })
    }
}
