//! Observers hear their events in the order they happened without ever holding up the
//! pipeline: each observer hook has one bounded queue, drained by one task that calls
//! the hook for one event after another. So at most one process per observer hook runs
//! at a time, and an observer that falls behind loses the events that do not fit in its
//! queue (counted and reported at the end) instead of piling up processes. When the run
//! ends, each observer hears what is still waiting for it within one deadline of that
//! hook in all (its `timeout_ms`, else the default for its kind of call), counted from
//! the start of the call under way, or else of the next one: then the call under way is
//! stopped (it missed its deadline, if the budget counted from it) and the rest of the
//! queue is dropped and counted, so a slow observer holds the end of the run for one
//! deadline, not for a whole queue of them. An interrupted run (the run's cancel token)
//! stops every queue at once the same way.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use indexmap::IndexMap;
use tokio::sync::{mpsc, watch};
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
    shared: Arc<Shared>,
    /// Cancelled to stop the queue (the run's cancel token cancels it too).
    stop: CancellationToken,
    /// What the queue gets at the end of the run, in all: the hook's deadline.
    budget: Duration,
    drain: JoinHandle<()>,
}

/// What a queue's task and the end of the run both see.
struct Shared {
    /// Events that did not fit.
    overflowed: AtomicU64,
    /// Events the observer never heard because its queue was stopped: the run was
    /// interrupted, or the end of the run gave it no more time (the call cut short
    /// included).
    unheard: AtomicU64,
    /// When the call under way started; `None` between calls.
    in_flight: watch::Sender<Option<Instant>>,
    /// Where the end-of-run budget counts from: the start of the call under way when
    /// the run ended, else of the next one.
    budget_from: OnceLock<Instant>,
}

impl Shared {
    fn new() -> Self {
        Self {
            overflowed: AtomicU64::new(0),
            unheard: AtomicU64::new(0),
            in_flight: watch::Sender::new(None),
            budget_from: OnceLock::new(),
        }
    }
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
    pub(super) fn new(failures: Failures, cancel: CancellationToken) -> Self {
        Self {
            queues: IndexMap::new(),
            failures,
            cancel,
            turn: 0,
        }
    }

    /// Queues one event for `hook`; never waits. A full queue drops the event.
    pub(super) fn send(
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
            queue.shared.overflowed.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Lets every observer hear what is queued for it, each within its own deadline in
    /// all, then returns how many events were dropped in all. Each observer that lost
    /// events gets a warning saying how many and why.
    pub(super) async fn finish(&mut self) -> u64 {
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
        let (jobs, waiting) = mpsc::channel::<Job>(OBSERVER_QUEUE);
        let shared = Arc::new(Shared::new());
        let stop = cancel.child_token();
        let budget = kind.timeout_of(&hook.hook.exec);
        let drain = tokio::spawn(drain(
            Arc::clone(hook),
            waiting,
            Arc::clone(&shared),
            (cancel.clone(), stop.clone()),
            budget,
            failures.clone(),
        ));
        Self {
            jobs,
            shared,
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
            shared,
            stop,
            budget,
            mut drain,
        } = self;
        drop(jobs);
        // The budget counts from the start of the call under way, or of the next one
        // (unless the queue empties first): each call gets its whole deadline.
        let mut calls = shared.in_flight.subscribe();
        let from = tokio::select! {
            biased;
            started = calls.wait_for(Option::is_some) => {
                started.ok().and_then(|s| *s).unwrap_or_else(Instant::now)
            }
            ended = &mut drain => {
                return shared.report(name, ended, cancel, budget);
            }
        };
        let _ = shared.budget_from.set(from);
        let until = tokio::time::Instant::from_std(from + budget);
        let ended = match tokio::time::timeout_at(until, &mut drain).await {
            Ok(ended) => ended,
            Err(_) => {
                stop.cancel();
                drain.await
            }
        };
        shared.report(name, ended, cancel, budget)
    }
}

impl Shared {
    /// How many events the queue dropped, with a warning when it dropped any.
    fn report(
        &self,
        name: &str,
        ended: Result<(), tokio::task::JoinError>,
        cancel: &CancellationToken,
        budget: Duration,
    ) -> u64 {
        if let Err(why) = ended {
            tracing::warn!("observer `{name}` stopped unexpectedly: {why}");
        }
        let overflowed = self.overflowed.load(Ordering::Relaxed);
        let unheard = self.unheard.load(Ordering::Relaxed);
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

/// One observer's queue, heard one event after another until it is closed; once
/// stopped, it only empties, counting what it never heard.
async fn drain(
    hook: Arc<ExecHook>,
    mut waiting: mpsc::Receiver<Job>,
    shared: Arc<Shared>,
    (cancel, stop): (CancellationToken, CancellationToken),
    budget: Duration,
    failures: Failures,
) {
    while let Some(job) = waiting.recv().await {
        if stop.is_cancelled() {
            shared.unheard.fetch_add(1, Ordering::Relaxed);
            continue;
        }
        let started = Instant::now();
        shared.in_flight.send_replace(Some(started));
        let run = hook.run_text(job.kind, &job.payload, &stop).await;
        shared.in_flight.send_replace(None);
        let mut outcome = run.outcome;
        if matches!(outcome, Outcome::Interrupted) {
            // Stopped when the end-of-run budget ran out. A call the budget counted
            // from had its whole deadline and missed it; any other was not heard.
            let had_its_deadline = !cancel.is_cancelled()
                && shared
                    .budget_from
                    .get()
                    .is_some_and(|from| started <= *from);
            if had_its_deadline {
                outcome = Outcome::TimedOut {
                    after: budget,
                    nothing_read: false,
                };
            } else {
                shared.unheard.fetch_add(1, Ordering::Relaxed);
            }
        }
        record(&hook, &job, &outcome, &run.stderr_tail, &failures);
    }
}

/// Records a failed call of `hook`; a failure is logged, never passed on.
fn record(hook: &ExecHook, job: &Job, outcome: &Outcome, stderr_tail: &str, failures: &Failures) {
    if observer_failed(outcome) {
        let reason = outcome.describe();
        let name = &hook.hook.name;
        tracing::info!("observer `{name}` {reason} at {} (recorded)", job.phase);
        let mut failure = HookFailure::new(name, job.phase, &reason, stderr_tail);
        failure.turn = Some(job.turn);
        failures.record(failure);
    }
}
