//! The processes an extension left running after its own process exited: what is
//! still alive in its process group, and whatever carries its spawn id elsewhere
//! (detached with `setsid` or a double fork). `check` reports these as leaks.

use std::time::Duration;

use tokio::time::Instant;

use super::procfs::{self, Mark};
use super::registry::SPAWN_ID_VAR;

/// How long a one-shot call's leftovers get to exit on their own before they count.
pub const LEFTOVER_SETTLE: Duration = Duration::from_millis(250);
/// How often the settle period looks again.
const POLL: Duration = Duration::from_millis(10);

/// A process still running after the extension that started it exited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leftover {
    pub pid: i32,
    /// From `/proc/PID/cmdline`, arguments separated by spaces.
    pub command_line: String,
}

/// The live processes in group `pgid` or marked with `spawn_id`, looked for until
/// none is left or `settle` has passed; sorted by pid.
pub(super) async fn leftovers(pgid: i32, spawn_id: String, settle: Duration) -> Vec<Leftover> {
    let until = Instant::now() + settle;
    loop {
        let scan = scan(pgid, &spawn_id);
        if (scan.found.is_empty() && !scan.unsure) || Instant::now() >= until {
            return scan.found;
        }
        tokio::time::sleep(POLL.min(until.saturating_duration_since(Instant::now()))).await;
    }
}

/// One look through `/proc`.
struct Scan {
    found: Vec<Leftover>,
    /// Some process's environment could not be read yet (see [`procfs::Mark`]): it
    /// may be one of ours in the middle of an `exec`, so "none left" is not sure.
    unsure: bool,
}

fn scan(pgid: i32, spawn_id: &str) -> Scan {
    let me = std::process::id() as i32;
    let mut unsure = false;
    let mut found: Vec<Leftover> = procfs::all_processes()
        .filter(|pid| *pid != me)
        .filter_map(procfs::stat)
        .filter(|stat| !stat.is_dead() && !stat.is_kernel_thread())
        .filter(|stat| {
            stat.pgid == pgid
                || match procfs::mark(stat.pid, SPAWN_ID_VAR, spawn_id) {
                    Mark::Carries => true,
                    Mark::Lacks => false,
                    Mark::Unread => {
                        unsure = true;
                        false
                    }
                }
        })
        .map(|stat| Leftover {
            pid: stat.pid,
            command_line: procfs::command_line_of(stat.pid),
        })
        .collect();
    found.sort_by_key(|l| l.pid);
    Scan { found, unsure }
}
