//! Integers and numbers in a range, biased to the values tools get wrong: the ends of
//! the range, 0, -1, negatives, and magnitudes near the 64-bit limits. Each shrinks
//! towards the in-range value closest to 0 and never leaves the range on the way.

use proptest::num::{f64 as f64_num, i64 as i64_num};
use proptest::prelude::RngExt;
use proptest::strategy::{NewTree, Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use serde_json::Value;

/// Multiples of `step` in `lo..=hi` (`step` 1 for any integer).
#[derive(Debug, Clone, Copy)]
pub(super) struct IntStrategy {
    /// Bounds in units of `step`.
    k_lo: i64,
    k_hi: i64,
    step: i64,
}

impl IntStrategy {
    /// `None` when no multiple of `step` lies in the range.
    pub(super) fn new(lo: i64, hi: i64, step: i64) -> Option<IntStrategy> {
        let step = step.checked_abs().filter(|&s| s > 0)?;
        let k_lo = lo.div_euclid(step) + i64::from(lo.rem_euclid(step) != 0);
        let k_hi = hi.div_euclid(step);
        (k_lo <= k_hi).then_some(IntStrategy { k_lo, k_hi, step })
    }

    /// The plain value: 1 (or the multiple nearest it) when in range, else the end of
    /// the range nearest it.
    pub(super) fn example(&self) -> Value {
        Value::from(1.clamp(self.k_lo, self.k_hi) * self.step)
    }

    /// The multiple (in units of `step`) closest to 0.
    fn anchor(&self) -> i64 {
        0.clamp(self.k_lo, self.k_hi)
    }

    fn pick(&self, runner: &mut TestRunner) -> i64 {
        let (lo, hi) = (self.k_lo, self.k_hi);
        let rng = runner.rng();
        match rng.random_range(0..10u32) {
            // An end of the range, or a neighbour of 0.
            0..=2 => {
                let special = [lo, hi, 0, -1, 1, lo.saturating_add(1), hi.saturating_sub(1)];
                special[rng.random_range(0..special.len())].clamp(lo, hi)
            }
            // Small, either sign.
            3..=5 => rng.random_range(-100i64..=100).clamp(lo, hi),
            // Small and negative.
            6..=7 => rng.random_range(-1000i64..=-1).clamp(lo, hi),
            // Anywhere, large magnitudes included.
            _ => rng.random_range(lo..=hi),
        }
    }
}

impl Strategy for IntStrategy {
    type Tree = IntTree;
    type Value = Value;

    fn new_tree(&self, runner: &mut TestRunner) -> NewTree<Self> {
        let anchor = self.anchor();
        let k = self.pick(runner);
        Ok(IntTree {
            anchor,
            step: self.step,
            // `k` and `anchor` are on the same side of 0, so the difference fits.
            offset: i64_num::BinarySearch::new(k - anchor),
        })
    }
}

/// Shrinks the distance from the anchor, so every value stays between the two.
#[derive(Debug, Clone, Copy)]
pub(super) struct IntTree {
    anchor: i64,
    step: i64,
    offset: i64_num::BinarySearch,
}

impl ValueTree for IntTree {
    type Value = Value;

    fn current(&self) -> Value {
        // In range by construction, and a multiple in range cannot overflow.
        Value::from((self.anchor + self.offset.current()) * self.step)
    }
    fn simplify(&mut self) -> bool {
        self.offset.simplify()
    }
    fn complicate(&mut self) -> bool {
        self.offset.complicate()
    }
}

/// Numbers with fractions in `lo..=hi` (finite ends).
#[derive(Debug, Clone, Copy)]
pub(super) struct FloatStrategy {
    pub(super) lo: f64,
    pub(super) hi: f64,
}

impl FloatStrategy {
    fn pick(&self, runner: &mut TestRunner) -> f64 {
        let (lo, hi) = (self.lo, self.hi);
        let rng = runner.rng();
        let value = match rng.random_range(0..8u32) {
            0 => {
                let special = [lo, hi, 0.5, -0.5, 1e-300, -1e300, 1e300, 0.1];
                special[rng.random_range(0..special.len())]
            }
            1..=3 => rng.random_range(-1000.0..=1000.0),
            _ => lo + rng.random_range(0.0..=1.0) * (hi - lo),
        };
        let value = value.clamp(lo, hi);
        if value.is_finite() { value } else { lo }
    }
}

impl Strategy for FloatStrategy {
    type Tree = FloatTree;
    type Value = Value;

    fn new_tree(&self, runner: &mut TestRunner) -> NewTree<Self> {
        let anchor = 0f64.clamp(self.lo, self.hi);
        let value = self.pick(runner);
        Ok(FloatTree {
            anchor,
            offset: f64_num::BinarySearch::new(value - anchor),
        })
    }
}

#[derive(Debug, Clone, Copy)]
pub(super) struct FloatTree {
    anchor: f64,
    offset: f64_num::BinarySearch,
}

impl ValueTree for FloatTree {
    type Value = Value;

    fn current(&self) -> Value {
        // A non-finite sum has no JSON form; the anchor is in range.
        let value = self.anchor + self.offset.current();
        Value::from(if value.is_finite() {
            value
        } else {
            self.anchor
        })
    }
    fn simplify(&mut self) -> bool {
        self.offset.simplify()
    }
    fn complicate(&mut self) -> bool {
        self.offset.complicate()
    }
}
