//! The one engine every extension call goes through: spawn with a clean environment
//! in its own process group, feed stdin while draining stdout and stderr, enforce the
//! deadline and the output cap, and classify how the call ended.
//!
//! What it promises: every call returns within its deadline plus the grace period
//! plus a small margin, leaves no process of its own behind, and says how it ended
//! as facts, never as text to parse. It knows nothing of tools, hooks, evals or MCP:
//! the layers above give it a spec and bytes, so every kind of extension is bounded
//! and cleaned up the same way, and a fix here fixes them all.
//!
//! Theory of operation: a call is a single task polling four things at once (the
//! stdin writer, the stdout reader, the stderr reader and the child's exit) against
//! a deadline, an output cap and a cancellation token. Whatever ends the call first
//! decides what happens next; a child that must be stopped gets SIGTERM to its whole
//! group, a grace period, then SIGKILL. Once the direct child is gone the group is
//! killed too, so a grandchild that kept our pipe open cannot hold the call, and the
//! pipes are drained for a bounded time only. [`classify`] then turns the raw facts
//! into an [`Outcome`] without touching any process.
//!
//! What leaves the group (`setsid`, a double fork) is caught another way: promptexec
//! is a child subreaper, every spawn marks its processes with `PROMPTEXEC_SPAWN_ID`,
//! and when a group is killed the orphans reparented to promptexec that carry its id
//! are killed and reaped too; at exit, every child left is. A long-lived child
//! (a server) is tethered as well: the kernel kills it when promptexec dies, even by
//! SIGKILL (see [`tether`]).

mod env;
pub(crate) mod group;
mod launch_check;
mod leftovers;
#[cfg(test)]
mod leftovers_tests;
mod outcome;
mod procfs;
pub mod raw_json;
mod reaper;
mod registry;
pub mod rpc;
mod run;
mod signals;
pub(crate) mod spawn;
pub(crate) mod tail;
pub mod tether;

pub use env::{BASE_ENV, child_env};
pub(crate) use launch_check::launch_problems;
pub use leftovers::{LEFTOVER_SETTLE, Leftover};
pub use outcome::{
    Finished, Outcome, ProcessEnd, StopReason, classify, classify_raw, describe_exit,
};
pub use raw_json::RawJson;
pub use reaper::{become_subreaper, kill_remaining_children};
pub use registry::SPAWN_ID_VAR;
pub use run::{Call, CallKind, child_env_for, run};
pub use signals::interrupted;
pub use spawn::{SpawnError, find_in_path, is_executable};
pub use tail::last_lines;

use std::time::Duration;

/// How long a child gets between SIGTERM and SIGKILL.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(2);
/// Default stdout cap for one call.
pub const DEFAULT_MAX_OUTPUT: u64 = 16 * 1024 * 1024;
/// How much of stderr is kept for messages.
pub const STDERR_TAIL_BYTES: usize = 64 * 1024;
