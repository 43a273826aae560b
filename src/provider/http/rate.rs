//! `rate_limit`: a token bucket per provider name, shared by every session of the
//! process, so that parallel sessions together keep to the provider's rate.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, Instant};

use crate::config::RateLimit;

/// Requests may go out at `rps` a second, up to `burst` at once after a quiet spell.
#[derive(Debug)]
pub(super) struct Bucket {
    rps: f64,
    burst: f64,
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    /// Below zero when requests wait for tokens not yet refilled.
    tokens: f64,
    at: Instant,
}

static BUCKETS: LazyLock<Mutex<HashMap<String, Arc<Bucket>>>> = LazyLock::new(Default::default);

/// The bucket of the provider called `name`; the first limit given for a name holds
/// for the life of the process.
pub(super) fn shared(name: &str, limit: RateLimit) -> Arc<Bucket> {
    let mut buckets = BUCKETS.lock().unwrap_or_else(|e| e.into_inner());
    let bucket = buckets
        .entry(name.to_string())
        .or_insert_with(|| Arc::new(Bucket::new(limit, Instant::now())));
    Arc::clone(bucket)
}

impl Bucket {
    fn new(limit: RateLimit, now: Instant) -> Bucket {
        let burst = f64::from(limit.burst.max(1));
        Bucket {
            rps: f64::from(limit.rps.max(1)),
            burst,
            state: Mutex::new(State {
                tokens: burst,
                at: now,
            }),
        }
    }

    /// Waits until this request may go out.
    pub(super) async fn acquire(&self) {
        let wait = self.reserve(Instant::now());
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
    }

    /// Takes a token, possibly one not yet refilled, and says how long until it is:
    /// callers are served in the order they asked.
    fn reserve(&self, now: Instant) -> Duration {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let elapsed = now.saturating_duration_since(state.at).as_secs_f64();
        state.tokens = (state.tokens + elapsed * self.rps).min(self.burst) - 1.0;
        state.at = now.max(state.at);
        if state.tokens >= 0.0 {
            Duration::ZERO
        } else {
            Duration::from_secs_f64(-state.tokens / self.rps)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_goes_at_once_then_requests_are_spaced() {
        let start = Instant::now();
        let bucket = Bucket::new(RateLimit { rps: 2, burst: 3 }, start);
        let waits: Vec<u128> = (0..6).map(|_| bucket.reserve(start).as_millis()).collect();
        assert_eq!(waits, [0, 0, 0, 500, 1000, 1500]);
        // After a quiet spell the bucket is full again, never fuller.
        let later = start + Duration::from_secs(60);
        let waits: Vec<u128> = (0..4).map(|_| bucket.reserve(later).as_millis()).collect();
        assert_eq!(waits, [0, 0, 0, 500]);
    }

    #[test]
    fn sessions_share_a_bucket_by_provider_name() {
        let limit = RateLimit { rps: 1, burst: 1 };
        let a = shared("rate-test-shared", limit);
        let b = shared("rate-test-shared", RateLimit { rps: 50, burst: 50 });
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &shared("rate-test-other", limit)));
        let now = Instant::now();
        assert_eq!(a.reserve(now), Duration::ZERO);
        assert!(b.reserve(now) > Duration::from_millis(900));
    }
}
