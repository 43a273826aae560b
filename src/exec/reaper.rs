//! promptexec as a child subreaper: a descendant of an extension that detaches (with
//! `setsid`, or by forking twice) is reparented to promptexec instead of to init, so
//! it can be found and killed when its call ends, and at the latest when promptexec
//! exits.
//!
//! A sweep reads promptexec's children, leaves the leaders tokio owns alone (except
//! at exit, when nothing waits for them any more), stops and then kills the ones that
//! carry the ending spawn's id (with their group, when they lead one), reaps them,
//! and reaps any other child that has already exited. A killed process's own
//! children are reparented to promptexec before it can be reaped, so the next round
//! finds them: rounds repeat until one finds nothing to do, so a chain of any depth
//! goes, one level a round. Only time bounds a sweep ([`SWEEP_LIMIT`]), for a chain
//! that forks faster than it is killed.

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
/// How long a sweep keeps looking again at such a child: one whose environment is
/// still empty then was started without one, and is left to the sweep at exit.
const UNREAD_LIMIT: Duration = Duration::from_millis(100);
/// How long one sweep may go on. Each round kills a level of a detached chain in well
/// under a millisecond on an idle machine, so five seconds is thousands of levels; a
/// sweep cut short by it is logged, and the sweep at exit tries again.
pub(super) const SWEEP_LIMIT: Duration = Duration::from_secs(5);
/// How long the end of a call waits for its leader to be dead, so that the children
/// it leaves are reparented to promptexec before the sweep looks for them.
const LEADER_WAIT: Duration = Duration::from_millis(200);

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

/// After a call or server ended, once its group was sent SIGKILL: waits for its
/// leader to be dead, then kills and reaps the orphans marked with its spawn id, and
/// reaps children that exited on their own.
pub(super) fn sweep_spawn(leader: i32, spawn_id: &str) {
    if enabled() {
        wait_dead(leader, LEADER_WAIT);
        sweep(Doomed::Marked(spawn_id));
    }
}

/// At exit, once no call is running: kills and reaps every child left, leaders,
/// marked or not, so nothing promptexec started outlives it.
pub fn kill_remaining_children() {
    if enabled() {
        sweep(Doomed::All);
    }
}

/// Which children a sweep kills.
#[derive(Clone, Copy)]
enum Doomed<'a> {
    /// Those, not leaders, whose environment carries this spawn id.
    Marked(&'a str),
    /// All of them, leaders too: promptexec is exiting.
    All,
}

impl Doomed<'_> {
    fn mark(self, pid: i32) -> Mark {
        match self {
            Doomed::Marked(id) => procfs::mark(pid, SPAWN_ID_VAR, id),
            Doomed::All => Mark::Carries,
        }
    }
}

/// Repeats rounds until one finds no child to kill, to reap or to look at again, or
/// until [`SWEEP_LIMIT`] has passed. A round first stops every child it dooms (and
/// its group), so that none forks again while the others are killed, then kills them
/// and reaps them; a child whose mark cannot be read yet (in the middle of an `exec`)
/// is looked at again in the next round.
fn sweep(doomed: Doomed<'_>) {
    let _one = SWEEP.lock().unwrap_or_else(PoisonError::into_inner);
    let started = Instant::now();
    let until = started + SWEEP_LIMIT;
    loop {
        let children = candidates(doomed);
        let mut killed = Vec::new();
        let (mut reaped, mut unsure) = (false, false);
        for pid in children {
            let Some(stat) = procfs::stat(pid) else {
                continue;
            };
            if stat.is_dead() {
                reap_within(pid, Duration::ZERO);
                reaped = true;
                continue;
            }
            match doomed.mark(pid) {
                Mark::Carries => killed.push((pid, stat.pgid == pid)),
                Mark::Unread => unsure = started.elapsed() < UNREAD_LIMIT,
                Mark::Lacks => {}
            }
        }
        if killed.is_empty() && !reaped && !unsure {
            return;
        }
        for &(pid, leads) in &killed {
            signal_tree(pid, leads, Signal::SIGSTOP);
        }
        for &(pid, leads) in &killed {
            signal_tree(pid, leads, Signal::SIGKILL);
        }
        for &(pid, _) in &killed {
            reap_within(
                pid,
                REAP_WAIT.min(until.saturating_duration_since(Instant::now())),
            );
        }
        if Instant::now() >= until {
            tracing::warn!(
                "processes started by extensions were still appearing after {} s of killing them",
                SWEEP_LIMIT.as_secs()
            );
            return;
        }
        if unsure {
            std::thread::sleep(UNREAD_WAIT);
        }
    }
}

/// promptexec's children a sweep may touch: all of them at exit, else those that
/// are not leaders tokio waits for.
fn candidates(doomed: Doomed<'_>) -> Vec<i32> {
    let listing = listing();
    let children = procfs::own_children();
    if matches!(doomed, Doomed::All) {
        return children;
    }
    let leaders = listing.leaders_among(&children);
    children
        .into_iter()
        .zip(leaders)
        .filter_map(|(pid, leader)| (!leader).then_some(pid))
        .collect()
}

/// Waits, for at most `limit`, until child `pid` has exited (without reaping it: it
/// may be a leader tokio waits for). A pid that is not promptexec's child is not
/// waited for.
fn wait_dead(pid: i32, limit: Duration) {
    let me = std::process::id() as i32;
    let started = Instant::now();
    while let Some(stat) = procfs::stat(pid) {
        if stat.ppid != me || stat.is_dead() || started.elapsed() >= limit {
            return;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// `signal` to `pid`, and to its group when it leads one.
fn signal_tree(pid: i32, leads_group: bool, signal: Signal) {
    let pid = Pid::from_raw(pid);
    if leads_group {
        let _ = killpg(pid, signal);
    }
    let _ = kill(pid, signal);
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
