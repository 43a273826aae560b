//! JSON objects read the way PromptKit reads its own files (Go's `encoding/json`): a
//! key names a field whatever its ASCII letter case, so `role` and `Role` are one
//! field. A key spelt exactly as the field wins over one that differs in case; among
//! those that differ only in case, the last wins, as Go assigns each in turn. A
//! `null` value counts as absent, as in Go. Values stay unread until asked for, and a
//! problem in one is placed in the whole text.

use std::fmt;
use std::path::Path;

use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::json_position::{at, diagnostic, parse_piece, start_of};
use crate::doc::Diagnostic;

/// An object of a JSON text: its keys in file order, each with its value unread.
pub(super) struct Object<'a> {
    path: &'a Path,
    text: &'a str,
    /// The object itself, where a missing field is reported.
    raw: &'a RawValue,
    /// What the object is, for messages: `events[3].data`.
    what: String,
    entries: Vec<(String, &'a RawValue)>,
}

impl<'a> Object<'a> {
    /// The whole of `text`, read from `path`, as an object; `expecting` says what it
    /// should be when it is something else.
    pub(super) fn whole(
        path: &'a Path,
        text: &'a str,
        expecting: &str,
    ) -> Result<Object<'a>, Diagnostic> {
        let raw: &RawValue =
            serde_json::from_str(text).map_err(|err| diagnostic(path, &err, ""))?;
        Object::read(path, text, raw, String::new(), expecting)
    }

    /// `raw`, a piece of `text`, as an object.
    pub(super) fn read(
        path: &'a Path,
        text: &'a str,
        raw: &'a RawValue,
        what: String,
        expecting: &str,
    ) -> Result<Object<'a>, Diagnostic> {
        let mut de = serde_json::Deserializer::from_str(raw.get());
        let entries = de
            .deserialize_map(EntriesVisitor { expecting })
            .and_then(|entries| de.end().map(|()| entries))
            .map_err(|err| at(path, start_of(text, raw), &err, &what))?;
        Ok(Object {
            path,
            text,
            raw,
            what,
            entries,
        })
    }

    /// Whether the object has field `name`.
    pub(super) fn has(&self, name: &str) -> bool {
        self.find(name).is_some()
    }

    /// The value of field `name`, if the object has it.
    pub(super) fn get<T: Deserialize<'a>>(&self, name: &str) -> Result<Option<T>, Diagnostic> {
        match self.find(name) {
            Some((key, raw)) => parse_piece(self.path, self.text, raw, &self.inner(key)).map(Some),
            None => Ok(None),
        }
    }

    /// The value of field `name`, which the object must have.
    pub(super) fn require<T: Deserialize<'a>>(&self, name: &str) -> Result<T, Diagnostic> {
        self.get(name)?.ok_or_else(|| self.missing(name))
    }

    /// Field `name`, an object, if the object has it.
    pub(super) fn object(
        &self,
        name: &str,
        expecting: &str,
    ) -> Result<Option<Object<'a>>, Diagnostic> {
        match self.find(name) {
            Some((key, raw)) => {
                Object::read(self.path, self.text, raw, self.inner(key), expecting).map(Some)
            }
            None => Ok(None),
        }
    }

    /// Field `name`, a list of objects; none when the object lacks it.
    pub(super) fn objects(
        &self,
        name: &str,
        expecting: &str,
    ) -> Result<Vec<Object<'a>>, Diagnostic> {
        let Some((key, raw)) = self.find(name) else {
            return Ok(Vec::new());
        };
        let what = self.inner(key);
        let items: Vec<&'a RawValue> = parse_piece(self.path, self.text, raw, &what)?;
        items
            .into_iter()
            .enumerate()
            .map(|(i, item)| {
                Object::read(
                    self.path,
                    self.text,
                    item,
                    format!("{what}[{i}]"),
                    expecting,
                )
            })
            .collect()
    }

    /// The error for field `name`, which the object lacks.
    pub(super) fn missing(&self, name: &str) -> Diagnostic {
        let what = if self.what.is_empty() {
            String::new()
        } else {
            format!("{}: ", self.what)
        };
        Diagnostic::error(
            self.path,
            start_of(self.text, self.raw),
            format!("{what}missing field `{name}` (in any letter case)"),
        )
    }

    pub(super) fn what(&self) -> &str {
        &self.what
    }

    /// Where the object starts in the text.
    pub(super) fn pos(&self) -> crate::doc::Pos {
        start_of(self.text, self.raw)
    }

    /// The key that names field `name`, and its value.
    fn find(&self, name: &str) -> Option<(&str, &'a RawValue)> {
        let present = self.entries.iter().filter(|(_, raw)| raw.get() != "null");
        let exact = present.clone().find(|(key, _)| key == name);
        let found = exact.or_else(|| {
            present
                .rev()
                .find(|(key, _)| key.eq_ignore_ascii_case(name))
        });
        found.map(|(key, raw)| (key.as_str(), *raw))
    }

    fn inner(&self, key: &str) -> String {
        if self.what.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.what)
        }
    }
}

/// Takes only an object, and keeps its keys in order with their values unread.
struct EntriesVisitor<'e> {
    expecting: &'e str,
}

impl<'de> Visitor<'de> for EntriesVisitor<'_> {
    type Value = Vec<(String, &'de RawValue)>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            let value: &'de RawValue = map.next_value()?;
            entries.push((key, value));
        }
        Ok(entries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATH: &str = "r.json";

    fn whole(text: &str) -> Object<'_> {
        Object::whole(Path::new(PATH), text, "an object").expect("an object")
    }

    #[test]
    fn a_field_is_found_in_any_letter_case_and_the_exact_spelling_wins() {
        let text = r#"{"role": "user", "CONTENT": "hi", "Name": "a", "name": "b", "nAme": "c"}"#;
        let object = whole(text);
        assert_eq!(object.require::<String>("Role").expect("found"), "user");
        assert_eq!(object.require::<String>("Content").expect("found"), "hi");
        assert_eq!(object.require::<String>("name").expect("found"), "b");
        assert_eq!(
            object.require::<String>("NAME").expect("found"),
            "c",
            "the last of the spellings that differ in case"
        );
        assert_eq!(object.get::<String>("ToolCalls").expect("absent"), None);
        assert_eq!(
            object.get::<String>("ro_le").expect("absent"),
            None,
            "only letter case is folded"
        );
    }

    #[test]
    fn null_is_absent() {
        let object = whole(r#"{"Role": null, "role": "user", "Content": null}"#);
        assert_eq!(object.require::<String>("Role").expect("found"), "user");
        assert_eq!(object.get::<String>("Content").expect("absent"), None);
    }

    #[test]
    fn problems_are_placed_and_name_the_key_as_written() {
        let text = "{\n  \"events\": [\n    {\"type\": 7},\n    3\n  ]\n}";
        let object = whole(text);
        let events = object.objects("Events", "an event object");
        assert_eq!(
            events.err().map(|d| d.to_string()).as_deref(),
            Some("r.json:4:5: events[1]: invalid type: integer `3`, expected an event object")
        );
        let text = "{\n  \"events\": [\n    {\"Type\": 7}\n  ]\n}";
        let object = whole(text);
        let events = object
            .objects("events", "an event object")
            .expect("objects");
        let err = events[0].require::<String>("type").expect_err("not text");
        assert_eq!(
            err.to_string(),
            "r.json:3:14: events[0].Type: invalid type: integer `7`, expected a string"
        );
        let err = events[0].require::<String>("data").expect_err("missing");
        assert_eq!(
            err.to_string(),
            "r.json:3:5: events[0]: missing field `data` (in any letter case)"
        );
        let err = Object::whole(Path::new(PATH), "[1]", "a recording").err();
        assert_eq!(
            err.map(|d| d.to_string()).as_deref(),
            Some("r.json:1:1: invalid type: sequence, expected a recording")
        );
    }
}
