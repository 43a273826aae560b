//! Injected tool failures (a scenario's `chaos.tool_failures`): which calls fail
//! and how, decided by a seeded generator so every run fails the same calls.

use std::time::Duration;

/// How long a `slow` call waits before the tool runs.
pub const SLOW_DELAY: Duration = Duration::from_secs(2);

/// A rule: calls of `tool` fail this way with `probability`.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolFailure {
    pub tool: String,
    pub mode: FailureMode,
    pub probability: f64,
    pub message: Option<String>,
}

crate::wire_enum! {
    /// How an injected tool failure shows.
    pub enum FailureMode {
        /// The call answers an error without running the tool.
        Error = "error",
        /// The call answers that the tool timed out, without running it.
        Timeout = "timeout",
        /// The tool runs after [`SLOW_DELAY`].
        Slow = "slow",
    }
}

/// The rules in force and the generator that rolls for them.
#[derive(Debug, Clone, Default)]
pub struct Chaos {
    /// The rules of the turn in progress.
    pub rules: Vec<ToolFailure>,
    state: u64,
}

impl Chaos {
    /// A generator seeded from `seed` (a scenario's id and trial): the same seed
    /// rolls the same numbers in the same order.
    pub fn seeded(seed: &str) -> Self {
        let state = seed.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        Self {
            rules: Vec::new(),
            state,
        }
    }

    /// The failure a call of `tool` suffers, if any: the first rule for the tool
    /// whose roll comes under its probability. Each rule for the tool rolls once.
    pub fn strike(&mut self, tool: &str) -> Option<ToolFailure> {
        let rules: Vec<ToolFailure> = self
            .rules
            .iter()
            .filter(|r| r.tool == tool)
            .cloned()
            .collect();
        rules
            .into_iter()
            .find(|rule| self.roll() < rule.probability)
    }

    /// A number in [0, 1) from SplitMix64.
    fn roll(&mut self) -> f64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(tool: &str, probability: f64) -> ToolFailure {
        ToolFailure {
            tool: tool.into(),
            mode: FailureMode::Error,
            probability,
            message: None,
        }
    }

    fn strikes(seed: &str, probability: f64) -> Vec<bool> {
        let mut chaos = Chaos::seeded(seed);
        chaos.rules = vec![rule("t", probability)];
        (0..200).map(|_| chaos.strike("t").is_some()).collect()
    }

    #[test]
    fn the_same_seed_strikes_the_same_calls() {
        assert_eq!(strikes("s#1", 0.5), strikes("s#1", 0.5));
        assert_ne!(strikes("s#1", 0.5), strikes("s#2", 0.5));
    }

    #[test]
    fn probability_bounds_hold_and_the_rate_follows_it() {
        assert!(strikes("s", 1.0).iter().all(|hit| *hit));
        assert!(strikes("s", 0.0).iter().all(|hit| !*hit));
        let hits = strikes("s", 0.3).iter().filter(|hit| **hit).count();
        assert!((30..=90).contains(&hits), "{hits} of 200");
    }

    #[test]
    fn other_tools_are_never_struck() {
        let mut chaos = Chaos::seeded("s");
        chaos.rules = vec![rule("t", 1.0)];
        assert_eq!(chaos.strike("u"), None);
    }
}
