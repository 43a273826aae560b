//! promptexec as a child subreaper: a descendant of an extension that detaches (with
//! `setsid`, or by forking twice) is reparented to promptexec instead of to init, so
//! it can be found and killed when its call ends, and at the latest when promptexec
//! exits.
//!
//! A sweep reads promptexec's children, leaves the leaders tokio owns alone, kills
//! the ones that carry the ending spawn's id (with their group, when they lead one)
//! and reaps them, and reaps any other child that has already exited.

use std::sync::Mutex;
use std::sync::PoisonError;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill, killpg};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;

use super::procfs::{self, Mark};
use super::registry::{SPAWN_ID_VAR, listing};

/// Set once promptexec is a subreaper: only then are the children a sweep finds
/// anything but the leaders promptexec spawned, and only then may it reap them.
static SUBREAPER: AtomicBool = AtomicBool::new(false);
/// One sweep at a time, so that no two reap the same child.
static SWEEP: Mutex<()> = Mutex::new(());
/// How long a sweep waits for a killed process to become reapable. SIGKILL takes
/// effect at once unless the process is stuck in the kernel; a later sweep reaps it.
const REAP_WAIT: Duration = Duration::from_millis(100);
/// How long a sweep waits before it looks again at a child whose environment could
/// not be read: an `exec` finishes within it unless the machine is very busy.
const UNREAD_WAIT: Duration = Duration::from_millis(2);
/// Rounds of a sweep: killing an orphan reparents its own detached children to
/// promptexec, which the next round finds.
const MAX_ROUNDS: usize = 8;

/// Makes promptexec the reaper of its descendants' orphans. Linux only; elsewhere
/// orphans go to init as before.
pub fn become_subreaper() {
    #[cfg(target_os = "linux")]
    match nix::sys::prctl::set_child_subreaper(true) {
        Ok(()) => SUBREAPER.store(true, Ordering::Release),
        Err(err) => tracing::debug!("cannot become a child subreaper: {err}"),
    }
}

fn enabled() -> bool {
    SUBREAPER.load(Ordering::Acquire)
}

/// After a call or server ended: kills and reaps the orphans marked with its spawn
/// id, and reaps children that exited on their own.
pub fn sweep_spawn(spawn_id: &str) {
    if enabled() {
        sweep(|pid| procfs::mark(pid, SPAWN_ID_VAR, spawn_id));
    }
}

/// At exit, once no call is running: kills and reaps every child left, marked or
/// not, so nothing promptexec started outlives it.
pub fn kill_remaining_children() {
    if enabled() {
        sweep(|_| Mark::Carries);
    }
}

/// Kills the live children that are not leaders and that `doomed` marks, then reaps
/// them; reaps dead children that are not leaders. A child whose mark cannot be read
/// yet (in the middle of an `exec`) is looked at again in the next round.
fn sweep(doomed: impl Fn(i32) -> Mark) {
    let _one = SWEEP.lock().unwrap_or_else(PoisonError::into_inner);
    for _ in 0..MAX_ROUNDS {
        let orphans = {
            let listing = listing();
            let children = procfs::own_children();
            let leaders = listing.leaders_among(&children);
            children
                .into_iter()
                .zip(leaders)
                .filter_map(|(pid, leader)| (!leader).then_some(pid))
                .collect::<Vec<_>>()
        };
        let mut killed = Vec::new();
        let mut unsure = false;
        for pid in orphans {
            let Some(stat) = procfs::stat(pid) else {
                continue;
            };
            if stat.is_dead() {
                reap_within(pid, Duration::ZERO);
                continue;
            }
            match doomed(pid) {
                Mark::Carries => {
                    kill_tree(pid, stat.pgid == pid);
                    killed.push(pid);
                }
                Mark::Unread => unsure = true,
                Mark::Lacks => {}
            }
        }
        if killed.is_empty() && !unsure {
            return;
        }
        for pid in killed {
            reap_within(pid, REAP_WAIT);
        }
        if unsure {
            std::thread::sleep(UNREAD_WAIT);
        }
    }
}

/// SIGKILL to `pid`, and to its group when it leads one.
fn kill_tree(pid: i32, leads_group: bool) {
    let pid = Pid::from_raw(pid);
    if leads_group {
        let _ = killpg(pid, Signal::SIGKILL);
    }
    let _ = kill(pid, Signal::SIGKILL);
}

/// Reaps child `pid` once it has exited, polling for at most `limit`.
fn reap_within(pid: i32, limit: Duration) {
    let started = Instant::now();
    loop {
        match waitpid(Pid::from_raw(pid), Some(WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::StillAlive) if started.elapsed() < limit => {
                std::thread::sleep(Duration::from_micros(200));
            }
            _ => return,
        }
    }
}
