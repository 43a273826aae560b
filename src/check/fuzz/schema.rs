//! Reading a schema for generation: local `$ref`s followed, `allOf` folded in, and the
//! JSON types a schema admits.

use serde_json::{Map, Value};

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

/// The whole schema, for resolving `$ref`s against.
pub(super) struct Root<'a>(pub(super) &'a Value);

impl Root<'_> {
    /// `schema` with a local `$ref` replaced by its target (sibling keywords kept) and
    /// `allOf` folded in, once more for each `$ref` followed. `None` once `depth`
    /// passes [`MAX_REF_DEPTH`].
    pub(super) fn flatten(&self, schema: &Value, depth: &mut usize) -> Option<Value> {
        let Value::Object(map) = schema else {
            return Some(schema.clone());
        };
        let mut out = map.clone();
        if let Some(Value::String(reference)) = out.remove("$ref") {
            *depth += 1;
            if *depth > MAX_REF_DEPTH {
                return None;
            }
            // A reference that is not a local pointer cannot be followed: any value.
            let target = reference
                .strip_prefix('#')
                .and_then(|pointer| self.0.pointer(pointer))
                .cloned()
                .unwrap_or(Value::Bool(true));
            let target = self.flatten(&target, depth)?;
            out = merge(target, Value::Object(out));
        }
        if let Some(Value::Array(parts)) = out.remove("allOf") {
            for part in parts {
                let part = self.flatten(&part, depth)?;
                out = merge(Value::Object(out), part);
            }
        }
        Some(Value::Object(out))
    }
}

/// Folds `extra` into `base`, as if both applied: properties joined, `required` lists
/// joined, `false` absorbing; other keywords of `extra` fill gaps of `base`.
pub(super) fn merge(base: Value, extra: Value) -> Map<String, Value> {
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
                        Some(old) => Value::Object(merge(old, schema)),
                        None => schema,
                    };
                    have.insert(name, joined);
                }
            }
            ("required", Some(Value::Array(have)), Value::Array(more)) => {
                for name in more {
                    if !have.contains(&name) {
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
