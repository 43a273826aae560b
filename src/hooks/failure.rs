//! Hook failures, collected wherever a hook ran so the run can report every one of
//! them, with the hook's name and the end of its stderr, and exit accordingly.

use std::sync::{Arc, Mutex};

use crate::config::Phase;
use crate::exec::{Outcome, last_lines};

/// How much of a failed hook's stderr a failure keeps: its last lines, enough to see
/// the error without flooding the report.
const TAIL_LINES: usize = 10;
const TAIL_CHARS: usize = 2000;

/// A hook that failed (crash, non-zero exit, invalid output, timeout, spawn failure,
/// JSON-RPC error reply or unreadable answer), wherever it ran.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct HookFailure {
    pub hook: String,
    pub phase: Phase,
    pub reason: String,
    pub stderr_tail: String,
    /// The turn it belongs to, when that is not the one in progress as it is taken
    /// (an observer that failed later).
    pub turn: Option<u32>,
}

impl HookFailure {
    pub fn new(hook: &str, phase: Phase, reason: &str, stderr: &str) -> Self {
        Self {
            hook: hook.to_string(),
            phase,
            reason: reason.to_string(),
            stderr_tail: short_tail(stderr),
            turn: None,
        }
    }
}

/// Failures recorded since the last time they were taken; shared with the tasks that
/// run observers.
#[derive(Debug, Clone, Default)]
pub(crate) struct Failures(Arc<Mutex<Vec<HookFailure>>>);

impl Failures {
    /// A task that panicked while holding the list cannot make a failure go missing.
    fn list(&self) -> std::sync::MutexGuard<'_, Vec<HookFailure>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(super) fn record(&self, failure: HookFailure) {
        self.list().push(failure);
    }

    pub(super) fn take(&self) -> Vec<HookFailure> {
        std::mem::take(&mut *self.list())
    }
}

/// Whether an observer's call failed. Its stdout is not read, so an empty or
/// unreadable answer is no failure; an interrupted run is not the hook's fault.
pub(super) fn observer_failed(outcome: &Outcome) -> bool {
    match outcome {
        Outcome::Answered(_) | Outcome::InvalidOutput { .. } | Outcome::Interrupted => false,
        Outcome::ExitedNonZero { .. }
        | Outcome::KilledBySignal { .. }
        | Outcome::TimedOut { .. }
        | Outcome::OutputTooLarge { .. }
        | Outcome::CouldNotStart { .. }
        | Outcome::ServerFailed { .. } => true,
    }
}

/// The last lines of `stderr`, at most [`TAIL_CHARS`] characters.
pub(super) fn short_tail(stderr: &str) -> String {
    let text = last_lines(stderr, TAIL_LINES).join("\n");
    let chars = text.chars().count();
    if chars <= TAIL_CHARS {
        return text;
    }
    text.chars().skip(chars - TAIL_CHARS).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_tail_keeps_the_last_lines_and_stays_short() {
        let stderr: String = (1..=30).map(|i| format!("line {i}\n")).collect();
        let tail = short_tail(&stderr);
        assert!(
            tail.starts_with("line 21\n") && tail.ends_with("line 30"),
            "{tail}"
        );
        let long = "x".repeat(5000);
        assert_eq!(short_tail(&long).len(), TAIL_CHARS);
        assert_eq!(short_tail(""), "");
    }

    #[test]
    fn only_process_failures_count_for_observers() {
        assert!(!observer_failed(&Outcome::Answered(
            serde_json::json!({"ack": true})
        )));
        assert!(!observer_failed(&Outcome::InvalidOutput {
            offset: 0,
            reason: "empty output".into()
        }));
        assert!(!observer_failed(&Outcome::Interrupted));
        assert!(observer_failed(&Outcome::ExitedNonZero { code: 2 }));
        assert!(observer_failed(&Outcome::TimedOut {
            after: Duration::from_millis(5),
            nothing_read: false,
        }));
        assert!(observer_failed(&Outcome::CouldNotStart {
            reason: "not found".into()
        }));
    }

    #[test]
    fn taking_failures_empties_the_list() {
        let failures = Failures::default();
        let shared = failures.clone();
        shared.record(HookFailure::new(
            "audit",
            crate::config::HookPhase::SessionEnd.into(),
            "exited with status 1",
            "boom\n",
        ));
        let taken = failures.take();
        assert_eq!(taken.len(), 1);
        assert_eq!(taken[0].stderr_tail, "boom");
        assert!(failures.take().is_empty());
    }
}
