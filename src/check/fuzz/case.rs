//! One generated call, and shrinking it against the tool: the value tree is walked by
//! hand so that each step can await the tool instead of blocking on it.

use std::collections::HashMap;
use std::future::Future;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;

use proptest::strategy::ValueTree;
use serde_json::Value;

/// Tree steps allowed per oracle call: candidates the validator turns down, or already
/// seen, cost no call but still take a step.
const STEPS_PER_CALL: usize = 64;

/// Arguments for one call, and whether the schema allows them. Not `Send`: proptest's
/// value trees are not, so a case is shrunk on the task that made it.
pub(crate) struct Case {
    pub args: Value,
    /// The arguments satisfy the tool's schema.
    pub valid: bool,
    /// For invalid arguments, what breaks them: "`count` is a string, not an integer".
    pub broken: Option<String>,
    tree: Box<dyn ValueTree<Value = Value>>,
    validator: Arc<jsonschema::Validator>,
}

impl std::fmt::Debug for Case {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Case")
            .field("args", &self.args)
            .field("valid", &self.valid)
            .field("broken", &self.broken)
            .finish_non_exhaustive()
    }
}

impl Case {
    pub(super) fn new(
        tree: Box<dyn ValueTree<Value = Value>>,
        validator: Arc<jsonschema::Validator>,
        broken: Option<String>,
    ) -> Case {
        Case {
            args: tree.current(),
            valid: broken.is_none(),
            broken,
            tree,
            validator,
        }
    }

    /// Shrinks to a smaller input that still fails (`still_fails` returns true when the
    /// tool still fails on it), within `budget` oracle calls; returns the smallest found.
    /// A valid case only shrinks to valid arguments, an invalid one to invalid ones, and
    /// the oracle is never asked twice about the same arguments.
    pub(crate) async fn shrink<F, Fut>(self, mut still_fails: F, budget: usize) -> Value
    where
        F: FnMut(Value) -> Fut,
        Fut: Future<Output = bool>,
    {
        let Case {
            args,
            valid,
            mut tree,
            validator,
            ..
        } = self;
        let mut best = args;
        // Candidates are known by a hash of their text: keeping each text would hold
        // up to a value's size per step.
        let mut seen = HashMap::from([(key_of(&best), true)]);
        let mut calls = 0;
        let max_steps = budget.saturating_mul(STEPS_PER_CALL);
        if budget == 0 || !tree.simplify() {
            return best;
        }
        for _ in 0..max_steps {
            let candidate = tree.current();
            let key = key_of(&candidate);
            let fails = match seen.get(&key) {
                Some(&fails) => fails,
                None if validator.is_valid(&candidate) != valid => {
                    seen.insert(key, false);
                    false
                }
                None if calls >= budget => break,
                None => {
                    calls += 1;
                    let fails = still_fails(candidate.clone()).await;
                    seen.insert(key, fails);
                    fails
                }
            };
            if fails {
                if size(&candidate) <= size(&best) {
                    best = candidate;
                }
                if !tree.simplify() {
                    break;
                }
            } else if !tree.complicate() && !tree.simplify() {
                // proptest's composite trees stop at the first part that cannot be
                // complicated; simplifying on reaches the parts after it.
                break;
            }
        }
        best
    }
}

/// A fingerprint of a value's JSON text.
fn key_of(value: &Value) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.to_string().hash(&mut hasher);
    hasher.finish()
}

/// How big arguments read: the length of their JSON.
fn size(value: &Value) -> usize {
    value.to_string().chars().count()
}

/// A value that does not shrink.
pub(super) struct Fixed(pub(super) Value);

impl ValueTree for Fixed {
    type Value = Value;

    fn current(&self) -> Value {
        self.0.clone()
    }
    fn simplify(&mut self) -> bool {
        false
    }
    fn complicate(&mut self) -> bool {
        false
    }
}
