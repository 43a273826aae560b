use std::fmt;
use std::path::Path;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::{MessageFormatter, Spanned};

use super::Diagnostic;
use super::json_nodes::read_json_nodes;

/// A 1-based line and column (in characters) inside a source file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

impl Pos {
    pub const START: Pos = Pos { line: 1, col: 1 };
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.col)
    }
}

/// One value of the document and where it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub pos: Pos,
    /// Byte offset of the node's first character in the source text.
    pub offset: usize,
    pub value: Value,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    /// Entries in file order.
    Map(Vec<(Key, Node)>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Key {
    pub name: String,
    pub pos: Pos,
    /// Byte offset of the key's first character (a quote, when it is quoted).
    pub offset: usize,
}

impl Node {
    /// What the value is, as a user would call it in an error message.
    pub fn kind(&self) -> &'static str {
        match &self.value {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a number",
            Value::Str(_) => "a string",
            Value::Seq(_) => "a list",
            Value::Map(_) => "a mapping",
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The value as plain JSON, for parts that are passed on rather than interpreted
    /// (JSON Schemas, eval params, metadata).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match &self.value {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(i) => J::from(*i),
            Value::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
            Value::Str(s) => J::String(s.clone()),
            Value::Seq(items) => J::Array(items.iter().map(Node::to_json).collect()),
            Value::Map(entries) => J::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.name.clone(), v.to_json()))
                    .collect(),
            ),
        }
    }
}

/// Reads a document as its file name says: JSON for `*.json`, else YAML.
pub(crate) fn parse_by_extension(path: &Path, text: &str) -> Result<Node, Diagnostic> {
    let is_json = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"));
    if is_json {
        parse_json(path, text)
    } else {
        parse_yaml(path, text)
    }
}

/// Reads a YAML document. Syntax errors and duplicate keys come back as one diagnostic.
pub(crate) fn parse_yaml(path: &Path, text: &str) -> Result<Node, Diagnostic> {
    match serde_saphyr::from_str::<Spanned<Tree>>(text) {
        Ok(root) => Ok(Node::from(root)),
        Err(err) => Err(saphyr_diagnostic(path, &err)),
    }
}

/// Reads a JSON document: strict JSON, nested at most [`super::MAX_JSON_DEPTH`] deep, without
/// a repeated key in any object. The first problem comes back as one diagnostic.
pub(crate) fn parse_json(path: &Path, text: &str) -> Result<Node, Diagnostic> {
    read_json_nodes(text).map_err(|err| Diagnostic::error(path, err.pos, err.to_string()))
}

fn saphyr_diagnostic(path: &Path, err: &serde_saphyr::Error) -> Diagnostic {
    let bare = err.without_snippet();
    let pos = bare
        .location()
        .filter(|loc| loc.line() > 0)
        .map_or(Pos::START, |loc| Pos {
            line: loc.line() as u32,
            col: loc.column().max(1) as u32,
        });
    let message = serde_saphyr::DefaultMessageFormatter.format_message(bare);
    let message = message
        .split(", set DuplicateKeyPolicy")
        .next()
        .unwrap_or_default();
    Diagnostic::error(path, pos, message.to_string())
}

/// A value as serde-saphyr hands it over. Its children become [`Node`]s as soon as
/// each is read, so a large document is never held as two trees at once.
struct Tree(Value);

fn pos_of(loc: &serde_saphyr::Location) -> (Pos, usize) {
    let pos = Pos {
        line: loc.line() as u32,
        col: loc.column() as u32,
    };
    let offset = loc.span().byte_offset().unwrap_or(0) as usize;
    (pos, offset)
}

impl From<Spanned<Tree>> for Node {
    fn from(spanned: Spanned<Tree>) -> Node {
        let (pos, offset) = pos_of(&spanned.referenced);
        Node {
            pos,
            offset,
            value: spanned.value.0,
        }
    }
}

impl<'de> Deserialize<'de> for Tree {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TreeVisitor).map(Tree)
    }
}

struct TreeVisitor;

impl<'de> Visitor<'de> for TreeVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Tree::deserialize(d).map(|tree| tree.0)
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Int(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(i64::try_from(v).map_or(Value::Float(v as f64), Value::Int))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Float(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::Str(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::Str(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Spanned<Tree>>()? {
            items.push(Node::from(item));
        }
        Ok(Value::Seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<Spanned<String>>()? {
            let (pos, offset) = pos_of(&key.referenced);
            let key = Key {
                name: key.value,
                pos,
                offset,
            };
            entries.push((key, Node::from(map.next_value::<Spanned<Tree>>()?)));
        }
        Ok(Value::Map(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn yaml(text: &str) -> Node {
        parse_yaml(Path::new("t.yaml"), text).expect("valid yaml")
    }

    #[test]
    fn positions_point_at_keys_and_values() {
        let root = yaml("a: 1\nb:\n  c: [x, ~]\n");
        let Value::Map(entries) = &root.value else {
            panic!("not a map")
        };
        assert_eq!(entries[1].0.pos, Pos { line: 2, col: 1 });
        let Value::Map(inner) = &entries[1].1.value else {
            panic!("not a map")
        };
        assert_eq!(inner[0].0.name, "c");
        assert_eq!(inner[0].1.pos, Pos { line: 3, col: 6 });
    }

    #[test]
    fn duplicate_keys_are_rejected_with_their_position() {
        let err =
            parse_yaml(Path::new("t.yaml"), "a: 1\nb: 2\na: 3\n").expect_err("should be rejected");
        assert_eq!(err.to_string(), "t.yaml:3:1: duplicate mapping key: a");
    }

    #[test]
    fn json_syntax_errors_name_line_and_column() {
        let err =
            parse_json(Path::new("p.json"), "{\n  \"a\": 1,\n}\n").expect_err("should be rejected");
        assert_eq!(err.pos, Some(Pos { line: 3, col: 1 }));
        assert!(
            err.message.starts_with("invalid JSON: trailing comma"),
            "{err}"
        );
    }

    #[test]
    fn json_strings_that_look_like_yaml_stay_strings() {
        let root = parse_json(Path::new("p.json"), r#"{"a": "yes", "b": "1", "c": null}"#)
            .expect("valid json");
        assert_eq!(
            root.to_json(),
            serde_json::json!({"a": "yes", "b": "1", "c": null})
        );
    }
}
