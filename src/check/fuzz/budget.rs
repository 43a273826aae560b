//! The limits generation holds a schema to, checked before anything is built, and
//! the size budget one generated value draws from.
//!
//! Every strategy knows its floor: the most bytes of JSON its value takes when it
//! grows by nothing beyond what the schema demands (required properties, `minItems`,
//! `minLength`...). A schema whose floor passes [`MAX_SIZE`] is refused. Growth
//! beyond the floor (an optional property, an extra item or character) is paid for
//! from a [`Budget`] reset before each value is drawn, so no value passes
//! [`MAX_SIZE`] bytes of JSON, whatever the schema multiplies.

use std::cell::Cell;
use std::fmt;
use std::rc::Rc;

use serde_json::Value;

/// Levels of subschemas one path through a schema may nest (`properties`, `items`,
/// `anyOf`, `allOf`... each count one).
pub(super) const MAX_DEPTH: usize = 32;
/// Subschemas one schema may make generation visit, `$ref`s followed.
pub(super) const MAX_SUBSCHEMAS: usize = 20_000;
/// Properties (declared or required) of one object.
pub(super) const MAX_PROPERTIES: usize = 1_024;
/// `minItems`, and item schemas of a tuple.
pub(super) const MAX_ITEMS: u64 = 4_096;
/// `minLength`.
pub(super) const MAX_LENGTH: u64 = 65_536;
/// `minProperties`.
pub(super) const MAX_MIN_PROPERTIES: u64 = 1_024;
/// Bytes of JSON one generated value may take.
pub(super) const MAX_SIZE: u64 = 1 << 20;

/// Most bytes of JSON a number, a boolean or null takes (`-9223372036854775808`,
/// `-1.7976931348623157e308`).
pub(super) const SCALAR: u64 = 24;
/// Most bytes of JSON one character of a string takes (`\u0000`).
pub(super) const PER_CHAR: u64 = 6;

/// Bytes of JSON a string of `chars` characters takes at most.
pub(super) fn string_size(chars: u64) -> u64 {
    chars.saturating_mul(PER_CHAR).saturating_add(2)
}

/// Bytes of JSON `value` takes at most: its text, each string counted as if every
/// character needed an escape.
pub(super) fn json_size(value: &Value) -> u64 {
    let mut size = 0u64;
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        size = size.saturating_add(match value {
            Value::Null | Value::Bool(true) => 4,
            Value::Bool(false) => 5,
            Value::Number(_) => SCALAR,
            Value::String(text) => string_size(text.chars().count() as u64),
            Value::Array(items) => {
                stack.extend(items);
                2 + items.len() as u64
            }
            Value::Object(map) => {
                stack.extend(map.values());
                map.keys().fold(2, |sum, key| {
                    sum + string_size(key.chars().count() as u64) + 2
                })
            }
        });
    }
    size
}

/// What is left of [`MAX_SIZE`] for the value being drawn, shared by all the
/// strategies of one schema.
#[derive(Debug, Clone, Default)]
pub(super) struct Budget(Rc<Cell<u64>>);

impl Budget {
    /// Before a value whose strategy has floor `floor` is drawn.
    pub(super) fn reset(&self, floor: u64) {
        self.0.set(MAX_SIZE.saturating_sub(floor));
    }

    /// How many of `wanted` extras costing `each` are paid for, and pays.
    pub(super) fn take(&self, wanted: usize, each: u64) -> usize {
        let left = self.0.get();
        let paid = match left.checked_div(each) {
            Some(affordable) => (wanted as u64).min(affordable),
            None => wanted as u64,
        };
        self.0.set(left - paid * each);
        usize::try_from(paid).unwrap_or(wanted)
    }
}

/// Where a subschema is, as a JSON Pointer into the tool's schema (`$ref`s are
/// followed in place, so a path through one names where it was used).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct At(String);

impl At {
    pub(super) fn child(&self, segment: impl fmt::Display) -> At {
        let segment = segment.to_string().replace('~', "~0").replace('/', "~1");
        At(format!("{}/{segment}", self.0))
    }

    /// The pointer itself: empty for the whole schema.
    #[cfg(test)]
    pub(crate) fn pointer(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for At {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("the root")
        } else {
            write!(f, "`{}`", self.0)
        }
    }
}

/// How deep a subschema is: levels of nesting, and `$ref`s followed to reach it.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Depth {
    pub(super) level: usize,
    pub(super) refs: usize,
}

impl Depth {
    pub(super) fn deeper(self) -> Depth {
        Depth {
            level: self.level + 1,
            ..self
        }
    }
}

/// A strategy for values, and its floor: the most bytes of JSON a value takes
/// before any growth the budget pays for.
#[derive(Debug, Clone)]
pub(super) struct Gen {
    pub(super) values: proptest::strategy::BoxedStrategy<Value>,
    pub(super) floor: u64,
}

impl Gen {
    /// Always `value`.
    pub(super) fn just(value: Value) -> Gen {
        use proptest::strategy::{Just, Strategy};
        Gen {
            floor: json_size(&value),
            values: Just(value).boxed(),
        }
    }

    /// A scalar strategy.
    pub(super) fn scalar(values: proptest::strategy::BoxedStrategy<Value>) -> Gen {
        Gen {
            values,
            floor: SCALAR,
        }
    }
}
