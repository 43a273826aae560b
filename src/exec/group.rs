//! Process groups: every child leads its own, and kills target the whole group.

use std::future::Future;
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

use super::leftovers::{Leftover, leftovers};
use super::reaper::sweep_spawn;

/// Owns one child's process group and kills it when dropped, so no path out of a
/// call (error, cancellation, panic) can leave the group running. Orphans that left
/// the group but carry the spawn's id are killed then too.
pub(crate) struct GroupGuard {
    pgid: i32,
    spawn_id: String,
}

/// Sends `signal` to process group `pgid`; a group that is already gone is fine.
pub(crate) fn signal_group(pgid: i32, signal: Signal) {
    let _ = killpg(Pid::from_raw(pgid), signal);
}

impl GroupGuard {
    /// The guard of the group `pgid` whose processes carry `spawn_id`.
    pub(crate) fn new(pgid: i32, spawn_id: String) -> Self {
        Self { pgid, spawn_id }
    }

    pub(crate) fn signal(&self, signal: Signal) {
        signal_group(self.pgid, signal);
    }

    /// Once the leader has exited: the processes still running in its group or
    /// carrying its spawn id, given up to `settle` to exit on their own. Kills
    /// nothing; dropping the guard does.
    pub(crate) fn leftovers(
        &self,
        settle: Duration,
    ) -> impl Future<Output = Vec<Leftover>> + use<> {
        leftovers(self.pgid, self.spawn_id.clone(), settle)
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        self.signal(Signal::SIGKILL);
        sweep_spawn(self.pgid, &self.spawn_id);
    }
}
