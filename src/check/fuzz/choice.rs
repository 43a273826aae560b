//! Strategies that build only what a draw uses. proptest's `Union` keeps, for every
//! value it draws, a runner for each option it did not take, and `option::of` knows
//! nothing of the size budget; a value of many thousand parts made of them costs
//! far more memory than its text.

use std::rc::Rc;

use proptest::prelude::RngExt;
use proptest::strategy::{BoxedStrategy, NewTree, Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use super::budget::Budget;

/// One of several strategies, picked by weight. Shrinking may switch to the first
/// option, built then from a seed kept for it, and otherwise shrinks the one drawn.
#[derive(Debug, Clone)]
pub(super) struct Choice<T> {
    options: Rc<[(u32, BoxedStrategy<T>)]>,
    total: u32,
}

impl<T: std::fmt::Debug + 'static> Choice<T> {
    /// `None` for no options.
    pub(super) fn new(options: Vec<(u32, BoxedStrategy<T>)>) -> Option<Choice<T>> {
        let total = options.iter().map(|(weight, _)| weight).sum();
        (!options.is_empty() && total > 0).then(|| Choice {
            options: options.into(),
            total,
        })
    }
}

impl<T: std::fmt::Debug + 'static> Strategy for Choice<T> {
    type Tree = ChoiceTree<T>;
    type Value = T;

    fn new_tree(&self, runner: &mut TestRunner) -> NewTree<Self> {
        let mut roll = runner.rng().random_range(0..self.total);
        let mut pick = 0;
        for (at, (weight, _)) in self.options.iter().enumerate() {
            if roll < *weight {
                pick = at;
                break;
            }
            roll -= weight;
        }
        let seed = runner.rng().random::<u64>();
        let tree = self.options[pick].1.new_tree(runner)?;
        Ok(ChoiceTree {
            first: (pick > 0).then(|| (self.options[0].1.clone(), seed)),
            tree,
            previous: None,
        })
    }
}

/// The value tree of [`Choice`].
pub(super) struct ChoiceTree<T> {
    /// The first option and the seed to draw it with, until switching to it is tried.
    first: Option<(BoxedStrategy<T>, u64)>,
    tree: Box<dyn ValueTree<Value = T>>,
    /// The tree drawn, while the first option is tried in its place.
    previous: Option<Box<dyn ValueTree<Value = T>>>,
}

impl<T: std::fmt::Debug> std::fmt::Debug for ChoiceTree<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChoiceTree")
            .field("current", &self.tree.current())
            .finish_non_exhaustive()
    }
}

impl<T: std::fmt::Debug> ValueTree for ChoiceTree<T> {
    type Value = T;

    fn current(&self) -> T {
        self.tree.current()
    }

    fn simplify(&mut self) -> bool {
        self.previous = None;
        if let Some((first, seed)) = self.first.take() {
            let mut bytes = [0u8; 32];
            bytes[..8].copy_from_slice(&seed.to_le_bytes());
            let mut runner = TestRunner::new_with_rng(
                Config::default(),
                TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
            );
            if let Ok(tree) = first.new_tree(&mut runner) {
                self.previous = Some(std::mem::replace(&mut self.tree, tree));
                return true;
            }
        }
        self.tree.simplify()
    }

    fn complicate(&mut self) -> bool {
        match self.previous.take() {
            Some(previous) => {
                self.tree = previous;
                true
            }
            None => self.tree.complicate(),
        }
    }
}

/// A value present with probability `chance` when the budget pays `cost` for it;
/// shrinking tries leaving it out first.
#[derive(Debug, Clone)]
pub(super) struct Optional<T> {
    pub(super) inner: BoxedStrategy<T>,
    pub(super) chance: f64,
    pub(super) cost: u64,
    pub(super) budget: Budget,
}

impl<T: std::fmt::Debug + 'static> Strategy for Optional<T> {
    type Tree = OptionalTree<T>;
    type Value = Option<T>;

    fn new_tree(&self, runner: &mut TestRunner) -> NewTree<Self> {
        let wanted = runner.rng().random_bool(self.chance);
        let tree = if wanted && self.budget.take(1, self.cost) == 1 {
            Some(self.inner.new_tree(runner)?)
        } else {
            None
        };
        Ok(OptionalTree {
            tree,
            shown: true,
            removal_tried: false,
            last_removed: false,
        })
    }
}

/// The value tree of [`Optional`].
pub(super) struct OptionalTree<T> {
    tree: Option<Box<dyn ValueTree<Value = T>>>,
    /// The value is given, not left out.
    shown: bool,
    removal_tried: bool,
    last_removed: bool,
}

impl<T> std::fmt::Debug for OptionalTree<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OptionalTree")
            .field("present", &(self.shown && self.tree.is_some()))
            .finish_non_exhaustive()
    }
}

impl<T: std::fmt::Debug> ValueTree for OptionalTree<T> {
    type Value = Option<T>;

    fn current(&self) -> Option<T> {
        self.tree
            .as_ref()
            .filter(|_| self.shown)
            .map(|tree| tree.current())
    }

    fn simplify(&mut self) -> bool {
        self.last_removed = false;
        let Some(tree) = self.tree.as_mut().filter(|_| self.shown) else {
            return false;
        };
        if !self.removal_tried {
            self.removal_tried = true;
            self.shown = false;
            self.last_removed = true;
            return true;
        }
        tree.simplify()
    }

    fn complicate(&mut self) -> bool {
        if std::mem::take(&mut self.last_removed) {
            self.shown = true;
            return true;
        }
        match self.tree.as_mut().filter(|_| self.shown) {
            Some(tree) => tree.complicate(),
            None => false,
        }
    }
}
