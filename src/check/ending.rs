//! How a probed process ends: whether it exits on its own once its stdin is closed,
//! and what it leaves running. Shared by every kind that keeps a process alive.

use tokio::time::Instant;

use crate::exec::{self, DEFAULT_GRACE, LEFTOVER_SETTLE, Leftover};

use super::line_process::LineProcess;
use super::{Probe, ProbeResult};

/// With stdin already closed: the exit verdict within the grace period, then the
/// leak verdict. A process that stays is stopped alone, not with its group, so that
/// what it started can still be found.
pub(super) async fn after_eof(process: &mut LineProcess) -> (ProbeResult, ProbeResult) {
    let waited = Instant::now();
    let exits = match process.exited_within(DEFAULT_GRACE).await {
        Some(status) => ProbeResult::pass(
            Probe::ExitsOnEof,
            format!(
                "{} {} ms after stdin closed",
                exec::describe_exit(&Ok(status)),
                waited.elapsed().as_millis()
            ),
        ),
        None => {
            process.stop_leader().await;
            ProbeResult::fail(
                Probe::ExitsOnEof,
                format!(
                    "still running {} ms after stdin closed",
                    DEFAULT_GRACE.as_millis()
                ),
                "exit when a read from stdin returns EOF",
            )
        }
    };
    let left = match process.guard() {
        Some(guard) => guard.leftovers(LEFTOVER_SETTLE).await,
        None => Vec::new(),
    };
    (exits, no_leftovers(&left))
}

/// The leak verdict over what was still running once the process had exited.
pub(super) fn no_leftovers(left: &[Leftover]) -> ProbeResult {
    if left.is_empty() {
        return ProbeResult::pass(Probe::NoLeftoverProcesses, "nothing it started outlived it");
    }
    let shown: Vec<String> = left
        .iter()
        .map(|l| format!("`{}` (pid {})", l.command_line, l.pid))
        .collect();
    ProbeResult::fail(
        Probe::NoLeftoverProcesses,
        format!("still running after it exited: {}", shown.join(", ")),
        "wait for every process you start, or stop it, before exiting",
    )
}
