//! JSON written as block-style YAML, always the same way for the same value: keys
//! in the map's order, two-space indents, strings plain when YAML would read them
//! back as the same string and JSON-quoted otherwise.

use serde_json::{Map, Value as Json};

/// The YAML of `value`, each line ending in a newline (nothing for an empty map).
pub(super) fn write_yaml(value: &Json) -> String {
    let mut out = String::new();
    match value {
        Json::Object(map) => write_map(map, 0, &mut out),
        other => {
            out.push_str(&scalar(other));
            out.push('\n');
        }
    }
    out
}

fn write_map(map: &Map<String, Json>, indent: usize, out: &mut String) {
    for (key, value) in map {
        out.push_str(&" ".repeat(indent));
        out.push_str(&text(key));
        out.push(':');
        write_after_key(value, indent, out);
    }
}

/// A value after `key:` (or `- `): inline when it is a scalar or empty, else on the
/// lines below.
fn write_after_key(value: &Json, indent: usize, out: &mut String) {
    match value {
        Json::Object(map) if !map.is_empty() => {
            out.push('\n');
            write_map(map, indent + 2, out);
        }
        Json::Array(items) if !items.is_empty() => {
            out.push('\n');
            write_list(items, indent + 2, out);
        }
        other => {
            out.push(' ');
            out.push_str(&scalar(other));
            out.push('\n');
        }
    }
}

fn write_list(items: &[Json], indent: usize, out: &mut String) {
    for item in items {
        out.push_str(&" ".repeat(indent));
        out.push('-');
        match item {
            Json::Object(map) if !map.is_empty() => {
                // The first key on the dash's line, the others under it.
                let mut inner = String::new();
                write_map(map, indent + 2, &mut inner);
                out.push(' ');
                out.push_str(&inner[indent + 2..]);
            }
            // A list in a list: JSON, which YAML reads as a flow sequence.
            Json::Array(items) if !items.is_empty() => {
                out.push(' ');
                out.push_str(&item.to_string());
                out.push('\n');
            }
            other => {
                out.push(' ');
                out.push_str(&scalar(other));
                out.push('\n');
            }
        }
    }
}

fn scalar(value: &Json) -> String {
    match value {
        Json::String(s) => text(s),
        Json::Object(_) => "{}".into(),
        Json::Array(_) => "[]".into(),
        other => other.to_string(),
    }
}

/// A string as YAML reads it back: plain when that is safe, else in JSON's double
/// quotes (whose escapes YAML reads the same way).
fn text(s: &str) -> String {
    if plain_is_safe(s) {
        s.to_string()
    } else {
        Json::from(s).to_string()
    }
}

fn plain_is_safe(s: &str) -> bool {
    const WORDS: &[&str] = &[
        "true", "false", "null", "yes", "no", "on", "off", "y", "n", "~",
    ];
    let Some(first) = s.chars().next() else {
        return false;
    };
    let allowed = |c: char| c.is_alphanumeric() || " _-.,/()?*+".contains(c);
    (first.is_alphabetic() || first == '_' || first == '(')
        && s.chars().all(allowed)
        && !s.ends_with(' ')
        && !WORDS.contains(&s.to_ascii_lowercase().as_str())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nested_values_are_written_in_block_style() {
        let value = json!({
            "name": "greet",
            "ratio": 1.5,
            "tags": ["a", "two words", "yes"],
            "slots": [{"name": "x", "sensitive": true}, {"name": "z"}],
            "grid": [[1, 2]],
            "empty": {},
            "text": "line\n\"quoted\": yes",
        });
        assert_eq!(
            write_yaml(&value),
            "name: greet\nratio: 1.5\ntags:\n  - a\n  - two words\n  - \"yes\"\nslots:\n  - name: x\n    sensitive: true\n  - name: z\ngrid:\n  - [1,2]\nempty: {}\ntext: \"line\\n\\\"quoted\\\": yes\"\n"
        );
    }

    #[test]
    fn what_is_written_reads_back_as_the_same_json() {
        let value = json!({
            "a": ["", "1", "-x", "#", "a: b", "é", "(*)", "null", "x?"],
            "b": {"c": [{"d": [true, null, 3]}], "e": -2},
            "f(array, things)": "string",
        });
        let node = crate::doc::parse_yaml(std::path::Path::new("t.yaml"), &write_yaml(&value))
            .expect("reads");
        assert_eq!(node.to_json(), value);
    }
}
