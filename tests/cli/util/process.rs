//! Probes of processes promptexec started: alive, gone, and the pids fixtures write.

use std::path::Path;
use std::time::{Duration, Instant};

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
    gone_within(pid, Duration::from_secs(5))
}

/// As [`gone`], waiting at most `limit`.
pub fn gone_within(pid: i32, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
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

/// Waits, boundedly, until `ready` holds.
pub fn wait_for(what: &str, ready: impl Fn() -> bool) {
    let started = Instant::now();
    while !ready() {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{what} never happened"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
