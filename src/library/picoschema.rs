//! dotprompt's Picoschema (`name: string, the user's name`, `tags(array): string`,
//! `age?: integer`) turned into the JSON Schema it stands for. A schema that already
//! is JSON Schema (it names a `type` or `properties`) is kept as it is.

use serde_json::{Map, Value as Json, json};

const SCALARS: &[&str] = &["string", "number", "integer", "boolean", "null", "any"];

/// Why a Picoschema stands for no JSON Schema.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(super) struct PicoschemaError(String);

type Result<T> = std::result::Result<T, PicoschemaError>;

fn refuse<T>(why: String) -> Result<T> {
    Err(PicoschemaError(why))
}

/// The JSON Schema `schema` stands for, or why it stands for none.
pub(super) fn to_json_schema(schema: &Json) -> Result<Json> {
    if is_json_schema(schema) {
        return Ok(schema.clone());
    }
    value_schema(schema)
}

fn is_json_schema(schema: &Json) -> bool {
    let Some(map) = schema.as_object() else {
        return false;
    };
    map.contains_key("properties")
        || map.get("type").and_then(Json::as_str).is_some_and(|t| {
            matches!(
                t,
                "object" | "array" | "string" | "number" | "integer" | "boolean" | "null"
            )
        }) && !map.keys().any(|k| k.contains('(') || k.ends_with('?'))
}

/// The schema of one value: a type name (with an optional description after a
/// comma), or an object of fields.
fn value_schema(value: &Json) -> Result<Json> {
    match value {
        Json::String(text) => scalar(text),
        Json::Object(fields) => object(fields),
        other => refuse(format!(
            "a Picoschema type is a type name or a mapping of fields, found {other}"
        )),
    }
}

fn scalar(text: &str) -> Result<Json> {
    let (name, description) = match text.split_once(',') {
        Some((name, description)) => (name.trim(), Some(description.trim())),
        None => (text.trim(), None),
    };
    if !SCALARS.contains(&name) {
        return refuse(format!(
            "unknown Picoschema type `{name}` (known: {})",
            SCALARS.join(", ")
        ));
    }
    let mut schema = Map::new();
    if name != "any" {
        schema.insert("type".into(), json!(name));
    }
    if let Some(description) = description {
        schema.insert("description".into(), json!(description));
    }
    Ok(Json::Object(schema))
}

fn object(fields: &Map<String, Json>) -> Result<Json> {
    let mut properties = Map::new();
    let mut required = Vec::new();
    let mut additional = Json::Bool(false);
    for (key, value) in fields {
        let field = read_key(key)?;
        if field.name == "*" {
            additional = value_schema(value)?;
            continue;
        }
        let mut schema = match field.kind {
            Some("array") => json!({"type": "array", "items": value_schema(value)?}),
            Some("object") => value_schema(value)?,
            Some("enum") => match value {
                Json::Array(items) => json!({"enum": items}),
                _ => return refuse(format!("`{key}`: an enum lists its values")),
            },
            Some(other) => {
                return refuse(format!(
                    "`{key}`: unknown Picoschema kind `{other}` (known: array, object, enum)"
                ));
            }
            None => value_schema(value)?,
        };
        if let (Some(description), Some(map)) = (field.description, schema.as_object_mut()) {
            map.insert("description".into(), json!(description));
        }
        if !field.optional {
            required.push(Json::String(field.name.to_string()));
        }
        properties.insert(field.name.to_string(), schema);
    }
    let mut schema = json!({"type": "object", "properties": properties});
    if !required.is_empty() {
        schema["required"] = Json::Array(required);
    }
    schema["additionalProperties"] = additional;
    Ok(schema)
}

struct Field<'k> {
    name: &'k str,
    optional: bool,
    kind: Option<&'k str>,
    description: Option<&'k str>,
}

/// `name`, `name?`, `name(array)`, `name?(object, what it is)`, `(*)`.
fn read_key(key: &str) -> Result<Field<'_>> {
    let (head, paren) = match key.split_once('(') {
        Some((head, rest)) => {
            let inner = rest
                .strip_suffix(')')
                .ok_or_else(|| PicoschemaError(format!("`{key}`: `(` is not closed")))?;
            (head, Some(inner))
        }
        None => (key, None),
    };
    let (name, optional) = match head.strip_suffix('?') {
        Some(name) => (name, true),
        None => (head, false),
    };
    if head.is_empty() && paren == Some("*") {
        return Ok(Field {
            name: "*",
            optional: true,
            kind: None,
            description: None,
        });
    }
    let (kind, description) = match paren {
        Some(inner) => match inner.split_once(',') {
            Some((kind, description)) => (Some(kind.trim()), Some(description.trim())),
            None => (Some(inner.trim()), None),
        },
        None => (None, None),
    };
    Ok(Field {
        name,
        optional,
        kind,
        description,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_types_optional_arrays_enums_and_descriptions() {
        let schema = to_json_schema(&json!({
            "name": "string, the customer's name",
            "age?": "integer",
            "tags(array, labels)": "string",
            "tier(enum)": ["gold", "silver"],
            "address?(object)": {"city": "string"},
        }))
        .expect("converts");
        assert_eq!(
            schema["properties"]["name"],
            json!({"type": "string", "description": "the customer's name"})
        );
        assert_eq!(
            schema["properties"]["tags"],
            json!({"type": "array", "items": {"type": "string"}, "description": "labels"})
        );
        assert_eq!(
            schema["properties"]["tier"],
            json!({"enum": ["gold", "silver"]})
        );
        assert_eq!(
            schema["properties"]["address"]["properties"]["city"],
            json!({"type": "string"})
        );
        assert_eq!(schema["required"], json!(["name", "tags", "tier"]));
        assert_eq!(schema["additionalProperties"], json!(false));
    }

    #[test]
    fn json_schema_is_kept_and_unknown_types_are_refused() {
        let plain = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        assert_eq!(to_json_schema(&plain).expect("kept"), plain);
        assert!(
            to_json_schema(&json!({"a": "strin"}))
                .expect_err("refused")
                .to_string()
                .contains("`strin`")
        );
        assert_eq!(
            to_json_schema(&json!({"(*)": "number"})).expect("converts")["additionalProperties"],
            json!({"type": "number"})
        );
    }
}
