//! Process groups: every child leads its own, and kills target the whole group.

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

/// Owns one child's process group and kills it when dropped, so no path out of a
/// call (error, cancellation, panic) can leave the group running.
pub struct GroupGuard {
    pgid: i32,
}

/// Sends `signal` to process group `pgid`; a group that is already gone is fine.
pub fn signal_group(pgid: i32, signal: Signal) {
    let _ = killpg(Pid::from_raw(pgid), signal);
}

impl GroupGuard {
    pub fn new(pgid: i32) -> Self {
        Self { pgid }
    }

    pub fn signal(&self, signal: Signal) {
        signal_group(self.pgid, signal);
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.signal(Signal::SIGKILL);
    }
}
