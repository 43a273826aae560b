//! Strategies for values that satisfy a schema, keyword by keyword. Generation is best
//! effort: the validator has the last word on every case.

use std::collections::HashSet;
use std::rc::Rc;

use proptest::prelude::{BoxedStrategy, Strategy, any};
use proptest::sample::select;
use serde_json::{Map, Value};

use super::budget::{
    At, Budget, Depth, Gen, MAX_ITEMS, MAX_LENGTH, MAX_MIN_PROPERTIES, MAX_PROPERTIES, MAX_SIZE,
    json_size, string_size,
};
use super::choice::{Choice, Optional};
use super::error::FuzzError;
use super::numbers::{FloatStrategy, IntStrategy};
use super::schema::{Bounds, JsonType, Root, count, given, merge, types};
use super::seq::{Lengths, SeqStrategy};
use super::text::{format_pattern, matching, strings};

/// Most items an array gets beyond its `minItems` when `maxItems` does not say.
const MAX_EXTRA_ITEMS: usize = 16;
/// The largest magnitude a number with a fraction gets where nothing else says.
const FLOAT_LIMIT: f64 = 1e300;
/// How far a number reaches on a side the schema leaves unbounded, past 0 or the
/// bound it does give: the magnitudes real calls use (a count, an amount, a number
/// of seconds), so that a tool is not asked for work no caller would ask.
const UNBOUNDED_REACH: f64 = 10.0;
/// The keys of objects that no schema describes, and the most bytes one takes.
const ANY_KEYS: [&str; 7] = ["a", "b", "name", "value", "ключ", "键", ""];
const ANY_KEY_SIZE: u64 = 2 + 5 * super::budget::PER_CHAR;

/// What building a strategy gives: `None` when generation cannot make any value.
pub(super) type Built = Result<Option<Gen>, FuzzError>;

/// One property of a generated object: a name and a value, or nothing when it is left
/// out. `floor` is what it adds to the object's JSON when present.
#[derive(Debug, Clone)]
pub(super) struct Entry {
    pub(super) name: String,
    pub(super) strategy: BoxedStrategy<Option<(String, Value)>>,
    pub(super) floor: u64,
    pub(super) always: bool,
}

impl Entry {
    /// The bytes a property adds to an object: its key, `:`, its value and `,`.
    fn size(name: &str, value: u64) -> u64 {
        string_size(name.chars().count() as u64)
            .saturating_add(2)
            .saturating_add(value)
    }

    pub(super) fn always(name: &str, values: Gen) -> Entry {
        let owned = name.to_owned();
        Entry {
            name: name.to_owned(),
            floor: Entry::size(name, values.floor),
            strategy: values
                .values
                .prop_map(move |v| Some((owned.clone(), v)))
                .boxed(),
            always: true,
        }
    }

    /// Present with probability `chance` when the budget pays for it; shrinking tries
    /// leaving it out first.
    pub(super) fn sometimes(name: &str, values: Gen, chance: f64, budget: &Budget) -> Entry {
        let owned = name.to_owned();
        let floor = Entry::size(name, values.floor);
        Entry {
            name: name.to_owned(),
            floor,
            strategy: Optional {
                inner: values.values.prop_map(move |v| (owned.clone(), v)).boxed(),
                chance,
                cost: floor,
                budget: budget.clone(),
            }
            .boxed(),
            always: false,
        }
    }
}

/// An object of `entries`, in their order, but for the one named `skip`, with `extra`
/// after them: the entries are shared by every object built from them.
#[derive(Debug, Clone)]
struct Assembled {
    entries: Rc<Vec<Entry>>,
    skip: Option<String>,
    extra: Option<Entry>,
}

impl Strategy for Assembled {
    type Tree = Box<dyn proptest::strategy::ValueTree<Value = Value>>;
    type Value = Value;

    fn new_tree(
        &self,
        runner: &mut proptest::test_runner::TestRunner,
    ) -> proptest::strategy::NewTree<Self> {
        let parts: Vec<_> = self
            .entries
            .iter()
            .filter(|entry| Some(&entry.name) != self.skip.as_ref())
            .chain(&self.extra)
            .map(|entry| entry.strategy.clone())
            .collect();
        parts
            .prop_map(|entries| Value::Object(entries.into_iter().flatten().collect()))
            .boxed()
            .new_tree(runner)
    }
}

/// An object of `entries` with the one named `skip` left out and `extra` added.
pub(super) fn assemble(entries: &Rc<Vec<Entry>>, skip: Option<&str>, extra: Option<Entry>) -> Gen {
    let kept = entries
        .iter()
        .filter(|entry| entry.always && Some(entry.name.as_str()) != skip)
        .fold(2u64, |sum, entry| sum.saturating_add(entry.floor));
    let floor = match &extra {
        Some(extra) if extra.always => kept.saturating_add(extra.floor),
        _ => kept,
    };
    Gen {
        values: Assembled {
            entries: entries.clone(),
            skip: skip.map(str::to_owned),
            extra,
        }
        .boxed(),
        floor,
    }
}

/// One of `options`, equally likely; its floor is the largest of theirs.
pub(super) fn one_of(options: Vec<Gen>) -> Option<Gen> {
    if options.len() <= 1 {
        return options.into_iter().next();
    }
    let floor = options.iter().map(|option| option.floor).max().unwrap_or(0);
    let choice = Choice::new(
        options
            .into_iter()
            .map(|option| (1, option.values))
            .collect(),
    )?;
    Some(Gen {
        values: choice.boxed(),
        floor,
    })
}

/// Refuses a strategy whose floor passes [`MAX_SIZE`].
fn within_size(built: Gen, at: &At) -> Result<Gen, FuzzError> {
    if built.floor > MAX_SIZE {
        return Err(FuzzError::TooBig {
            size: built.floor,
            limit: MAX_SIZE,
            at: at.clone(),
        });
    }
    Ok(built)
}

/// A size keyword of `map`, refused past `limit`.
fn size_keyword(
    map: &Map<String, Value>,
    keyword: &'static str,
    limit: u64,
    at: &At,
) -> Result<Option<usize>, FuzzError> {
    match map.get(keyword).and_then(Value::as_u64) {
        Some(value) if value > limit => Err(FuzzError::TooLarge {
            keyword,
            value,
            limit,
            at: at.clone(),
        }),
        _ => Ok(count(map, keyword)),
    }
}

/// Builds strategies over one root schema.
pub(super) struct Generator<'a> {
    pub(super) root: Root<'a>,
    pub(super) budget: Budget,
}

impl Generator<'_> {
    /// Values satisfying `schema` at `at`; `None` when generation cannot make any
    /// (`false`, an empty `enum`, a `$ref` chain past the depth limit, ...).
    pub(super) fn valid(&self, schema: &Value, at: &At, depth: Depth) -> Built {
        if !self.root.enter(at, depth, 1)? {
            return Ok(None);
        }
        let mut depth = depth;
        let Some(schema) = self.root.flatten(schema, at, &mut depth)? else {
            return Ok(None);
        };
        let map = match schema.as_ref() {
            Value::Bool(false) => return Ok(None),
            Value::Object(map) => map,
            _ => return Ok(Some(any_json(&self.budget))),
        };
        let built = self.keywords(map, at, depth)?;
        built.map(|found| within_size(found, at)).transpose()
    }

    fn keywords(&self, map: &Map<String, Value>, at: &At, depth: Depth) -> Built {
        if map.contains_key("not") && map.len() == 1 {
            return Ok(None);
        }
        if let Some(value) = map.get("const") {
            return Ok(Some(Gen::just(value.clone())));
        }
        if let Some(Value::Array(members)) = map.get("enum") {
            let floor = members.iter().map(json_size).max();
            return Ok(floor.map(|floor| Gen {
                values: select(members.clone()).boxed(),
                floor,
            }));
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = map.get(key) {
                let mut rest = map.clone();
                rest.remove(key);
                // Each branch is joined with a copy of the rest: count its properties.
                let weight = match rest.get("properties") {
                    Some(Value::Object(properties)) => properties.len(),
                    _ => 0,
                };
                let at = at.child(key);
                let mut options = Vec::new();
                for (index, branch) in branches.iter().enumerate() {
                    let at = at.child(index);
                    if !self.root.enter(&at, depth.deeper(), weight)? {
                        continue;
                    }
                    let joined = merge(Value::Object(rest.clone()), branch.clone());
                    options.extend(self.valid(&Value::Object(joined), &at, depth.deeper())?);
                }
                return Ok(one_of(options));
            }
        }
        let mut options = Vec::new();
        for ty in types(map) {
            options.extend(self.typed(map, ty, at, depth)?);
        }
        // Values the schema gives (its `default`, its `examples`) are what real calls
        // send: drawn as often as everything else together.
        let given = given(map);
        let Some(floor) = given.iter().map(json_size).max() else {
            return Ok(one_of(options));
        };
        let given = Gen {
            values: select(given).boxed(),
            floor,
        };
        Ok(one_of(one_of(options).into_iter().chain([given]).collect()))
    }

    fn typed(&self, map: &Map<String, Value>, ty: JsonType, at: &At, depth: Depth) -> Built {
        Ok(match ty {
            JsonType::Null => Some(Gen::just(Value::Null)),
            JsonType::Boolean => Some(Gen::scalar(any::<bool>().prop_map(Value::Bool).boxed())),
            JsonType::Integer => integers(map).map(|ints| Gen::scalar(ints.boxed())),
            JsonType::Number => numbers(map),
            JsonType::String => Some(self.string(map, at)?),
            JsonType::Array => self.array(map, at, depth)?,
            JsonType::Object => {
                size_keyword(map, "minProperties", MAX_MIN_PROPERTIES, at)?;
                self.entries(map, at, depth)?
                    .map(|entries| assemble(&Rc::new(entries), None, None))
            }
        })
    }

    fn string(&self, map: &Map<String, Value>, at: &At) -> Result<Gen, FuzzError> {
        let pattern = match map.get("pattern").and_then(Value::as_str) {
            Some(pattern) => Some((pattern, at.child("pattern"))),
            None => map
                .get("format")
                .and_then(Value::as_str)
                .and_then(format_pattern)
                .map(|pattern| (pattern, at.child("format"))),
        };
        // A pattern proptest cannot generate from is left to the validator.
        if let Some((pattern, at)) = pattern
            && let Some(generated) = matching(pattern, &at)?
        {
            return Ok(generated);
        }
        let min = size_keyword(map, "minLength", MAX_LENGTH, at)?.unwrap_or(0);
        let max = count(map, "maxLength").unwrap_or(usize::MAX);
        Ok(strings(min, max, &self.budget))
    }

    fn array(&self, map: &Map<String, Value>, at: &At, depth: Depth) -> Built {
        let tuple = match (map.get("prefixItems"), map.get("items")) {
            (Some(Value::Array(items)), _) => Some((items, at.child("prefixItems"))),
            (None, Some(Value::Array(items))) => Some((items, at.child("items"))),
            _ => None,
        };
        if let Some((items, at)) = tuple {
            if items.len() as u64 > MAX_ITEMS {
                return Err(FuzzError::TooManyItems {
                    count: items.len(),
                    limit: MAX_ITEMS,
                    at,
                });
            }
            let mut parts = Vec::new();
            let mut floor = 2u64;
            for (index, item) in items.iter().enumerate() {
                let Some(part) = self.valid(item, &at.child(index), depth.deeper())? else {
                    return Ok(None);
                };
                floor = floor.saturating_add(part.floor).saturating_add(1);
                parts.push(part.values);
            }
            return Ok(Some(Gen {
                values: parts.prop_map(Value::Array).boxed(),
                floor,
            }));
        }
        let min = size_keyword(map, "minItems", MAX_ITEMS, at)?.unwrap_or(0);
        let max = count(map, "maxItems").unwrap_or(usize::MAX);
        let element = match map.get("items") {
            Some(items) => self.valid(items, &at.child("items"), depth.deeper())?,
            None => Some(any_json(&self.budget)),
        };
        Ok(match element {
            Some(element) => {
                let each = element.floor.saturating_add(1);
                Some(Gen {
                    floor: (min as u64).saturating_mul(each).saturating_add(2),
                    values: SeqStrategy {
                        element: element.values,
                        min,
                        max: max.min(min.saturating_add(MAX_EXTRA_ITEMS)),
                        lengths: Lengths::Items,
                        free: min,
                        cost: each,
                        budget: self.budget.clone(),
                    }
                    .prop_map(Value::Array)
                    .boxed(),
                })
            }
            None if min == 0 => Some(Gen::just(Value::Array(Vec::new()))),
            None => None,
        })
    }

    /// One entry per declared property (required ones always present), then those
    /// `required` names but does not declare, then sometimes extras where allowed.
    pub(super) fn entries(
        &self,
        map: &Map<String, Value>,
        at: &At,
        depth: Depth,
    ) -> Result<Option<Vec<Entry>>, FuzzError> {
        let empty = Map::new();
        let properties = match map.get("properties") {
            Some(Value::Object(properties)) => properties,
            _ => &empty,
        };
        let required: HashSet<String> = required(map).into_iter().collect();
        let undeclared = required
            .iter()
            .filter(|name| !properties.contains_key(*name))
            .count();
        let named = properties.len().saturating_add(undeclared);
        if named > MAX_PROPERTIES {
            return Err(FuzzError::TooManyProperties {
                count: named,
                limit: MAX_PROPERTIES,
                at: at.clone(),
            });
        }
        let mut entries = Vec::new();
        let under = at.child("properties");
        for (name, schema) in properties {
            let values = self.valid(schema, &under.child(name), depth.deeper())?;
            match (required.contains(name), values) {
                (true, Some(values)) => entries.push(Entry::always(name, values)),
                (true, None) => return Ok(None),
                (false, Some(values)) => {
                    entries.push(Entry::sometimes(name, values, 0.5, &self.budget));
                }
                (false, None) => {}
            }
        }
        // In `required`'s order, for a deterministic object.
        for name in self::required(map) {
            if !properties.contains_key(&name) && !entries.iter().any(|e| e.name == name) {
                entries.push(Entry::always(&name, any_json(&self.budget)));
            }
        }
        let extra = match map.get("additionalProperties") {
            Some(Value::Bool(false)) => None,
            Some(schema @ Value::Object(_)) => {
                self.valid(schema, &at.child("additionalProperties"), depth.deeper())?
            }
            _ => Some(any_leaf(&self.budget)),
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
                entries.push(Entry::sometimes(
                    &name,
                    values.clone(),
                    chance,
                    &self.budget,
                ));
            }
        }
        Ok(Some(entries))
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
    let (lo, hi) = Bounds::of(map).within_reach(UNBOUNDED_REACH).integers()?;
    let step = map
        .get("multipleOf")
        .and_then(Value::as_f64)
        .filter(|m| m.fract() == 0.0 && *m >= 1.0 && *m < 9.2e18)
        .map_or(1, |m| m as i64);
    IntStrategy::new(lo, hi, step)
}

/// Numbers: whole ones, and ones with fractions inside the bounds. A fractional
/// `multipleOf` gives multiples of it.
fn numbers(map: &Map<String, Value>) -> Option<Gen> {
    let bounds = Bounds::of(map).within_reach(UNBOUNDED_REACH);
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
        return Some(Gen::scalar(
            ks.prop_map(move |k| Value::from(k.as_f64().unwrap_or(0.0) * step))
                .boxed(),
        ));
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
        options.push(Gen::scalar(whole.boxed()));
    }
    if lo <= hi && lo.is_finite() && hi.is_finite() {
        options.push(Gen::scalar(FloatStrategy { lo, hi }.boxed()));
    }
    one_of(options)
}

/// Scalars of every type.
pub(super) fn any_leaf(budget: &Budget) -> Gen {
    let mut options = vec![
        Gen::just(Value::Null),
        Gen::scalar(any::<bool>().prop_map(Value::Bool).boxed()),
        Gen::scalar(
            FloatStrategy {
                lo: -FLOAT_LIMIT,
                hi: FLOAT_LIMIT,
            }
            .boxed(),
        ),
        strings(0, 64, budget),
    ];
    options.extend(IntStrategy::new(i64::MIN, i64::MAX, 1).map(|ints| Gen::scalar(ints.boxed())));
    one_of(options).unwrap_or_else(|| Gen::just(Value::Null))
}

/// Any JSON value, nested two levels at most.
pub(super) fn any_json(budget: &Budget) -> Gen {
    let leaf = any_leaf(budget);
    let inner = containing(leaf, budget);
    containing(inner, budget)
}

/// `inner`, or an array or an object of up to four of it.
fn containing(inner: Gen, budget: &Budget) -> Gen {
    let array = SeqStrategy {
        element: inner.values.clone(),
        min: 0,
        max: 4,
        lengths: Lengths::Items,
        free: 0,
        cost: inner.floor.saturating_add(1),
        budget: budget.clone(),
    }
    .prop_map(Value::Array)
    .boxed();
    let object = SeqStrategy {
        element: (select(ANY_KEYS.to_vec()), inner.values.clone()),
        min: 0,
        max: 4,
        lengths: Lengths::Items,
        free: 0,
        cost: ANY_KEY_SIZE.saturating_add(2).saturating_add(inner.floor),
        budget: budget.clone(),
    }
    .prop_map(|pairs| {
        Value::Object(
            pairs
                .into_iter()
                .map(|(key, value)| (key.to_owned(), value))
                .collect(),
        )
    })
    .boxed();
    let floor = inner.floor.max(2);
    let values = match Choice::new(vec![(2, inner.values.clone()), (1, array), (1, object)]) {
        Some(choice) => choice.boxed(),
        None => inner.values,
    };
    Gen { values, floor }
}
