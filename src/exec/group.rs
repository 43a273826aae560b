//! Process groups: every child leads its own, and kills target the whole group.

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

/// Owns one child's process group and kills it when dropped, so no path out of a
/// call (error, cancellation, panic) can leave the group running.
pub struct GroupGuard {
    pgid: i32,
}

impl GroupGuard {
    pub fn new(pgid: i32) -> Self {
        Self { pgid }
    }

    pub fn signal(&self, signal: Signal) {
        // ESRCH means the group is already gone, which is what we wanted.
        let _ = killpg(Pid::from_raw(self.pgid), signal);
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.signal(Signal::SIGKILL);
    }
}
