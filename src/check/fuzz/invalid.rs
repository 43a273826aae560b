//! Arguments broken in one named way: a property of the wrong type, out of range, too
//! long or short, outside its enum; a required property missing; an undeclared one where
//! `additionalProperties` is false; or arguments that are not an object at all.

use std::rc::Rc;

use proptest::prelude::{Strategy, any};
use serde_json::{Map, Value};

use super::budget::{At, Budget, Depth, Gen, MAX_SIZE};
use super::error::FuzzError;
use super::numbers::{FloatStrategy, IntStrategy};
use super::schema::{Bounds, JsonType, admits, count, types};
use super::text::strings;
use super::valid::{Entry, Generator, assemble, required, unused_name};

/// One way to break the arguments, and what it breaks.
pub(super) struct Broken {
    pub(super) what: String,
    pub(super) values: Gen,
}

/// The types tried in place of a property's own.
const WRONG_TYPES: [JsonType; 7] = [
    JsonType::String,
    JsonType::Integer,
    JsonType::Boolean,
    JsonType::Null,
    JsonType::Number,
    JsonType::Array,
    JsonType::Object,
];

/// Values of `ty` (numbers: with a fraction, so never an integer).
fn of_type(ty: JsonType, budget: &Budget) -> Gen {
    match ty {
        JsonType::Null => Gen::just(Value::Null),
        JsonType::Boolean => Gen::scalar(any::<bool>().prop_map(Value::Bool).boxed()),
        JsonType::Integer => IntStrategy::new(-1_000_000, 1_000_000, 1).map_or_else(
            || Gen::just(Value::from(7)),
            |ints| Gen::scalar(ints.boxed()),
        ),
        JsonType::Number => Gen::scalar(
            FloatStrategy {
                lo: -1000.5,
                hi: 1000.5,
            }
            .prop_map(|v| match v.as_f64() {
                Some(f) if f.fract() != 0.0 => v,
                _ => Value::from(0.5),
            })
            .boxed(),
        ),
        JsonType::String => strings(0, 16, budget),
        JsonType::Array => Gen::just(Value::Array(vec![Value::from(1)])),
        JsonType::Object => Gen::just(Value::Object(Map::new())),
    }
}

/// "an integer or null".
fn described(types: &[JsonType]) -> String {
    types
        .iter()
        .map(|ty| ty.described())
        .collect::<Vec<_>>()
        .join(" or ")
}

impl Generator<'_> {
    /// Every way this schema's arguments can be broken, but those whose smallest value
    /// would pass the size limit.
    pub(super) fn broken(&self, schema: &Value) -> Result<Vec<Broken>, FuzzError> {
        let mut depth = Depth::default();
        let at = At::default();
        let Some(flat) = self.root.flatten(schema, &at, &mut depth)? else {
            return Ok(Vec::new());
        };
        let Value::Object(map) = flat.as_ref() else {
            return Ok(Vec::new());
        };
        let allowed = types(map);
        let mut out = Vec::new();
        for ty in [
            JsonType::String,
            JsonType::Array,
            JsonType::Null,
            JsonType::Integer,
        ] {
            if !admits(&allowed, ty) {
                out.push(Broken {
                    what: format!(
                        "the arguments are {}, not {}",
                        ty.described(),
                        described(&allowed)
                    ),
                    values: of_type(ty, &self.budget),
                });
            }
        }
        if allowed == [JsonType::Object] {
            self.broken_properties(map, &at, depth, &mut out)?;
        }
        out.retain(|broken| broken.values.floor <= MAX_SIZE);
        Ok(out)
    }

    fn broken_properties(
        &self,
        map: &Map<String, Value>,
        at: &At,
        depth: Depth,
        out: &mut Vec<Broken>,
    ) -> Result<(), FuzzError> {
        let Some(entries) = self.entries(map, at, depth)? else {
            return Ok(());
        };
        let entries = Rc::new(entries);
        // The object with entry `name` replaced (or left out, for `None`).
        let with = |name: &str, values: Option<Gen>| {
            let extra = values.map(|values| Entry::always(name, values));
            assemble(&entries, Some(name), extra)
        };
        let empty = Map::new();
        let properties = match map.get("properties") {
            Some(Value::Object(properties)) => properties,
            _ => &empty,
        };
        let under = at.child("properties");
        for (name, schema) in properties {
            let mut depth = depth.deeper();
            let Some(schema) = self.root.flatten(schema, &under.child(name), &mut depth)? else {
                continue;
            };
            let Value::Object(schema) = schema.as_ref() else {
                continue;
            };
            for (what, values) in broken_value(schema, &self.budget) {
                out.push(Broken {
                    what: format!("`{name}` {what}"),
                    values: with(name, Some(values)),
                });
            }
        }
        for name in required(map) {
            out.push(Broken {
                what: format!("required `{name}` is missing"),
                values: with(&name, None),
            });
        }
        if map.get("additionalProperties") == Some(&Value::Bool(false)) {
            let name = unused_name(properties, "unexpected");
            out.push(Broken {
                what: format!("`{name}` is not a declared property"),
                values: with(&name, Some(strings(0, 8, &self.budget))),
            });
        }
        Ok(())
    }
}

/// Values breaking a property's schema, each with what is wrong ("is a string, not an
/// integer").
fn broken_value(schema: &Map<String, Value>, budget: &Budget) -> Vec<(String, Gen)> {
    let mut out = Vec::new();
    let allowed = types(schema);
    if let Some(wrong) = WRONG_TYPES.into_iter().find(|ty| !admits(&allowed, *ty)) {
        out.push((
            format!("is {}, not {}", wrong.described(), described(&allowed)),
            of_type(wrong, budget),
        ));
    }
    let numeric = admits(&allowed, JsonType::Integer);
    let bounds = Bounds::of(schema);
    if numeric && let Some((b, exclusive)) = bounds.lo {
        let below = if exclusive { b.floor() } else { b.ceil() - 1.0 };
        if let Some(values) =
            IntStrategy::new(i64::MIN, below as i64, 1).filter(|_| below > i64::MIN as f64)
        {
            out.push((
                format!("is below its minimum {b}"),
                Gen::scalar(values.boxed()),
            ));
        }
    }
    if numeric && let Some((b, exclusive)) = bounds.hi {
        let above = if exclusive { b.ceil() } else { b.floor() + 1.0 };
        if let Some(values) =
            IntStrategy::new(above as i64, i64::MAX, 1).filter(|_| above < i64::MAX as f64)
        {
            out.push((
                format!("is above its maximum {b}"),
                Gen::scalar(values.boxed()),
            ));
        }
    }
    if admits(&allowed, JsonType::String) {
        if let Some(max) = count(schema, "maxLength").filter(|max| *max < 1 << 16) {
            out.push((
                format!("is longer than its maxLength {max}"),
                strings(max + 1, max + 64, budget),
            ));
        }
        if let Some(min) = count(schema, "minLength").filter(|min| (1..1 << 16).contains(min)) {
            out.push((
                format!("is shorter than its minLength {min}"),
                strings(0, min - 1, budget),
            ));
        }
    }
    if schema.contains_key("enum") {
        out.push((
            "is not one of its enum values".to_owned(),
            strings(0, 12, budget),
        ));
    }
    out
}
