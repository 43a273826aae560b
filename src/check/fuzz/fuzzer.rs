//! The generator `check` draws a tool's calls from: seeded, so a run can be repeated.

use std::sync::Arc;

use proptest::prelude::{RngExt, Strategy};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::Value;

use super::budget::{At, Budget, Depth, Gen, MAX_SIZE, json_size};
use super::case::{Case, Fixed};
use super::error::FuzzError;
use super::invalid::Broken;
use super::schema::Root;
use super::valid::Generator;

/// Values drawn before one of the wanted kind is given up on: generation cannot honour
/// every keyword, and the validator turns the misses down.
const TRIES: usize = 32;
/// Values drawn when looking for any valid one at all, for a schema whose plain example
/// does not validate.
const EXAMPLE_TRIES: usize = 256;

/// Tool arguments generated from a tool's JSON Schema: about 3 valid cases for each
/// invalid one. Not `Send` (proptest's strategies are not).
pub(crate) struct Fuzzer {
    runner: TestRunner,
    validator: Arc<jsonschema::Validator>,
    valid: Option<Gen>,
    broken: Vec<Broken>,
    example: Value,
    /// What the value being drawn may still grow by, shared with the strategies.
    budget: Budget,
}

impl std::fmt::Debug for Fuzzer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fuzzer")
            .field("example", &self.example)
            .finish_non_exhaustive()
    }
}

/// The runner for a seed: the same seed draws the same values on every system.
fn runner(seed: u64) -> TestRunner {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
    )
}

impl Fuzzer {
    /// Err when the schema is not usable (not an object/boolean schema), or asks for
    /// more than generation builds: too deep, too many properties or items, a pattern
    /// too costly, or values over 1 MiB of JSON at their smallest. Those limits
    /// are checked as the strategies are built, before any value is.
    pub(crate) fn new(schema: &Value, seed: u64) -> Result<Fuzzer, FuzzError> {
        let found = match schema {
            Value::Object(_) | Value::Bool(_) => None,
            Value::Null => Some("null"),
            Value::Number(_) => Some("a number"),
            Value::String(_) => Some("a string"),
            Value::Array(_) => Some("an array"),
        };
        if let Some(found) = found {
            return Err(FuzzError::NotASchema { found });
        }
        let generator = Generator {
            root: Root::new(schema),
            budget: Budget::default(),
        };
        let valid = generator.valid(schema, &At::default(), Depth::default())?;
        generator.root.restart();
        let broken = generator.broken(schema)?;
        generator.root.restart();
        let example = generator
            .root
            .example(schema, &At::default(), Depth::default())?;
        let validator = Arc::new(
            jsonschema::validator_for(schema).map_err(|err| FuzzError::Invalid(err.to_string()))?,
        );
        let budget = generator.budget;
        let example = match example {
            Some(example) if json_size(&example) <= MAX_SIZE && validator.is_valid(&example) => {
                example
            }
            // The plain value misses some keyword; the first valid draw of a fixed
            // seed stands in, so the example does not depend on the run's seed.
            _ => {
                first_valid(valid.as_ref(), &validator, &budget).ok_or(FuzzError::Unsatisfiable)?
            }
        };
        Ok(Fuzzer {
            runner: runner(seed),
            validator,
            valid,
            broken,
            example,
            budget,
        })
    }

    /// The same fuzzer drawing only arguments the schema allows: what a run sends.
    pub(crate) fn valid_only(mut self) -> Fuzzer {
        self.broken.clear();
        self
    }

    /// A simple, deterministic valid value: required properties only, short ASCII strings,
    /// numbers at a small in-range value, first enum member; used for ordinary requests.
    pub(crate) fn example(&self) -> Value {
        self.example.clone()
    }

    /// The next case; deterministic for a seed; mixes valid and invalid (about 3 valid : 1
    /// invalid). Where the schema admits everything no case is invalid; where drawing a
    /// valid value keeps missing, the example is the case.
    pub(crate) fn next_case(&mut self) -> Case {
        let want_valid = self.broken.is_empty() || self.runner.rng().random_ratio(3, 4);
        let case = if want_valid {
            self.valid_case().or_else(|| self.invalid_case())
        } else {
            self.invalid_case().or_else(|| self.valid_case())
        };
        case.unwrap_or_else(|| {
            let tree = Box::new(Fixed(self.example.clone()));
            Case::new(tree, self.validator.clone(), None)
        })
    }

    fn valid_case(&mut self) -> Option<Case> {
        let strategy = self.valid.as_ref()?;
        for _ in 0..TRIES {
            self.budget.reset(strategy.floor);
            let Ok(tree) = strategy.values.new_tree(&mut self.runner) else {
                continue;
            };
            if self.validator.is_valid(&tree.current()) {
                return Some(Case::new(tree, self.validator.clone(), None));
            }
        }
        None
    }

    fn invalid_case(&mut self) -> Option<Case> {
        if self.broken.is_empty() {
            return None;
        }
        for _ in 0..TRIES {
            let pick = self.runner.rng().random_range(0..self.broken.len());
            let broken = &self.broken[pick];
            self.budget.reset(broken.values.floor);
            let Ok(tree) = broken.values.values.new_tree(&mut self.runner) else {
                continue;
            };
            if !self.validator.is_valid(&tree.current()) {
                let what = broken.what.clone();
                return Some(Case::new(tree, self.validator.clone(), Some(what)));
            }
        }
        None
    }
}

/// The first valid value a fixed seed draws.
fn first_valid(
    valid: Option<&Gen>,
    validator: &jsonschema::Validator,
    budget: &Budget,
) -> Option<Value> {
    let strategy = valid?;
    let mut runner = runner(0);
    (0..EXAMPLE_TRIES).find_map(|_| {
        budget.reset(strategy.floor);
        let value = strategy.values.new_tree(&mut runner).ok()?.current();
        validator.is_valid(&value).then_some(value)
    })
}
