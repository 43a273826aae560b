//! Observers hear their events in the order they happened without ever holding up the
//! pipeline: each observer hook has one bounded queue, drained by one task that calls
//! the hook for one event after another. So at most one process per observer hook runs
//! at a time, and an observer that falls behind loses the events that do not fit in its
//! queue (counted and reported at the end) instead of piling up processes. When the run
//! ends, each observer hears what is still waiting for it, unless a call then misses its
//! deadline: the rest of its queue is dropped and counted too, so a hanging observer holds
//! the end of the run for one deadline, not for a whole queue of them.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

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
    /// Events that did not fit, or that a hanging observer was not given at the end.
    dropped: Arc<AtomicU64>,
    /// Cancelled when the run ends: from then on, a missed deadline ends the queue.
    closing: CancellationToken,
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
            .or_insert_with(|| Queue::start(hook, &self.failures, &self.cancel));
        let job = Job {
            kind,
            phase,
            payload,
            turn: self.turn,
        };
        if queue.jobs.try_send(job).is_err() {
            queue.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Lets every observer hear what is queued for it (a hanging one loses the rest
    /// of its queue at its first missed deadline), then returns how many events were
    /// dropped in all.
    pub async fn finish(&mut self) -> u64 {
        let queues: Vec<(String, Queue)> = self.queues.drain(..).collect();
        let caught_up = queues.into_iter().map(|(name, queue)| async move {
            let Queue {
                jobs,
                dropped,
                closing,
                drain,
            } = queue;
            drop(jobs);
            closing.cancel();
            if let Err(why) = drain.await {
                tracing::warn!("observer `{name}` stopped unexpectedly: {why}");
            }
            let dropped = dropped.load(Ordering::Relaxed);
            if dropped > 0 {
                tracing::warn!(
                    "observer `{name}` fell behind: {dropped} event(s) dropped (its queue holds {OBSERVER_QUEUE})"
                );
            }
            dropped
        });
        futures::future::join_all(caught_up).await.into_iter().sum()
    }
}

impl Queue {
    fn start(hook: &Arc<ExecHook>, failures: &Failures, cancel: &CancellationToken) -> Self {
        let (jobs, mut waiting) = mpsc::channel::<Job>(OBSERVER_QUEUE);
        let dropped = Arc::new(AtomicU64::new(0));
        let closing = CancellationToken::new();
        let hook = Arc::clone(hook);
        let failures = failures.clone();
        let cancel = cancel.clone();
        let (skipped, run_ended) = (Arc::clone(&dropped), closing.clone());
        let drain = tokio::spawn(async move {
            let mut gave_up = false;
            while let Some(job) = waiting.recv().await {
                // An interrupted run, or an observer that missed a deadline at the
                // end, only empties the queue, counting what it never heard.
                if cancel.is_cancelled() || gave_up {
                    skipped.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                let outcome = deliver(&hook, job, &cancel, &failures).await;
                let timed_out = matches!(outcome, Outcome::TimedOut { .. });
                gave_up = run_ended.is_cancelled() && timed_out;
            }
        });
        Self {
            jobs,
            dropped,
            closing,
            drain,
        }
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
