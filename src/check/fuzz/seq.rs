//! Sequences (a string's characters, an array's items) whose shrinking first cuts the
//! length by halves, then simplifies the items that remain. proptest's own vectors drop
//! one item at a time, which takes thousands of tool calls to empty a 4 KiB string.

use proptest::num::usize::BinarySearch;
use proptest::prelude::RngExt;
use proptest::strategy::{NewTree, Strategy, ValueTree};
use proptest::test_runner::{TestRng, TestRunner};

use super::budget::Budget;

/// How long generated sequences tend to be.
#[derive(Debug, Clone, Copy)]
pub(super) enum Lengths {
    /// Strings: often short, sometimes empty, sometimes a few KiB.
    Text,
    /// Arrays: a handful of items.
    Items,
}

impl Lengths {
    /// A length in `min..=max`; a pick outside is clamped, so both ends come up often.
    fn pick(self, rng: &mut TestRng, min: usize, max: usize) -> usize {
        let classes: &[(u32, usize, usize)] = match self {
            Lengths::Text => &[(1, 0, 0), (6, 1, 12), (2, 13, 200), (1, 1024, 4096)],
            Lengths::Items => &[(1, 0, 0), (5, 1, 4), (1, 5, 16)],
        };
        let total: u32 = classes.iter().map(|(weight, ..)| weight).sum();
        let mut roll = rng.random_range(0..total);
        let mut len = 0;
        for &(weight, lo, hi) in classes {
            if roll < weight {
                len = rng.random_range(lo..=hi);
                break;
            }
            roll -= weight;
        }
        len.clamp(min, max.max(min))
    }
}

/// A sequence of `element` values, `min..=max` long. The first `free` elements are
/// in the strategy's floor; each one beyond is paid `cost` from the budget, and the
/// sequence stops short when the budget is spent.
#[derive(Debug, Clone)]
pub(super) struct SeqStrategy<S> {
    pub(super) element: S,
    pub(super) min: usize,
    pub(super) max: usize,
    pub(super) lengths: Lengths,
    pub(super) free: usize,
    pub(super) cost: u64,
    pub(super) budget: Budget,
}

impl<S: Strategy> Strategy for SeqStrategy<S> {
    type Tree = SeqTree<S::Tree>;
    type Value = Vec<S::Value>;

    fn new_tree(&self, runner: &mut TestRunner) -> NewTree<Self> {
        let mut len = self.lengths.pick(runner.rng(), self.min, self.max);
        let free = self.free.max(self.min);
        if len > free {
            len = free + self.budget.take(len - free, self.cost);
        }
        let elements = (0..len)
            .map(|_| self.element.new_tree(runner))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(SeqTree {
            elements,
            min: self.min,
            extra: BinarySearch::new(len - self.min),
            settled: None,
            failing: len,
            next: 0,
            last: Last::Nothing,
        })
    }
}

#[derive(Debug, Clone, Copy)]
enum Last {
    Nothing,
    Length,
    Element(usize),
}

/// The value tree of [`SeqStrategy`].
#[derive(Debug, Clone)]
pub(super) struct SeqTree<T> {
    elements: Vec<T>,
    min: usize,
    /// Items beyond `min` kept, while the length is being searched.
    extra: BinarySearch,
    /// The length once its search is over: the shortest that was still simplified from.
    settled: Option<usize>,
    /// The last length simplified from, which therefore still failed.
    failing: usize,
    /// The next item to simplify.
    next: usize,
    last: Last,
}

impl<T: ValueTree> SeqTree<T> {
    fn len(&self) -> usize {
        self.settled.unwrap_or(self.min + self.extra.current())
    }
}

impl<T: ValueTree> ValueTree for SeqTree<T> {
    type Value = Vec<T::Value>;

    fn current(&self) -> Self::Value {
        self.elements[..self.len()]
            .iter()
            .map(ValueTree::current)
            .collect()
    }

    fn simplify(&mut self) -> bool {
        if self.settled.is_none() {
            // Simplifying means the current length still fails: remember it in case
            // the search ends on one that does not.
            self.failing = self.len();
            if self.extra.simplify() {
                self.last = Last::Length;
                return true;
            }
            self.settled = Some(self.failing);
        }
        while self.next < self.len() {
            if self.elements[self.next].simplify() {
                self.last = Last::Element(self.next);
                return true;
            }
            self.next += 1;
        }
        self.last = Last::Nothing;
        false
    }

    fn complicate(&mut self) -> bool {
        match self.last {
            Last::Nothing => false,
            Last::Length => {
                if self.extra.complicate() {
                    return true;
                }
                // The search is over; go back to the last length known to fail, whose
                // items are simplified next.
                self.last = Last::Nothing;
                self.settled = Some(self.failing);
                true
            }
            Last::Element(index) => self.elements[index].complicate(),
        }
    }
}
