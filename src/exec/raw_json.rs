//! JSON passed through as the text it arrived in: checked once, looked into only by
//! whoever needs to, and copied by no one who merely forwards it.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::{Serialize, Serializer};
use serde_json::Value as Json;
use serde_json::value::RawValue;

/// One valid JSON value, kept as text. It serialises exactly as the same value
/// parsed into a [`Json`] would (compact or pretty, escapes and numbers rewritten
/// the same way), but without building the tree.
#[derive(Debug, Clone)]
pub struct RawJson(Box<RawValue>);

impl RawJson {
    /// Serialises `value` once.
    pub fn of(value: &impl Serialize) -> Result<Self, serde_json::Error> {
        serde_json::value::to_raw_value(value).map(Self)
    }

    /// The text as it arrived.
    pub fn get(&self) -> &str {
        self.0.get()
    }

    /// The value as a tree, for those who look inside. Text that was accepted as
    /// JSON but does not fit a tree (a number out of `f64` range) reads as an error.
    pub fn parse(&self) -> Result<Json, serde_json::Error> {
        serde_json::from_str(self.get())
    }

    /// The value as a tree, `null` when it does not fit one (see [`RawJson::parse`]).
    pub fn to_value(&self) -> Json {
        self.parse().unwrap_or(Json::Null)
    }
}

impl From<Box<RawValue>> for RawJson {
    fn from(raw: Box<RawValue>) -> Self {
        Self(raw)
    }
}

impl From<&RawValue> for RawJson {
    fn from(raw: &RawValue) -> Self {
        Self(raw.to_owned())
    }
}

impl From<&Json> for RawJson {
    fn from(value: &Json) -> Self {
        // A tree always serialises.
        Self::of(value).unwrap_or_else(|_| Self(RawValue::NULL.to_owned()))
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl Serialize for RawJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut text = serde_json::Deserializer::from_str(self.get());
        serde_transcode::Transcoder::new(&mut text).serialize(serializer)
    }
}

/// Compact, as [`Json`]'s `Display` writes it.
impl std::fmt::Display for RawJson {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = serde_json::to_string(self).map_err(|_| std::fmt::Error)?;
        f.write_str(&text)
    }
}

/// The members called `names` of the JSON object `text`, as raw text borrowed from
/// it, without reading any of the others; `None` when `text` is not one object.
/// When a name appears twice the last one counts, as in a parsed tree.
pub fn members<'a, const N: usize>(
    text: &'a str,
    names: [&'static str; N],
) -> Option<[Option<&'a RawValue>; N]> {
    let opens_object = text.trim_start().starts_with('{');
    if !opens_object {
        return None;
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let found = de.deserialize_map(Members { names }).ok()?;
    de.end().ok()?;
    Some(found)
}

struct Members<const N: usize> {
    names: [&'static str; N],
}

impl<'de, const N: usize> Visitor<'de> for Members<N> {
    type Value = [Option<&'de RawValue>; N];

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let mut found = [None; N];
        while let Some(index) = map.next_key_seed(NameIndex(&self.names))? {
            match index {
                Some(i) => found[i] = Some(map.next_value()?),
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(found)
    }
}

/// Which of the names a member name is, told without allocating.
struct NameIndex<'n>(&'n [&'static str]);

impl<'de> DeserializeSeed<'de> for NameIndex<'_> {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<usize>, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl Visitor<'_> for NameIndex<'_> {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a member name")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<Option<usize>, E> {
        Ok(self.0.iter().position(|n| *n == name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> RawJson {
        RawJson(RawValue::from_string(text.to_string()).expect("valid JSON"))
    }

    #[test]
    fn serialises_as_the_parsed_value_would() {
        let text = r#" { "b" : [1, 2.50, -0, 1e3, 18446744073709551616],
            "a": "\u00e9\/\"x\"\n", "c": {"d": null, "e": true} } "#;
        let value: Json = serde_json::from_str(text).expect("valid");
        let kept = raw(text);
        assert_eq!(kept.to_string(), value.to_string());
        assert_eq!(
            serde_json::to_string_pretty(&kept).expect("pretty"),
            serde_json::to_string_pretty(&value).expect("pretty")
        );
        assert_eq!(kept.to_value(), value);
    }

    #[test]
    fn members_are_picked_from_an_object_only() {
        let text = r#"{"a": [1, {"b": 2}], "b": "x", "a": 3, "c": null}"#;
        let [a, b, d] = members(text, ["a", "b", "d"]).expect("an object");
        assert_eq!(a.map(RawValue::get), Some("3"));
        assert_eq!(b.map(RawValue::get), Some(r#""x""#));
        assert!(d.is_none());
        assert!(members(" [1] ", ["a"]).is_none());
        assert!(members(r#"{"a": 1} {}"#, ["a"]).is_none());
    }

    #[test]
    fn a_tree_turns_into_its_text() {
        let value = serde_json::json!({"x": [1, "two"]});
        assert_eq!(RawJson::from(&value).get(), r#"{"x":[1,"two"]}"#);
    }
}
