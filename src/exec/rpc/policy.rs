//! When a long-running process that stopped is started again, and when it is given
//! up on: one pure decision from the record of past restarts and the time, so the
//! supervisor only carries it out.

use std::time::Duration;

use tokio::time::Instant;

/// Restarts wait a backoff (doubling, reset by an answered call); more than
/// `max_restarts` within `window` marks the process broken; `timeouts_before_restart`
/// missed deadlines in a row mean it stopped answering, so it is killed and replaced.
#[derive(Debug, Clone, Copy)]
pub struct RestartPolicy {
    pub max_restarts: usize,
    pub window: Duration,
    pub first_backoff: Duration,
    pub max_backoff: Duration,
    pub timeouts_before_restart: u32,
}

impl Default for RestartPolicy {
    fn default() -> Self {
        Self {
            max_restarts: 5,
            window: Duration::from_secs(60),
            first_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(5),
            timeouts_before_restart: 3,
        }
    }
}

/// What to do about a process that stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Start it again after waiting `after`.
    Restart { after: Duration },
    /// It stopped `stops` times within the window: stop trying.
    Broken { stops: usize },
}

/// The restarts that still count, and the wait before the next one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExitHistory {
    restarts: Vec<Instant>,
    backoff: Duration,
}

impl ExitHistory {
    pub fn new(policy: &RestartPolicy) -> Self {
        Self {
            restarts: Vec::new(),
            backoff: policy.first_backoff,
        }
    }

    /// A restart happened at `now`: it counts against the window, and the next one
    /// waits twice as long, up to the maximum.
    pub fn restarted(&mut self, policy: &RestartPolicy, now: Instant) {
        self.retired(policy, now);
        self.backoff = (self.backoff * 2).min(policy.max_backoff);
    }

    /// The process was replaced on purpose at `now` (it stopped answering): that
    /// counts against the window, but the replacement starts at once.
    pub fn retired(&mut self, policy: &RestartPolicy, now: Instant) {
        self.restarts
            .retain(|t| now.saturating_duration_since(*t) < policy.window);
        self.restarts.push(now);
    }

    /// A call was answered: the process is healthy, so backoff starts over.
    pub fn answered(&mut self, policy: &RestartPolicy) {
        self.backoff = policy.first_backoff;
    }
}

impl RestartPolicy {
    /// The decision for a process found stopped at `now`.
    pub fn decide(&self, history: &ExitHistory, now: Instant) -> Decision {
        let recent = history
            .restarts
            .iter()
            .filter(|t| now.saturating_duration_since(**t) < self.window)
            .count();
        if recent >= self.max_restarts {
            Decision::Broken { stops: recent + 1 }
        } else {
            Decision::Restart {
                after: history.backoff,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> RestartPolicy {
        RestartPolicy {
            max_restarts: 3,
            window: Duration::from_secs(60),
            first_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_millis(350),
            timeouts_before_restart: 3,
        }
    }

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// Restarts as the supervisor makes them: decide, then record, `gap` apart.
    fn restart_times(
        policy: &RestartPolicy,
        history: &mut ExitHistory,
        start: Instant,
        gap: Duration,
        n: u32,
    ) -> Vec<Decision> {
        (0..n)
            .map(|i| {
                let now = start + gap * i;
                let decision = policy.decide(history, now);
                if let Decision::Restart { .. } = decision {
                    history.restarted(policy, now);
                }
                decision
            })
            .collect()
    }

    #[test]
    fn a_first_exit_restarts_after_the_first_backoff() {
        let p = policy();
        let history = ExitHistory::new(&p);
        assert_eq!(
            p.decide(&history, Instant::now()),
            Decision::Restart { after: ms(100) }
        );
    }

    #[test]
    fn backoff_doubles_up_to_the_maximum() {
        let p = RestartPolicy {
            max_restarts: 10,
            ..policy()
        };
        let mut history = ExitHistory::new(&p);
        let decisions = restart_times(&p, &mut history, Instant::now(), ms(1), 5);
        let waits: Vec<_> = decisions
            .iter()
            .map(|d| match d {
                Decision::Restart { after } => *after,
                Decision::Broken { .. } => Duration::MAX,
            })
            .collect();
        assert_eq!(waits, [ms(100), ms(200), ms(350), ms(350), ms(350)]);
    }

    #[test]
    fn too_many_exits_within_the_window_mean_broken() {
        let p = policy();
        let mut history = ExitHistory::new(&p);
        let start = Instant::now();
        let decisions = restart_times(&p, &mut history, start, Duration::from_secs(1), 4);
        assert!(matches!(decisions[2], Decision::Restart { .. }));
        assert_eq!(decisions[3], Decision::Broken { stops: 4 });
    }

    #[test]
    fn exits_that_left_the_window_no_longer_count() {
        let p = policy();
        let mut history = ExitHistory::new(&p);
        let start = Instant::now();
        restart_times(&p, &mut history, start, Duration::from_secs(1), 3);
        let within = start + Duration::from_secs(59);
        assert_eq!(p.decide(&history, within), Decision::Broken { stops: 4 });
        // The first restart (at 0 s) has left a 60 s window by 60.5 s.
        let later = start + Duration::from_millis(60_500);
        assert!(matches!(
            p.decide(&history, later),
            Decision::Restart { .. }
        ));
        history.restarted(&p, later);
        assert_eq!(history.restarts.len(), 3, "old restarts are dropped");
    }

    #[test]
    fn an_answered_call_resets_the_backoff_but_not_the_count() {
        let p = policy();
        let mut history = ExitHistory::new(&p);
        let start = Instant::now();
        restart_times(&p, &mut history, start, ms(1), 2);
        history.answered(&p);
        let now = start + ms(10);
        assert_eq!(
            p.decide(&history, now),
            Decision::Restart { after: ms(100) }
        );
        history.restarted(&p, now);
        assert_eq!(p.decide(&history, now), Decision::Broken { stops: 4 });
    }

    #[test]
    fn a_retired_process_counts_without_growing_the_backoff() {
        let p = policy();
        let mut history = ExitHistory::new(&p);
        let now = Instant::now();
        for _ in 0..3 {
            history.retired(&p, now);
        }
        assert_eq!(p.decide(&history, now), Decision::Broken { stops: 4 });
        let fresh = ExitHistory::new(&p);
        let mut one = fresh.clone();
        one.retired(&p, now);
        assert_eq!(p.decide(&one, now), p.decide(&fresh, now));
    }
}
