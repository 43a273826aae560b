use std::path::{Path, PathBuf};
use std::time::Duration;

use super::{Diagnostic, Diagnostics, Fields, Node, Pos, Value, did_you_mean, suggest};

/// What to do with a key that nobody expected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnknownKeys {
    Error,
    Warn,
}

/// Walks one document and collects every problem, so a single run reports them all.
/// Each accessor reports what is wrong and returns `None`; callers simply skip
/// whatever could not be read.
pub struct Checker {
    pub file: PathBuf,
    /// The file's text, for positions inside string values.
    pub text: String,
    pub diagnostics: Diagnostics,
}

impl Checker {
    /// A checker for `file`; give the text by value when the caller is done with it.
    pub fn new(file: &Path, text: impl Into<String>) -> Self {
        Self {
            file: file.to_path_buf(),
            text: text.into(),
            diagnostics: Diagnostics::default(),
        }
    }

    pub fn error(&mut self, pos: Pos, message: impl Into<String>) {
        self.diagnostics
            .push(Diagnostic::error(&self.file, pos, message));
    }

    pub fn warning(&mut self, pos: Pos, message: impl Into<String>) {
        self.diagnostics
            .push(Diagnostic::warning(&self.file, pos, message));
    }

    fn expected(&mut self, node: &Node, what: &str, expected: &str) {
        let found = match &node.value {
            Value::Int(i) => i.to_string(),
            Value::Float(f) => f.to_string(),
            Value::Bool(b) => b.to_string(),
            _ => node.kind().to_string(),
        };
        self.error(
            node.pos,
            format!("{what}: expected {expected}, found {found}"),
        );
    }

    pub fn map<'a>(&mut self, node: &'a Node, what: &str) -> Option<Fields<'a>> {
        match &node.value {
            Value::Map(entries) => Some(Fields::new(entries)),
            _ => {
                self.expected(node, what, "a mapping");
                None
            }
        }
    }

    pub fn list<'a>(&mut self, node: &'a Node, what: &str) -> Option<&'a [Node]> {
        match &node.value {
            Value::Seq(items) => Some(items),
            _ => {
                self.expected(node, what, "a list");
                None
            }
        }
    }

    pub fn string(&mut self, node: &Node, what: &str) -> Option<String> {
        match &node.value {
            Value::Str(s) => Some(s.clone()),
            _ => {
                self.expected(node, what, "a string");
                None
            }
        }
    }

    pub fn nonempty_string(&mut self, node: &Node, what: &str) -> Option<String> {
        let s = self.string(node, what)?;
        if s.trim().is_empty() {
            self.error(node.pos, format!("{what}: must not be empty"));
            return None;
        }
        Some(s)
    }

    pub fn boolean(&mut self, node: &Node, what: &str) -> Option<bool> {
        match node.value {
            Value::Bool(b) => Some(b),
            _ => {
                self.expected(node, what, "true or false");
                None
            }
        }
    }

    pub fn integer(&mut self, node: &Node, what: &str) -> Option<i64> {
        match node.value {
            Value::Int(i) => Some(i),
            _ => {
                self.expected(node, what, "an integer");
                None
            }
        }
    }

    pub fn number(&mut self, node: &Node, what: &str) -> Option<f64> {
        match node.value {
            Value::Int(i) => Some(i as f64),
            Value::Float(f) => Some(f),
            _ => {
                self.expected(node, what, "a number");
                None
            }
        }
    }

    pub fn positive_integer(&mut self, node: &Node, what: &str) -> Option<u64> {
        match node.value {
            Value::Int(i) if i > 0 => Some(i as u64),
            _ => {
                self.expected(node, what, "a positive integer");
                None
            }
        }
    }

    pub fn non_negative_integer(&mut self, node: &Node, what: &str) -> Option<u64> {
        match node.value {
            Value::Int(i) if i >= 0 => Some(i as u64),
            _ => {
                self.expected(node, what, "a non-negative integer");
                None
            }
        }
    }

    /// A length of time written as text (`30s`, `1m30s`, `500ms`), more than zero.
    pub fn positive_duration(&mut self, node: &Node, what: &str) -> Option<Duration> {
        const SHAPE: &str = "a duration such as `30s`, `1m30s` or `500ms`";
        let Value::Str(text) = &node.value else {
            self.expected(node, what, SHAPE);
            return None;
        };
        match humantime::parse_duration(text.trim()) {
            Ok(d) if d.is_zero() => {
                self.error(node.pos, format!("{what}: must be more than zero"));
                None
            }
            Ok(d) => Some(d),
            Err(_) => {
                self.error(
                    node.pos,
                    format!("{what}: expected {SHAPE}, found `{text}`"),
                );
                None
            }
        }
    }

    /// A list of strings, each with its position; items of another type are reported
    /// and left out.
    pub fn string_list(&mut self, node: &Node, what: &str) -> Option<Vec<(String, Pos)>> {
        let items = self.list(node, what)?;
        Some(
            items
                .iter()
                .filter_map(|item| Some((self.string(item, what)?, item.pos)))
                .collect(),
        )
    }

    /// One of a fixed set of words.
    pub fn choice<T: Copy>(&mut self, node: &Node, what: &str, choices: &[(&str, T)]) -> Option<T> {
        let word = self.string(node, what)?;
        if let Some((_, value)) = choices.iter().find(|(name, _)| *name == word) {
            return Some(*value);
        }
        let names: Vec<&str> = choices.iter().map(|(name, _)| *name).collect();
        let hint = suggest(&word, names.iter().copied());
        self.error(
            node.pos,
            format!("{what}: `{word}` is not one of {}{hint}", one_of(&names)),
        );
        None
    }

    /// Keys the PromptKit format defines but promptexec does not act on: each one
    /// present is accepted with a warning, so nobody believes it took effect.
    pub fn ignored_keys(&mut self, fields: &mut Fields<'_>, names: &[&'static str], what: &str) {
        for name in names {
            if let Some((key, _)) = fields.entry(name) {
                self.warning(
                    key.pos,
                    format!("`{name}` in {what} is a PromptKit key promptexec does not apply; it is ignored"),
                );
            }
        }
    }

    /// Reports the keys of `fields` that nobody read, with a suggestion when one is close.
    pub fn unknown_keys(&mut self, fields: &Fields<'_>, what: &str, policy: UnknownKeys) {
        let unknown: Vec<_> = fields.unknown().collect();
        for key in unknown {
            let hint = did_you_mean(&key.name, fields.known().iter().copied())
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_else(|| format!(" (expected one of {})", one_of(fields.known())));
            let message = format!("unknown key `{}` in {what}{hint}", key.name);
            match policy {
                UnknownKeys::Error => self.error(key.pos, message),
                UnknownKeys::Warn => self.warning(key.pos, message),
            }
        }
    }
}

/// "`a`, `b` or `c`"
pub(crate) fn one_of(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match quoted.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// Appends one segment to a JSON pointer, escaped as RFC 6901 asks.
pub(crate) fn pointer(base: &str, segment: impl std::fmt::Display) -> String {
    let segment = segment.to_string().replace('~', "~0").replace('/', "~1");
    format!("{base}/{segment}")
}
