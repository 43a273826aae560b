//! The generator `check` draws a tool's calls from: seeded, so a run can be repeated.

use std::sync::Arc;

use proptest::prelude::{BoxedStrategy, RngExt, Strategy};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::Value;

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
pub struct Fuzzer {
    runner: TestRunner,
    validator: Arc<jsonschema::Validator>,
    valid: Option<BoxedStrategy<Value>>,
    broken: Vec<Broken>,
    example: Value,
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
    /// Err when the schema is not usable (not an object/boolean schema).
    pub fn new(schema: &Value, seed: u64) -> Result<Fuzzer, FuzzError> {
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
        within_limits(schema)?;
        let validator = Arc::new(
            jsonschema::validator_for(schema).map_err(|err| FuzzError::Invalid(err.to_string()))?,
        );
        let generator = Generator { root: Root(schema) };
        let valid = generator.valid(schema, 0);
        let broken = generator.broken(schema);
        let example = match generator.root.example(schema, 0) {
            Some(example) if validator.is_valid(&example) => example,
            // The plain value misses some keyword; the first valid draw of a fixed
            // seed stands in, so the example does not depend on the run's seed.
            _ => first_valid(valid.as_ref(), &validator).ok_or(FuzzError::Unsatisfiable)?,
        };
        Ok(Fuzzer {
            runner: runner(seed),
            validator,
            valid,
            broken,
            example,
        })
    }

    /// A simple, deterministic valid value: required properties only, short ASCII strings,
    /// numbers at a small in-range value, first enum member; used for ordinary requests.
    pub fn example(&self) -> Value {
        self.example.clone()
    }

    /// The next case; deterministic for a seed; mixes valid and invalid (about 3 valid : 1
    /// invalid). Where the schema admits everything no case is invalid; where drawing a
    /// valid value keeps missing, the example is the case.
    pub fn next_case(&mut self) -> Case {
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
            let Ok(tree) = strategy.new_tree(&mut self.runner) else {
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
            let Ok(tree) = broken.values.new_tree(&mut self.runner) else {
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
    valid: Option<&BoxedStrategy<Value>>,
    validator: &jsonschema::Validator,
) -> Option<Value> {
    let strategy = valid?;
    let mut runner = runner(0);
    (0..EXAMPLE_TRIES).find_map(|_| {
        let value = strategy.new_tree(&mut runner).ok()?.current();
        validator.is_valid(&value).then_some(value)
    })
}

/// The largest sizes a schema may ask for: a generated value stays small enough to
/// build, send and shrink in a moment, whatever a server advertises.
const SIZE_LIMITS: [(&str, u64); 3] = [
    ("minLength", 65_536),
    ("minItems", 4_096),
    ("minProperties", 1_024),
];

/// Refuses a schema whose size keywords, anywhere in it, ask for more than
/// [`SIZE_LIMITS`].
fn within_limits(schema: &Value) -> Result<(), FuzzError> {
    match schema {
        Value::Object(map) => {
            for (keyword, limit) in SIZE_LIMITS {
                if let Some(value) = map.get(keyword).and_then(Value::as_u64)
                    && value > limit
                {
                    return Err(FuzzError::TooLarge {
                        keyword,
                        value,
                        limit,
                    });
                }
            }
            map.values().try_for_each(within_limits)
        }
        Value::Array(items) => items.iter().try_for_each(within_limits),
        _ => Ok(()),
    }
}
