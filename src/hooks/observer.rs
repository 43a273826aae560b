//! Observers hear their events in the order they happened without ever holding up the
//! pipeline: each observer hook has one bounded queue, drained by one task that calls
//! the hook for one event after another. So at most one process per observer hook runs
//! at a time, and an observer that falls behind loses the events that do not fit in its
//! queue (counted and reported at the end) instead of piling up processes. When the run
//! ends, each observer hears what is still waiting for it within one deadline of that
//! hook in all (its `timeout_ms`, else the default for its kind of call): then the call
//! under way is stopped and the rest of its queue dropped and counted too, so a slow
//! observer holds the end of the run for one deadline, not for a whole queue of them. An
//! interrupted run (the run's cancel token) stops every queue at once the same way.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use indexmap::IndexMap;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::config::Phase;
use crate::exec::{CallKind, Outcome};

use super::failure::{Failures, HookFailure, observer_failed};
use super::runner::ExecHook;

/// Events an observer may have waiting; what arrives beyond this is dropped.
pub const OBSERVER_QUEUE: usize = 256;

/// One event for one observer.
struct Job {
    kind: CallKind,
    phase: Phase,
    /// The payload, serialised once and shared by every observer that hears it.
    payload: Arc<String>,
    /// The turn in progress when the event happened, so a late failure is reported
    /// on the turn it belongs to.
    turn: u32,
}

struct Queue {
    jobs: mpsc::Sender<Job>,
    /// Events that did not fit.
    overflowed: Arc<AtomicU64>,
    /// Events the observer never heard because its queue was stopped: the run was
    /// interrupted, or the end of the run gave it no more time. The call under way
    /// when it stopped counts too.
    unheard: Arc<AtomicU64>,
    /// Cancelled to stop the queue (the run's cancel token cancels it too).
    stop: CancellationToken,
    /// What the queue gets at the end of the run, in all.
    budget: Duration,
    drain: JoinHandle<()>,
}

/// The queues of every observer hook that has heard an event so far.
pub(crate) struct Observers {
    queues: IndexMap<String, Queue>,
    failures: Failures,
    cancel: CancellationToken,
    /// The turn in progress, stamped on every event queued.
    pub turn: u32,
}

impl Observers {
    pub fn new(failures: Failures, cancel: CancellationToken) -> Self {
        Self {
            queues: IndexMap::new(),
            failures,
            cancel,
            turn: 0,
        }
    }

    /// Queues one event for `hook`; never waits. A full queue drops the event.
    pub fn send(
        &mut self,
        hook: &Arc<ExecHook>,
        kind: CallKind,
        phase: Phase,
        payload: Arc<String>,
    ) {
        let queue = self
            .queues
            .entry(hook.hook.name.clone())
            .or_insert_with(|| Queue::start(hook, kind, &self.failures, &self.cancel));
        let job = Job {
            kind,
            phase,
            payload,
            turn: self.turn,
        };
        if queue.jobs.try_send(job).is_err() {
            queue.overflowed.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Lets every observer hear what is queued for it, each within its own deadline in
    /// all, then returns how many events were dropped in all. Each observer that lost
    /// events gets a warning saying how many and why.
    pub async fn finish(&mut self) -> u64 {
        let queues: Vec<(String, Queue)> = self.queues.drain(..).collect();
        let cancel = &self.cancel;
        let caught_up = queues
            .into_iter()
            .map(|(name, queue)| async move { queue.finish(&name, cancel).await });
        futures::future::join_all(caught_up).await.into_iter().sum()
    }
}

impl Queue {
    fn start(
        hook: &Arc<ExecHook>,
        kind: CallKind,
        failures: &Failures,
        cancel: &CancellationToken,
    ) -> Self {
        let (jobs, mut waiting) = mpsc::channel::<Job>(OBSERVER_QUEUE);
        let (overflowed, unheard) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
        let stop = cancel.child_token();
        let budget = kind.timeout_of(&hook.hook.exec);
        let hook = Arc::clone(hook);
        let failures = failures.clone();
        let (skipped, stopped) = (Arc::clone(&unheard), stop.clone());
        let drain = tokio::spawn(async move {
            while let Some(job) = waiting.recv().await {
                // A stopped queue only empties, counting what it never heard.
                if stopped.is_cancelled() {
                    skipped.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                let outcome = deliver(&hook, job, &stopped, &failures).await;
                if matches!(outcome, Outcome::Interrupted) {
                    skipped.fetch_add(1, Ordering::Relaxed);
                }
            }
        });
        Self {
            jobs,
            overflowed,
            unheard,
            stop,
            budget,
            drain,
        }
    }

    /// Closes the queue and waits for it to be heard, for the queue's budget at most;
    /// then stops it. Returns how many of its events were dropped.
    async fn finish(self, name: &str, cancel: &CancellationToken) -> u64 {
        let Queue {
            jobs,
            overflowed,
            unheard,
            stop,
            budget,
            mut drain,
        } = self;
        drop(jobs);
        let ended = match tokio::time::timeout(budget, &mut drain).await {
            Ok(ended) => ended,
            Err(_) => {
                stop.cancel();
                drain.await
            }
        };
        if let Err(why) = ended {
            tracing::warn!("observer `{name}` stopped unexpectedly: {why}");
        }
        let (overflowed, unheard) = (
            overflowed.load(Ordering::Relaxed),
            unheard.load(Ordering::Relaxed),
        );
        let dropped = overflowed + unheard;
        if dropped > 0 {
            let full = format!("its queue of {OBSERVER_QUEUE} was full");
            let ended = if cancel.is_cancelled() {
                "the run was interrupted".to_string()
            } else {
                format!(
                    "its {} ms at the end of the run ran out",
                    budget.as_millis()
                )
            };
            let why = match (overflowed, unheard) {
                (_, 0) => full,
                (0, _) => format!("left waiting when {ended}"),
                (full_count, left) => {
                    format!("{full_count} when {full}, {left} left waiting when {ended}")
                }
            };
            tracing::warn!("observer `{name}` fell behind: {dropped} event(s) dropped ({why})");
        }
        dropped
    }
}

/// Calls `hook` with one event; a failure is logged and recorded, never passed on.
async fn deliver(
    hook: &ExecHook,
    job: Job,
    cancel: &CancellationToken,
    failures: &Failures,
) -> Outcome {
    let run = hook.run_text(job.kind, &job.payload, cancel).await;
    if observer_failed(&run.outcome) {
        let reason = run.outcome.describe();
        let name = &hook.hook.name;
        tracing::info!("observer `{name}` {reason} at {} (recorded)", job.phase);
        let mut failure = HookFailure::new(name, job.phase, &reason, &run.stderr_tail);
        failure.turn = Some(job.turn);
        failures.record(failure);
    }
    run.outcome
}
