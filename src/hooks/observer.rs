//! Observers hear their events in the order they happened without ever holding up the
//! pipeline: each observer hook has one bounded queue, drained by one task that calls
//! the hook for one event after another. So at most one process per observer hook runs
//! at a time, and an observer that falls behind loses the events that do not fit in its
//! queue (counted and reported at the end) instead of piling up processes.

use std::sync::Arc;

use indexmap::IndexMap;
use serde_json::Value as Json;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::exec::CallKind;

use super::failure::{Failures, HookFailure, observer_failed};
use super::runner::ExecHook;

/// Events an observer may have waiting; what arrives beyond this is dropped.
pub const OBSERVER_QUEUE: usize = 256;

/// One event for one observer.
struct Job {
    kind: CallKind,
    phase: String,
    payload: Json,
}

struct Queue {
    jobs: mpsc::Sender<Job>,
    dropped: u64,
    drain: JoinHandle<()>,
}

/// The queues of every observer hook that has heard an event so far.
pub(crate) struct Observers {
    queues: IndexMap<String, Queue>,
    failures: Failures,
    cancel: CancellationToken,
}

impl Observers {
    pub fn new(failures: Failures, cancel: CancellationToken) -> Self {
        Self {
            queues: IndexMap::new(),
            failures,
            cancel,
        }
    }

    /// Queues one event for `hook`; never waits. A full queue drops the event.
    pub fn send(&mut self, hook: &Arc<ExecHook>, kind: CallKind, phase: &str, payload: Json) {
        let queue = self
            .queues
            .entry(hook.hook.name.clone())
            .or_insert_with(|| Queue::start(hook, &self.failures, &self.cancel));
        let job = Job {
            kind,
            phase: phase.to_string(),
            payload,
        };
        if queue.jobs.try_send(job).is_err() {
            queue.dropped += 1;
        }
    }

    /// Lets every observer hear what is queued for it (each call bounded by its
    /// deadline), then returns how many events were dropped in all.
    pub async fn finish(&mut self) -> u64 {
        let mut dropped = 0;
        for (name, queue) in self.queues.drain(..) {
            drop(queue.jobs);
            if let Err(why) = queue.drain.await {
                tracing::warn!("observer `{name}` stopped unexpectedly: {why}");
            }
            if queue.dropped > 0 {
                tracing::warn!(
                    "observer `{name}` fell behind: {} event(s) dropped (its queue holds {OBSERVER_QUEUE})",
                    queue.dropped
                );
            }
            dropped += queue.dropped;
        }
        dropped
    }
}

impl Queue {
    fn start(hook: &Arc<ExecHook>, failures: &Failures, cancel: &CancellationToken) -> Self {
        let (jobs, mut waiting) = mpsc::channel::<Job>(OBSERVER_QUEUE);
        let hook = Arc::clone(hook);
        let failures = failures.clone();
        let cancel = cancel.clone();
        let drain = tokio::spawn(async move {
            while let Some(job) = waiting.recv().await {
                // An interrupted run only empties the queue; nothing new starts.
                if cancel.is_cancelled() {
                    continue;
                }
                let run = hook.run(job.kind, &job.payload, &cancel).await;
                if observer_failed(&run.outcome) {
                    let reason = run.outcome.describe();
                    tracing::info!(
                        "observer `{}` {reason} at {} (ignored)",
                        hook.hook.name,
                        job.phase
                    );
                    failures.record(HookFailure::new(
                        &hook.hook.name,
                        &job.phase,
                        &reason,
                        &run.stderr_tail,
                    ));
                }
            }
        });
        Self {
            jobs,
            dropped: 0,
            drain,
        }
    }
}
