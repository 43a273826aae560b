//! The children promptexec spawned itself (tokio owns and reaps them) and the id each
//! spawn marks its process tree with. Sweeps must never touch these leaders: reaping
//! one would take its exit status from the call waiting for it.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use nix::sys::wait::{Id, WaitPidFlag, waitid};
use nix::unistd::Pid;

/// The variable every spawned process gets; its descendants inherit it.
pub const SPAWN_ID_VAR: &str = "PROMPTEXEC_SPAWN_ID";

/// Held for reading from just before a spawn until its leader is registered, and for
/// writing while a sweep lists children: spawns do not wait for each other, and a
/// sweep never sees a leader that is started but not yet registered.
static GATE: RwLock<()> = RwLock::new(());
/// Live leaders, by pid.
static LEADERS: Mutex<Option<HashSet<i32>>> = Mutex::new(None);
static NEXT_SERIAL: AtomicU64 = AtomicU64::new(1);

/// One spawn's mark: a serial unique in this promptexec, and the text of its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SpawnId {
    pub serial: u64,
    pub text: String,
}

impl SpawnId {
    /// The next id: `<promptexec's pid>.<serial>`.
    pub(super) fn next() -> Self {
        let serial = NEXT_SERIAL.fetch_add(1, Ordering::Relaxed);
        Self {
            serial,
            text: format!("{}.{serial}", std::process::id()),
        }
    }
}

/// Held while one spawn is under way; [`Spawning::register`] records its leader.
pub(super) struct Spawning {
    _gate: RwLockReadGuard<'static, ()>,
}

/// Call before starting a process whose leader is then registered.
pub(super) fn spawning() -> Spawning {
    Spawning {
        _gate: GATE.read().unwrap_or_else(PoisonError::into_inner),
    }
}

impl Spawning {
    pub(super) fn register(self, pid: i32) {
        leaders().get_or_insert_with(HashSet::new).insert(pid);
    }
}

/// Held while a sweep decides which children are leaders.
pub(super) struct Listing {
    _gate: RwLockWriteGuard<'static, ()>,
}

/// Stops spawns from starting until the returned listing is dropped.
pub(super) fn listing() -> Listing {
    Listing {
        _gate: GATE.write().unwrap_or_else(PoisonError::into_inner),
    }
}

impl Listing {
    /// Forgets leaders that are no longer promptexec's children (tokio has reaped
    /// them), then says which of `children` are live leaders.
    pub(super) fn leaders_among(&self, children: &[i32]) -> Vec<bool> {
        let mut leaders = leaders();
        let set = leaders.get_or_insert_with(HashSet::new);
        set.retain(|pid| still_our_child(*pid));
        children.iter().map(|pid| set.contains(pid)).collect()
    }
}

fn leaders() -> MutexGuard<'static, Option<HashSet<i32>>> {
    LEADERS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Whether `pid` is still a child of promptexec, running or exited but not reaped.
/// Looks without reaping.
fn still_our_child(pid: i32) -> bool {
    let flags = WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG | WaitPidFlag::WNOWAIT;
    waitid(Id::Pid(Pid::from_raw(pid)), flags).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spawn_ids_are_unique_and_name_this_process() {
        let (a, b) = (SpawnId::next(), SpawnId::next());
        assert_ne!(a.serial, b.serial);
        let prefix = format!("{}.", std::process::id());
        assert!(a.text.starts_with(&prefix), "{}", a.text);
        assert_eq!(b.text, format!("{prefix}{}", b.serial));
    }

    #[test]
    fn a_reaped_leader_is_forgotten_and_a_live_one_kept() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("sleep starts");
        let pid = child.id() as i32;
        spawning().register(pid);
        let while_running = listing().leaders_among(&[pid, -5]);
        child.kill().expect("kill");
        child.wait().expect("reaped");
        assert_eq!(while_running, [true, false]);
        assert_eq!(listing().leaders_among(&[pid]), [false]);
    }
}
