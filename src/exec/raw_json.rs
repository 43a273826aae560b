//! JSON passed through as the text it arrived in: checked once, looked into only by
//! whoever needs to, and copied by no one who merely forwards it.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
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

impl RawJson {
    /// `raw` once it is known to read as a tree would: a number out of `f64` range
    /// or a lone surrogate is accepted by the scan that delimits raw text, but could
    /// not be written out again, so it is refused here, where it arrives.
    pub fn checked(raw: &RawValue) -> Result<Self, serde_json::Error> {
        check_readable(raw.get())?;
        Ok(Self(raw.to_owned()))
    }

    /// A part of text already [`checked`](RawJson::checked), which needs no check.
    pub(crate) fn part(raw: &RawValue) -> Self {
        Self(raw.to_owned())
    }
}

/// Reads as one checked [`RawJson`].
impl<'de> Deserialize<'de> for RawJson {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        check_readable(raw.get()).map_err(de::Error::custom)?;
        Ok(Self(raw))
    }
}

/// Fails where a tree could not hold `text`, which has already been delimited as
/// JSON. Most text holds nothing that could fail, which one quick scan tells;
/// only the rest is read through as a tree would be.
fn check_readable(text: &str) -> Result<(), serde_json::Error> {
    if may_not_read(text.as_bytes()) {
        serde_json::from_str::<Readable>(text)?;
    }
    Ok(())
}

/// Nesting this deep may reach serde_json's recursion limit (128).
const DEEP: usize = 100;

/// Whether `text`, valid JSON syntax, holds anything a tree might fail to read: a
/// number with an exponent or a long run of digits (which may be out of `f64`
/// range), a `\u` escape of a surrogate (which may stand alone), or deep nesting.
/// It may say yes to text that reads; it never says no to text that does not.
fn may_not_read(text: &[u8]) -> bool {
    let mut depth = 0usize;
    let mut digits = 0usize;
    let mut at = 0;
    while at < text.len() {
        match text[at] {
            b'"' => {
                at += 1;
                loop {
                    let Some(stop) = text[at..].iter().position(|b| matches!(b, b'"' | b'\\'))
                    else {
                        return true;
                    };
                    at += stop;
                    if text[at] == b'"' {
                        break;
                    }
                    if text.get(at + 1) == Some(&b'u') && escapes_surrogate(&text[at + 2..]) {
                        return true;
                    }
                    at += 2;
                }
            }
            b'{' | b'[' => {
                depth += 1;
                if depth >= DEEP {
                    return true;
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            // Outside strings an `e` is an exponent, but for the literals.
            b't' | b'n' => at += 3,
            b'f' => at += 4,
            b'e' | b'E' => return true,
            b'0'..=b'9' => {
                digits += 1;
                if digits > 300 {
                    return true;
                }
                at += 1;
                continue;
            }
            _ => {}
        }
        digits = 0;
        at += 1;
    }
    false
}

/// Whether the four hex digits of a `\u` escape name a surrogate (D800 to DFFF).
fn escapes_surrogate(hex: &[u8]) -> bool {
    matches!(hex, [d, b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F', ..] if d | 0x20 == b'd')
}

/// A value read all the way through as a tree would be (numbers converted, escapes
/// decoded), keeping nothing.
struct Readable;

impl<'de> Deserialize<'de> for Readable {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(Readable)
    }
}

impl<'de> Visitor<'de> for Readable {
    type Value = Readable;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Readable, E> {
        Ok(Readable)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Readable, E> {
        Ok(Readable)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Readable, E> {
        Ok(Readable)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Readable, E> {
        Ok(Readable)
    }

    fn visit_str<E>(self, _: &str) -> Result<Readable, E> {
        Ok(Readable)
    }

    fn visit_unit<E>(self) -> Result<Readable, E> {
        Ok(Readable)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Readable, A::Error> {
        while seq.next_element::<Readable>()?.is_some() {}
        Ok(Readable)
    }

    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Readable, M::Error> {
        while map.next_key::<Readable>()?.is_some() {
            map.next_value::<Readable>()?;
        }
        Ok(Readable)
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
    fn text_no_tree_could_hold_is_refused_where_it_arrives() {
        for text in ["[1e999]", r#"{"a": "\ud800"}"#, "-1e400"] {
            let raw = RawValue::from_string(text.to_string()).expect("delimits as JSON");
            let err = RawJson::checked(&raw).expect_err(text).to_string();
            assert!(
                err.contains("out of range") || err.contains("escape"),
                "{err}"
            );
            assert!(serde_json::from_str::<RawJson>(text).is_err(), "{text}");
        }
        let raw = RawValue::from_string(r#"{"a": ["\u00e9", 1.5e300]}"#.into()).expect("JSON");
        assert!(RawJson::checked(&raw).is_ok());
    }

    #[test]
    fn the_quick_scan_never_passes_what_a_tree_refuses() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        let refused = [
            "1e999".to_string(),
            format!("[{}]", "9".repeat(400)),
            r#"{"a": "x\ud800y"}"#.to_string(),
            r#"["\udc00"]"#.to_string(),
            deep(200),
        ];
        for text in &refused {
            assert!(may_not_read(text.as_bytes()), "{text}");
            let raw = RawValue::from_string(text.clone()).expect("delimits as JSON");
            assert!(RawJson::checked(&raw).is_err(), "{text}");
        }
        let plain = r#"{"a": [true, false, null, -12.5, "e\\u d800 \"1e999\""], "b": {}}"#;
        assert!(!may_not_read(plain.as_bytes()), "{plain}");
        assert!(!may_not_read(deep(DEEP - 1).as_bytes()));
    }

    proptest::proptest! {
        /// On JSON text, hostile pieces and deep nesting included, `checked` accepts
        /// exactly what a tree reads.
        #[test]
        fn checked_agrees_with_a_tree(text in json_text()) {
            let raw = RawValue::from_string(text.clone()).expect("delimits as JSON");
            let tree = serde_json::from_str::<Json>(&text);
            proptest::prop_assert_eq!(RawJson::checked(&raw).is_ok(), tree.is_ok(), "{}", text);
        }
    }

    /// JSON text with the values a tree may refuse among its leaves, nested to
    /// depths on both sides of serde_json's limit.
    fn json_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            Just("true".to_string()),
            Just("false".to_string()),
            Just("null".to_string()),
            Just("-12.5".to_string()),
            Just("1e308".to_string()),
            Just("1e309".to_string()),
            Just("-2.5E-400".to_string()),
            Just(r#""\ud83d\ude00""#.to_string()),
            Just(r#""\ud800""#.to_string()),
            Just(r#""\udc00x""#.to_string()),
            Just(r#""\\udc00 e5""#.to_string()),
            (300usize..320).prop_map(|n| "9".repeat(n)),
        ];
        let value = leaf.prop_recursive(6, 48, 4, |inner| {
            let members = proptest::collection::vec(inner, 0..4);
            prop_oneof![
                members
                    .clone()
                    .prop_map(|items| format!("[{}]", items.join(","))),
                members.prop_map(|items| {
                    let pairs: Vec<String> = items
                        .iter()
                        .enumerate()
                        .map(|(i, item)| format!(r#""k{i}": {item}"#))
                        .collect();
                    format!("{{{}}}", pairs.join(", "))
                }),
            ]
        });
        (value, 0usize..140)
            .prop_map(|(value, depth)| format!("{}{value}{}", "[".repeat(depth), "]".repeat(depth)))
    }

    #[test]
    fn a_tree_turns_into_its_text() {
        let value = serde_json::json!({"x": [1, "two"]});
        assert_eq!(RawJson::from(&value).get(), r#"{"x":[1,"two"]}"#);
    }
}
