//! The PromptPack an Arena project compiles to, written as JSON with a map back to
//! the YAML files every part came from. The pack's own checks run over the JSON;
//! whatever they find is moved back to the file, line and column it was written at.

use std::path::{Path, PathBuf};

use crate::doc::{Diagnostic, Diagnostics, Key, Node, Pos, Value};

/// Where a JSON position of the compiled pack came from.
#[derive(Debug, Clone)]
struct Origin {
    /// The column in the compiled text (it is one line).
    col: u32,
    file: usize,
    pos: Pos,
    /// For a string of a file: its byte offset there and its value, to place a
    /// position inside it.
    string: Option<(usize, String)>,
}

/// A value to write: a node of a YAML file (with its position), or one made up by
/// the compiler (it takes the position of the node it stands for).
pub(crate) enum Out {
    /// A node as written, children and all.
    Node(Node),
    /// A string made up, standing at the position given.
    Str(String, Pos),
    /// A mapping made up, its entries in order, standing at the position given.
    Map(Vec<(OutKey, Out)>, Pos),
    /// A list made up.
    Seq(Vec<Out>, Pos),
    /// A value of another file (its index in the map's files).
    In(usize, Box<Out>),
}

/// A key of a mapping made up: its name and where it stands.
pub(crate) struct OutKey {
    pub name: String,
    pub pos: Pos,
    /// The file it stands in, when not the mapping's.
    pub file: Option<usize>,
}

impl OutKey {
    pub(crate) fn new(name: impl Into<String>, pos: Pos) -> Self {
        Self {
            name: name.into(),
            pos,
            file: None,
        }
    }

    /// A key standing in another file than its mapping (its index in the map).
    pub(crate) fn in_file(name: impl Into<String>, pos: Pos, file: usize) -> Self {
        Self {
            file: Some(file),
            ..Self::new(name, pos)
        }
    }

    /// A key as written in a file, under another name.
    pub(crate) fn renamed(key: &Key, name: &str) -> Self {
        Self::new(name, key.pos)
    }
}

/// The compiled text and where each of its parts came from.
#[derive(Debug, Clone)]
pub(crate) struct SourceMap {
    files: Vec<PathBuf>,
    origins: Vec<Origin>,
    /// The compiled text, to read a position inside one of its strings.
    text: String,
    /// The line the compiled text is written on: two maps on different lines tell
    /// their positions apart.
    line: u32,
}

impl SourceMap {
    /// A map for a compiled text written on `line` (the lines before it empty).
    pub(crate) fn on_line(line: u32) -> Self {
        Self {
            files: Vec::new(),
            origins: Vec::new(),
            text: String::new(),
            line: line.max(1),
        }
    }

    /// Adds a file the compiled text draws on; its index, for [`Out::In`].
    pub(crate) fn file(&mut self, path: &Path) -> usize {
        if let Some(i) = self.files.iter().position(|f| f == path) {
            return i;
        }
        self.files.push(path.to_path_buf());
        self.files.len() - 1
    }

    /// Writes `value` as one line of JSON, remembering where each part came from.
    pub(crate) fn write(&mut self, value: &Out, file: usize) -> String {
        let mut writer = Writer {
            text: "\n".repeat(self.line as usize - 1),
            col: 1,
            map: self,
        };
        writer.value(value, file);
        let text = writer.text;
        self.text = text.clone();
        text
    }

    /// The file and position a position of the compiled text came from: the part
    /// that starts there, else the nearest one starting before it (a position inside
    /// a string is the string's).
    fn origin(&self, pos: Pos) -> Option<(&Path, Pos)> {
        if pos.line != self.line {
            return None;
        }
        let at = self.origins.partition_point(|o| o.col <= pos.col);
        let origin = self.origins.get(at.checked_sub(1)?)?;
        let file = self.files.get(origin.file)?;
        let inside = origin
            .string
            .as_ref()
            .filter(|_| pos.col > origin.col)
            .and_then(|(offset, value)| {
                let line = self.text.lines().nth(self.line as usize - 1)?;
                let literal: String = line.chars().skip(origin.col as usize - 1).collect();
                let at = super::inside::decoded_chars(&literal, (pos.col - origin.col) as usize);
                let source = std::fs::read_to_string(file).ok()?;
                super::inside::yaml_pos(&source, *offset, origin.pos, value, at)
            });
        Some((file, inside.unwrap_or(origin.pos)))
    }

    /// `diagnostic` moved to where it was written, when it points into the compiled
    /// text (`compiled` is the name that text is known by).
    pub(crate) fn place(&self, diagnostic: &Diagnostic, compiled: &Path) -> Diagnostic {
        if diagnostic.file != compiled || diagnostic.pos.is_some_and(|p| p.line != self.line) {
            return diagnostic.clone();
        }
        let mut placed = diagnostic.clone();
        match diagnostic.pos.and_then(|pos| self.origin(pos)) {
            Some((file, pos)) => {
                placed.file = file.to_path_buf();
                placed.pos = Some(pos);
            }
            None => {
                if let Some(first) = self.files.first() {
                    placed.file = first.clone();
                }
            }
        }
        placed
    }

    /// Every diagnostic of `found` placed as [`Self::place`] does.
    pub(crate) fn place_all(&self, found: &Diagnostics, compiled: &Path) -> Diagnostics {
        found.iter().map(|d| self.place(d, compiled)).collect()
    }
}

struct Writer<'m> {
    text: String,
    col: u32,
    map: &'m mut SourceMap,
}

impl Writer<'_> {
    fn push(&mut self, s: &str) {
        self.text.push_str(s);
        self.col += s.chars().count() as u32;
    }

    fn mark(&mut self, file: usize, pos: Pos) {
        let col = self.col;
        // Two parts starting at one column (a mapping and its first key's quote
        // cannot): the later, more precise, wins.
        if let Some(last) = self.map.origins.last_mut()
            && last.col == col
        {
            *last = Origin {
                col,
                file,
                pos,
                string: None,
            };
            return;
        }
        self.map.origins.push(Origin {
            col,
            file,
            pos,
            string: None,
        });
    }

    fn string(&mut self, s: &str) {
        let quoted = serde_json::Value::String(s.to_string()).to_string();
        self.push(&quoted);
    }

    fn value(&mut self, value: &Out, file: usize) {
        match value {
            Out::Node(node) => self.node(node, file),
            Out::Str(s, pos) => {
                self.mark(file, *pos);
                self.string(s);
            }
            Out::Map(entries, pos) => {
                self.mark(file, *pos);
                self.push("{");
                for (i, (key, value)) in entries.iter().enumerate() {
                    if i > 0 {
                        self.push(",");
                    }
                    self.mark(key.file.unwrap_or(file), key.pos);
                    self.string(&key.name);
                    self.push(":");
                    self.value(value, file);
                }
                self.push("}");
            }
            Out::Seq(items, pos) => {
                self.mark(file, *pos);
                self.push("[");
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.push(",");
                    }
                    self.value(item, file);
                }
                self.push("]");
            }
            Out::In(other, value) => self.value(value, *other),
        }
    }

    fn node(&mut self, node: &Node, file: usize) {
        self.mark(file, node.pos);
        if let (Value::Str(text), Some(last)) = (&node.value, self.map.origins.last_mut()) {
            last.string = Some((node.offset, text.clone()));
        }
        match &node.value {
            Value::Map(entries) => {
                self.push("{");
                for (i, (key, value)) in entries.iter().enumerate() {
                    if i > 0 {
                        self.push(",");
                    }
                    self.mark(file, key.pos);
                    self.string(&key.name);
                    self.push(":");
                    self.node(value, file);
                }
                self.push("}");
            }
            Value::Seq(items) => {
                self.push("[");
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.push(",");
                    }
                    self.node(item, file);
                }
                self.push("]");
            }
            _ => {
                let json = node.to_json().to_string();
                self.push(&json);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::parse_yaml;

    #[test]
    fn positions_of_the_json_go_back_to_the_yaml() {
        let yaml = parse_yaml(Path::new("a.yaml"), "a: 1\nb:\n  c: [x, \"y\"]\n").expect("yaml");
        let mut map = SourceMap::on_line(1);
        let file = map.file(Path::new("a.yaml"));
        let text = map.write(&Out::Node(yaml.clone()), file);
        assert_eq!(text, r#"{"a":1,"b":{"c":["x","y"]}}"#);
        let col = text.find("\"y\"").expect("y") as u32 + 1;
        let (path, pos) = map.origin(Pos { line: 1, col }).expect("placed");
        assert_eq!(path, Path::new("a.yaml"));
        assert_eq!(pos, Pos { line: 3, col: 10 });
        // Inside the string: the string's own position.
        let (_, inside) = map
            .origin(Pos {
                line: 1,
                col: col + 1,
            })
            .expect("placed");
        assert_eq!(inside, pos);
    }
}
