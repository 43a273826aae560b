//! The plain value for an ordinary request: required properties only, a short ASCII
//! string, a small in-range number, the first enum member, the first branch.

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use serde_json::{Map, Value};

use super::schema::{Bounds, JsonType, Root, count, merge, types};
use super::text::{format_pattern, matching};
use super::valid::{integers, required};

impl Root<'_> {
    /// `None` when no plain value comes out (the validator may still reject one that
    /// does).
    pub(super) fn example(&self, schema: &Value, depth: usize) -> Option<Value> {
        let mut depth = depth;
        let map = match self.flatten(schema, &mut depth)? {
            Value::Bool(false) => return None,
            Value::Object(map) => map,
            _ => return Some(Value::Object(Map::new())),
        };
        if let Some(value) = map.get("const") {
            return Some(value.clone());
        }
        if let Some(Value::Array(members)) = map.get("enum") {
            return members.first().cloned();
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = map.get(key) {
                let mut rest = map.clone();
                rest.remove(key);
                return branches.iter().find_map(|branch| {
                    let joined = merge(Value::Object(rest.clone()), branch.clone());
                    self.example(&Value::Object(joined), depth)
                });
            }
        }
        let mut allowed = types(&map);
        // With no type to go by, an object is the likeliest to be wanted.
        if allowed == JsonType::ALL {
            allowed = vec![JsonType::Object];
        }
        allowed
            .into_iter()
            .find_map(|ty| self.typed_example(&map, ty, depth))
    }

    fn typed_example(&self, map: &Map<String, Value>, ty: JsonType, depth: usize) -> Option<Value> {
        match ty {
            JsonType::Null => Some(Value::Null),
            JsonType::Boolean => Some(Value::Bool(true)),
            JsonType::Integer => Some(integers(map)?.example()),
            JsonType::Number => number_example(map),
            JsonType::String => Some(Value::String(string_example(map))),
            JsonType::Array => {
                let min = count(map, "minItems").unwrap_or(0);
                let items = match (map.get("prefixItems"), map.get("items")) {
                    (Some(Value::Array(items)), _) | (None, Some(Value::Array(items))) => {
                        return items
                            .iter()
                            .map(|item| self.example(item, depth))
                            .collect::<Option<Vec<_>>>()
                            .map(Value::Array);
                    }
                    (_, Some(items)) => items.clone(),
                    (_, None) => Value::Bool(true),
                };
                if min == 0 {
                    return Some(Value::Array(Vec::new()));
                }
                let item = self.example(&items, depth)?;
                Some(Value::Array(vec![item; min]))
            }
            JsonType::Object => {
                let properties = map.get("properties").and_then(Value::as_object);
                let mut out = Map::new();
                for name in required(map) {
                    let value = match properties.and_then(|p| p.get(&name)) {
                        Some(schema) => self.example(schema, depth)?,
                        None => Value::String("example".to_owned()),
                    };
                    out.insert(name, value);
                }
                Some(Value::Object(out))
            }
        }
    }
}

fn number_example(map: &Map<String, Value>) -> Option<Value> {
    if let Some(whole) = integers(map) {
        return Some(whole.example());
    }
    // No whole number fits (or `multipleOf` is a fraction): inside the bounds.
    let bounds = Bounds::of(map);
    let value = match (bounds.lo, bounds.hi) {
        (Some((lo, _)), Some((hi, _))) => lo + (hi - lo) / 2.0,
        (Some((lo, _)), None) => lo + 0.5,
        (None, Some((hi, _))) => hi - 0.5,
        (None, None) => map.get("multipleOf").and_then(Value::as_f64).unwrap_or(0.5),
    };
    value.is_finite().then(|| Value::from(value))
}

/// "example" cut or padded to the length bounds; for a pattern or a known format, the
/// simplest string it matches.
fn string_example(map: &Map<String, Value>) -> String {
    let pattern = map.get("pattern").and_then(Value::as_str).or_else(|| {
        map.get("format")
            .and_then(Value::as_str)
            .and_then(format_pattern)
    });
    if let Some(strategy) = pattern.and_then(matching) {
        let mut runner = TestRunner::deterministic();
        if let Ok(mut tree) = strategy.new_tree(&mut runner) {
            while tree.simplify() {}
            return tree.current();
        }
    }
    let min = count(map, "minLength").unwrap_or(0);
    let max = count(map, "maxLength").unwrap_or(usize::MAX);
    let mut text: String = "example".chars().take(max).collect();
    let short = min.saturating_sub(text.chars().count());
    text.extend(std::iter::repeat_n('a', short));
    text
}
