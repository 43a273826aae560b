//! Reading a schema for generation: local `$ref`s followed, `allOf` folded in, and the
//! JSON types a schema admits.

use std::borrow::Cow;
use std::cell::Cell;
use std::collections::HashSet;

use serde_json::{Map, Value};

use super::budget::{At, Depth, MAX_DEPTH, MAX_SUBSCHEMAS};
use super::error::FuzzError;

/// How many `$ref`s one path through the schema may follow: recursive definitions stop
/// growing there.
pub(super) const MAX_REF_DEPTH: usize = 6;

/// The JSON types of the `type` keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum JsonType {
    Null,
    Boolean,
    Integer,
    Number,
    String,
    Array,
    Object,
}

impl JsonType {
    pub(super) const ALL: [JsonType; 7] = [
        JsonType::Null,
        JsonType::Boolean,
        JsonType::Integer,
        JsonType::Number,
        JsonType::String,
        JsonType::Array,
        JsonType::Object,
    ];

    fn parse(name: &str) -> Option<JsonType> {
        Some(match name {
            "null" => JsonType::Null,
            "boolean" => JsonType::Boolean,
            "integer" => JsonType::Integer,
            "number" => JsonType::Number,
            "string" => JsonType::String,
            "array" => JsonType::Array,
            "object" => JsonType::Object,
            _ => return None,
        })
    }

    /// The name with its article, as a sentence reads it: "an integer", "null".
    pub(super) fn described(self) -> &'static str {
        match self {
            JsonType::Null => "null",
            JsonType::Boolean => "a boolean",
            JsonType::Integer => "an integer",
            JsonType::Number => "a number",
            JsonType::String => "a string",
            JsonType::Array => "an array",
            JsonType::Object => "an object",
        }
    }
}

/// The whole schema, for resolving `$ref`s against, and the subschemas visited so
/// far, held to [`MAX_SUBSCHEMAS`].
pub(super) struct Root<'a> {
    schema: &'a Value,
    visited: Cell<usize>,
}

impl<'a> Root<'a> {
    pub(super) fn new(schema: &'a Value) -> Root<'a> {
        Root {
            schema,
            visited: Cell::new(0),
        }
    }

    /// Starts counting subschemas visited again, for another walk over the schema.
    pub(super) fn restart(&self) {
        self.visited.set(0);
    }

    /// Counts `weight` more subschemas visited at `at`, `depth` deep. `Ok(false)` when
    /// a path through `$ref`s has reached [`MAX_DEPTH`]: a recursive definition stops
    /// growing there. Past it otherwise, or past [`MAX_SUBSCHEMAS`], the schema is
    /// refused.
    pub(super) fn enter(&self, at: &At, depth: Depth, weight: usize) -> Result<bool, FuzzError> {
        if depth.level > MAX_DEPTH {
            if depth.refs > 0 {
                return Ok(false);
            }
            return Err(FuzzError::TooDeep {
                limit: MAX_DEPTH,
                at: at.clone(),
            });
        }
        let visited = self.visited.get().saturating_add(weight);
        self.visited.set(visited);
        if visited > MAX_SUBSCHEMAS {
            return Err(FuzzError::TooManySubschemas {
                limit: MAX_SUBSCHEMAS,
                at: at.clone(),
            });
        }
        Ok(true)
    }

    /// `schema` with a local `$ref` replaced by its target (sibling keywords kept) and
    /// `allOf` folded in; `depth.refs` counts each `$ref` followed. `Ok(None)` once
    /// that passes [`MAX_REF_DEPTH`]. A schema with neither keyword is borrowed as is.
    pub(super) fn flatten<'s>(
        &self,
        schema: &'s Value,
        at: &At,
        depth: &mut Depth,
    ) -> Result<Option<Cow<'s, Value>>, FuzzError>
    where
        'a: 's,
    {
        let Value::Object(map) = schema else {
            return Ok(Some(Cow::Borrowed(schema)));
        };
        if !map.contains_key("$ref") && !map.contains_key("allOf") {
            return Ok(Some(Cow::Borrowed(schema)));
        }
        let mut out = map.clone();
        if let Some(Value::String(reference)) = out.remove("$ref") {
            depth.refs += 1;
            if depth.refs > MAX_REF_DEPTH {
                return Ok(None);
            }
            // A reference that is not a local pointer cannot be followed: any value.
            let target = reference
                .strip_prefix('#')
                .and_then(|pointer| self.schema.pointer(pointer))
                .unwrap_or(&Value::Bool(true));
            let Some(target) = self.flatten(target, at, depth)? else {
                return Ok(None);
            };
            out = merge(target.into_owned(), Value::Object(out));
        }
        if let Some(Value::Array(parts)) = out.remove("allOf") {
            let at = at.child("allOf");
            for (index, part) in parts.iter().enumerate() {
                let at = at.child(index);
                let mut inner = depth.deeper();
                if !self.enter(&at, inner, 1)? {
                    return Ok(None);
                }
                let Some(part) = self.flatten(part, &at, &mut inner)? else {
                    return Ok(None);
                };
                depth.refs = inner.refs;
                out = merge(Value::Object(out), part.into_owned());
            }
        }
        Ok(Some(Cow::Owned(Value::Object(out))))
    }
}

/// Folds `extra` into `base`, as if both applied: properties joined, `required` lists
/// joined, `false` absorbing; other keywords of `extra` fill gaps of `base`.
pub(super) fn merge(base: Value, extra: Value) -> Map<String, Value> {
    merge_at(base, extra, 0)
}

/// [`merge`], `level` properties deep: past [`MAX_DEPTH`] the base's property is
/// kept whole (generation refuses a schema that deep before it reads it).
fn merge_at(base: Value, extra: Value, level: usize) -> Map<String, Value> {
    let (mut base, extra) = match (base, extra) {
        (Value::Bool(false), _) | (_, Value::Bool(false)) => {
            return Map::from_iter([("not".to_owned(), Value::Object(Map::new()))]);
        }
        (Value::Object(base), Value::Object(extra)) => (base, extra),
        (Value::Object(base), _) => return base,
        (_, Value::Object(extra)) => return extra,
        _ => return Map::new(),
    };
    for (key, value) in extra {
        match (key.as_str(), base.get_mut(&key), value) {
            ("properties", Some(Value::Object(have)), Value::Object(more)) => {
                for (name, schema) in more {
                    let joined = match have.remove(&name) {
                        Some(old) if level < MAX_DEPTH => {
                            Value::Object(merge_at(old, schema, level + 1))
                        }
                        Some(old) => old,
                        None => schema,
                    };
                    have.insert(name, joined);
                }
            }
            ("required", Some(Value::Array(have)), Value::Array(more)) => {
                let mut seen: HashSet<Value> = have.iter().cloned().collect();
                for name in more {
                    if seen.insert(name.clone()) {
                        have.push(name);
                    }
                }
            }
            (_, Some(_), _) => {}
            (_, None, value) => {
                base.insert(key, value);
            }
        }
    }
    base
}

/// The types `schema` admits: its `type` (one or a list), else what its keywords are
/// about, else every type.
pub(super) fn types(schema: &Map<String, Value>) -> Vec<JsonType> {
    match schema.get("type") {
        Some(Value::String(name)) => JsonType::parse(name).into_iter().collect(),
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(Value::as_str)
            .filter_map(JsonType::parse)
            .collect(),
        _ => {
            let has = |keys: &[&str]| keys.iter().any(|key| schema.contains_key(*key));
            if has(&["properties", "required", "additionalProperties"]) {
                vec![JsonType::Object]
            } else if has(&["items", "minItems", "maxItems", "prefixItems"]) {
                vec![JsonType::Array]
            } else if has(&["minLength", "maxLength", "pattern", "format"]) {
                vec![JsonType::String]
            } else if has(&["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]) {
                vec![JsonType::Number]
            } else {
                JsonType::ALL.to_vec()
            }
        }
    }
}

/// Whether a value of type `ty` can satisfy a schema admitting `allowed`.
pub(super) fn admits(allowed: &[JsonType], ty: JsonType) -> bool {
    allowed.contains(&ty) || (ty == JsonType::Integer && allowed.contains(&JsonType::Number))
}

/// A non-negative integer keyword, such as `minLength`.
pub(super) fn count(schema: &Map<String, Value>, key: &str) -> Option<usize> {
    schema
        .get(key)
        .and_then(Value::as_u64)
        .map(|n| usize::try_from(n).unwrap_or(usize::MAX))
}

/// Inclusive numeric bounds, from `minimum`/`maximum` and both drafts' exclusive forms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Bounds {
    pub(super) lo: Option<(f64, bool)>,
    pub(super) hi: Option<(f64, bool)>,
}

impl Bounds {
    /// `(bound, exclusive)` on each side.
    pub(super) fn of(schema: &Map<String, Value>) -> Bounds {
        let side = |inclusive: &str, exclusive: &str| {
            let plain = schema.get(inclusive).and_then(Value::as_f64);
            match schema.get(exclusive) {
                Some(Value::Number(n)) => {
                    let excl = n.as_f64();
                    match (plain, excl) {
                        (Some(p), Some(e)) if p > e && inclusive == "minimum" => Some((p, false)),
                        (Some(p), Some(e)) if p < e && inclusive == "maximum" => Some((p, false)),
                        (_, Some(e)) => Some((e, true)),
                        (p, None) => p.map(|p| (p, false)),
                    }
                }
                // Draft 4: a boolean beside the plain bound.
                Some(Value::Bool(exclusive)) => plain.map(|p| (p, *exclusive)),
                _ => plain.map(|p| (p, false)),
            }
        };
        Bounds {
            lo: side("minimum", "exclusiveMinimum"),
            hi: side("maximum", "exclusiveMaximum"),
        }
    }

    /// The same bounds with each side the schema leaves open closed at `reach` past
    /// 0, or past the other side's bound when that is further out.
    pub(super) fn within_reach(self, reach: f64) -> Bounds {
        let lo = self.lo.or_else(|| {
            let from = self.hi.map_or(0.0, |(hi, _)| hi.min(0.0));
            Some((from - reach, false))
        });
        let hi = self.hi.or_else(|| {
            let from = self.lo.map_or(0.0, |(lo, _)| lo.max(0.0));
            Some((from + reach, false))
        });
        Bounds { lo, hi }
    }

    /// The integers inside, clamped to 64 bits; `None` when there are none.
    pub(super) fn integers(self) -> Option<(i64, i64)> {
        let lo = match self.lo {
            None => i64::MIN,
            Some((b, exclusive)) => to_i64(if exclusive { b.floor() + 1.0 } else { b.ceil() }),
        };
        let hi = match self.hi {
            None => i64::MAX,
            Some((b, exclusive)) => to_i64(if exclusive { b.ceil() - 1.0 } else { b.floor() }),
        };
        (lo <= hi).then_some((lo, hi))
    }
}

/// A whole float as the nearest 64-bit integer (saturating).
pub(super) fn to_i64(f: f64) -> i64 {
    // `as` saturates at the ends, which is the clamp wanted.
    f as i64
}

/// The values a schema names as what calls send: its `default`, then its `examples`.
pub(super) fn given(map: &Map<String, Value>) -> Vec<Value> {
    let examples = match map.get("examples") {
        Some(Value::Array(examples)) => examples.as_slice(),
        _ => &[],
    };
    map.get("default")
        .into_iter()
        .chain(examples)
        .cloned()
        .collect()
}
