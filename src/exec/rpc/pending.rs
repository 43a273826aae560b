//! The calls waiting for a reply, by id, each with its deadline. One timer task per
//! process fails the calls whose deadline passed, so a call costs no timer of its
//! own: registering one, and taking it back when its reply comes, are a map insert
//! and a map remove.
//!
//! The timer wakes at `earliest`, which is never later than the first deadline of a
//! waiting call. A reply does not move it (that would mean finding the next
//! deadline every time); the timer finds it when it wakes.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::{Notify, oneshot, watch};
use tokio::time::Instant;

use super::{Reply, RpcError, Timeout};
use crate::exec::RawJson;

pub(super) type Answer = Result<Reply<RawJson>, RpcError>;

/// Every call in flight on one process.
#[derive(Default)]
pub(super) struct Calls {
    waiting: Mutex<Waiting>,
    /// Wakes the timer when a call's deadline comes before the one it waits for.
    rearm: Notify,
    /// Whether any byte came from the process's stdout, for the hint on a timeout.
    stdout_seen: AtomicBool,
}

#[derive(Default)]
struct Waiting {
    by_id: HashMap<u64, Waiter, BuildHasherDefault<IdHasher>>,
    earliest: Option<Instant>,
}

struct Waiter {
    reply: oneshot::Sender<Answer>,
    deadline: Instant,
    /// The timeout the caller asked for, as its error reports it.
    after: Duration,
}

impl Calls {
    fn lock(&self) -> MutexGuard<'_, Waiting> {
        // Plain data: a panic elsewhere leaves nothing half-done behind.
        self.waiting
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Waits for the reply to `id` until `deadline`; on time out the error reports
    /// `after`.
    pub(super) fn register(
        &self,
        id: u64,
        deadline: Instant,
        after: Duration,
    ) -> oneshot::Receiver<Answer> {
        let (reply, rx) = oneshot::channel();
        let sooner = {
            let mut waiting = self.lock();
            waiting.by_id.insert(
                id,
                Waiter {
                    reply,
                    deadline,
                    after,
                },
            );
            let sooner = waiting.earliest.is_none_or(|at| deadline < at);
            if sooner {
                waiting.earliest = Some(deadline);
            }
            sooner
        };
        if sooner {
            self.rearm.notify_one();
        }
        rx
    }

    /// Takes back the call waiting for `id`, to answer it.
    pub(super) fn take(&self, id: u64) -> Option<oneshot::Sender<Answer>> {
        self.lock().by_id.remove(&id).map(|w| w.reply)
    }

    /// Forgets the call waiting for `id`: a reply to it is no longer wanted.
    pub(super) fn forget(&self, id: u64) {
        self.lock().by_id.remove(&id);
    }

    /// Takes back every waiting call, to fail them all.
    pub(super) fn take_all(&self) -> Vec<oneshot::Sender<Answer>> {
        self.lock().by_id.drain().map(|(_, w)| w.reply).collect()
    }

    /// The ids of the waiting calls, in order.
    pub(super) fn ids(&self) -> Vec<u64> {
        let mut ids: Vec<u64> = self.lock().by_id.keys().copied().collect();
        ids.sort_unstable();
        ids
    }

    pub(super) fn saw_stdout(&self) {
        self.stdout_seen.store(true, Ordering::Relaxed);
    }

    /// The error of a call that got no reply within `after`.
    pub(super) fn timed_out(&self, after: Duration) -> RpcError {
        RpcError::TimedOut(Timeout {
            after,
            nothing_read: !self.stdout_seen.load(Ordering::Relaxed),
        })
    }

    /// Fails the calls whose deadline is `now` or before, and finds the next one.
    fn expire(&self, now: Instant) {
        let late: Vec<Waiter> = {
            let mut waiting = self.lock();
            let late = waiting
                .by_id
                .extract_if(|_, w| w.deadline <= now)
                .map(|(_, w)| w)
                .collect();
            waiting.earliest = waiting.by_id.values().map(|w| w.deadline).min();
            late
        };
        for waiter in late {
            let _ = waiter.reply.send(Err(self.timed_out(waiter.after)));
        }
    }

    /// The timer: fails calls at their deadlines until the process has exited (its
    /// calls are failed then, and no call waits after that).
    pub(super) async fn expire_until_exit(&self, mut exited: watch::Receiver<Option<String>>) {
        loop {
            let earliest = self.lock().earliest;
            let due = async {
                match earliest {
                    Some(at) => tokio::time::sleep_until(at).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                () = due => self.expire(Instant::now()),
                () = self.rearm.notified() => {}
                _ = exited.wait_for(Option::is_some) => return,
            }
        }
    }
}

/// Ids are handed out in sequence: one multiplication spreads them well enough over
/// the table, where a general hash would cost more than the rest of the lookup.
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}
