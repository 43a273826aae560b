//! The one engine every extension call goes through: spawn with a clean environment
//! in its own process group, feed stdin while draining stdout and stderr, enforce the
//! deadline and the output cap, and classify how the call ended.
//!
//! Theory of operation: a call is a single task polling four things at once (the
//! stdin writer, the stdout reader, the stderr reader and the child's exit) against
//! a deadline, an output cap and a cancellation token. Whatever ends the call first
//! decides what happens next; a child that must be stopped gets SIGTERM to its whole
//! group, a grace period, then SIGKILL. Once the direct child is gone the group is
//! killed too, so a grandchild that kept our pipe open cannot hold the call, and the
//! pipes are drained for a bounded time only. [`classify`] then turns the raw facts
//! into an [`Outcome`] without touching any process.

mod env;
pub(crate) mod group;
mod outcome;
pub mod raw_json;
pub mod rpc;
mod run;
pub(crate) mod spawn;
pub(crate) mod tail;

pub use env::{BASE_ENV, child_env};
pub use outcome::{
    Finished, Outcome, ProcessEnd, StopReason, classify, classify_raw, describe_exit,
};
pub use raw_json::RawJson;
pub use run::{Call, CallKind, child_env_for, run};
pub use spawn::{SpawnError, find_in_path, is_executable};
pub use tail::last_lines;

use std::time::Duration;

/// How long a child gets between SIGTERM and SIGKILL.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(2);
/// Default stdout cap for one call.
pub const DEFAULT_MAX_OUTPUT: u64 = 16 * 1024 * 1024;
/// How much of stderr is kept for messages.
pub const STDERR_TAIL_BYTES: usize = 64 * 1024;
