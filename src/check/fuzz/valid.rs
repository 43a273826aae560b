//! Strategies for values that satisfy a schema, keyword by keyword. Generation is best
//! effort: the validator has the last word on every case.

use proptest::option;
use proptest::prelude::{BoxedStrategy, Just, Strategy, any};
use proptest::sample::select;
use proptest::strategy::Union;
use serde_json::{Map, Value};

use super::numbers::{FloatStrategy, IntStrategy};
use super::schema::{Bounds, JsonType, Root, count, merge, types};
use super::seq::{Lengths, SeqStrategy};
use super::text::{format_pattern, matching, strings};

/// Most items an array gets beyond its `minItems` when `maxItems` does not say.
const MAX_EXTRA_ITEMS: usize = 16;
/// The largest magnitude a number with a fraction gets when the schema sets no bound.
const FLOAT_LIMIT: f64 = 1e300;

/// One property of a generated object: a name and a value, or nothing when it is left
/// out.
#[derive(Clone)]
pub(super) struct Entry {
    pub(super) name: String,
    pub(super) strategy: BoxedStrategy<Option<(String, Value)>>,
}

impl Entry {
    fn always(name: &str, values: BoxedStrategy<Value>) -> Entry {
        let owned = name.to_owned();
        Entry {
            name: name.to_owned(),
            strategy: values.prop_map(move |v| Some((owned.clone(), v))).boxed(),
        }
    }

    /// Present about half the time; shrinking tries leaving it out first.
    fn sometimes(name: &str, values: BoxedStrategy<Value>) -> Entry {
        let owned = name.to_owned();
        Entry {
            name: name.to_owned(),
            strategy: option::weighted(0.5, values.prop_map(move |v| (owned.clone(), v))).boxed(),
        }
    }
}

/// An object of `entries`, in their order.
pub(super) fn assemble(entries: Vec<Entry>) -> BoxedStrategy<Value> {
    entries
        .into_iter()
        .map(|entry| entry.strategy)
        .collect::<Vec<_>>()
        .prop_map(|entries| Value::Object(entries.into_iter().flatten().collect()))
        .boxed()
}

/// Builds strategies over one root schema.
pub(super) struct Generator<'a> {
    pub(super) root: Root<'a>,
}

impl Generator<'_> {
    /// Values satisfying `schema`; `None` when generation cannot make any (`false`, an
    /// empty `enum`, a `$ref` chain past the depth limit, ...).
    pub(super) fn valid(&self, schema: &Value, depth: usize) -> Option<BoxedStrategy<Value>> {
        let mut depth = depth;
        let schema = self.root.flatten(schema, &mut depth)?;
        let map = match schema {
            Value::Bool(false) => return None,
            Value::Object(map) => map,
            _ => return Some(any_json()),
        };
        if map.contains_key("not") && map.len() == 1 {
            return None;
        }
        if let Some(value) = map.get("const") {
            return Some(Just(value.clone()).boxed());
        }
        if let Some(Value::Array(members)) = map.get("enum") {
            return (!members.is_empty()).then(|| select(members.clone()).boxed());
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = map.get(key) {
                let mut rest = map.clone();
                rest.remove(key);
                let options: Vec<_> = branches
                    .iter()
                    .filter_map(|branch| {
                        let joined = merge(Value::Object(rest.clone()), branch.clone());
                        self.valid(&Value::Object(joined), depth)
                    })
                    .collect();
                return (!options.is_empty()).then(|| Union::new(options).boxed());
            }
        }
        let options: Vec<_> = types(&map)
            .into_iter()
            .filter_map(|ty| self.typed(&map, ty, depth))
            .collect();
        (!options.is_empty()).then(|| Union::new(options).boxed())
    }

    fn typed(
        &self,
        map: &Map<String, Value>,
        ty: JsonType,
        depth: usize,
    ) -> Option<BoxedStrategy<Value>> {
        match ty {
            JsonType::Null => Some(Just(Value::Null).boxed()),
            JsonType::Boolean => Some(any::<bool>().prop_map(Value::Bool).boxed()),
            JsonType::Integer => integers(map).map(Strategy::boxed),
            JsonType::Number => numbers(map),
            JsonType::String => Some(self.string(map)),
            JsonType::Array => self.array(map, depth),
            JsonType::Object => self.entries(map, depth).map(assemble),
        }
    }

    fn string(&self, map: &Map<String, Value>) -> BoxedStrategy<Value> {
        let pattern = map.get("pattern").and_then(Value::as_str).or_else(|| {
            map.get("format")
                .and_then(Value::as_str)
                .and_then(format_pattern)
        });
        // A pattern proptest cannot generate from is left to the validator.
        if let Some(generated) = pattern.and_then(matching) {
            return generated.prop_map(Value::String).boxed();
        }
        let min = count(map, "minLength").unwrap_or(0);
        let max = count(map, "maxLength").unwrap_or(usize::MAX);
        strings(min, max)
    }

    fn array(&self, map: &Map<String, Value>, depth: usize) -> Option<BoxedStrategy<Value>> {
        let tuple = match (map.get("prefixItems"), map.get("items")) {
            (Some(Value::Array(items)), _) | (None, Some(Value::Array(items))) => Some(items),
            _ => None,
        };
        if let Some(items) = tuple {
            let parts = items
                .iter()
                .map(|item| self.valid(item, depth))
                .collect::<Option<Vec<_>>>()?;
            return Some(parts.prop_map(Value::Array).boxed());
        }
        let min = count(map, "minItems").unwrap_or(0);
        let max = count(map, "maxItems").unwrap_or(usize::MAX);
        let element = match map.get("items") {
            Some(items) => self.valid(items, depth),
            None => Some(any_json()),
        };
        match element {
            Some(element) => Some(
                SeqStrategy {
                    element,
                    min,
                    max: max.min(min.saturating_add(MAX_EXTRA_ITEMS)),
                    lengths: Lengths::Items,
                }
                .prop_map(Value::Array)
                .boxed(),
            ),
            None if min == 0 => Some(Just(Value::Array(Vec::new())).boxed()),
            None => None,
        }
    }

    /// One entry per declared property (required ones always present), then those
    /// `required` names but does not declare, then sometimes extras where allowed.
    pub(super) fn entries(&self, map: &Map<String, Value>, depth: usize) -> Option<Vec<Entry>> {
        let required = required(map);
        let mut entries = Vec::new();
        let empty = Map::new();
        let properties = match map.get("properties") {
            Some(Value::Object(properties)) => properties,
            _ => &empty,
        };
        for (name, schema) in properties {
            let values = self.valid(schema, depth);
            match (required.contains(name), values) {
                (true, Some(values)) => entries.push(Entry::always(name, values)),
                (true, None) => return None,
                (false, Some(values)) => entries.push(Entry::sometimes(name, values)),
                (false, None) => {}
            }
        }
        for name in required
            .iter()
            .filter(|name| !properties.contains_key(*name))
        {
            entries.push(Entry::always(name, any_json()));
        }
        let extra = match map.get("additionalProperties") {
            Some(Value::Bool(false)) => None,
            Some(schema @ Value::Object(_)) => self.valid(schema, depth),
            _ => Some(any_leaf()),
        };
        if let Some(values) = extra {
            // Rarely beside declared properties: most calls carry only what the schema
            // names. An object that declares none is a map, and gets a few entries.
            let (how_many, chance) = if properties.is_empty() {
                (3, 0.5)
            } else {
                (1, 0.1)
            };
            for n in 1..=how_many {
                let base = if n == 1 {
                    "extra".to_owned()
                } else {
                    format!("extra{n}")
                };
                let name = unused_name(properties, &base);
                let owned = name.clone();
                let pairs = values.clone().prop_map(move |v| (owned.clone(), v));
                entries.push(Entry {
                    name,
                    strategy: option::weighted(chance, pairs).boxed(),
                });
            }
        }
        Some(entries)
    }
}

/// The names in `required`.
pub(super) fn required(map: &Map<String, Value>) -> Vec<String> {
    match map.get("required") {
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// `base`, or `base_2`, `base_3`... whichever no property is named.
pub(super) fn unused_name(properties: &Map<String, Value>, base: &str) -> String {
    let mut name = base.to_owned();
    let mut n = 1;
    while properties.contains_key(&name) {
        n += 1;
        name = format!("{base}_{n}");
    }
    name
}

/// The integers a schema allows, `multipleOf` honoured when it is a whole number.
pub(super) fn integers(map: &Map<String, Value>) -> Option<IntStrategy> {
    let (lo, hi) = Bounds::of(map).integers()?;
    let step = map
        .get("multipleOf")
        .and_then(Value::as_f64)
        .filter(|m| m.fract() == 0.0 && *m >= 1.0 && *m < 9.2e18)
        .map_or(1, |m| m as i64);
    IntStrategy::new(lo, hi, step)
}

/// Numbers: whole ones, and ones with fractions inside the bounds. A fractional
/// `multipleOf` gives multiples of it.
fn numbers(map: &Map<String, Value>) -> Option<BoxedStrategy<Value>> {
    let bounds = Bounds::of(map);
    if let Some(step) = map.get("multipleOf").and_then(Value::as_f64)
        && step.fract() != 0.0
        && step > 0.0
    {
        let scaled = |side: Option<(f64, bool)>| side.map(|(b, exclusive)| (b / step, exclusive));
        let (k_lo, k_hi) = Bounds {
            lo: scaled(bounds.lo),
            hi: scaled(bounds.hi),
        }
        .integers()?;
        let limit = 1i64 << 40;
        let ks = IntStrategy::new(k_lo.max(-limit), k_hi.min(limit), 1)?;
        return Some(
            ks.prop_map(move |k| Value::from(k.as_f64().unwrap_or(0.0) * step))
                .boxed(),
        );
    }
    let lo = match bounds.lo {
        Some((b, exclusive)) if exclusive => b.next_up(),
        Some((b, _)) => b,
        None => -FLOAT_LIMIT,
    };
    let hi = match bounds.hi {
        Some((b, exclusive)) if exclusive => b.next_down(),
        Some((b, _)) => b,
        None => FLOAT_LIMIT,
    };
    let mut options = Vec::new();
    if let Some(whole) = integers(map) {
        options.push(whole.boxed());
    }
    if lo <= hi && lo.is_finite() && hi.is_finite() {
        options.push(FloatStrategy { lo, hi }.boxed());
    }
    (!options.is_empty()).then(|| Union::new(options).boxed())
}

/// Scalars of every type.
pub(super) fn any_leaf() -> BoxedStrategy<Value> {
    let whole = IntStrategy::new(i64::MIN, i64::MAX, 1).map(Strategy::boxed);
    let mut options = vec![
        Just(Value::Null).boxed(),
        any::<bool>().prop_map(Value::Bool).boxed(),
        FloatStrategy {
            lo: -FLOAT_LIMIT,
            hi: FLOAT_LIMIT,
        }
        .boxed(),
        strings(0, 64),
    ];
    options.extend(whole);
    Union::new(options).boxed()
}

/// Any JSON value, nested a little.
pub(super) fn any_json() -> BoxedStrategy<Value> {
    any_leaf()
        .prop_recursive(2, 16, 4, |inner| {
            let keys = select(vec!["a", "b", "name", "value", "ключ", "键", ""]);
            let array = SeqStrategy {
                element: inner.clone(),
                min: 0,
                max: 4,
                lengths: Lengths::Items,
            }
            .prop_map(Value::Array);
            let object = SeqStrategy {
                element: (keys, inner),
                min: 0,
                max: 4,
                lengths: Lengths::Items,
            }
            .prop_map(|pairs| {
                Value::Object(
                    pairs
                        .into_iter()
                        .map(|(key, value)| (key.to_owned(), value))
                        .collect(),
                )
            });
            Union::new([array.boxed(), object.boxed()])
        })
        .boxed()
}
