//! `--arg KEY=VALUE`: arguments typed on the command line. A value is JSON when it
//! reads as JSON, else a string; when the tool's schema says a property is a string,
//! it stays the text as typed (`--arg zip=02134`, `--arg flag=true`).

use serde_json::{Map, Value as Json};

use crate::cli::CliError;

/// The arguments object for `pairs`, typed by `schema` when it is known.
pub fn arguments(pairs: &[String], schema: Option<&Json>) -> Result<Json, CliError> {
    let mut object = Map::new();
    for pair in pairs {
        let Some((key, text)) = pair.split_once('=') else {
            return Err(CliError::Usage(format!(
                "--arg `{pair}`: expected KEY=VALUE"
            )));
        };
        if key.is_empty() {
            return Err(CliError::Usage(format!(
                "--arg `{pair}`: the key before `=` is empty"
            )));
        }
        if object.contains_key(key) {
            return Err(CliError::Usage(format!(
                "--arg: `{key}` is given twice; give each key once"
            )));
        }
        let value = if wants_string(schema, key) {
            Json::String(text.to_string())
        } else {
            serde_json::from_str(text).unwrap_or_else(|_| Json::String(text.to_string()))
        };
        object.insert(key.to_string(), value);
    }
    Ok(Json::Object(object))
}

/// Whether the schema types property `key` as a string and nothing else.
fn wants_string(schema: Option<&Json>, key: &str) -> bool {
    let Some(types) = schema.map(|s| &s["properties"][key]["type"]) else {
        return false;
    };
    match types {
        Json::String(t) => t == "string",
        Json::Array(list) => list.iter().all(|t| t == "string" || t == "null"),
        _ => false,
    }
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
    fn a_pair_without_a_key_or_given_twice_is_refused() {
        for bad in [&["novalue"][..], &["=1"], &["a=1", "a=2"]] {
            let err = arguments(&pairs(bad), None).expect_err("refused");
            assert!(err.to_string().contains("--arg"), "{err}");
        }
    }
}
