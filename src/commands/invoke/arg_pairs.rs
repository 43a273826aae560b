//! `--arg KEY=VALUE`: arguments typed on the command line. A value is JSON when it
//! reads as JSON, else a string; when the tool's schema says a property is a string
//! (`"type": "string"`, or `anyOf`/`oneOf` strings and null, as pydantic writes
//! `Optional[str]`), it stays the text as typed (`--arg zip=02134`, `--arg flag=true`).
//! An integer too large for 64 bits stays text too, rather than be rounded.

use serde_json::{Map, Value as Json};

use crate::cli::{CliError, UsageError};

/// The arguments object for `pairs`, typed by `schema` when it is known.
pub(super) fn arguments(pairs: &[String], schema: Option<&Json>) -> Result<Json, CliError> {
    let mut object = Map::new();
    for pair in pairs {
        let Some((key, text)) = pair.split_once('=') else {
            return Err(UsageError::bad_value("--arg", Some(pair), "expected KEY=VALUE").into());
        };
        if key.is_empty() {
            return Err(
                UsageError::bad_value("--arg", Some(pair), "the key before `=` is empty").into(),
            );
        }
        if object.contains_key(key) {
            return Err(UsageError::conflict(
                "--arg",
                format!("`{key}` is given twice; give each key once"),
            )
            .into());
        }
        let value = if wants_string(schema, key) {
            Json::String(text.to_string())
        } else {
            read_value(text)
        };
        object.insert(key.to_string(), value);
    }
    Ok(Json::Object(object))
}

/// `text` as JSON when it reads as JSON (and loses nothing on the way), else as text.
fn read_value(text: &str) -> Json {
    match serde_json::from_str::<Json>(text) {
        // An integer literal read as a float was too large for 64 bits.
        Ok(Json::Number(n)) if n.is_f64() && !text.contains(['.', 'e', 'E']) => {
            Json::String(text.to_string())
        }
        Ok(value) => value,
        Err(_) => Json::String(text.to_string()),
    }
}

/// Whether the schema types property `key` as a string (or null) and nothing else.
fn wants_string(schema: Option<&Json>, key: &str) -> bool {
    schema.is_some_and(|s| only_strings(&s["properties"][key]))
}

fn only_strings(property: &Json) -> bool {
    let is_null = |t: &Json| t == "null" || t["type"] == "null";
    match &property["type"] {
        Json::String(t) => return t == "string",
        Json::Array(list) => {
            return list.iter().any(|t| t == "string")
                && list.iter().all(|t| t == "string" || t == "null");
        }
        _ => {}
    }
    ["anyOf", "oneOf"].iter().any(|key| {
        property[key].as_array().is_some_and(|choices| {
            let typed: Vec<&Json> = choices.iter().filter(|c| !is_null(c)).collect();
            !typed.is_empty() && typed.into_iter().all(only_strings)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pairs(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn values_are_json_when_they_read_as_json_else_text() {
        let args = arguments(
            &pairs(&["text=hi", "n=3", "on=true", "tags=[1,2]", "note=a=b"]),
            None,
        )
        .expect("parsed");
        assert_eq!(
            args,
            json!({"text": "hi", "n": 3, "on": true, "tags": [1, 2], "note": "a=b"})
        );
    }

    #[test]
    fn the_schema_keeps_strings_as_typed() {
        let schema = json!({"properties": {"zip": {"type": "string"}, "n": {"type": "integer"}}});
        let args =
            arguments(&pairs(&["zip=02134", "n=7", "other=7"]), Some(&schema)).expect("parsed");
        assert_eq!(args, json!({"zip": "02134", "n": 7, "other": 7}));
        let args = arguments(&pairs(&["zip=123"]), Some(&schema)).expect("parsed");
        assert_eq!(args, json!({"zip": "123"}));
    }

    #[test]
    fn optional_strings_stay_text_and_huge_integers_are_not_rounded() {
        let schema = json!({"properties": {
            "zip": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "n": {"anyOf": [{"type": "integer"}, {"type": "null"}]}
        }});
        let args = arguments(&pairs(&["zip=12345", "n=5"]), Some(&schema)).expect("parsed");
        assert_eq!(args, json!({"zip": "12345", "n": 5}));
        let args =
            arguments(&pairs(&["id=12345678901234567890123", "x=1.5e3"]), None).expect("parsed");
        assert_eq!(args, json!({"id": "12345678901234567890123", "x": 1500.0}));
    }

    #[test]
    fn a_pair_without_a_key_or_given_twice_is_refused() {
        for bad in [&["novalue"][..], &["=1"], &["a=1", "a=2"]] {
            let err = arguments(&pairs(bad), None).expect_err("refused");
            assert!(err.to_string().contains("--arg"), "{err}");
        }
    }
}
