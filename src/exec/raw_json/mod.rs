//! JSON passed through as the text it arrived in: checked once, looked into only by
//! whoever needs to, and copied by no one who merely forwards it.

use std::fmt;
use std::ops::Range;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value as Json;
use serde_json::value::RawValue;

mod scan;
mod syntax;
mod words;

use scan::member_spans;
use syntax::{ContainerEnds, Fit, OuterMembers};

/// One valid JSON value, kept as text. It serialises exactly as the same value
/// parsed into a [`Json`] would (compact or pretty, escapes and numbers rewritten
/// the same way), but without building the tree. It may be a part of a larger text
/// it arrived in (a result inside a reply line), held without copying it out.
pub struct RawJson {
    text: String,
    span: Range<usize>,
    /// Where the containers near the top of `text` close, when its check noted it.
    ends: ContainerEnds,
}

impl RawJson {
    /// Serialises `value` once.
    pub fn of(value: &impl Serialize) -> Result<Self, serde_json::Error> {
        serde_json::value::to_raw_value(value).map(Self::from_raw)
    }

    fn whole(text: String) -> Self {
        let span = 0..text.len();
        Self {
            text,
            span,
            ends: ContainerEnds::default(),
        }
    }

    fn from_raw(raw: Box<RawValue>) -> Self {
        Self::whole(Box::<str>::from(raw).into_string())
    }

    /// The text as it arrived.
    pub fn get(&self) -> &str {
        &self.text[self.span.clone()]
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
    /// The members called `names`, when this is an object, found by a quick scan
    /// (the text is known to be JSON): see [`Member`]. When a name appears twice the
    /// last one counts, as in a parsed tree.
    pub fn members<const N: usize>(&self, names: [&str; N]) -> Option<[Option<Member>; N]> {
        let spans = member_spans(&self.text, self.span.start, &self.ends, names)?;
        Some(spans.map(|span| span.map(Member)))
    }

    /// The text of one of this value's members.
    pub fn member(&self, member: &Member) -> &str {
        &self.text[member.0.clone()]
    }

    /// One of this value's members, as a value of its own, without copying it.
    pub fn into_member(self, member: Member) -> Self {
        Self {
            span: member.0,
            ..self
        }
    }
}

/// Where a member of a [`RawJson`] object lies in its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member(Range<usize>);

/// A JSON object from outside, its syntax checked once: its members are found by
/// a quick scan, and only the one taken out is copied.
pub struct RawObject<'t> {
    text: &'t str,
    fit: Fit,
    ends: ContainerEnds,
    /// Its members as the check met them, when it could note them all.
    members: OuterMembers,
}

impl<'t> RawObject<'t> {
    /// How deep the check notes where containers close: the object, its members
    /// and theirs, which is as deep as a reply is looked into to route it.
    const NOTED_LEVELS: usize = 3;
    /// Shorter text is walked through faster than its ends are noted.
    const NOTED_FROM: usize = 4096;

    /// `text` when it is one JSON object.
    pub fn read(text: &'t str) -> Option<Self> {
        let levels = if text.len() < Self::NOTED_FROM {
            0
        } else {
            Self::NOTED_LEVELS
        };
        let noted = syntax::check_noting(text, levels)?;
        text.trim_start().starts_with('{').then_some(Self {
            text,
            fit: noted.fit,
            ends: noted.ends,
            members: noted.members,
        })
    }

    /// The members called `names`; see [`RawJson::members`]. Those of an envelope
    /// were noted by the check; only a larger object is scanned again.
    pub fn members<const N: usize>(&self, names: [&str; N]) -> [Option<Member>; N] {
        let spans = self
            .members
            .find(self.text, names)
            .or_else(|| member_spans(self.text, 0, &self.ends, names));
        spans
            .unwrap_or([const { None }; N])
            .map(|span| span.map(Member))
    }

    /// The text of one of the members.
    pub fn member(&self, member: &Member) -> &'t str {
        &self.text[member.0.clone()]
    }

    /// One of the members as a value of its own, once it is known to read as a
    /// tree would.
    pub fn take(&self, member: &Member) -> Result<RawJson, serde_json::Error> {
        let text = self.member(member);
        if self.fit == Fit::Unsure {
            serde_json::from_str::<Readable>(text)?;
        }
        Ok(RawJson {
            ends: self.ends.within(&member.0),
            ..RawJson::whole(text.to_owned())
        })
    }
}

/// A copy holds only this value's own text.
impl Clone for RawJson {
    fn clone(&self) -> Self {
        Self::whole(self.get().to_owned())
    }
}

impl fmt::Debug for RawJson {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.debug_tuple("RawJson").field(&self.get()).finish()
    }
}

/// Reads as one checked [`RawJson`].
impl<'de> Deserialize<'de> for RawJson {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        check_readable(raw.get()).map_err(de::Error::custom)?;
        Ok(Self::from_raw(raw))
    }
}

/// Fails where a tree could not hold `text`, which has already been delimited as
/// JSON: a number out of `f64` range or a lone surrogate passes the scan that
/// delimits raw text but could not be written out again, so it is refused where it
/// arrives. Most text holds nothing that could fail, which the syntax check tells;
/// only the rest is read through as a tree would be.
fn check_readable(text: &str) -> Result<(), serde_json::Error> {
    if syntax::check(text) != Some(Fit::Tree) {
        serde_json::from_str::<Readable>(text)?;
    }
    Ok(())
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
        Self::of(value).unwrap_or_else(|_| Self::whole("null".to_owned()))
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

#[cfg(test)]
mod tests {
    use super::syntax::DEEP;
    use super::*;
    use serde::de::{DeserializeSeed, IgnoredAny};

    /// `raw` as a [`RawJson`] is read wherever one arrives.
    fn checked(raw: &RawValue) -> Result<RawJson, serde_json::Error> {
        serde_json::from_str(raw.get())
    }

    /// The members called `names` of the JSON object `text`, as serde_json reads them:
    /// what the quick scans are held to.
    fn members<'a, const N: usize>(
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

        fn deserialize<D: Deserializer<'de>>(
            self,
            deserializer: D,
        ) -> Result<Option<usize>, D::Error> {
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

    fn raw(text: &str) -> RawJson {
        RawJson::whole(text.to_string())
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
        // The scans replies are routed by find the same, in a value and in a line.
        let kept = raw(text);
        let [a, b, d] = kept.members(["a", "b", "d"]).expect("an object");
        assert_eq!(a.map(|m| kept.member(&m).to_string()).as_deref(), Some("3"));
        assert_eq!(
            b.map(|m| kept.member(&m).to_string()).as_deref(),
            Some(r#""x""#)
        );
        assert!(d.is_none());
        let line = RawObject::read(text).expect("an object");
        let [a] = line.members(["a"]);
        assert_eq!(a.map(|m| line.member(&m)), Some("3"));
        assert!(RawObject::read(" [1] ").is_none());
        assert!(RawObject::read(r#"{"a": 1} {}"#).is_none());
    }

    #[test]
    fn text_no_tree_could_hold_is_refused_where_it_arrives() {
        for text in ["[1e999]", r#"{"a": "\ud800"}"#, "-1e400"] {
            let raw = RawValue::from_string(text.to_string()).expect("delimits as JSON");
            let err = checked(&raw).expect_err(text).to_string();
            assert!(
                err.contains("out of range") || err.contains("escape"),
                "{err}"
            );
            assert!(serde_json::from_str::<RawJson>(text).is_err(), "{text}");
        }
        let raw = RawValue::from_string(r#"{"a": ["\u00e9", 1.5e300]}"#.into()).expect("JSON");
        assert!(checked(&raw).is_ok());
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
            assert_eq!(syntax::check(text), Some(Fit::Unsure), "{text}");
            let raw = RawValue::from_string(text.clone()).expect("delimits as JSON");
            assert!(checked(&raw).is_err(), "{text}");
        }
        let plain = r#"{"a": [true, false, null, -12.5, "e\\u d800 \"1e999\""], "b": {}}"#;
        assert_eq!(syntax::check(plain), Some(Fit::Tree), "{plain}");
        assert_eq!(syntax::check(&deep(DEEP - 1)), Some(Fit::Tree));
    }

    proptest::proptest! {
        /// On JSON text, hostile pieces and deep nesting included, `checked` accepts
        /// exactly what a tree reads.
        #[test]
        fn checked_agrees_with_a_tree(text in json_text()) {
            let raw = RawValue::from_string(text.clone()).expect("delimits as JSON");
            let tree = serde_json::from_str::<Json>(&text);
            proptest::prop_assert_eq!(checked(&raw).is_ok(), tree.is_ok(), "{}", text);
        }
    }

    #[test]
    fn a_member_is_a_value_of_its_own_kept_in_place() {
        let whole = raw(r#" {"result" : {"a": [1, "}\"]"]} , "res\u0075lt": 2, "error":null} "#);
        let [result, error, none] = whole.members(["result", "error", "x"]).expect("an object");
        assert_eq!(whole.member(error.as_ref().expect("present")), "null");
        assert!(none.is_none());
        let part = whole.into_member(result.expect("present"));
        assert_eq!(part.get(), "2");
        let whole = raw(r#"{"result":{"a": [1, "}\"]"]}}"#);
        let [result] = whole.members(["result"]).expect("an object");
        let part = whole.into_member(result.expect("present"));
        assert_eq!(part.get(), r#"{"a": [1, "}\"]"]}"#);
        assert_eq!(part.to_string(), r#"{"a":[1,"}\"]"]}"#);
        assert_eq!(part.clone(), part);
        assert!(raw("[1]").members(["a"]).is_none());
    }

    #[test]
    fn a_member_taken_from_a_line_steps_over_what_the_line_noted() {
        let line = r#"{"id":1,"result":{"x":{"y":["]"]},"result":[{"a":"]"},[1,{}]],"error":null},"z":[]}"#;
        let line = format!("{line}{}", " ".repeat(RawObject::NOTED_FROM));
        let object = RawObject::read(&line).expect("an object");
        assert_ne!(object.ends, ContainerEnds::default());
        let [result] = object.members(["result"]);
        let taken = object.take(&result.expect("present")).expect("readable");
        let [result, error] = taken.members(["result", "error"]).expect("an object");
        assert_eq!(taken.member(&error.expect("present")), "null");
        let result = taken.into_member(result.expect("present"));
        assert_eq!(result.get(), r#"[{"a":"]"},[1,{}]]"#);
    }

    proptest::proptest! {
        /// The quick scan of a value known to be JSON finds the members a full read
        /// of the object finds, escaped and repeated names included.
        #[test]
        fn the_member_scan_agrees_with_a_full_read(text in object_or_other()) {
            let names = ["error", "pending", "result"];
            let kept = raw(&text);
            let scanned = kept
                .members(names)
                .map(|found| found.map(|m| m.map(|m| kept.member(&m).to_string())));
            let read = members(&text, names)
                .map(|found| found.map(|m| m.map(|raw| raw.get().to_string())));
            proptest::prop_assert_eq!(&scanned, &read, "{}", text);
            // As it is, and long enough that the check notes where containers close.
            let long = format!("{text}{}", " ".repeat(RawObject::NOTED_FROM));
            for line in [&text, &long] {
                let Some(object) = RawObject::read(line) else {
                    continue;
                };
                let found = object.members(names);
                let texts = found.clone().map(|m| m.map(|m| object.member(&m).to_string()));
                proptest::prop_assert_eq!(Some(texts), read.clone(), "{}", text);
                let Some(result) = &found[2] else {
                    continue;
                };
                let tree = serde_json::from_str::<Json>(object.member(result)).is_ok();
                let taken = object.take(result);
                proptest::prop_assert_eq!(taken.is_ok(), tree, "{}", text);
                // What was taken is scanned with the container ends the line noted.
                if let Ok(taken) = taken {
                    let scanned = taken
                        .members(names)
                        .map(|found| found.map(|m| m.map(|m| taken.member(&m).to_string())));
                    let read = members(object.member(result), names)
                        .map(|found| found.map(|m| m.map(|raw| raw.get().to_string())));
                    proptest::prop_assert_eq!(scanned, read, "{}", text);
                }
            }
        }
    }

    /// Objects whose member names are the ones looked for, written plainly, with
    /// escapes or twice, with any spacing; and other values.
    fn object_or_other() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let name = prop_oneof![
            Just("error"),
            Just("pending"),
            Just("result"),
            Just("res\\u0075lt"),
            Just("e\\\"rror"),
            Just("k"),
        ];
        let space = prop_oneof![Just(""), Just(" "), Just("\n\t ")];
        let member = (name, space.clone(), json_text(), space.clone());
        // Up to past the members a check notes.
        let object =
            (proptest::collection::vec(member, 0..11), space).prop_map(|(members, end)| {
                let members: Vec<String> = members
                    .iter()
                    .map(|(name, s, value, t)| format!(r#"{s}"{name}"{t}:{s}{value}{t}"#))
                    .collect();
                format!("{end}{{{}{end}}}{end}", members.join(","))
            });
        prop_oneof![object, json_text()]
    }

    /// JSON text with the values a tree may refuse among its leaves, nested to
    /// depths on both sides of serde_json's limit.
    pub(super) fn json_text() -> impl proptest::strategy::Strategy<Value = String> {
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
