//! The plain value for an ordinary request: required properties only, a short ASCII
//! string, a small in-range number, the first enum member, the first branch.

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::TestRunner;
use serde_json::{Map, Value};

use super::budget::{At, Depth};
use super::error::FuzzError;
use super::schema::{Bounds, JsonType, Root, count, merge, types};
use super::text::{format_pattern, matching};
use super::valid::{integers, required};

/// A plain value, `None` when none comes out (the validator may still reject one
/// that does), or why the schema is refused.
type Example = Result<Option<Value>, FuzzError>;

impl Root<'_> {
    /// Walks the schema as [`Generator::valid`](super::valid::Generator::valid) does,
    /// so it is held to the same limits; called once that has accepted the schema,
    /// whose floors bound the example's size.
    pub(super) fn example(&self, schema: &Value, at: &At, depth: Depth) -> Example {
        if !self.enter(at, depth, 1)? {
            return Ok(None);
        }
        let mut depth = depth;
        let Some(flat) = self.flatten(schema, at, &mut depth)? else {
            return Ok(None);
        };
        let map = match flat.as_ref() {
            Value::Bool(false) => return Ok(None),
            Value::Object(map) => map,
            _ => return Ok(Some(Value::Object(Map::new()))),
        };
        if let Some(value) = map.get("const") {
            return Ok(Some(value.clone()));
        }
        if let Some(Value::Array(members)) = map.get("enum") {
            return Ok(members.first().cloned());
        }
        // What the schema says a call sends is the plainest call there is.
        if let Some(given) = super::schema::given(map).into_iter().next() {
            return Ok(Some(given));
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = map.get(key) {
                let mut rest = map.clone();
                rest.remove(key);
                let at = at.child(key);
                for (index, branch) in branches.iter().enumerate() {
                    let joined = merge(Value::Object(rest.clone()), branch.clone());
                    let found =
                        self.example(&Value::Object(joined), &at.child(index), depth.deeper())?;
                    if found.is_some() {
                        return Ok(found);
                    }
                }
                return Ok(None);
            }
        }
        let mut allowed = types(map);
        // With no type to go by, an object is the likeliest to be wanted.
        if allowed == JsonType::ALL {
            allowed = vec![JsonType::Object];
        }
        for ty in allowed {
            if let Some(found) = self.typed_example(map, ty, at, depth)? {
                return Ok(Some(found));
            }
        }
        Ok(None)
    }

    fn typed_example(
        &self,
        map: &Map<String, Value>,
        ty: JsonType,
        at: &At,
        depth: Depth,
    ) -> Example {
        Ok(match ty {
            JsonType::Null => Some(Value::Null),
            JsonType::Boolean => Some(Value::Bool(true)),
            JsonType::Integer => integers(map).map(|ints| ints.example()),
            JsonType::Number => number_example(map),
            JsonType::String => Some(Value::String(string_example(map, at)?)),
            JsonType::Array => {
                let min = count(map, "minItems").unwrap_or(0);
                let (items, at) = match (map.get("prefixItems"), map.get("items")) {
                    (Some(Value::Array(items)), _) => (items, at.child("prefixItems")),
                    (None, Some(Value::Array(items))) => (items, at.child("items")),
                    (_, Some(items)) => {
                        if min == 0 {
                            return Ok(Some(Value::Array(Vec::new())));
                        }
                        let item = self.example(items, &at.child("items"), depth.deeper())?;
                        return Ok(item.map(|item| Value::Array(vec![item; min])));
                    }
                    (_, None) => {
                        let item = Value::Object(Map::new());
                        return Ok(Some(Value::Array(vec![item; min])));
                    }
                };
                let mut out = Vec::new();
                for (index, item) in items.iter().enumerate() {
                    match self.example(item, &at.child(index), depth.deeper())? {
                        Some(item) => out.push(item),
                        None => return Ok(None),
                    }
                }
                Some(Value::Array(out))
            }
            JsonType::Object => {
                let properties = map.get("properties").and_then(Value::as_object);
                let under = at.child("properties");
                let mut out = Map::new();
                for name in required(map) {
                    let value = match properties.and_then(|p| p.get(&name)) {
                        Some(schema) => {
                            match self.example(schema, &under.child(&name), depth.deeper())? {
                                Some(value) => value,
                                None => return Ok(None),
                            }
                        }
                        None => Value::String("example".to_owned()),
                    };
                    out.insert(name, value);
                }
                Some(Value::Object(out))
            }
        })
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
fn string_example(map: &Map<String, Value>, at: &At) -> Result<String, FuzzError> {
    let pattern = map.get("pattern").and_then(Value::as_str).or_else(|| {
        map.get("format")
            .and_then(Value::as_str)
            .and_then(format_pattern)
    });
    if let Some(pattern) = pattern
        && let Some(generated) = matching(pattern, &at.child("pattern"))?
    {
        let mut runner = TestRunner::deterministic();
        if let Ok(mut tree) = generated.values.new_tree(&mut runner) {
            while tree.simplify() {}
            if let Value::String(text) = tree.current() {
                return Ok(text);
            }
        }
    }
    let min = count(map, "minLength").unwrap_or(0);
    let max = count(map, "maxLength").unwrap_or(usize::MAX);
    let mut text: String = "example".chars().take(max).collect();
    let short = min.saturating_sub(text.chars().count());
    text.extend(std::iter::repeat_n('a', short));
    Ok(text)
}
